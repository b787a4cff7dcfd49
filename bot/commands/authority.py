"""The authority: the one place that changes a game, whatever the platform.

Every command and button press goes through :meth:`Authority._transact`:

1. de-duplicate the platform delivery and load the channel's record (one round trip);
2. authorize and apply in core (pure; an IllegalAction becomes a private sentence);
3. save with compare-and-set on the record's version, logging the applied actions; on a conflict
   reload and try again, so two workers or two players clicking at once never both win;
4. arm the game's deadline in the same round trip as the save (so no applied move can lose it),
   and update the user index when it changed;
5. return an :class:`Outbox` for the adapter to deliver.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, field_validator

from bot.commands import codec, teams
from bot.commands.actionlog import line
from bot.commands.grammar import CommandError, parse, parse_options, usage
from bot.commands.outbox import Form, Outbox
from bot.commands.play import (
    Advance,
    advance,
    load_state,
    publish,
    run_bots,
    start_state,
)
from bot.commands.record import GameRecord, Member, SeatInfo
from bot.settings import Settings
from core import text as markup
from core import ui
from core.engine import SYSTEM, Game, GameState, IllegalAction, Timeout
from core.registry import all_games, get_game
from storage import (
    GameKey,
    GameStore,
    SaveResult,
    StorageFull,
    StorageRefused,
    StorageUnavailable,
)

__all__ = ["Authority", "Refusal", "Request"]

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 8
BOT_NAMES = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Ken", "Margaret", "Dennis"]
UNAVAILABLE = "Storage is unavailable, try again shortly."
UNCERTAIN = (
    "Storage stopped answering while I saved that, so I can't tell yet whether it counted. "
    "`/{game} status` shows the game once storage is back; if your move isn't there, make it "
    "again."
)
CONFIRM_S = 3.0
"""How long an ambiguous save failure is read back before the player is told it is uncertain."""
PARK_AFTER = 5
"""Failures in a row after which a game's deadline is parked (retried only every PARK_S)."""
PARK_S = 600.0
STALE = "That button is from an earlier moment of the game, so I ignored it."
BUSY = "The table was busy with other moves; please try again."
UNKNOWN_BUTTON = "That button is not one I recognise; it may be from an old bot."


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

    @field_validator("name")
    @classmethod
    def _as_markup(cls, name: str) -> str:
        return markup.escape(name)


def _table(record: GameRecord) -> str:
    return f"{record.game}:{record.first_version}"


class Refusal(Exception):
    """A command the authority will not carry out; ``str()`` is a sentence for the requester."""


@dataclass
class _Change:
    """What a step wants saved, and the side effects to perform once the save has won."""

    record: GameRecord
    log: list[list[Any]] = field(default_factory=list)
    joined: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


class _Reschedule(Exception):
    def __init__(self, due: float | None) -> None:
        self.due = due


_Step = Callable[[GameRecord | None, Outbox], _Change | None]


