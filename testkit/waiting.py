"""Bounded waiting: poll a condition until it holds, or fail saying what never happened.

Tests that wait for something another task, thread or process does (a deferred interaction,
a deadline runner's delivery, a redrawn prompt) poll it with :func:`until` (or
:func:`until_sync` outside an event loop) instead of a bare ``while`` loop, and tests that step a
game until it gets somewhere loop over :func:`attempts`, so that a bug shows as an
``AssertionError`` naming what was awaited rather than as a test that hangs until
pytest-timeout stops it. The bounds guard a broken run, they are never a measured time: they are
generous, and a working run goes on as soon as the condition holds.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Iterator

__all__ = ["GUARD_S", "attempts", "until", "until_sync"]

GUARD_S = 30.0
"""The default bound, in real seconds: far above what any condition takes on two busy cores."""


async def until(
    check: Callable[[], bool | Awaitable[bool]],
    what: str,
    within_s: float = GUARD_S,
    every_s: float = 0.01,
) -> None:
    """Return once ``check()`` is true (``check`` may be a coroutine function); after
    ``within_s`` real seconds without it, fail with ``what`` (the condition awaited, as a
    phrase: "the bot deferred the interaction"). ``check`` may itself assert what must not
    happen meanwhile."""
    give_up = time.monotonic() + within_s
    while True:
        held = check()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        if time.monotonic() > give_up:
            raise AssertionError(f"not within {within_s:g} s: {what}")
        await asyncio.sleep(every_s)


def until_sync(
    check: Callable[[], bool], what: str, within_s: float = GUARD_S, every_s: float = 0.05
) -> None:
    """:func:`until` for code without an event loop (a thread or a process being watched)."""
    give_up = time.monotonic() + within_s
    while not check():
        if time.monotonic() > give_up:
            raise AssertionError(f"not within {within_s:g} s: {what}")
        time.sleep(every_s)


def attempts(what: str, limit: int) -> Iterator[int]:
    """``range(limit)`` for a loop that ``break``s once ``what`` happened; a loop that runs out
    fails with ``what`` instead of going on (or falling through) silently::

        for _ in attempts("the pick phase ended", 500):
            if phase(await table.record()) != "pick":
                break
            assert await table.step()
    """
    yield from range(limit)
    raise AssertionError(f"not within {limit} tries: {what}")
