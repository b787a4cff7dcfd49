"""``boardroom bench``: many concurrent games of The Big Idea through the authority, and the floor.

Simulated people play every seat through :meth:`Authority.press` only, as chat users would: each
sees the table's surfaces of every Outbox (its own private panel, a private reply with choices,
the public prompt such as the vote) and presses one random choice on a panel it has not answered
yet. Every press is timed. A counting store records every storage call the authority made.

The bench has four parts, in one run:

1. **Throughput**: every game's players press back to back, with no pause, until every game has
   ended. This gives ``actions_per_s``. The counting store records each round trip (a script
   with its exact keys and arguments, or a plain call with its arguments) of each game.
2. **The floor**: those very round trips replayed, in order, on copies of the games (channel
   names of the same length), from one task per game as the games ran, through the store's own
   registered scripts, and no game work. ``floor_ratio`` is the authority's action rate over the
   floor's: 1.0 would mean the game work is free. The simulated people's own CPU (choosing,
   encoding a press, reading the answer) is timed apart and printed.
3. **Latency**: the same number of games again, each pressing at a player's pace (one press per
   game every ``think_ms`` on average, uniformly between half and one and a half of it) for
   ``pace_seconds``. ``p50_ms`` and ``p99_ms`` are the press latencies of this part: what a player
   waits for while that many games are going on. In part 1 every press queues behind the presses
   of all the other games at once, which measures the queue, not the bot; its latencies are
   printed too. With ``pace_seconds=0`` the last line reports part 1's latencies instead.
4. **Bytes**: what a finished game of each game keeps in Redis, by ``MEMORY USAGE`` of each key
   it left (record, log, refs, dedupe ids): ``bytes_<game>`` is the record and the log (what the
   game keeps for its retention; the dedupe ids, printed apart, go after their TTL), over the
   first ``bytes_games`` games of part 1 for The Big Idea and as many more games of each other
   game, played the same way after the timed parts. ``bytes_per_game`` is the largest of them.

The last line printed is machine-readable::

    actions_per_s=<x> floor_ratio=<x> p50_ms=<x> p99_ms=<x> bytes_per_game=<n>
    bytes_bigidea=<n> bytes_biggiebills=<n> bytes_businessgo=<n>

(on one line).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import gc
import logging
import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

from redis.asyncio import Redis

from bot.commands import codec
from bot.commands.authority import Authority, Request
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.runtime import freeze_startup
from bot.settings import Settings
from bot.simulate import percentile
from core import ui
from core.registry import get_game
from storage import GameKey, GameStore, History, Loaded, StorageUnavailable
from storage import history as kept
from storage.store import DEFAULT_TIMEOUT_S, StoreClient
from testkit.local_server import bench_redis

__all__ = ["CountingStore", "bench"]

log = logging.getLogger(__name__)

GAME = "bigidea"
PLATFORM = "bench"
DEADLINES_OFF = "pick_seconds=0 vote_seconds=0 turn_seconds=0"
"""Simulated people answer at once; a deadline firing would only add noise."""
MAX_PRESSES_PER_GAME = 5_000
"""A four-player game takes a few hundred presses; the bound stops a driver or game bug."""
TRIES_PER_PANEL = 4
"""Presses of one panel that may be refused before the simulated user gives up on it."""
OPTIONS = {
    "bigidea": DEADLINES_OFF,
    "biggiebills": "turn_seconds=0 block_seconds=0",
    "businessgo": "turn_seconds=0 compete_seconds=0 auction_seconds=0",
}
"""Every game whose stored bytes are measured, with options that turn its deadlines off."""
BYTES_GAMES = 20
"""Finished games of each game whose stored bytes are measured."""
_MEASURED = "game"
_COPY = "copy"
"""The channels of the timed games, and of the floor's copies of them (the same length, so the
copies' keys and arguments are exactly as long)."""
_PARTS = {
    "record": "the game hash: version and packed record",
    "log": "the action log: a stream while the game runs, one packed string once it ended",
    "refs": "the table's refs hash",
    "dedupe": "delivery ids, each for the dedupe TTL",
}

