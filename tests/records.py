"""A game record's engine state as plain data that a test indexes freely."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.commands.record import GameRecord
from core.engine import GameState

__all__ = ["deciding", "plain_state"]


def plain_state(record: GameRecord | None) -> dict[str, Any]:
    """``record.state`` (``{}`` with no record or no state yet): the record types it as JSON,
    which production code narrows; a test reads what it knows is there."""
    state = record.state if record is not None else None
    return state if state is not None else {}


def deciding(state: Mapping[str, Any]) -> str | None:
    """The name of the decision open in a record's state (None: none is, the game over)."""
    decision = state.get("decision")
    return str(decision["name"]) if isinstance(decision, dict) else None


def as_played(state: GameState) -> dict[str, object]:
    """A state as its moves made it, less what numbers the moment (its version, when its
    decision opened, its deadline's key): a game taken back equals the one before the move."""
    data = state.model_dump(mode="json")
    data.pop("version"), data.pop("decision_version")
    if data.get("decision"):
        data["decision"].pop("opened")
    if data.get("deadline"):
        data["deadline"].pop("key")
    return data
