"""Players' data through the authority on a real redis-server: ``forget-me`` erases its asker by
identity and nobody else, wherever the bot keeps them; a rematch seats only whoever asked; and
what one person has the bot post or upload is limited."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bot.commands.authority import Authority, Request
from bot.commands.community.boardroom import COMMAND, replay_steps
from bot.commands.community.forget import AFTER_END_S, RETRY_S, Forgetter, Forgotten, erase_result
from bot.commands.community.results import FORMER, GameResult
from bot.commands.community.upkeep import EVERY_S
from bot.commands.limits import WINDOW_S
from bot.commands.record import GameRecord
from bot.settings import Settings
from core.registry import get_game
from storage import GameKey, GameStore, StorageUnavailable
from storage import history as kept
from tests.authority_support import Clock, everything

FAST = "vote_seconds=20 turn_seconds=10 pick_seconds=30"
OFFICE = "office"
WHERE = kept.Community("console", OFFICE)
ALICE = ("U-alice-1", "Alice Liddell")
BOB = ("U-bob-2", "Robert Tables")
CAROL = ("U-carol-3", "Carol Danvers")
DAVE = ("U-dave-4", "Dave Lister")
ERIN = ("U-erin-5", "Erin Hale")


@pytest.fixture
def store(redis_store: GameStore) -> GameStore:
    """These tests run on the real redis-server only."""
    return redis_store


def _req(who: tuple[str, str], channel: str, community: str = OFFICE) -> Request:
    user, name = who
    return Request(platform="console", channel=channel, user=user, name=name, community=community)


def _authority(store: GameStore, clock: Clock, settings: Settings | None = None) -> Authority:
    seeds = random.Random(11)
    return Authority(
        store, settings or Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63)
    )


async def _record(store: GameStore, channel: str) -> GameRecord:
    _, loaded = await store.load(GameKey("console", channel))
    assert loaded is not None
    return GameRecord.model_validate_json(loaded.data)


async def _open(
    authority: Authority, channel: str, people: list[tuple[str, str]], bots: int = 0
) -> None:
    assert (await authority.command(_req(people[0], channel), "bigidea", f"start {FAST}")).card
    for who in people[1:]:
        assert (await authority.command(_req(who, channel), "bigidea", "join")).card
    if bots:
        assert (await authority.command(_req(people[0], channel), "bigidea", f"addbot {bots}")).card
    assert (await authority.command(_req(people[0], channel), "bigidea", "begin")).begun


async def _play_out(authority: Authority, store: GameStore, clock: Clock, channel: str) -> None:
    """Let the deadlines play the channel's game to its end."""
    for _ in range(600):
        rec = await _record(store, channel)
        if rec.status == "finished":
            return
        clock.now = (rec.deadline_due or clock.now) + 1
        await authority.fire_due("console")
    raise AssertionError("the game never ended")


async def _game(
    authority: Authority,
    store: GameStore,
    clock: Clock,
    channel: str,
    people: list[tuple[str, str]],
    bots: int = 0,
) -> None:
    await _open(authority, channel, people, bots)
    await _play_out(authority, store, clock, channel)


async def _ask(
    authority: Authority, who: tuple[str, str], text: str, community: str = OFFICE
) -> str:
    out = await authority.command(_req(who, "general", community), COMMAND, text)
    return "\n".join(d.message.plain_text() for d in out.deliveries)


async def _settle(authority: Authority, clock: Clock) -> None:
    """Time enough for a forget-me job's last step (an ended game's table), done by chores."""
    clock.now += AFTER_END_S + EVERY_S + 1
    await authority.fire_due("console")


async def _raw(store: GameStore, key: str) -> Any:
    """A key's value exactly as stored (None: no such key)."""
    client: Any = store.client
    kind = await client.type(key)
    if kind == "string":
        return await client.get(key)
    if kind == "hash":
        return await client.hgetall(key)
    if kind == "zset":
        return await client.zrange(key, 0, -1, withscores=True)
    if kind == "set":
        return sorted(await client.smembers(key))
    return None


async def _replays_replay(store: GameStore, game_id: str) -> GameResult:
    """The kept result of ``game_id``, after checking that its replay replays to its end."""
    found = await kept.replay_of(store, WHERE, game_id)
    assert found is not None, game_id
    result = GameResult.model_validate_json(found[0])
    game = get_game(result.game)
    assert game is not None
    steps = replay_steps(game, result, found[1])
    assert steps and steps[-1].version == result.final_version
    return result