# --- counting (and recording) the authority's storage traffic ---------------------------------

_TRACE: contextvars.ContextVar[list[_Call] | None] = contextvars.ContextVar("trace", default=None)
"""The calls of the game being played in this task, when it is recorded for the floor."""

_SCRIPTS = (
    "_load_script",
    "_save_script",
    "_save_armed_script",
    "_arm_script",
    "_release_script",
    "_claim_script",
    "_refs_script",
    "_quarantine_script",
)
"""The store's Lua scripts: one EVALSHA (one round trip) per call."""


@dataclass(frozen=True)
class _Call:
    """One round trip the authority's store made: a script with its exact keys and arguments
    (packed records, log entries, dedupe ids), or a plain store call with its arguments."""

    name: str
    """A script's attribute on the store (``_save_armed_script``), or a store method."""
    keys: tuple[Any, ...]
    args: tuple[Any, ...]


class _RecordedScript:
    """Wraps one of the store's scripts: counts each call and records it for the floor."""

    def __init__(self, store: CountingStore, name: str, script: Any) -> None:
        self.store, self.name, self.script = store, name, script

    async def __call__(
        self, keys: list[str] | None = None, args: list[Any] | None = None, client: Any = None
    ) -> Any:
        self.store.note(_Call(self.name, tuple(keys or ()), tuple(args or ())))
        if client is None:
            return await self.script(keys=keys, args=args)
        return await self.script(keys=keys, args=args, client=client)


class CountingStore(GameStore):
    """A GameStore that counts each round trip it makes (a script or a plain call), and records
    them, exact keys and arguments, for the game played in the current task when it asks
    (``_TRACE``): the floor replays that record."""

    def __init__(
        self,
        client: StoreClient,
        *,
        embedded: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        prober: Redis | None = None,
    ) -> None:
        super().__init__(client, embedded=embedded, timeout_s=timeout_s, prober=prober)
        self.calls: Counter[str] = Counter()
        """Round trips by what they were: ``load`` (the load script: dedupe, record and refs),
        ``save``, ``save+arm``, ``mark_handled``, ``index``, ..."""
        self.loaded_bytes = 0
        self.loaded_blobs = 0
        self.saved_bytes = 0
        """The records as stored (packed), loaded and saved."""
        self.saves = 0
        for name in _SCRIPTS:
            setattr(self, name, _RecordedScript(self, name, getattr(self, name)))

    def note(self, call: _Call) -> None:
        self.calls[_LABELS.get(call.name, call.name)] += 1
        if call.name in ("_save_script", "_save_armed_script"):
            data = call.args[2 if call.name == "_save_script" else 5]
            self.saved_bytes += len(str(data))
            self.saves += 1
        trace = _TRACE.get()
        if trace is not None:
            trace.append(call)

    async def load_table(
        self, key: GameKey, dedupe: str | None = None
    ) -> tuple[bool, Loaded | None, tuple[int, str] | None]:
        fresh, loaded, refs = await super().load_table(key, dedupe)
        if loaded is not None:
            self.loaded_blobs += 1
        return fresh, loaded, refs

    async def mark_handled(self, key: GameKey, dedupe: str, ttl_s: int) -> bool:
        self.note(_Call("mark_handled", (), (key, dedupe, ttl_s)))
        return await super().mark_handled(key, dedupe, ttl_s)

    async def index_user(
        self, platform: str, user: str, key: GameKey, present: bool, ttl_s: int
    ) -> None:
        self.note(_Call("index_user", (), (platform, user, key, present, ttl_s)))
        await super().index_user(platform, user, key, present, ttl_s)

    async def delete(self, key: GameKey) -> None:
        self.note(_Call("delete", (), (key,)))
        await super().delete(key)

    async def _read_history(self, key: GameKey) -> History:
        self.note(_Call("read_history", (), (key,)))
        return await super()._read_history(key)

    async def games_of(self, platform: str, user: str) -> list[GameKey]:
        self.note(_Call("games_of", (), (platform, user)))
        return await super().games_of(platform, user)

    @property
    def round_trips(self) -> int:
        return sum(self.calls.values())


