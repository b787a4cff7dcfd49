"""Commands as data: every word a player can type, declared once.

A game lists its typed moves as :class:`Command` values (``Game.commands``); the lobby and table
words every game shares are declared the same way (``bot.commands.grammar``). Everything that
shows or reads a command takes it from here, so none of them parses help text:

- the help a player reads (``/<game> help``, the console's ``help``): each command's
  :attr:`Command.form` and :attr:`Command.about`;
- the text parser: each argument is read by its kind (:func:`read`: text, a number, an amount
  with ``k``/``M``/``B``, a card or a place by any of its names, a player by name, one of some
  words), and the command's :attr:`Command.make` turns what was read into the game's action; a
  command whose first argument is required and missing is refused with its form before the
  game sees it (``bot.commands.game.moves``);
- Discord's command tree: one subcommand per command, its option named, described and marked
  required from :attr:`Command.args`, autocompleted by :attr:`Arg.kind`;
- forms: a command with an :attr:`Command.ask` can be typed into a form (a Discord or Slack
  modal) that a button opens.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Never

from pydantic import BaseModel

from core.text import escape
from core.ui import Ask

__all__ = ["Arg", "Command", "Kind", "Names", "Unreadable", "Values", "find", "read"]


class Kind(StrEnum):
    """What an argument is; platforms offer completions by kind."""

    TEXT = "text"
    """Free text (a pitch)."""
    CARD = "card"
    """A card's name, as the player's hand or the board shows it."""
    PLAYER = "player"
    """A player at the table (a name or a mention)."""
    TEAM = "team"
    """A team's name."""
    PLACE = "place"
    """A space of the board (a country, a Service Industry)."""
    NUMBER = "number"
    """A whole number (a product's number on the board)."""
    SEATS = "seats"
    """How many seats (of bots to add)."""
    AMOUNT = "amount"
    """An amount of money (``250k``, ``2000``)."""
    WORD = "word"
    """One of :attr:`Arg.choices`."""
    TOPIC = "topic"
    """A topic of the game's rules."""
    OPTIONS = "options"
    """``key=value`` start options."""


Names = Callable[[], Mapping[str, Sequence[str]]]
"""What players name by their names (cards, countries): each one's id, with the names it goes
by (its id counts as one)."""


class Unreadable(ValueError):
    """Typed arguments that cannot be read as their command declares them; ``str()`` is a
    sentence for the player."""


@dataclass(frozen=True)
class Arg:
    """One argument of a command, in the order it is typed, and how it is read (by its
    :attr:`kind`)."""

    name: str
    """How the help shows it (``<card>``, ``<product #>``); its first word is its
    :attr:`key`."""
    kind: Kind = Kind.TEXT
    required: bool = True
    choices: tuple[str, ...] = ()
    """The words a :attr:`Kind.WORD` argument takes (shown ``<ask|always>``)."""
    lead: str = " "
    """What comes before it in the typed form: a space, or a word (``rename <old> to <new>``) or
    a comma (``exchange <card>, <card>``)."""
    names: Names | None = None
    """What a :attr:`Kind.CARD` or :attr:`Kind.PLACE` argument names: each id and its names,
    matched whole (any case, spaces or underscores) or by a prefix naming one alone."""
    many: bool = False
    """Several of it (``return <cards>``): separated by commas, or by spaces when no comma is
    typed."""
    words: tuple[tuple[str, object], ...] = ()
    """Words it also takes, and what each means (``nobody`` for a player: None; ``yes``)."""
    unit: int = 1
    """For an :attr:`Kind.AMOUNT`: the dollars the game counts as one (BiggieBills counts
    millions): ``250k``, ``1.5M`` and ``2B`` are dollars, a plain number is in units."""
    unknown: str = ""
    """The refusal when it cannot be read: ``{text}`` is what was typed, ``{word}`` the
    command's word, ``{names}`` the names it takes (players, teams). By default it says what
    the argument is."""

    @property
    def key(self) -> str:
        """A name for it as one lowercase word (``product #`` → ``product``), for a platform's
        option names."""
        first = self.name.replace("|", " ").split()[0] if self.name.strip() else ""
        return "".join(c for c in first.lower() if c.isalnum() or c == "_") or "text"

    @property
    def shown(self) -> str:
        """``<card>``, ``[topic]`` or ``<ask|always>``."""
        inner = "|".join(self.choices) if self.choices else self.name
        return f"<{inner}>" if self.required else f"[{inner}]"