async def _ids(store: GameStore) -> list[str]:
    return await kept.recent(store, WHERE, 0.0, 100)


# --- another person's name is nobody else's business --------------------------------------------


@pytest.mark.parametrize(
    "namesake",
    [ALICE[1], ALICE[0], "begin", "finished", "bigidea", "console", "a former player"],
    ids=["a-player-name", "a-player-id", "begin", "finished", "game-name", "platform", "former"],
)
async def test_a_namesake_forgotten_changes_nothing_of_anyone_else(
    store: GameStore, clock: Clock, namesake: str
) -> None:
    """Nemo's display name is another player's name, another player's id, or a word the
    records use. Nemo plays with Dave and Erin; Alice, Bob and Carol play apart. Nemo's
    forget-me leaves every record of theirs byte for byte, and every replay replays."""
    nemo = ("U-nemo-7", namesake)
    authority = _authority(store, clock)
    await _game(authority, store, clock, "general", [ALICE, BOB, CAROL])
    (theirs,) = await _ids(store)
    await _game(authority, store, clock, "lunch", [nemo, DAVE, ERIN])
    (nemos,) = [i for i in await _ids(store) if i != theirs]
    others = [ALICE, BOB, CAROL, DAVE, ERIN]
    client: Any = store.client
    general = [f"boardroom:{{console:general}}:{part}" for part in ("game", "log", "refs")]
    before = {key: await _raw(store, key) for key in general}
    results_before = await client.hgetall(WHERE.key("results"))
    replays_before = await client.hgetall(WHERE.key("replays"))
    rows_before = {
        part: {u: v for u, v in (await client.hgetall(WHERE.key(part))).items() if u != nemo[0]}
        for part in ("people", "ratings:bigidea")
    }
    played_before = {u: await _raw(store, WHERE.key(f"played:{u}")) for u, _ in others}
    stats_before = {u: await _ask(authority, (u, n), "stats") for u, n in others}
    history_before = await _ask(authority, ALICE, "history")
    nemo_result = await _replays_replay(store, nemos)

    done = await _ask(authority, nemo, "forget-me yes")
    assert "gone from this community" in done
    await _settle(authority, clock)

    for key in general:  # Alice, Bob and Carol's game in its channel: record, log, table
        assert await _raw(store, key) == before[key], key
    results_after = await client.hgetall(WHERE.key("results"))
    replays_after = await client.hgetall(WHERE.key("replays"))
    assert results_after[theirs] == results_before[theirs]
    assert replays_after[theirs] == replays_before[theirs]
    for part, rows in rows_before.items():
        after = await client.hgetall(WHERE.key(part))
        assert {u: v for u, v in after.items()} == rows, part
    for user, played in played_before.items():
        assert await _raw(store, WHERE.key(f"played:{user}")) == played
    for user, name in others:
        assert await _ask(authority, (user, name), "stats") == stats_before[user]
    # Dave and Erin's game: their seats as they were, Nemo's a former player's; it replays.
    assert await _replays_replay(store, theirs)
    after = await _replays_replay(store, nemos)
    for seat_before, seat_after in zip(nemo_result.seats, after.seats, strict=True):
        if nemo[0] in [p.user for p in seat_before.people]:
            assert seat_after.name == FORMER and [p.user for p in seat_after.people] == [""]
        else:
            assert seat_after == seat_before
    history_after = await _ask(authority, ALICE, "history")
    line_of = {line.split("`")[1]: line for line in history_before.splitlines() if "`" in line}
    assert line_of[theirs] in history_after.splitlines()
    for _key, text in await everything(store):
        assert nemo[0] not in text