_LABELS = {
    "_load_script": "load",
    "_save_script": "save",
    "_save_armed_script": "save+arm",
    "_arm_script": "arm",
    "_release_script": "release",
    "_claim_script": "claim_due",
    "_refs_script": "refs",
    "_quarantine_script": "quarantine",
    "index_user": "index",
}


# --- simulated people ------------------------------------------------------------------------


def _choices(message: ui.Message, seat: int | None = None) -> list[ui.Button | ui.Select]:
    """What a person (at ``seat``, when known) could press on ``message``: game buttons and
    selects (no lobby commands), but those only another seat may press."""
    buttons: list[ui.Button | ui.Select] = [
        b
        for b in message.all_buttons()
        if b.action is not None and not b.disabled and b.seat in (None, seat)
    ]
    selects = [s for s in message.selects if s.options and s.seat in (None, seat)]
    return buttons + selects


@dataclass
class _Panel:
    """One message with components, as one person sees it."""

    choices: list[ui.Button | ui.Select]
    answered: bool = False
    tries: int = 0
    tried: set[int] = field(default_factory=set)

    def pick(self, rng: random.Random) -> ui.Button | ui.Select | None:
        """A random choice not refused before (a select may be tried again with other values)."""
        untried = [
            i for i, c in enumerate(self.choices) if isinstance(c, ui.Select) or i not in self.tried
        ]
        if not untried:
            return None
        index = rng.choice(untried)
        self.tried.add(index)
        return self.choices[index]


@dataclass
class _Person:
    user: str
    private: _Panel | None = None
    public: _Panel | None = None

    def pending(self) -> list[_Panel]:
        return [p for p in (self.private, self.public) if p is not None and not p.answered]


def _panel(message: ui.Message | None, seat: int | None = None) -> _Panel | None:
    """A surface as a panel to press, or None when it shows nothing to press."""
    choices = _choices(message, seat) if message is not None else []
    return _Panel(choices) if choices else None


def press_args(
    game: str, choice: ui.Button | ui.Select, rng: random.Random
) -> tuple[str, list[str] | None]:
    """The custom id and (for a menu) a random legal choice of values for pressing ``choice``."""
    if isinstance(choice, ui.Button):
        return codec.encode_button(game, choice), None
    options = [o.value for o in choice.options]
    low = max(0, min(choice.min_values, len(options)))
    high = max(low, min(choice.max_values, len(options)))
    return codec.encode_select(game, choice), rng.sample(options, rng.randint(low, high))


def _applied(out: Outbox) -> bool:
    """Whether the authority changed the game: every applied lobby step shows a new card, every
    applied move a new board; refusals and stale presses only answer the presser privately."""
    return out.board is not None or bool(out.public)


@dataclass
class _GameResult:
    index: int
    finished: bool = False
    reason: str = ""
    presses: int = 0
    actions: int = 0
    refusals: int = 0
    commands: int = 0
    latencies: list[float] = field(default_factory=list)
    """Seconds per press."""
    driver_cpu: float = 0.0
    """Process CPU seconds the simulated people spent choosing and pressing (not the bot's)."""
    bytes: int = 0
    """What the finished game holds in Redis: its record and its log (``memory_usage``)."""
    parts: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Each kind of key the finished game left: (keys, bytes), by ``MEMORY USAGE``."""
    ended_at: float = 0.0
    paced_out: bool = False
    """The latency part's time window closed before the game ended (expected there)."""


