"""What one delivery does to a game's surfaces, decided without touching any platform.

:func:`plan` takes the refs (what the table last showed) and a change set (what each surface should
show now) and returns the refs as they will be once the delivery is done, and the operations
that get there, in order: posts, edits, updates of the pressed message, deletes, DMs, private
replies and a thread. It is pure: the same refs, changes and context give the same plan, so every
rule of the table is tested without a platform.

A post it plans gets a *reservation* for an id (``pending:<token>:<n>:<since>``), written into
the refs before anything is sent: another delivery that reads those refs sees the surface is
being posted and does not post it again (if it wants it to show something newer, it says so in
:attr:`~bot.table.model.Refs.wanted`). The executor (:mod:`bot.table.deliver`) swaps each
reservation for the real message once posted.

The surfaces (see the team's ARCHITECTURE.md, in the shared folder beside this repository,
"Presentation: the table"; as built, docs/architecture.md, "bot/table: the table"):

- the *card* is the game's one message in the channel: the lobby, edited as people join; the
  summary while the game is played in its thread; the final standings. At the end the result
  is posted in the channel (so the channel holds two messages per game);
- the game plays in a thread started from the card (``thread=off``, or a channel where threads
  are not allowed: in the channel itself, said once);
- the *log* collects the story: lines wait (shown at the foot of the board) until they fill a
  message (:data:`LOG_FLUSH` characters), a post must follow them, or the game ends, and are then
  posted as one message; a player's own words (a pitch) are a post of their own;
- the *board* is one message, edited in place; once :data:`MOVE_AT` messages are below it, its
  next change posts it anew at the bottom and deletes the old one;
- the *prompt* is the open public decision: a new decision is a new post, the previous one loses
  its buttons;
- each player's *panel* is one DM per game, edited in place (the press on it updates it);
- a *note* to others about something open (a request to join) is kept, and once it is settled
  (``closed_notes``) each copy is edited to say so, without its buttons;
- the turn *notice* rides on the board: the board moves to the bottom with a mention of the
  users to notify (and nobody else); the old board is deleted, so there is one notice at a time;
- the board's *picture* (a new one is an upload) changes at most once every
  :data:`COALESCE_S`: a board edited in place sooner than that after its picture last changed
  shows its new text with the picture it has, and the plan says which picture it *held*
  (:attr:`Plan.held`); once the window has passed, the table delivers a catch-up
  (``Mode.CATCH_UP``) that gives the board the newest picture held, unless a newer delivery
  came first. A board posted anew (moved down, a notice) takes its newest picture at once,
  and so does the board of the game's end: the final board always carries the final picture.

A *repair* (``Mode.REPAIR``: the game as it is, brought by a deadline claimed again with
nothing to fire, in case the worker that saved the state died before delivering it) is planned
like any delivery when the table has drawn an older version or still holds a reservation, and
changes nothing otherwise.

Posts are paced within the platform's channel limit: what can wait (a log flush, a board move)
waits for the next change when the place has no free slot (:attr:`Context.free`).

Several workers (Slack HTTP workers on one Redis) plan from the same refs: the picture's age is
in the refs (:attr:`~bot.table.model.Refs.picture_at`), so every worker holds by the same
window, and a catch-up only edits the board of the version it held (it never posts): one that
finds a newer version drawn (by any worker) does nothing, that newer delivery having shown its
own picture or held it for a catch-up of its own. So the newest picture wins and no surface is
posted twice; a worker that dies with a picture held leaves the board's picture one change
behind until the next change of the board.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bot.commands.outbox import GAME_OVER, Changes, Mode
from bot.table.model import PENDING, Place, Refs, Shown, digest
from core import text as markup
from core import ui

__all__ = [
    "CLOSED_NOTE",
    "COALESCE_S",
    "LOG_FLUSH",
    "LOG_MESSAGE",
    "LOG_ON_BOARD",
    "MAX_BELOW",
    "MAX_LOG_POSTS",
    "MOVE_AT",
    "NO_THREAD",
    "PANEL_MOVED",
    "PENDING_S",
    "YOUR_MOVE",
    "Context",
    "Delete",
    "Dm",
    "Done",
    "Edit",
    "Held",
    "Later",
    "Missing",
    "Note",
    "Op",
    "Plan",
    "Post",
    "Reply",
    "Settled",
    "StartThread",
    "Update",
    "closed_note",
    "flush",
    "plan",
    "put",
    "settle",
    "slot_shown",
    "touches_table",
]

COALESCE_S = 3.0
"""Seconds a board's picture stands before the next one is shown: each new picture is an upload,
which the platforms count like posts, and a picture replaced within a few seconds is one nobody
looked at."""
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
PENDING_S = 6.0
"""How long a reservation stands: a delivery whose post has not landed by then (its worker
died, or the platform hung) loses it, and the next delivery posts the surface itself. About a
deadline's lease (5 s): a crash costs a channel no more than that. A post that is only slow (a
long rate limit) and lands after it finds its reservation taken over and deletes itself."""
NO_THREAD = (
    "I can't start a thread here (I'm missing the Create Public Threads permission), so this "
    "game plays in the channel."
)
CLOSED_NOTE = "I can't send you direct messages, so `/{game} hand` shows your hand."
PANEL_MOVED = "Your hand is the newest message here, its buttons live; the old copy is gone."
YOUR_MOVE = "**Your move.**"
_NOTICE = f"{YOUR_MOVE}\n\n"
"""What a turn notice puts above the board's text."""
_LATEST = "\n\n**Latest**\n"
"""What stands between the board's text and its tail of the story (the tail alone, without a
board's text, drops the line breaks before it)."""
_LATEST_AT_LEAST = 80
"""Characters of room below which the board shows no tail of the story."""