async def test_a_namesake_at_the_same_table_leaves_the_player_of_that_name_alone(
    store: GameStore, clock: Clock
) -> None:
    """Bob calls himself "Alice Liddell" (and so does his seat) at Alice's table: his forget-me
    renames his seat only; Alice's seat, stats and replay read as before."""
    bob = (BOB[0], ALICE[1])
    authority = _authority(store, clock)
    await _game(authority, store, clock, "general", [ALICE, bob, CAROL])
    (game_id,) = await _ids(store)
    before = await _replays_replay(store, game_id)
    alice_stats = await _ask(authority, ALICE, "stats")
    assert "#" in alice_stats  # her place in it ("#2 of 3 ($37)")
    await _ask(authority, bob, "forget-me yes")
    await _settle(authority, clock)
    after = await _replays_replay(store, game_id)
    for seat_before, seat_after in zip(before.seats, after.seats, strict=True):
        users = [p.user for p in seat_before.people]
        if bob[0] in users:
            assert seat_after.name == FORMER
        else:
            assert seat_after == seat_before  # Alice's "Alice Liddell" among them
    assert [s.name for s in after.seats].count(ALICE[1]) == 1
    assert await _ask(authority, ALICE, "stats") == alice_stats
    record = await _record(store, "general")
    assert [(s.name, s.users) for s in record.seats].count((ALICE[1], [ALICE[0]])) == 1
    assert bob[0] not in json.dumps(record.model_dump())


# --- no trace of the asker ----------------------------------------------------------------------


async def test_forget_me_leaves_neither_the_id_nor_any_name_used_in_three_games(
    store: GameStore, clock: Clock
) -> None:
    """Bob plays three games under three names: hosting the first, leaving the third during
    play (a bot finishes his seat). After forget-me no Redis key holds his id or any of his
    names; the others' results stand and every replay still replays."""
    names = ["Robert Tables", "Bobby Droptable", "Mx Pemberton"]
    authority = _authority(store, clock)
    await _game(authority, store, clock, "c1", [(BOB[0], names[0]), ALICE, CAROL])
    await _game(authority, store, clock, "c2", [ALICE, (BOB[0], names[1]), CAROL])
    await _open(authority, "c3", [ALICE, CAROL, (BOB[0], names[2])])
    assert (await authority.command(_req((BOB[0], names[2]), "c3"), "bigidea", "leave")).public
    await _play_out(authority, store, clock, "c3")
    ids = await _ids(store)
    assert len(ids) == 3
    texts = await everything(store)
    assert all(any(n in t for _, t in texts) for n in names)
    alice = await _ask(authority, ALICE, "stats")

    asked = await _ask(authority, (BOB[0], names[2]), "forget-me yes")
    assert "gone from this community" in asked
    await _settle(authority, clock)

    for key, text in await everything(store):
        assert BOB[0] not in key and BOB[0] not in text, key
        for name in names:
            assert name not in text, (name, key)
    for game_id in ids:
        result = await _replays_replay(store, game_id)
        assert FORMER in [s.name for s in result.seats]
    assert await _ask(authority, ALICE, "stats") == alice
    assert "no finished games" in await _ask(authority, (BOB[0], names[0]), "stats")


async def test_a_person_who_asks_during_a_game_is_erased_when_it_ends(
    store: GameStore, clock: Clock
) -> None:
    """Asked during a game: their finished games go now; the game being played keeps them
    (they play on) and forgets them when it ends, its own result included; its table a minute
    after."""
    authority = _authority(store, clock)
    await _game(authority, store, clock, "c1", [BOB, ALICE, CAROL])
    await _open(authority, "c2", [ALICE, BOB, CAROL])
    said = await _ask(authority, BOB, "forget-me yes")
    assert "will forget you when it ends" in said
    record = await _record(store, "c2")
    assert record.forgotten == [BOB[0]] and record.seat_of(BOB[0]) is not None
    assert await store.games_of("console", BOB[0])  # still his game, for /hand in a DM
    await _play_out(authority, store, clock, "c2")
    # At once: the end recorded the game, and forgot him in it.
    community = [
        text for key, text in await everything(store) if key.startswith("boardroom:{community:")
    ]
    assert not any(BOB[0] in text or BOB[1] in text for text in community)
    assert len(await _ids(store)) == 2
    await _settle(authority, clock)
    for key, text in await everything(store):
        assert BOB[0] not in key and BOB[0] not in text and BOB[1] not in text, key
    for game_id in await _ids(store):
        await _replays_replay(store, game_id)