class _Table:
    """One channel's game, played to the end by simulated people."""

    def __init__(
        self,
        authority: Authority,
        probe: GameStore,
        key: GameKey,
        players: int,
        rng: random.Random,
        index: int,
        think_s: float = 0.0,
        until: float | None = None,
        game: str = GAME,
        trace: bool = False,
    ) -> None:
        self.game = game
        self.trace: list[_Call] | None = [] if trace else None
        """Every round trip of this game's store calls, in order, for the floor to replay."""
        self.think_s = think_s
        self.until = until
        self.authority = authority
        self.probe = probe
        self.key = key
        self.rng = rng
        self.people = {f"u{i}": _Person(f"u{i}") for i in range(players)}
        self.result = _GameResult(index)
        self.seats: dict[str, int] = {}
        self._deliveries = 0
        self._prompt_id: int | None = None

    async def _learn_seats(self) -> None:
        """Which seat each person sits at, as the table shows it to them (the bench's own read,
        outside the counted store), so that each presses what the table lets them press."""
        self.seats.clear()
        _, loaded = await self.probe.load(self.key)
        if loaded is None:
            return
        record = GameRecord.model_validate_json(loaded.data)
        for user in self.people:
            seat = record.seat_of(user)
            if seat is not None:
                self.seats[user] = seat

    def _delivery_ids(self) -> list[str]:
        return [f"{self.key.channel}:{n}" for n in range(1, self._deliveries + 1)]

    def _request(self, user: str) -> Request:
        self._deliveries += 1
        return Request(
            platform=self.key.platform,
            channel=self.key.channel,
            user=user,
            name=user.upper(),
            delivery=f"{self.key.channel}:{self._deliveries}",
        )

    def _receive(self, out: Outbox) -> None:
        """What each person now sees on the table's surfaces: the public prompt (the lobby card
        carries only command buttons), their own panel, and a private reply to them (a stale
        press is answered with the current choices). A surface shown anew replaces what that
        person saw there before, with choices or without (a closed decision leaves nothing to
        press)."""
        if out.board is not None:  # with a board, the prompt says what the public prompt shows
            same = out.prompt is not None and out.prompt_id == self._prompt_id
            self._prompt_id = out.prompt_id
            # Without a prompt, the controls of the public surface are the board's own (Busine$$
            # GO's turn); a person sees there the ones of their seat, or of anyone.
            public = out.prompt if out.prompt is not None else out.board
            for person in self.people.values():
                panel = _panel(public, self.seats.get(person.user))
                if same and person.public is not None and panel is not None:
                    # The same decision, edited (someone voted): who answered it has answered.
                    panel.answered, panel.tries = person.public.answered, person.public.tries
                person.public = panel
        for user, message in out.panels.items():
            if user in self.people:
                self.people[user].private = _panel(message, self.seats.get(user))
        for delivery in out.deliveries:
            seat = self.seats.get(delivery.user) if delivery.user is not None else None
            choices = _choices(delivery.message, seat)
            if choices and delivery.user in self.people:
                self.people[delivery.user].private = _Panel(choices)

    async def _command(self, user: str, text: str, seated: bool = False) -> bool:
        """Type ``text``; ``seated``: it seats everyone, so learn the seats before looking."""
        out = await self.authority.command(self._request(user), self.game, text)
        self.result.commands += 1
        if not _applied(out):
            said = "; ".join(d.message.text for d in out.deliveries) or "no answer"
            self.result.reason = f"`{text}` by {user} was refused: {said}"
            return False
        if seated:
            await self._learn_seats()
        self._receive(out)
        return True

    async def play(self) -> _GameResult:
        _TRACE.set(self.trace)  # this task's own context: only this game's calls
        try:
            await self._play()
        except Exception as exc:
            log.exception("game %s failed", self.key)
            self.result.reason = f"{type(exc).__name__}: {exc}"
        if not self.result.ended_at:
            self.result.ended_at = time.perf_counter()
        return self.result

    async def _play(self) -> None:
        result = self.result
        users = list(self.people)
        if not await self._command(users[0], f"start {OPTIONS[self.game]}"):
            return
        for user in users[1:]:
            if not await self._command(user, "join"):
                return
        # Lobby messages carry only command buttons, so panels start with the dealt game.
        if not await self._command(users[0], "begin", seated=True):
            return
        while result.presses < MAX_PRESSES_PER_GAME:
            if self.think_s:
                await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think_s)
            if self.until is not None and time.perf_counter() >= self.until:
                result.paced_out = True
                return
            # The driver's own work (choosing, encoding the press, reading the answer) runs
            # between awaits, so no other game runs meanwhile: its CPU time is its own.
            driving = time.process_time()
            pending = [(p, panel) for p in self.people.values() for panel in p.pending()]
            if not pending:
                result.driver_cpu += time.process_time() - driving
                break
            person, panel = self.rng.choice(pending)
            choice = panel.pick(self.rng)
            if choice is None:
                panel.answered = True
                result.driver_cpu += time.process_time() - driving
                continue
            custom_id, values = press_args(self.game, choice, self.rng)
            request = self._request(person.user)
            result.driver_cpu += time.process_time() - driving
            started = time.perf_counter()
            out = await self.authority.press(request, custom_id, values)
            result.latencies.append(time.perf_counter() - started)
            driving = time.process_time()
            result.presses += 1
            if _applied(out):
                result.actions += 1
                panel.answered = True
            else:
                result.refusals += 1
                panel.tries += 1
                if panel.tries >= TRIES_PER_PANEL:
                    panel.answered = True
            self._receive(out)
            result.driver_cpu += time.process_time() - driving
        result.ended_at = time.perf_counter()
        _TRACE.set(None)
        _, loaded = await self.probe.load(self.key)
        record = GameRecord.model_validate_json(loaded.data) if loaded else None
        if record is not None and record.status == "finished":
            result.finished = True
            result.bytes = await self.probe.memory_usage(self.key)
            deliveries = [f"{self.key.platform}:{d}" for d in self._delivery_ids()]
            result.parts = await self.probe.memory_by_key(self.key, deliveries)
        elif result.presses >= MAX_PRESSES_PER_GAME:
            result.reason = f"still running after {MAX_PRESSES_PER_GAME} presses"
        else:
            result.reason = f"stalled after {result.presses} presses: nobody has a choice left"