# --- operations ---------------------------------------------------------------------------------


@dataclass
class Post:
    """A new message in ``place``; ``id`` is its reservation, swapped for the real id."""

    slot: str
    place: Place
    message: ui.Message
    surface: str
    id: str
    mention: list[str] | None = None
    ping: bool = True


@dataclass
class Edit:
    """An edit of a message the bot posted (gone: posted anew, for the surfaces kept)."""

    slot: str
    shown: Shown
    message: ui.Message
    surface: str


@dataclass
class Update:
    """The pressed message replaced, by the interaction's own answer (one call that also
    answers the press); when that cannot be done, an edit."""

    slot: str
    shown: Shown
    message: ui.Message
    surface: str


@dataclass
class Delete:
    """A message deleted; ``after``: only once the post with that reservation landed (a board
    or a panel moved down keeps its old message, in ``slot``, when the new one could not be
    posted)."""

    shown: Shown
    after: str | None = None
    slot: str = ""


@dataclass
class Dm:
    """A new direct message kept in the refs (a panel, a note), under ``slot``."""

    slot: str
    user: str
    message: ui.Message
    id: str


@dataclass
class Reply:
    """A private answer to the requester (``in_place``: replacing the private message they
    pressed, when it can be)."""

    user: str
    message: ui.Message
    in_place: bool = False


@dataclass
class Note:
    """A direct message to someone else that nothing refers to again (DMs closed: dropped)."""

    user: str
    message: ui.Message


@dataclass
class StartThread:
    """The game's thread, from its card; ``id`` is its reservation."""

    card: Shown
    name: str
    id: str


Op = Post | Edit | Update | Delete | Dm | Reply | Note | StartThread


@dataclass
class Context:
    """What a plan reads besides the refs and the changes (the delivery's mode among it)."""

    token: str
    """This delivery's own, in its reservations."""
    now: float
    """Unix time: reservations older than :data:`PENDING_S` are no one's any more."""
    free: Callable[[str], int]
    """Posts ``where`` may take now within the platform's limit (see :meth:`paced`)."""
    threads_share_limit: bool = False
    closed_hint: str = ""
    coalesce_s: float = 0.0
    """How long a board's picture stands before the next one is shown (0: each at once)."""
    shows: Callable[[str], bool] = lambda key: True
    """Whether this worker can show the picture of a key again (it showed it): a board whose
    picture it cannot show is given its newest one rather than held."""
    user: str | None = None
    """The requester being answered, if any (a deadline answers nobody)."""
    pressed: tuple[str, str] | None = None
    pressed_private: bool = False
    mode: Mode = Mode.STEP
    """What kind of delivery this is (a step's, a stale press's answer, a repair, the table's
    own catch-up or flush)."""

    def paced(self, place: Place) -> str:
        """What a post in ``place`` counts against for the platform's post limit."""
        if self.threads_share_limit:
            return place.channel
        return place.thread or place.channel


@dataclass
class Held:
    """A board picture held back: ``key`` is to be shown on the board of ``version`` once the
    window has passed, at ``due`` (unix time)."""

    key: str
    version: int
    due: float


@dataclass
class Plan:
    """The operations of one delivery, in order, and the refs once they are done."""

    refs: Refs
    ops: list[Op] = field(default_factory=list)
    reserved: list[str] = field(default_factory=list)
    """This delivery's reservations, in order."""
    held: Held | None = None
    """The board's new picture this delivery did not show yet (see :data:`COALESCE_S`)."""

    @property
    def touches(self) -> bool:
        """Whether the refs change (else no write is needed)."""
        return bool(self.ops) or bool(self.reserved)


def plan(refs: Refs, out: Changes, ctx: Context) -> Plan:
    """What ``out`` does to the table whose refs are ``refs`` (a copy is changed, not it)."""
    return _Planner(refs.working_copy(), out, ctx).run()


def closed_note(game: str) -> ui.Message:
    """Told in the game's place (mentioning, not pinging) to a player whose DMs are closed."""
    return ui.Message(
        text=CLOSED_NOTE.format(game=game),
        buttons=[[ui.Button(label="Show my hand", style="primary", command="hand")]],
    )


