"""The deadline runner: any worker may run it; the store hands each due deadline to one worker."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from bot.commands.authority import Authority
from bot.commands.outbox import Outbox

__all__ = ["Sink", "run_deadlines"]

log = logging.getLogger(__name__)

Sink = Callable[[Outbox], Awaitable[None]]


async def run_deadlines(
    authority: Authority, platform: str, sink: Sink, poll_seconds: float, stop: asyncio.Event
) -> None:
    """Fire due deadlines every ``poll_seconds`` until ``stop`` is set, delivering each Outbox."""
    while not stop.is_set():
        for outbox in await authority.fire_due(platform):
            try:
                await sink(outbox)
            except Exception:  # a failed delivery must not stop every other game's clock
                log.exception("could not deliver the outbox of %s", outbox.channel)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), poll_seconds)