# --- the floor -------------------------------------------------------------------------------


def _copy_key(text: str, run: str) -> str:
    """``text`` (a key, an argument) naming the floor's copy of a game instead of the game."""
    return text.replace(f"{run}-{_MEASURED}-", f"{run}-{_COPY}-")


def _copied(value: Any, run: str) -> Any:
    if isinstance(value, str):
        return _copy_key(value, run)
    if isinstance(value, GameKey):
        return GameKey(value.platform, _copy_key(value.channel, run))
    return value


async def _floor(
    url: str, traces: list[list[_Call]], run: str, copies: list[GameKey], cluster: bool = False
) -> tuple[float, float]:
    """Replay every game's recorded round trips, in order, on a copy of each game: the same
    scripts with the same keys and arguments (the same packed records, log entries and dedupe
    ids, under the copy's names), from one task per game as the games ran, and no game work.

    Returns the wall time and the process CPU time of the replay, in seconds.
    """
    floor_store = GameStore.from_url(url, cluster=cluster)
    replayed = [
        [
            _Call(
                call.name,
                tuple(_copied(k, run) for k in call.keys),
                tuple(_copied(a, run) for a in call.args),
            )
            for call in trace
        ]
        for trace in traces
    ]

    async def replay(calls: Sequence[_Call]) -> None:
        for call in calls:
            if call.name in _SCRIPTS:
                script = getattr(floor_store, call.name)
                await script(keys=list(call.keys), args=list(call.args))
            else:
                await getattr(floor_store, call.name)(*call.args)

    try:
        # Open the connections and load the scripts first, so the timed part starts warm.
        await asyncio.gather(*(floor_store.ping() for _ in replayed))
        for name in _SCRIPTS:
            await floor_store.client.script_load(getattr(floor_store, name).script)
        cpu_started, started = time.process_time(), time.perf_counter()
        await asyncio.gather(*(replay(calls) for calls in replayed))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    finally:
        await floor_store.close()
    return elapsed, cpu