class _Planner:
    def __init__(self, refs: Refs, out: Changes, ctx: Context) -> None:
        self.refs = refs
        self.out = out
        self.ctx = ctx
        self.result = Plan(refs=refs)
        self.planned: dict[str, int] = {}
        """Posts planned per pacing key, against what it has free."""
        self.updated = False
        """The pressed message is already being replaced by an earlier operation."""
        self.stale = False
        """A newer state is drawn already: this delivery's board is not shown."""

    # --- the whole delivery ------------------------------------------------------------------

    def run(self) -> Plan:
        mode = self.ctx.mode
        if mode is Mode.CATCH_UP:
            self._catch_up()
        elif mode is not Mode.REPAIR or self._behind():
            # (A repair of a table that shows its version already, every surface landed,
            # changes nothing.)
            self._deliver()
        return self.result

    def _deliver(self) -> None:
        """The whole delivery, in the order its messages must land: the presser's answer,
        the game's place (the card, the thread, players' posts, the story, the prompt), the
        others' panels, then the board at the bottom, then the end."""
        out, refs = self.out, self.refs
        if self.ctx.mode is Mode.STALE:
            self._heal()
        self._replies()
        if not _touches_table(out, self.ctx.mode):
            return
        self._take_in()
        for message in out.announcements:
            self._post("announcement", Place(channel=out.channel), message, "announcement")
        self._notes()
        self._own_panel(self.stale)
        if out.card is not None:
            self._card(out.card)
        if out.begun:
            self._begin()
        self._story()
        self._others_panels()
        self._show_board()
        if out.ended and not refs.ended:
            self._end()

    def _take_in(self) -> None:
        """The refs take this delivery's version, whom it waits for and its story lines; an
        older delivery (``stale``) leaves a newer state's board, prompt and panels alone."""
        out, refs = self.out, self.refs
        self.stale = out.version is not None and out.version < refs.version
        if out.version is not None and not self.stale:
            refs.version = out.version
            refs.waiting = list(out.waiting)
        refs.pending.extend(out.log)
        # What a reservation was to show once posted only matters while it stands; an edit the
        # budget deferred stands until it is made (or a newer one replaces it).
        refs.wanted = {
            slot: message
            for slot, message in refs.wanted.items()
            if (shown := slot_shown(refs, slot)) is not None
            and (self._taken(shown) or not shown.reserved)
        }

    def _story(self) -> None:
        """Players' own posts (the story before them first), the prompt, and the story's
        lines once they fill a message (or the game ends)."""
        out, refs = self.out, self.refs
        if out.posts:
            self._flush(force=True)
            for message in out.posts:
                self._post_below(message, "post")
        if out.board is not None and not self.stale:
            self._prompt()
        if out.ended or sum(len(line) + 1 for line in refs.pending) >= LOG_FLUSH:
            self._flush(force=out.ended)

    def _others_panels(self) -> None:
        """The others' panels, whom the game waits for first (the board comes after them, so
        that what they post in the game's place, a note that someone's DMs are closed, stays
        above it; the budget keeps the board's share whatever the panels take)."""
        out = self.out
        if not self.stale:
            waiting = set(out.waiting)
            others = [user for user in out.panels if user != self.ctx.user]
            for user in sorted(others, key=lambda user: user not in waiting):
                self._panel(user, out.panels[user])
        self._close_panels()

    def _show_board(self) -> None:
        out, refs = self.out, self.refs
        if out.board is not None and not self.stale:
            self._board(out.board, out.notify or [])
        elif self.stale and out.log and refs.board_source is not None and not out.ended:
            # A newer state is drawn already; this delivery's lines still join its Latest.
            self._board(refs.board_source, [])
        elif not out.ended and self.ctx.mode is not Mode.STALE:
            # (A stale press changes nothing: the board stays where it is.)
            self._keep_board_in_view()

    def _behind(self) -> bool:
        """Whether the table may not show the state of ``out`` (a repair's): it has drawn an
        older version, or a surface is still reserved by a delivery that may never land."""
        refs, version = self.refs, self.out.version
        if version is None or refs.version < version:
            return True
        shown = [refs.card, refs.board, refs.prompt, *refs.panels.values()]
        shown += [copy for copies in refs.notes.values() for copy in copies.values()]
        return any(s is not None and s.reserved for s in shown)

    # --- building blocks ---------------------------------------------------------------------

    def _reserve(self) -> str:
        n = len(self.result.reserved) + 1
        pending = f"{PENDING}{self.ctx.token}:{n}:{self.ctx.now:.3f}"
        self.result.reserved.append(pending)
        return pending

    def _free(self, place: Place) -> bool:
        key = self.ctx.paced(place)
        return self.ctx.free(key) - self.planned.get(key, 0) > 0

    def _post(
        self,
        slot: str,
        place: Place,
        message: ui.Message,
        surface: str,
        mention: list[str] | None = None,
        ping: bool = True,
    ) -> Shown:
        key = self.ctx.paced(place)
        self.planned[key] = self.planned.get(key, 0) + 1
        pending = self._reserve()
        # A surface posted anew shows this delivery's state: an edit the budget deferred for
        # its old message is moot (made on the new one, it would show an older state).
        self.refs.wanted.pop(slot, None)
        self.result.ops.append(Post(slot, place, message, surface, pending, mention, ping))
        return Shown(where=place.thread or place.channel, id=pending, digest=digest(message))

    def _mine(self, shown: Shown) -> bool:
        return shown.id in self.result.reserved

    def _taken(self, shown: Shown) -> bool:
        """Reserved by another delivery whose post may still land."""
        if not shown.reserved or self._mine(shown):
            return False
        return self.ctx.now - shown.since() < PENDING_S

    def _lost(self, shown: Shown | None) -> bool:
        """A reservation of another delivery that never landed: the surface is no one's."""
        return (
            shown is not None
            and shown.reserved
            and not self._mine(shown)
            and not self._taken(shown)
        )

    def _pressed(self, shown: Shown) -> bool:
        return not self.updated and self.ctx.pressed == (shown.where, shown.id)

    def _show(self, slot: str, shown: Shown, message: ui.Message, surface: str) -> None:
        """``shown`` shows ``message`` from now on: the pressed message is updated by the
        answer, another is edited; a reservation (another's or this delivery's own) gets the
        newer content when it lands."""
        new = digest(message)
        if shown.digest == new:
            return
        shown.digest = new
        if self._taken(shown):
            self.refs.wanted[slot] = message
            return
        self.refs.wanted.pop(slot, None)  # (an edit the budget deferred: this one is newer)
        if self._mine(shown):
            for op in self.result.ops:
                if isinstance(op, Post | Dm) and op.id == shown.id:
                    op.message = message
            return
        if self._pressed(shown):
            self.updated = True
            self.result.ops.append(Update(slot, shown, message, surface))
            return
        self.result.ops.append(Edit(slot, shown, message, surface))

    # --- stale presses -----------------------------------------------------------------------

    def _heal(self) -> None:
        """A press on a message of an earlier moment: that message shows the game as it is
        now (the board's, the prompt's or the panel's current content; a private copy of a
        panel, the seat's panel now), so it cannot be pressed stale again. The answer that
        says why comes after it (the update must be a press's first answer on Discord)."""
        ctx, refs = self.ctx, self.refs
        if ctx.pressed is None or ctx.user is None:
            return
        where, ident = ctx.pressed
        current: dict[str, tuple[Shown | None, ui.Message | None]] = {
            "board": (refs.board, refs.board_message),
            "prompt": (refs.prompt, refs.prompt_message),
            f"panel:{ctx.user}": (refs.panels.get(ctx.user), self.out.heal),
        }
        for slot, (shown, message) in current.items():
            if shown is not None and (shown.where, shown.id) == (where, ident):
                if message is not None:
                    self.updated = True
                    self.result.ops.append(Update(slot, shown, message, slot.partition(":")[0]))
                return
        if ctx.pressed_private and self.out.heal is not None:
            self.updated = True
            pressed = Shown(where=where, id=ident)
            self.result.ops.append(Update(f"pressed:{ctx.user}", pressed, self.out.heal, "panel"))

    def _healed_privately(self) -> Update | None:
        """The update of a private pressed message this stale press planned, if any: the answer
        saying why goes into it, rather than into a message of its own beside it."""
        if not (self.ctx.mode is Mode.STALE and self.ctx.pressed_private):
            return None
        for op in self.result.ops:
            if isinstance(op, Update) and (op.shown.where, op.shown.id) == self.ctx.pressed:
                return op
        return None

    # --- private answers ---------------------------------------------------------------------

    def _replies(self) -> None:
        """Private answers for the requester; with no interaction to answer (a reply for a
        user who is not asking: their answer went astray), a DM. Notes kept for later are
        the table's (:meth:`_notes`). ``hand`` asked in a DM moves the one panel there down
        to the bottom, instead of adding a copy of it."""
        ctx = self.ctx
        healed = self._healed_privately()
        for delivery in self.out.deliveries:
            if self.out.raise_panel and delivery.user == ctx.user and self._raise(delivery.message):
                continue
            said = delivery.message
            plain = not (said.buttons or said.selects or said.files)
            if healed is not None and delivery.user == ctx.user and plain:
                # A stale press on a private message (a DM panel, an ephemeral hand): the panel
                # it now shows says why at its head, one message rather than two in the DM.
                text = f"{said.text}\n\n{healed.message.text}".strip()
                healed.message = healed.message.model_copy(update={"text": text})
                healed = None
                continue
            if ctx.user is not None and delivery.user == ctx.user:
                in_place = delivery.in_place and ctx.pressed is not None and ctx.pressed_private
                self.updated = self.updated or in_place
                shown = delivery.heal if in_place and delivery.heal is not None else said
                self.result.ops.append(Reply(delivery.user, shown, in_place))
            elif delivery.user and delivery.note is None:
                self.result.ops.append(Note(delivery.user, delivery.message))

    def _raise(self, message: ui.Message) -> bool:
        """The requester's DM panel posted anew (with ``message``, when it is their hand) and
        the old one deleted; False when they have no DM panel to move (or this is not it)."""
        user = self.ctx.user
        shown = self.refs.panels.get(user) if user is not None else None
        if user is None or shown is None or shown.reserved:
            return False
        if not (message.buttons or message.selects or message.title):
            return False
        pending = self._reserve()
        slot = f"panel:{user}"
        self.result.ops.append(Dm(slot, user, message, pending))
        self.result.ops.append(Delete(shown, after=pending, slot=slot))
        self.result.ops.append(Reply(user, ui.Message(text=PANEL_MOVED)))
        self.refs.panels[user] = Shown(where="", id=pending, digest=digest(message))
        return True

    def _notes(self) -> None:
        """Close the DM notes of what is settled (all but the pressed one, which the answer
        replaced), then send the new notes to others, keeping their DMs."""
        refs, out, ctx = self.refs, self.out, self.ctx
        for settled, message in out.closed_notes.items():
            closed = message.model_copy(update={"buttons": [], "selects": []})
            for reader, copy in refs.notes.pop(settled, {}).items():
                if (copy.where, copy.id) != ctx.pressed and not self._taken(copy):
                    self._show(f"note:{settled}:{reader}", copy, closed, "note")
        for delivery in out.deliveries:
            user, key = delivery.user, delivery.note
            if key is None or user is None or user == ctx.user:
                continue
            pending = self._reserve()
            slot = f"note:{key}:{user}"
            self.result.ops.append(Dm(slot, user, delivery.message, pending))
            refs.notes.setdefault(key, {})[user] = Shown(
                where="", id=pending, digest=digest(delivery.message)
            )

    # --- the card and the thread -------------------------------------------------------------

    def _card(self, card: ui.Message) -> None:
        refs = self.refs
        shown = refs.card
        if shown is not None and not self._lost(shown):
            self._show("card", shown, card, "card")
            return
        refs.card = self._post("card", Place(channel=self.out.channel), card, "card")

    def _begin(self) -> None:
        refs, out = self.refs, self.out
        refs.board, refs.below, refs.prompt, refs.prompt_message = None, [], None, None
        if not out.thread or refs.threads_off or refs.card is None:
            refs.threads_off = True
            return
        name = (out.card.title if out.card and out.card.title else out.game or "game")[:90]
        pending = self._reserve()
        self.result.ops.append(StartThread(refs.card, name, pending))
        refs.thread = pending

    # --- posts below the board ---------------------------------------------------------------

    def _post_below(
        self,
        message: ui.Message,
        surface: str,
        mention: list[str] | None = None,
        ping: bool = True,
    ) -> Shown:
        """A post in the game's place; it counts as a message below the board (which moves
        down first when it already has :data:`MAX_BELOW` under it)."""
        refs = self.refs
        if len(refs.below) >= MAX_BELOW:
            self._keep_board_in_view()
        posted = self._post("below", refs.place(self.out.channel), message, surface, mention, ping)
        if refs.board is not None:
            refs.below.append(posted.id)
        return posted

    def _flush(self, force: bool = False) -> None:
        """Post the waiting log lines as log messages (unless the channel is at its limit and
        they can wait: the board shows them meanwhile)."""
        refs = self.refs
        if not refs.pending:
            return
        if not force and not self._free(refs.place(self.out.channel)):
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
            self._post_below(ui.Message(text=chunk), "log")

    # --- the board ---------------------------------------------------------------------------

    def _board_view(self, board: ui.Message) -> ui.Message:
        """The board with the newest waiting lines of the story at its foot (**Latest**): as
        many as fit beside the board's text (and a turn notice) in what every platform shows
        whole, at most :data:`LOG_ON_BOARD` characters, cut between lines (or words)."""
        pending = "\n".join(self.refs.pending)
        if not pending:
            return board
        room = ui.MAX_TEXT - len(board.text) - len(_NOTICE) - len(_LATEST)
        room = min(LOG_ON_BOARD, room)
        if room < _LATEST_AT_LEAST:
            return board  # a board as long as it may be has no room: the log has the lines
        text = f"{board.text}{_LATEST}{markup.clip_start(pending, room)}".strip()
        return board.model_copy(update={"text": text})

    def _board(self, board: ui.Message, notify: list[str]) -> None:
        """Edit the board, or move it to the bottom: when it has scrolled up, and to notify
        ``notify`` (the board is then the turn notice: one at a time, the old one deleted)."""
        refs = self.refs
        refs.board_source = board
        view = self._board_view(board)
        place = refs.place(self.out.channel)
        shown = None if self._lost(refs.board) else refs.board
        free = self._free(place)
        below = len(refs.below)
        scrolled = shown is not None and (below >= MAX_BELOW or (below >= MOVE_AT and free))
        if shown is not None and not free and self.ctx.user is not None:
            # The channel is at its post limit: the board (which says whom the game waits for)
            # is edited in place, without a ping; a post now would hold up the press. (A turn
            # notice that waited for its player, with no press to answer, waits for a slot.)
            notify = []
        if notify:
            view = view.model_copy(update={"text": f"{_NOTICE}{view.text}".strip()})
        if shown is not None and (scrolled or notify) and not shown.reserved:
            self._move_board(shown, view, notify)
            return
        if shown is None:
            self._new_board(view, notify)
            return
        view = self._coalesced(view)
        if shown.digest == digest(view):
            return
        refs.board_message = view
        self._show("board", shown, view, "board")

    def _coalesced(self, view: ui.Message) -> ui.Message:
        """``view`` as the board edited in place shows it: with its new picture, or with the
        picture it has when that changed less than :data:`COALESCE_S` ago (the new one held)."""
        refs, ctx, out = self.refs, self.ctx, self.out
        old = refs.board_message.picture_key if refs.board_message is not None else None
        new = view.picture_key
        if new is None or old is None or new == old:
            return view
        keep = view.model_copy(update={"picture_key": old})
        if self.stale:
            return keep  # a newer state is drawn: its delivery shows (or holds) its picture
        due = refs.picture_at + ctx.coalesce_s
        if out.ended or out.version is None or ctx.now >= due or not ctx.shows(old):
            refs.picture_at = ctx.now
            return view
        self.result.held = Held(key=new, version=out.version, due=due)
        return keep

    def _catch_up(self) -> None:
        """The board of the held version, if it is still the newest drawn, gets the newest
        picture: an edit of what it shows now (its text, its Latest, a notice), never a post."""
        refs, out = self.refs, self.out
        board, shown, view = out.board, refs.board, refs.board_message
        if board is None or out.version is None or out.version != refs.version or refs.ended:
            return
        if shown is None or view is None or self._lost(shown):
            return
        if view.picture_key == board.picture_key:
            return
        view = view.model_copy(update={"picture_key": board.picture_key})
        refs.board_message, refs.picture_at = view, self.ctx.now
        self._show("board", shown, view, "board")

    def _keep_board_in_view(self) -> None:
        """Posts without a board change (notes, pitches) pushed the board up: move it down."""
        refs = self.refs
        shown, view = refs.board, refs.board_message
        if shown is None or view is None or shown.reserved:
            return
        below = len(refs.below)
        if below >= MAX_BELOW or (below >= MOVE_AT and self._free(refs.place(self.out.channel))):
            self._move_board(shown, view, [])

    def _move_board(self, old: Shown, view: ui.Message, notify: list[str]) -> None:
        """The board posted anew at the bottom, then the old one deleted (kept if the new one
        could not be posted)."""
        posted = self._new_board(view, notify)
        self.result.ops.append(Delete(old, after=posted.id, slot="board"))

    def _new_board(self, view: ui.Message, notify: list[str] | None = None) -> Shown:
        """The board posted; its picture (a new message's is an upload) counts as changed."""
        refs = self.refs
        place = refs.place(self.out.channel)
        posted = self._post("board", place, view, "board", notify or None)
        refs.board, refs.below, refs.board_message = posted, [], view
        if view.picture_key is not None:
            refs.picture_at = self.ctx.now
        return posted

    # --- the prompt --------------------------------------------------------------------------

    def _prompt(self) -> None:
        refs, out = self.refs, self.out
        prompt = out.prompt
        shown = refs.prompt
        if shown is not None and (prompt is None or refs.prompt_id != out.prompt_id):
            self._close_prompt()
            shown = None
        if prompt is None:
            return
        if shown is not None and not self._lost(shown):
            self._show("prompt", shown, prompt, "prompt")
            refs.prompt_message = prompt  # (a press may have updated it already)
            return
        self._flush(force=True)  # the story up to the decision comes first
        refs.prompt = self._post_below(prompt, "prompt")
        refs.prompt_id, refs.prompt_message = out.prompt_id, prompt

    def _close_prompt(self) -> None:
        refs = self.refs
        shown, message = refs.prompt, refs.prompt_message
        refs.prompt, refs.prompt_id, refs.prompt_message = None, None, None
        if shown is None or message is None or self._lost(shown):
            return
        closed = message.model_copy(
            update={
                "text": message.closed_text if message.closed_text is not None else message.text,
                "buttons": [],
                "selects": [],
                "deadline": None,
            }
        )
        self._show("prompt", shown, closed, "prompt")

    # --- panels ------------------------------------------------------------------------------

    def _own_panel(self, stale: bool) -> None:
        """The requester's panel first: the press that changed it updates the message."""
        ctx, out, refs = self.ctx, self.out, self.refs
        user = ctx.user
        if user is None or stale or user not in out.panels:
            return
        panel = out.panels[user]
        shown = refs.panels.get(user)
        if shown is not None and not self._lost(shown):
            self._show(f"panel:{user}", shown, panel, "panel")
            return
        if ctx.pressed is not None and ctx.pressed_private and not self.updated:
            # A private message that is not the DM panel (an ephemeral hand): update it too.
            self.updated = True
            pressed = Shown(where=ctx.pressed[0], id=ctx.pressed[1])
            self.result.ops.append(Update(f"pressed:{user}", pressed, panel, "panel"))
            if user in refs.closed:
                return  # no DM panel to keep: the updated message is the panel
        self._panel(user, panel)

    def _panel(self, user: str, panel: ui.Message) -> None:
        refs = self.refs
        shown = refs.panels.get(user)
        if shown is not None and not self._lost(shown):
            self._show(f"panel:{user}", shown, panel, "panel")
            return
        if user in refs.closed:
            self.closed_panel(user, panel)
            return
        pending = self._reserve()
        self.result.ops.append(Dm(f"panel:{user}", user, panel, pending))
        refs.panels[user] = Shown(where="", id=pending, digest=digest(panel))

    def closed_panel(self, user: str, panel: ui.Message) -> None:
        """A requester whose DMs are closed sees their panel privately where they are."""
        if user != self.ctx.user:
            return
        self.result.ops.append(Reply(user, panel))
        hint = self.ctx.closed_hint.format(game=self.out.game or "")
        if hint and user not in self.refs.hinted:
            self.refs.hinted.append(user)
            self.result.ops.append(Reply(user, ui.Message(text=hint)))

    def _close_panels(self) -> None:
        """The panels of people no longer seated say so, lose their buttons and are let go."""
        for user, message in self.out.closed_panels.items():
            shown = self.refs.panels.pop(user, None)
            if shown is not None and not shown.reserved:
                closed = message.model_copy(update={"buttons": [], "selects": []})
                self.result.ops.append(Edit(f"panel:{user}", shown, closed, "panel"))

    # --- the end -----------------------------------------------------------------------------

    def _end(self) -> None:
        refs, out = self.refs, self.out
        refs.ended = True
        self._close_prompt()
        over = ui.Message(text=GAME_OVER)
        for user, shown in refs.panels.items():
            if user not in out.panels and not self._lost(shown):
                self._show(f"panel:{user}", shown, over, "panel")
        if out.result is not None and not refs.threads_off and refs.thread is not None:
            self._post("result", Place(channel=out.channel), out.result, "result")