async def test_a_game_its_host_ended_keeps_nobody_who_asked(store: GameStore, clock: Clock) -> None:
    """A game ended early is not recorded, but is kept a day in its channel: forget-me (asked
    during it, and after it) erases its record, its log and what its table remembers."""
    authority = _authority(store, clock)
    await _open(authority, "c1", [ALICE, BOB, CAROL])
    await _ask(authority, BOB, "forget-me yes")
    assert (await authority.command(_req(ALICE, "c1"), "bigidea", "end")).ended
    await _open(authority, "c2", [ALICE, CAROL, BOB])
    assert (await authority.command(_req(ALICE, "c2"), "bigidea", "end")).ended
    assert BOB[1] in json.dumps((await _record(store, "c2")).model_dump())
    said = await _ask(authority, BOB, "forget-me yes")
    assert "gone from this community" in said  # (its games kept in channels)
    await _settle(authority, clock)
    for key, text in await everything(store):
        assert BOB[0] not in key and BOB[0] not in text and BOB[1] not in text, key
    for channel in ("c1", "c2"):
        record = await _record(store, channel)
        assert record.status == "finished" and FORMER in [s.name for s in record.seats]
        assert record.host == ALICE[0]


async def test_forget_me_from_another_community_erases_where_the_games_are(
    store: GameStore, clock: Clock
) -> None:
    """Bob's games are kept in the office's history; he asks from another community (another
    team id): he is erased in the office, and told so."""
    authority = _authority(store, clock)
    await _game(authority, store, clock, "general", [ALICE, BOB, CAROL])
    said = await _ask(authority, BOB, "forget-me yes", community="T-ELSEWHERE")
    assert "nothing of yours in this community" in said and "1 community" in said
    await _settle(authority, clock)
    for key, text in await everything(store):
        assert BOB[0] not in key and BOB[0] not in text and BOB[1] not in text, key
    assert "no finished games" in await _ask(authority, BOB, "stats")


class _FailsOnce(Forgetter):
    """A worker whose storage fails once, after the channels and before the history."""

    failed = False

    async def _community(self, where: kept.Community, person: Forgotten, games: list[str]) -> None:
        if not _FailsOnce.failed:
            _FailsOnce.failed = True
            raise StorageUnavailable()
        await super()._community(where, person, games)


async def test_an_erasure_that_fails_part_way_is_finished_by_the_chores(
    store: GameStore, clock: Clock
) -> None:
    authority = _authority(store, clock)
    await _game(authority, store, clock, "general", [ALICE, BOB, CAROL])
    pipeline = authority._pipeline
    failing = _FailsOnce(store, pipeline.settings, clock, pipeline.recorder)
    authority.community.forgetter = failing
    said = await _ask(authority, BOB, "forget-me yes")
    assert "unavailable" in said.lower()
    assert any(BOB[1] in text for _, text in await everything(store))  # half done: the channel
    clock.now += RETRY_S + EVERY_S
    await authority.fire_due("console")  # another worker's chores finish it
    await _settle(authority, clock)
    for key, text in await everything(store):
        assert BOB[0] not in key and BOB[0] not in text and BOB[1] not in text, key


# --- limits -------------------------------------------------------------------------------------


async def test_lobbies_shares_and_uploads_are_limited_per_person_across_workers(
    store: GameStore, clock: Clock
) -> None:
    """Two workers (two authorities on one Redis) count the same person: past each limit the
    person is told when they may again, and nothing is posted; others are not limited."""
    settings = Settings()
    one, two = _authority(store, clock, settings), _authority(store, clock, settings)
    for index in range(settings.limit_lobbies):
        worker = one if index % 2 else two
        assert (await worker.command(_req(ALICE, f"c{index}"), "bigidea", "start")).card
    refused = await one.command(_req(ALICE, "c-last"), "bigidea", "start")
    assert refused.card is None
    (told,) = refused.deliveries
    assert told.user == ALICE[0] and "you can open another in 10 minutes" in told.message.text
    _, loaded = await store.load(GameKey("console", "c-last"))
    assert loaded is None
    assert (await two.command(_req(CAROL, "c-last"), "bigidea", "start")).card
    # A start refused (the channel holds a game) posts nothing, and is not counted.
    clock.now += WINDOW_S + 1
    for _ in range(settings.limit_lobbies + 2):
        assert not (await one.command(_req(ALICE, "c1"), "bigidea", "start")).card
    assert (await one.command(_req(ALICE, "c-new"), "bigidea", "start")).card

    await _game(one, store, clock, "lunch", [DAVE, ERIN], bots=1)
    for index in range(settings.limit_shares):
        worker = one if index % 2 else two
        out = await worker.command(_req(DAVE, "lunch"), COMMAND, "leaderboard bigidea share")
        assert out.announcements
    out = await one.command(_req(DAVE, "lunch"), COMMAND, "leaderboard bigidea share")
    assert not out.announcements and "the most I allow" in out.deliveries[0].message.text

    for index in range(settings.limit_uploads):
        out = await (one if index % 2 else two).command(_req(ERIN, "lunch"), "bigidea", "rules all")
        assert out.deliveries[0].message.files
    out = await one.command(_req(ERIN, "lunch"), "bigidea", "rules all")
    (told,) = out.deliveries
    assert not told.message.files and "whole rules pages" in told.message.text
    clock.now += WINDOW_S + 1
    out = await one.command(_req(ERIN, "lunch"), "bigidea", "rules all")
    assert out.deliveries[0].message.files


