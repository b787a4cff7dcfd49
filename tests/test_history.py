"""A community's memory of its finished games: the result written once, ratings, /boardroom,
replays and forget-me, on a real redis-server and the embedded store (and on a cluster)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from bot.commands.authority import Authority, Request
from bot.commands.community.boardroom import COMMAND, replay_steps
from bot.commands.community.forget import AFTER_END_S
from bot.commands.community.results import (
    FORMER,
    REMINDER_S,
    GameResult,
    Person,
    Rating,
    Recorder,
    SeatResult,
    rate,
)
from bot.commands.record import GameRecord
from bot.settings import Settings
from core.engine import erase
from core.games.bigidea import GAME
from storage import GameKey, GameStore, History, SaveResult, StorageUnavailable
from storage import history as kept
from testkit.racing import RacingStore
from tests.authority_support import Clock, everything

FAST = "vote_seconds=20 turn_seconds=10 pick_seconds=30"
CHANNEL = "general"
KEY = GameKey("console", CHANNEL)
WHERE = kept.Community("console", "office")
PEOPLE = [("U-alice-1", "Alice A"), ("U-bob-2", "Bob B"), ("U-carol-3", "Carol C")]


def _req(user: str, name: str, channel: str = CHANNEL) -> Request:
    return Request(platform="console", channel=channel, user=user, name=name, community="office")


def _authority(store: GameStore, clock: Clock, seed: int = 7) -> Authority:
    seeds = random.Random(seed)
    return Authority(store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))


async def _record(store: GameStore, key: GameKey = KEY) -> GameRecord:
    _, loaded = await store.load(key)
    assert loaded is not None
    return GameRecord.model_validate_json(loaded.data)


async def _open(
    authority: Authority, people: list[tuple[str, str]], bots: int = 0, channel: str = CHANNEL
) -> None:
    host = _req(*people[0], channel=channel)
    assert (await authority.command(host, "bigidea", f"start {FAST}")).card is not None
    for user, name in people[1:]:
        assert (await authority.command(_req(user, name, channel), "bigidea", "join")).card
    if bots:
        assert (await authority.command(host, "bigidea", f"addbot {bots}")).card is not None
    assert (await authority.command(host, "bigidea", "begin")).begun


async def _play_out(
    authority: Authority, store: GameStore, clock: Clock, key: GameKey = KEY
) -> list[str]:
    """Let the deadlines play the game to its end; the state saved after each move."""
    seen: list[str] = []
    for _ in range(600):
        rec = await _record(store, key)
        if rec.state_json is not None and (not seen or seen[-1] != rec.state_json):
            seen.append(rec.state_json)
        if rec.status == "finished":
            return seen
        clock.now = (rec.deadline_due or clock.now) + 1
        await authority.fire_due(key.platform)
    raise AssertionError("the game never ended")


async def _recorded(store: GameStore) -> dict[str, GameResult]:
    ids = await kept.recent(store, WHERE, 0.0, 100)
    found = await kept.results(store, WHERE, ids)
    return {i: GameResult.model_validate_json(found[i]) for i in ids}


async def _ratings(store: GameStore) -> dict[str, Rating]:
    rows = await kept.leaderboard(store, WHERE, "bigidea", 100)
    return {row.user: Rating.model_validate_json(row.data) for row in rows}


async def _ask(authority: Authority, user: tuple[str, str], text: str) -> str:
    out = await authority.command(_req(*user), COMMAND, text)
    return "\n".join(d.message.plain_text() for d in out.deliveries)


# --- written once -------------------------------------------------------------------------------


async def test_a_game_played_out_is_recorded_once_and_rates_its_three_people(
    store: GameStore, clock: Clock
) -> None:
    authority = _authority(store, clock)
    await _open(authority, PEOPLE)
    await _play_out(authority, store, clock)

    recorded = await _recorded(store)
    assert len(recorded) == 1
    (result,) = recorded.values()
    assert result.rated and result.game == "bigidea" and result.community == "office"
    assert sorted(p.user for p in result.people) == sorted(u for u, _ in PEOPLE)
    ratings = await _ratings(store)
    assert set(ratings) == {u for u, _ in PEOPLE}
    assert all(r.games == 1 for r in ratings.values())
    assert sum(r.wins for r in ratings.values()) >= 1
    # A person's list of games goes the history's length after their last game.
    left = await store.client.ttl(WHERE.key(f"played:{PEOPLE[0][0]}"))
    assert 89 * 86400 < left <= 90 * 86400
    # Recorded: nothing is left pending in the game, and the reminder finds nothing to do.
    assert await kept.pending_result(store, KEY) is None
    clock.now += REMINDER_S
    await authority.fire_due("console")
    assert len(await _recorded(store)) == 1 and (await _ratings(store)) == ratings

    board = await _ask(authority, PEOPLE[1], "leaderboard bigidea")
    assert all(name in board for _, name in PEOPLE) and "1 game" in board
    stats = await _ask(authority, PEOPLE[0], "stats Bob B")
    assert "Stats: Bob B" in stats and "The Big Idea: rating" in stats and "1 game" in stats
    history = await _ask(authority, PEOPLE[2], "history")
    assert result.id in history and "The Big Idea" in history


class _LosesFinalReply(RacingStore):
    """The real store; the reply of the save that ends a game is lost ``how``."""

    def __init__(self, inner: GameStore, how: Any) -> None:
        super().__init__(inner)
        self.how = how
        self.final_saves = 0

    async def save(self, key: GameKey, data: str, **kwargs: Any) -> SaveResult:
        if kwargs.get("result"):
            self.final_saves += 1
            self.lose_replies(1, self.how)
        return await super().save(key, data, **kwargs)


@pytest.mark.parametrize("how", ["retry", "error"])
async def test_a_final_save_whose_reply_is_lost_records_the_result_once(
    store: GameStore, clock: Clock, how: str
) -> None:
    racing = _LosesFinalReply(store, how)
    authority = _authority(racing, clock)
    await _open(authority, PEOPLE)
    await _play_out(authority, racing, clock)
    clock.now += REMINDER_S
    await authority.fire_due("console")

    assert racing.final_saves == 1
    assert len(await _recorded(store)) == 1
    assert all(r.games == 1 for r in (await _ratings(store)).values())


class _DiesBeforeRecording(Recorder):
    """A worker that is gone once the final save is written, before the community's copy."""

    async def publish(
        self, key: GameKey, result_json: str, history: History | None = None
    ) -> kept.Recorded:
        raise StorageUnavailable()