_FIRST = ("board", "prompt", "card")
"""The surfaces whose deferred edits are shown first, in this order."""


def flush(refs: Refs, ctx: Context) -> Plan:
    """The edits the budget deferred (:attr:`Refs.wanted` of surfaces posted already), each
    surface shown in its newest state: the board, the prompt and the card first, then the
    panels of whoever the game waits for, other panels, notes. A surface still being posted
    is its poster's to bring up to date."""
    refs = refs.working_copy()
    result = Plan(refs=refs)

    def first(slot: str) -> tuple[int, int, str]:
        if slot in _FIRST:
            return (0, _FIRST.index(slot), slot)
        kind, _, user = slot.partition(":")
        if kind == "panel":
            return (1 if user in refs.waiting else 2, 0, slot)
        return (3, 0, slot)

    for slot in sorted(refs.wanted, key=first):
        shown = slot_shown(refs, slot)
        if shown is None or shown.reserved:
            continue
        message = refs.wanted.pop(slot)
        shown.digest = digest(message)
        if slot == "board":
            refs.board_message = message
        result.ops.append(Edit(slot, shown, message, slot.partition(":")[0]))
    return result


# --- what a delivery learned: settling it into the refs ----------------------------------------


@dataclass
class Missing:
    """A surface the table keeps whose message someone deleted (or that can no longer be
    edited: ``stuck``, deleted once it is posted anew), found when editing it."""

    slot: str
    dead: str
    """The id of the message that is gone."""
    message: ui.Message
    surface: str
    stuck: Shown | None = None
    claimed: str | None = None
    """The reservation this delivery holds for posting it anew, once it has one."""
    done: bool = False
    """Settled: posted anew by this delivery, or another's to show (or no longer kept)."""


