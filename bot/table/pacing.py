"""Pacing: each place's posts within the platform's channel limit, on a clock tests can move."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Protocol

__all__ = ["Clock", "MonotonicClock", "Pacer"]


class Clock(Protocol):
    """Where the pacing reads the time (monotonic seconds) and waits for a slot; the real one
    by default, a virtual one in tests (``testkit.clock``), so that a test proves the pace in
    the clock's time without waiting it out."""

    def now(self) -> float: ...

    def wall(self) -> float:
        """Seconds since the epoch, moved on with :meth:`now` (what the table writes in the
        refs that every worker reads: reservations, when the board's picture changed)."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class MonotonicClock:
    """The real clock: :func:`time.monotonic`, :func:`time.time` and :func:`asyncio.sleep`."""

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class Pacer:
    """Keeps each place's posts within the platform's channel limit (in this process)."""

    def __init__(self, posts: int, window_s: float, clock: Clock | None = None) -> None:
        self.posts = posts
        self.window_s = window_s
        self.clock: Clock = clock or MonotonicClock()
        self._sent: dict[str, deque[float]] = {}

    def _recent(self, where: str) -> deque[float]:
        sent = self._sent.setdefault(where, deque())
        now = self.clock.now()
        while sent and now - sent[0] >= self.window_s:
            sent.popleft()
        return sent

    def free(self, where: str) -> bool:
        return len(self._recent(where)) < self.posts

    def room(self, where: str) -> int:
        """Posts ``where`` may take now without waiting (no window: any number)."""
        if self.window_s <= 0:
            return 1_000_000
        return max(0, self.posts - len(self._recent(where)))

    async def slot(self, where: str) -> None:
        """Wait until ``where`` may take a post, and count it."""
        sent = self._recent(where)
        while len(sent) >= self.posts:
            await self.clock.sleep(max(0.01, self.window_s - (self.clock.now() - sent[0])))
            sent = self._recent(where)
        sent.append(self.clock.now())

    def posted(self, where: str) -> None:
        """The post counted by the last :meth:`slot` is done: count it from now, since the
        platform counts it when it arrives (posts to one place go one at a time)."""
        sent = self._sent.get(where)
        if sent:
            sent[-1] = max(sent[-1], self.clock.now())
