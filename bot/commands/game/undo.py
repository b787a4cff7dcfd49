"""Taking a move back by consent: ``undo`` asks, the others Approve or Refuse on the board.

A seated person may ask to take back their seat's last move while nothing has been drawn by
chance, dealt, rolled or revealed since it (the engine says so of every action:
:attr:`~core.engine.Transition.undoable`), the game is not over and no deadline has passed
since. The record keeps the moves that may still be taken back (:attr:`GameRecord.undo_points`,
emptied by any move that cannot be); going back to a seat's last one takes back every move
made after it too, which is why everyone else in the game is asked. One refusal, any move, or
the decision's deadline ends the request; a person playing only with bots (the host alone
with them) takes back at once.

Accepted, the game is rebuilt from its log (:func:`rebuild`: the log replayed to the state
before the move, which must also replay to the state stored now), and goes on from it as a new
version (:meth:`~core.engine.Game.reopen`: the same state, every earlier button stale, the
open decision's deadline armed again in full); the log holds ``[user, "undo", version]`` so
that a replay does the same. What the request and the log say comes from the public lines
the moves showed already: nothing a move kept secret (a card picked face down) is told.
"""

from __future__ import annotations

import json
import logging

from bot.commands.game.actionlog import UNDO, Seen, replay_history
from bot.commands.game.play import Advance
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord, UndoPoint
from core import text as markup
from core.engine import Event, GameLike, GameState
from storage import History

__all__ = [
    "NOTHING_TO_TAKE_BACK",
    "asking",
    "events_told",
    "lapse",
    "rebuild",
    "taken_back",
    "track",
]

log = logging.getLogger(__name__)

NOTHING_TO_TAKE_BACK = (
    "You have no move to take back now: a move can be taken back only while nothing has been "
    "drawn, dealt, rolled or revealed since it, no deadline has passed and the game is not over."
)
TOLD_LINES = 3
"""The public lines of the moves taken back that a request repeats (what the channel saw)."""


def track(
    record: GameRecord, seat: int | None, user: str | None, before: int, result: Advance
) -> None:
    """After a command's move is stored: a move by a person that may be taken back is kept
    (:attr:`GameRecord.undo_points`); anything else (a timeout, a draw, a reveal, a bot's
    turn of its own, the end) closes every earlier one."""
    after = result.state
    if seat is None or user is None or not result.undoable or after.finished:
        record.undo_points = []
        return
    told = [line for move in result.moves for line in events_told(move)]
    record.undo_points.append(
        UndoPoint(seat=seat, user=user, before=before, after=after.version, told=told[:TOLD_LINES])
    )


def lapse(record: GameRecord, out: Outbox, why: str = "the game moved on") -> None:
    """A request still open ends (a move was made, a deadline passed): the log says so."""
    request = record.undo_request
    if request is None:
        return
    record.undo_request = None
    out.say(f"{markup.possessive(request.name)} request to take back a move lapsed: {why}.")


def asking(name: str, moves: int, told: list[str]) -> str:
    """What the board says of an open request: who asks, how many moves it takes back, and the
    public lines those moves showed (nothing a move kept secret)."""
    what = "their last move" if moves == 1 else f"their last move and the {moves - 1} after it"
    lines = "".join(f"\n> {markup.clip(line, 150)}" for line in told[:TOLD_LINES])
    return f"**{name} asks to take back {what}.**{lines}\nEveryone else: Approve or Refuse."


def rebuild(
    game: GameLike, record: GameRecord, history: History, to: int, now: GameState
) -> GameState | None:
    """The state the game had at version ``to``, rebuilt from its log; None when the log does
    not hold it or does not replay to ``now`` (then nothing is taken back)."""
    found: list[GameState] = []

    def seen(state: GameState) -> None:
        if state.version == to:
            found[:] = [state]

    last = replay(game, record, history, seen)
    if last is None or last.model_dump() != now.model_dump() or not found:
        return None
    return found[0]


def replay(game: GameLike, record: GameRecord, history: History, seen: Seen) -> GameState | None:
    """The game replayed from its stored history (None when it cannot be)."""
    try:
        return replay_history(
            game, record.seed, record.options, record.first_version, history, seen
        )
    except (ValueError, KeyError, IndexError, json.JSONDecodeError):
        log.exception("the log of a %s game does not replay", game.name)
        return None


def taken_back(entries: list[list[object]]) -> bool:
    """Whether a log line holds a take-back."""
    return any(len(entry) > 1 and entry[1] == UNDO for entry in entries)


def events_told(events: list[Event]) -> list[str]:
    """The public lines of a move's events (what :class:`UndoPoint` keeps)."""
    return [e.text for e in events if e.audience.is_public and not e.own]
