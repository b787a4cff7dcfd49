"""Reliability against a real redis-server: deadlines survive dead workers and bad games,
ambiguous failures are told truthfully, indexes empty, long games replay, input is bounded."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import pytest
from aiohttp import ClientSession

from bot.adapters.slack.app import SlackAdapter
from bot.adapters.slack.budget import BudgetedWebClient
from bot.adapters.slack.http import HEALTH_PATH, serve_http
from bot.commands.authority import PARK_AFTER, UNAVAILABLE, Authority, Request
from bot.commands.community.results import REMINDER_S
from bot.commands.game.actionlog import replay_history
from bot.commands.outbox import GAME_OVER, Outbox
from bot.commands.record import GameRecord
from bot.deadlines import LOOP_DIED, Heartbeat, run_deadlines, until_stopped
from bot.health import health
from bot.settings import Settings
from bot.table import Refs, Table
from core.engine import erase
from core.games.bigidea import GAME
from core.games.bigidea.state import BigIdeaState
from storage import GameKey, GameStore, SaveResult, StorageUnavailable
from testkit.clock import VirtualClock
from testkit.local_server import LocalRedisServer
from testkit.waiting import until
from tests.authority_support import Clock
from tests.test_authority import CHANNEL, KEY, lobby, record, reply_text, req
from tests.test_table import Recorder


@pytest.fixture
def store(redis_store: GameStore) -> GameStore:
    """These tests run on a real redis-server only."""
    return redis_store


FAST = "vote_seconds=20 turn_seconds=10 pick_seconds=30"


def _authority(store: GameStore, clock: Clock, seed: int = 7) -> Authority:
    seeds = random.Random(seed)
    return Authority(store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))


async def _bot_game(authority: Authority, channel: str, options: str = FAST) -> None:
    """One human and two bots playing The Big Idea in ``channel``; it waits on a deadline."""
    host = Request(platform="console", channel=channel, user="alice", name="Alice")
    assert (await authority.command(host, "bigidea", f"start {options}")).card is not None
    assert (await authority.command(host, "bigidea", "addbot 2")).card is not None
    assert (await authority.command(host, "bigidea", "begin")).begun


async def _play_out(authority: Authority, store: GameStore, clock: Clock, key: GameKey) -> None:
    """Let the clock decide everything the human does not until the game is over."""
    for _ in range(400):
        _, loaded = await store.load(key)
        assert loaded is not None
        rec = GameRecord.model_validate_json(loaded.data)
        if rec.status == "finished":
            return
        clock.now = (rec.deadline_due or clock.now) + 1
        await authority.fire_due(key.platform)
    raise AssertionError("the game never ended")


# --- deadlines -------------------------------------------------------------------------------


_CLAIMER = textwrap.dedent(
    """
    import asyncio, sys
    from storage import GameStore

    async def main() -> None:
        store = GameStore.from_url(sys.argv[1])
        claimed = await store.claim_due("console", float(sys.argv[2]), 5.0, "doomed-worker")
        print(len(claimed), flush=True)
        await asyncio.sleep(3600)  # a worker that claimed and then hangs until it is killed

    asyncio.run(main())
    """
)


async def test_a_deadline_claimed_by_a_killed_worker_fires_once_its_lease_ends(
    store: GameStore, clock: Clock, redis_url: str
) -> None:
    authority = _authority(store, clock)
    channels = [f"table-{n}" for n in range(3)]
    for channel in channels:
        await _bot_game(authority, channel)
    due = max([(await store.deadline_of(GameKey("console", c))) or 0.0 for c in channels])
    # Another worker (a real process) claims every due deadline, then dies with SIGKILL.
    worker = subprocess.Popen(
        [sys.executable, "-c", _CLAIMER, redis_url, str(due + 1)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None
        claimed = await asyncio.to_thread(worker.stdout.readline)
        assert int(claimed) == len(channels)
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait()
    versions = {c: (await store.load(GameKey("console", c)))[1] for c in channels}
    clock.now = due + 1
    assert await authority.fire_due("console") == []  # still leased to the dead worker
    clock.now = due + 1 + Settings().deadline_lease_seconds
    fired = await authority.fire_due("console")
    assert sorted(out.channel for out in fired) == channels
    for channel in channels:
        before = versions[channel]
        _, after = await store.load(GameKey("console", channel))
        assert before is not None and after is not None and after.version == before.version + 1


async def test_a_poisoned_game_is_retried_then_parked_while_the_others_fire(
    store: GameStore, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    authority = _authority(store, clock)
    healthy = [f"ok-{n}" for n in range(4)]
    for channel in [*healthy, "poisoned"]:
        await _bot_game(authority, channel)
    bad = GameKey("console", "poisoned")
    _, loaded = await store.load(bad)
    assert loaded is not None
    # A record that reads but that the rules trip over (a bug, a bad migration): firing it
    # raises every time. (One that cannot be read at all is set aside instead:
    # tests/test_damaged_and_retention.py.)
    record = GameRecord.model_validate_json(loaded.data)
    state = json.loads(record.state_json or "{}")
    state["picks"], state["hands"] = [], []  # the seats' picks and hands are gone
    record.state_json = json.dumps(state)
    await store.client.hset("boardroom:{console:poisoned}:game", "data", record.model_dump_json())
    fired: dict[str, int] = {}
    for _ in range(PARK_AFTER + 3):
        clock.now += 3_600
        for out in await authority.fire_due("console"):
            fired[out.channel] = fired.get(out.channel, 0) + 1
    assert set(fired) == set(healthy), "every healthy game's clock ran on"
    assert bad in authority.parked
    assert any("poisoned" in r.getMessage() for r in caplog.records if r.levelname == "ERROR")
    due = await store.deadline_of(bad)
    assert due is not None, "a parked game keeps its deadline entry, retried later"


async def test_the_deadline_loop_outlives_errors_and_reports_its_heartbeat(
    spawn_redis: Callable[[int | None], LocalRedisServer], clock: Clock
) -> None:
    server = spawn_redis(None)
    store = GameStore.from_url(server.url)
    authority = _authority(store, clock)
    beat = Heartbeat(0.01)
    stop = asyncio.Event()
    delivered: list[str] = []

    async def sink(out: Any) -> None:
        delivered.append(out.channel)

    loop = asyncio.create_task(run_deadlines(authority, "console", sink, 0.01, stop, beat))
    try:
        await _bot_game(authority, CHANNEL)
        server.stop()  # Redis goes away: the loop backs off, it does not die
        await until(lambda: beat.failing_since is not None, "the runner noticed Redis was gone")
        assert not loop.done() and beat.failing_since is not None
        spawn_redis(server.port)
        await _bot_game(authority, "after")  # (the restarted server kept nothing)
        clock.now += 3_600
        await until(lambda: "after" in delivered, "the runner fired the game made after")
        assert beat.failing_since is None and beat.alive()
    finally:
        stop.set()
        await loop
        await store.close()


async def test_a_stuck_channel_never_delays_another_channels_deadline(store: GameStore) -> None:
    """Each fired Outbox is delivered in a task of its own: while one channel's delivery hangs
    (a platform that does not answer), a deadline of another channel is delivered on time, and
    the stuck channel's next Outbox waits behind its first (in order within a channel)."""
    clock = Clock()
    authority = _authority(store, clock)
    stop = asyncio.Event()
    stuck = asyncio.Event()
    delivered: list[str] = []

    async def sink(out: Any) -> None:
        if out.channel == "slow" and "slow" not in delivered:
            delivered.append("slow")
            await stuck.wait()  # the first delivery of "slow" hangs until released
            delivered.append("slow released")
            return
        delivered.append(out.channel)

    await _bot_game(authority, "slow")
    await _bot_game(authority, "fast")
    loop = asyncio.create_task(run_deadlines(authority, "console", sink, 0.01, stop))
    try:
        clock.now += 3_600  # both games' deadlines are due
        await until(
            lambda: "fast" in delivered and "slow" in delivered, "both deadlines were delivered"
        )
        assert "slow released" not in delivered
        clock.now += 3_600  # again: "fast" goes on, "slow" queues behind its stuck delivery
        await until(lambda: delivered.count("fast") >= 2, "the fast channel's second delivery")
        assert delivered.count("slow") == 1
        stuck.set()
        await until(lambda: delivered.count("slow") >= 2, "the slow channel's queued delivery")
        assert delivered.index("slow released") < len(delivered) - 1
        assert delivered[delivered.index("slow released") + 1 :].count("slow") >= 1
    finally:
        stuck.set()
        stop.set()
        await loop
        await store.close()


