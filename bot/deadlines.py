"""The deadline runner: any worker may run it; the store leases each due deadline to one worker.

The loop never dies of one game or one Redis error: :meth:`Authority.fire_due` isolates games,
a Redis error is logged and retried with backoff, and a failed delivery is logged. Each fired
Outbox is delivered in a task of its own, in order within its channel: one slow or stuck
channel (a platform answering slowly, a rate limit) never delays another channel's deadlines. Its
:class:`Heartbeat` tells health checks (``GET /healthz``) and the runtimes whether it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.commands.authority import Authority
from bot.commands.outbox import Outbox
from storage import StorageFull, StorageRefused, StorageUnavailable

__all__ = ["LOOP_DIED", "MAX_BACKOFF_S", "Heartbeat", "Sink", "run_deadlines", "until_stopped"]

log = logging.getLogger(__name__)

Sink = Callable[[Outbox], Awaitable[None]]
LOOP_DIED = 1
"""The exit status of a runtime whose deadline loop ended by itself: a supervisor restarts it."""
MAX_BACKOFF_S = 5.0
"""Longest wait between two tries while Redis does not answer."""
DRAIN_S = 5.0
"""How long a stopping loop waits for the deliveries it started."""


@dataclass
class Heartbeat:
    """When the deadline loop last completed a round with Redis answering."""

    poll_seconds: float
    last: float = field(default_factory=time.monotonic)
    failing_since: float | None = None
    """When Redis stopped answering the loop (None: it answers)."""

    def beat(self) -> None:
        self.last = time.monotonic()
        self.failing_since = None

    def alive(self) -> bool:
        """A round completed recently (allowing a few polls and one Redis back-off)."""
        return time.monotonic() - self.last <= 3 * self.poll_seconds + MAX_BACKOFF_S + 1


async def run_deadlines(
    authority: Authority,
    platform: str,
    sink: Sink,
    poll_seconds: float,
    stop: asyncio.Event,
    heartbeat: Heartbeat | None = None,
) -> None:
    """Fire due deadlines every ``poll_seconds`` until ``stop`` is set, delivering each Outbox."""
    beat = heartbeat or Heartbeat(poll_seconds)
    deliveries = _Deliveries(sink)
    try:
        await _fire(authority, platform, deliveries, poll_seconds, stop, beat)
    finally:
        await deliveries.drain()


class _Deliveries:
    """The deliveries of fired Outboxes under way: one chain of tasks per channel."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.last: dict[str, asyncio.Task[None]] = {}

    def start(self, outbox: Outbox) -> None:
        before = self.last.get(outbox.channel)
        task = asyncio.create_task(self._deliver(outbox, before))
        self.last[outbox.channel] = task
        task.add_done_callback(lambda done: self._forget(outbox.channel, done))

    async def _deliver(self, outbox: Outbox, before: asyncio.Task[None] | None) -> None:
        if before is not None:
            await asyncio.wait({before})  # the channel's earlier Outbox first
        try:
            await self.sink(outbox)
        except Exception:  # a failed delivery must not stop every other game's clock
            log.exception("could not deliver the outbox of %s", outbox.channel)

    def _forget(self, channel: str, done: asyncio.Task[None]) -> None:
        if self.last.get(channel) is done:
            del self.last[channel]

    async def drain(self) -> None:
        """Wait for the deliveries under way (a stopping worker finishes what it fired), at most
        :data:`DRAIN_S`; what is still stuck then is cancelled (the next change of its game
        shows the state anyway)."""
        until = time.monotonic() + DRAIN_S
        while self.last and (left := until - time.monotonic()) > 0:
            await asyncio.wait(set(self.last.values()), timeout=left)
        for task in list(self.last.values()):
            task.cancel()


async def _fire(
    authority: Authority,
    platform: str,
    deliveries: _Deliveries,
    poll_seconds: float,
    stop: asyncio.Event,
    beat: Heartbeat,
) -> None:
    wait = poll_seconds
    while not stop.is_set():
        outboxes: list[Outbox] = []
        try:
            outboxes = await authority.fire_due(platform)
        except (StorageFull, StorageRefused):
            # Redis answered and refused the claim (full, or a failing disk): the loop runs and
            # fires what is due once Redis takes writes again (health reports Redis, not the
            # loop); the store logs the refusal. Back off meanwhile, as for an outage.
            beat.beat()
            wait = min(MAX_BACKOFF_S, max(wait * 2, poll_seconds))
        except StorageUnavailable:
            if beat.failing_since is None:
                beat.failing_since = time.monotonic()
                log.warning("storage unavailable; deadlines wait for it to come back")
            wait = min(MAX_BACKOFF_S, max(wait * 2, poll_seconds))
        except Exception:  # a bug must not stop every game's clock for good
            log.exception("firing the deadlines of %s failed; trying again", platform)
            wait = min(MAX_BACKOFF_S, max(wait * 2, poll_seconds))
        else:
            if beat.failing_since is not None:
                log.warning("storage answers again; deadlines run")
            beat.beat()
            wait = poll_seconds
        for outbox in outboxes:
            deliveries.start(outbox)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), wait)


async def until_stopped(stop: asyncio.Event, loop: asyncio.Task[None]) -> int:
    """Wait until ``stop`` is set (0) or the deadline ``loop`` ends by itself (:data:`LOOP_DIED`):
    a worker whose clock cannot run must exit so that its supervisor starts a fresh one."""
    stopping = asyncio.create_task(stop.wait())
    done, _ = await asyncio.wait({stopping, loop}, return_when=asyncio.FIRST_COMPLETED)
    if loop in done and not stop.is_set():
        stopping.cancel()
        error = None if loop.cancelled() else loop.exception()
        log.critical("the deadline loop ended (%r); exiting so a supervisor restarts", error)
        stop.set()
        return LOOP_DIED
    return 0
