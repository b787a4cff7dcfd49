"""Commands as data: every word a player can type, declared once.

A game lists its typed moves as :class:`Command` values (``Game.commands``); the lobby and table
words every game shares are declared the same way (``bot.commands.grammar``). Everything that
shows or reads a command takes it from here, so none of them parses help text:

- the help a player reads (``/<game> help``, the console's ``help``): each command's
  :attr:`Command.form` and :attr:`Command.about`;
- the text parser: a command whose first argument is required and missing is refused with its
  form before the game sees it (``bot.commands.moves``); the game's ``parse_text`` reads the
  arguments;
- Discord's command tree: one subcommand per command, its option named, described and marked
  required from :attr:`Command.args`, autocompleted by :attr:`Arg.kind`;
- forms: a command with an :attr:`Command.ask` can be typed into a form (a Discord or Slack
  modal) that a button opens.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from core.ui import Ask

__all__ = ["Arg", "Command", "Kind", "find"]


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


@dataclass(frozen=True)
class Arg:
    """One argument of a command, in the order it is typed."""

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