async def test_a_worker_killed_after_the_final_save_leaves_it_to_the_reminder(
    store: GameStore, clock: Clock
) -> None:
    dying = _authority(store, clock)
    dying._pipeline.recorder = _DiesBeforeRecording(store, Settings())
    await _open(dying, PEOPLE)
    await _play_out(dying, store, clock)
    assert await _recorded(store) == {}
    assert await kept.pending_result(store, KEY) is not None

    # Another worker (a restart) fires the reminder the final save armed.
    restarted = _authority(store, clock)
    clock.now += REMINDER_S
    await restarted.fire_due("console")
    assert len(await _recorded(store)) == 1
    assert await kept.pending_result(store, KEY) is None
    assert all(r.games == 1 for r in (await _ratings(store)).values())


async def test_two_workers_recording_the_same_result_at_once_record_it_once(
    store: GameStore, clock: Clock
) -> None:
    holder = _authority(store, clock)
    holder._pipeline.recorder = _DiesBeforeRecording(store, Settings())
    await _open(holder, PEOPLE)
    await _play_out(holder, store, clock)
    pending = await kept.pending_result(store, KEY)
    assert pending is not None
    workers = [Recorder(store, Settings()) for _ in range(4)]
    outcomes = await asyncio.gather(*(w.publish(KEY, pending) for w in workers))
    assert sorted(outcomes) == [kept.Recorded.DUPLICATE] * 3 + [kept.Recorded.WRITTEN]
    assert all(r.games == 1 for r in (await _ratings(store)).values())


async def test_a_game_the_host_ends_early_is_not_recorded(store: GameStore, clock: Clock) -> None:
    authority = _authority(store, clock)
    await _open(authority, PEOPLE)
    assert (await authority.command(_req(*PEOPLE[0]), "bigidea", "end")).ended
    assert await _recorded(store) == {}
    assert await kept.pending_result(store, KEY) is None


# --- ratings ------------------------------------------------------------------------------------


