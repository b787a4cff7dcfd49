"""GameStore against a real redis-server and the embedded store (see the ``store`` fixture)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis.crc import key_slot

from storage import GameKey, GameStore, History, Loaded, SaveResult, StorageUnavailable
from storage.store import _unpack
from tests.conftest import RedisServer

KEY = GameKey("discord", "123456")
TTL_S = 3600


async def _create(store: GameStore, key: GameKey = KEY, data: str = '{"n": 1}') -> None:
    assert await store.save(key, data, expected=None, version=1, log="create", ttl_s=TTL_S)


# GameKey


@given(
    platform=st.text(min_size=1).filter(lambda p: ":" not in p),
    channel=st.text(min_size=1),
)
def test_game_key_parse_inverts_str(platform: str, channel: str) -> None:
    key = GameKey(platform, channel)
    assert GameKey.parse(str(key)) == key


def test_game_key_keeps_colons_in_channel() -> None:
    key = GameKey.parse("slack:T01:C02")
    assert key == GameKey("slack", "T01:C02")
    assert str(key) == "slack:T01:C02"


@pytest.mark.parametrize("text", ["", "discord", ":chan", "discord:"])
def test_game_key_parse_rejects_malformed(text: str) -> None:
    with pytest.raises(ValueError):
        GameKey.parse(text)


async def test_from_url_chooses_embedded_without_url() -> None:
    stores = [GameStore.from_url(url) for url in (None, "", "redis://127.0.0.1:1/0")]
    assert [s.embedded for s in stores] == [True, True, False]
    for s in stores:
        await s.close()  # never connected: closing must not need the server


async def test_embedded_stores_do_not_share_state() -> None:
    first, second = GameStore.from_url(None), GameStore.from_url(None)
    await _create(first)
    assert await second.load(KEY) == (True, None)
    await first.close()
    await second.close()


def test_unavailable_message() -> None:
    assert str(StorageUnavailable()) == "Storage is unavailable, try again shortly."


# versioned blobs


async def test_load_missing_game(store: GameStore) -> None:
    assert await store.load(KEY) == (True, None)


async def test_round_trip_version_and_data(store: GameStore) -> None:
    data = '{"cash": "$5M €", "seats": [1, 2]}'
    assert await store.save(KEY, data, expected=None, version=7, ttl_s=TTL_S)
    assert await store.load(KEY) == (True, Loaded(version=7, data=data))


async def test_create_only_if_absent(store: GameStore) -> None:
    await _create(store)
    assert not await store.save(KEY, "other", expected=None, version=1, ttl_s=TTL_S)
    assert await store.load(KEY) == (True, Loaded(1, '{"n": 1}'))


async def test_concurrent_creates_one_wins(store: GameStore) -> None:
    results = await asyncio.gather(
        *(store.save(KEY, f"d{i}", expected=None, version=1, ttl_s=TTL_S) for i in range(5))
    )
    assert results.count(SaveResult.WRITTEN) == 1
    _, loaded = await store.load(KEY)
    assert loaded == Loaded(1, f"d{results.index(SaveResult.WRITTEN)}")


async def test_cas_success_and_conflict(store: GameStore) -> None:
    await _create(store)
    assert await store.save(KEY, "v2", expected=1, version=2, ttl_s=TTL_S)
    assert not await store.save(KEY, "stale", expected=1, version=2, ttl_s=TTL_S)
    assert not await store.save(KEY, "future", expected=5, version=6, ttl_s=TTL_S)
    assert await store.load(KEY) == (True, Loaded(2, "v2"))


async def test_cas_on_missing_game_writes_nothing(store: GameStore) -> None:
    assert not await store.save(KEY, "x", expected=1, version=2, log="a", ttl_s=TTL_S)
    assert await store.load(KEY) == (True, None)
    assert await store.read_log(KEY) == []


async def test_concurrent_cas_exactly_one_wins(store: GameStore) -> None:
    await _create(store)
    first, second = await asyncio.gather(
        store.save(KEY, "alice", expected=1, version=2, log="alice", ttl_s=TTL_S),
        store.save(KEY, "bob", expected=1, version=2, log="bob", ttl_s=TTL_S),
    )
    assert first != second
    winner = "alice" if first else "bob"
    assert await store.load(KEY) == (True, Loaded(2, winner))
    assert await store.read_log(KEY) == ["create", winner]


async def test_games_are_independent(store: GameStore) -> None:
    other = GameKey("slack", "123456")
    await _create(store)
    await _create(store, other, "slack game")
    await store.delete(KEY)
    assert await store.load(KEY) == (True, None)
    assert await store.load(other) == (True, Loaded(1, "slack game"))


# log, TTL, deletion


async def test_log_appends_in_order(store: GameStore) -> None:
    await _create(store)
    assert await store.save(KEY, "2", expected=1, version=2, log="roll 5", ttl_s=TTL_S)
    assert await store.save(KEY, "3", expected=2, version=3, ttl_s=TTL_S)  # no entry
    assert await store.save(KEY, "4", expected=3, version=4, log="buy", ttl_s=TTL_S)
    assert await store.read_log(KEY) == ["create", "roll 5", "buy"]


async def test_save_sets_ttl_on_game_and_log(store: GameStore) -> None:
    await _create(store)
    # A later save without a log entry must still refresh (here: shorten) the log's TTL.
    assert await store.save(KEY, "2", expected=1, version=2, ttl_s=60)
    for name in (_game_name(KEY), _log_name(KEY)):
        pttl = await store.client.pttl(name)
        assert 0 < pttl <= 60_000, name


async def test_delete_removes_game_and_log(store: GameStore) -> None:
    await _create(store)
    await store.delete(KEY)
    assert await store.load(KEY) == (True, None)
    assert await store.read_log(KEY) == []
    assert await store.memory_usage(KEY) == 0
    await store.delete(KEY)  # deleting nothing is fine


# de-duplication


async def test_a_delivery_counts_as_handled_once_its_move_is_saved(store: GameStore) -> None:
    await _create(store)
    fresh, loaded = await store.load(KEY, dedupe="interaction-1")
    assert fresh and loaded == Loaded(1, '{"n": 1}')
    # Loading alone does not count: a retry after a failed save must be applied.
    assert (await store.load(KEY, dedupe="interaction-1"))[0]
    written = await store.save(
        KEY, "2", expected=1, version=2, ttl_s=TTL_S, dedupe="interaction-1", dedupe_ttl_s=30
    )
    assert written is SaveResult.WRITTEN
    assert not (await store.load(KEY, dedupe="interaction-1"))[0]
    assert (await store.load(KEY, dedupe="interaction-2"))[0]
    # The same delivery saved again (another worker, a retried reply) writes nothing.
    again = await store.save(KEY, "3", expected=2, version=3, ttl_s=TTL_S, dedupe="interaction-1")
    assert again is SaveResult.DUPLICATE
    assert await store.load(KEY) == (True, Loaded(2, "2"))
    ttl = await store.client.ttl("boardroom:{discord:123456}:dedupe:interaction-1")
    assert 0 < ttl <= 30


async def test_an_answer_without_a_save_is_marked_once(store: GameStore) -> None:
    assert await store.mark_handled(KEY, "status-1", 30)
    assert not await store.mark_handled(KEY, "status-1", 30)
    assert not (await store.load(KEY, dedupe="status-1"))[0]


async def test_load_without_dedupe_stores_no_id(store: GameStore) -> None:
    await store.load(KEY)
    await store.load(KEY, dedupe="x")
    assert await store.client.keys("boardroom:*dedupe*") == []


# deadlines


async def _armed(store: GameStore, key: GameKey, due: float, version: int = 1) -> None:
    """Save ``key`` with a deadline at ``due`` (as the authority does)."""
    expected = None if version == 1 else version - 1
    assert await store.save(
        key, f"v{version}", expected=expected, version=version, ttl_s=TTL_S, due=due
    )


async def test_a_saved_deadline_is_due_at_its_time(store: GameStore) -> None:
    await _armed(store, KEY, 100.0)
    assert await store.deadline_of(KEY) == 100.0
    assert await store.claim_due(KEY.platform, 50.0, 5.0, "w1") == []
    assert await store.claim_due(KEY.platform, 100.0, 5.0, "w1") == [KEY]


async def test_arming_only_moves_a_deadline_earlier(store: GameStore) -> None:
    await _armed(store, KEY, 200.0)
    await store.arm(KEY, 300.0)  # a later time never delays the entry (it would lose one)
    assert await store.deadline_of(KEY) == 200.0
    await store.arm(KEY, 10.0)
    assert await store.deadline_of(KEY) == 10.0


async def test_a_claimed_deadline_is_leased_not_removed(store: GameStore) -> None:
    await _armed(store, KEY, 10.0)
    assert await store.claim_due(KEY.platform, 20.0, 5.0, "w1") == [KEY]
    assert await store.claim_due(KEY.platform, 24.0, 5.0, "w2") == []  # leased to w1
    # w1 died: when the lease ends, another worker takes it.
    assert await store.claim_due(KEY.platform, 25.0, 5.0, "w2") == [KEY]
    assert not await store.release(KEY, "w1", None)  # the dead worker's token no longer counts
    assert await store.release(KEY, "w2", 90.0)
    assert await store.deadline_of(KEY) == 90.0


async def test_the_lease_holders_save_sets_the_next_deadline(store: GameStore) -> None:
    await _armed(store, KEY, 10.0)
    assert await store.claim_due(KEY.platform, 20.0, 5.0, "w1") == [KEY]
    assert await store.save(KEY, "v2", expected=1, version=2, ttl_s=TTL_S, due=80.0, lease="w1")
    assert await store.deadline_of(KEY) == 80.0  # exactly, not the earlier lease time
    assert not await store.release(KEY, "w1", None)  # the save ended the lease


async def test_a_save_during_a_lease_wins_over_the_lease_holder(store: GameStore) -> None:
    await _armed(store, KEY, 10.0)
    assert await store.claim_due(KEY.platform, 20.0, 5.0, "w1") == [KEY]
    # A player's move saves a new deadline while w1 is firing the old one.
    assert await store.save(KEY, "v2", expected=1, version=2, ttl_s=TTL_S, due=60.0)
    # w1 read the game before that move: whatever it says now must not remove the deadline.
    assert not await store.release(KEY, "w1", None)
    due = await store.deadline_of(KEY)
    assert due is not None and due <= 60.0


async def test_release_without_a_deadline_removes_the_entry(store: GameStore) -> None:
    await _armed(store, KEY, 10.0)
    assert await store.claim_due(KEY.platform, 20.0, 5.0, "w1") == [KEY]
    assert await store.release(KEY, "w1", None)
    assert await store.deadline_of(KEY) is None
    assert await store.client.hlen("boardroom:{deadlines:discord}:lease") == 0


async def test_claim_due_is_earliest_first_and_bounded(store: GameStore) -> None:
    keys = [GameKey("slack", f"C{i}") for i in range(5)]
    for i, key in enumerate(keys):
        await store.arm(key, 10.0 - i)
    assert await store.claim_due("slack", 10.0, 5.0, "w", limit=2) == [keys[4], keys[3]]
    assert await store.claim_due("slack", 10.0, 5.0, "w", limit=0) == []
    assert await store.claim_due("slack", 10.0, 5.0, "w") == [keys[2], keys[1], keys[0]]


async def test_claims_are_per_platform(store: GameStore) -> None:
    slack, discord = GameKey("slack", "C1"), GameKey("discord", "C1")
    await store.arm(slack, 5.0)
    await store.arm(discord, 5.0)
    assert await store.claim_due("discord", 10.0, 5.0, "w") == [discord]
    assert await store.claim_due("discord", 10.0, 5.0, "w") == []
    assert await store.claim_due("slack", 10.0, 5.0, "w") == [slack]


async def test_concurrent_claims_never_overlap(store: GameStore) -> None:
    due = {GameKey("discord", f"chan:{i}") for i in range(60)}
    future = {GameKey("discord", f"later{i}") for i in range(5)}
    for i, key in enumerate(sorted(due, key=str)):
        await store.arm(key, 1000.0 + i)
    for key in future:
        await store.arm(key, 5000.0)
    batches = await asyncio.gather(
        *(store.claim_due(KEY.platform, 2000.0, 9_000.0, f"w{n}", limit=7) for n in range(10))
    )
    claimed = [key for batch in batches for key in batch]
    assert len(claimed) == len(set(claimed)) == len(due)
    assert set(claimed) == due
    assert await store.claim_due(KEY.platform, 2000.0, 9_000.0, "w") == []
    assert set(await store.claim_due(KEY.platform, 5000.0, 9_000.0, "w")) == future


# user index


async def test_user_index(store: GameStore) -> None:
    other = GameKey("discord", "999")
    await store.index_user("discord", "alice", KEY, True, TTL_S)
    await store.index_user("discord", "alice", other, True, TTL_S)
    await store.index_user("discord", "bob", KEY, True, TTL_S)
    assert sorted(await store.games_of("discord", "alice"), key=str) == sorted(
        [KEY, other], key=str
    )
    await store.index_user("discord", "alice", KEY, False, TTL_S)
    await store.index_user("discord", "alice", KEY, False, TTL_S)
    assert await store.games_of("discord", "alice") == [other]
    assert await store.games_of("discord", "bob") == [KEY]
    assert await store.games_of("slack", "alice") == []
    ttl = await store.client.ttl("boardroom:user:{discord:alice}:games")
    assert 0 < ttl <= TTL_S  # a list never outlives the games in it


# a long game's log


async def test_a_log_longer_than_the_snapshot_interval_stays_bounded_and_whole(
    store: GameStore,
) -> None:
    store.snapshot_every = 100  # the production interval is 1,000; the rule is the same
    await _create(store)
    for version in range(2, 250):
        assert await store.save(
            KEY,
            f"v{version}",
            expected=version - 1,
            version=version,
            log=f"m{version}",
            ttl_s=TTL_S,
        )
    history = await store.read_history(KEY)
    # The snapshot is the record saved at that moment; the lines after it continue from there.
    assert history.snapshot is not None
    covered = int(history.snapshot[1:])
    assert history.lines == [f"m{v}" for v in range(covered + 1, 250)]
    assert await store.client.xlen(_log_name(KEY)) <= store.snapshot_every + 1


# a finished game's log, packed


async def _finished_after(store: GameStore, lines: int) -> None:
    """A game logged ``lines`` moves and then ended (the last save is ``final``)."""
    await _create(store)
    for version in range(2, lines + 1):
        log = f'[[{version % 4},"point",{version}]]'
        assert await store.save(
            KEY, f"v{version}", expected=version - 1, version=version, log=log, ttl_s=TTL_S
        )
    last = lines + 1
    assert await store.save(
        KEY, "over", expected=lines, version=last, log='[[0,"end"]]', ttl_s=TTL_S, final=True
    )


async def test_the_save_that_ends_a_game_packs_its_log_whole(store: GameStore) -> None:
    await _finished_after(store, 130)
    # One string now, not a stream, with every line in order, the last save's too.
    assert await store.client.type(_log_name(KEY)) == "string"
    history = await store.read_history(KEY)
    expected = ["create", *(f'[[{v % 4},"point",{v}]]' for v in range(2, 131)), '[[0,"end"]]']
    assert history.snapshot is None and history.lines == expected
    assert await store.read_log(KEY) == expected
    # It keeps the game's retention, and what it holds is what the game's memory counts.
    assert 0 < await store.client.pttl(_log_name(KEY)) <= TTL_S * 1000
    assert await store.load(KEY) == (True, Loaded(131, "over"))


async def test_a_packed_log_takes_a_fraction_of_the_stream(redis_url: str) -> None:
    store = GameStore.from_url(redis_url)
    try:
        await store.delete(KEY)
        await _create(store)
        for version in range(2, 131):
            log = f'[[{version % 4},"point",{version}]]'
            await store.save(KEY, "v", expected=version - 1, version=version, log=log, ttl_s=TTL_S)
        streamed = await store.client.memory_usage(_log_name(KEY), samples=0)
        await store.save(KEY, "v", expected=130, version=131, log="[]", ttl_s=TTL_S, final=True)
        packed = await store.client.memory_usage(_log_name(KEY), samples=0)
        assert streamed is not None and packed is not None
        assert packed < streamed / 3, (packed, streamed)
    finally:
        await store.delete(KEY)
        await store.close()


async def test_a_final_save_that_loses_the_race_writes_nothing(store: GameStore) -> None:
    await _create(store)
    assert await store.save(KEY, "v2", expected=1, version=2, log="b", ttl_s=TTL_S)
    lost = await store.save(KEY, "x", expected=1, version=2, log="end", ttl_s=TTL_S, final=True)
    assert lost is SaveResult.CONFLICT
    assert await store.client.type(_log_name(KEY)) == "stream"
    assert await store.read_log(KEY) == ["create", "b"]


async def test_a_line_after_the_end_is_packed_with_the_rest(store: GameStore) -> None:
    await _finished_after(store, 3)
    assert await store.save(KEY, "later", expected=4, version=5, log="late", ttl_s=TTL_S)
    assert await store.client.type(_log_name(KEY)) == "string"
    lines = await store.read_log(KEY)
    assert lines[0] == "create" and lines[-2:] == ['[[0,"end"]]', "late"]
    assert await store.load(KEY) == (True, Loaded(5, "later"))
    # A save without a line leaves the packed log as it is.
    assert await store.save(KEY, "quiet", expected=5, version=6, ttl_s=TTL_S)
    assert await store.read_log(KEY) == lines


async def test_the_next_game_in_the_channel_starts_a_fresh_stream(store: GameStore) -> None:
    await _finished_after(store, 3)
    assert await store.save(
        KEY, "new", expected=4, version=5, log="begin", ttl_s=TTL_S, fresh_log=True
    )
    assert await store.client.type(_log_name(KEY)) == "stream"
    assert await store.read_log(KEY) == ["begin"]


async def test_a_finished_log_with_a_snapshot_keeps_it(store: GameStore) -> None:
    store.snapshot_every = 10
    await _finished_after(store, 25)
    history = await store.read_history(KEY)
    assert history.snapshot is not None
    covered = int(history.snapshot[1:])
    assert history.lines[-1] == '[[0,"end"]]'
    assert history.lines[:-1] == [f'[[{v % 4},"point",{v}]]' for v in range(covered + 1, 26)]


async def test_a_damaged_packed_log_reads_as_empty(store: GameStore) -> None:
    await _finished_after(store, 3)
    await store.client.set(_log_name(KEY), "z:not base64 at all")
    assert await store.read_history(KEY) == History()


async def test_quarantine_keeps_a_packed_log_for_the_operator(store: GameStore) -> None:
    await _finished_after(store, 3)
    lines = await store.read_log(KEY)
    assert await store.quarantine(KEY, 4, '{"tomb": 1}', TTL_S, TTL_S)
    damaged = f"boardroom:{{{KEY}}}:damaged:log"
    assert await store.client.type(damaged) == "string"
    assert await store.client.exists(_log_name(KEY)) == 0
    kept = await store.client.get(damaged)
    assert isinstance(kept, str)
    assert json.loads(_unpack(kept))["lines"] == lines


# key layout and size


def _game_name(key: GameKey) -> str:
    return f"boardroom:{{{key}}}:game"


def _log_name(key: GameKey) -> str:
    return f"boardroom:{{{key}}}:log"


@pytest.mark.parametrize("channel", ["123456", "T01:C02", "odd}chan{nel"])
async def test_key_layout_shares_hash_tag(store: GameStore, channel: str) -> None:
    key = GameKey("slack", channel)
    await _create(store, key)
    names = {str(name) for name in await store.client.keys("boardroom:*")}
    assert names == {_game_name(key), _log_name(key)}
    assert len({key_slot(name.encode()) for name in names}) == 1


async def test_memory_usage(store: GameStore) -> None:
    assert await store.memory_usage(KEY) == 0
    data = "x" * 20_000  # stored compressed: what counts is what Redis holds
    assert await store.save(KEY, data, expected=None, version=1, log="create", ttl_s=TTL_S)
    stored = await store.client.hget("boardroom:{discord:123456}:game", "data")
    assert stored is not None and len(stored) < 1000
    assert await store.memory_usage(KEY) >= len(stored) + len("create")


# outages


async def _poll(check: Callable[[], Awaitable[None]], timeout: float = 10.0) -> None:
    """Retry ``check`` until it stops raising StorageUnavailable, within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            await check()
            return
        except StorageUnavailable:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def test_unavailable_then_recovers(spawn_redis: Callable[[int | None], RedisServer]) -> None:
    server = spawn_redis(None)
    store = GameStore.from_url(server.url)
    try:
        await _create(store)
        await store.arm(KEY, 1.0)
        server.stop()

        calls: list[Callable[[], Awaitable[object]]] = [
            store.ping,
            lambda: store.load(KEY, dedupe="d1"),
            lambda: store.mark_handled(KEY, "d1", 30),
            lambda: store.save(KEY, "x", expected=1, version=2, log="a", ttl_s=TTL_S),
            lambda: store.delete(KEY),
            lambda: store.read_log(KEY),
            lambda: store.arm(KEY, 5.0),
            lambda: store.claim_due(KEY.platform, 10.0, 5.0, "w"),
            lambda: store.release(KEY, "w", None),
            lambda: store.save(KEY, "x", expected=1, version=2, ttl_s=TTL_S, due=3.0),
            lambda: store.index_user("discord", "alice", KEY, True, TTL_S),
            lambda: store.games_of("discord", "alice"),
            lambda: store.memory_usage(KEY),
            lambda: store.table_refs(KEY),
            lambda: store.set_table_refs(KEY, "{}", TTL_S, expected=0),
        ]
        # All at once: each waits out the client's retries on its own.
        results = await asyncio.gather(*(call() for call in calls), return_exceptions=True)
        for result in results:
            assert isinstance(result, StorageUnavailable), result
            assert str(result) == StorageUnavailable.MESSAGE

        spawn_redis(server.port)  # same port, empty data (no persistence)
        await _poll(store.ping)
        # The restarted server has no scripts cached: every Lua script must reload itself.
        await _create(store)
        assert await store.load(KEY) == (True, Loaded(1, '{"n": 1}'))
        await _armed(store, KEY, 1.0, version=2)
        assert await store.claim_due(KEY.platform, 10.0, 5.0, "w") == [KEY]
        assert await store.release(KEY, "w", None)
        assert await store.set_table_refs(KEY, "{}", TTL_S, expected=0) == 1
    finally:
        await store.close()