# --- truthful answers -------------------------------------------------------------------------


class _LostReply(GameStore):
    """The real store, but the reply to one save is lost after Redis ran it (a network cut)."""

    lose = 0
    freeze: Callable[[], None] | None = None

    async def save(self, key: GameKey, data: str, **kwargs: Any) -> SaveResult:
        result = await super().save(key, data, **kwargs)
        if self.lose:
            self.lose -= 1
            if self.freeze is not None:
                self.freeze()
            raise StorageUnavailable()
        return result


def _lossy(url: str) -> _LostReply:
    plain = GameStore.from_url(url)
    return _LostReply(plain.client)


async def test_a_move_whose_reply_was_lost_is_confirmed_not_reported_as_failed(
    redis_url: str, clock: Clock
) -> None:
    store = _lossy(redis_url)
    await store.client.flushdb()
    authority = _authority(store, clock)
    await lobby(authority, ["alice", "bob", "carol"], options=FAST)
    store.lose = 1
    out = await authority.command(req("alice", delivery="begin-1"), "bigidea", "begin")
    assert not out.unavailable and out.begun and out.board is not None, reply_text(out, "alice")
    rec = await record(store)
    assert rec.status == "playing"
    assert await store.deadline_of(KEY) == rec.deadline_due  # an applied move has its deadline
    again = await authority.command(req("alice", delivery="begin-1"), "bigidea", "begin")
    assert again.duplicate  # the platform's retry of the same delivery applies nothing
    await store.close()


