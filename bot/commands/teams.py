"""Seats with several people: finding teams and players by what a user types, moving members.

Every game's seats are lists of members (:class:`~bot.commands.record.SeatInfo`); in most games a
seat has one member. In a team game (``Game.teams``) a seat is a team: people join it by name,
the host renames teams and moves or removes players, and any member acts for the team.
These helpers read or edit a record only; the lobby and the roster (:mod:`bot.commands.lobby`,
:mod:`bot.commands.roster`) decide what is allowed when, and the pipeline saves it.
"""

from __future__ import annotations

import re
from typing import Any

from bot.commands.record import GameRecord, Member, SeatInfo
from core import text as markup
from core.engine import Game

__all__ = [
    "MAX_TEAM_NAME",
    "TeamError",
    "add_member",
    "clean_team_name",
    "find_player",
    "find_team",
    "free_name",
    "remove_member",
    "split_to",
    "team_list",
    "team_names",
]

MAX_TEAM_NAME = 24
"""Team names travel inside button ids (``join <team>``), which platforms cap at 100 chars."""

_MENTION = re.compile(r"^<@!?([A-Za-z0-9]+)(?:\|[^>]*)?>$")
"""A Discord (``<@123>``, ``<@!123>``) or Slack (``<@U123>``, ``<@U123|name>``) user mention."""


class TeamError(Exception):
    """A team command that cannot be carried out; ``str()`` is a sentence for the user."""


_MARKUP = re.compile(r"[*`~|<>\\]|__|@(everyone|here)\b", re.IGNORECASE)
"""What would format a message or mention someone on Discord or Slack."""


def clean_team_name(text: str) -> str:
    """A team name as typed, tidied and escaped as markup (see :mod:`core.text`).

    Refuses names that are empty, too long, or that are a mention or formatting: a team name is
    shown in every message of the game and must read the same everywhere. ``text`` may be typed
    or come back from a button (already escaped); both give the same name.
    """
    name = " ".join(markup.unescape(text).split())
    if not name:
        raise TeamError("A team needs a name.")
    if len(name) > MAX_TEAM_NAME:
        shown = markup.escape(name)
        raise TeamError(f"Team names are at most {MAX_TEAM_NAME} characters; {shown} is longer.")
    if _MARKUP.search(name):
        raise TeamError(
            "A team name can't hold a mention or formatting (`*`, `_`, `~`, `|`, `<`, `>`, "
            "a backslash or a backtick); try a plain name like Sharks."
        )
    return markup.escape(name)


def find_team(record: GameRecord, name: str) -> int | None:
    """The seat of the team called ``name`` (typed, or as markup; case and spacing ignored)."""
    wanted = " ".join(markup.plain(name).split()).casefold()
    for index, seat in enumerate(record.seats):
        if markup.plain(seat.name).casefold() == wanted:
            return index
    return None


def find_player(record: GameRecord, text: str) -> tuple[int, Member]:
    """The seat and member that ``text`` names: a mention, a user id or a display name."""
    typed = text.strip()
    mention = _MENTION.match(typed)
    typed = typed.removeprefix("@")  # an unescaped mention (Slack without should_escape)
    user = mention.group(1) if mention else typed
    typed = markup.escape(typed)  # stored names are markup
    by_name: list[tuple[int, Member]] = []
    for index, seat in enumerate(record.seats):
        for member in seat.members:
            if member.user == user:
                return index, member
            if member.name.casefold() == typed.casefold():
                by_name.append((index, member))
    if len(by_name) == 1:
        return by_name[0]
    if by_name:
        raise TeamError(f"Several players are called {typed}; mention the one you mean.")
    raise TeamError(f"Nobody called {typed or 'that'} is on a team here.")


def split_to(text: str, usage: str) -> tuple[str, str]:
    """Split ``a to b`` at its last `` to ``; ``usage`` is the sentence shown when it isn't."""
    left, sep, right = text.rpartition(" to ")
    if not sep or not left.strip() or not right.strip():
        raise TeamError(usage)
    return left.strip(), right.strip()


def add_member(record: GameRecord, seat: int, member: Member) -> None:
    record.seats[seat].members.append(member)


def remove_member(record: GameRecord, user: str) -> int:
    """Take ``user`` off their seat; returns the seat index (the seat may now be empty)."""
    seat = record.seat_of(user)
    if seat is None:
        raise TeamError("That player is not on a team here.")
    record.seats[seat].members = [m for m in record.seats[seat].members if m.user != user]
    return seat


def team_list(seats: list[SeatInfo]) -> str:
    """``Sharks (Alice, Bob); Ada (bot)`` for lobby and status messages."""
    parts = []
    for seat in seats:
        who = ", ".join(member.name for member in seat.members) or "bot"
        parts.append(f"{seat.name} ({who})")
    return "; ".join(parts)


def team_names(record: GameRecord) -> str:
    """``the teams are Sharks, Ada`` for refusals that name a team that is not there."""
    return "the teams are " + ", ".join(seat.name for seat in record.seats)


def free_name(game: Game[Any, Any], record: GameRecord, wanted: str) -> str:
    """A player's own team is named after them, made unique (and short) if need be."""
    if not game.teams:
        return wanted
    # A display name may hold what a team name may not (formatting, mentions): leave it out.
    shown = "".join(c for c in markup.plain(wanted) if c not in markup.SPECIAL)
    base = markup.escape(" ".join(shown.split())[: MAX_TEAM_NAME - 3].strip()) or "Team"
    name, number = base, 1
    while find_team(record, name) is not None:
        number += 1
        name = f"{base} {number}"
    return name