@dataclass(frozen=True)
class Command:
    """A word a player types (``/<game> <word> <args>``) and what it does."""

    word: str
    about: str
    """What it does, as a help line after the form (``pick the cards of your new product``)."""
    args: tuple[Arg, ...] = ()
    ask: Ask | None = None
    """The form that asks for the arguments when a button opens this command."""
    make: Callable[[Never, int, Values], BaseModel | None] | None = None
    """A game's move: the action it means, from the game's state, the seat and its arguments
    as read (:class:`Values`); None when an argument it needs is missing. It raises the game's
    refusal when the arguments name no move (a card that is not on the board)."""
    usage: Callable[[Never, int], str] | None = None
    """The refusal when the arguments cannot be split into readable pieces, from the state
    and the seat (an example drawn from the board); by default the first argument's."""
    typed: bool = True
    """A word players type, listed in the help and the platforms' command lists; False: only
    pressed (a button's command, such as ``rematch``), though typing it works too."""

    @property
    def form(self) -> str:
        """How it is typed: ``pick <card> <card>``, ``rules [topic]``, ``skip``."""
        return self.word + "".join(arg.lead + arg.shown for arg in self.args)

    @property
    def needs_argument(self) -> bool:
        """Its first argument is required, so the bare word cannot be read."""
        return bool(self.args) and self.args[0].required

    @property
    def line(self) -> str:
        """The help line: ``pick <card> <card>: pick the cards ...``."""
        return f"{self.form}: {self.about}"


def find(commands: Iterable[Command], word: str) -> Command | None:
    """The command typed as ``word``, or None."""
    return next((command for command in commands if command.word == word), None)


class Values:
    """A command's arguments as read by their kinds (:func:`read`), in the order declared; an
    optional one not typed is None."""

    def __init__(self, values: Sequence[object]) -> None:
        self._values = list(values)

    def __len__(self) -> int:
        return len(self._values)

    def given(self, index: int) -> bool:
        return index < len(self._values) and self._values[index] is not None

    def any(self, index: int) -> object:
        """The value read, whatever its kind (a word's meaning, a seat or a number)."""
        return self._values[index] if index < len(self._values) else None

    def text(self, index: int) -> str:
        value = self.any(index)
        if not isinstance(value, str):
            raise TypeError(f"argument {index} is not text: {value!r}")
        return value

    def number(self, index: int) -> int:
        value = self.any(index)
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"argument {index} is not a number: {value!r}")
        return value

    def seat(self, index: int) -> int | None:
        """A player or team (None: nobody)."""
        value = self.any(index)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise TypeError(f"argument {index} is not a seat: {value!r}")
        return value

    def names(self, index: int) -> list[str]:
        """The ids of a :attr:`Arg.many` argument."""
        value = self.any(index)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise TypeError(f"argument {index} is not a list of names: {value!r}")
        return [str(v) for v in value]


def _normal(text: str) -> str:
    return " ".join(text.strip().casefold().replace("_", " ").replace("-", " ").split())


def _named(text: str, table: Mapping[str, Sequence[str]]) -> str | None:
    """The id ``text`` names: one of its names whole, else a prefix that names one alone."""
    key = _normal(text)
    if not key:
        return None
    for thing, names in table.items():
        if key in {_normal(thing), *(_normal(name) for name in names)}:
            return thing
    found = {
        thing
        for thing, names in table.items()
        for name in (thing, *names)
        if _normal(name).startswith(key)
    }
    return found.pop() if len(found) == 1 else None


_AMOUNT = re.compile(r"(\d+(?:\.\d+)?)([kmb]?)")
_SCALE = {"": 0, "k": 1_000, "m": 1_000_000, "b": 1_000_000_000}


def _amount(text: str, unit: int) -> int | None:
    """``250000``, ``$250,000``, ``250k``, ``1.5m``, ``2B``: a whole number of the unit, or
    None. A suffix counts dollars; a plain number counts units."""
    match = _AMOUNT.fullmatch(text.strip().lower().replace(",", "").replace("_", "").lstrip("$"))
    if match is None:
        return None
    number, suffix = float(match.group(1)), match.group(2)
    value = number * _SCALE[suffix] / unit if suffix else number
    whole = round(value)
    return whole if whole == value and whole > 0 else None


def _seat(text: str, seats: Sequence[str]) -> int | None:
    key = _normal(text).removeprefix("@")
    matches = [s for s, name in enumerate(seats) if _normal(name) == key]
    if not matches and key:
        matches = [s for s, name in enumerate(seats) if _normal(name).startswith(key)]
    return matches[0] if len(matches) == 1 else None