async def test_redis_frozen_after_a_save_says_the_move_is_uncertain_then_shows_it(
    spawn_redis: Callable[[int | None], LocalRedisServer], clock: Clock
) -> None:
    server = spawn_redis(None)
    store = _lossy(server.url)
    authority = _authority(store, clock)
    authority.confirm_s = 0.5  # the read-back's budget (3 s in production)
    pid = int((await store.client.info("server"))["process_id"])
    try:
        await lobby(authority, ["alice", "bob", "carol"], options=FAST)
        store.lose = 1
        store.freeze = lambda: os.kill(pid, signal.SIGSTOP)
        out = await authority.command(req("alice"), "bigidea", "begin")
        assert out.unavailable
        said = reply_text(out, "alice")
        assert "can't tell yet whether it counted" in said and "status" in said
        os.kill(pid, signal.SIGCONT)
        rec = await record(store)
        assert rec.status == "playing"  # it had counted; status now shows it
    finally:
        os.kill(pid, signal.SIGCONT)
        await store.close()


async def test_a_delivery_is_handled_only_once_its_move_is_saved(
    spawn_redis: Callable[[int | None], LocalRedisServer], clock: Clock
) -> None:
    server = spawn_redis(None)
    store = GameStore.from_url(server.url)
    authority = _authority(store, clock)
    try:
        await lobby(authority, ["alice"], options=FAST)
        server.stop()
        failed = await authority.command(req("bob", delivery="join-7"), "bigidea", "join")
        assert failed.unavailable and reply_text(failed, "bob") == UNAVAILABLE
        spawn_redis(server.port)
        await lobby(authority, ["alice"], options=FAST)  # the restarted server kept nothing
        for _ in range(100):  # the platform retries the same delivery: this time it counts
            retried = await authority.command(req("bob", delivery="join-7"), "bigidea", "join")
            if not retried.unavailable:
                break
            await asyncio.sleep(0.05)
        assert not retried.duplicate and retried.card is not None
        assert "Bob joined." in retried.card.text
        assert [s.name for s in (await record(store)).seats] == ["Alice", "Bob"]
    finally:
        await store.close()


# --- clean indexes, long games ----------------------------------------------------------------


async def test_a_game_that_ends_by_play_leaves_every_players_list(
    store: GameStore, clock: Clock
) -> None:
    authority = _authority(store, clock)
    await _bot_game(authority, CHANNEL)
    assert await store.games_of("console", "alice") == [KEY]
    assert await store.client.ttl("boardroom:user:{console:alice}:games") > 0
    await _play_out(authority, store, clock, KEY)
    assert await store.games_of("console", "alice") == []
    hands = await authority.hands(req("alice"))
    assert "not seated in any game" in reply_text(hands[0], "alice")


