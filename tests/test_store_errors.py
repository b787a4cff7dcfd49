"""What the store makes of Redis refusing commands: a full Redis, missing permissions, an evicting
``maxmemory-policy``, and errors that are bugs and must stay visible. Real redis-servers."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
import redis.exceptions as rexc

from bot.commands.authority import Authority, Request
from bot.commands.outbox import Outbox
from bot.runtime import warn_about_policy
from bot.settings import Settings
from storage import (
    GameKey,
    GameStore,
    Loaded,
    StorageBusy,
    StorageFull,
    StorageRefused,
    StorageUnavailable,
)
from storage.store import _as_unavailable
from testkit.local_server import LocalRedisServer, RedisServerError

KEY = GameKey("console", "table-1")
TTL_S = 3600


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LocalRedisServer]:
    """A private redis-server that refuses writes when full (its memory limit is set by tests)."""
    server = LocalRedisServer(None, tmp_path, args=["--maxmemory-policy", "noeviction"])
    try:
        server.start()
    except RedisServerError as exc:
        pytest.fail(str(exc), pytrace=False)
    yield server
    server.stop()


def _req(user: str) -> Request:
    return Request(platform="console", channel=KEY.channel, user=user, name=user.title())


def _said(out: Outbox, user: str) -> str:
    return "\n".join(d.message.text for d in out.deliveries if d.user == user)


async def _used(client: aioredis.Redis) -> int:
    return int((await client.info("memory"))["used_memory"])


async def _fill(client: aioredis.Redis) -> None:
    """Set maxmemory a little above what is used and write until Redis refuses; then keep it
    full: Redis frees idle clients' buffers in the background, which could let a small write in
    again, so the limit goes below what is used (Redis accepts that, and evicts nothing)."""
    try:
        await client.config_set("maxmemory", await _used(client) + 200_000)
        for n in range(10_000):
            try:
                await client.set(f"filler:{n}", "x" * 4096)
            except rexc.OutOfMemoryError:
                break
        else:
            pytest.fail("redis never ran out of memory")
        await client.config_set("maxmemory", await _used(client) - 100_000)
    finally:
        await client.aclose()


# --- a full Redis ------------------------------------------------------------------------------


async def test_a_full_redis_refuses_writes_with_a_sentence(server: LocalRedisServer) -> None:
    store = GameStore.from_url(server.url)
    try:
        await store.save(KEY, '{"n": 1}', expected=None, version=1, log="a", ttl_s=TTL_S)
        await _fill(aioredis.Redis.from_url(server.url))

        writes: list[Callable[[], Awaitable[object]]] = [
            lambda: store.save(KEY, '{"n": 2}', expected=1, version=2, log="b", ttl_s=TTL_S),
            lambda: store.save(KEY, '{"n": 2}', expected=1, version=2, ttl_s=TTL_S, due=5.0),
            lambda: store.set_table_refs(KEY, '{"card": "m-1"}', TTL_S, expected=0),
            lambda: store.mark_handled(KEY, "console:d1", 60),
            lambda: store.index_user("console", "alice", KEY, True, TTL_S),
            lambda: store.arm(KEY, 10.0),
        ]
        for write in writes:
            with pytest.raises(StorageFull) as info:
                await write()
            assert str(info.value) == StorageFull.MESSAGE
            assert isinstance(info.value, StorageUnavailable)  # what callers already catch
            assert isinstance(info.value.__cause__, rexc.OutOfMemoryError)
        # Reads still work, and nothing of the refused save was written.
        assert await store.load(KEY, dedupe="console:d1") == (True, Loaded(1, '{"n": 1}'))
        assert await store.read_log(KEY) == ["a"]
        assert await store.table_refs(KEY) is None

        await store.client.config_set("maxmemory", 0)  # the operator makes room: no restart
        assert await store.save(KEY, '{"n": 2}', expected=1, version=2, ttl_s=TTL_S)
    finally:
        await store.close()


async def _full_table(server: LocalRedisServer) -> tuple[GameStore, Authority, Loaded]:
    store = GameStore.from_url(server.url)
    authority = Authority(store, Settings())
    out = await authority.command(_req("alice"), "bigidea", "start")
    assert out.card is not None
    _, before = await store.load(KEY)
    assert before is not None
    await _fill(aioredis.Redis.from_url(server.url))
    return store, authority, before


async def test_a_full_redis_changes_no_game(server: LocalRedisServer) -> None:
    store, authority, before = await _full_table(server)
    try:
        out = await authority.command(_req("bob"), "bigidea", "join")
        assert out.unavailable and _said(out, "bob") and not out.public
        assert (await store.load(KEY))[1] == before
        await store.client.config_set("maxmemory", 0)
        out = await authority.command(_req("bob"), "bigidea", "join")
        assert not out.unavailable and out.card is not None
        assert (await store.load(KEY))[1] != before
    finally:
        await store.close()


async def test_a_full_redis_tells_the_player_why(server: LocalRedisServer) -> None:
    store, authority, _before = await _full_table(server)
    try:
        out = await authority.command(_req("bob"), "bigidea", "join")
        assert _said(out, "bob") == StorageFull.MESSAGE
    finally:
        await store.close()


# --- permissions, and errors that are bugs -----------------------------------------------------


async def test_missing_permissions_are_refusals(server: LocalRedisServer) -> None:
    admin = aioredis.Redis.from_url(server.url)
    await admin.execute_command(  # type: ignore[no-untyped-call]  # redis-py leaves it untyped
        "ACL", "SETUSER", "reader", "on", ">pw", "~*", "+@all", "-@write"
    )
    store = GameStore.from_url(f"redis://reader:pw@127.0.0.1:{server.port}/0")
    try:
        assert await store.load(KEY) == (True, None)
        with pytest.raises(StorageRefused) as info:
            await store.save(KEY, "x", expected=None, version=1, ttl_s=TTL_S)
        assert str(info.value) == StorageRefused.MESSAGE
        wrong = GameStore.from_url(f"redis://reader:nope@127.0.0.1:{server.port}/0")
        with pytest.raises(StorageRefused):
            await wrong.load(KEY)
        await wrong.close()
    finally:
        await store.close()
        await admin.aclose()


async def test_a_wrong_key_type_is_a_bug_not_an_outage(server: LocalRedisServer) -> None:
    store = GameStore.from_url(server.url)
    try:
        await store.client.set(f"boardroom:{{{KEY}}}:game", "not a hash")
        with pytest.raises(rexc.ResponseError) as info:
            await store.load(KEY)
        assert not isinstance(info.value, StorageUnavailable)
        assert "WRONGTYPE" in str(info.value)
    finally:
        await store.close()


_REPLIES: list[tuple[Exception, str | None]] = [
    # As redis-py raises them from servers' replies. It drops the code (and "ERR") from the text
    # of codes it has a class for; pipelines and Redis 6 scripts wrap the text.
    (rexc.OutOfMemoryError("command not allowed when used memory > 'maxmemory'."), "full"),
    (rexc.ResponseError("Command # 1 (SET k v) of pipeline caused error: ('OOM x',)"), "full"),
    (
        rexc.ResponseError(
            "Error running script (call to f_0a1b): @user_script:7: @user_script: 7: -OOM "
            "command not allowed when used memory > 'maxmemory'."
        ),
        "full",
    ),
    (rexc.ResponseError("MISCONF Redis is configured to save RDB snapshots"), "refused"),
    (rexc.NoPermissionError("this user has no permissions to run the 'hset'"), "refused"),
    (
        rexc.ResponseError(
            "The user executing the script can't run this command or subcommand script: "
            "eea71a5c, on @user_script:8."
        ),
        "refused",
    ),
    (rexc.AuthenticationError("invalid username-password pair"), "refused"),
    (rexc.ClusterDownError("The cluster is down"), "unavailable"),
    (rexc.MasterDownError("Link with MASTER is down"), "unavailable"),
    (rexc.TryAgainError("Multiple keys request during rehashing of slot"), "unavailable"),
    (rexc.MovedError("3999 127.0.0.1:6381"), "unavailable"),
    (rexc.AskError("3999 127.0.0.1:6381"), "unavailable"),
    (rexc.ReadOnlyError("You can't write against a read only replica."), "unavailable"),
    (rexc.SlotNotCoveredError("Slot 3999 is not covered by the cluster."), "unavailable"),
    (rexc.RedisClusterException("Redis Cluster cannot be connected."), "unavailable"),
    (rexc.ClusterError("TTL exhausted."), "unavailable"),
    (rexc.ResponseError("BUSY Redis is busy running a script."), "unavailable"),
    (rexc.ResponseError("NOREPLICAS Not enough good replicas to write."), "unavailable"),
    (rexc.BusyLoadingError("Redis is loading the dataset in memory"), "unavailable"),
    # Every pooled connection lent for as long as the call could wait: busy, said as itself.
    (rexc.MaxConnectionsError("Too many connections"), "busy"),
    (rexc.ConnectionError("No connection available."), "busy"),
    (rexc.ConnectionError("Error 111 connecting"), "unavailable"),
    (ConnectionResetError(), "unavailable"),
    # Bugs: they would fail the same way forever, so they stay as they are.
    (rexc.ResponseError("wrong number of arguments for 'hset' command"), None),
    (rexc.ResponseError("user_script:1: Script attempted to access nonexistent global"), None),
    (rexc.ResponseError("Error compiling script (new function): user_script:1: ..."), None),
    (rexc.ResponseError("WRONGTYPE Operation against a key holding the wrong kind"), None),
    (rexc.ClusterCrossSlotError("Keys in request don't hash to the same slot"), None),
    (rexc.DataError("Invalid input of type: 'dict'"), None),
]


@pytest.mark.parametrize(("error", "mapped"), _REPLIES)
def test_which_errors_are_unavailable(error: Exception, mapped: str | None) -> None:
    kinds = {"full": StorageFull, "refused": StorageRefused, "busy": StorageBusy}
    result = _as_unavailable(error)
    if mapped is None:
        assert result is None
    else:
        assert type(result) is kinds.get(mapped, StorageUnavailable)


# --- maxmemory-policy --------------------------------------------------------------------------


async def test_policy_warning(server: LocalRedisServer) -> None:
    store = GameStore.from_url(server.url)
    try:
        assert await store.check_policy() is None  # noeviction
        await store.client.config_set("maxmemory-policy", "allkeys-lru")
        warning = await store.check_policy()
        assert warning is not None and "allkeys-lru" in warning and "noeviction" in warning
    finally:
        await store.close()
    assert await GameStore.from_url(None).check_policy() is None  # the embedded store


async def test_policy_unknown_when_config_is_refused(server: LocalRedisServer) -> None:
    admin = aioredis.Redis.from_url(server.url)
    await admin.config_set("maxmemory-policy", "allkeys-lru")
    await admin.execute_command(  # type: ignore[no-untyped-call]  # redis-py leaves it untyped
        "ACL", "SETUSER", "app", "on", ">pw", "~*", "+@all", "-config"
    )
    store = GameStore.from_url(f"redis://app:pw@127.0.0.1:{server.port}/0")
    try:
        assert await store.check_policy() is None
    finally:
        await store.close()
        await admin.aclose()


async def test_warn_about_policy_is_loud(
    server: LocalRedisServer,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = GameStore.from_url(server.url)
    try:
        with caplog.at_level(logging.WARNING, logger="bot.runtime"):
            await warn_about_policy(store)
            assert capsys.readouterr().err == ""
            await store.client.config_set("maxmemory-policy", "volatile-ttl")
            await warn_about_policy(store)
        err = capsys.readouterr().err
        assert err.startswith("WARNING: ") and "volatile-ttl" in err
        assert [r.levelno for r in caplog.records if "volatile-ttl" in r.message] == [
            logging.WARNING
        ]
        server.stop()
        await warn_about_policy(store)  # unreachable: logged, not raised, not shouted
        assert capsys.readouterr().err == ""
    finally:
        await store.close()
