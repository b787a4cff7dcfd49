"""GameStore and the authority on a real Redis Cluster on loopback (see the cluster fixtures).

Channels are many and varied so that games land in slots of every master; the failover test kills
a master mid-play and checks that the bot rides the outage out by itself on the same objects.
"""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from bot.commands.authority import UNAVAILABLE, Authority, Request
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.runtime import open_store, warn_about_policy
from bot.settings import Settings
from storage import GameKey, GameStore, Loaded, SaveResult, StorageUnavailable
from testkit.local_server import LocalRedisCluster
from tests.authority_support import Clock
from tests.records import plain_state

TTL_S = 3600
# Long enough for a failover (about node timeout + election: 2-3 s here), bounded all the same.
RECOVERY_TIMEOUT_S = 30.0


def _game_name(key: GameKey) -> str:
    return f"boardroom:{{{key}}}:game"


def _keys(count: int, platform: str = "discord") -> list[GameKey]:
    return [GameKey(platform, f"chan-{i}:{i * 7919}") for i in range(count)]


def _cluster_client(store: GameStore) -> RedisCluster:
    client = store.client
    assert isinstance(client, RedisCluster)
    return client


# --- the store ---------------------------------------------------------------------------------


async def test_from_url_builds_a_cluster_client(redis_cluster: LocalRedisCluster) -> None:
    store = GameStore.from_url(redis_cluster.url, cluster=True)
    assert store.cluster and not store.embedded
    assert isinstance(store.client, RedisCluster)
    await store.ping()
    await store.close()
    assert not GameStore.from_url(redis_cluster.url).cluster


