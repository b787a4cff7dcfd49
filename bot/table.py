"""The table layer: what each surface of a game shows, on every platform.

An :class:`~bot.commands.outbox.Outbox` says what the card, the board, the log, the prompt, the
panels and the turn notice should show now. :class:`Table` compares that with what was last
shown (message refs and digests kept in Redis beside the game, so a restart or another worker
carries on with the same messages) and decides per surface: post, edit, move, delete, or nothing.
It is the same for Discord, Slack and the console; each implements the few primitives of
:class:`Platform` (and, for the interaction being answered, :class:`Answer`) for its SDK.

- The *card* is the game's one message in the channel: the lobby, edited as people join; the
  summary while the game is played in its thread; the final standings. At the end the result
  is posted in the channel (so the channel holds two messages per game).
- The game plays in a thread started from the card (``thread=off``, or a channel where threads
  are not allowed: in the channel itself, said once).
- The *log* collects the story; lines wait (shown at the foot of the board) until they fill a
  message (:data:`LOG_FLUSH` characters), a post must follow them, or the game ends, and are
  then posted as one message. A player's own words (a pitch) are a post of their own.
- The *board* is one message, edited in place; once :data:`MOVE_AT` messages are below it, its
  next change posts it anew at the bottom and deletes the old one.
- The *prompt* is the open public decision: a new decision is a new post, the previous one
  loses its buttons.
- Each player's *panel* is one DM per game, edited in place (the press on it updates it).
- A *note* to others about something open (a request to join, DMed to each member) is kept
  and, once the Outbox says it is settled (``closed_notes``), each copy is edited to say so,
  without its buttons.
- The turn *notice* rides on the board: when an Outbox names users to ``notify`` (the
  authority does once a turn has waited ``nudge_seconds`` for its player), the board moves to
  the bottom with a mention of them (and nobody else); the old board is deleted, so there is
  one notice at a time and it costs no extra post.

Posts are paced within the platform's channel limit (:class:`Pacer`): what can wait (a log
flush, a board move) waits for the next change when a post would exceed it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from pydantic import BaseModel, Field, ValidationError

from bot.commands.outbox import GAME_OVER, Outbox
from core import text as markup
from core import ui
from storage import GameKey, GameStore, StorageUnavailable

__all__ = [
    "LOG_FLUSH",
    "MOVE_AT",
    "Answer",
    "Clock",
    "Closed",
    "Delivered",
    "Gone",
    "MonotonicClock",
    "Pacer",
    "Place",
    "Platform",
    "Refs",
    "Refused",
    "Shown",
    "Table",
    "digest",
]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

LOG_FLUSH = 1200
"""Characters of waiting log lines that make a log message of their own."""
LOG_MESSAGE = 1800
"""At most this many characters in one log message."""
MAX_LOG_POSTS = 2
"""Log messages one delivery posts at most; a longer story keeps its end."""
LOG_ON_BOARD = 900
"""The tail of the waiting log shown at the foot of the board, in characters."""
MOVE_AT = 3
"""Messages below the board after which its next change moves it to the bottom."""
MAX_BELOW = 5
"""Messages below the board after which it moves even when the channel is busy (the post then
waits for a slot): the board is never further up than this."""
LOCK_MS = 15_000
LOCK_WAIT_S = 10.0
NO_THREAD = (
    "I can't start a thread here (I'm missing the Create Public Threads permission), so this "
    "game plays in the channel."
)
CLOSED_NOTE = "I can't send you direct messages, so `/{game} hand` shows your hand."
YOUR_MOVE = "**Your move.**"
_NOTICE = f"{YOUR_MOVE}\n\n"
"""What a turn notice puts above the board's text."""
_LATEST = "\n\n**Latest**\n"
"""What stands between the board's text and its tail of the story (the tail alone, without a
board's text, drops the line breaks before it)."""
_LATEST_AT_LEAST = 80
"""Characters of room below which the board shows no tail of the story."""


class Gone(Exception):
    """The message no longer exists (deleted by someone)."""


