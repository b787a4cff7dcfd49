"""What every command becomes: a step that edits the channel's record and fills an Outbox.

A command (``join``, a press, a deadline) is turned into a :data:`Step` before anything is
loaded; the pipeline (:mod:`bot.commands.pipeline`) calls it with the record it loaded and saves
the :class:`Change` it returns. A step that raises :class:`Refusal` changes nothing and answers
the requester only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel, field_validator

from bot.commands.game.actionlog import Entry
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.settings import Settings
from core import text as markup
from core import ui
from core.engine import GameLike
from storage import History

__all__ = [
    "Change",
    "Env",
    "LoggedStep",
    "Refusal",
    "Request",
    "Reschedule",
    "Step",
    "StepMaker",
    "outbox_for",
]


class Request(BaseModel):
    """Who sent a command, from where, and the platform's id of that delivery."""

    platform: str
    channel: str
    user: str
    name: str
    """The display name as markup (:func:`core.text.escape` of what the platform says), so it
    goes into messages and records as it is and can never format or mention anything."""
    delivery: str | None = None
    """Interaction id, Slack retry key, ...: a second delivery with the same id is dropped."""
    community: str = ""
    """Where the channel belongs: the Discord server, the Slack workspace (``""``: the
    platform named none, a DM). Finished games are recorded for it."""

    @field_validator("name")
    @classmethod
    def _as_markup(cls, name: str) -> str:
        return markup.escape(name)


class Refusal(Exception):
    """A command the authority will not carry out; ``str()`` is a sentence for the requester.
    ``in_place``: the answer replaces the pressed message when it is private (a copy of a
    decision that is over: its buttons go with it); ``shown``: what it then shows instead of
    the bare sentence (the seat's panel, the sentence at its head)."""

    def __init__(
        self, sentence: str, in_place: bool = False, shown: ui.Message | None = None
    ) -> None:
        super().__init__(sentence)
        self.in_place = in_place
        self.shown = shown


@dataclass
class Change:
    """What a step wants saved, and the side effects to perform once the save has won."""

    record: GameRecord
    log: list[Entry] = field(default_factory=list)
    joined: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    fresh_log: bool = False
    """The record begins a new game in the channel: the log of the one before goes."""


class Reschedule(Exception):
    """A deadline fired early: nothing to do but set its entry to ``due``."""

    def __init__(self, due: float | None) -> None:
        self.due = due


Step = Callable[[GameRecord | None, Outbox], Change | None]


@dataclass
class LoggedStep:
    """A step that reads the game's stored log besides its record (a take-back rebuilds the
    game from it): the pipeline reads the log into :attr:`history` before calling it, one round
    trip more. A log read before a newer save fails the step's own check, or its save."""

    run: Callable[[GameRecord | None, Outbox, History | None], Change | None]
    history: History | None = None

    def __call__(self, record: GameRecord | None, out: Outbox) -> Change | None:
        return self.run(record, out, self.history)


class Env(Protocol):
    """What steps read besides the record (the :class:`~bot.commands.authority.Authority`)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def clock(self) -> Callable[[], float]: ...

    @property
    def new_seed(self) -> Callable[[], int]: ...


StepMaker = Callable[[Env, Request, GameLike, str], Step]
"""Turns ``/<game> <word> <rest>`` into its step; raises CommandError or TeamError when the
words alone cannot be read, before anything is loaded."""


def outbox_for(req: Request, game: GameLike | None = None) -> Outbox:
    """An empty Outbox answering ``req`` (for ``game``'s table when known)."""
    return Outbox(platform=req.platform, channel=req.channel, game=game.name if game else None)