async def test_redis_cluster_setting_opens_a_cluster_store(
    redis_cluster: LocalRedisCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    assert Settings(REDIS_CLUSTER="true").redis_cluster
    assert not Settings(REDIS_CLUSTER="false").redis_cluster
    store = open_store(Settings(REDIS_URL=redis_cluster.url, REDIS_CLUSTER="true"))
    assert store.cluster
    await warn_about_policy(store)  # noeviction everywhere: nothing to say
    assert capsys.readouterr().err == ""
    await store.close()
    assert open_store(Settings(REDIS_CLUSTER="true")).embedded  # no URL: the embedded store


async def test_games_spread_over_every_master(
    redis_cluster: LocalRedisCluster, cluster_store: GameStore
) -> None:
    keys = _keys(30)
    masters = {redis_cluster.master_of(_game_name(key)).port for key in keys}
    assert len(masters) == redis_cluster.masters  # the tests below do cross every node
    for key in keys:
        saved = await cluster_store.save(
            key, f'{{"n": "{key}"}}', expected=None, version=1, ttl_s=TTL_S
        )
        assert saved is SaveResult.WRITTEN
    for key in keys:
        assert await cluster_store.load(key) == (True, Loaded(1, f'{{"n": "{key}"}}'))


async def test_compare_and_set_on_many_slots(cluster_store: GameStore) -> None:
    keys = _keys(12, "slack")
    big = "x" * 5000  # stored compressed
    for key in keys:
        assert await cluster_store.save(key, big, expected=None, version=1, ttl_s=TTL_S)
        conflict = await cluster_store.save(key, "again", expected=None, version=1, ttl_s=TTL_S)
        assert conflict is SaveResult.CONFLICT
    results = await asyncio.gather(
        *(
            cluster_store.save(key, f"{key}:{who}", expected=1, version=2, ttl_s=TTL_S)
            for key in keys
            for who in ("alice", "bob")
        )
    )
    assert [r is SaveResult.WRITTEN for r in results].count(True) == len(keys)
    for key in keys:
        _, loaded = await cluster_store.load(key)
        assert loaded is not None and loaded.version == 2
        assert loaded.data in (f"{key}:alice", f"{key}:bob")
        stale = await cluster_store.save(key, "stale", expected=1, version=2, ttl_s=TTL_S)
        assert stale is SaveResult.CONFLICT


async def test_log_delete_and_memory(cluster_store: GameStore) -> None:
    for key in _keys(8):
        assert await cluster_store.save(key, "1", expected=None, version=1, log="a", ttl_s=TTL_S)
        assert await cluster_store.save(key, "2", expected=1, version=2, log="b", ttl_s=TTL_S)
        assert await cluster_store.read_log(key) == ["a", "b"]
        assert await cluster_store.memory_usage(key) > 0
        await cluster_store.delete(key)
        assert await cluster_store.load(key) == (True, None)
        assert await cluster_store.read_log(key) == []
        assert await cluster_store.memory_usage(key) == 0
    assert cluster_store._memory_command  # MEMORY USAGE itself ran on the cluster


async def test_table_refs_on_the_cluster(cluster_store: GameStore) -> None:
    keys = _keys(8)
    for key in keys:
        assert await cluster_store.set_table_refs(key, f'{{"card": "m-{key}"}}', 60, 0) == 1
        table = f"boardroom:{{{key}}}:refs"
        assert 0 < await cluster_store.client.ttl(table) <= 60
        assert key_slot(table.encode()) == key_slot(_game_name(key).encode())
        racing = [cluster_store.set_table_refs(key, "{}", 60, expected=1) for _ in "xyz"]
        assert sorted(await asyncio.gather(*racing), key=lambda rev: rev or 0)[-1] == 2
    for key in keys:  # every channel kept its own refs
        assert await cluster_store.table_refs(key) == (2, "{}")
        await cluster_store.delete(key)
        assert await cluster_store.table_refs(key) is None


async def test_deadlines_on_the_cluster(cluster_store: GameStore) -> None:
    keys = _keys(20)
    for i, key in enumerate(keys):
        if i % 2:
            await cluster_store.arm(key, 100.0 + i)
        else:  # armed by the save itself: on a cluster, arm then save
            saved = await cluster_store.save(
                key, "d", expected=None, version=1, ttl_s=TTL_S, due=100.0 + i
            )
            assert saved is SaveResult.WRITTEN
    assert [await cluster_store.deadline_of(key) for key in keys] == [
        100.0 + i for i in range(len(keys))
    ]
    assert await cluster_store.claim_due("discord", 50.0, 5.0, "early") == []
    batches = await asyncio.gather(
        *(cluster_store.claim_due("discord", 200.0, 5.0, f"w{n}", limit=3) for n in range(10))
    )
    claimed = [key for batch in batches for key in batch]
    assert sorted(claimed, key=str) == sorted(keys, key=str)  # each exactly once
    for key in keys:
        assert await cluster_store.release(key, "w-nobody", None) is False
    assert await cluster_store.claim_due("slack", 200.0, 5.0, "other platform") == []


async def test_user_index_and_dedupe(cluster_store: GameStore) -> None:
    keys = _keys(10)
    for n, key in enumerate(keys):
        for user in (f"alice{n}", f"bob{n}", "carol"):
            await cluster_store.index_user("discord", user, key, True, TTL_S)
    assert await cluster_store.games_of("discord", "carol") == sorted(keys, key=str)
    await cluster_store.index_user("discord", "carol", keys[0], False, TTL_S)
    assert keys[0] not in await cluster_store.games_of("discord", "carol")
    assert await cluster_store.games_of("discord", "alice3") == [keys[3]]

    for key in keys:
        # A delivery: fresh until its move is saved, then a retry is a duplicate.
        assert (await cluster_store.load(key, dedupe="discord:i-1"))[0]
        written = await cluster_store.save(
            key, "m", expected=None, version=1, ttl_s=TTL_S, dedupe="discord:i-1"
        )
        assert written is SaveResult.WRITTEN
        assert not (await cluster_store.load(key, dedupe="discord:i-1"))[0]
        again = await cluster_store.save(
            key, "m", expected=1, version=2, ttl_s=TTL_S, dedupe="discord:i-1"
        )
        assert again is SaveResult.DUPLICATE
        assert await cluster_store.mark_handled(key, "discord:i-2", 60)
        assert not await cluster_store.mark_handled(key, "discord:i-2", 60)


async def test_policy_warning_names_an_evicting_node(
    redis_cluster: LocalRedisCluster, cluster_store: GameStore
) -> None:
    assert await cluster_store.check_policy() is None
    client = _cluster_client(cluster_store)
    node = client.get_nodes()[-1]
    await client.config_set("maxmemory-policy", "volatile-lru", target_nodes=node)
    try:
        warning = await cluster_store.check_policy()
    finally:
        await client.config_set("maxmemory-policy", "noeviction", target_nodes=node)
    assert warning is not None and "volatile-lru" in warning and "noeviction" in warning


async def test_unreachable_or_not_a_cluster_is_unavailable(redis_url: str) -> None:
    nowhere = GameStore.from_url("redis://127.0.0.1:1", cluster=True)
    not_a_cluster = GameStore.from_url(redis_url, cluster=True)
    for store in (nowhere, not_a_cluster):
        with pytest.raises(StorageUnavailable):
            await store.load(GameKey("discord", "1"))
        with pytest.raises(StorageUnavailable):
            await store.check_policy()
        await store.close()


async def test_calls_racing_a_layout_refresh_are_ok_or_unavailable(
    redis_cluster: LocalRedisCluster,
) -> None:
    """redis-py drops its whole layout (and connections) on CLUSTERDOWN and similar replies; calls
    in flight or arriving meanwhile race its re-initialization. Each must work or say
    "unavailable", and the store works afterwards."""
    store = GameStore.from_url(redis_cluster.url, cluster=True)
    outcomes: list[str] = []

    async def call(n: int) -> None:
        key = GameKey("discord", f"race-{n}")
        try:
            await store.save(key, "x", expected=None, version=1, ttl_s=60, dedupe="d")
            await store.load(key, dedupe="d")
            outcomes.append("ok")
        except StorageUnavailable:
            outcomes.append("unavailable")

    async def refresh() -> None:
        for _ in range(3):
            await asyncio.sleep(0.002)
            await _cluster_client(store).aclose()  # what redis-py does on CLUSTERDOWN

    try:
        for _ in range(3):
            await asyncio.gather(refresh(), *(call(n) for n in range(60)))
        assert set(outcomes) <= {"ok", "unavailable"} and len(outcomes) == 180
        await store.ping()
        assert (await store.load(GameKey("discord", "race-1")))[1] is not None
    finally:
        await store.close()


# --- the authority -----------------------------------------------------------------------------


def _req(channel: str, user: str) -> Request:
    return Request(platform="console", channel=channel, user=user, name=user.title())


async def _open_bot_game(authority: Authority, channel: str) -> None:
    """Alice and three bots, every phase timed: the clock alone plays the game to its end."""
    options = "pick_seconds=30 vote_seconds=20 turn_seconds=10"
    out = await authority.command(_req(channel, "alice"), "bigidea", f"start {options}")
    assert out.card is not None, out
    await authority.command(_req(channel, "alice"), "bigidea", "addbot 3")
    out = await authority.command(_req(channel, "alice"), "bigidea", "begin")
    assert not out.unavailable and out.board is not None


async def _record(store: GameStore, key: GameKey) -> GameRecord:
    _, loaded = await store.load(key)
    assert loaded is not None
    return GameRecord.model_validate_json(loaded.data)


async def _play_out(authority: Authority, clock: Clock, keys: list[GameKey]) -> None:
    """Fire deadlines (the clock jumps past every game's next one) until every game is over."""
    for _ in range(400):
        records = [await _record(authority.store, key) for key in keys]
        if all(r.status == "finished" for r in records):
            return
        clock.now += 60
        await authority.fire_due("console")
    pytest.fail("the games did not finish")


def _channels_on_every_master(cluster: LocalRedisCluster, per_master: int) -> list[str]:
    chosen: dict[int, list[str]] = {}
    for n in range(1000):
        channel = f"table-{n}"
        port = cluster.master_of(_game_name(GameKey("console", channel))).port
        if len(chosen.setdefault(port, [])) < per_master:
            chosen[port].append(channel)
        if len(chosen) == cluster.masters and all(len(c) == per_master for c in chosen.values()):
            break
    return [channel for channels in chosen.values() for channel in channels]


async def test_bot_games_play_to_the_end_on_the_cluster(
    redis_cluster: LocalRedisCluster, cluster_store: GameStore
) -> None:
    clock = Clock()
    seeds = random.Random(3)
    authority = Authority(
        cluster_store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63)
    )
    channels = _channels_on_every_master(redis_cluster, 2)
    for channel in channels:
        await _open_bot_game(authority, channel)
    keys = [GameKey("console", channel) for channel in channels]
    await _play_out(authority, clock, keys)
    for key in keys:
        record = await _record(cluster_store, key)
        assert plain_state(record)["outcome"]["standings"]
        assert await cluster_store.read_log(key)
    assert await cluster_store.games_of("console", "alice") == []  # finished games leave it


