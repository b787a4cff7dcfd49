"""The bound on a worker's in-flight work (``BOARDROOM_MAX_INFLIGHT``): the runtime gives the
desk one (:attr:`bot.desk.Desk.slots`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot import metrics

__all__ = ["Slots"]

T = TypeVar("T")


class Slots:
    """At most ``size`` requests worked on at once by this worker: the others (acknowledged
    already) wait their turn rather than all asking Redis together, which would only make every
    one of them slower (``boardroom_inflight_requests``, ``boardroom_queued_requests``)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._free = asyncio.Semaphore(size)

    async def run(self, work: Callable[[], Awaitable[T]]) -> T:
        metrics.QUEUED.inc()
        try:
            await self._free.acquire()
        finally:
            metrics.QUEUED.dec()
        metrics.INFLIGHT.inc()
        try:
            return await work()
        finally:
            metrics.INFLIGHT.dec()
            self._free.release()