class Closed(Exception):
    """The user does not accept direct messages from the bot."""


class Refused(Exception):
    """The platform refused the bot this (a missing permission); ``str()`` names it."""


class Place(BaseModel):
    """Where a game's public surfaces go: a channel, or a thread in it."""

    channel: str
    thread: str | None = None


class Shown(BaseModel):
    """A message the table posted: its conversation, its id and a digest of its content."""

    where: str
    id: str
    digest: str = ""


class Refs(BaseModel):
    """What the table showed for one game, kept in Redis beside the game."""

    table: str
    version: int = -1
    """The newest state version drawn; an older Outbox never replaces its board or panels."""
    card: Shown | None = None
    thread: str | None = None
    threads_off: bool = False
    """The game plays in the channel (``thread=off``, or threads were not allowed)."""
    board: Shown | None = None
    board_message: ui.Message | None = None
    """The board as last drawn, so posts without a new state can move it down."""
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
    ended: bool = False

    def place(self, channel: str) -> Place:
        return Place(channel=channel, thread=None if self.threads_off else self.thread)


def _surfaces(refs: Refs) -> list[Shown]:
    shown = [refs.card, refs.board, refs.prompt, *refs.panels.values()]
    return [s for s in shown if s is not None]


def digest(message: ui.Message) -> str:
    return hashlib.sha256(message.model_dump_json().encode()).hexdigest()[:16]