# --- failover ----------------------------------------------------------------------------------


async def _until_available(check: Callable[[], Awaitable[Any]]) -> Any:
    """``check()`` once it stops raising StorageUnavailable, polling within a bound."""
    deadline = time.monotonic() + RECOVERY_TIMEOUT_S
    while True:
        try:
            return await check()
        except StorageUnavailable:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def test_failover_mid_play_is_an_outage_that_heals(
    failover_cluster: LocalRedisCluster,
) -> None:
    cluster = failover_cluster
    store = GameStore.from_url(cluster.url, cluster=True)
    clock = Clock()
    seeds = random.Random(5)
    authority = Authority(store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))
    try:
        channels = _channels_on_every_master(cluster, 1)
        keys = [GameKey("console", channel) for channel in channels]
        for channel in channels:
            await _open_bot_game(authority, channel)
        for _ in range(3):  # some rounds of play, every one acknowledged
            clock.now += 60
            assert await authority.fire_due("console")
        acknowledged = {key: (await store.load(key))[1] for key in keys}

        victim_key = keys[0]
        victim = cluster.master_of(_game_name(victim_key))
        assert cluster.replicas_of(victim)
        # Replication is asynchronous: a write no replica has yet dies with its master (Redis's
        # limit, not the bot's). Wait until the replica has everything, then crash the master.
        client = _cluster_client(store)
        node = client.get_node_from_key(_game_name(victim_key))
        assert node is not None
        assert await client.execute_command("WAIT", 1, 5000, target_nodes=node) >= 1
        cluster.kill(victim)

        # During the outage every call says "unavailable" (or works, for a slot that is served):
        # nothing else escapes, neither from the store nor from the authority.
        outcomes: list[str] = []
        out = await authority.command(_req(channels[0], "bob"), "bigidea", "status")
        assert out.unavailable and UNAVAILABLE in "\n".join(d.message.text for d in out.deliveries)
        outcomes.append("unavailable")
        calls: list[Callable[[], Awaitable[object]]] = [
            lambda: store.load(victim_key, dedupe="console:d1"),
            lambda: store.save(victim_key, "x", expected=1, version=2, ttl_s=TTL_S),
            lambda: store.read_log(victim_key),
            lambda: store.table_refs(victim_key),
            lambda: store.set_table_refs(victim_key, "{}", 60, expected=0),
            lambda: store.memory_usage(victim_key),
            lambda: store.index_user("console", "zed", victim_key, True, TTL_S),
            lambda: store.ping(),
            lambda: authority.fire_due("console"),
        ]
        # All at once: each rides out the client's retries on its own.
        for result in await asyncio.gather(*(call() for call in calls), return_exceptions=True):
            if isinstance(result, BaseException) and not isinstance(result, StorageUnavailable):
                raise result
            outcomes.append("unavailable" if isinstance(result, StorageUnavailable) else "ok")
        assert "unavailable" in outcomes

        # Until a replica has taken over: the victim's game stays unavailable and the others are
        # served or unavailable (a cluster is down for every slot while one has no master).
        deadline = time.monotonic() + RECOVERY_TIMEOUT_S
        while time.monotonic() < deadline:
            served = []
            for key in keys:
                try:
                    await store.load(key)
                    await store.table_refs(key)
                    served.append(key)
                except StorageUnavailable:
                    pass
            if victim_key in served:
                break
            await asyncio.sleep(0.02)

        # Then the same store and authority work again, and every acknowledged save is there.
        loaded = await _until_available(lambda: store.load(victim_key))
        assert loaded == (True, acknowledged[victim_key])
        for key in keys:
            assert (await _until_available(functools.partial(store.load, key)))[1] == (
                acknowledged[key]
            )
        assert cluster.master_of(_game_name(victim_key)).port != victim.port
        out = await _until_available(
            lambda: _unless_unavailable(
                authority.command(_req(channels[0], "bob"), "bigidea", "status")
            )
        )
        assert not out.unavailable
        await _until_available(lambda: _play_out(authority, clock, keys))
    finally:
        await store.close()


async def _unless_unavailable(call: Awaitable[Outbox]) -> Outbox:
    out = await call
    if out.unavailable:
        raise StorageUnavailable()
    return out
