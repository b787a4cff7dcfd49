"""The table's clock: real time, or a test's virtual clock (reservations, windows, budgets)."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

__all__ = ["Clock", "MonotonicClock"]


class Clock(Protocol):
    """Where the table and its budgets read the time (monotonic seconds) and wait; the real one
    by default, a virtual one in tests (``testkit.clock``), so that a test proves a platform's
    windows in the clock's time without waiting them out."""

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
