"""The stored record of one channel's game: the lobby, the seats and the engine state."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

__all__ = ["GameRecord", "SeatInfo"]


class SeatInfo(BaseModel):
    """A seat at the table: a platform user, or a bot when ``user`` is None."""

    user: str | None = None
    name: str

    @property
    def is_bot(self) -> bool:
        return self.user is None


class GameRecord(BaseModel):
    """One blob per channel game, saved with compare-and-set on the store's version."""

    game: str
    status: Literal["lobby", "playing", "finished"] = "lobby"
    host: str
    host_name: str
    seats: list[SeatInfo] = Field(default_factory=list)
    options: dict[str, Any] = Field(default_factory=dict)
    seed: int
    """The game's secret seed; with the action log it replays the game exactly."""
    state_json: str | None = None
    """The engine state as the game's own model dumped it. Kept as text so that a command
    parses it once, straight into the game's model, instead of into dicts and then again."""
    created_at: float
    updated_at: float
    deadline_due: float | None = None
    """Absolute time (seconds since the epoch) at which the state's pending deadline fires."""
    first_version: int = 0
    """The state version this game starts at: one past the channel's previous game, so a button
    left over from an earlier game in the channel can never look current."""

    @property
    def state(self) -> dict[str, Any] | None:
        """The engine state as plain data (for tools and tests; the authority uses state_json)."""
        return json.loads(self.state_json) if self.state_json is not None else None

    def seat_of(self, user: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.user == user:
                return index
        return None

    def user_of(self, seat: int) -> str | None:
        return self.seats[seat].user if 0 <= seat < len(self.seats) else None
