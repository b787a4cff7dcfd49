"""The transaction pipeline: the one place where a channel's game is saved.

:meth:`Pipeline.transact` runs a :data:`~bot.commands.step.Step`, each attempt as its named
steps (:meth:`Pipeline._once`):

1. ``_load``: de-duplicate the platform delivery and load the channel's record (one round trip);
2. ``_decide``: run the step (pure; a Refusal or an IllegalAction becomes a private sentence, a
   damaged record is set aside and the step runs on its tombstone);
3. ``_prepare`` and ``_save``: save with compare-and-set on the record's version, logging the
   applied actions and arming the game's deadline in the same round trip (so no applied move
   can lose it); on a conflict the attempt starts again, so two workers or two players clicking
   at once never both win, and a save whose reply was lost is read back;
4. ``_recorded``: the user index, metrics and, for the save that ends a game, its result in the
   community (``_ended``);
5. the Outbox the step filled is returned, for the adapter to deliver.

A step that ends the transaction early raises ``_Done`` with its Outbox; a conflict raises
``_Again``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel

from bot import metrics
from bot.commands import damaged
from bot.commands.community import finalcard, forget, results, upkeep
from bot.commands.damaged import DamagedRecord, read_record
from bot.commands.game.actionlog import line
from bot.commands.grammar import CommandError
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.commands.seats import teams
from bot.commands.step import (
    Change,
    LoggedStep,
    Refusal,
    Request,
    Reschedule,
    Step,
    outbox_for,
)
from bot.settings import Settings
from core import bots as levels
from core import ui
from core.engine import GameLike, IllegalAction
from storage import (
    GameKey,
    GameStore,
    History,
    Loaded,
    SaveResult,
    StorageBusy,
    StorageFull,
    StorageRefused,
    StorageUnavailable,
)

__all__ = ["BUSY", "MAX_ATTEMPTS", "UNAVAILABLE", "UNCERTAIN", "Pipeline"]

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 8
UNAVAILABLE = "Storage is unavailable, try again shortly."
UNCERTAIN = (
    "Storage stopped answering while I saved that, so I can't tell yet whether it counted. "
    "`/{game} status` shows the game once storage is back; if your move isn't there, make it "
    "again."
)
BUSY = "The table was busy with other moves; please try again."
MAX_THINKS = 500
"""Strong bot searches one step may ask of the process pool (a game of bots to its end)."""


def _table(record: GameRecord) -> str:
    return f"{record.game}:{record.first_version}"


class _Again(Exception):
    """The attempt met a conflict (or set a damaged record aside): try again."""


class _Done(Exception):
    """The transaction ends early with ``out`` (a refusal, a duplicate, storage gone)."""

    def __init__(self, out: Outbox) -> None:
        super().__init__("done")
        self.out = out


@dataclass
class _Attempt:
    """One transaction: the request, its game and step, and what its attempts share."""

    req: Request
    game: GameLike | None
    step: Step
    lease: str | None
    told: list[ui.Message] = field(default_factory=list)
    """A damaged game set aside: the channel is told, once."""

    @property
    def key(self) -> GameKey:
        return GameKey(self.req.platform, self.req.channel)

    @property
    def dedupe(self) -> str | None:
        return f"{self.req.platform}:{self.req.delivery}" if self.req.delivery else None


@dataclass(frozen=True)
class _Before:
    """What the record was before the step edited it (compared after the save)."""

    record: GameRecord | None
    finished: bool
    was: tuple[str, set[str]] | None
    due: float | None

    @classmethod
    def of(cls, record: GameRecord | None) -> _Before:
        if record is None:
            return cls(None, False, None, None)
        was = (record.status, set(record.humans))
        return cls(record, record.status == "finished", was, record.next_due)


@dataclass(frozen=True)
class _Saving:
    """What one save writes."""

    data: str
    expected: int | None
    version: int
    due: float | None
    ending: bool
    """The save that ends the game."""
    result: str | None
    """The finished game's result to record (JSON), carried by the save that ends it."""
    log: str | None
    ttl_s: int
    fresh_log: bool
    playing: bool


