"""Liveness: can this worker serve players, and is its deadline loop running? (``GET /healthz``)."""

from __future__ import annotations

from typing import Protocol

from bot.commands.authority import Authority
from bot.deadlines import Heartbeat

__all__ = ["SERVING", "Drawer", "Report", "health"]

Report = dict[str, str | int | list[str]]
"""What ``/healthz`` answers, as JSON."""

SERVING = frozenset({"ok", "full", "read-only"})
"""What :meth:`GameStore.probe` says of a Redis that still answers reads: players get answers
(status, hands, and a sentence saying why a move was not saved), so a load balancer must keep the
worker. A full Redis is full for every worker at once: dropping them all would answer nobody."""


class Drawer(Protocol):
    """The picture process (:class:`bot.runtime.PictureDrawer`), as health reads it."""

    @property
    def rebuilds(self) -> int:
        """Times it was found dead and started again."""
        ...


async def health(
    authority: Authority, heartbeat: Heartbeat, drawer: Drawer | None = None
) -> tuple[bool, Report]:
    """Whether this worker is healthy, and what a supervisor or an operator should see.

    Healthy: Redis answers within ``BOARDROOM_HEALTH_TIMEOUT_SECONDS`` (even when it is full and
    refuses writes: the report says so) and the deadline loop runs. The answer comes within that
    budget however Redis hangs. Redis is asked on a connection of its own, outside the pool:
    ``redis_pool`` says ``"saturated"`` when every pooled connection is lent and calls wait for
    one (the worker is busy, not cut off: it stays healthy), else ``"ok"``."""
    store = authority.store
    redis = await store.probe(authority.settings.health_timeout_seconds)
    loops = heartbeat.alive()
    report: Report = {
        "redis": redis,
        "redis_pool": "saturated" if store.saturated() else "ok",
        "deadlines": "running" if loops else "stalled",
        "parked_games": sorted(str(key) for key in authority.parked),
        # Set aside because their record could not be read (kept briefly for the operator).
        "damaged_games": sorted(str(key) for key in authority.damaged),
    }
    if drawer is not None:
        report["picture_rebuilds"] = drawer.rebuilds
    return redis in SERVING and loops, report
