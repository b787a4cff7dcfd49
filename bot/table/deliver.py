"""Carrying out a plan: the platform's calls, and the refs written with a compare-and-set.

One delivery:

1. reads the refs (one round trip; none when the Outbox brings the ones loaded with the game);
2. plans (:func:`bot.table.plan.plan`) and, when the plan changes the refs, writes them with a
   compare-and-set on their revision *before any platform call*: its reservations are then
   everyone's to see. A delivery that finds the refs changed since it read them reads them again
   and plans anew, so two deliveries never both post one surface, without any lock;
3. runs the operations in order (posts paced within the platform's limit), handling what a
   platform can answer (a message gone, DMs closed, no thread allowed, a refusal); each message
   is bound just before its call (:func:`bot.commands.codec.bind`: its controls' ids, within the
   platform's limit, naming the game's channel wherever it is shown outside it), so the refs and
   the digests hold neutral messages and the platform draws opaque ids;
4. writes what it learned (the real ids of what it posted) with a compare-and-set; when another
   delivery wrote meanwhile, its results are merged into the newer refs, a surface that another
   delivery wanted to show something newer is brought up to date, and a post whose reservation
   someone else took over (it outlived :data:`~bot.table.plan.PENDING_S`) is deleted again.

A worker that dies between 2 and 4 costs its reservations' :data:`~bot.table.plan.PENDING_S`:
the next delivery then posts those surfaces itself. Within one process, deliveries to one
channel go one at a time (an asyncio lock, held by nothing across processes), so they keep
their order and rarely meet in the store.

A board picture a plan held back (:data:`~bot.table.plan.COALESCE_S`) is shown by a catch-up:
one task per channel waits on the table's clock until the window has passed, then delivers
a catch-up (:attr:`~bot.commands.outbox.Mode.CATCH_UP`) with the newest picture held, like any
other delivery. A newer delivery to the channel supersedes it: one that holds its own picture
gives the waiting task its newer board, one that shows its picture ends the task.
:meth:`Table.caught_up` waits for the pictures held to be shown; :meth:`Table.flush` shows them
at once (a worker stopping).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import secrets
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from pydantic import ValidationError

from bot.commands import codec
from bot.commands.outbox import Changes, DeliveryContext, Mode, Outbox
from bot.table.budget import Budget, Call, Deferred, Priority, calling
from bot.table.clock import Clock, MonotonicClock
from bot.table.model import (
    PENDING,
    Answer,
    Closed,
    Delivered,
    Gone,
    Place,
    Platform,
    Refs,
    Refused,
    Shown,
    Stuck,
)
from bot.table.model import digest as digest_of
from bot.table.plan import (
    COALESCE_S,
    NO_THREAD,
    Context,
    Delete,
    Dm,
    Done,
    Edit,
    Later,
    Missing,
    Note,
    Op,
    Plan,
    Post,
    Reply,
    StartThread,
    Update,
    closed_note,
    flush,
    forget,
    plan,
    put,
    replace,
    settle,
    slot_shown,
    touches_table,
)
from core import ui
from storage import GameKey, GameStore, StorageUnavailable

__all__ = ["MAX_PLANS", "Table"]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

DRAWN_KEPT = 16
"""Board pictures kept drawn in a process (the newest)."""
SHOWN_KEPT = 1000
"""Keys of the board pictures a process has shown, remembered (the newest): a board whose
picture this worker showed may keep it a moment while a newer one is held back."""
MAX_PLANS = 5
"""Plans one delivery makes at most when other deliveries keep writing the refs first."""
MAX_SETTLES = 4
"""Writes of its results one delivery tries at most (each after merging the newer refs)."""
KNOWN_KEPT = 1000
"""Channels whose refs a process remembers as it last wrote or read them (the newest)."""
KNOWN_S = 60.0
"""How long they are remembered: a channel gone quiet costs its worker nothing after it."""


@dataclass
class _CatchUp:
    """A channel's board picture held back: ``out`` (the board to catch up) is delivered at
    ``due`` (unix time, the table's clock), drawn by ``draw``."""

    out: Changes
    draw: Callable[[], ui.Picture | None] | None
    due: float
    task: asyncio.Task[None] | None = None


@dataclass
class _Flush:
    """A channel's deferred edits (:attr:`Refs.wanted`), shown at ``due`` (the table's clock)."""

    due: float
    task: asyncio.Task[None] | None = None


@dataclass
class _Run:
    """One delivery: the changes, how they are delivered, the requester's answer, and what
    happened."""

    out: Changes
    context: DeliveryContext
    answer: Answer | None
    answered: bool = False
    refused: list[str] = field(default_factory=list)
    """What the platform refused the bot (missing permissions), to tell the requester."""
    done: Done = field(default_factory=Done)
    """What its operations did, for :func:`~bot.table.plan.settle`."""

    def __post_init__(self) -> None:
        self.done.version = self.out.version

    @property
    def game(self) -> str:
        return self.out.game or ""


class Table:
    """Delivers change sets as surfaces, through one platform's primitives."""

    def __init__(
        self,
        store: GameStore,
        platform: Platform,
        ttl_s: int,
        clock: Clock | None = None,
        finished_ttl_s: int | None = None,
        coalesce_s: float = COALESCE_S,
    ) -> None:
        self.store = store
        self.platform = platform
        self.ttl_s = ttl_s
        """How long a game's refs are kept while it lasts (the game's own TTL)."""
        self.finished_ttl_s = finished_ttl_s if finished_ttl_s is not None else ttl_s
        """How long the refs of a game that is over are kept: as long as the game's record
        and log (what they name, final board and all, goes with them)."""
        self._clock: Clock = clock or MonotonicClock()
        self.budget: Budget | None = platform.budget
        """Where every rationed call is taken from (None: a platform that rations nothing)."""
        if self.budget is not None:
            self.budget.clock = self._clock
        self.posting_free = False
        """Plan as if every place could take a post now (tests whose surfaces must not depend
        on timing); the budget still paces the posts themselves."""
        self.drawer: concurrent.futures.Executor | None = None
        """Where board pictures are drawn: None, a worker thread; a worker runs them in a
        process of its own (:func:`bot.runtime.picture_drawer`), where drawing takes none of the
        event loop's time."""
        self.coalesce_s = coalesce_s
        """How long a board's picture stands before the next is shown (0: each at once, as the
        console shows them)."""
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        """Deliveries to one channel in this process go one at a time, in order (nothing holds
        across processes: there the refs' compare-and-set keeps them apart). A lock nobody
        holds or waits for goes with its channel's last delivery."""
        self._flushes: dict[str, _Flush] = {}
        """Each channel's deferred edits waiting for the budget, and when they are shown."""
        self._flushing: set[asyncio.Task[None]] = set()
        self._token = secrets.token_hex(4)
        self._deliveries = 0
        self._drawn: OrderedDict[str, ui.Picture] = OrderedDict()
        """The newest board pictures drawn, by key (a board moved down shows its picture
        again without a redraw)."""
        self._shown: OrderedDict[str, None] = OrderedDict()
        """The keys of the board pictures this process has shown (see :data:`SHOWN_KEPT`)."""
        self._catch_ups: dict[str, _CatchUp] = {}
        """Each channel's board picture held back, waiting for its window."""
        self._catching_up: set[asyncio.Task[None]] = set()
        self._known: OrderedDict[str, tuple[float, int, str]] = OrderedDict()
        """Each channel's refs as this process last wrote or read them (revision, JSON): a
        delivery that brings none from its load (a picture's catch-up) plans from these
        rather than reading the store. The compare-and-set keeps that safe: refs another
        worker wrote since fail the write, and the delivery reads the newer ones and plans
        anew."""

    def clock(self) -> float:
        """Unix time on the table's clock (tests move it with their virtual clock): for the
        reservations and the picture's window written in the refs."""
        return self._clock.wall()

    def use_clock(self, clock: Clock) -> None:
        """Keep time (pacing, budgets, pictures' windows) by ``clock`` (a test's)."""
        self._clock = clock
        if self.budget is not None:
            self.budget.clock = clock

    def channels(self) -> int:
        """Channels this process keeps anything for (locks, waits, deferred edits, refs)."""
        self._forget_quiet()
        return len({*self._locks.keys(), *self._catch_ups, *self._flushes, *self._known})

    def _forget_quiet(self) -> None:
        """The refs of channels quiet for :data:`KNOWN_S`, forgotten (the oldest first)."""
        now = self.clock()
        while self._known and now - next(iter(self._known.values()))[0] > KNOWN_S:
            self._known.popitem(last=False)

    # --- one delivery ------------------------------------------------------------------------

    async def deliver(self, out: Outbox, answer: Answer | None = None) -> Delivered:
        """Show what a step filled in ``out``. The result says whether the requester got an
        answer of their own (a reply, or the pressed message updated: otherwise the adapter
        only acknowledges) and what the platform refused the bot."""
        changes, context = out.handed()
        return await self._deliver(changes, context, answer)

    async def _deliver(
        self, out: Changes, context: DeliveryContext, answer: Answer | None = None
    ) -> Delivered:
        if out.duplicate:
            return Delivered()
        self._forget_quiet()
        run = _Run(out=out, context=context, answer=answer)
        if not touches_table(out, context.mode):
            await self._execute(run, plan(Refs(table=out.table or ""), out, self._context(run)))
            return Delivered(answered=run.answered, refused=run.refused)
        key = GameKey(self.platform.name, out.channel)
        lock = self._lock(out.channel)
        if answer is not None and lock.locked():
            # Another delivery to this channel is under way: the request is acknowledged now
            # (Discord wants it within 3 s); its own answer follows through the interaction.
            await self._try(run, "the acknowledgement", answer.acknowledge())
        async with lock:
            planned = await self._reserve(key, run)
            await self._execute(run, planned)
            await self._settle(key, run, planned)
            self._follow(run, planned)
            self._later(out.channel, run, planned.refs)
        return Delivered(answered=run.answered, refused=run.refused)

    def _lock(self, channel: str) -> asyncio.Lock:
        lock = self._locks.get(channel)
        if lock is None:
            lock = self._locks[channel] = asyncio.Lock()
        return lock

    # --- edits the budget deferred -----------------------------------------------------------

    def _later(self, channel: str, run: _Run, refs: Refs) -> None:
        """Show the channel's deferred edits once the budget has room: the soonest any of this
        delivery's had, or soon when the refs hold some another worker left."""
        waits = [later.wait for later in run.done.later]
        if not waits and not any(not shown.reserved for shown in _wanted_shown(refs)):
            return
        due = self.clock() + (min(waits) if waits else 0.0)
        waiting = self._flushes.get(channel)
        if waiting is not None:
            if waiting.due <= due:
                return
            if waiting.task is not None:
                waiting.task.cancel()
        entry = _Flush(due)
        self._flushes[channel] = entry
        entry.task = asyncio.create_task(self._flush(channel, entry))
        self._flushing.add(entry.task)
        entry.task.add_done_callback(self._flushing.discard)

    async def _flush(self, channel: str, entry: _Flush) -> None:
        """At ``entry.due``: every surface of the channel with a deferred edit shows its newest
        state (:func:`bot.table.plan.flush`), as far as the budget has room; what it has no
        room for waits again."""
        while (wait := entry.due - self.clock()) > 0:
            await self._clock.sleep(wait)
        if self._flushes.get(channel) is not entry:
            return
        del self._flushes[channel]
        key = GameKey(self.platform.name, channel)
        try:
            async with self._lock(channel):
                refs = await self._read(key, _own_changes(self.platform.name, channel))
                out = _own_changes(self.platform.name, channel, refs)
                run = _Run(out=out, context=DeliveryContext(Mode.FLUSH), answer=None)
                planned = await self._reserve(key, run, lambda refs, ctx: flush(refs, ctx), refs)
                await self._execute(run, planned)
                await self._settle(key, run, planned)
                self._later(channel, run, planned.refs)
        except Exception:  # the next delivery to the channel shows them
            log.exception("showing the deferred edits of %s failed", channel)

    # --- pictures held back ------------------------------------------------------------------

    def _follow(self, run: _Run, planned: Plan) -> None:
        """After a delivery: its held picture waits for a catch-up (the channel's waiting one
        now brings this newer board); a board that showed its picture ends the wait."""
        out = run.out
        if run.context.mode is Mode.CATCH_UP:
            return
        held, waiting = planned.held, self._catch_ups.get(out.channel)
        if held is None:
            if waiting is None or out.board is None or out.version is None:
                return
            if out.version >= (waiting.out.version or 0):
                del self._catch_ups[out.channel]
                if waiting.task is not None:
                    waiting.task.cancel()
            return
        later = Changes(
            platform=out.platform,
            channel=out.channel,
            game=out.game,
            table=out.table,
            thread=out.thread,
            board=out.board,
            version=held.version,
        )
        if waiting is not None:
            waiting.out, waiting.draw, waiting.due = later, run.context.draw, held.due
            return
        entry = _CatchUp(later, run.context.draw, held.due)
        self._catch_ups[out.channel] = entry
        entry.task = asyncio.create_task(self._catch_up(out.channel, entry))
        self._catching_up.add(entry.task)
        entry.task.add_done_callback(self._catching_up.discard)

    async def _catch_up(self, channel: str, entry: _CatchUp) -> None:
        """Wait for ``entry``'s window on the table's clock, then deliver its catch-up."""
        while (wait := entry.due - self.clock()) > 0:
            await self._clock.sleep(wait)
        if self._catch_ups.get(channel) is not entry:
            return
        del self._catch_ups[channel]
        try:
            await self._deliver(entry.out, DeliveryContext(Mode.CATCH_UP, draw=entry.draw))
        except Exception:  # the next change of the board shows its picture
            log.exception("showing the held picture in %s failed", channel)

    async def flushed(self) -> None:
        """Wait until every edit the budget deferred has been made (or superseded)."""
        while self._flushing:
            await asyncio.wait(set(self._flushing))

    async def caught_up(self) -> None:
        """Wait until every board picture held back has been shown (or superseded), and every
        edit the budget deferred meanwhile made."""
        while self._catching_up or self._flushing:
            await asyncio.wait({*self._catching_up, *self._flushing})

    async def flush(self) -> None:
        """Show every board picture held back now, without waiting for its window (a worker
        that stops leaves no board a picture behind)."""
        waiting = list(self._catch_ups.values())
        self._catch_ups.clear()
        for entry in waiting:
            if entry.task is not None:
                entry.task.cancel()
        for entry in waiting:
            try:
                await self._deliver(entry.out, DeliveryContext(Mode.CATCH_UP, draw=entry.draw))
            except Exception:
                log.exception("showing the held picture in %s failed", entry.out.channel)
        await self.caught_up()

    def _context(self, run: _Run) -> Context:
        self._deliveries += 1
        answer = run.answer
        return Context(
            token=f"{self._token}.{self._deliveries}",
            now=self.clock(),
            free=self._room,
            threads_share_limit=self.platform.threads_share_limit,
            closed_hint=self.platform.closed_hint,
            coalesce_s=self.coalesce_s,
            shows=self._shown.__contains__,
            mode=run.context.mode,
            user=answer.user if answer is not None else None,
            pressed=answer.pressed if answer is not None else None,
            pressed_private=answer.pressed_private if answer is not None else False,
        )

    def _room(self, where: str) -> int:
        """Posts ``where`` may take now without waiting (an estimate; any number when the
        platform rations nothing, or a test plans as if it did not)."""
        limit = self.platform.post_limit(where)
        if self.posting_free or self.budget is None or limit is None:
            return 1_000_000
        return self.budget.room(limit)

    async def _reserve(
        self,
        key: GameKey,
        run: _Run,
        planner: Callable[[Refs, Context], Plan] | None = None,
        loaded: Refs | None = None,
    ) -> Plan:
        """Plan from the newest refs and write the plan's refs before any platform call."""
        ctx = self._context(run)
        refs = loaded or await self._read(key, run.out, run.context.refs_seen)
        for _ in range(MAX_PLANS):
            planned = planner(refs, ctx) if planner else plan(refs, run.out, ctx)
            if not _changed(refs, planned.refs):
                planned.refs.rev = refs.rev
                return planned
            rev = await self._write(key, planned.refs, refs.rev, run.context)
            if rev is not None:
                planned.refs.rev = rev
                return planned
            refs = await self._read(key, run.out)  # another delivery wrote first: plan anew
        log.warning(
            "the table of %s kept changing under %d plans; delivering anyway", key, MAX_PLANS
        )
        planned.refs.rev = -1
        return planned

    async def _read(self, key: GameKey, out: Changes, seen: tuple[int, str] | None = None) -> Refs:
        """The refs of ``out``'s game: ``seen`` (as loaded with the game), else as this process
        last knew them (:attr:`_known`), else read now."""
        stored = seen if seen is not None else self._known_refs(out.channel)
        if stored is None:
            try:
                stored = await self.store.table_refs(key)
            except StorageUnavailable:
                stored = None
            else:
                self._remember(out.channel, stored)
        refs, rev = None, 0
        if stored is not None and stored[1]:
            rev, data = stored
            with contextlib.suppress(ValidationError):
                refs = Refs.model_validate_json(data)
        if refs is None or (out.table and refs.table != out.table):
            # A new game in the channel gets new messages (the old card stays as it ended).
            refs = Refs(table=out.table or "", threads_off=not out.thread)
        refs.rev = rev
        return refs

    def _remember(self, channel: str, stored: tuple[int, str] | None) -> None:
        """``stored`` as the channel's newest refs known here (None: forget them, so the next
        delivery without refs of its own reads the store)."""
        if stored is None:
            self._known.pop(channel, None)
            return
        self._known[channel] = (self.clock(), *stored)
        self._known.move_to_end(channel)
        while len(self._known) > KNOWN_KEPT:
            self._known.popitem(last=False)
        self._forget_quiet()

    def _known_refs(self, channel: str) -> tuple[int, str] | None:
        """The channel's refs as this process last wrote or read them, if lately."""
        known = self._known.get(channel)
        if known is None or self.clock() - known[0] > KNOWN_S:
            return None
        return known[1], known[2]

    async def _write(
        self, key: GameKey, refs: Refs, expected: int, context: DeliveryContext | None = None
    ) -> int | None:
        """Write ``refs`` if the stored revision is ``expected``: the new revision, or None
        when another delivery wrote first. A store that cannot be reached counts as written
        (the delivery goes on; the next one may post anew). Kept as long as the game is
        (:attr:`Refs.kept_until`), at least the table's TTL."""
        if context is not None and context.kept_until is not None:
            refs.kept_until = max(refs.kept_until, context.kept_until)
        ttl = self.finished_ttl_s if refs.ended else self.ttl_s
        if not refs.ended:
            ttl = max(ttl, int(refs.kept_until - self._clock.wall()))
        data = refs.model_dump_json()
        try:
            rev = await self.store.set_table_refs(key, data, ttl, expected)
        except StorageUnavailable:
            log.warning("could not remember the table of %s; the next change may post anew", key)
            self._remember(key.channel, None)
            return expected
        self._remember(key.channel, None if rev is None else (rev, data))
        return rev

    # --- the platform's calls ----------------------------------------------------------------

    async def _execute(self, run: _Run, planned: Plan) -> None:
        run.done.slots = {op.id: op.slot for op in planned.ops if isinstance(op, Post | Dm)}
        for op in planned.ops:
            try:
                # A picture is drawn just before the call that shows it: the operations before
                # it (the press's own answer, mostly) do not wait for the drawing.
                await self._picture(run, op)
                await self._op(run, planned.refs, op)
            except Exception as error:  # a part that fails stops only itself
                log.warning(
                    "delivering %s in %s failed: %s", type(op).__name__, run.out.channel, error
                )
        self._swap(run, planned.refs)

    async def _picture(self, run: _Run, op: Op) -> None:
        """Give a message sent with a picture key its picture: drawn once per picture (in a
        worker thread, off the event loop) and kept for the next messages that show it."""
        if not isinstance(op, Post | Edit | Update):
            return
        key = op.message.picture_key
        if key is None or op.message.picture is not None:
            return
        picture = self._drawn.get(key)
        draw = _drawing(run, key)
        if picture is None and draw is not None:
            picture = await self._draw(draw, key)
        if picture is not None:
            self._drawn.move_to_end(key)
            op.message = op.message.model_copy(update={"picture": picture})
            self._shown[key] = None
            self._shown.move_to_end(key)
            while len(self._shown) > SHOWN_KEPT:
                self._shown.popitem(last=False)

    async def _draw(self, draw: Callable[[], ui.Picture | None], key: str) -> ui.Picture | None:
        try:
            loop = asyncio.get_running_loop()
            picture = await loop.run_in_executor(self.drawer, draw)
        except Exception:  # the text board still goes
            log.exception("the board's picture %s could not be drawn", key)
            return None
        if picture is not None:
            self._drawn[key] = picture
            while len(self._drawn) > DRAWN_KEPT:
                self._drawn.popitem(last=False)
        return picture

    async def _op(self, run: _Run, refs: Refs, op: Op) -> None:
        with calling(_call(run.out, op)):
            await self._made(run, refs, op)

    async def _made(self, run: _Run, refs: Refs, op: Op) -> None:
        answer = run.answer
        if isinstance(op, Reply):
            await self._reply(run, op)
        elif isinstance(op, Note):
            with contextlib.suppress(Closed):
                dm = self.platform.dm(op.user, self._bound(run, op.message))
                await self._try(run, "a note", dm)
        elif isinstance(op, Post):
            run.done.posted[op.id] = await self._send(
                run, self._place(run, op.place), op.message, op.surface, op.mention, op.ping
            )
        elif isinstance(op, StartThread):
            await self._thread(run, refs, op)
        elif isinstance(op, Update | Edit):
            shown = self._real(run, op.shown)
            if shown is None:
                return
            if isinstance(op, Update) and answer is not None:
                if await self._try(
                    run, "the pressed message", self._update(run, answer, op.message)
                ):
                    run.answered = True
                    return
                if op.slot.startswith("pressed:"):
                    return  # a private message the table does not keep: nothing to edit
                if run.context.mode is Mode.STALE:
                    # A stale press on a message that could not be brought up to date (gone,
                    # or its answer spent): the press is answered privately; the surface is
                    # the next change's to show, not this press's to post again.
                    run.done.failed_edits.append((op.slot, shown.id))
                    forget(refs, run.done)
                    return
            await self._edit(run, refs, op.slot, shown, op.message, op.surface)
        elif isinstance(op, Delete):
            if op.after is not None and run.done.posted.get(op.after) is None:
                put(refs, op.slot, op.shown)  # the new one could not be posted: the old stays
                return
            shown = self._real(run, op.shown)
            if shown is not None:
                await self._try(run, "the old message", self.platform.delete(shown))
        elif isinstance(op, Dm):
            await self._dm(run, refs, op)

    def _place(self, run: _Run, place: Place) -> Place:
        """``place`` with this delivery's thread reservation resolved (no thread: the channel);
        a thread another delivery is still starting is not there yet: the channel too."""
        if place.thread is not None and place.thread in run.done.threads:
            return Place(channel=place.channel, thread=run.done.threads[place.thread])
        if place.thread is not None and place.thread.startswith(PENDING):
            log.warning("the thread of %s is not there yet; posting in the channel", place.channel)
            return Place(channel=place.channel)
        return place

    def _real(self, run: _Run, shown: Shown) -> Shown | None:
        """The message behind one of this delivery's reservations (None if it could not be
        posted), or ``shown`` itself."""
        if shown.id in run.done.posted:
            return run.done.posted[shown.id]
        return shown

    async def _reply(self, run: _Run, op: Reply) -> None:
        answer, out = run.answer, run.out
        if answer is None:
            with contextlib.suppress(Closed):
                dm = self.platform.dm(op.user, self._bound(run, op.message))
                await self._try(run, "a reply", dm)
            return
        if op.in_place and await self._try(
            run, "the pressed message", self._update(run, answer, op.message)
        ):
            run.answered = True
            return
        reply = answer.reply(self._bound(run, op.message), out.channel)
        sent = await self._try(run, "a reply", reply)
        run.answered = run.answered or bool(sent)

    async def _thread(self, run: _Run, refs: Refs, op: StartThread) -> None:
        card = self._real(run, op.card)
        thread = None
        if card is not None:
            thread = await self._try(
                run, "the thread", self.platform.start_thread(run.out.channel, card, op.name)
            )
        run.done.threads[op.id] = thread
        if thread is None:
            refs.threads_off = True
            note = ui.Message(text=NO_THREAD)
            await self._send(run, Place(channel=run.out.channel), note, "note")

    async def _dm(self, run: _Run, refs: Refs, op: Dm) -> None:
        out = run.out
        try:
            bound = self._bound(run, op.message)
            shown = await self.platform.dm(op.user, bound)
        except Closed:
            run.done.posted[op.id] = None
            if not op.slot.startswith("panel:"):
                return  # a note to someone whose DMs are closed: the game's place says enough
            refs.closed.append(op.user)
            await self._closed_panel(run, refs, op.user, op.message)
            return
        except Exception as error:
            log.warning("the %s of %s in %s failed: %s", op.slot, op.user, out.channel, error)
            run.done.posted[op.id] = None
            return
        shown.digest = digest_of(op.message)
        run.done.posted[op.id] = shown

    async def _closed_panel(self, run: _Run, refs: Refs, user: str, panel: ui.Message) -> None:
        """DMs closed: the requester sees their panel privately where they are (and how to
        open DMs, once); anyone else is told in the game's place, named but not pinged."""
        answer = run.answer
        if answer is not None and user == answer.user:
            reply = answer.reply(self._bound(run, panel), run.out.channel)
            sent = await self._try(run, "a panel", reply)
            run.answered = run.answered or bool(sent)
            hint = self.platform.closed_hint.format(game=run.game)
            if hint and user not in refs.hinted:
                refs.hinted.append(user)
                await self._try(
                    run,
                    "the DM hint",
                    answer.reply(ui.Message(text=hint), run.out.channel),
                )
            return
        place = self._place(run, refs.place(run.out.channel))
        note = closed_note(run.game)
        posted = await self._send(run, place, note, "note", [user], ping=False)
        board = refs.board
        if (
            posted is not None
            and board is not None
            and (not board.reserved or board.id in run.done.posted)
        ):
            refs.below.append(posted.id)  # (a board this delivery has yet to post comes after it)

    async def _edit(
        self, run: _Run, refs: Refs, slot: str, shown: Shown, message: ui.Message, surface: str
    ) -> None:
        """Edit ``shown``; when it is gone, the surface kept there is posted anew."""
        bound = self._bound(run, message, shown.where)
        try:
            await self.platform.edit(shown, bound, surface)
            return
        except Deferred as later:
            # No room in the platform's budget now: the surface shows its newest state once
            # there is (a newer delivery's, if one comes first).
            run.done.later.append(Later(slot, shown.id, message, later.wait))
            return
        except Stuck:
            log.info(
                "the %s of %s can no longer be edited: posting it anew", surface, run.out.channel
            )
            stuck: Shown | None = shown
        except Gone:
            log.info("the %s of %s is gone", surface, run.out.channel)
            stuck = None
        except Exception as error:
            # Still there (a rate limit outlasted the retries, a hiccup): a second copy would be
            # worse than a late one. Its digest is forgotten, so the next delivery edits it to
            # what is current then, even if that is what this edit tried to show.
            log.warning("editing the %s in %s failed: %s", surface, run.out.channel, error)
            run.done.failed_edits.append((slot, shown.id))
            forget(refs, run.done)
            return
        if slot in ("card", "board", "prompt") or slot.startswith("panel:"):
            # Posted anew once the refs say so (another delivery may find it gone too).
            run.done.gone.append(Missing(slot, shown.id, message, surface, stuck=stuck))

    async def _send(
        self,
        run: _Run,
        place: Place,
        message: ui.Message,
        surface: str,
        mention: list[str] | None = None,
        ping: bool = True,
    ) -> Shown | None:
        """A post, within the place's post limit (the budget waits for room)."""
        where = self._paced(place)
        if run.answer is not None and not run.answered and self._room(where) <= 0:
            # The post must wait for the place's limit: tell the platform the request arrived
            # first (Discord wants an answer within 3 s), so the player is not kept waiting.
            await self._try(run, "the acknowledgement", run.answer.acknowledge())
        bound = self._bound(run, message, self._conversation(place))
        send = self.platform.post(place, bound, surface, mention, ping)
        posted = await self._try(run, f"the {surface}", send)
        if posted is not None:
            posted.digest = digest_of(message)
        return posted

    def _bound(self, run: _Run, message: ui.Message, where: str | None = None) -> ui.Message:
        """``message`` with its controls bound to their ids (:func:`~bot.commands.codec.bind`)
        for conversation ``where``; they name the game's channel unless ``where`` is that
        channel itself (None: a DM, or a private reply, which a platform may show in a DM)."""
        channel = run.out.channel
        away = None if where == channel else channel
        return codec.bind(message, run.game, away, self.platform.id_limit)

    def _conversation(self, place: Place) -> str:
        """The conversation a post in ``place`` lands in."""
        if place.thread is not None and self.platform.threads_are_conversations:
            return place.thread
        return place.channel

    def _update(self, run: _Run, answer: Answer, message: ui.Message) -> Awaitable[bool]:
        """The pressed message replaced by ``message``, bound for where it is."""
        where = answer.pressed[0] if answer.pressed is not None else None
        return answer.update(self._bound(run, message, where))

    def _paced(self, place: Place) -> str:
        """What a post in ``place`` counts against for the platform's post limit."""
        if self.platform.threads_share_limit:
            return place.channel
        return place.thread or place.channel

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

    # --- what the delivery learned -----------------------------------------------------------

    def _swap(self, run: _Run, refs: Refs) -> None:
        """The refs with this delivery's reservations replaced by what it posted."""
        replace(refs, run.done)

    async def _settle(self, key: GameKey, run: _Run, planned: Plan) -> None:
        """Write what the delivery learned (:func:`~bot.table.plan.settle` decides it) with a
        compare-and-set; when another delivery wrote meanwhile, settle into the newer refs
        instead. Then make what the settling asks (edits to what a newer delivery wants,
        doubles deleted, deleted surfaces posted anew under the reservations just written)
        and settle what those did, until nothing is left."""
        refs = planned.refs
        if refs.rev >= 0 and run.done.settled:
            return  # edits only, all made: the refs written before them say it all
        merging = refs.rev < 0
        if merging:
            refs = await self._read(key, run.out)
        for _ in range(MAX_SETTLES):
            settled = settle(refs, run.done, self._context(run), run.out.channel, merging)
            rev = await self._write(key, settled.refs, refs.rev, run.context)
            if rev is None:
                refs, merging = await self._read(key, run.out), True
                continue
            refs, merging = settled.refs, False
            refs.rev = rev
            for gone in run.done.gone:
                if gone.slot in settled.ended:
                    gone.done = True
                gone.claimed = settled.claims.get(gone.slot, gone.claimed)
            before = (len(run.done.posted), len(run.done.failed_edits), len(run.done.later))
            for op in settled.ops:
                if isinstance(op, Delete) and op.after is None and op.slot:
                    run.done.doubles.update(
                        p for p, posted in run.done.posted.items() if posted == op.shown
                    )
                if isinstance(op, Post | Dm):
                    run.done.slots[op.id] = op.slot
                await self._op(run, refs, op)
            for gone in run.done.gone:
                if gone.claimed is not None and gone.claimed in run.done.posted:
                    gone.done = True
            after = (len(run.done.posted), len(run.done.failed_edits), len(run.done.later))
            if after == before:
                return
        log.warning("could not write what was shown in %s after %d tries", key, MAX_SETTLES)


def _drawing(run: _Run, key: str) -> Callable[[], ui.Picture | None] | None:
    """What draws the picture ``key`` that a message of ``out`` shows: the board's, or the
    final card's chart."""
    out = run.out
    if out.board is not None and out.board.picture_key == key:
        return run.context.draw
    if out.card is not None and out.card.picture_key == key:
        return run.context.draw_chart
    return None


def _priority(out: Changes, slot: str, surface: str) -> Priority:
    """Who goes first when the budget is short (see :class:`~bot.table.budget.Priority`)."""
    kind, _, user = slot.partition(":")
    if kind in ("panel", "pressed"):
        return Priority.WAITED if user in out.waiting else Priority.PANEL
    if kind == "note" or surface == "note":
        return Priority.PANEL
    if surface in ("log", "post"):
        return Priority.LOG
    return Priority.BOARD


def _call(out: Changes, op: Op) -> Call:
    """What ``op``'s platform calls are for the budget: an edit of a surface the table keeps
    may be deferred (it shows its newest state later), anything else waits for room."""
    if isinstance(op, Reply):
        return Call(Priority.ANSWER, surface="reply")
    if isinstance(op, Note):
        return Call(Priority.PANEL, surface="note")
    if isinstance(op, StartThread):
        return Call(Priority.BOARD, surface="thread")
    slot = op.slot
    surface = "" if isinstance(op, Delete | Dm) else op.surface
    kept = slot in ("card", "board", "prompt") or slot.startswith(("panel:", "note:"))
    deferrable = isinstance(op, Edit | Update) and kept
    return Call(_priority(out, slot, surface), deferrable=deferrable, surface=slot or surface)


def _wanted_shown(refs: Refs) -> list[Shown]:
    """The messages of the surfaces that want a newer message shown."""
    return [shown for slot in refs.wanted if (shown := slot_shown(refs, slot)) is not None]


def _own_changes(platform: str, channel: str, refs: Refs | None = None) -> Changes:
    """What the table's own deliveries (deferred edits) know of the game: its channel, its
    table (the game's name and first version) and whom it waits for."""
    table = refs.table if refs is not None else ""
    return Changes(
        platform=platform,
        channel=channel,
        game=table.partition(":")[0],
        table=table,
        waiting=refs.waiting if refs is not None else [],
    )


def _changed(before: Refs, after: Refs) -> bool:
    return before.model_dump_json() != after.model_dump_json()