async def test_large_records_are_stored_compressed(store: GameStore) -> None:
    data = json.dumps(
        {"hands": [["cat", "frozen", "hat"] for _ in range(6)], "deck": list(range(300))}
    )
    assert await store.save(KEY, data, expected=None, version=1, ttl_s=TTL_S)
    raw = await store.client.hget("boardroom:{discord:123456}:game", "data")
    assert raw is not None and len(raw) < len(data) * 0.6
    assert await store.load(KEY) == (True, Loaded(1, data))
    small = '{"n": 1}'
    assert await store.save(KEY, small, expected=1, version=2, ttl_s=TTL_S)
    assert await store.client.hget("boardroom:{discord:123456}:game", "data") == small


async def test_table_refs_round_trip_with_their_ttl_and_go_with_the_game(
    store: GameStore,
) -> None:
    assert await store.table_refs(KEY) is None
    await _create(store)
    assert await store.set_table_refs(KEY, '{"card": "m-1"}', TTL_S, expected=0) == 1
    assert await store.table_refs(KEY) == (1, '{"card": "m-1"}')
    table = "boardroom:{discord:123456}:refs"
    assert 0 < await store.client.ttl(table) <= TTL_S  # never kept longer than the game
    assert key_slot(table.encode()) == key_slot(b"boardroom:{discord:123456}:game")
    assert await store.set_table_refs(KEY, '{"card": "m-2"}', 60, expected=1) == 2
    assert await store.table_refs(KEY) == (2, '{"card": "m-2"}')
    assert 0 < await store.client.ttl(table) <= 60
    assert await store.set_table_refs(KEY, "{}", 0, expected=2) == 3  # a TTL always: >= 1 s
    assert 0 < await store.client.pttl(table) <= 1000
    other = GameKey("discord", "654321")
    assert await store.table_refs(other) is None  # one channel's refs are its own
    await store.delete(KEY)
    assert await store.table_refs(KEY) is None