@dataclass
class Later:
    """An edit the budget had no room for: ``slot`` is to show ``message`` once it has."""

    slot: str
    id: str
    """The message it was to edit (the refs may name a newer one by then)."""
    message: ui.Message
    wait: float


@dataclass
class Done:
    """What a delivery's operations did, for :func:`settle`."""

    version: int | None = None
    """The state version the delivery drew (None: none, a lobby's or a private answer)."""
    posted: dict[str, Shown | None] = field(default_factory=dict)
    """Each reservation of this delivery: the message posted (None: it could not be)."""
    threads: dict[str, str | None] = field(default_factory=dict)
    """The thread reservation: the thread started (None: none could be)."""
    slots: dict[str, str] = field(default_factory=dict)
    """The slot of each reservation (``board``, ``panel:<user>``, ``below``...)."""
    gone: list[Missing] = field(default_factory=list)
    """Surfaces whose message was gone when edited."""
    failed_edits: list[tuple[str, str]] = field(default_factory=list)
    """(slot, message id) of the edits the platform did not take: not shown, whatever the
    refs written before them say."""
    later: list[Later] = field(default_factory=list)
    """Edits the budget deferred: each surface shows its newest state once it has room."""
    doubles: set[str] = field(default_factory=set)
    """Reservations another delivery took over whose messages are (being) deleted."""

    def kept(self, pending: str) -> bool:
        """Whether the reservation is of a surface there is one of (a story line is not)."""
        slot = self.slots.get(pending, "")
        return slot in ("card", "board", "prompt") or slot.startswith(("panel:", "note:"))

    @property
    def settled(self) -> bool:
        """Whether nothing is left to write: edits only, all of them made."""
        return not (self.posted or self.threads or self.gone or self.failed_edits or self.later)