class Platform(Protocol):
    """The primitives a platform's adapter implements for the table."""

    name: str
    posts_per_window: int
    """Posts a channel takes within ``window_s`` (Discord 5 in 5 s, Slack about 1 a second)."""
    window_s: float
    closed_hint: str
    """Told once per game to a requester whose DMs are closed: how to open them ("" for none)."""
    threads_share_limit: bool
    """Whether posts in a thread count against its channel's post limit (Slack: yes; Discord:
    a thread is a channel of its own)."""

    async def post(
        self,
        place: Place,
        message: ui.Message,
        game: str,
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

    async def edit(
        self, shown: Shown, message: ui.Message, game: str, channel: str, surface: str = "post"
    ) -> None:
        """Edit a message the bot posted; raises :class:`Gone` when it is no longer there.
        ``channel`` is the game's channel (components shown elsewhere act on its game)."""
        ...

    async def delete(self, shown: Shown) -> None: ...

    async def dm(self, user: str, message: ui.Message, game: str, channel: str) -> Shown:
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

    async def update(self, message: ui.Message, game: str, channel: str) -> bool:
        """Replace the pressed message (Discord UPDATE_MESSAGE, Slack replace_original); False
        when it could not (never raises :class:`Gone` or :class:`Closed`)."""
        ...

    async def reply(self, message: ui.Message, game: str, channel: str) -> bool:
        """A private reply to the requester (ephemeral); False when it could not."""
        ...

    async def acknowledge(self) -> None:
        """The answer must wait (another delivery holds the table, or a post waits for the
        place's limit): let the platform know the request arrived (Discord: a deferred update
        of a press, "thinking…" for a command) so the player is not kept waiting; a later
        update of the pressed message or a private reply still works."""
        ...


class Clock(Protocol):
    """Where the pacing reads the time (monotonic seconds) and waits for a slot; the real one
    by default, a virtual one in tests (``testkit.clock``), so that a test proves the pace in
    the clock's time without waiting it out."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class MonotonicClock:
    """The real clock: :func:`time.monotonic` and :func:`asyncio.sleep`."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class Pacer:
    """Keeps each place's posts within the platform's channel limit (in this process)."""

    def __init__(self, posts: int, window_s: float, clock: Clock | None = None) -> None:
        self.posts = posts
        self.window_s = window_s
        self.clock: Clock = clock or MonotonicClock()
        self._sent: dict[str, deque[float]] = {}

    def _recent(self, where: str) -> deque[float]:
        sent = self._sent.setdefault(where, deque())
        now = self.clock.now()
        while sent and now - sent[0] >= self.window_s:
            sent.popleft()
        return sent

    def free(self, where: str) -> bool:
        return len(self._recent(where)) < self.posts

    async def slot(self, where: str) -> None:
        """Wait until ``where`` may take a post, and count it."""
        sent = self._recent(where)
        while len(sent) >= self.posts:
            await self.clock.sleep(max(0.01, self.window_s - (self.clock.now() - sent[0])))
            sent = self._recent(where)
        sent.append(self.clock.now())

    def posted(self, where: str) -> None:
        """The post counted by the last :meth:`slot` is done: count it from now, since the
        platform counts it when it arrives (posts to one place go one at a time)."""
        sent = self._sent.get(where)
        if sent:
            sent[-1] = max(sent[-1], self.clock.now())


@dataclass
class Delivered:
    """What :meth:`Table.deliver` did for the requester."""

    answered: bool = False
    refused: list[str] = field(default_factory=list)


@dataclass
class _Run:
    """One delivery: the Outbox, the refs it changes and the requester's answer."""

    out: Outbox
    refs: Refs
    answer: Answer | None
    answered: bool = False
    refused: list[str] = field(default_factory=list)
    """What the platform refused the bot (missing permissions), to tell the requester."""

    @property
    def game(self) -> str:
        return self.out.game or ""


class Table:
    """Delivers Outboxes as surfaces, through one platform's primitives."""

    def __init__(
        self,
        store: GameStore,
        platform: Platform,
        ttl_s: int,
        clock: Clock | None = None,
        finished_ttl_s: int | None = None,
    ) -> None:
        self.store = store
        self.platform = platform
        self.ttl_s = ttl_s
        """How long a game's refs are kept while it lasts (the game's own TTL)."""
        self.finished_ttl_s = finished_ttl_s if finished_ttl_s is not None else ttl_s
        """How long the refs of a game that is over are kept: as long as the game's record
        and log (what they name, final board and all, goes with them)."""
        self.pacer = Pacer(platform.posts_per_window, platform.window_s, clock)
        self._locks: dict[str, asyncio.Lock] = {}

    async def deliver(self, out: Outbox, answer: Answer | None = None) -> Delivered:
        """Show ``out``. The result says whether the requester got an answer of their own (a
        reply, or the pressed message updated: otherwise the adapter only acknowledges) and
        what the platform refused the bot."""
        run = _Run(out=out, refs=Refs(table=out.table or ""), answer=answer)
        if out.duplicate:
            return Delivered()
        await self._replies(run)
        if self._touches_table(out):
            key = GameKey(self.platform.name, out.channel)
            shown = await self._answer_first(run, key)
            local = self._locks.setdefault(out.channel, asyncio.Lock())
            if answer is not None and not run.answered and local.locked():
                await self._try(run, "the acknowledgement", answer.acknowledge())
            async with local, self._held(key, answer if not run.answered else None):
                run.refs = await self._load(key, out)
                for surface in _surfaces(run.refs):
                    # Updated by the press already: it shows this now.
                    if (surface.where, surface.id) in shown:
                        surface.digest = shown[(surface.where, surface.id)]
                await self._show(run)
                await self._save(key, run.refs)
        return Delivered(answered=run.answered, refused=run.refused)

    async def _answer_first(self, run: _Run, key: GameKey) -> dict[tuple[str, str], str]:
        """Update the pressed message (the presser's panel, the card, the prompt) before
        waiting for the table, which another delivery may hold for a while (a post waiting
        for the channel's limit): the presser sees their answer at once. Returns the digests
        it showed, by message."""
        answer, out = run.answer, run.out
        if answer is None or answer.pressed is None:
            return {}
        try:
            stored = await self.store.table_refs(key)
            refs = Refs.model_validate_json(stored) if stored is not None else None
        except (StorageUnavailable, ValidationError):
            return {}
        if refs is None or (out.table and refs.table != out.table):
            return {}
        if out.version is not None and out.version < refs.version:
            return {}
        wanted: list[tuple[Shown | None, ui.Message | None]] = [
            (refs.panels.get(answer.user), out.panels.get(answer.user)),
            (refs.card, out.card),
        ]
        if out.board is not None and out.prompt_id == refs.prompt_id:
            wanted.append((refs.prompt, out.prompt))
        for surface, message in wanted:
            if surface is None or message is None or answer.pressed != (surface.where, surface.id):
                continue
            if surface.digest != digest(message) and await self._answer_on(run, surface, message):
                return {(surface.where, surface.id): digest(message)}
        return {}

    # --- the requester's own answer --------------------------------------------------------

    async def _replies(self, run: _Run) -> None:
        """Private answers for the requester; with no interaction to answer (a reply for a
        user who is not asking: their answer went astray), a DM."""
        answer = run.answer
        for delivery in run.out.deliveries:
            message, game, channel = delivery.message, run.game, run.out.channel
            if answer is not None and delivery.user == answer.user:
                if delivery.in_place and answer.pressed is not None and answer.pressed_private:
                    replaced = answer.update(message, game, channel)
                    if await self._try(run, "the pressed message", replaced):
                        run.answered = True
                        continue
                sent = await self._try(run, "a reply", answer.reply(message, game, channel))
                run.answered = run.answered or bool(sent)
            elif delivery.user and delivery.note is None:
                with contextlib.suppress(Closed):
                    dm = self.platform.dm(delivery.user, message, game, channel)
                    await self._try(run, "a note", dm)
            # (A note about something to close later is sent with the table held: its DM is
            # kept in the refs, see _notes.)

    @staticmethod
    def _touches_table(out: Outbox) -> bool:
        return bool(
            out.closed_notes
            or any(d.note is not None for d in out.deliveries)
            or out.card is not None
            or out.board is not None
            or out.log
            or out.posts
            or out.panels
            or out.closed_panels
            or out.announcements
            or out.ended
            or out.notify is not None
        )

    # --- refs ------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _held(self, key: GameKey, answer: Answer | None = None) -> AsyncIterator[None]:
        """The channel's table across workers: two deliveries never both post a board. A press
        that must wait for it is acknowledged first (``answer``)."""
        token = secrets.token_hex(8)
        held = False
        deadline = time.monotonic() + LOCK_WAIT_S
        try:
            while not held:
                held = await self.store.lock_table(key, token, LOCK_MS)
                if held or time.monotonic() > deadline:
                    break
                if answer is not None:
                    with contextlib.suppress(Exception):
                        await answer.acknowledge()
                    answer = None
                await asyncio.sleep(0.02)
        except StorageUnavailable:
            held = False
        if not held:
            log.warning("the table of %s was busy for %.0f s; delivering anyway", key, LOCK_WAIT_S)
        try:
            yield
        finally:
            if held:
                with contextlib.suppress(StorageUnavailable):
                    await self.store.unlock_table(key, token)

    async def _load(self, key: GameKey, out: Outbox) -> Refs:
        try:
            stored = await self.store.table_refs(key)
        except StorageUnavailable:
            stored = None
        refs = None
        if stored is not None:
            with contextlib.suppress(ValidationError):
                refs = Refs.model_validate_json(stored)
        if refs is None or (out.table and refs.table != out.table):
            # A new game in the channel gets new messages (the old card stays as it ended).
            refs = Refs(table=out.table or "", threads_off=not out.thread)
        return refs

    async def _save(self, key: GameKey, refs: Refs) -> None:
        try:
            ttl = self.finished_ttl_s if refs.ended else self.ttl_s
            await self.store.set_table_refs(key, refs.model_dump_json(), ttl)
        except StorageUnavailable:
            log.warning("could not remember the table of %s; the next change may post anew", key)

    # --- surfaces --------------------------------------------------------------------------

    async def _show(self, run: _Run) -> None:
        out, refs = run.out, run.refs
        stale = out.version is not None and out.version < refs.version
        if out.version is not None and not stale:
            refs.version = out.version
        refs.pending.extend(out.log)
        for message in out.announcements:
            await self._send(run, Place(channel=out.channel), message, "announcement")
        await self._notes(run)
        await self._own_panel(run, stale)
        if out.card is not None:
            await self._card(run, out.card)
        if out.begun:
            await self._begin(run)
        if out.posts:
            await self._flush(run, force=True)
            for message in out.posts:
                await self._post_below(run, message, "post")
        if out.board is not None and not stale:
            await self._prompt(run)
        if out.ended or sum(len(line) + 1 for line in refs.pending) >= LOG_FLUSH:
            await self._flush(run, force=out.ended)
        if not stale:
            await self._panels(run)  # before the board: a note they post goes above it
        await self._close_panels(run)
        if out.board is not None and not stale:
            await self._board(run, out.board, out.notify or [])
        elif stale and out.log and refs.board_source is not None and not out.ended:
            # A newer state is drawn already; this delivery's lines still join its Latest.
            await self._board(run, refs.board_source, [])
        elif not out.ended:
            await self._keep_board_in_view(run)
        if out.ended and not refs.ended:
            await self._end(run)

    async def _notes(self, run: _Run) -> None:
        """Close the DM notes of what is settled (all but the pressed one, which the answer
        replaced), then send the new notes to others, keeping their DMs."""
        refs, out, answer = run.refs, run.out, run.answer
        pressed = answer.pressed if answer is not None else None
        for settled, message in out.closed_notes.items():
            closed = message.model_copy(update={"buttons": [], "selects": []})
            for copy in refs.notes.pop(settled, {}).values():
                if (copy.where, copy.id) != pressed:
                    await self._edit(run, copy, closed, "note")
        for delivery in out.deliveries:
            user, key = delivery.user, delivery.note
            if key is None or user is None or (answer is not None and user == answer.user):
                continue
            try:
                shown = await self.platform.dm(user, delivery.message, run.game, out.channel)
            except Closed:
                continue
            except Exception as error:  # a part that fails stops only itself
                log.warning("a note to %s in %s failed: %s", user, out.channel, error)
                continue
            refs.notes.setdefault(key, {})[user] = shown

    async def _card(self, run: _Run, card: ui.Message) -> None:
        refs, out = run.refs, run.out
        shown = refs.card
        if shown is not None and shown.digest == digest(card):
            return
        if shown is not None and await self._answer_on(run, shown, card):
            shown.digest = digest(card)
            return
        if shown is not None and await self._edit(run, shown, card, "card"):
            return
        posted = await self._send(run, Place(channel=out.channel), card, "card")
        if posted is not None:
            posted.digest = digest(card)
            refs.card = posted

    async def _begin(self, run: _Run) -> None:
        refs, out = run.refs, run.out
        refs.board, refs.below, refs.prompt, refs.prompt_message = None, [], None, None
        if not out.thread or refs.threads_off or refs.card is None:
            refs.threads_off = True
            return
        name = (out.card.title if out.card and out.card.title else out.game or "game")[:90]
        thread = await self._try(
            run, "the thread", self.platform.start_thread(out.channel, refs.card, name)
        )
        if thread is None:
            refs.threads_off = True
            await self._send(run, Place(channel=out.channel), ui.Message(text=NO_THREAD), "note")
            return
        refs.thread = thread

    async def _post_below(
        self,
        run: _Run,
        message: ui.Message,
        surface: str,
        mention: list[str] | None = None,
        ping: bool = True,
    ) -> Shown | None:
        """A post in the game's place; it counts as a message below the board (which moves
        down first when it already has :data:`MAX_BELOW` under it)."""
        if len(run.refs.below) >= MAX_BELOW:
            await self._keep_board_in_view(run)
        place = run.refs.place(run.out.channel)
        posted = await self._send(run, place, message, surface, mention, ping)
        if posted is not None:
            posted.digest = digest(message)
            if run.refs.board is not None:
                run.refs.below.append(posted.id)
        return posted

    async def _flush(self, run: _Run, force: bool = False) -> None:
        """Post the waiting log lines as log messages (unless the channel is at its limit and
        they can wait: the board shows them meanwhile)."""
        refs = run.refs
        if not refs.pending:
            return
        place = refs.place(run.out.channel)
        if not force and not self.pacer.free(self._paced(place)):
            return
        lines = refs.pending
        if sum(len(line) + 1 for line in lines) > LOG_MESSAGE * MAX_LOG_POSTS:
            # A long stretch of bot moves: its last part, and a line for the rest (the board
            # shows where the game stands), rather than a flood of posts.
            kept: list[str] = []
            room = LOG_MESSAGE * MAX_LOG_POSTS - 200
            for line in reversed(lines):
                room -= len(line) + 1
                if room < 0:
                    break
                kept.append(line)
            skipped = len(lines) - len(kept)
            lines = [f"(… {skipped} earlier lines of play …)", *reversed(kept)]
        chunks: list[str] = []
        for line in lines:
            line = markup.clip(line, LOG_MESSAGE)
            if chunks and len(chunks[-1]) + len(line) + 1 <= LOG_MESSAGE:
                chunks[-1] += "\n" + line
            else:
                chunks.append(line)
        refs.pending = []
        for chunk in chunks:
            await self._post_below(run, ui.Message(text=chunk), "log")

    def _board_view(self, run: _Run, board: ui.Message) -> ui.Message:
        """The board with the newest waiting lines of the story at its foot (**Latest**): as
        many as fit beside the board's text (and a turn notice) in what every platform shows
        whole, at most :data:`LOG_ON_BOARD` characters, cut between lines (or words)."""
        pending = "\n".join(run.refs.pending)
        if not pending:
            return board
        room = ui.MAX_TEXT - len(board.text) - len(_NOTICE) - len(_LATEST)
        room = min(LOG_ON_BOARD, room)
        if room < _LATEST_AT_LEAST:
            return board  # a board as long as it may be has no room: the log has the lines
        text = f"{board.text}{_LATEST}{markup.clip_start(pending, room)}".strip()
        return board.model_copy(update={"text": text})

    async def _board(self, run: _Run, board: ui.Message, notify: list[str]) -> None:
        """Edit the board, or move it to the bottom: when it has scrolled up, and to notify
        ``notify`` (the board is then the turn notice: one at a time, the old one deleted)."""
        refs = run.refs
        refs.board_source = board
        view = self._board_view(run, board)
        place = refs.place(run.out.channel)
        shown = refs.board
        free = self.pacer.free(self._paced(place))
        below = len(refs.below)
        scrolled = shown is not None and (below >= MAX_BELOW or (below >= MOVE_AT and free))
        if shown is not None and not free and run.answer is not None:
            # The channel is at its post limit: the board (which says whom the game waits for)
            # is edited in place, without a ping; a post now would hold up the press. (A turn
            # notice that waited for its player, with no press to answer, waits for a slot.)
            notify = []
        if notify:
            view = view.model_copy(update={"text": f"{_NOTICE}{view.text}".strip()})
        if shown is not None and (scrolled or notify):
            old, refs.board = shown, None
            if await self._new_board(run, view, notify) is not None:
                await self._try(run, "the old board", self.platform.delete(old))
                return
            refs.board = old
        if shown is None:
            await self._new_board(run, view, notify)
            return
        if shown.digest == digest(view):
            return
        refs.board_message = view
        if await self._answer_on(run, shown, view):
            shown.digest = digest(view)
            return
        if not await self._edit(run, shown, view, "board"):
            refs.board = None
            await self._new_board(run, view)

    async def _keep_board_in_view(self, run: _Run) -> None:
        """Posts without a board change (notes, pitches) pushed the board up: move it down."""
        refs = run.refs
        shown, view = refs.board, refs.board_message
        if shown is None or view is None:
            return
        free = self.pacer.free(self._paced(refs.place(run.out.channel)))
        below = len(refs.below)
        if below >= MAX_BELOW or (below >= MOVE_AT and free):
            refs.board = None
            if await self._new_board(run, view) is not None:
                await self._try(run, "the old board", self.platform.delete(shown))
            else:
                refs.board = shown

    async def _new_board(
        self, run: _Run, view: ui.Message, notify: list[str] | None = None
    ) -> Shown | None:
        refs = run.refs
        place = refs.place(run.out.channel)
        posted = await self._send(run, place, view, "board", notify or None)
        if posted is not None:
            posted.digest = digest(view)
            refs.board, refs.below, refs.board_message = posted, [], view
        return posted

    async def _prompt(self, run: _Run) -> None:
        refs, out = run.refs, run.out
        prompt = out.prompt
        shown = refs.prompt
        if shown is not None and (prompt is None or refs.prompt_id != out.prompt_id):
            await self._close_prompt(run)
            shown = None
        if prompt is None:
            return
        if shown is not None:
            if shown.digest != digest(prompt):
                if not await self._answer_on(run, shown, prompt):
                    await self._edit(run, shown, prompt, "prompt")
                shown.digest = digest(prompt)
            refs.prompt_message = prompt  # (a press may have updated it already)
            return
        await self._flush(run, force=True)  # the story up to the decision comes first
        posted = await self._post_below(run, prompt, "prompt")
        if posted is not None:
            refs.prompt, refs.prompt_id, refs.prompt_message = posted, out.prompt_id, prompt

    async def _close_prompt(self, run: _Run) -> None:
        refs = run.refs
        shown, message = refs.prompt, refs.prompt_message
        refs.prompt, refs.prompt_id, refs.prompt_message = None, None, None
        if shown is None or message is None:
            return
        closed = message.model_copy(
            update={
                "text": message.closed_text if message.closed_text is not None else message.text,
                "buttons": [],
                "selects": [],
                "deadline": None,
            }
        )
        if not await self._answer_on(run, shown, closed):
            await self._edit(run, shown, closed, "prompt")

    async def _panels(self, run: _Run) -> None:
        out, _refs = run.out, run.refs
        for user, panel in out.panels.items():
            if run.answer is not None and user == run.answer.user:
                continue  # done first, by _own_panel
            await self._panel(run, user, panel)

    async def _close_panels(self, run: _Run) -> None:
        """The panels of people no longer seated say so, lose their buttons and are let go."""
        for user, message in run.out.closed_panels.items():
            shown = run.refs.panels.pop(user, None)
            if shown is not None:
                closed = message.model_copy(update={"buttons": [], "selects": []})
                await self._edit(run, shown, closed, "panel")

    async def _own_panel(self, run: _Run, stale: bool) -> None:
        """The requester's panel first: the press that changed it updates the message."""
        answer = run.answer
        if answer is None or stale or answer.user not in run.out.panels:
            return
        panel = run.out.panels[answer.user]
        shown = run.refs.panels.get(answer.user)
        if shown is not None and shown.digest == digest(panel):
            if answer.pressed == (shown.where, shown.id):
                run.answered = True  # by _answer_first, before the table was taken
            return
        if shown is not None and await self._answer_on(run, shown, panel):
            shown.digest = digest(panel)
            return
        private = answer.pressed is not None and answer.pressed_private and shown is None
        # A private message that is not the DM panel (an ephemeral hand): update it too.
        if private and await self._try(
            run, "the pressed panel", answer.update(panel, run.game, run.out.channel)
        ):
            run.answered = True
            if answer.user in run.refs.closed:
                return  # no DM panel to keep: the updated message is the panel
        await self._panel(run, answer.user, panel)

    async def _panel(self, run: _Run, user: str, panel: ui.Message) -> None:
        refs, out = run.refs, run.out
        shown = refs.panels.get(user)
        same = shown is not None and shown.digest == digest(panel)
        if shown is not None and (same or await self._edit(run, shown, panel, "panel")):
            shown.digest = digest(panel)
            return
        if user in refs.closed:
            await self._closed_panel(run, user, panel)
            return
        try:
            posted = await self.platform.dm(user, panel, run.game, out.channel)
        except Closed:
            refs.closed.append(user)
            await self._closed_panel(run, user, panel)
            if run.answer is None or user != run.answer.user:
                note = ui.Message(
                    text=CLOSED_NOTE.format(game=run.game),
                    buttons=[[ui.Button(label="Show my hand", style="primary", command="hand")]],
                )
                await self._post_below(run, note, "note", mention=[user], ping=False)
            return
        except Exception as error:  # a part that fails stops only itself
            log.warning("the panel of %s in %s failed: %s", user, out.channel, error)
            return
        posted.digest = digest(panel)
        refs.panels[user] = posted

    async def _closed_panel(self, run: _Run, user: str, panel: ui.Message) -> None:
        """A requester whose DMs are closed sees their panel privately where they are."""
        answer = run.answer
        if answer is None or user != answer.user:
            return
        sent = await self._try(run, "a panel", answer.reply(panel, run.game, run.out.channel))
        run.answered = run.answered or bool(sent)
        hint = self.platform.closed_hint.format(game=run.game)
        if hint and user not in run.refs.hinted:
            run.refs.hinted.append(user)
            note = ui.Message(text=hint)
            await self._try(run, "the DM hint", answer.reply(note, run.game, run.out.channel))

    async def _end(self, run: _Run) -> None:
        refs, out = run.refs, run.out
        refs.ended = True
        await self._close_prompt(run)
        over = ui.Message(text=GAME_OVER)
        for user, shown in refs.panels.items():
            if user not in out.panels:
                await self._edit(run, shown, over, "panel")
        if out.result is not None and not refs.threads_off and refs.thread is not None:
            await self._send(run, Place(channel=out.channel), out.result, "result")

    # --- primitives with failures contained ------------------------------------------------

    def _paced(self, place: Place) -> str:
        """What a post in ``place`` counts against for the platform's post limit."""
        if self.platform.threads_share_limit:
            return place.channel
        return place.thread or place.channel

    async def _send(
        self,
        run: _Run,
        place: Place,
        message: ui.Message,
        surface: str,
        mention: list[str] | None = None,
        ping: bool = True,
    ) -> Shown | None:
        """A post, within the place's post limit (waiting for a slot)."""
        where = self._paced(place)
        if run.answer is not None and not run.answered and not self.pacer.free(where):
            # The post must wait for the place's limit: tell the platform the request arrived
            # first (Discord wants an answer within 3 s), so the player is not kept waiting.
            await self._try(run, "the acknowledgement", run.answer.acknowledge())
        await self.pacer.slot(where)
        try:
            send = self.platform.post(place, message, run.game, surface, mention, ping)
            return await self._try(run, f"the {surface}", send)
        finally:
            self.pacer.posted(where)

    async def _answer_on(self, run: _Run, shown: Shown, message: ui.Message) -> bool:
        """Update the pressed message when it is ``shown`` (one call that also answers)."""
        answer = run.answer
        if answer is None or answer.pressed != (shown.where, shown.id):
            return False
        done = await self._try(
            run, "the pressed message", answer.update(message, run.game, run.out.channel)
        )
        if done:
            run.answered = True
        return bool(done)

    async def _edit(self, run: _Run, shown: Shown, message: ui.Message, surface: str) -> bool:
        """Edit the ``surface`` message ``shown``; False when it is gone (the caller posts
        anew)."""
        part = f"the {surface}"
        try:
            await self.platform.edit(shown, message, run.game, run.out.channel, surface)
        except Gone:
            log.info("%s of %s is gone", part, run.out.channel)
            return False
        except Exception as error:
            # Still there (a rate limit outlasted the retries, a hiccup): the next change edits
            # it again; a second copy would be worse than a late one.
            log.warning("editing %s in %s failed: %s", part, run.out.channel, error)
        shown.digest = digest(message)
        return True

    async def _try(self, run: _Run, part: str, call: Awaitable[_T]) -> _T | None:
        """One part of the delivery; a failure is logged and stops only this part."""
        try:
            return await call
        except Refused as error:
            log.warning("delivering %s in %s was refused: %s", part, run.out.channel, error)
            run.refused.append(str(error))
        except (Closed, Gone):
            raise
        except Exception as error:
            log.warning("delivering %s in %s failed: %s", part, run.out.channel, error)
        return None