class Authority:
    """Turns commands and presses into state changes and Outboxes."""

    def __init__(
        self,
        store: GameStore,
        settings: Settings | None = None,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], int] = lambda: secrets.randbits(63),
    ) -> None:
        self.store = store
        self.settings = settings or Settings()
        self.clock = clock
        self.new_seed = new_seed
        """Where each game's secret seed comes from (simulations pass a seeded generator)."""
        self._failures: dict[GameKey, int] = {}
        """Deadline firings that raised, in a row, by game (backoff, then parking)."""
        self.parked: dict[GameKey, str] = {}
        """Games whose deadline keeps failing, and why (shown by health checks and logs)."""
        self._token = f"{secrets.token_hex(6)}:"
        self.confirm_s = CONFIRM_S
        """How long an ambiguous save is read back before the player hears it is uncertain."""
        self._adopted: set[str] = set()
        """Platforms whose deadlines from before leases were moved (once per process)."""
        self._claims = 0

    # --- entry points ----------------------------------------------------------------------

    async def command(self, req: Request, game_name: str, text: str) -> Outbox:
        """Handle ``/<game_name> <text>``."""
        text = markup.valid(text)  # typed text may hold anything, a lone surrogate included
        game = get_game(game_name)
        if game is None:
            names = ", ".join(f"/{g.name}" for g in all_games())
            out = self._outbox(req)
            out.reply(req.user, f"There is no game called `{game_name}`. Try {names}.")
            return out
        parsed = parse(text)
        word, rest = parsed.word, parsed.rest
        readers = {
            "help": self._help,
            "rules": self._rules,
            "status": self._status,
            "hand": self._hand,
        }
        writers: dict[str, Callable[[Request, Game[Any, Any], str], _Step]] = {
            "start": self._start,
            "join": self._join,
            "leave": self._leave,
            "addbot": self._addbot,
            "begin": self._begin,
            "end": self._end,
        }
        if game.teams:
            writers |= {"rename": self._rename, "move": self._move, "remove": self._remove}
        out = self._outbox(req, game)
        try:
            if word in readers:
                # De-duplicated too: a platform's retry of `status` is answered once.
                return await self._transact(req, game, readers[word](req, game, rest))
            if word in writers:
                return await self._transact(req, game, writers[word](req, game, rest))
        except (CommandError, teams.TeamError) as error:  # unreadable arguments, before loading
            out.reply(req.user, str(error))
            return out
        if word in game.text_commands:
            return await self._transact(req, game, self._text_action(req, game, word, rest))
        shown = markup.escape(word)
        out.reply(req.user, f"I don't know “{shown}” in /{game.name}.\n{self._usage(game)}")
        return out

    async def press(self, req: Request, custom_id: str, values: list[str] | None = None) -> Outbox:
        """Handle a button or select press."""
        values = [markup.valid(value) for value in values] if values is not None else None
        press = codec.decode(markup.valid(custom_id), values)
        game = get_game(press.game) if press is not None else None
        if press is None or game is None:
            out = self._outbox(req)
            out.reply(req.user, UNKNOWN_BUTTON)
            return out
        if press.channel is not None and press.channel != req.channel:
            # A button in a DM acts on the game of the channel it came from.
            req = req.model_copy(update={"channel": press.channel})
        if press.command is not None and press.ask:
            out = self._outbox(req, game)
            word = press.command.split()[0] if press.command.split() else ""
            ask = game.forms.get(word)
            if ask is None:
                out.reply(req.user, UNKNOWN_BUTTON)
            else:
                # Nothing is applied yet: the answer comes back as a typed command and is
                # checked like one (seat, turn, amount).
                out.form = Form(game=game.name, channel=req.channel, command=word, ask=ask)
            return out
        if press.command is not None:
            return await self.command(req, game.name, press.command)
        return await self._transact(req, game, self._press_step(req, game, press))

    async def hands(self, req: Request) -> list[Outbox]:
        """Every game the user sits in on this platform, with their private panel in each.

        For "DM hand management": ``/hand`` in a DM answers with one Outbox per game, each for
        that game's channel, so the buttons act on the right game.
        """
        outboxes = []
        try:
            keys = await self.store.games_of(req.platform, req.user)
        except StorageUnavailable:
            out = self._outbox(req)
            out.unavailable = True
            out.reply(req.user, UNAVAILABLE)
            return [out]
        for key in keys:
            try:
                _, loaded = await self.store.load(key)
            except StorageUnavailable:
                continue
            record = GameRecord.model_validate_json(loaded.data) if loaded else None
            if record is None or record.status == "finished" or record.seat_of(req.user) is None:
                # Over, expired or left: a stale entry (e.g. an index update lost in an outage).
                with contextlib.suppress(StorageUnavailable):
                    ttl = int(self.settings.game_ttl_hours * 3600)
                    await self.store.index_user(req.platform, req.user, key, False, ttl)
                continue
            there = req.model_copy(update={"channel": key.channel, "delivery": None})
            out = await self.command(there, record.game, "hand")
            if out.deliveries:
                outboxes.append(out)
        if not outboxes:
            out = self._outbox(req)
            out.reply(req.user, "You are not seated in any game right now.")
            outboxes.append(out)
        return outboxes

    async def seat_names(self, platform: str, channel: str) -> list[str]:
        """The seats (teams) of the channel's open or running game, for autocomplete."""
        try:
            _, loaded = await self.store.load(GameKey(platform, channel))
        except StorageUnavailable:
            return []
        record = GameRecord.model_validate_json(loaded.data) if loaded else None
        if record is None or record.status == "finished":
            return []
        return [seat.name for seat in record.seats]

    async def fire_due(self, platform: str) -> list[Outbox]:
        """Apply a Timeout to every game of ``platform`` whose deadline has passed.

        Any worker of that platform may run this; the store leases each due deadline to one of
        them until its Timeout is saved, so a worker that dies mid-way leaves it to the others.
        Each game is fired on its own: one that raises is logged with its key and retried with
        backoff (parked after :data:`PARK_AFTER` failures in a row) while the others run on.
        Raises StorageUnavailable when the deadlines cannot be claimed at all.
        """
        if platform not in self._adopted:
            moved = await self.store.adopt_legacy_deadlines(platform)
            self._adopted.add(platform)
            if moved:
                log.warning("moved %d deadlines of %s from before leases", moved, platform)
        now = self.clock()
        self._claims += 1
        token = f"{self._token}{self._claims}"
        lease = self.settings.deadline_lease_seconds
        due = await self.store.claim_due(platform, now, lease, token)
        outboxes = []
        for key in due:
            try:
                out = await self._fire(key, now, token)
            except Exception as error:  # one bad game must not stop every other game's clock
                await self._failed(key, token, now, error)
                continue
            self._failures.pop(key, None)
            if self.parked.pop(key, None) is not None:
                log.warning("the deadline of %s fires again", key)
            if not out.unavailable:
                outboxes.append(out)
        return outboxes

    async def _fire(self, key: GameKey, now: float, token: str) -> Outbox:
        game_req = Request(platform=key.platform, channel=key.channel, user="", name="clock")
        return await self._transact(game_req, None, self._timeout_step(now), lease=token)

    async def _failed(self, key: GameKey, token: str, now: float, error: Exception) -> None:
        count = self._failures[key] = self._failures.get(key, 0) + 1
        if count >= PARK_AFTER:
            delay = PARK_S
            self.parked[key] = f"{type(error).__name__}: {error}"[:300]
            log.error(
                "the deadline of %s failed %d times; parked for %.0f s",
                key,
                count,
                delay,
                exc_info=error,
            )
        else:
            delay = min(PARK_S, 2.0**count)
            log.warning(
                "the deadline of %s failed (%d); retrying in %.0f s",
                key,
                count,
                delay,
                exc_info=error,
            )
        try:
            await self.store.release(key, token, now + delay)
        except StorageUnavailable:
            log.warning("could not postpone the deadline of %s; its lease ends by itself", key)

    # --- the pipeline ----------------------------------------------------------------------

    def _outbox(self, req: Request, game: Game[Any, Any] | None = None) -> Outbox:
        return Outbox(platform=req.platform, channel=req.channel, game=game.name if game else None)

    async def _transact(
        self,
        req: Request,
        game: Game[Any, Any] | None,
        step: _Step,
        lease: str | None = None,
    ) -> Outbox:
        """Load, step, save with compare-and-set (retrying on conflict), then the side effects.

        ``lease``: the deadline claim this transaction fires; it is ended by the save, or set to
        the game's real deadline when there was nothing to fire.
        """
        key = GameKey(req.platform, req.channel)
        dedupe = f"{req.platform}:{req.delivery}" if req.delivery else None
        for _attempt in range(MAX_ATTEMPTS):
            out = self._outbox(req, game)
            try:
                fresh, loaded = await self.store.load(key, dedupe=dedupe)
            except StorageUnavailable as outage:
                return self._unavailable(req, game, str(outage))
            if not fresh:
                out.duplicate = True
                return out
            record = GameRecord.model_validate_json(loaded.data) if loaded else None
            if record is not None:
                out.game = out.game or record.game
                out.table = _table(record)
            # Steps edit the record they are given: note what _after_save compares first.
            was_finished = record is not None and record.status == "finished"
            try:
                change = step(record, out)
            except (Refusal, IllegalAction, CommandError, teams.TeamError) as refusal:
                refused = self._outbox(req, game)
                refused.reply(req.user, str(refusal))
                return await self._answered(key, dedupe, refused)
            except _Reschedule as again:
                await self._release(key, lease, again.due)
                return out
            if change is None:
                live = record is not None and record.status == "playing"
                await self._release(key, lease, record.deadline_due if live and record else None)
                return await self._answered(key, dedupe, out)
            out.table = _table(change.record)
            if change.record.status == "finished" and not was_finished:
                # A game that ends, however it ends, leaves its players' "games I sit in" lists.
                change.left = sorted(set(change.left) | set(change.record.humans))
            change.record.updated_at = self.clock()
            data = change.record.model_dump_json()
            version = (loaded.version if loaded else 0) + 1
            due = change.record.deadline_due if change.record.status == "playing" else None
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
                )
            except (StorageFull, StorageRefused) as refused_by_redis:
                # Redis refused the script outright: nothing of it was written.
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
                        return Outbox(platform=req.platform, channel=req.channel, duplicate=True)
                    continue
            if lease is not None and due is None:
                # The fired game has no deadline now: end the lease and drop its entry (with a
                # deadline, the save itself set the next time).
                with contextlib.suppress(StorageUnavailable):
                    await self.store.release(key, lease, None)
            await self._after_save(key, change)
            return out
        out = self._outbox(req, game)
        out.reply(req.user, BUSY)
        return out

    def _unavailable(self, req: Request, game: Game[Any, Any] | None, sentence: str) -> Outbox:
        out = self._outbox(req, game)
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

    async def _after_save(self, key: GameKey, change: _Change) -> None:
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

    # --- read-only commands ----------------------------------------------------------------

    def _usage(self, game: Game[Any, Any]) -> str:
        return usage(game, game.text_commands)

    def _help(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        def step(record: GameRecord | None, out: Outbox) -> None:
            out.reply(req.user, self._usage(game))

        return step

    def _rules(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        def step(record: GameRecord | None, out: Outbox) -> None:
            found = markup.pages(game.rules(rest or None))
            for number, page in enumerate(found, 1):
                # A long page comes in parts, each numbered, the topics said at the end.
                head = f"({number}/{len(found)}) " if len(found) > 1 else ""
                out.reply(req.user, head + page)
            if len(found) > 1 and game.rule_topics():
                topics = ", ".join(game.rule_topics())
                out.reply(req.user, f"Topics: {topics} (`/{game.name} rules <topic>`).")

        return step

    def _status(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        def step(record: GameRecord | None, out: Outbox) -> None:
            record = self._require_game(record, game, allow_finished=True)
            if record.state_json is None:
                out.reply(req.user, self._lobby_message(game, record))
                return
            running = _game_of(record)
            board = running.render_board(load_state(running, record.state_json))
            if record.status == "finished":
                # Over (by play, or ended by the host): say so above the last board.
                ended = (
                    f"This game of {running.title} is over; `/{game.name} start` opens a new one."
                )
                board = board.model_copy(update={"text": f"{ended}\n\n{board.text}".strip()})
            out.reply(req.user, board)

        return step

    def _hand(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        def step(record: GameRecord | None, out: Outbox) -> None:
            record = self._require_game(record, game)
            seat = self._require_seat(record, req)
            if record.state_json is None:
                raise Refusal("The cards are dealt when the host begins the game.")
            running = _game_of(record)
            out.reply(
                req.user, running.render_private(load_state(running, record.state_json), seat)
            )

        return step

    # --- lobby -----------------------------------------------------------------------------

    def _start(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        thread, rest = _thread_option(rest)
        options = parse_options(game, rest)

        def step(record: GameRecord | None, out: Outbox) -> _Change:
            if record is not None and record.status != "finished":
                running = _game_of(record)
                stage = "open for players" if record.status == "lobby" else "being played"
                raise Refusal(
                    f"A game of {running.title} is already {stage} in this channel "
                    f"(host: {record.host_name}). The host can end it with `/{running.name} end`."
                )
            now = self.clock()
            first = 0
            if record is not None:
                last = (
                    load_state(_game_of(record), record.state_json).version
                    if record.state_json
                    else 0
                )
                first = max(record.first_version, last + 1)
            new = GameRecord(
                game=game.name,
                host=req.user,
                host_name=req.name,
                seats=[SeatInfo.player(req.user, req.name)],
                options=options.model_dump(mode="json"),
                seed=self.new_seed(),
                created_at=now,
                updated_at=now,
                first_version=first,
                thread=thread,
            )
            out.card = self._lobby_message(game, new, f"{req.name} opened a game of {game.title}.")
            return _Change(record=new, joined=[req.user])

        return step

    def _lobby_message(
        self, game: Game[Any, Any], record: GameRecord, head: str = ""
    ) -> ui.Message:
        settings = ", ".join(f"{k}={v}" for k, v in record.options.items())
        settings += "" if record.thread else ", thread=off"
        count = f"({len(record.seats)}/{game.max_players})"
        buttons = [
            [
                ui.Button(
                    label="Start a team" if game.teams else "Join", style="primary", command="join"
                ),
                ui.Button(label="Add a bot", command="addbot"),
                ui.Button(label="Begin", style="success", command="begin"),
            ]
        ]
        if game.teams:
            seated = f"Teams {count}: {teams.team_list(record.seats)}."
            how = (
                f"`/{game.name} join <team>` joins a team or creates it "
                f"(`/{game.name} join` alone: a team of your own)"
            )
            joinable = [seat.name for seat in record.seats if not seat.is_bot]
            for start in range(0, min(len(joinable), 10), 5):
                buttons.append(
                    [
                        ui.Button(label=f"Join {name}", command=f"join {name}")
                        for name in joinable[start : start + 5]
                    ]
                )
        else:
            players = ", ".join(s.name + (" (bot)" if s.is_bot else "") for s in record.seats)
            seated = f"Players {count}: {players}."
            how = f"`/{game.name} join` to take a seat"
        text = (
            f"{head}\n{seated}\nOptions: {settings}.\n"
            f"{how}; the host ({record.host_name}) can "
            f"`/{game.name} addbot` and `/{game.name} begin` with {game.min_players} or more."
        ).strip()
        return ui.Message(title=f"{game.title}: lobby", text=text, buttons=buttons)

    def _join(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        wanted = teams.clean_team_name(rest) if game.teams and rest.strip() else None

        def step(record: GameRecord | None, out: Outbox) -> _Change:
            record = self._require_game(record, game)
            current = record.seat_of(req.user)
            target = teams.find_team(record, wanted) if wanted else None
            if current is not None and (wanted is None or target == current):
                where = f" with {record.seats[current].name}" if game.teams else ""
                raise Refusal(f"You're already at the table{where}.")
            me = Member(user=req.user, name=req.name)
            if target is not None:
                self._check_room(game, record, target)
            if record.status != "lobby":
                if target is None or current is not None:
                    raise Refusal(self._closed_table(game, record, current))
                return self._join_running(game, record, target, me, out)
            if current is not None:  # changing teams in the lobby
                teams.remove_member(record, req.user)
                if record.seats[current].is_bot:
                    del record.seats[current]
                target = teams.find_team(record, wanted) if wanted else None
            if target is None:
                if len(record.seats) >= game.max_players:
                    raise Refusal(f"The table is full: {game.title} seats {game.max_players}.")
                name = wanted or self._free_name(game, record, req.name)
                record.seats.append(SeatInfo(name=name, members=[me]))
                news = f"{req.name} joined" + (f" as {name}" if game.teams else "")
            else:
                teams.add_member(record, target, me)
                news = f"{req.name} joined {record.seats[target].name}"
            out.card = self._lobby_message(game, record, f"{news}.")
            return _Change(record=record, joined=[req.user])

        return step

    @staticmethod
    def _free_name(game: Game[Any, Any], record: GameRecord, wanted: str) -> str:
        """A player's own team is named after them, made unique (and short) if need be."""
        if not game.teams:
            return wanted
        # A display name may hold what a team name may not (formatting, mentions): leave it out.
        shown = "".join(c for c in markup.plain(wanted) if c not in markup.SPECIAL)
        base = markup.escape(" ".join(shown.split())[: teams.MAX_TEAM_NAME - 3].strip()) or "Team"
        name, number = base, 1
        while teams.find_team(record, name) is not None:
            number += 1
            name = f"{base} {number}"
        return name

    def _closed_table(self, game: Game[Any, Any], record: GameRecord, current: int | None) -> str:
        if not game.teams:
            return (
                "This game has already begun; you can join the next one "
                f"(or watch with `/{game.name} status`)."
            )
        if current is not None:
            return (
                f"You play for {record.seats[current].name}; during a game the host moves "
                f"players between teams with `/{game.name} move`."
            )
        return (
            "This game has already begun, so no new team can be formed; you can join one of "
            f"the teams playing: {', '.join(s.name for s in record.seats)} "
            f"(`/{game.name} join <team>`)."
        )

    def _join_running(
        self, game: Game[Any, Any], record: GameRecord, seat: int, member: Member, out: Outbox
    ) -> _Change:
        """A player joins a team that is already playing (taking it over from a bot if none of
        its people are left) and is shown the team's hand."""
        team = record.seats[seat]
        took_over = team.is_bot
        team.members.append(member)
        state = self._running_state(record)
        tail = ", taking over from the bot" if took_over else ""
        out.say(f"{member.name} joined {team.name}{tail}.")
        out.panels[member.user] = _game_of(record).render_private(state, seat)
        return _Change(record=record, joined=[member.user], log=[[member.user, "join", seat]])

    def _running_state(self, record: GameRecord) -> GameState:
        if record.state_json is None:  # playing always has a state; never crash on a bad blob
            raise Refusal("This game has no table to change; the host can end it.")
        return load_state(_game_of(record), record.state_json)

    def _leave(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        def step(record: GameRecord | None, out: Outbox) -> _Change:
            record = self._require_game(record, game)
            seat = self._require_seat(record, req)
            team = record.seats[seat].name
            teams.remove_member(record, req.user)
            where = team if game.teams else "the table" if record.status != "lobby" else ""
            news = f"{req.name} left {where}".rstrip()
            change = _Change(record=record, left=[req.user])
            return self._after_departure(game, record, seat, req.user, news, out, change)

        return step

    def _after_departure(
        self,
        game: Game[Any, Any],
        record: GameRecord,
        seat: int,
        user: str,
        news: str,
        out: Outbox,
        change: _Change,
    ) -> _Change:
        """Someone is off ``seat``: close an empty lobby, pass the host on, and let a bot play a
        seat nobody is left in."""
        emptied = record.seats[seat].is_bot
        humans = [m for s in record.seats for m in s.members]
        if humans and record.host not in {m.user for m in humans}:
            record.host, record.host_name = humans[0].user, humans[0].name
            news += f"; {humans[0].name} is the host now"
        if record.status == "lobby":
            if emptied:
                del record.seats[seat]
            if not humans:
                record.status = "finished"
                out.card = ui.Message(title=f"{game.title}: lobby closed", text=f"{news}.")
                out.ended = True
                return change
            out.card = self._lobby_message(game, record, f"{news}.")
            return change
        change.log.append([user, "leave", seat])
        if not emptied:
            out.say(f"{news}; {record.seats[seat].name} plays on.")
            return change
        who = record.seats[seat].name if game.teams else "their seat"
        out.say(f"{news}; a bot plays {who} now.")
        # The bot may be the seat the game is waiting for: let it move at once.
        running = _game_of(record)
        state = self._running_state(record)
        result = Advance(state=state)
        run_bots(running, record.seed, [s.is_bot for s in record.seats], result)
        self._commit(running, record, state, result, None, out)
        change.log.extend(result.log)
        return change

    # --- teams (host) ----------------------------------------------------------------------

    def _rename(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        old, new = teams.split_to(rest, f"Rename a team like this: `/{game.name} rename A to B`.")
        new = teams.clean_team_name(new)

        def step(record: GameRecord | None, out: Outbox) -> _Change:
            record = self._require_host_lobby(record, game, req, "rename teams")
            seat = teams.find_team(record, old)
            if seat is None:
                raise Refusal(
                    f"There is no team called {markup.escape(old)}: {self._team_names(record)}."
                )
            other = teams.find_team(record, new)
            if other is not None and other != seat:
                raise Refusal(f"There is already a team called {record.seats[other].name}.")
            before, record.seats[seat].name = record.seats[seat].name, new
            out.card = self._lobby_message(game, record, f"{req.name} renamed {before} to {new}.")
            return _Change(record=record)

        return step

    def _move(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        who, team = teams.split_to(
            rest, f"Move a player like this: `/{game.name} move Bob to Sharks`."
        )
        wanted = teams.clean_team_name(team)

        def step(record: GameRecord | None, out: Outbox) -> _Change:
            record = self._require_host(record, game, req, "move players")
            seat, member = teams.find_player(record, who)
            target = teams.find_team(record, wanted)
            if target == seat:
                raise Refusal(f"{member.name} already plays for {record.seats[seat].name}.")
            if target is not None:
                self._check_room(game, record, target)
            elif record.status != "lobby":
                raise Refusal(
                    f"There is no team called {wanted} in this game: {self._team_names(record)}."
                )
            teams.remove_member(record, member.user)
            if record.status == "lobby":
                if record.seats[seat].is_bot:
                    del record.seats[seat]
                target = teams.find_team(record, wanted)  # seats after it moved up
                if target is None:
                    if len(record.seats) >= game.max_players:
                        raise Refusal(f"The table is full: {game.title} seats {game.max_players}.")
                    record.seats.append(SeatInfo(name=wanted))
                    target = len(record.seats) - 1
                teams.add_member(record, target, member)
                news = f"{req.name} moved {member.name} to {record.seats[target].name}"
                out.card = self._lobby_message(game, record, f"{news}.")
                return _Change(record=record)
            assert target is not None  # refused above when the team does not exist
            teams.add_member(record, target, member)
            news = f"{req.name} moved {member.name} to {record.seats[target].name}"
            change = _Change(record=record, log=[[member.user, "join", target]])
            state = self._running_state(record)
            out.panels[member.user] = _game_of(record).render_private(state, target)
            return self._after_departure(game, record, seat, member.user, news, out, change)

        return step

    def _remove(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        if not rest.strip():
            raise CommandError(f"Name the player to remove: `/{game.name} remove Bob`.")

        def step(record: GameRecord | None, out: Outbox) -> _Change:
            record = self._require_host(record, game, req, "remove players")
            seat, member = teams.find_player(record, rest)
            if member.user == req.user:
                raise Refusal(f"To leave your own team, use `/{game.name} leave`.")
            team = record.seats[seat].name
            teams.remove_member(record, member.user)
            news = f"{req.name} took {member.name} off {team}"
            change = _Change(record=record, left=[member.user])
            return self._after_departure(game, record, seat, member.user, news, out, change)

        return step

    @staticmethod
    def _check_room(game: Game[Any, Any], record: GameRecord, seat: int) -> None:
        limit = game.max_team_size
        if limit is not None and len(record.seats[seat].members) >= limit:
            raise Refusal(
                f"{record.seats[seat].name} is full: a team of {game.title} has at most "
                f"{limit} people."
            )

    @staticmethod
    def _team_names(record: GameRecord) -> str:
        return "the teams are " + ", ".join(seat.name for seat in record.seats)

    def _addbot(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        try:
            count = int(rest) if rest else 1
        except ValueError:
            raise CommandError(
                f"`addbot` takes a number of bots, e.g. `/{game.name} addbot 2`."
            ) from None

        def step(record: GameRecord | None, out: Outbox) -> _Change:
            record = self._require_host_lobby(record, game, req, "add bots")
            free = game.max_players - len(record.seats)
            if free <= 0:
                raise Refusal(f"The table is full: {game.title} seats {game.max_players}.")
            if count < 1 or count > free:
                many = "1 bot" if free == 1 else f"1 to {free} bots"
                raise Refusal(f"You can add {many}; the table seats {game.max_players}.")
            taken = {seat.name for seat in record.seats}
            names = [n for n in BOT_NAMES if n not in taken]
            for index in range(count):
                name = names[index] if index < len(names) else f"Bot {len(record.seats) + 1}"
                record.seats.append(SeatInfo(name=name))
            out.card = self._lobby_message(game, record, f"{req.name} added {count} bot(s).")
            return _Change(record=record)

        return step

    def _begin(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        def step(record: GameRecord | None, out: Outbox) -> _Change:
            record = self._require_host_lobby(record, game, req, "begin")
            if len(record.seats) < game.min_players:
                missing = game.min_players - len(record.seats)
                raise Refusal(
                    f"{game.title} needs at least {game.min_players} players; "
                    f"{missing} more can `/{game.name} join`, or add bots with "
                    f"`/{game.name} addbot {missing}`."
                )
            options = game.options_model.model_validate(record.options)
            problem = game.lobby_problem(options, [len(s.members) for s in record.seats])
            if problem is not None:
                raise Refusal(problem)
            record.status = "playing"
            result = start_state(
                game,
                [s.name for s in record.seats],
                [s.is_bot for s in record.seats],
                record.options,
                record.seed,
                record.first_version,
            )
            out.say(f"{req.name} began the game. Good luck!")
            out.begun = True
            out.thread = record.thread
            out.card = self._summary_card(game, record)
            self._commit(game, record, None, result, req.user, out)
            seats = [[s.name for s in record.seats], [s.is_bot for s in record.seats]]
            return _Change(record=record, log=[[req.user, "begin", *seats], *result.log])

        return step

    def _end(self, req: Request, game: Game[Any, Any], rest: str) -> _Step:
        def step(record: GameRecord | None, out: Outbox) -> _Change:
            record = self._require_game(record, game)
            idle = self.clock() - record.updated_at
            limit = self.settings.idle_end_minutes * 60
            if req.user != record.host and idle < limit:
                raise Refusal(
                    f"Only the host ({record.host_name}) can end the game, or anyone once it has "
                    f"been idle for {self.settings.idle_end_minutes:g} minutes."
                )
            # The log holds the game from `begin` on; a lobby leaves no trace there.
            log = [[req.user, "end"]] if record.status == "playing" else []
            was_lobby = record.status == "lobby"
            record.status = "finished"
            record.deadline_due = None
            news = f"{req.name} ended the game of {game.title}."
            out.say(news)
            out.ended = True
            if was_lobby:
                out.card = ui.Message(title=f"{game.title}: lobby closed", text=news)
            else:
                self._final(game, record, out, news)
            return _Change(record=record, log=log, left=record.humans)

        return step

    # --- playing ---------------------------------------------------------------------------

    def _text_action(self, req: Request, game: Game[Any, Any], word: str, rest: str) -> _Step:
        def step(record: GameRecord | None, out: Outbox) -> _Change:
            record, state, seat = self._require_playing(record, game, req)
            action = game.parse_text(state, seat, word, rest)
            if action is None:
                raise Refusal(f"`/{game.name} {word}` needs more: {game.text_commands[word]}.")
            return self._play(record, state, seat, action, req.user, out)

        return step

    def _press_step(self, req: Request, game: Game[Any, Any], press: codec.Press) -> _Step:
        def step(record: GameRecord | None, out: Outbox) -> _Change | None:
            record, state, seat = self._require_playing(record, game, req)
            if press.seat is not None and press.seat != seat:
                owner = record.seats[press.seat].name if press.seat < len(record.seats) else "?"
                whose = f"the team {owner}" if game.teams else f"{owner}'s hand"
                mine = "your team's" if game.teams else "your own"
                raise Refusal(
                    f"That button belongs to {whose}; only its members can use it. "
                    f"`/{game.name} hand` shows {mine} choices."
                )
            version = press.version if press.version is not None else -1
            if not state.decision_version <= version <= state.version:
                panel = game.render_private(state, seat)
                stale = STALE + (" Your current choices:" if panel.buttons or panel.selects else "")
                out.reply(req.user, panel.model_copy(update={"text": stale, "title": None}))
                return None
            action = game.parse_action(press.resolved_action() or {})
            return self._play(record, state, seat, action, req.user, out)

        return step

    def _timeout_step(self, now: float) -> _Step:
        def step(record: GameRecord | None, out: Outbox) -> _Change | None:
            if record is None or record.status != "playing" or record.state_json is None:
                return None
            if record.deadline_due is None:
                return None
            if record.deadline_due > now:
                raise _Reschedule(record.deadline_due)
            game = _game_of(record)
            state = load_state(game, record.state_json)
            if state.deadline is None:
                return None
            return self._play(record, state, SYSTEM, Timeout(key=state.deadline.key), None, out)

        return step

    def _play(
        self,
        record: GameRecord,
        state: GameState,
        seat: int,
        action: Any,
        requester: str | None,
        out: Outbox,
    ) -> _Change:
        game = _game_of(record)
        result = advance(game, state, record.seed, [s.is_bot for s in record.seats], seat, action)
        note = None
        if game.teams and requester is not None:
            # Any member may act for the team; the others hear privately what was done.
            names = [m.name for m in record.seats[seat].members if m.user == requester]
            did = game.describe_action(state, action)
            note = (seat, f"{names[0] if names else 'A teammate'} played for your team: {did}.")
        self._commit(game, record, state, result, requester, out, note)
        return _Change(record=record, log=result.log)

    def _commit(
        self,
        game: Game[Any, Any],
        record: GameRecord,
        before: GameState | None,
        result: Advance,
        requester: str | None,
        out: Outbox,
        note: tuple[int, str] | None = None,
    ) -> None:
        """Store the new state in the record, set its deadline and fill the Outbox."""
        after = result.state
        members = [s.users for s in record.seats]
        out.version = after.version
        record.state_json = after.model_dump_json()
        if after.finished:
            record.status = "finished"
            record.deadline_due = None
        elif after.deadline is None:
            record.deadline_due = None
        elif before is None or before.deadline is None or before.deadline.key != after.deadline.key:
            record.deadline_due = self.clock() + after.deadline.seconds
        due = record.deadline_due
        publish(game, before, after, result.moves, members, requester, out, note, due)
        if after.finished:
            out.ended = True
            self._final(game, record, out, _last_word(result))

    def _summary_card(self, game: Game[Any, Any], record: GameRecord) -> ui.Message:
        """The card while a game is played: who plays, with what options, where."""
        names = ", ".join(s.name + (" (bot)" if s.is_bot else "") for s in record.seats)
        settings = ", ".join(f"{k}={v}" for k, v in record.options.items())
        text = (
            f"{'Teams' if game.teams else 'Players'}: {names}.\nOptions: {settings}.\n"
            f"Host: {record.host_name}. `/{game.name} status` shows the board, "
            f"`/{game.name} hand` your hand."
        )
        return ui.Message(title=f"{game.title}: playing", text=text)

    def _final(self, game: Game[Any, Any], record: GameRecord, out: Outbox, news: str) -> None:
        """The card shows the final board; the result goes to the channel."""
        board = out.board
        if board is None and record.state_json is not None:
            board = _game_of(record).render_board(load_state(_game_of(record), record.state_json))
        text = "\n\n".join(part for part in (news, board.text if board else "") if part)
        out.card = ui.Message(
            title=f"{game.title}: final standings",
            text=markup.pages(text)[0] if text else "",
            fields=board.fields if board else [],
        )
        out.result = ui.Message(text=news or f"The game of {game.title} is over.")

    # --- authorization helpers -------------------------------------------------------------

    def _require_game(
        self, record: GameRecord | None, game: Game[Any, Any], allow_finished: bool = False
    ) -> GameRecord:
        over = record is not None and record.status == "finished"
        if record is None or (over and (not allow_finished or record.game != game.name)):
            # A finished game of another kind is no game here: the channel is free.
            raise Refusal(f"No game here. Start one with `/{game.name} start`.")
        if record.game != game.name:
            running = _game_of(record)
            raise Refusal(
                f"This channel is playing {running.title}; use `/{running.name}` commands here."
            )
        return record

    def _require_seat(self, record: GameRecord, req: Request) -> int:
        seat = record.seat_of(req.user)
        if seat is None:
            raise Refusal(f"You're not playing in this game. Use `/{record.game} join` in a lobby.")
        return seat

    def _require_host(
        self, record: GameRecord | None, game: Game[Any, Any], req: Request, verb: str
    ) -> GameRecord:
        record = self._require_game(record, game)
        if record.host != req.user:
            raise Refusal(f"Only the host ({record.host_name}) can {verb}.")
        return record

    def _require_host_lobby(
        self, record: GameRecord | None, game: Game[Any, Any], req: Request, verb: str
    ) -> GameRecord:
        record = self._require_game(record, game)
        if record.status != "lobby":
            raise Refusal("The game has already begun.")
        return self._require_host(record, game, req, verb)

    def _require_playing(
        self, record: GameRecord | None, game: Game[Any, Any], req: Request
    ) -> tuple[GameRecord, GameState, int]:
        record = self._require_game(record, game)
        if record.status != "playing" or record.state_json is None:
            raise Refusal(
                f"The game hasn't begun yet; the host starts it with `/{game.name} begin`."
            )
        seat = self._require_seat(record, req)
        return record, load_state(game, record.state_json), seat


def _last_word(result: Advance) -> str:
    """How the game ended, in its own words: the final move's public text from its "Game
    over" line on (a move's event may tell several things; the end comes last)."""
    public = [e.text for e in result.moves[-1] if e.audience.is_public] if result.moves else []
    lines = "\n".join(public).splitlines()
    start = max((i for i, text in enumerate(lines) if "game over" in text.lower()), default=None)
    if start is None:
        return lines[-1] if lines else ""
    return "\n".join(lines[start:])


def _thread_option(rest: str) -> tuple[bool, str]:
    """``thread=off`` (or ``no``) among ``start``'s words, which play in the channel itself;
    the other words are the game's options."""
    thread, others = True, []
    for word in rest.split():
        key, sep, value = word.partition("=")
        if key.strip().lower() == "thread":
            if sep and value.lower() not in ("on", "off", "yes", "no", "true", "false"):
                raise CommandError("`thread` takes on or off, e.g. `thread=off`.")
            thread = not sep or value.lower() in ("on", "yes", "true")
        else:
            others.append(word)
    return thread, " ".join(others)


def _game_of(record: GameRecord) -> Game[Any, Any]:
    game = get_game(record.game)
    if game is None:
        raise Refusal("This channel holds a game this bot no longer knows; the host can end it.")
    return game