# --- consent ------------------------------------------------------------------------------------


async def test_a_team_rematch_seats_its_presser_in_their_team_and_offers_the_others_theirs(
    store: GameStore, clock: Clock
) -> None:
    authority = _authority(store, clock)
    channel = "teams"

    async def say(who: tuple[str, str], text: str) -> Any:
        return await authority.command(_req(who, channel), "biggiebills", text)

    assert (await say(ALICE, "start")).card
    assert (await say(BOB, f"join {ALICE[1]}")).card  # Alice's team
    assert (await say(CAROL, "join Sharks")).card
    record = await _record(store, channel)
    assert [s.users for s in record.seats] == [[ALICE[0], BOB[0]], [CAROL[0]]]
    assert (await say(ALICE, "addbot 1")).card
    assert (await say(ALICE, "begin")).begun
    assert (await say(ALICE, "end")).ended
    finished = await _record(store, channel)
    out = await say(CAROL, "rematch")
    assert out.card is not None
    lobby = await _record(store, channel)
    assert [s.users for s in lobby.seats] == [[CAROL[0]], []]  # Carol's team, and the bot
    assert lobby.seats[0].name == finished.seats[1].name
    assert {(i.user, i.team) for i in lobby.invited} == {
        (ALICE[0], finished.seats[0].name),
        (BOB[0], finished.seats[0].name),
    }
    labels = [b.label for b in out.card.all_buttons()]
    assert f"Join {finished.seats[0].name}" in labels
    join = next(b for b in out.card.all_buttons() if b.label == f"Join {finished.seats[0].name}")
    assert join.command is not None
    assert (await say(BOB, join.command)).card  # one press: his team again, created for him
    lobby = await _record(store, channel)
    assert [(s.name, s.users) for s in lobby.seats][-1] == (finished.seats[0].name, [BOB[0]])
    assert [i.user for i in lobby.invited] == [ALICE[0]]


async def test_forget_me_in_a_lobby_drops_an_invitation_and_marks_a_seat(
    store: GameStore, clock: Clock
) -> None:
    authority = _authority(store, clock)
    await _game(authority, store, clock, "general", [ALICE, BOB, CAROL])
    assert (await authority.command(_req(ALICE, "general"), "bigidea", "rematch")).card
    await _ask(authority, BOB, "forget-me yes")
    lobby = await _record(store, "general")
    assert [i.user for i in lobby.invited] == [CAROL[0]] and BOB[0] not in lobby.forgotten
    await _ask(authority, ALICE, "forget-me yes")
    lobby = await _record(store, "general")
    assert lobby.forgotten == [ALICE[0]] and lobby.seat_of(ALICE[0]) == 0
    # The lobby closes (its host leaves): Alice is forgotten with it.
    assert (await authority.command(_req(ALICE, "general"), "bigidea", "leave")).card
    await _settle(authority, clock)
    for key, text in await everything(store):
        for user, name in (ALICE, BOB):
            assert user not in key and user not in text and name not in text, key


async def test_forget_me_and_the_sweep_run_on_a_cluster(cluster_store: GameStore) -> None:
    """Every script keeps to one slot: the erasure (a person's keys, a community's, a
    channel's, the chores') and the sweep run on Redis Cluster as on one Redis."""
    clock = Clock()
    authority = _authority(cluster_store, clock, Settings(BOARDROOM_HISTORY_DAYS=1))
    await _game(authority, cluster_store, clock, "general", [ALICE, BOB, CAROL])
    held = [key for key, text in await everything(cluster_store) if BOB[0] in key + text]
    assert len({key.split("}")[0] for key in held}) >= 3  # his keys, the channel's, the history's
    assert "gone from this community" in await _ask(authority, BOB, "forget-me yes")
    await _settle(authority, clock)
    for key, text in await everything(cluster_store):
        assert BOB[0] not in key and BOB[0] not in text and BOB[1] not in text, key
    clock.now += 2 * 86400
    await authority.fire_due("console")
    left = [key for key, _ in await everything(cluster_store) if "{community:" in key]
    assert left == [WHERE.key("rev")]


