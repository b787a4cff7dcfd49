"""A hung Redis: a redis-server frozen with SIGSTOP accepts connections and answers nothing.

Players are answered while it is frozen (storage is unavailable, or a move may not have counted),
``/healthz`` says Redis does not answer, and once it is thawed (SIGCONT) play resumes with no move
lost or applied twice and the deadline loop running again. A full Redis, which answers reads and
refuses writes, keeps every worker in the load balancer. Real redis-servers, each test its own.

The waits are bounded by the store (``BOARDROOM_REDIS_TIMEOUT_SECONDS``, 1 s here) and the health
probe (``BOARDROOM_HEALTH_TIMEOUT_SECONDS``, 0.5 s here). The tests assert what was answered; the
only limits on time are hang guards, generous next to what the bound allows (before it, redis-py's
nested retries held one answer for three to ten times the timeout).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis
from aiohttp import ClientSession

from bench.frozen import frozen_bench
from bot.adapters.slack.app import SlackAdapter
from bot.adapters.slack.budget import BudgetedWebClient
from bot.adapters.slack.http import HEALTH_PATH, serve_http
from bot.commands import codec
from bot.commands.authority import UNAVAILABLE, Authority, Request
from bot.commands.game.actionlog import replay_history
from bot.commands.outbox import Outbox
from bot.commands.pipeline import UNCERTAIN
from bot.commands.record import GameRecord
from bot.deadlines import Heartbeat, run_deadlines
from bot.health import health
from bot.settings import Settings
from core.engine import erase
from core.games.bigidea import GAME
from storage import GameKey, GameStore, SaveResult, StorageFull
from testkit.local_server import LocalRedisCluster, LocalRedisServer, RedisServerError
from testkit.waiting import until
from tests.authority_support import Clock
from tests.test_authority import panel, panel_select
from tests.test_cluster import (
    _channels_on_every_master,
    _cluster_client,
    _game_name,
    _open_bot_game,
)
from tests.test_store_errors import _fill

TIMEOUT_S = 1.0
HEALTH_S = 0.5
SETTINGS = Settings(
    BOARDROOM_REDIS_TIMEOUT_SECONDS=TIMEOUT_S, BOARDROOM_HEALTH_TIMEOUT_SECONDS=HEALTH_S
)
# Hang guards: the limits (an answer within 5 s, /healthz within 3 s, with a timeout of
# about 2 s) at the tests' timeouts. A command waits at most two timeouts (a save, then reading
# it back), a health check one probe.
ANSWER_GUARD_S = 2.5 * TIMEOUT_S
HEALTH_GUARD_S = 3 * HEALTH_S
# How long to wait for what must happen once Redis is back (a deadline firing, ...).
RECOVERY_S = 20.0
FAST = "pick_seconds=30 vote_seconds=20 turn_seconds=10"
HUMANS = ["alice", "bob", "carol"]


def _req(channel: str, user: str, delivery: str | None = None) -> Request:
    return Request(
        platform="console", channel=channel, user=user, name=user.title(), delivery=delivery
    )


def _said(out: Outbox, user: str) -> str:
    return "\n".join(d.message.text for d in out.deliveries if d.user == user)


async def _pid(store: GameStore) -> int:
    return int((await store.client.info("server"))["process_id"])


@contextlib.contextmanager
def _frozen(pid: int) -> Iterator[None]:
    """redis-server stopped (SIGSTOP): the kernel still accepts connections, nothing answers."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


async def _record(store: GameStore, channel: str) -> GameRecord:
    _, loaded = await store.load(GameKey("console", channel))
    assert loaded is not None
    return GameRecord.model_validate_json(loaded.data)


