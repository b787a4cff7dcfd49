"""Button and select ids: what a press means, packed into the short string platforms carry.

Discord custom ids and Slack action values are strings (Discord: at most 100 characters), and
they must survive a restart, so everything needed to handle a press is inside the id: the game,
the state version the choice was offered at, the seat it belongs to, and the action itself.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from core import ui

__all__ = ["MAX_ID_LENGTH", "Press", "decode", "encode_button", "encode_select"]

MAX_ID_LENGTH = 100
_PREFIX = "br1"


class Press(BaseModel):
    """A decoded button or select press."""

    game: str
    channel: str | None = None
    """The game's channel when the press came from elsewhere (a DM)."""
    action: dict[str, Any] | None = None
    command: str | None = None
    version: int | None = None
    seat: int | None = None
    field: str | None = None
    values: list[str] = Field(default_factory=list)

    def resolved_action(self) -> dict[str, Any] | None:
        """The action with the chosen select values filled in."""
        if self.action is None:
            return None
        if self.field is None:
            return self.action
        return {**self.action, self.field: list(self.values)}


def _compact(action: dict[str, Any]) -> str:
    return json.dumps(action, separators=(",", ":"), sort_keys=True)


def _seat(seat: int | None) -> str:
    return "" if seat is None else str(seat)


def encode_button(game: str, button: ui.Button, channel: str | None = None) -> str:
    """The id of ``button``; ``channel`` names the game's channel when the button is shown
    elsewhere (a DM), so that pressing it acts on that channel's game."""
    where = channel or ""
    if button.command is not None:
        custom_id = f"{_PREFIX}|c|{game}|{where}|{button.command}"
    elif button.action is not None:
        custom_id = (
            f"{_PREFIX}|a|{game}|{where}|{button.version}|{_seat(button.seat)}|"
            f"{_compact(button.action)}"
        )
    else:
        raise ValueError("a button needs an action or a command")
    return _checked(custom_id)


def encode_select(game: str, select: ui.Select, channel: str | None = None) -> str:
    custom_id = (
        f"{_PREFIX}|s|{game}|{channel or ''}|{select.version}|{_seat(select.seat)}|"
        f"{select.field}|{_compact(select.action)}"
    )
    return _checked(custom_id)


def _checked(custom_id: str) -> str:
    if len(custom_id) > MAX_ID_LENGTH:
        raise ValueError(f"component id longer than {MAX_ID_LENGTH} characters: {custom_id}")
    return custom_id


def decode(custom_id: str, values: list[str] | None = None) -> Press | None:
    """Parse an id made by this module; anything else (or garbage) gives None."""
    head = custom_id.split("|", 4)
    if len(head) < 5 or head[0] != _PREFIX:
        return None
    kind, game, channel = head[1], head[2], head[3] or None
    # Split only as far as the kind's fields go, so the JSON tail is never cut.
    parts = custom_id.split("|", {"c": 4, "a": 6, "s": 7}.get(kind, 4))
    try:
        if kind == "c":
            return Press(game=game, channel=channel, command=parts[4])
        version = int(parts[4])
        seat = int(parts[5]) if parts[5] else None
        if kind == "a":
            action = json.loads(parts[6])
            return Press(game=game, channel=channel, action=action, version=version, seat=seat)
        if kind == "s":
            action = json.loads(parts[7])
            return Press(
                game=game,
                channel=channel,
                action=action,
                version=version,
                seat=seat,
                field=parts[6],
                values=list(values or []),
            )
    except (IndexError, ValueError):
        return None
    return None
