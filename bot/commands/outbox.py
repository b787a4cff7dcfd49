"""What the authority hands back: what each surface of the table should show now.

A game in a channel is shown on a fixed set of surfaces (see the team's ARCHITECTURE.md, in the
shared folder beside this repository, "Presentation: the table"; as built, docs/architecture.md,
"bot/table: the table"): the *card* in the channel, the *board*, the *log*, the public
*prompt*, one private *panel* per player and the turn *notice*. An Outbox says what changed:
the table layer (:mod:`bot.table`) compares it with what was last shown and posts, edits, moves
or deletes.
Private answers to the requester (a refusal, ``help``, ``rules``) are ``replies``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core import ui

__all__ = ["GAME_OVER", "Changes", "Delivery", "DeliveryContext", "Form", "Mode", "Outbox"]

GAME_OVER = "This game is over; the card in the channel shows the final standings."
"""What every private panel says once its game is over (its buttons gone)."""


class Delivery(BaseModel):
    """One private message for ``user``, whom only they see: an answer to the requester, or a
    note for someone else (a request to join their team), which the table sends as a DM."""

    to: Literal["ephemeral"] = "ephemeral"
    user: str | None = None
    message: ui.Message
    in_place: bool = False
    """An answer to a press on a private message of its own (a request to join, in a DM):
    it replaces that message, buttons and all, so they cannot be pressed again."""
    heal: ui.Message | None = None
    """With ``in_place``: what the private pressed message shows instead of the bare answer
    (the seat's panel, the answer at its head: one message in a DM, not two)."""
    note: str | None = None
    """For a note to someone else: what it is about (``request:7``), so that the table keeps
    the DM it sent and can close it (:attr:`Outbox.closed_notes`) once that is settled."""


class Form(BaseModel):
    """A form for the presser to fill in (a modal): its answer completes ``command``, which is
    then sent to the game of ``channel`` as if typed (``/<game> <command> <answer>``)."""

    game: str
    channel: str
    command: str
    ask: ui.Ask


class Mode(enum.StrEnum):
    """What kind of delivery the table makes (see :class:`DeliveryContext`)."""

    STEP = "step"
    """What a step changed: a command, a press, a deadline."""
    STALE = "stale"
    """The answer to a press on a message of an earlier moment: the pressed message is brought
    up to date with the answer, so it cannot be pressed stale again."""
    REPAIR = "repair"
    """The game as it is now, for a table that may not show it: a deadline claimed again with
    nothing to fire (its lease ran out after the save before it) brings this, in case the worker
    that saved died before delivering. The table applies it only when it has not drawn
    ``version`` yet, or holds a reservation (:func:`bot.table.plan.plan`); else nothing."""
    CATCH_UP = "catch_up"
    """The table's own delivery of a board picture it held back (changes came faster than the
    platform should take uploads): the board of ``version``, if it is still the newest, gets
    the picture of ``board.picture_key``; nothing else is touched."""
    FLUSH = "flush"
    """The table's own delivery of the edits the platform's budget deferred."""


@dataclass(frozen=True)
class DeliveryContext:
    """How a change set is to be delivered, beside what it changes: its mode, the refs loaded
    with the game, and the drawings of its pictures."""

    mode: Mode = Mode.STEP
    refs_seen: tuple[int, str] | None = None
    """The table's refs (revision and JSON; ``(0, "")``: none) as loaded with the game, so the
    table need not read them again (it does when they turn out to have changed)."""
    draw: Callable[[], ui.Picture | None] | None = None
    """Draws the picture of ``board.picture_key`` (a pure function of the public view); the
    table calls it off the event loop, and only when that picture is not drawn yet."""
    draw_chart: Callable[[], ui.Picture | None] | None = None
    """Draws the picture of ``card.picture_key``, the finished game's money chart (replayed
    from its log), as the table draws a board's."""
    kept_until: float | None = None
    """Until when the save keeps the game (unix time): the table keeps its refs at least as
    long (a game of long deadlines, or paused, outlives the idle TTL)."""


class Changes(BaseModel):
    """What one step changed of one channel's table: what each surface should show now. The
    table takes it as it is (it is frozen) with a :class:`DeliveryContext`; a step fills an
    :class:`Outbox`, which hands both over (:meth:`Outbox.handed`)."""

    model_config = ConfigDict(frozen=True)

    platform: str
    channel: str
    game: str | None = None
    table: str | None = None
    """Which game of the channel this is (the game and its first version): the table layer
    keeps its message refs, and adapters keep facts such as "told once", under it."""
    deliveries: list[Delivery] = Field(default_factory=list)
    """Private answers to the requester, and private notes to others (as DMs)."""
    announcements: list[ui.Message] = Field(default_factory=list)
    """Posts in the channel itself that belong to no game's table (the channel's game could
    not be read and was set aside): posted once each, kept nowhere."""

    card: ui.Message | None = None
    """What the game's card in the channel shows now (the lobby, the summary, the standings)."""
    begun: bool = False
    """The game has just begun: its thread starts from the card and a new board is drawn."""
    thread: bool = True
    """Whether the game plays in a thread of its own (else in the channel)."""
    ended: bool = False
    """The game is over (by play or by the host): the card shows ``card``, ``result`` goes to
    the channel, and the prompt, notice and panels' buttons are closed."""
    result: ui.Message | None = None
    """The final result, posted in the channel when the game was played in a thread."""
    log: list[str] = Field(default_factory=list)
    """New lines of the game's story, in order (coalesced into log messages by the table)."""
    posts: list[ui.Message] = Field(default_factory=list)
    """Players' own content (a pitch): each its own post in the game's place."""
    board: ui.Message | None = None
    """When set, the board shows this and ``prompt`` says what the public prompt shows."""
    prompt: ui.Message | None = None
    """The public decision now open (None with a board: none is open, the last loses its
    buttons)."""
    prompt_id: int | None = None
    """Which decision the prompt is (its decision version): a new one is posted, the same one
    edited."""
    panels: dict[str, ui.Message] = Field(default_factory=dict)
    """Players' private panels that changed, by user."""
    closed_panels: dict[str, ui.Message] = Field(default_factory=dict)
    """Panels of people who are no longer seated (they left, or were taken off a team), by
    user: where one is shown it now says this, without buttons, and is no longer kept; none
    is posted anew."""
    notify: list[str] | None = None
    """Users the game now waits for who should be told (a turn notice); None: no change."""
    waiting: list[str] = Field(default_factory=list)
    """Users the game now waits for (their panels go first when the platform's budget is
    short)."""
    version: int | None = None
    """The game state's version the board and prompt show; an older delivery never replaces
    what a newer one drew."""

    unavailable: bool = False
    """Storage could not be reached; nothing was applied."""
    duplicate: bool = False
    """The delivery was seen before (a platform retry or a double submit) and was not applied."""
    closed_notes: dict[str, ui.Message] = Field(default_factory=dict)
    """Notes sent earlier about these (``request:7``) that are settled: each DM copy still
    standing now shows this message instead, without its buttons."""
    raise_panel: bool = False
    """The requester asked for their hand in a DM: the panel there is posted anew at the
    bottom (the old one deleted) rather than a copy of it added."""
    heal: ui.Message | None = None
    """With a stale press: what a private pressed message shows now (the seat's panel)."""
    form: Form | None = None
    """Open this form for the presser (and nothing else: a modal must be the first answer)."""
    forgotten: tuple[str, str] | None = None
    """(community, user): this person was just forgotten (``/boardroom forget-me``); a page of
    theirs the platform keeps no longer shows their stats, and is no longer followed."""
    homes: list[str] = Field(default_factory=list)
    """People whose list of games changed with this Outbox (a lobby they joined or left, a game
    begun or over) or whose game now waits for someone else: a platform that keeps a page per
    person (Slack's App Home) brings theirs up to date. Public facts only."""

    @property
    def public(self) -> list[ui.Message]:
        """What these changes show everyone, as messages (tests and the console read it)."""
        shown = [self.card] if self.card is not None else []
        if self.log:
            shown.append(ui.Message(text="\n".join(self.log)))
        shown.extend(self.posts)
        if self.prompt is not None:
            shown.append(self.prompt)
        if self.result is not None:
            shown.append(self.result)
        return shown


class Outbox(Changes):
    """What a step fills as it runs: the changes, and how they are to be delivered."""

    model_config = ConfigDict(frozen=False)

    stale_press: bool = False
    """This answers a press on a message of an earlier moment (:attr:`Mode.STALE`)."""
    repair: bool = False
    """The game as it is now, for a table that may not show it (:attr:`Mode.REPAIR`)."""
    pictures: bool = Field(default=False, exclude=True)
    """The deployment draws boards as pictures (``Settings.pictures``): a step draws the board
    of a game whose record wants pictures too (:func:`~bot.commands.game.play.show_board`)."""
    refs_seen: tuple[int, str] | None = Field(default=None, exclude=True)
    """See :attr:`DeliveryContext.refs_seen`."""
    draw: Callable[[], ui.Picture | None] | None = Field(default=None, exclude=True)
    """See :attr:`DeliveryContext.draw`."""
    draw_chart: Callable[[], ui.Picture | None] | None = Field(default=None, exclude=True)
    """See :attr:`DeliveryContext.draw_chart`."""
    kept_until: float | None = Field(default=None, exclude=True)
    """See :attr:`DeliveryContext.kept_until`."""

    @property
    def mode(self) -> Mode:
        if self.repair:
            return Mode.REPAIR
        return Mode.STALE if self.stale_press else Mode.STEP

    def handed(self) -> tuple[Changes, DeliveryContext]:
        """The changes as the table takes them (frozen; they share this Outbox's messages,
        which nothing changes in place) and their delivery's context."""
        changes = Changes.model_construct(
            _fields_set=self.model_fields_set & set(Changes.model_fields),
            **{name: getattr(self, name) for name in Changes.model_fields},
        )
        context = DeliveryContext(
            self.mode, self.refs_seen, self.draw, self.draw_chart, self.kept_until
        )
        return changes, context

    def reply(
        self,
        user: str,
        message: ui.Message | str,
        in_place: bool = False,
        note: str | None = None,
        heal: ui.Message | None = None,
    ) -> None:
        """A private answer to ``user`` (``in_place``, ``note``, ``heal``: see
        :class:`Delivery`)."""
        self.deliveries.append(
            Delivery(
                to="ephemeral",
                user=user,
                message=_as_message(message),
                in_place=in_place,
                note=note,
                heal=heal,
            )
        )

    def say(self, line: str) -> None:
        """A line of the game's story (a lobby change, someone leaving)."""
        if line:
            self.log.append(line)


def _as_message(message: ui.Message | str) -> ui.Message:
    return message if isinstance(message, ui.Message) else ui.Message(text=message)
