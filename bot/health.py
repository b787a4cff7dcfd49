"""Liveness: is Redis reachable and is the deadline loop running? (``GET /healthz``)."""

from __future__ import annotations

from typing import Any

from bot.commands.authority import Authority
from bot.commands.deadlines import Heartbeat
from storage import StorageUnavailable

__all__ = ["health"]


async def health(authority: Authority, heartbeat: Heartbeat) -> tuple[bool, dict[str, Any]]:
    """Whether this worker is healthy, and what a supervisor or an operator should see."""
    try:
        await authority.store.ping()
        redis_ok = True
    except StorageUnavailable:
        redis_ok = False
    loops = heartbeat.alive()
    report: dict[str, Any] = {
        "redis": "ok" if redis_ok else "unreachable",
        "deadlines": "running" if loops else "stalled",
        "parked_games": sorted(str(key) for key in authority.parked),
        # Set aside because their record could not be read (kept briefly for the operator).
        "damaged_games": sorted(str(key) for key in authority.damaged),
    }
    return redis_ok and loops, report