async def _open(authority: Authority, channel: str) -> Outbox:
    """Alice, Bob and Carol begin The Big Idea in ``channel``: everyone has a pick to make."""
    out = await authority.command(_req(channel, "alice"), "bigidea", f"start {FAST}")
    assert out.card is not None, _said(out, "alice")
    for user in HUMANS[1:]:
        out = await authority.command(_req(channel, user), "bigidea", "join")
        assert not _said(out, user), _said(out, user)
    out = await authority.command(_req(channel, "alice"), "bigidea", "begin")
    assert out.begun, _said(out, "alice")
    return out


class _FreezingStore(GameStore):
    """The real store. After :meth:`freeze_at` (``saves``, ``freeze``), saves wait until that
    many have come, then ``freeze`` runs (Redis stops) and they all go out: every one is sent to a
    frozen Redis, after every one of those moves had loaded its game."""

    _saves = 0
    _freeze: Callable[[], None] | None = None
    _all_here: asyncio.Event | None = None

    def freeze_at(self, saves: int, freeze: Callable[[], None]) -> asyncio.Event:
        """Set once Redis is frozen."""
        self._saves, self._freeze, self._all_here = saves, freeze, asyncio.Event()
        return self._all_here

    async def save(self, key: GameKey, data: str, **kwargs: Any) -> SaveResult:
        if self._all_here is not None and not self._all_here.is_set():
            self._saves -= 1
            if self._saves == 0 and self._freeze is not None:
                self._freeze()
                self._all_here.set()
            await self._all_here.wait()
        return await super().save(key, data, **kwargs)


class _Worker:
    """One worker's authority, deadline loop and Slack HTTP app (for ``/healthz``), on ``url``."""

    def __init__(self, url: str, clock: Clock) -> None:
        self.store = _FreezingStore.from_url(url, timeout_s=TIMEOUT_S)
        seeds = random.Random(11)
        self.authority = Authority(
            self.store, SETTINGS, clock=clock, new_seed=lambda: seeds.getrandbits(63)
        )
        self.beat = Heartbeat(0.01)
        self.fired: list[str] = []
        self._stop = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        self._runner: Any = None
        self._port = 0

    async def start(self) -> None:
        async def sink(out: Outbox) -> None:
            self.fired.append(out.channel)

        self._loop = asyncio.create_task(
            run_deadlines(self.authority, "console", sink, 0.01, self._stop, self.beat)
        )
        adapter = SlackAdapter(self.authority, BudgetedWebClient(token="xoxb-x"), "secret")
        self._runner, self._port = await serve_http(
            adapter, "127.0.0.1", 0, lambda: health(self.authority, self.beat)
        )

    async def healthz(self) -> tuple[int, dict[str, Any]]:
        async with (
            asyncio.timeout(HEALTH_GUARD_S),
            ClientSession() as session,
            session.get(f"http://127.0.0.1:{self._port}{HEALTH_PATH}") as answer,
        ):
            return answer.status, await answer.json()

    async def stop(self) -> None:
        self._stop.set()
        if self._loop is not None:
            await self._loop
        if self._runner is not None:
            await self._runner.cleanup()
        await self.store.close()


@pytest.fixture
async def worker(
    spawn_redis: Callable[[int | None], LocalRedisServer], clock: Clock
) -> AsyncIterator[_Worker]:
    worker = _Worker(spawn_redis(None).url, clock)
    await worker.start()
    yield worker
    await worker.stop()


# --- answers while Redis is frozen ------------------------------------------------------------


async def test_a_frozen_redis_answers_status_and_healthz_then_everything_resumes(
    worker: _Worker,
) -> None:
    await _open(worker.authority, "table-1")
    before = await _record(worker.store, "table-1")
    assert await worker.healthz() == (
        200,
        {
            "ok": True,
            "redis": "ok",
            "redis_pool": "ok",
            "deadlines": "running",
            "parked_games": [],
            "damaged_games": [],
        },
    )
    with _frozen(await _pid(worker.store)):
        for n in range(3):  # fresh connections and ones redis-py keeps alike
            async with asyncio.timeout(ANSWER_GUARD_S):
                out = await worker.authority.command(
                    _req("table-1", "bob", f"status-{n}"), "bigidea", "status"
                )
            assert out.unavailable and _said(out, "bob") == UNAVAILABLE
            assert not out.public
            status, body = await worker.healthz()
            assert status == 503 and body["redis"] == "unreachable", body
    out = await worker.authority.command(
        _req("table-1", "bob", "status-after"), "bigidea", "status"
    )
    assert not out.unavailable and "Bob" in _said(out, "bob")
    assert await _record(worker.store, "table-1") == before
    status, body = await worker.healthz()
    assert status == 200 and body["redis"] == "ok"