async def test_table_refs_are_written_over_the_revision_read_or_not_at_all(
    store: GameStore,
) -> None:
    """Two deliveries that read the same refs: the first write wins, the second is told so and
    changes nothing (it plans again from the newer refs); a large one is packed."""
    assert await store.set_table_refs(KEY, '{"card": "a"}', TTL_S, expected=0) == 1
    assert await store.set_table_refs(KEY, '{"card": "b"}', TTL_S, expected=0) is None
    assert await store.table_refs(KEY) == (1, '{"card": "a"}')
    many = await asyncio.gather(
        *(store.set_table_refs(KEY, f'{{"n": {n}}}', TTL_S, expected=1) for n in range(8))
    )
    assert sorted(many, key=lambda rev: rev or 0)[-1] == 2 and many.count(None) == 7
    large = json.dumps({"pending": ["a line of the story"] * 200})
    assert await store.set_table_refs(KEY, large, TTL_S, expected=2) == 3
    assert await store.table_refs(KEY) == (3, large)
    stored = await store.client.hget("boardroom:{discord:123456}:refs", "data")
    assert stored is not None and len(stored) < len(large) / 4


async def test_deadlines_from_before_leases_are_adopted(store: GameStore) -> None:
    await store.client.zadd("boardroom:deadlines:discord", {str(KEY): 42.0})
    assert await store.adopt_legacy_deadlines("discord") == 1
    assert await store.deadline_of(KEY) == 42.0
    assert await store.client.exists("boardroom:deadlines:discord") == 0
    assert await store.adopt_legacy_deadlines("discord") == 0
