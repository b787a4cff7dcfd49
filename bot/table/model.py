"""What the table keeps and what it talks to: the refs of a game's surfaces, and the primitives
each platform implements (:class:`Platform`, and :class:`Answer` for the interaction answered).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel, Field

from bot.table.budget import Budget, Limit
from core import ui

__all__ = [
    "PENDING",
    "Answer",
    "Closed",
    "Delivered",
    "Gone",
    "Place",
    "Platform",
    "Refs",
    "Refused",
    "Shown",
    "Stuck",
    "digest",
]

PENDING = "pending:"
"""How the id of a message a delivery has reserved but not yet posted begins (see
:meth:`Shown.reserved`)."""


class Gone(Exception):
    """The message no longer exists (deleted by someone)."""


class Stuck(Gone):
    """The message is still there but can no longer be edited (Discord caps the edits of a
    message older than an hour: error 30046). Like a gone one, the surface is posted anew at
    the bottom; then the old message is deleted so that its buttons cannot be pressed."""


class Closed(Exception):
    """The user does not accept direct messages from the bot."""


class Refused(Exception):
    """The platform refused the bot this (a missing permission); ``str()`` names it."""


class Place(BaseModel):
    """Where a game's public surfaces go: a channel, or a thread in it."""

    channel: str
    thread: str | None = None


class Shown(BaseModel):
    """A message the table posted: its conversation, its id and a digest of its content.

    While a delivery posts it, its id is a reservation (``pending:<token>:<n>:<since>``): the
    refs say the surface is being posted, so no other delivery posts it too; the digest is then
    what the newest delivery wants it to show (:attr:`Refs.wanted` holds that message)."""

    where: str
    id: str
    digest: str = ""

    @property
    def reserved(self) -> bool:
        return self.id.startswith(PENDING)

    def since(self) -> float:
        """When a reservation was made (unix time); 0 for a posted message."""
        if not self.reserved:
            return 0.0
        try:
            return float(self.id.rsplit(":", 1)[1])
        except (IndexError, ValueError):
            return 0.0


class Refs(BaseModel):
    """What the table showed for one game, kept in Redis beside the game.

    Written with a compare-and-set on :attr:`rev` (the store's), never behind a lock: a
    delivery that finds the refs changed since it read them plans again from the newer ones.
    """

    table: str
    rev: int = Field(default=0, exclude=True)
    """The store's revision of these refs (kept beside them, not in them)."""
    version: int = -1
    """The newest state version drawn; an older Outbox never replaces its board or panels."""
    card: Shown | None = None
    thread: str | None = None
    threads_off: bool = False
    """The game plays in the channel (``thread=off``, or threads were not allowed)."""
    board: Shown | None = None
    board_message: ui.Message | None = None
    """The board as last drawn, so posts without a new state can move it down."""
    kept_until: float = 0.0
    """Until when the game is kept (unix time, as its last save said: a game of long deadlines
    or a paused one outlives the idle TTL), so that its table is kept as long."""
    picture_at: float = 0.0
    """When the board's picture last changed (unix time, the table's clock): a new picture
    sooner than :data:`~bot.table.plan.COALESCE_S` after it waits (see :mod:`bot.table.plan`)."""
    board_source: ui.Message | None = None
    """The newest state's board before the log was added to it, so that log lines arriving
    with an older delivery still reach the board's **Latest**."""
    below: list[str] = Field(default_factory=list)
    """Messages posted in the game's place after the board, still there."""
    prompt: Shown | None = None
    prompt_id: int | None = None
    prompt_message: ui.Message | None = None
    """The prompt as posted, so it can lose its buttons when its decision is over."""
    pending: list[str] = Field(default_factory=list)
    """Log lines not yet posted (the board shows their tail)."""
    panels: dict[str, Shown] = Field(default_factory=dict)
    closed: list[str] = Field(default_factory=list)
    """Users whose DMs are closed (told once in the game's place)."""
    hinted: list[str] = Field(default_factory=list)
    """Requesters told how to open their DMs (once per game)."""
    notes: dict[str, dict[str, Shown]] = Field(default_factory=dict)
    """DM notes to others still open, by what they are about (``request:7``) and user."""
    wanted: dict[str, ui.Message] = Field(default_factory=dict)
    """What a reserved surface must show once posted, by slot (``board``, ``panel:<user>``...),
    when a newer delivery changed it meanwhile: the poster brings it up to date."""
    waiting: list[str] = Field(default_factory=list)
    """Whom the game waits for (as the newest state drawn says): their panels go first."""
    ended: bool = False

    def place(self, channel: str) -> Place:
        return Place(channel=channel, thread=None if self.threads_off else self.thread)

    def working_copy(self) -> Refs:
        """A copy for a plan to change (:func:`bot.table.plan.plan`): its records of shown
        messages, its lists and its dicts are its own; the messages are shared, as nothing
        changes a message in place (a change is a new one, ``model_copy(update=...)``). A deep
        copy would copy every message as well: four times the work (66 against 16 us for the refs
        of a whole Discord game, 3 KB as JSON)."""

        def own(shown: Shown | None) -> Shown | None:
            return None if shown is None else shown.model_copy()

        return self.model_copy(
            update={
                "card": own(self.card),
                "board": own(self.board),
                "prompt": own(self.prompt),
                "below": list(self.below),
                "pending": list(self.pending),
                "panels": {user: shown.model_copy() for user, shown in self.panels.items()},
                "closed": list(self.closed),
                "hinted": list(self.hinted),
                "notes": {
                    about: {user: shown.model_copy() for user, shown in copies.items()}
                    for about, copies in self.notes.items()
                },
                "wanted": dict(self.wanted),
                "waiting": list(self.waiting),
            }
        )