class Pipeline:
    """Loads, steps and saves one channel's game at a time, against ``store``."""

    def __init__(self, store: GameStore, settings: Settings, clock: Callable[[], float]) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self.confirm_s = settings.redis_timeout_seconds
        """How long an ambiguous save is read back before the player hears it is uncertain: one
        Redis timeout, so a hung Redis costs a command two of them at most (the save's, then
        this one) and a brief one (a lost reply) is still read back."""
        self.recorder = results.Recorder(store, settings, clock)
        """Writes each finished game's result into its community's history, once."""
        self.forgetter = forget.Forgetter(store, settings, clock, self.recorder)
        """Erases a person who asked (``forget-me``), and at a game's end those it held."""
        self.upkeep = upkeep.Upkeep(store, clock, self.recorder, self.forgetter)
        """The chores the deadline loop does: the history's sweep, forget-me jobs."""
        self.thinker: concurrent.futures.Executor | None = None
        """Where strong bots search (the worker's process pool, :func:`bot.runtime.bind`);
        None: in line."""
        self.damaged: dict[GameKey, str] = {}
        """Channels whose record this worker found unreadable and set aside, and why (shown by
        health checks)."""

    async def transact(
        self,
        req: Request,
        game: GameLike | None,
        step: Step,
        lease: str | None = None,
    ) -> Outbox:
        """Load, step, save with compare-and-set (retrying on conflict), then the side effects.

        ``lease``: the deadline claim this transaction fires; it is ended by the save, or set to
        the game's real deadline when there was nothing to fire.
        """
        attempt = _Attempt(req, game, step, lease)
        for _ in range(MAX_ATTEMPTS):
            try:
                return await self._once(attempt)
            except _Again:
                continue
            except _Done as done:
                return done.out
        out = outbox_for(req, game)
        out.reply(req.user, BUSY)
        metrics.outcome(req.platform, "busy")
        return out

    async def _once(self, at: _Attempt) -> Outbox:
        """One attempt: load, decide, save, then what a save brings. A step that ends the
        transaction early raises :class:`_Done`; a conflict, :class:`_Again`."""
        out = outbox_for(at.req, at.game)
        out.pictures = self.settings.pictures
        out.announcements = at.told
        loaded = await self._load(at, out)
        before, change, out = await self._decide(at, out, loaded)
        if change is None:
            return await self._unchanged(at, out, before)
        saving = self._prepare(at, out, change, before, loaded)
        await self._save(at, out, saving)
        await self._recorded(at, out, change, before, saving)
        return out

    async def _load(self, at: _Attempt, out: Outbox) -> Loaded | None:
        """The channel's record, and what the table showed (into ``out``); a delivery seen
        before ends the transaction."""
        try:
            fresh, loaded, refs = await self.store.load_table(at.key, dedupe=at.dedupe)
        except StorageUnavailable as outage:
            raise _Done(self._unavailable(at.req, at.game, str(outage), at.told)) from None
        if not fresh:
            out.duplicate = True
            metrics.outcome(at.req.platform, "duplicate")
            raise _Done(out)
        out.refs_seen = refs or (0, "")  # (none stored yet)
        if isinstance(at.step, LoggedStep) and loaded is not None:
            # (A step that rebuilds the game from its log, taking a move back, reads it.)
            try:
                at.step.history = await self.store.read_history(at.key)
            except StorageUnavailable as outage:
                raise _Done(self._unavailable(at.req, at.game, str(outage), at.told)) from None
        return loaded

    async def _decide(
        self, at: _Attempt, out: Outbox, loaded: Loaded | None
    ) -> tuple[_Before, Change | None, Outbox]:
        """Run the step on the record: its change (None: nothing to save). A refusal answers
        the person; a damaged record is set aside and the step runs again on the tombstone."""
        try:
            record = read_record(loaded.data) if loaded else None
            if record is not None:
                out.game = out.game or record.game
                out.table = _table(record)
            # Steps edit the record they are given: note what is compared after the save first.
            before = _Before.of(record)
            data = loaded.data if loaded else None
            change, out = await self._step(at.step, record, out, data, bool(at.req.user))
            return before, change, out
        except DamagedRecord as damage:
            assert loaded is not None  # only a stored record can be damaged
            await self._damaged(at, loaded, damage)
            raise _Again from None  # the channel now holds the tombstone: run the step on it
        except (Refusal, IllegalAction, CommandError, teams.TeamError) as refusal:
            raise _Done(await self._refused(at, refusal)) from None
        except Reschedule as again:
            await self._release(at.key, at.lease, again.due)
            metrics.outcome(at.req.platform, "unchanged")
            raise _Done(out) from None

    async def _damaged(self, at: _Attempt, loaded: Loaded, damage: DamagedRecord) -> None:
        try:
            if await self._set_aside(at.key, loaded.version, str(damage)):
                at.told = [damaged.notice(at.game.name if at.game else None)]
        except StorageUnavailable as outage:
            raise _Done(self._unavailable(at.req, at.game, str(outage))) from None

    async def _refused(self, at: _Attempt, refusal: Exception) -> Outbox:
        """The person is told why, privately (in place of the pressed panel when asked)."""
        metrics.refusal(at.req.platform, refusal)
        refused = outbox_for(at.req, at.game)
        refused.announcements = at.told
        in_place = isinstance(refusal, Refusal) and refusal.in_place
        shown = refusal.shown if isinstance(refusal, Refusal) else None
        refused.reply(at.req.user, str(refusal), in_place=in_place, heal=shown)
        return await self._answered(at.key, at.dedupe, refused)

    async def _unchanged(self, at: _Attempt, out: Outbox, before: _Before) -> Outbox:
        """Nothing to save: the lease goes back to the game's real deadline (or, for a
        finished game's reminder, its result is recorded), and the answer is remembered."""
        metrics.outcome(at.req.platform, "stale" if out.stale_press else "unchanged")
        record = before.record  # (as the step left it)
        due_now = record.next_due if record is not None and record.status == "playing" else None
        if at.lease is not None and record is not None and record.status == "finished":
            due_now = await self._record_pending(at.key)
        await self._release(at.key, at.lease, due_now)
        return await self._answered(at.key, at.dedupe, out)

    def _prepare(
        self,
        at: _Attempt,
        out: Outbox,
        change: Change,
        before: _Before,
        loaded: Loaded | None,
    ) -> _Saving:
        """What the save writes: the record stamped, its version, its deadline (or the
        result's reminder, or the fired deadline's lease) and, for the save that ends the game,
        its result."""
        record = change.record
        out.table = _table(record)
        ending = record.status == "finished" and not before.finished
        if ending:
            # A game that ends, however it ends, leaves its players' "games I sit in" lists.
            change.left = sorted(set(change.left) | set(record.humans))
        record.updated_at = self.clock()
        if at.req.user:  # a person, not the game clock
            record.acted_at = record.updated_at
        result = results.final_result(at.key, record, record.updated_at) if ending else None
        expected = loaded.version if loaded else None
        return _Saving(
            data=record.model_dump_json(),
            expected=expected,
            version=(expected or 0) + 1,
            due=self._due(at, record, result),
            ending=ending,
            result=result,
            log=line(change.log) if change.log else None,
            ttl_s=self._ttl(record),
            fresh_log=change.fresh_log,
            playing=record.status == "playing",
        )

    def _due(self, at: _Attempt, record: GameRecord, result: str | None) -> float | None:
        """When the saved game is next due at its deadline set: its own deadline, the
        result's reminder, or the fired deadline's lease."""
        due = record.next_due if record.status == "playing" else None
        if result is not None:  # a reminder, in case this worker dies before recording
            due = record.updated_at + results.REMINDER_S
        if at.lease is not None:
            # A fired deadline's save: the game is claimed again once a lease has passed,
            # and that claim brings the game as it is to its table, in case this worker
            # dies before delivering (moves.repair); the real deadline is set then.
            check = self.clock() + self.settings.deadline_lease_seconds
            due = check if due is None else min(due, check)
        return due

    async def _save(self, at: _Attempt, out: Outbox, saving: _Saving) -> None:
        """Save with compare-and-set; a save this worker cannot tell was written is read back.
        A conflict tries again; storage that refused or is gone answers the person."""
        try:
            written = await self._write(at, saving)
        except (StorageBusy, StorageFull, StorageRefused) as refused_by_redis:
            # No connection was free, or Redis refused the script: nothing was written.
            raise _Done(self._unavailable(at.req, at.game, str(refused_by_redis))) from None
        except StorageUnavailable:
            # The save may have run before Redis stopped answering: find out, and say so.
            written = None
        if written is SaveResult.WRITTEN:
            return
        mine = await self._confirm(at.key, saving.version, saving.data)
        if mine is None:
            sentence = UNAVAILABLE if written is SaveResult.CONFLICT else UNCERTAIN
            game_name = out.game or "game"
            raise _Done(self._unavailable(at.req, at.game, sentence.format(game=game_name)))
        if mine:
            return
        if written is None:
            raise _Done(self._unavailable(at.req, at.game, UNAVAILABLE))
        if written is SaveResult.DUPLICATE:  # another worker applied this delivery
            metrics.outcome(at.req.platform, "duplicate")
            raise _Done(Outbox(platform=at.req.platform, channel=at.req.channel, duplicate=True))
        raise _Again

    async def _write(self, at: _Attempt, saving: _Saving) -> SaveResult:
        return await self.store.save(
            at.key,
            saving.data,
            expected=saving.expected,
            version=saving.version,
            log=saving.log,
            ttl_s=saving.ttl_s,
            due=saving.due,
            lease=at.lease,
            dedupe=at.dedupe,
            dedupe_ttl_s=self.settings.dedupe_ttl_seconds,
            fresh_log=saving.fresh_log,
            # The save that ends the game keeps its log packed from then on.
            final=saving.ending,
            result=saving.result,
            # Packed once it is kept for the retention; a game in play is read back at the
            # next move, and compressing every save costs more than it saves.
            pack=not saving.playing,
        )

    async def _recorded(
        self, at: _Attempt, out: Outbox, change: Change, before: _Before, saving: _Saving
    ) -> None:
        """What a save brings: metrics, the people's indexes and home pages and, for the save
        that ends a game, its result in the community, the erasures it waited for and the
        chart on its card."""
        record = change.record
        if record.status == "playing":
            out.kept_until = record.updated_at + saving.ttl_s
        self._count(at.req, record, before.was, before.due if at.lease is not None else None)
        await self._after_save(at.key, change)
        _homes(out, before.was, record)
        if not before.finished and (saving.ending or out.ended):
            await self._ended(at, out, record, saving)
        if record.forgotten and saving.ending:
            # People who asked to be forgotten while it held them: now that it is over.
            await self.forgetter.after_end(at.key.platform, list(record.forgotten))

    async def _ended(self, at: _Attempt, out: Outbox, record: GameRecord, saving: _Saving) -> None:
        """The save that ended the game: its result goes into the community, and its card gets
        the chart of the game's money."""
        charted = at.game is not None and out.card is not None and out.ended
        history = await self._history(at.key, saving, charted and bool(record.pictures))
        if saving.result is not None:
            try:
                await self.recorder.publish(at.key, saving.result, history)
            except StorageUnavailable as error:
                results.publish_failed(at.key, error)
        if charted and at.game is not None and history is not None:
            out.card = self._charted(at.game, record, out, history)

    async def _history(self, key: GameKey, saving: _Saving, charted: bool) -> History | None:
        """The ended game's log, read once for its result's replay and its chart."""
        if saving.result is None and not (charted and self.settings.pictures):
            return None
        with contextlib.suppress(StorageUnavailable):
            return await self.store.read_history(key)
        return None

    async def _step(
        self, step: Step, record: GameRecord | None, out: Outbox, data: str | None, person: bool
    ) -> tuple[Change | None, Outbox]:
        """Run ``step`` on ``record`` into ``out``. With a :attr:`thinker`, a strong bot's
        search is not made here, on the event loop: the step asks for it (``Think``), the
        search runs in the worker's process pool while other presses are answered, and the
        step runs again from the record as loaded, with the answers it has (it is pure: the
        same record, the same step). A person's step (``person``) does not wait for it at all:
        the bots stop at the strong bot's move and the deadline loop has it made at once, so
        the press is answered first. Without a thinker (the console, simulations), in line."""
        if isinstance(step, LoggedStep):
            # Rebuilding a game from its log to take a move back (up to about 50 ms): in a
            # thread, off the event loop that other channels share.
            return await asyncio.to_thread(step, record, out), out
        if self.thinker is None:
            return step(record, out), out
        answers: dict[str, BaseModel] = {}
        fresh = out.model_copy(deep=True)
        for _ in range(MAX_THINKS):
            with levels.elsewhere(answers, defer=person):
                try:
                    return step(record, out), out
                except levels.Think as think:
                    job = think
            loop = asyncio.get_running_loop()
            choice, cpu_s = await loop.run_in_executor(self.thinker, job.job())
            metrics.bot_thought(cpu_s)
            answers[job.key] = choice
            # Steps edit the record and the Outbox they are given: again from the loaded ones.
            record = read_record(data) if data is not None else None
            out = fresh.model_copy(deep=True)
        log.error("a step asked for more than %s strong searches; searching here", MAX_THINKS)
        return step(read_record(data) if data is not None else None, out), out

    def _count(
        self,
        req: Request,
        record: GameRecord,
        was: tuple[str, set[str]] | None,
        fired_due: float | None,
    ) -> None:
        """The metrics of a save: a move applied, a game entering a state, a deadline's
        lateness (``fired_due``: the deadline a fired Timeout was due at)."""
        metrics.outcome(req.platform, "applied")
        if record.game and (was is None or was[0] != record.status):
            metrics.game_state(req.platform, record.game, record.status)
        if fired_due is not None:
            metrics.deadline_late(req.platform, self.clock() - fired_due)

    async def _record_pending(self, key: GameKey) -> float | None:
        """A finished game's reminder fired: record the result its final save left, if its
        worker could not; when that fails too, the reminder is set again."""
        try:
            await self.recorder.publish_pending(key)
        except StorageUnavailable as error:
            results.publish_failed(key, error)
            return self.clock() + results.REMINDER_S
        return None

    async def _set_aside(self, key: GameKey, version: int, why: str) -> bool:
        """Set aside the unreadable record of ``key`` (stored at ``version``) for the operator,
        leaving the tombstone that frees the channel; False when another worker did first."""
        now = self.clock()
        keep = max(1, int(self.settings.finished_ttl_hours * 3600))
        grave = damaged.tombstone(now).model_dump_json()
        moved = await self.store.quarantine(key, version, grave, keep, keep)
        if moved:
            self.damaged[key] = why
            log.error(
                "the game record of %s could not be read (%s); it is kept for %d s under its "
                "damaged:record key and the channel is free",
                key,
                why,
                keep,
            )
        return moved

    def _unavailable(
        self,
        req: Request,
        game: GameLike | None,
        sentence: str,
        told: list[ui.Message] | None = None,
    ) -> Outbox:
        metrics.outcome(req.platform, "unavailable")
        out = outbox_for(req, game)
        out.announcements = told or []
        out.unavailable = True
        if req.user:
            out.reply(req.user, sentence)
        return out

    async def _answered(self, key: GameKey, dedupe: str | None, out: Outbox) -> Outbox:
        """``out`` answers its delivery without a save: record that, so a retry is silent."""
        if dedupe is None:
            return out
        try:
            first = await self.store.mark_handled(key, dedupe, self.settings.dedupe_ttl_seconds)
        except StorageUnavailable:
            return out  # answering twice on a retry beats not answering
        if not first:
            return Outbox(platform=out.platform, channel=out.channel, duplicate=True)
        return out

    async def _release(self, key: GameKey, lease: str | None, due: float | None) -> None:
        if lease is not None:
            await self.store.release(key, lease, due)

    async def _already_saved(self, key: GameKey, version: int, data: str) -> bool:
        """After a lost reply, redis-py retries the save, which then sees its own write as a
        conflict; recognise that case instead of applying the action a second time."""
        _, stored = await self.store.load(key)
        return stored is not None and stored.version == version and stored.data == data

    async def _confirm(self, key: GameKey, version: int, data: str) -> bool | None:
        """Whether our save of ``version`` is stored, read back once Redis answers again;
        None when it does not answer within ``confirm_s`` (the player is waiting)."""
        try:
            async with asyncio.timeout(self.confirm_s):
                while True:
                    try:
                        return await self._already_saved(key, version, data)
                    except StorageUnavailable:
                        await asyncio.sleep(0.1)
        except TimeoutError:
            return None

    def _ttl(self, record: GameRecord) -> int:
        """How long the record is kept after this save (:func:`kept_for`)."""
        return kept_for(record, self.settings, self.clock())

    def _charted(
        self, game: GameLike, record: GameRecord, out: Outbox, history: History
    ) -> ui.Message | None:
        """The final card with the chart of the game's money, rebuilt from its log (read once,
        after the save that ended it), for the table to draw (:func:`finalcard.chart_of`, in
        the process a worker draws its pictures in); the card alone when pictures are off."""
        card = out.card
        if card is None or not (self.settings.pictures and record.pictures) or not record.seats:
            return card  # pictures off (for the deployment, or at this game's start)
        out.draw_chart = functools.partial(
            finalcard.chart_of,
            game.name,
            record.model_dump_json(),
            history.snapshot,
            list(history.lines),
        )
        return finalcard.with_chart(card, history)

    async def _after_save(self, key: GameKey, change: Change) -> None:
        # The deadline was armed with the save itself; what is left are the user indexes.
        ttl = int(self.settings.game_ttl_hours * 3600)
        try:
            for user in change.joined:
                await self.store.index_user(key.platform, user, key, True, ttl)
            for user in change.left:
                await self.store.index_user(key.platform, user, key, False, ttl)
        except StorageUnavailable:
            # The move stands; `hands` drops games that are over from a stale list.
            log.warning("could not update the player index of %s", key)