async def test_a_long_game_replays_from_its_snapshot(store: GameStore, clock: Clock) -> None:
    store.snapshot_every = 4  # a snapshot every few moves: this game's log gets several
    authority = _authority(store, clock)
    await _bot_game(authority, CHANNEL)
    await _play_out(authority, store, clock, KEY)
    history = await store.read_history(KEY)
    assert history.snapshot is not None
    # The save that ended the game packed the log: the snapshot and the lines after it.
    assert await store.client.type(f"boardroom:{{{KEY}}}:log") == "string"
    assert len(history.lines) <= store.snapshot_every + 1
    rec = await record(store)
    rebuilt = replay_history(erase(GAME), rec.seed, rec.options, rec.first_version, history)
    assert rebuilt is not None and rebuilt.model_dump(mode="json") == rec.state


# --- bounded input ----------------------------------------------------------------------------


async def test_numbers_out_of_range_and_odd_unicode_get_a_sentence(
    store: GameStore, clock: Clock
) -> None:
    authority = _authority(store, clock)
    out = await authority.command(req("alice"), "bigidea", "start vote_seconds=" + "9" * 400)
    assert "`vote_seconds` takes a whole number from 0 to 604,800" in reply_text(out, "alice")
    odd = Request(platform="console", channel=CHANNEL, user="u1", name="Zo\udc80e \u202e")
    out = await authority.command(odd, "bigidea", "start")
    assert out.card is not None and "Zo\ufffde" in out.card.text
    out = await authority.command(req("bob"), "bigidea", "join")
    await authority.command(req("carol"), "bigidea", "join")
    out = await authority.command(odd, "bigidea", "begin")
    assert out.begun, reply_text(out, "u1")
    pitch = await authority.command(odd, "bigidea", "pitch \ud800 nonsense")
    assert pitch.deliveries  # answered with a sentence (too early to pitch), never a crash
    json.dumps(pitch.model_dump(mode="json"))


# --- liveness ---------------------------------------------------------------------------------


async def test_slack_http_health_check_says_what_is_wrong(
    spawn_redis: Callable[[int | None], LocalRedisServer], clock: Clock
) -> None:

    server = spawn_redis(None)
    store = GameStore.from_url(server.url)
    authority = _authority(store, clock)
    adapter = SlackAdapter(authority, BudgetedWebClient(token="xoxb-x"), "secret")
    beat = Heartbeat(0.01)
    runner, port = await serve_http(adapter, "127.0.0.1", 0, lambda: health(authority, beat))
    try:
        async with ClientSession() as session:
            url = f"http://127.0.0.1:{port}{HEALTH_PATH}"
            async with session.get(url) as answer:
                assert answer.status == 200
                assert (await answer.json())["redis"] == "ok"
            server.stop()
            async with session.get(url) as answer:
                body = await answer.json()
                assert answer.status == 503 and body["redis"] == "unreachable"
    finally:
        await runner.cleanup()
        await store.close()


async def test_a_runtime_whose_deadline_loop_ends_exits_non_zero() -> None:
    async def broken() -> None:
        raise RuntimeError("the loop is gone")

    stop = asyncio.Event()
    assert await until_stopped(stop, asyncio.create_task(broken())) == LOOP_DIED
    assert stop.is_set()  # the rest of the runtime shuts down too

    stop = asyncio.Event()
    running = asyncio.create_task(asyncio.sleep(3600))
    asyncio.get_running_loop().call_soon(stop.set)
    assert await until_stopped(stop, running) == 0  # an ordinary stop
    running.cancel()


async def test_a_game_that_ends_on_a_timeout_leaves_no_deadline_or_lease(
    store: GameStore, clock: Clock
) -> None:
    authority = _authority(store, clock)
    await _bot_game(authority, CHANNEL)
    await _play_out(authority, store, clock, KEY)
    # The final save, a fired deadline's, arms its game once more a lease later, before the
    # result's reminder: that claim brings the table the game as it is (should the worker have
    # died before delivering) and records the result (should it have died before recording);
    # once it fires, with the result recorded, nothing is left.
    lease = Settings().deadline_lease_seconds
    assert lease < REMINDER_S and await store.deadline_of(KEY) == clock.now + lease
    clock.now += lease
    (repair,) = await authority.fire_due(KEY.platform)
    assert repair.repair and repair.ended and repair.card is not None and repair.log == []
    assert await store.deadline_of(KEY) is None
    assert await store.client.hlen("boardroom:{deadlines:console}:lease") == 0