class _Refused(Exception):
    """One piece cannot be read as its argument (``why``, a sentence)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def _one(arg: Arg, text: str, word: str, seats: Sequence[str]) -> object:
    """``text`` read as one ``arg`` (_Refused with its sentence when it cannot be)."""
    words = dict(arg.words)
    key = _normal(text).removeprefix("@")
    if key in words:
        return words[key]
    found: object = None
    if arg.kind in (Kind.TEXT, Kind.TOPIC, Kind.OPTIONS):
        found = text.strip() or None
    elif arg.kind is Kind.NUMBER or arg.kind is Kind.SEATS:
        digits = text.strip().removeprefix("#")
        found = int(digits) if digits.isdigit() else None
    elif arg.kind is Kind.AMOUNT:
        found = _amount(text, arg.unit)
    elif arg.kind in (Kind.CARD, Kind.PLACE) and arg.names is not None:
        found = _named(text, arg.names())
    elif arg.kind in (Kind.PLAYER, Kind.TEAM):
        found = _seat(text, seats)
    elif arg.kind is Kind.WORD:
        found = key if key in arg.choices else None
    if found is None:
        raise _Refused(_unknown(arg, text, word, seats))
    return found


def _unknown(arg: Arg, text: str, word: str, seats: Sequence[str]) -> str:
    if arg.unknown:
        if arg.names is not None:  # each thing by the first of its names
            names = ", ".join(named[0] if named else thing for thing, named in arg.names().items())
        else:
            names = ", ".join(seats)
        return arg.unknown.format(text=escape(text.strip()), word=word, names=names)
    return f"“{escape(text.strip())}” is not what `{word} {arg.shown}` takes."


def _pieces(arg: Arg, text: str, word: str, seats: Sequence[str]) -> object:
    """``text`` read as ``arg``: one piece, or for a :attr:`Arg.many` one each, split by
    commas, or with none typed, each the longest run of words that reads as one."""
    if not arg.many:
        return _one(arg, text, word, seats)
    if "," in text:
        return [_one(arg, part, word, seats) for part in text.split(",") if part.strip()]
    tokens, found = text.split(), []
    while tokens:
        for end in range(len(tokens), 0, -1):
            try:
                found.append(_one(arg, " ".join(tokens[:end]), word, seats))
            except _Refused:
                if end == 1:
                    raise
                continue
            tokens = tokens[end:]
            break
    return found


def read(
    command: Command, rest: str, seats: Sequence[str], usage: Callable[[], str] | None = None
) -> Values | None:
    """The arguments typed after ``command``'s word, read by their kinds. ``seats``: the
    names of the game's seats (players, teams). None when a required argument is missing;
    :class:`Unreadable` with a sentence when one cannot be read (``usage``: when the typed
    words cannot be split among several arguments at all; the first argument's sentence by
    default).

    Arguments after a word or a comma (their :attr:`Arg.lead`) are split there; those after a
    space take as many words as read as them, the first split that reads whole winning (a
    team of two words, then a card of three).
    """
    args, text = command.args, rest.strip()
    best: tuple[int, str] = (-1, "")

    def split(index: int, left: str) -> list[object] | None:
        nonlocal best
        if index == len(args):
            return [] if not left.strip() else None
        arg, last = args[index], index == len(args) - 1
        if not left.strip():
            if arg.required:
                return None
            return [None] * (len(args) - index)
        tail_lead = args[index + 1].lead if not last else ""
        if last:
            cuts = [(left, "")]
        elif tail_lead.strip():  # a word or a comma comes before the next argument
            head, found, tail = left.partition(tail_lead.strip())
            cuts = [(head, tail)] if found else [(left, "")]
        else:
            tokens = [token for token in re.split(r"[\s,]+", left) if token]
            cuts = [(" ".join(tokens[:n]), " ".join(tokens[n:])) for n in range(len(tokens), 0, -1)]
        for head, tail in cuts:
            try:
                value = _pieces(arg, head, command.word, seats)
            except _Refused as refused:
                if index > best[0]:
                    best = (index, refused.why)
                continue
            after = split(index + 1, tail)
            if after is not None:
                return [value, *after]
        return None

    if not args:
        return Values([]) if not text else None
    if not text:
        return None if args[0].required else Values([None] * len(args))
    values = split(0, text)
    if values is not None:
        return Values(values)
    index, why = best
    if index <= 0 and len(args) > 1 and usage is not None:
        raise Unreadable(usage())
    if index < 0:
        return None  # a required argument is missing
    raise Unreadable(why)
