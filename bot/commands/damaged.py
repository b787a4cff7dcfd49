"""A stored game that cannot be read any more, and how the channel gets over it.

A record can be damaged in Redis (a bad restore, a hand edit, a disk fault) or hold a state its
game can no longer read. Such a record must not hold its channel for the days its key lives: the
first command, press or deadline that meets it sets it aside (the store keeps a copy and its log
for the operator, briefly) and leaves a *tombstone* in its place, a finished record of no game,
so the channel is free at once. The channel is told once, in a sentence; the operator reads one
log line and sees the channel on the health page.
"""

from __future__ import annotations

from pydantic import ValidationError

from bot.commands.record import GameRecord
from core import ui
from core.registry import all_games

__all__ = [
    "FLOOR_SPAN",
    "FLOOR_START",
    "DamagedRecord",
    "notice",
    "read_record",
    "reason",
    "tombstone",
]

FLOOR_START = 1_000_000
FLOOR_SPAN = 4_000_000
"""A game begun after a damaged one starts at a version from the clock within
``[FLOOR_START, FLOOR_START + FLOOR_SPAN)``: far above any real game's, so a button left on a
message of the lost game (whose versions nobody can read any more) never looks current."""


class DamagedRecord(Exception):
    """The channel's stored game cannot be read; ``str()`` says what failed (for the log, never
    for a player: it names no data)."""


def reason(error: Exception) -> str:
    """What failed, without the data that failed (pydantic's messages quote the input)."""
    if isinstance(error, ValidationError):
        first = error.errors(include_input=False, include_url=False)[:1]
        where = ".".join(str(part) for part in first[0]["loc"]) if first else ""
        kind = first[0]["type"] if first else "invalid"
        return f"{error.title}: {error.error_count()} error(s), first {kind} at {where or 'top'}"
    return type(error).__name__


def read_record(data: str) -> GameRecord:
    """The record a store holds, or DamagedRecord when it is not one."""
    try:
        return GameRecord.model_validate_json(data)
    except ValidationError as error:
        raise DamagedRecord(reason(error)) from None


def tombstone(now: float) -> GameRecord:
    """What stands in a damaged record's place: a finished game of no kind, so every command
    finds the channel free, and a version floor for the next game (:data:`FLOOR_START`)."""
    return GameRecord(
        game="",
        status="finished",
        host="",
        host_name="",
        seed=0,
        created_at=now,
        updated_at=now,
        first_version=FLOOR_START + int(now) % FLOOR_SPAN,
    )


def notice(game: str | None) -> ui.Message:
    """What the channel is told, once, when its game is set aside."""
    names = [game] if game else sorted(g.name for g in all_games())
    start = " or ".join(f"`/{name} start`" for name in names)
    return ui.Message(
        text=(
            "The game in this channel could not be read (its saved record is damaged), so I set "
            f"it aside for the bot's operator. The channel is free: {start} begins a new game."
        )
    )
