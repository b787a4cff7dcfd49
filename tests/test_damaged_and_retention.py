"""A damaged game record frees its channel, and what is kept about people goes with the game:
through the authority, against a real redis-server."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from bot.commands.authority import Authority, Request
from bot.commands.damaged import FLOOR_START
from bot.commands.outbox import Outbox
from bot.deadlines import Heartbeat
from bot.health import health
from bot.settings import Settings
from storage import GameKey, GameStore
from tests.authority_support import Clock, stored_record
from tests.test_console import run_script


@pytest.fixture
def store(redis_store: GameStore) -> GameStore:
    """These tests run on a real redis-server only."""
    return redis_store


BROKEN, OTHER = "broken-table", "other-table"
SET_ASIDE = "The game in this channel could not be read (its saved record is damaged)"


@pytest.fixture
def authority(store: GameStore, clock: Clock) -> Authority:
    seeds = random.Random(11)
    return Authority(store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))


def req(user: str, channel: str) -> Request:
    return Request(platform="console", channel=channel, user=user, name=user.title())


def said(out: Outbox, user: str) -> str:
    return "\n".join(d.message.text for d in out.deliveries if d.user == user)


def told(out: Outbox) -> list[str]:
    return [message.text for message in out.announcements]


async def playing(authority: Authority, channel: str, options: str = "") -> None:
    """Alice hosts a game of The Big Idea with Bob and a bot in ``channel``."""
    await authority.command(req("alice", channel), "bigidea", f"start {options}")
    await authority.command(req("bob", channel), "bigidea", "join")
    await authority.command(req("alice", channel), "bigidea", "addbot")
    out = await authority.command(req("alice", channel), "bigidea", "begin")
    assert out.begun, said(out, "alice")


def game_key(channel: str) -> str:
    return f"boardroom:{{console:{channel}}}:game"


@pytest.mark.parametrize(
    "damage",
    [
        {"data": "garbage"},
        {"data": "z:not base64 at all"},  # a packed record that no longer unpacks
        {"data": '{"game": "bigidea"}'},  # JSON, but not a record
        "state",  # a record whose game state cannot be read
        {"data": b"\x00\xffgarbage"},  # bytes that are not text (UTF-8)
        {"data": b"z:\xff\xfe\x00"},  # a packed record of such bytes
    ],
)
async def test_a_damaged_record_is_set_aside_and_frees_its_channel(
    authority: Authority,
    store: GameStore,
    clock: Clock,
    damage: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await playing(authority, BROKEN, "pick_seconds=60")
    await playing(authority, OTHER, "pick_seconds=60")
    if damage == "state":
        record = await stored_record(store, GameKey("console", BROKEN))
        record.state_json = '{"not": "a state"}'
        await store.client.hset(game_key(BROKEN), "data", record.model_dump_json())
    else:
        await store.client.hset(game_key(BROKEN), mapping=damage)

    # DM `hand` lists the person's other games, skipping the damaged one.
    hands = await authority.hands(
        Request(platform="console", channel="dm-bob", user="bob", name="Bob")
    )
    assert [out.channel for out in hands] == [OTHER]

    # The first command there sets the record aside; the channel is told once.
    out = await authority.command(req("alice", BROKEN), "bigidea", "end")
    assert told(out) == [
        f"{SET_ASIDE}, so I set it aside for the bot's operator. The channel is free: "
        "`/bigidea start` begins a new game."
    ]
    assert said(out, "alice") == "No game here. Start one with `/bigidea start`."
    kept = await store.client.get(f"boardroom:{{console:{BROKEN}}}:damaged:record")
    assert kept is not None and 0 < await store.client.ttl(
        f"boardroom:{{console:{BROKEN}}}:damaged:record"
    ) <= int(Settings().finished_ttl_hours * 3600)
    assert GameKey("console", BROKEN) in authority.damaged
    ok, report = await health(authority, Heartbeat(poll_seconds=1))  # a loop that just beat
    assert ok and report["damaged_games"] == [f"console:{BROKEN}"]

    # A new game starts there, past every version the lost game's buttons could carry.
    started = await authority.command(req("alice", BROKEN), "bigidea", "start")
    assert started.card is not None and started.card.title == "The Big Idea: lobby"
    assert not told(started)  # told once only
    assert (await stored_record(store, GameKey("console", BROKEN))).first_version >= FLOOR_START

    # The other channel's deadline keeps firing.
    clock.now += 61
    fired = await authority.fire_due("console")
    assert [out.channel for out in fired if out.log] == [OTHER]  # its pick timed out
    assert not authority.parked
    assert not [r.getMessage() for r in caplog.records if r.exc_info], "no traceback logged"


async def test_a_deadline_that_meets_a_damaged_record_sets_it_aside(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    await playing(authority, BROKEN, "pick_seconds=60")
    await playing(authority, OTHER, "pick_seconds=60")
    await store.client.hset(game_key(BROKEN), "data", "garbage")
    clock.now += 61
    fired = await authority.fire_due("console")
    by_channel = {out.channel: out for out in fired}
    assert SET_ASIDE in told(by_channel[BROKEN])[0]
    assert by_channel[OTHER].log  # its pick timed out
    assert not authority.parked and await store.deadline_of(GameKey("console", BROKEN)) is None


# --- retention ---------------------------------------------------------------------------------

PITCH = "A hat that whispers stock tips"


async def everything_stored(store: GameStore) -> dict[str, Any]:
    """Every key in Redis with its value and TTL, whatever its type."""
    client = store.client
    found: dict[str, Any] = {}
    async for key in client.scan_iter("*"):
        kind = await client.type(key)
        if kind == "string":
            value: Any = await client.get(key)
        elif kind == "hash":
            value = await client.hgetall(key)
        elif kind == "stream":
            value = await client.xrange(key)
        elif kind == "set":
            value = sorted(await client.smembers(key))
        elif kind == "zset":
            value = await client.zrange(key, 0, -1, withscores=True)
        else:
            value = kind
        found[key] = (value, await client.ttl(key))
    return found


GAME_ONE = [
    "alice: /bigidea start pick_seconds=0 vote_seconds=0 turn_seconds=0",
    "bob: /bigidea join",
    "carol: /bigidea join",
    "alice: /bigidea begin",
    "alice: click any",
    "bob: click any",
    "carol: click any",
    f"alice: /bigidea pitch {PITCH}",
]


async def test_a_pitch_is_gone_once_the_next_game_has_begun(
    store: GameStore, redis_url: str, tmp_path: Path
) -> None:
    """Game 1's story (a pitch, with its author's id) is in no key of the store once game 2
    has begun in the channel: the record, the log and the table's refs all start anew."""
    game_two = [
        "alice: /bigidea end",
        "dave: /bigidea start",
        "erin: /bigidea join",
        "dave: /bigidea addbot",
        "dave: /bigidea begin",
    ]
    stdout, _ = run_script(tmp_path, [*GAME_ONE, *game_two], "--seed", "4", redis_url=redis_url)
    assert PITCH in stdout  # it was told in game 1
    assert "dave began the game" in stdout
    stored = await everything_stored(store)
    assert stored, "the console kept nothing in this Redis"
    assert not [key for key, value in stored.items() if PITCH in repr(value)]
    channel = [key for key in stored if "{console:" in key and ":game" in key]
    assert channel and not [key for key, value in stored.items() if "alice" in repr(value)]