@dataclass
class Settled:
    """What :func:`settle` decided: the refs to write, and the operations to make once they
    are written (edits to what a newer delivery wants, doubles deleted, surfaces posted anew
    under the reservations written)."""

    refs: Refs
    ops: list[Op] = field(default_factory=list)
    claims: dict[str, str] = field(default_factory=dict)
    """Each deleted surface this delivery posts anew (its slot), under its reservation."""
    ended: list[str] = field(default_factory=list)
    """The deleted surfaces another delivery shows (or that are no longer kept)."""


def settle(refs: Refs, done: Done, ctx: Context, channel: str, merging: bool = False) -> Settled:
    """What delivery ``done`` learned, settled into ``refs`` (a copy): its reservations become
    the messages it posted (or go, when it could not post them); the edits the platform did
    not take, or the budget deferred, leave their surfaces to be shown again; a surface found
    deleted is posted anew under a reservation of this delivery, unless another delivery is
    posting (or has posted) it, which then shows what this one drew if it is newer.

    ``merging``: ``refs`` are newer than the ones this delivery wrote (another wrote between):
    a reservation of this delivery that is no longer in them was taken over (its message is
    a double: deleted), and a message this delivery posted that another delivery wants to show
    something newer is edited to it."""
    refs = refs.working_copy()
    result = Settled(refs=refs)
    found = replace(refs, done)
    forget(refs, done)
    if merging:
        _merged(refs, done, found, result)
    defer(refs, done)
    _missing(refs, done, ctx, channel, result)
    return result