async def test_a_result_recorded_before_seats_were_numbered_is_erased_the_same(
    store: GameStore, clock: Clock
) -> None:
    """A result kept without its seats' places at the table finds them by replaying: it is
    rewritten as one that has them is."""
    authority = _authority(store, clock)
    await _game(authority, store, clock, "general", [ALICE, BOB, CAROL])
    (game_id,) = await _ids(store)
    found = await kept.replay_of(store, WHERE, game_id)
    assert found is not None
    result, replay = found
    older = GameResult.model_validate_json(result)
    for seat in older.seats:
        seat.seat = None
    bob = Forgotten(BOB[0], frozenset({BOB[1]}))
    new_rec, new_rep, dropped = erase_result(result, replay, bob)
    old_rec, old_rep, old_dropped = erase_result(older.model_dump_json(), replay, bob)
    assert not dropped and not old_dropped and new_rep == old_rep and new_rep is not None
    now, before = GameResult.model_validate_json(new_rec), GameResult.model_validate_json(old_rec)
    assert [(s.name, s.people, s.rank) for s in now.seats] == [
        (s.name, s.people, s.rank) for s in before.seats
    ]
    assert now.summary == before.summary and BOB[1] not in now.model_dump_json()


async def test_a_game_kept_from_a_snapshot_keeps_nothing_of_the_person_either(
    store: GameStore, clock: Clock
) -> None:
    """A log long enough to be kept from a snapshot of the state (every 20 entries here, 1,000
    in production) cannot be replayed from its ``begin``: the snapshot is renamed too, and
    what could still hold the name (a text the game wrote before it) is dropped rather than
    kept: the replay, or the channel game's state. Nothing of Bob stays; what stays replays."""
    store.snapshot_every = 20
    authority = _authority(store, clock)
    await _game(authority, store, clock, "general", [ALICE, BOB, CAROL])
    (game_id,) = await _ids(store)
    found = await kept.replay_of(store, WHERE, game_id)
    assert found is not None and json.loads(found[1])["snapshot"]  # kept from a snapshot
    await _ask(authority, BOB, "forget-me yes")
    await _settle(authority, clock)
    for key, text in await everything(store):
        assert BOB[0] not in key and BOB[0] not in text and BOB[1] not in text, key
    if await kept.replay_of(store, WHERE, game_id) is not None:
        await _replays_replay(store, game_id)
    record = await _record(store, "general")
    assert record.status == "finished" and FORMER in [s.name for s in record.seats]


async def test_a_snapshot_that_still_names_the_person_is_dropped_not_kept(
    store: GameStore, clock: Clock
) -> None:
    """Busine$$ GO writes every name into its opening roll, before any snapshot: renaming the
    snapshot's seats cannot reach it, so the replay goes and the channel's game is closed
    without its state (its next game still starts past it)."""
    store.snapshot_every = 20
    authority = _authority(store, clock)
    people = [ALICE, BOB, CAROL]
    options = "turn_seconds=10 compete_seconds=10 auction_seconds=10 short"
    assert (await authority.command(_req(ALICE, "go"), "businessgo", f"start {options}")).card
    for who in people[1:]:
        assert (await authority.command(_req(who, "go"), "businessgo", "join")).card
    assert (await authority.command(_req(ALICE, "go"), "businessgo", "begin")).begun
    await _play_out(authority, store, clock, "go")
    (game_id,) = await _ids(store)
    last = await _record(store, "go")
    await _ask(authority, BOB, "forget-me yes")
    await _settle(authority, clock)
    for key, text in await everything(store):
        assert BOB[0] not in key and BOB[0] not in text and BOB[1] not in text, key
    assert await kept.replay_of(store, WHERE, game_id) is None
    (result,) = (await kept.results(store, WHERE, [game_id])).values()
    assert FORMER in result and ALICE[1] in result
    record = await _record(store, "go")
    assert record.state_json is None and record.first_version > last.first_version
    assert (await authority.command(_req(ALICE, "go"), "businessgo", "start")).card