def digest(message: ui.Message) -> str:
    return hashlib.sha256(message.model_dump_json().encode()).hexdigest()[:16]


class Platform(Protocol):
    """The primitives a platform's adapter implements for the table.

    Every message handed to them (and to :class:`Answer`) has its controls bound to their ids
    already, for where it goes (:func:`bot.commands.codec.bind`): a renderer draws each
    ``custom_id`` as it is and leaves out a control without one, so no primitive needs the
    game or its channel for ids."""

    name: str
    budget: Budget | None
    """Where every rationed call the primitives make is taken from (None: nothing is
    rationed, as in the console)."""
    closed_hint: str
    """Told once per game to a requester whose DMs are closed: how to open them ("" for none)."""
    threads_share_limit: bool
    """Whether posts in a thread count against its channel's post limit (Slack: yes; Discord:
    a thread is a channel of its own)."""
    threads_are_conversations: bool
    """Whether a thread is a conversation with an id of its own (Discord, the console), so that
    controls posted there name the game's channel as a DM's do; a Slack thread is replies in
    its channel, whose id a press there carries."""
    id_limit: int
    """The longest id a control may carry (Discord 100; Slack 255 less its renderer's prefix):
    the table binds every message's controls to ids within it (:func:`bot.commands.codec.bind`)
    before it calls a primitive, which draws them as they are."""

    def post_limit(self, where: str) -> Limit | None:
        """The limit of posts into the conversation ``where`` (None: none)."""
        ...

    async def post(
        self,
        place: Place,
        message: ui.Message,
        surface: str = "post",
        mention: list[str] | None = None,
        ping: bool = True,
    ) -> Shown:
        """Post in ``place`` (raises :class:`Refused` when not allowed there, never
        :class:`Gone`); ``surface`` names what it is (``card``, ``board``, ``log``,
        ``prompt``, ``post``, ``result``, ``note``). ``mention``: users named at
        the head of the text in the platform's mention syntax, notified when ``ping`` (nobody
        else ever is)."""
        ...

    async def edit(self, shown: Shown, message: ui.Message, surface: str = "post") -> None:
        """Edit a message the bot posted; raises :class:`Gone` when it is no longer there."""
        ...

    async def delete(self, shown: Shown) -> None: ...

    async def dm(self, user: str, message: ui.Message) -> Shown:
        """A new direct message to ``user``; raises :class:`Closed` when DMs are closed."""
        ...

    async def start_thread(self, channel: str, card: Shown, name: str) -> str | None:
        """A thread from the card; None when the bot may not start one there."""
        ...


class Answer(Protocol):
    """The interaction being answered (a press, a command), for the requester's own view."""

    user: str
    pressed: tuple[str, str] | None
    """The conversation and id of the message whose component was pressed, if any."""
    pressed_private: bool
    """Whether that message is private to the presser (a DM, an ephemeral message)."""

    async def update(self, message: ui.Message) -> bool:
        """Replace the pressed message (Discord UPDATE_MESSAGE, Slack replace_original); False
        when it could not (never raises :class:`Gone` or :class:`Closed`)."""
        ...

    async def reply(self, message: ui.Message, channel: str) -> bool:
        """A private reply to the requester (ephemeral); False when it could not. ``channel``
        is the game's channel ("" for none), where a platform may answer privately (Slack)."""
        ...

    async def acknowledge(self) -> None:
        """The answer must wait (a post waits for the place's limit): let the platform know
        the request arrived (Discord: a deferred update of a press, "thinking…" for a command)
        so the player is not kept waiting; a later update of the pressed message or a private
        reply still works."""
        ...


@dataclass
class Delivered:
    """What :meth:`~bot.table.Table.deliver` did for the requester."""

    answered: bool = False
    refused: list[str] = field(default_factory=list)