# --- a delivery lost with its worker ---------------------------------------------------------


class _Console(Recorder):
    """The table-test platform, named as the authority's requests here are."""

    name = "console"


async def _delivered_game(authority: Authority, table: Table) -> None:
    """Alice and two bots begin The Big Idea in the channel, every answer shown."""
    host = Request(platform="console", channel=CHANNEL, user="alice", name="Alice")
    for text in (f"start {FAST}", "addbot 2", "begin"):
        await table.deliver(await authority.command(host, "bigidea", text))


async def _refs(store: GameStore) -> Refs:
    _, _, refs = await store.load_table(KEY)
    assert refs is not None
    return Refs.model_validate_json(refs[1])


async def _state(store: GameStore) -> BigIdeaState:
    rec = await record(store)
    return BigIdeaState.model_validate_json(rec.state_json or "")


async def _fire_due_deadline(authority: Authority, store: GameStore, clock: Clock) -> Outbox:
    rec = await record(store)
    clock.now = (rec.next_due or clock.now) + 1
    (fired,) = await authority.fire_due("console")
    return fired


async def test_a_timeout_whose_worker_died_before_delivering_is_shown_a_lease_later(
    store: GameStore, clock: Clock
) -> None:
    """The worker that saved a Timeout dies before delivering it: a lease later the game is
    claimed again and its table brought up to date; where the delivery landed, that claim
    changes nothing on the platform."""
    authority = _authority(store, clock)
    platform = _Console()
    table = Table(store, platform, 3600, clock=VirtualClock())  # pacing on no real clock
    await _delivered_game(authority, table)
    lease = Settings().deadline_lease_seconds

    lost = await _fire_due_deadline(authority, store, clock)  # Alice's pick runs out
    now = await _state(store)
    shown = await _refs(store)
    assert lost.version == now.version > shown.version and shown.board is not None
    assert lost.board is not None  # the board the lost delivery was to show, less its news
    was = platform.texts[shown.board.id]
    fresh = [line for line in lost.board.plain_text().splitlines() if line not in was]
    assert fresh
    clock.now += lease
    (repair,) = await authority.fire_due("console")
    assert repair.repair and repair.version == lost.version and repair.log == []
    await table.deliver(repair)
    assert (await _refs(store)).version == lost.version
    assert all(line in platform.texts[shown.board.id] for line in fresh)  # edited in place
    panel = (await _refs(store)).panels["alice"]
    assert platform.texts[panel.id] == GAME.render_private(now, 0).plain_text()

    # A delivery that landed: the claim a lease later has nothing to change.
    landed = await _fire_due_deadline(authority, store, clock)
    await table.deliver(landed)
    calls = len(platform.calls)
    clock.now += lease
    (check,) = await authority.fire_due("console")
    await table.deliver(check)
    assert check.repair and len(platform.calls) == calls


async def test_the_end_whose_worker_died_before_delivering_it_is_shown_a_lease_later(
    store: GameStore, clock: Clock
) -> None:
    """The Timeout that ends the game is saved, and its worker dies before delivering: a lease
    later the card shows the final standings, the result is posted once and the panels close."""
    authority = _authority(store, clock)
    platform = _Console()
    table = Table(store, platform, 3600, clock=VirtualClock())  # pacing on no real clock
    await _delivered_game(authority, table)
    while not (fired := await _fire_due_deadline(authority, store, clock)).ended:
        calls = len(platform.calls)
        await table.deliver(fired)
        # A lease's claim after a delivery that landed (no deadline came first) changes nothing.
        assert not fired.repair or len(platform.calls) == calls
    shown = await _refs(store)
    assert shown.card is not None and not shown.ended
    assert "final standings" not in platform.texts[shown.card.id]

    clock.now += Settings().deadline_lease_seconds
    (repair,) = await authority.fire_due("console")
    assert repair.repair and repair.ended and repair.version == fired.version
    await table.deliver(repair)
    shown = await _refs(store)
    assert shown.ended and shown.card is not None
    assert "final standings" in platform.texts[shown.card.id]
    assert platform.calls.count(("post", "result")) == 1
    assert platform.texts[shown.panels["alice"].id] == GAME_OVER
    assert await authority.fire_due("console") == []  # nothing is left to claim
    assert await store.deadline_of(KEY) is None