def _merged(refs: Refs, done: Done, found: dict[str, str], result: Settled) -> None:
    """Into refs another delivery wrote meanwhile: a reservation of ``done`` no longer in them
    was taken over (its message is a double: deleted), and a message ``done`` posted that the
    other delivery wants to show something newer is edited to it."""
    for pending, shown in done.posted.items():
        if shown is None or pending in found or pending in done.doubles:
            continue
        if done.kept(pending):  # (a story line or a post: nobody else posts it)
            result.ops.append(Delete(shown, slot=done.slots.get(pending, "")))
    for slot, message in list(refs.wanted.items()):
        shown = slot_shown(refs, slot)
        if shown is None or shown.reserved or shown.id not in found.values():
            continue
        del refs.wanted[slot]
        shown.digest = digest(message)
        result.ops.append(Edit(slot, shown, message, slot.partition(":")[0]))


def _missing(refs: Refs, done: Done, ctx: Context, channel: str, result: Settled) -> None:
    """The surfaces ``done`` found deleted: posted anew under a reservation of its own, or left
    to the delivery already posting (or having posted) them, told what ``done`` drew when it
    is newer."""
    newest = done.version is None or done.version >= refs.version
    for gone in done.gone:
        if gone.claimed is not None or gone.done:
            continue
        shown = slot_shown(refs, gone.slot)
        if shown is None or shown.id != gone.dead:
            result.ended.append(gone.slot)
            if shown is not None and newest and shown.digest != digest(gone.message):
                _show_theirs(refs, gone, shown, result)
            continue
        pending = f"{PENDING}{ctx.token}:g{len(result.claims) + 1}:{ctx.now:.3f}"
        message = refs.wanted.pop(gone.slot, gone.message)
        result.claims[gone.slot] = pending
        put(refs, gone.slot, Shown(where="", id=pending, digest=digest(message)))
        result.ops.append(_repost(gone, message, pending, refs.place(channel), channel))
        if gone.stuck is not None:
            result.ops.append(Delete(gone.stuck, after=pending))