async def test_nothing_of_a_finished_game_outlives_its_ttl(
    store: GameStore, redis_url: str, tmp_path: Path
) -> None:
    """Once a game is over, its record, log and table refs share the finished game's TTL."""
    run_script(tmp_path, [*GAME_ONE, "alice: /bigidea end"], "--seed", "2", redis_url=redis_url)
    finished = int(Settings().finished_ttl_hours * 3600)
    stored = await everything_stored(store)
    games = {key: ttl for key, (_, ttl) in stored.items() if key.startswith("boardroom:{console:")}
    assert {key.rsplit(":", 1)[-1] for key in games} >= {"game", "log", "refs"}
    assert all(0 < ttl <= finished for ttl in games.values()), games


async def test_the_channel_reads_once_that_its_game_was_set_aside(
    store: GameStore, redis_url: str, tmp_path: Path
) -> None:
    """Through the real console and table: a record damaged between two runs of the bot."""
    run_script(tmp_path, GAME_ONE, "--seed", "2", redis_url=redis_url)
    await store.client.hset(game_key("general"), "data", "garbage")
    (tmp_path / "again").mkdir()
    lines = ["alice: /bigidea hand", "alice: /bigidea start", "bob: /bigidea join"]
    stdout, records = run_script(tmp_path / "again", lines, "--seed", "2", redis_url=redis_url)
    notices = [r for r in records if r["audience"] == "channel" and SET_ASIDE in r["text"]]
    assert len(notices) == 1
    assert "[#general] The game in this channel could not be read" in stdout
    assert "alice opened a game of The Big Idea." in stdout and "bob joined." in stdout