# --- the run ---------------------------------------------------------------------------------


async def bench(
    settings: Settings,
    games: int,
    players: int,
    seed: int,
    think_ms: float = 1000.0,
    pace_seconds: float = 15.0,
    bytes_games: int | None = None,
) -> int:
    """Run the benchmark; 0 when every game finished, 1 when some did not, 2 on bad input.

    ``bytes_games``: finished games of each game whose stored bytes are measured (by default
    ``games``, at most ``BYTES_GAMES``)."""
    if bytes_games is None:
        bytes_games = min(games, BYTES_GAMES)
    for name in OPTIONS:  # importing the games now keeps their start-up out of the timings
        if get_game(name) is None:
            print(f"the game {name!r} is not registered")
            return 2
    game = get_game(GAME)
    assert game is not None
    if games < 1 or bytes_games < 1 or not game.min_players <= players <= game.max_players:
        print(f"need games >= 1 and {game.min_players}-{game.max_players} players")
        return 2
    async with contextlib.AsyncExitStack() as stack:
        url = await bench_redis(stack, settings.redis_url)
        if url is None:
            return 2
        where = (
            _redacted(url)
            if settings.redis_url
            else f"{url} (a local redis-server started for this run)"
        )
        print(f"bench: {games} concurrent games of {game.title}, {players} players, seed {seed}")
        print(f"redis: {where}")
        pace = (think_ms / 1000, pace_seconds)
        return await _run(
            settings, url, (games, bytes_games), players, seed, pace, not settings.redis_url
        )
    return 2  # pragma: no cover (mypy: the context manager could swallow an exception)


