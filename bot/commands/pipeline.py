"""The transaction pipeline: the one place where a channel's game is saved.

:meth:`Pipeline.transact` runs a :data:`~bot.commands.step.Step`:

1. de-duplicate the platform delivery and load the channel's record (one round trip);
2. run the step (pure; a Refusal or an IllegalAction becomes a private sentence);
3. save with compare-and-set on the record's version, logging the applied actions; on a conflict
   reload and try again, so two workers or two players clicking at once never both win;
4. arm the game's deadline in the same round trip as the save (so no applied move can lose it),
   and update the user index when it changed;
5. return the Outbox the step filled, for the adapter to deliver.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
from collections.abc import Callable

from pydantic import BaseModel

from bot import metrics
from bot.commands import damaged, finalcard, forget, results, teams, upkeep
from bot.commands.actionlog import line
from bot.commands.damaged import DamagedRecord, read_record
from bot.commands.grammar import CommandError
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.commands.step import Change, Refusal, Request, Reschedule, Step, outbox_for
from bot.settings import Settings
from core import bots as levels
from core import ui
from core.engine import GameLike, IllegalAction
from storage import (
    GameKey,
    GameStore,
    History,
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
        key = GameKey(req.platform, req.channel)
        dedupe = f"{req.platform}:{req.delivery}" if req.delivery else None
        told: list[ui.Message] = []  # a damaged game set aside: the channel is told, once
        for _attempt in range(MAX_ATTEMPTS):
            out = outbox_for(req, game)
            out.pictures = self.settings.pictures
            out.announcements = told
            try:
                fresh, loaded, refs = await self.store.load_table(key, dedupe=dedupe)
            except StorageUnavailable as outage:
                return self._unavailable(req, game, str(outage), told)
            if not fresh:
                out.duplicate = True
                metrics.outcome(req.platform, "duplicate")
                return out
            out.refs_seen = refs or (0, "")  # (none stored yet)
            try:
                record = read_record(loaded.data) if loaded else None
                if record is not None:
                    out.game = out.game or record.game
                    out.table = _table(record)
                # Steps edit the record they are given: note what _after_save compares first.
                was_finished = record is not None and record.status == "finished"
                was = (record.status, set(record.humans)) if record is not None else None
                due_was = record.next_due if record is not None else None
                data = loaded.data if loaded else None
                change, out = await self._step(step, record, out, data, bool(req.user))
            except DamagedRecord as damage:
                assert loaded is not None  # only a stored record can be damaged
                try:
                    if await self._set_aside(key, loaded.version, str(damage)):
                        told = [damaged.notice(game.name if game else None)]
                except StorageUnavailable as outage:
                    return self._unavailable(req, game, str(outage))
                continue  # the channel now holds the tombstone: run the step on it
            except (Refusal, IllegalAction, CommandError, teams.TeamError) as refusal:
                metrics.refusal(req.platform, refusal)
                refused = outbox_for(req, game)
                refused.announcements = told
                in_place = isinstance(refusal, Refusal) and refusal.in_place
                shown = refusal.shown if isinstance(refusal, Refusal) else None
                refused.reply(req.user, str(refusal), in_place=in_place, heal=shown)
                return await self._answered(key, dedupe, refused)
            except Reschedule as again:
                await self._release(key, lease, again.due)
                metrics.outcome(req.platform, "unchanged")
                return out
            if change is None:
                metrics.outcome(req.platform, "stale" if out.stale_press else "unchanged")
                live = record is not None and record.status == "playing"
                due_now = record.next_due if live and record else None
                if lease is not None and record is not None and record.status == "finished":
                    due_now = await self._record_pending(key)
                await self._release(key, lease, due_now)
                return await self._answered(key, dedupe, out)
            out.table = _table(change.record)
            if change.record.status == "finished" and not was_finished:
                # A game that ends, however it ends, leaves its players' "games I sit in" lists.
                change.left = sorted(set(change.left) | set(change.record.humans))
            change.record.updated_at = self.clock()
            if req.user:  # a person, not the game clock
                change.record.acted_at = change.record.updated_at
            data = change.record.model_dump_json()
            version = (loaded.version if loaded else 0) + 1
            due = change.record.next_due if change.record.status == "playing" else None
            ending = None
            if change.record.status == "finished" and not was_finished:
                ending = results.final_result(key, change.record, change.record.updated_at)
                if ending is not None:  # a reminder, in case this worker dies before recording
                    due = change.record.updated_at + results.REMINDER_S
            if lease is not None:
                # A fired deadline's save: the game is claimed again once a lease has passed,
                # and that claim brings the game as it is to its table, in case this worker
                # dies before delivering (moves.repair); the real deadline is set then.
                check = self.clock() + self.settings.deadline_lease_seconds
                due = check if due is None else min(due, check)
            try:
                result = await self.store.save(
                    key,
                    data,
                    expected=loaded.version if loaded else None,
                    version=version,
                    log=line(change.log) if change.log else None,
                    ttl_s=self._ttl(change.record),
                    due=due,
                    lease=lease,
                    dedupe=dedupe,
                    dedupe_ttl_s=self.settings.dedupe_ttl_seconds,
                    fresh_log=change.fresh_log,
                    # The save that ends the game keeps its log packed from then on.
                    final=change.record.status == "finished" and not was_finished,
                    result=ending,
                    # Packed once it is kept for the retention; a game in play is read back
                    # at the next move, and compressing every save costs more than it saves.
                    pack=change.record.status != "playing",
                )
            except (StorageBusy, StorageFull, StorageRefused) as refused_by_redis:
                # No connection was free, or Redis refused the script: nothing was written.
                return self._unavailable(req, game, str(refused_by_redis))
            except StorageUnavailable:
                # The save may have run before Redis stopped answering: find out, and say so.
                applied = await self._confirm(key, version, data)
                if applied is None:
                    return self._unavailable(req, game, UNCERTAIN.format(game=out.game or "game"))
                if not applied:
                    return self._unavailable(req, game, UNAVAILABLE)
                result = SaveResult.WRITTEN
            if result is not SaveResult.WRITTEN:
                mine = await self._confirm(key, version, data)
                if mine is None:
                    sentence = UNCERTAIN if result is SaveResult.DUPLICATE else UNAVAILABLE
                    return self._unavailable(req, game, sentence.format(game=out.game or "game"))
                if not mine:
                    if result is SaveResult.DUPLICATE:  # another worker applied this delivery
                        metrics.outcome(req.platform, "duplicate")
                        return Outbox(platform=req.platform, channel=req.channel, duplicate=True)
                    continue
            self._count(req, change.record, was, due_was if lease is not None else None)
            await self._after_save(key, change)
            _homes(out, was, change.record)
            charted = game is not None and out.card is not None and out.ended and not was_finished
            history = None
            if ending is not None or (
                charted and self.settings.pictures and change.record.pictures
            ):
                # The ended game's log, read once for its result's replay and its chart.
                with contextlib.suppress(StorageUnavailable):
                    history = await self.store.read_history(key)
            if ending is not None:
                try:
                    await self.recorder.publish(key, ending, history)
                except StorageUnavailable as error:
                    results.publish_failed(key, error)
            if change.record.forgotten and change.record.status == "finished" and not was_finished:
                # People who asked to be forgotten while it held them: now that it is over.
                await self.forgetter.after_end(key.platform, list(change.record.forgotten))
            if charted and game is not None and history is not None:
                out.card = self._charted(game, change.record, out, history)
            return out
        out = outbox_for(req, game)
        out.reply(req.user, BUSY)
        metrics.outcome(req.platform, "busy")
        return out

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
        hours = (
            self.settings.finished_ttl_hours
            if record.status == "finished"
            else self.settings.game_ttl_hours
        )
        return max(1, int(hours * 3600))

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


def _homes(out: Outbox, was: tuple[str, set[str]] | None, record: GameRecord) -> None:
    """Who sees this save on their home page: everyone in the game before or after it, when
    its card changed (a lobby's seats), it began or ended (play adds whose turn changed)."""
    status, before = was if was is not None else ("", set())
    if out.card is not None or status != record.status or before != set(record.humans):
        out.homes = sorted({*out.homes, *before, *record.humans})