async def test_moves_in_flight_when_redis_freezes_are_neither_lost_nor_doubled(
    worker: _Worker, clock: Clock
) -> None:
    """Redis freezes as many moves in flight are saved: Bob's and Carol's picks at four tables
    (Alice picked before), Dave's and Erin's joins at two lobbies. Every move is answered while
    Redis is still frozen. A pick's save (it arms a deadline: redis-py's pipeline
    asks SCRIPT EXISTS first) never left; a join's (one EVALSHA on an open connection) is in
    Redis's socket and runs when Redis thaws. After SIGCONT the platform delivers again what was
    not applied, with the same delivery id: every move counts exactly once, and the deadline loop,
    which failed all through the freeze, fires the tables' next deadlines."""
    authority, store = worker.authority, worker.store
    tables = [f"table-{n}" for n in range(4)]
    lobbies = [f"lobby-{n}" for n in range(2)]
    picks: dict[tuple[str, str], list[str]] = {}
    custom_ids: dict[tuple[str, str], str] = {}
    for channel in tables:
        out = await _open(authority, channel)
        for user in HUMANS:
            select = panel_select(panel(out, user))
            custom_ids[channel, user] = codec.encode_select("bigidea", select)
            picks[channel, user] = [option.value for option in select.options[:2]]
    for channel in lobbies:
        out = await authority.command(_req(channel, "alice"), "bigidea", f"start {FAST}")
        assert out.card is not None

    async def move(channel: str, user: str) -> Outbox:
        delivery = f"{channel}:{user}"
        if channel in lobbies:
            return await authority.command(_req(channel, user, delivery), "bigidea", "join")
        request = _req(channel, user, delivery)
        return await authority.press(request, custom_ids[channel, user], picks[channel, user])

    for channel in tables:
        out = await move(channel, "alice")
        assert not out.unavailable and not _said(out, "alice")
    in_flight = [(channel, user) for channel in tables for user in ("bob", "carol")]
    in_flight += [(channel, user) for channel in lobbies for user in ("dave", "erin")]
    # Connections enough for every move at once, so that a save goes out at once rather than
    # wait for a new connection's handshake (which a frozen Redis never answers).
    await asyncio.gather(*(store.load(GameKey("console", c)) for c in tables * 4))
    pid = await _pid(store)
    frozen = store.freeze_at(len(in_flight), lambda: os.kill(pid, signal.SIGSTOP))
    try:
        moves = asyncio.gather(*(move(channel, user) for channel, user in in_flight))
        async with asyncio.timeout(RECOVERY_S):  # (the moves' loads, with Redis answering)
            await frozen.wait()
        async with asyncio.timeout(ANSWER_GUARD_S):  # all answered while Redis is frozen
            answers = await moves
        for (_channel, user), out in zip(in_flight, answers, strict=True):
            assert out.unavailable
            assert _said(out, user) in (UNAVAILABLE, UNCERTAIN.format(game="bigidea"))
        status, body = await worker.healthz()
        assert status == 503 and body["redis"] == "unreachable"
    finally:
        os.kill(pid, signal.SIGCONT)

    # Redis is back: the platform delivers every move again. Applied now, or found to have
    # counted already (a join saved as Redis thawed), never twice and never refused.
    retried = {where: await move(*where) for where in in_flight}
    for (_channel, user), out in retried.items():
        assert not out.unavailable and not _said(out, user), _said(out, user)
    # (Saves sent to the frozen Redis ran as it thawed: their retries are recognised.)
    thawed = [where for where, out in retried.items() if out.duplicate]
    assert thawed, retried

    for channel in tables:
        rec = await _record(store, channel)
        history = await store.read_history(GameKey("console", channel))
        logged = [entry for text in history.lines for entry in json.loads(text)]
        seat_picks = [entry for entry in logged if entry[1] == "pick"]
        assert sorted(seat for seat, _kind, _values in seat_picks) == [0, 1, 2], logged
        for seat, _kind, values in seat_picks:
            assert values == picks[channel, HUMANS[seat]]
        replayed = replay_history(erase(GAME), rec.seed, rec.options, rec.first_version, history)
        assert replayed is not None and replayed.model_dump(mode="json") == rec.state
    for channel in lobbies:
        rec = await _record(store, channel)
        assert sorted(rec.humans) == ["alice", "dave", "erin"]
        assert [len(seat.users) for seat in rec.seats] == [1, 1, 1]

    due = [(await _record(store, channel)).deadline_due for channel in tables]
    clock.now = max(when or 0.0 for when in due) + 1
    await until(
        lambda: set(worker.fired) == set(tables),
        "every table's deadline fired",
        within_s=RECOVERY_S,
        every_s=0.02,
    )
    assert all(when is not None for when in due) and worker.beat.failing_since is None
    status, body = await worker.healthz()
    assert status == 200 and body == {
        "ok": True,
        "redis": "ok",
        "redis_pool": "ok",
        "deadlines": "running",
        "parked_games": [],
        "damaged_games": [],
    }