def _redacted(url: str) -> str:
    """``url`` without its password, for printing."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def _tables(
    store: GameStore,
    probe: GameStore,
    settings: Settings,
    run: str,
    part: str,
    games: int,
    players: int,
    seed: int,
    pace: tuple[float, float | None] = (0.0, None),
    game: str = GAME,
) -> list[_Table]:
    """One table per game, each with its own seeded Authority and driver rng."""
    tables = []
    # The same simulated people sit at every table: no limit on the lobbies a person opens.
    settings = settings.model_copy(update={"limit_lobbies": 0})
    for index in range(games):
        game_seed = random.Random(f"{seed}:seed:{index}").getrandbits(63)
        authority = Authority(store, settings, new_seed=functools.partial(int, game_seed))
        key = GameKey(PLATFORM, f"{run}-{part}-{index}")
        # Seeded by the bench seed and the part, not the run id, so runs repeat.
        rng = random.Random(f"{seed}:{part}:{index}")
        traced = part == _MEASURED
        tables.append(_Table(authority, probe, key, players, rng, index, *pace, game, traced))
    return tables


async def _run(
    settings: Settings,
    url: str,
    counts: tuple[int, int],
    players: int,
    seed: int,
    pace: tuple[float, float],
    own_server: bool,
) -> int:
    games, bytes_games = counts
    store = CountingStore.from_url(url, cluster=settings.redis_cluster)
    assert isinstance(store, CountingStore)  # from_url builds ``cls``
    probe = GameStore.from_url(url, cluster=settings.redis_cluster)
    try:
        await probe.ping()
    except StorageUnavailable:
        print(f"cannot reach redis at {_redacted(url)}")
        await store.close()
        await probe.close()
        return 2
    run = f"{seed}-{time.time_ns()}"
    tables = _tables(store, probe, settings, run, _MEASURED, games, players, seed)
    paced: list[_GameResult] = []
    sized: dict[str, list[_GameResult]] = {}
    copies = [GameKey(PLATFORM, _copy_key(t.key.channel, run)) for t in tables]
    try:
        # As the bot does once it has started (its CLIs): what start-up built is moved out of the
        # collector's way, so that a full collection does not walk it while a press waits.
        freeze_startup()
        cpu_started = time.process_time()
        started = time.perf_counter()
        results = await asyncio.gather(*(table.play() for table in tables))
        wall = max(r.ended_at for r in results) - started
        cpu = time.process_time() - cpu_started
        calls = Counter(store.calls)
        blob = store.saved_bytes // max(1, store.saves)
        traces = [table.trace or [] for table in tables]
        floor_times = await _floor(url, traces, run, copies, settings.redis_cluster)
        # The records of every call are the bench's, not the bot's: free them (and collect),
        # so that they lengthen no garbage collection of the latency part.
        for table in tables:
            table.trace = None
        del traces
        gc.collect()
        think_s, window = pace
        if window > 0:
            until = time.perf_counter() + window
            paced_tables = _tables(
                store, probe, settings, run, "paced", games, players, seed, (think_s, until)
            )
            tables += paced_tables
            paced = list(await asyncio.gather(*(table.play() for table in paced_tables)))
        # What a finished game of each game leaves in Redis: the measured games of The Big
        # Idea, and as many of each other game (played the same way, after the timed parts).
        sized[GAME] = results[:bytes_games]
        for name in OPTIONS:
            if name == GAME:
                continue
            more = _tables(
                store, probe, settings, run, f"bytes-{name}", bytes_games, players, seed, game=name
            )
            tables += more
            sized[name] = list(await asyncio.gather(*(table.play() for table in more)))
        if not own_server:
            await _clean_up(probe, tables, copies)
    finally:
        await store.close()
        await probe.close()
    _report(results, calls, (wall, cpu), floor_times, blob, paced, pace, sized)
    ok = all(r.finished for r in results) and all(r.finished or r.paced_out for r in paced)
    return 0 if ok and all(r.finished for rs in sized.values() for r in rs) else 1


async def _clean_up(store: GameStore, tables: list[_Table], copies: list[GameKey]) -> None:
    """On a shared Redis, remove the games and the people's own keys (dedupe keys expire)."""
    people = {(table.key.platform, user) for table in tables for user in table.people}
    for table in tables:
        await store.delete(table.key)
    for key in copies:
        await store.delete(key)
    for platform, user in sorted(people):
        await kept.forget_keys(store, platform, user, keep_games=False, keep_held=False)


def _sizes_line(name: str, results: list[_GameResult]) -> tuple[int, str]:
    """The mean bytes a finished game of ``name`` holds, and a line saying what each key holds."""
    finished = [r for r in results if r.finished]
    title = cast(Any, get_game(name)).title
    if not finished:
        return 0, f"  {title}: no game finished"
    mean = round(statistics.fmean(r.bytes for r in finished))
    parts = []
    for part, what in _PARTS.items():
        keys = statistics.fmean(r.parts.get(part, (0, 0))[0] for r in finished)
        size = statistics.fmean(r.parts.get(part, (0, 0))[1] for r in finished)
        if keys:
            count = f"{keys:.0f} keys, " if keys >= 1.5 else ""
            parts.append(f"{part} {count}{size:.0f} B ({what})")
    worst = max(r.bytes for r in finished)
    return mean, (
        f"  {title} ({len(finished)}/{len(results)} games): {mean} bytes, max {worst}; "
        + "; ".join(parts)
    )


