"""A seat kept warm: a bot stands in for people who stopped answering, until they are back.

A seat of people whose decision's deadline passes :data:`~bot.commands.record.STAND_IN_AFTER`
times in a row (the game's default choice made for them each time), while people still play
another seat, is marked away: from then on
a bot of the normal level plays it (:attr:`~bot.commands.record.SeatInfo.bot`), and the channel
is told once. What the bot plays for them is kept (:func:`note_played`). Their next action, their
``hand`` or any press of theirs (a stale one too) takes the seat back at once (:func:`come_back`):
they are told privately what was played for them, and the channel once that they are back.
Leaving a game still hands the seat to a bot for good (:mod:`bot.commands.seats.roster`).
"""

from __future__ import annotations

from bot.commands.game.play import Advance
from bot.commands.outbox import Outbox
from bot.commands.record import STAND_IN_AFTER, GameRecord
from core import text as markup
from core.engine import GameLike, GameState, Seat

__all__ = ["KEPT", "acted", "come_back", "missed", "note_played"]

KEPT = 20
"""The most moves made for an away seat that its people are told of (the latest)."""


def missed(game: GameLike, record: GameRecord, state: GameState, out: Outbox) -> bool:
    """The open decision's deadline passed: every seat of people it still waited for missed
    it; one that missed :data:`STAND_IN_AFTER` in a row is away from now on (told once), if
    people still play another seat (missed none of its deadlines since it last acted): with
    nobody else playing the game waits on its timeouts, and anyone may end it once it is idle.
    Whether a seat went away."""
    gone = False
    for seat in game.waiting_for(state):
        if seat >= len(record.seats):
            continue
        info = record.seats[seat]
        if info.is_bot or info.away:
            continue
        info.missed += 1
        # Someone else still plays (answered their last decision): a table where nobody does
        # waits on its timeouts (and anyone may end it once it is idle).
        others = [
            s for i, s in enumerate(record.seats) if i != seat and s.bot is None and not s.missed
        ]
        if info.missed >= STAND_IN_AFTER and others:
            info.away, info.played_for, gone = True, [], True
            out.say(
                f"{info.name} missed {STAND_IN_AFTER} deadlines in a row, so a bot plays for "
                f"them until they act again (any button, a move or `/{game.name} hand` takes "
                "the seat back)."
            )
    return gone


def acted(record: GameRecord, seat: Seat) -> None:
    """Its people acted for ``seat``: no deadline is missed in a row any more."""
    if 0 <= seat < len(record.seats):
        record.seats[seat].missed = 0


def note_played(game: GameLike, record: GameRecord, result: Advance) -> None:
    """Keep what the stand-in bots of this step played, for their people's return."""
    for seat, before, choice in result.bot_moves:
        if 0 <= seat < len(record.seats) and record.seats[seat].away:
            kept = record.seats[seat].played_for
            kept.append(game.describe_action(before, choice))
            del kept[:-KEPT]


def come_back(game: GameLike, record: GameRecord, user: str, out: Outbox) -> bool:
    """``user`` acted while a bot stood in for their seat: it is theirs again at once. They are
    told privately what was played for them, the channel once that they are back. False when
    no bot stood in for them."""
    seat = record.seat_of(user)
    if seat is None or record.status != "playing" or not record.seats[seat].away:
        return False
    info = record.seats[seat]
    played = info.played_for
    info.away, info.missed, info.played_for = False, 0, []
    if played:
        moves = "; ".join(played)
        more = f" ({markup.plural(len(played), 'move')}, the latest {KEPT} at most)"
        said = f"While you were away the bot played for you{more}: {moves}."
    else:
        said = "The bot made no move for you while you were away."
    out.reply(user, f"You have your seat back. {said}")
    who = (
        info.name
        if game.teams
        else next((m.name for m in info.members if m.user == user), info.name)
    )
    out.say(f"{who} is back, and plays {info.name if game.teams else 'their seat'} again.")
    return True