# --- a full Redis ------------------------------------------------------------------------------


@pytest.fixture
def full_worker_server(tmp_path: Path) -> Iterator[LocalRedisServer]:
    server = LocalRedisServer(None, tmp_path, args=["--maxmemory-policy", "noeviction"])
    try:
        server.start()
    except RedisServerError as exc:
        pytest.fail(str(exc), pytrace=False)
    yield server
    server.stop()


async def _oom_refusals(client: aioredis.Redis) -> int:
    stats = await client.info("errorstats")
    return int(stats.get("errorstat_OOM", {}).get("count", 0))


async def test_a_full_redis_keeps_every_worker_in_the_load_balancer(
    full_worker_server: LocalRedisServer, clock: Clock
) -> None:
    """Full (noeviction): moves are refused with a sentence, but the worker answers, and its
    deadline loop runs on though Redis refuses its claims: ``/healthz`` is 200 and says "full",
    where it was 503 (a load balancer would have dropped every worker at once)."""
    worker = _Worker(full_worker_server.url, clock)
    try:
        begun = await _open(worker.authority, "table-1")
        rec = await _record(worker.store, "table-1")
        assert rec.deadline_due is not None
        await _fill(aioredis.Redis.from_url(full_worker_server.url))
        admin = aioredis.Redis.from_url(full_worker_server.url, decode_responses=True)
        clock.now = rec.deadline_due + 1  # due: claiming it is a write, which Redis refuses
        await worker.start()

        async def refused() -> bool:
            return await _oom_refusals(admin) >= 3

        await until(refused, "Redis refused three writes (OOM)", within_s=RECOVERY_S, every_s=0.02)
        assert worker.fired == [] and worker.beat.failing_since is None
        status, body = await worker.healthz()
        assert status == 200, body
        assert body["ok"] and body["redis"] == "full" and body["deadlines"] == "running", body

        out = await worker.authority.command(_req("table-1", "bob", "s-1"), "bigidea", "status")
        assert not out.unavailable and "Bob" in _said(out, "bob")  # reads are served
        select = panel_select(panel(begun, "bob"))
        values = [option.value for option in select.options[:2]]
        out = await worker.authority.press(
            _req("table-1", "bob"), codec.encode_select("bigidea", select), values
        )
        assert out.unavailable and _said(out, "bob") == StorageFull.MESSAGE

        await admin.config_set("maxmemory", 0)  # the operator makes room
        await admin.aclose()
        await until(
            lambda: worker.fired == ["table-1"],
            "the deadline fired once Redis had room",
            within_s=RECOVERY_S,
            every_s=0.02,
        )
        status, body = await worker.healthz()
        assert status == 200 and body["redis"] == "ok"
    finally:
        await worker.stop()