def _report(
    results: list[_GameResult],
    calls: Counter[str],
    run_times: tuple[float, float],
    floor_times: tuple[float, float],
    blob: int,
    paced: list[_GameResult],
    pace: tuple[float, float],
    sized: dict[str, list[_GameResult]],
) -> None:
    """Print the human lines, then the machine-readable last line.

    ``run_times`` and ``floor_times`` are (wall, process CPU) seconds. The CPU figures are also
    printed because, unlike wall time, they barely move when other processes share the machine.
    """
    (wall, cpu), (floor_wall, floor_cpu) = run_times, floor_times
    actions = sum(r.actions for r in results)
    finished = [r for r in results if r.finished]
    presses = sum(r.presses for r in results)
    refusals = sum(r.refusals for r in results)
    commands = sum(r.commands for r in results)
    latencies = [s * 1000 for r in results for s in r.latencies]
    round_trips = sum(calls.values())
    actions_per_s = actions / wall if wall > 0 else 0.0
    floor_per_s = actions / floor_wall if floor_wall > 0 else 0.0
    floor_ratio = actions_per_s / floor_per_s if floor_per_s > 0 else 0.0
    p50, p90, p99 = (percentile(latencies, f) for f in (0.5, 0.9, 0.99))
    per_action_ms = 1000 / max(1, actions)

    print(f"games finished: {len(finished)}/{len(results)} in {wall:.2f} s")
    for r in [r for r in results if not r.finished][:5]:
        print(f"  game {r.index} did not finish: {r.reason}")
    print(
        f"presses: {presses} ({actions} applied actions, {refusals} refused: "
        f"{refusals / max(1, presses):.1%}); plus {commands} lobby commands"
    )
    detail = ", ".join(f"{name} {n}" for name, n in sorted(calls.items()))
    print(
        f"round trips: {round_trips} = {round_trips / max(1, actions):.2f} per action ({detail}); "
        f"mean record as saved {blob} bytes"
    )
    print(
        f"press latency ms with every game pressing back to back: p50 {p50:.2f}, p90 {p90:.2f}, "
        f"p99 {p99:.2f}, max {max(latencies, default=0.0):.2f}"
    )
    if paced:
        paced_ms = [s * 1000 for r in paced for s in r.latencies]
        p50, p90, p99 = (percentile(paced_ms, f) for f in (0.5, 0.9, 0.99))
        think_s, window = pace
        offered = len(paced) / think_s if think_s else 0.0
        for r in [r for r in paced if not (r.finished or r.paced_out)][:5]:
            print(f"  paced game {r.index} failed: {r.reason}")
        print(
            f"press latency ms at a player's pace ({len(paced)} games, one press per game every "
            f"~{think_s * 1000:.0f} ms = ~{offered:.0f} presses/s offered, {window:g} s, "
            f"{len(paced_ms)} presses): p50 {p50:.2f}, p90 {p90:.2f}, p99 {p99:.2f}, "
            f"max {max(paced_ms, default=0.0):.2f}"
        )
    print(
        f"floor: the same {round_trips} round trips replayed (the same scripts, keys and "
        f"arguments, from one task per game) without game work took {floor_wall:.2f} s "
        f"= {floor_per_s:.0f} actions/s; the authority reached {actions_per_s:.0f} actions/s"
    )
    driver = sum(r.driver_cpu for r in results)
    print(
        f"process CPU per action: {cpu * per_action_ms:.2f} ms with the games, of which "
        f"{driver * per_action_ms:.2f} ms the simulated people's own (choosing, encoding presses, "
        f"reading answers); {floor_cpu * per_action_ms:.2f} ms for the floor "
        f"(CPU ratio {floor_cpu / cpu if cpu > 0 else 0.0:.3f}, "
        f"{floor_cpu / (cpu - driver) if cpu > driver else 0.0:.3f} without the people's share)"
    )
    print("stored per finished game (MEMORY USAGE of each key it left):")
    means = {}
    for name, sized_results in sized.items():
        means[name], line = _sizes_line(name, sized_results)
        print(line)
        for r in [r for r in sized_results if not r.finished][:3]:
            print(f"    game {r.index} did not finish: {r.reason}")
    each = " ".join(f"bytes_{name}={size}" for name, size in means.items())
    print(
        f"actions_per_s={actions_per_s:.1f} floor_ratio={floor_ratio:.3f} "
        f"p50_ms={p50:.2f} p99_ms={p99:.2f} bytes_per_game={max(means.values(), default=0)} " + each
    )
