"""Seats with several people: finding teams and players by what a user types, moving members.

Every game's seats are lists of members (:class:`~bot.commands.record.SeatInfo`); in most games a
seat has one member. In a team game (``Game.teams``) a seat is a team: people join it by name,
the host renames teams and moves or removes players, and any member acts for the team.
These helpers read or edit a record only; the lobby and the roster (:mod:`bot.commands.seats.lobby`,
:mod:`bot.commands.seats.roster`) decide what is allowed when, and the pipeline saves it.
"""

from __future__ import annotations

import re
import unicodedata

from bot.commands.record import GameRecord, Member, SeatInfo
from core import text as markup
from core.engine import GameLike

__all__ = [
    "MAX_TEAM_NAME",
    "TeamError",
    "add_member",
    "clean_team_name",
    "find_player",
    "find_team",
    "free_name",
    "name_key",
    "normal",
    "own_team",
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

_BLANK = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
"""Letters and marks that show nothing (Hangul fillers, the blank Braille pattern, the combining
grapheme joiner...): with the format characters, what makes a name look like another."""

_LOOKALIKE_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")
"""Alphabets with many letters that look the same (Latin a, Cyrillic а, Greek α): one word
that mixes them is a name made to pass for another."""


def normal(text: str) -> str:
    """``text`` (plain text) as a name is kept: NFKC (fullwidth ``ＳＨＡＲＫＳ`` is ``SHARKS``,
    ``ﬁ`` is ``fi``), without format characters (Unicode category Cf: zero-width spaces and
    joiners, the byte order mark, bidi marks, embeddings, overrides and isolates, soft hyphens)
    or letters that show nothing, its spaces collapsed.

    Invisible characters are dropped rather than refused: they are what a copied name or a
    phone keyboard brings along unseen, and what someone adds to pass one name off as another;
    either way the name a player sees is the name it is.
    """
    shown = unicodedata.normalize("NFKC", _visible(text))
    return " ".join(_visible(shown).split())  # NFKC can make a space, never a format character


def _visible(text: str) -> str:
    return "".join(c for c in text if unicodedata.category(c) != "Cf" and c not in _BLANK)


def name_key(text: str) -> str:
    """What two names (plain text) are compared by: :func:`normal`, then casefolded, so that
    ``Sharks``, ``ＳＨＡＲＫＳ``, ``sharks`` and ``Sha\u200brks`` are one team (or one player)."""
    return unicodedata.normalize("NFKC", normal(text).casefold())


def _mixed_script(name: str) -> list[str]:
    """The look-alike alphabets that one word of ``name`` mixes (empty: none does)."""
    for word in name.split():
        scripts = {
            script
            for char in word
            if char.isalpha()
            and (script := unicodedata.name(char, "").partition(" ")[0]) in _LOOKALIKE_SCRIPTS
        }
        if len(scripts) > 1:
            return sorted(scripts, key=_LOOKALIKE_SCRIPTS.index)
    return []


def clean_team_name(text: str) -> str:
    """A team name as typed, tidied and escaped as markup (see :mod:`core.text`).

    Refuses names that are empty, too long, or that are a mention or formatting: a team name is
    shown in every message of the game and must read the same everywhere. For the same reason
    it is :func:`normal` (invisible characters dropped, NFKC), and a word that mixes Latin,
    Greek and Cyrillic letters (a Cyrillic ``а`` in ``Shаrks``) is refused. ``text`` may be
    typed or come back from a button (already escaped); both give the same name.
    """
    name = normal(markup.unescape(text))
    if not name:
        raise TeamError("A team needs a name (of letters or digits you can see).")
    if len(name) > MAX_TEAM_NAME:
        shown = markup.escape(name)
        raise TeamError(f"Team names are at most {MAX_TEAM_NAME} characters; {shown} is longer.")
    if _MARKUP.search(name):
        raise TeamError(
            "A team name can't hold a mention or formatting (`*`, `_`, `~`, `|`, `<`, `>`, "
            "a backslash or a backtick); try a plain name like Sharks."
        )
    mixed = _mixed_script(name)
    if mixed:
        raise TeamError(
            f"{markup.escape(name)} mixes {markup.join([s.title() for s in mixed])} letters in "
            "one word, so it could pass for another team's name; write each word in one "
            "alphabet."
        )
    return markup.escape(name)


def find_team(record: GameRecord, name: str) -> int | None:
    """The seat of the team called ``name`` (typed, or as markup), compared by
    :func:`name_key`: case, spacing, width and invisible characters ignored."""
    wanted = name_key(markup.plain(name))
    for index, seat in enumerate(record.seats):
        if name_key(markup.plain(seat.name)) == wanted:
            return index
    return None


def find_player(record: GameRecord, text: str) -> tuple[int, Member]:
    """The seat and member that ``text`` names: a mention, a user id or a display name
    (compared by :func:`name_key`, as team names are)."""
    typed = text.strip()
    mention = _MENTION.match(typed)
    typed = typed.removeprefix("@")  # an unescaped mention (Slack without should_escape)
    user = mention.group(1) if mention else typed
    wanted = name_key(typed)
    typed = markup.escape(normal(typed))  # as shown: stored names are markup
    by_name: list[tuple[int, Member]] = []
    for index, seat in enumerate(record.seats):
        for member in seat.members:
            if member.user == user:
                return index, member
            if wanted and name_key(markup.plain(member.name)) == wanted:
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


def own_team(name: str) -> str:
    """What a team of one's own is named from ``name`` (a display name), before a number
    makes it unique: ``name`` or ``name 2``, ``name 3``..."""
    # A display name may hold what a team name may not (formatting, mentions, invisible
    # characters): leave it out; one that mixes look-alike alphabets names no team.
    shown = "".join(c for c in normal(markup.plain(name)) if c not in markup.SPECIAL)
    if _mixed_script(shown):
        shown = ""
    return markup.escape(" ".join(shown.split())[: MAX_TEAM_NAME - 3].strip()) or "Team"


def free_name(game: GameLike, record: GameRecord, wanted: str) -> str:
    """A player's own team is named after them, made unique (and short) if need be."""
    if not game.teams:
        return wanted
    base = own_team(wanted)
    name, number = base, 1
    while find_team(record, name) is not None:
        number += 1
        name = f"{base} {number}"
    return name
