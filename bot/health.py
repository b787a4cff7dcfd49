"""Liveness: can this worker serve players, and is its deadline loop running? (``GET /healthz``)."""

from __future__ import annotations

from bot.commands.authority import Authority
from bot.commands.deadlines import Heartbeat

__all__ = ["SERVING", "Report", "health"]

Report = dict[str, str | list[str]]
"""What ``/healthz`` answers, as JSON."""

SERVING = frozenset({"ok", "full", "read-only"})
"""What :meth:`GameStore.probe` says of a Redis that still answers reads: players get answers
(status, hands, and a sentence saying why a move was not saved), so a load balancer must keep the
worker. A full Redis is full for every worker at once: dropping them all would answer nobody."""


async def health(authority: Authority, heartbeat: Heartbeat) -> tuple[bool, Report]:
    """Whether this worker is healthy, and what a supervisor or an operator should see.

    Healthy: Redis answers within ``BOARDROOM_HEALTH_TIMEOUT_SECONDS`` (even when it is full and
    refuses writes: the report says so) and the deadline loop runs. The answer comes within that
    budget however Redis hangs."""
    redis = await authority.store.probe(authority.settings.health_timeout_seconds)
    loops = heartbeat.alive()
    report: Report = {
        "redis": redis,
        "deadlines": "running" if loops else "stalled",
        "parked_games": sorted(str(key) for key in authority.parked),
        # Set aside because their record could not be read (kept briefly for the operator).
        "damaged_games": sorted(str(key) for key in authority.damaged),
    }
    return redis in SERVING and loops, report