def _show_theirs(refs: Refs, gone: Missing, shown: Shown, result: Settled) -> None:
    """Another delivery's message for ``gone``'s surface is to show what this one drew."""
    shown.digest = digest(gone.message)
    if shown.reserved:
        refs.wanted[gone.slot] = gone.message
    else:
        result.ops.append(Edit(gone.slot, shown, gone.message, gone.surface))


def _repost(gone: Missing, message: ui.Message, pending: str, place: Place, channel: str) -> Op:
    """The post that shows ``gone``'s surface anew, under the reservation ``pending``."""
    if gone.slot.startswith("panel:"):
        return Dm(gone.slot, gone.slot.removeprefix("panel:"), message, pending)
    if gone.slot == "card":
        return Post(gone.slot, Place(channel=channel), message, "card", pending)
    return Post(gone.slot, place, message, gone.surface, pending)


def replace(refs: Refs, done: Done) -> dict[str, str]:
    """Swap ``done``'s reservations in ``refs`` for what it posted (dropping those it could not
    post); the reservations found, mapped to the real ids."""
    found: dict[str, str] = {}

    def real(shown: Shown | None) -> Shown | None:
        if shown is None or shown.id not in done.posted:
            return shown
        posted = done.posted[shown.id]
        if posted is None:
            return None
        found[shown.id] = posted.id
        # The newest delivery's digest stands: it may want something newer shown.
        return posted.model_copy(update={"digest": shown.digest})

    refs.card, refs.board = real(refs.card), real(refs.board)
    prompt = real(refs.prompt)
    if prompt is None and refs.prompt is not None:
        refs.prompt_id, refs.prompt_message = None, None  # it could not be posted
    refs.prompt = prompt
    refs.panels = {u: s for u, s in ((u, real(s)) for u, s in refs.panels.items()) if s is not None}
    refs.notes = {
        key: kept
        for key, copies in refs.notes.items()
        if (kept := {u: s for u, s in ((u, real(s)) for u, s in copies.items()) if s is not None})
    }
    below = []
    for ident in refs.below:
        if ident in done.posted:
            posted = done.posted[ident]
            if posted is not None:
                found[ident] = posted.id
                below.append(posted.id)
        else:
            below.append(ident)
    refs.below = below
    if refs.thread is not None and refs.thread in done.threads:
        thread = done.threads[refs.thread]
        found[refs.thread] = thread or ""
        refs.thread = thread
        refs.threads_off = refs.threads_off or thread is None
    return found


def forget(refs: Refs, done: Done) -> None:
    """The digests of the messages ``done`` failed to edit, forgotten in ``refs``: the next
    delivery edits them to what is current then, even if that is what the failed edit showed."""
    for slot, message_id in done.failed_edits:
        kept = slot_shown(refs, slot)
        if kept is not None and kept.id == message_id:
            kept.digest = ""


def defer(refs: Refs, done: Done) -> None:
    """The edits the budget deferred, into ``refs``: each surface still showing what this
    delivery planned (no newer delivery changed it since) wants that message, and its digest
    is forgotten, so whoever shows the channel's deferred edits (or its next change) sends it."""
    for later in done.later:
        kept = slot_shown(refs, later.slot)
        if kept is None or kept.id != later.id:
            continue  # gone, or posted anew since
        if kept.digest not in (digest(later.message), ""):
            continue  # a newer delivery showed (or wants) something newer
        kept.digest = ""
        refs.wanted[later.slot] = later.message


def put(refs: Refs, slot: str, shown: Shown) -> None:
    """``shown`` as the message of ``slot`` (see :func:`slot_shown`)."""
    if slot in ("card", "board", "prompt"):
        setattr(refs, slot, shown)
        if slot == "board":
            refs.below = []
    elif slot.startswith("panel:"):
        refs.panels[slot.removeprefix("panel:")] = shown


def slot_shown(refs: Refs, slot: str) -> Shown | None:
    """The message of ``slot`` (``card``, ``board``, ``prompt``, ``panel:<user>``,
    ``note:<key>:<user>``) in ``refs``, if any."""
    if slot in ("card", "board", "prompt"):
        shown: Shown | None = getattr(refs, slot)
        return shown
    kind, _, rest = slot.partition(":")
    if kind == "panel":
        return refs.panels.get(rest)
    if kind == "note":
        key, _, user = rest.rpartition(":")
        return refs.notes.get(key, {}).get(user)
    return None


def touches_table(out: Changes, mode: Mode) -> bool:
    """Whether ``out`` changes the table at all (else it is only private answers)."""
    return _touches_table(out, mode)


def _touches_table(out: Changes, mode: Mode) -> bool:
    return bool(
        out.raise_panel
        or mode is Mode.STALE
        or out.closed_notes
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