# --- a frozen cluster master -------------------------------------------------------------------


async def test_a_frozen_cluster_master_is_an_outage_within_the_bound_that_heals(
    failover_cluster: LocalRedisCluster, clock: Clock
) -> None:
    """On Redis Cluster the client retries a timeout itself (re-reading the layout first); the
    store's bound still answers the player while the master is frozen. Its replica takes over
    (the node timeout is 1 s here), and after SIGCONT the old master rejoins: nothing is lost."""
    cluster = failover_cluster
    store = GameStore.from_url(cluster.url, cluster=True, timeout_s=TIMEOUT_S)
    seeds = random.Random(5)
    authority = Authority(store, SETTINGS, clock=clock, new_seed=lambda: seeds.getrandbits(63))
    try:
        channels = _channels_on_every_master(cluster, 1)
        keys = [GameKey("console", channel) for channel in channels]
        for channel in channels:
            await _open_bot_game(authority, channel)
        clock.now += 60
        assert await authority.fire_due("console")
        victim = cluster.master_of(_game_name(keys[0]))
        client = _cluster_client(store)
        node = client.get_node_from_key(_game_name(keys[0]))
        assert node is not None
        # Replication is asynchronous: wait until the replica has every acknowledged save.
        assert await client.execute_command("WAIT", 1, 5000, target_nodes=node) >= 1
        acknowledged = {key: (await store.load(key))[1] for key in keys}
        pid = int(redis.Redis(port=victim.port).info("server")["process_id"])

        with _frozen(pid):
            async with asyncio.timeout(ANSWER_GUARD_S):
                out = await authority.command(_req(channels[0], "bob"), "bigidea", "status")
            assert out.unavailable and _said(out, "bob") == UNAVAILABLE
            # The replica takes over while the old master is still frozen.

            async def served() -> bool:
                async with asyncio.timeout(ANSWER_GUARD_S):
                    out = await authority.command(_req(channels[0], "bob"), "bigidea", "status")
                return not out.unavailable

            await until(
                served, "a replica took over the frozen master", within_s=RECOVERY_S, every_s=0.05
            )
            assert cluster.master_of(_game_name(keys[0])).port != victim.port

        await asyncio.to_thread(cluster.wait_healthy, RECOVERY_S)  # it rejoins as a replica
        for key in keys:
            assert (await store.load(key))[1] == acknowledged[key]
        clock.now += 60
        assert len(await authority.fire_due("console")) == len(keys)  # every clock runs on
    finally:
        await store.close()


# --- the bench ---------------------------------------------------------------------------------

BENCH_KEYS = (
    "freeze_s",
    "status_max_s",
    "move_max_s",
    "healthz_max_s",
    "healthz_frozen",
    "resumed_s",
    "deadline_resumed_s",
    "lost",
    "doubled",
)


async def test_the_frozen_bench_prints_what_players_waited(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = await frozen_bench(SETTINGS, seconds=1.0, tables=2)

    lines = capsys.readouterr().out.strip().splitlines()
    assert code == 0, "\n".join(lines)
    pairs = dict(word.split("=", 1) for word in lines[-1].split())
    assert list(pairs) == list(BENCH_KEYS), lines[-1]
    assert pairs["healthz_frozen"] == "503" and pairs["lost"] == pairs["doubled"] == "0"
    assert all(float(pairs[key]) > 0 for key in BENCH_KEYS[:4]), lines[-1]