DAY_S = 86_400


def kept_for(record: GameRecord, settings: Settings, now: float) -> int:
    """Seconds a record is kept after a save: a finished game ``BOARDROOM_FINISHED_TTL_HOURS``;
    a paused one until ``BOARDROOM_PAUSED_TTL_DAYS`` after it was paused; one in play
    ``BOARDROOM_GAME_TTL_HOURS``, but at least until its open deadline and a day more, so a
    game of week-long turns outlives the idle limit while it waits on a move."""
    if record.status == "finished":
        return max(1, int(settings.finished_ttl_hours * 3600))
    if record.paused is not None:
        return max(1, int(record.paused.until - now))
    seconds = settings.game_ttl_hours * 3600
    due = [d for d in (record.deadline_due, record.clock_due) if d is not None]
    if record.status == "playing" and due:
        seconds = max(seconds, max(due) - now + DAY_S)
    return max(1, int(seconds))


def _homes(out: Outbox, was: tuple[str, set[str]] | None, record: GameRecord) -> None:
    """Who sees this save on their home page: everyone in the game before or after it, when
    its card changed (a lobby's seats), it began or ended (play adds whose turn changed)."""
    status, before = was if was is not None else ("", set())
    if out.card is not None or status != record.status or before != set(record.humans):
        out.homes = sorted({*out.homes, *before, *record.humans})