async def test_bots_are_not_rated_and_one_person_with_bots_is_no_rated_game(
    store: GameStore, clock: Clock
) -> None:
    authority = _authority(store, clock)
    await _open(authority, PEOPLE[:1], bots=2)
    await _play_out(authority, store, clock)
    (alone,) = (await _recorded(store)).values()
    assert not alone.rated and [s.people == [] for s in alone.seats].count(True) == 2
    assert await _ratings(store) == {}
    assert "1 game" not in await _ask(authority, PEOPLE[0], "leaderboard bigidea")

    other = GameKey("console", "lunch")
    await _open(authority, PEOPLE[:2], bots=1, channel="lunch")
    await _play_out(authority, store, clock, other)
    ratings = await _ratings(store)
    assert set(ratings) == {PEOPLE[0][0], PEOPLE[1][0]}  # the two people; no bot
    assert all(r.games == 1 for r in ratings.values())


def test_a_team_is_rated_as_a_team() -> None:
    """BiggieBills$$$: the members of a team share its result; a team of two that wins gains
    less each than a winner alone against the same field (its strength is summed)."""

    def result(teams: list[list[str]]) -> GameResult:
        seats = [
            SeatResult(
                name=f"T{i}", people=[Person(user=u, name=u) for u in team], rank=i + 1, score=""
            )
            for i, team in enumerate(teams)
        ]
        seats.append(SeatResult(name="Ada", people=[], rank=len(teams) + 1, score=""))
        return GameResult(
            id="x", game="biggiebills", platform="p", channel="c", community="k", ended_at=0.0,
            seats=seats, seed=1, first_version=0, final_version=1,
        )  # fmt: skip

    after = rate(result([["a", "b"], ["c"], ["d", "e", "f"]]), {})
    assert after is not None and set(after) == set("abcdef")
    assert after["a"].mu == after["b"].mu and after["a"].wins == after["b"].wins == 1
    assert after["d"].mu == after["e"].mu == after["f"].mu and after["d"].wins == 0
    assert after["a"].mu > after["d"].mu and after["c"].mu > after["d"].mu
    alone = rate(result([["a"], ["c"], ["d", "e", "f"]]), {})
    assert alone is not None and alone["a"].mu > after["a"].mu
    assert rate(result([["a", "b"]]), {}) is None  # one team of people against bots


# --- replay -------------------------------------------------------------------------------------


async def test_the_replay_equals_the_stored_game_at_every_step(
    store: GameStore, clock: Clock
) -> None:
    authority = _authority(store, clock)
    await _open(authority, PEOPLE)
    saved = await _play_out(authority, store, clock)
    (result,) = (await _recorded(store)).values()
    found = await kept.replay_of(store, WHERE, result.id)
    assert found is not None
    steps = replay_steps(erase(GAME), GameResult.model_validate_json(found[0]), found[1])
    assert [s.model_dump_json() for s in steps] == [
        GAME.state_model.model_validate_json(s).model_dump_json() for s in saved
    ]

    shown = await authority.command(_req(*PEOPLE[0]), COMMAND, f"replay {result.id} 0")
    (first,) = shown.deliveries
    assert f"step 1 of {len(steps)}" in first.message.text
    labels = {b.label: b for b in first.message.all_buttons()}
    assert "First" not in labels and "Back" not in labels  # the first step: nothing before it
    forward = labels["Forward"].command
    assert forward is not None
    pressed = await authority.command(_req(*PEOPLE[0]), COMMAND, forward)
    assert f"step 2 of {len(steps)}" in pressed.deliveries[0].message.text


# --- forget-me ----------------------------------------------------------------------------------


async def test_forget_me_asks_first_then_leaves_no_trace(store: GameStore, clock: Clock) -> None:
    authority = _authority(store, clock)
    await _open(authority, PEOPLE)
    await _play_out(authority, store, clock)
    carol = PEOPLE[2]
    assert any(carol[0] in text or carol[1] in text for _, text in await everything(store))

    asked = await authority.command(_req(*carol), COMMAND, "forget-me")
    confirm, cancel = asked.deliveries[0].message.all_buttons()
    assert confirm.command == "forget-me yes" and cancel.command == "forget-me no"
    assert (await _ratings(store)).keys() == {u for u, _ in PEOPLE}  # nothing done yet

    done = await authority.command(_req(*carol), COMMAND, confirm.command)
    assert "gone" in done.deliveries[0].message.text
    # The game's table is erased a minute after its end (once it has shown it), by a chore.
    clock.now += AFTER_END_S + 1
    await authority.fire_due("console")
    for key, text in await everything(store):
        assert carol[0] not in key and carol[0] not in text, key
        assert carol[1] not in text, key
    (result,) = (await _recorded(store)).values()
    assert FORMER in [seat.name for seat in result.seats]
    assert set(await _ratings(store)) == {PEOPLE[0][0], PEOPLE[1][0]}
    assert "no finished games" in await _ask(authority, carol, "stats")
    # The replay still plays, with the seat renamed.
    found = await kept.replay_of(store, WHERE, result.id)
    assert found is not None
    steps = replay_steps(erase(GAME), GameResult.model_validate_json(found[0]), found[1])
    assert steps and FORMER in steps[0].names


