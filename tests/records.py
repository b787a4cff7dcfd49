"""A game record's engine state as plain data that a test indexes freely."""

from __future__ import annotations

from typing import Any

from bot.commands.record import GameRecord

__all__ = ["plain_state"]


def plain_state(record: GameRecord | None) -> dict[str, Any]:
    """``record.state`` (``{}`` with no record or no state yet): the record types it as JSON,
    which production code narrows; a test reads what it knows is there."""
    state = record.state if record is not None else None
    return state if state is not None else {}