# --- retention ----------------------------------------------------------------------------------


def _community_keys(keys: list[tuple[str, str]]) -> dict[str, str]:
    return {key: text for key, text in keys if key.startswith("boardroom:{community:")}


async def test_history_leaves_on_time_whether_or_not_the_community_plays_again(
    store: GameStore, clock: Clock
) -> None:
    """With BOARDROOM_HISTORY_DAYS=1: every community key expires within a day of its last
    write (a community that stops playing), and two days on the sweep has removed the old
    game, its people's names, lists and ratings; a new game is then rated afresh."""
    settings = Settings(BOARDROOM_HISTORY_DAYS=1)
    seeds = random.Random(3)
    authority = Authority(store, settings, clock=clock, new_seed=lambda: seeds.getrandbits(63))
    await _open(authority, PEOPLE)
    await _play_out(authority, store, clock)
    (old,) = (await _recorded(store)).keys()
    client: Any = store.client
    written = _community_keys(await everything(store))
    assert any(old in text for text in written.values())
    for key in written:
        assert 0 < await client.ttl(key) <= 86400, key  # the real TTL, in the real Redis
    clock.now += 2 * 86400
    assert "No finished games" in await _ask(authority, PEOPLE[0], "history")
    await authority.fire_due("console")  # the sweep, due a day after the game
    left = _community_keys(await everything(store))
    assert set(left) <= {WHERE.key("rev")}, sorted(left)
    for text in left.values():
        assert old not in text and not any(u in text or n in text for u, n in PEOPLE)
    assert await kept.replay_of(store, WHERE, old) is None

    other = GameKey("console", "lunch")
    await _open(authority, PEOPLE, channel="lunch")
    await _play_out(authority, store, clock, other)
    recorded = await _recorded(store)
    assert old not in recorded and len(recorded) == 1
    assert all(r.games == 1 for r in (await _ratings(store)).values())


async def test_a_community_that_plays_on_loses_only_what_is_too_old(
    store: GameStore, clock: Clock
) -> None:
    """A game three quarters of a day after the first: a day and a half on, the first goes,
    the second and its people (the same three, rated twice) stay, their lists without the
    first."""
    settings = Settings(BOARDROOM_HISTORY_DAYS=1)
    seeds = random.Random(4)
    authority = Authority(store, settings, clock=clock, new_seed=lambda: seeds.getrandbits(63))
    await _open(authority, PEOPLE)
    await _play_out(authority, store, clock)
    (first,) = (await _recorded(store)).keys()
    clock.now += 0.75 * 86400
    other = GameKey("console", "lunch")
    await _open(authority, PEOPLE, channel="lunch")
    await _play_out(authority, store, clock, other)
    second = next(i for i in await _recorded(store) if i != first)
    clock.now += 0.75 * 86400
    await authority.fire_due("console")
    left = _community_keys(await everything(store))
    assert not any(first in text for text in left.values())
    assert list(await _recorded(store)) == [second]
    assert all(r.games == 2 for r in (await _ratings(store)).values())
    stats = await _ask(authority, PEOPLE[0], "stats")
    assert second in stats and first not in stats


async def test_a_history_kept_before_retention_is_adopted_and_leaves_on_time(
    store: GameStore, clock: Clock
) -> None:
    """A community recorded by an older version (no per-person times, no TTLs) is found once
    by the chores, given both, and swept like any other: a game older than the history keeps
    goes, with the people whose last game it was."""
    client: Any = store.client
    old = GameResult(
        id="oldgame1", game="bigidea", platform="console", channel="general", community="office",
        ended_at=clock.now - 3 * 86400,
        seats=[SeatResult(name=n, people=[Person(user=u, name=n)], rank=1, score="$1")
               for u, n in PEOPLE],
        seed=1, first_version=0, final_version=9,
    )  # fmt: skip
    await client.hset(WHERE.key("results"), "oldgame1", old.model_dump_json())
    await client.zadd(WHERE.key("recent"), {"oldgame1": old.ended_at})
    for user, name in PEOPLE:
        await client.hset(WHERE.key("people"), user, name)
        await client.hset(WHERE.key("ratings:bigidea"), user, Rating(name=name).model_dump_json())
        await client.zadd(WHERE.key("board:bigidea"), {user: 1000})
        await client.zadd(WHERE.key(f"played:{user}"), {"oldgame1": old.ended_at})
    authority = Authority(store, Settings(BOARDROOM_HISTORY_DAYS=1), clock=clock)
    await authority.fire_due("console")  # adopts the community, then sweeps it
    left = _community_keys(await everything(store))
    assert set(left) <= {WHERE.key("rev")}, sorted(left)
    # Adopted once per deployment: a new worker does not look again.
    assert await kept.unadopted(store, "console") == []


# --- rematch ------------------------------------------------------------------------------------


async def test_rematch_seats_its_presser_and_invites_the_other_players(
    store: GameStore, clock: Clock
) -> None:
    authority = _authority(store, clock)
    await _open(authority, PEOPLE)
    await _play_out(authority, store, clock)
    finished = await _record(store)
    stranger = ("U-zed-9", "Zed Z")
    refused = await authority.command(_req(*stranger), "bigidea", "rematch")
    assert refused.card is None and not refused.panels and not refused.public
    assert [d.user for d in refused.deliveries] == [stranger[0]]
    assert "Only the players" in refused.deliveries[0].message.text
    assert await _record(store) == finished  # nothing seated, nothing saved

    presser = PEOPLE[1]
    out = await authority.command(_req(*presser), "bigidea", "rematch")
    assert out.card is not None and "rematch" in out.card.text
    assert "Alice A" in out.card.text and "Carol C" in out.card.text  # invited, by name
    assert not out.panels and all(d.user == presser[0] for d in out.deliveries)
    lobby = await _record(store)
    assert lobby.status == "lobby" and lobby.host == presser[0]
    assert [s.users for s in lobby.seats] == [[presser[0]]]
    assert [i.user for i in lobby.invited] == [PEOPLE[0][0], PEOPLE[2][0]]
    assert lobby.options == finished.options and lobby.first_version > finished.first_version
    assert await store.games_of("console", PEOPLE[0][0]) == []  # not listed as seated
    again = await authority.command(_req(*PEOPLE[2]), "bigidea", "rematch")
    assert "already open" in again.deliveries[0].message.text
    joined = await authority.command(_req(*PEOPLE[2]), "bigidea", "join")
    assert joined.card is not None
    lobby = await _record(store)
    assert [s.users for s in lobby.seats] == [[presser[0]], [PEOPLE[2][0]]]
    assert [i.user for i in lobby.invited] == [PEOPLE[0][0]]


# --- cluster ------------------------------------------------------------------------------------


async def test_recording_and_reading_run_on_a_cluster(cluster_store: GameStore) -> None:
    clock = Clock()
    authority = _authority(cluster_store, clock)
    await _open(authority, PEOPLE)
    await _play_out(authority, cluster_store, clock)
    assert len(await _recorded(cluster_store)) == 1
    board = await _ask(authority, PEOPLE[0], "leaderboard bigidea")
    assert all(name in board for _, name in PEOPLE)
    await authority.command(_req(*PEOPLE[0]), COMMAND, "forget-me yes")
    assert set(await _ratings(cluster_store)) == {PEOPLE[1][0], PEOPLE[2][0]}


async def test_boardroom_without_a_community_says_where_to_ask(
    store: GameStore, clock: Clock
) -> None:
    """A request from no community (a Discord DM) is told privately where ratings live, and
    nothing is read or written."""
    authority = _authority(store, clock)
    client: Any = store.client
    before = sorted([key async for key in client.scan_iter(match="*")])
    lost = Request(platform="discord", channel="D1", user="U1", name="ann", community="")
    for text in ("stats", "leaderboard bigidea", "history", "forget-me yes"):
        out = await authority.command(lost, COMMAND, text)
        (delivery,) = out.deliveries
        assert delivery.user == "U1" and "kept per server" in delivery.message.text
    assert sorted([key async for key in client.scan_iter(match="*")]) == before
