"""The authority when saves lose races or replies, on the embedded store (testkit/racing.py).

A competing write lands between the authority's load of a game and its save: another player's
move through a second worker, the same press handled by another worker first, or a plain write.
The compare-and-set must then reload and apply the move on top, exactly once; when it loses every
time the player alone is told the table was busy, and nothing is written. A save whose reply is
lost after it was written is recognised as the authority's own, and the player is told it counted.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from bot.commands import codec
from bot.commands.authority import BUSY, UNAVAILABLE, Authority, Request
from bot.commands.game.actionlog import replay
from bot.commands.outbox import Outbox
from bot.commands.pipeline import MAX_ATTEMPTS
from bot.commands.record import GameRecord
from bot.settings import Settings
from core import ui
from core.engine import erase
from core.games.bigidea import GAME
from storage import GameKey, GameStore, SaveResult
from testkit.racing import Competitor, RacingStore
from tests.authority_support import Clock
from tests.records import plain_state

CHANNEL = "race-table"
KEY = GameKey("console", CHANNEL)
CONFLICT, WRITTEN, DUPLICATE = SaveResult.CONFLICT, SaveResult.WRITTEN, SaveResult.DUPLICATE


@pytest.fixture
async def store() -> AsyncIterator[RacingStore]:
    racing = RacingStore(GameStore.from_url(None))
    yield racing
    await racing.close()


def _authority(store: GameStore, seed: int, clock: Clock) -> Authority:
    seeds = random.Random(seed)
    return Authority(store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))


@pytest.fixture
def authority(store: RacingStore) -> Authority:
    return _authority(store, 7, Clock())


@pytest.fixture
def rival(store: RacingStore) -> Authority:
    """Another worker on the same Redis, writing through the real store (never raced itself).

    Its clock reads a little later, as another machine's would: two workers saving the very
    same move at the very same instant would store the same bytes, which no read-back can tell
    apart (and need not: the move counted once either way)."""
    return _authority(store.inner, 8, Clock(1_000_000.25))


def req(user: str, delivery: str | None = None) -> Request:
    return Request(
        platform="console", channel=CHANNEL, user=user, name=user.title(), delivery=delivery
    )


def doing(call: Callable[[], Awaitable[Outbox]], outs: list[Outbox]) -> Competitor:
    """A competitor that runs ``call`` (a rival's command) and keeps its Outbox in ``outs``."""

    async def compete(store: GameStore, key: GameKey) -> None:
        outs.append(await call())

    return compete


def reply_text(out: Outbox, user: str) -> str:
    return "\n".join(d.message.text for d in out.deliveries if d.user == user)


async def record(store: GameStore) -> GameRecord:
    _, loaded = await store.load(KEY)
    assert loaded is not None
    return GameRecord.model_validate_json(loaded.data)


async def entries(store: GameStore) -> list[list[Any]]:
    """Every entry of the game's log, in order."""
    return [entry for line in await store.read_log(KEY) for entry in json.loads(line)]


async def picks_of(store: GameStore, seat: int) -> list[list[Any]]:
    return [entry for entry in await entries(store) if entry[:2] == [seat, "pick"]]


async def lobby(authority: Authority, humans: list[str], bots: int = 0) -> None:
    assert (await authority.command(req(humans[0]), "bigidea", "start")).public
    for user in humans[1:]:
        assert (await authority.command(req(user), "bigidea", "join")).public
    if bots:
        await authority.command(req(humans[0]), "bigidea", f"addbot {bots}")


async def begin(authority: Authority) -> Outbox:
    """Alice and Bob with two bots, dealt (the bots pick at once)."""
    await lobby(authority, ["alice", "bob"], bots=2)
    return await authority.command(req("alice"), "bigidea", "begin")


def waits_for(out: Outbox, name: str) -> bool:
    """Whether the board ``out`` draws waits for ``name`` alone (a pick applied shows there: it
    tells no line of the story)."""
    return out.board is not None and f"Waiting for {name}." in out.board.text


def pick(out: Outbox, user: str) -> tuple[str, list[str]]:
    """The custom id of ``user``'s pick menu and two of its cards."""
    select: ui.Select = out.panels[user].selects[0]
    return codec.encode_select("bigidea", select), [o.value for o in select.options[:2]]


# --- the compare-and-set retries --------------------------------------------------------------


async def test_two_players_race_for_the_last_seat(
    store: RacingStore, authority: Authority, rival: Authority
) -> None:
    """Carol's join lands between Bob's load and save: Bob's retry finds the table full."""
    await lobby(authority, ["alice"], bots=4)
    theirs: list[Outbox] = []
    store.compete(1, doing(lambda: rival.command(req("carol"), "bigidea", "join"), theirs))
    store.answers.clear()
    out = await authority.command(req("bob"), "bigidea", "join")
    assert store.competed == 1 and store.answers == [CONFLICT]  # the retry refused, unsaved
    assert theirs[0].public
    assert "The table is full" in reply_text(out, "bob") and not out.public
    seats = [user for seat in (await record(store)).seats for user in seat.users]
    assert len((await record(store)).seats) == 6 and "carol" in seats and "bob" not in seats
    assert await store.games_of("console", "bob") == []
    assert await store.games_of("console", "carol") == [KEY]


async def test_two_players_picking_at_once_both_count(
    store: RacingStore, authority: Authority, rival: Authority
) -> None:
    """Bob's pick lands between Alice's load and save: hers is applied on top of his."""
    dealt = await begin(authority)
    alice_menu, alice_cards = pick(dealt, "alice")
    bob_menu, bob_cards = pick(dealt, "bob")
    theirs: list[Outbox] = []
    store.compete(1, doing(lambda: rival.press(req("bob"), bob_menu, bob_cards), theirs))
    store.answers.clear()
    out = await authority.press(req("alice"), alice_menu, alice_cards)
    assert store.answers == [CONFLICT, WRITTEN]
    assert waits_for(theirs[0], "Alice") and "Everyone reveals at once." in "\n".join(out.log)
    assert [e[2] for e in await picks_of(store, 0)] == [alice_cards]
    assert [e[2] for e in await picks_of(store, 1)] == [bob_cards]
    rec = await record(store)
    hands = plain_state(rec)["hands"]
    assert not set(alice_cards) & set(hands[0]) and not set(bob_cards) & set(hands[1])
    replayed = replay(
        erase(GAME), rec.seed, rec.options, rec.first_version, await store.read_log(KEY)
    )
    assert replayed is not None and replayed.model_dump(mode="json") == rec.state


async def test_a_double_click_applies_once(
    store: RacingStore, authority: Authority, rival: Authority
) -> None:
    """The same pick pressed twice, the second press handled first by another worker: one
    applies, the other is told, nothing else moves."""
    dealt = await begin(authority)
    menu, cards = pick(dealt, "alice")
    theirs: list[Outbox] = []
    store.compete(1, doing(lambda: rival.press(req("alice"), menu, cards), theirs))
    store.answers.clear()
    out = await authority.press(req("alice"), menu, cards)
    assert store.answers == [CONFLICT]
    assert reply_text(out, "alice").startswith("You have already picked those cards")
    assert not out.public and not out.panels
    assert theirs[0].log == [] and waits_for(theirs[0], "Bob")  # a pick tells no story
    assert "Your pick" in theirs[0].panels["alice"].text
    assert [e[2] for e in await picks_of(store, 0)] == [cards]


async def test_a_move_that_loses_every_race_but_the_last_lands_once(
    store: RacingStore, authority: Authority
) -> None:
    dealt = await begin(authority)
    menu, cards = pick(dealt, "alice")
    store.compete(MAX_ATTEMPTS - 1)
    store.answers.clear()
    out = await authority.press(req("alice"), menu, cards)
    assert store.answers == [CONFLICT] * (MAX_ATTEMPTS - 1) + [WRITTEN]
    assert waits_for(out, "Bob") and "Your pick" in out.panels["alice"].text
    assert [e[2] for e in await picks_of(store, 0)] == [cards]
    assert sorted(plain_state(await record(store))["picks"][0]) == sorted(cards)


# --- the busy answer --------------------------------------------------------------------------


async def test_a_move_that_loses_every_race_is_busy_for_its_player_only(
    store: RacingStore, authority: Authority
) -> None:
    dealt = await begin(authority)
    menu, cards = pick(dealt, "alice")
    before, log_before = await record(store), await store.read_log(KEY)
    due_before = await store.deadline_of(KEY)
    store.compete(None)  # every save
    store.answers.clear()
    out = await authority.press(req("alice", delivery="d-busy"), menu, cards)
    assert store.answers == [CONFLICT] * MAX_ATTEMPTS
    assert [(d.user, d.message.text) for d in out.deliveries] == [("alice", BUSY)]
    assert not out.public and not out.panels and out.board is None and not out.notify
    after = await record(store)
    assert after.state == before.state and after.deadline_due == before.deadline_due
    assert await store.read_log(KEY) == log_before
    assert await store.deadline_of(KEY) == due_before
    store.compete(0)
    again = await authority.press(req("alice", delivery="d-busy"), menu, cards)
    assert not again.duplicate and waits_for(again, "Bob")  # the retry counts


async def test_a_busy_join_seats_nobody_and_its_retry_counts(
    store: RacingStore, authority: Authority
) -> None:
    await lobby(authority, ["alice"])
    store.compete(None)
    out = await authority.command(req("bob", delivery="j-1"), "bigidea", "join")
    assert [(d.user, d.message.text) for d in out.deliveries] == [("bob", BUSY)]
    assert not out.public
    assert [s.users for s in (await record(store)).seats] == [["alice"]]
    assert await store.games_of("console", "bob") == []
    store.compete(0)
    again = await authority.command(req("bob", delivery="j-1"), "bigidea", "join")
    assert again.card is not None and "Bob joined." in again.card.text
    assert await store.games_of("console", "bob") == [KEY]


# --- lost replies -----------------------------------------------------------------------------


async def test_a_save_whose_reply_is_lost_is_told_as_applied(
    store: RacingStore, authority: Authority
) -> None:
    """The connection drops after Redis ran the save: read back, it is ours, and it counted."""
    dealt = await begin(authority)
    menu, cards = pick(dealt, "alice")
    store.lose_replies(1, "error")
    store.answers.clear()
    out = await authority.press(req("alice", delivery="d-lost"), menu, cards)
    assert store.answers == [WRITTEN]
    assert not out.unavailable and UNAVAILABLE not in reply_text(out, "alice")
    assert "counted" not in reply_text(out, "alice")
    assert waits_for(out, "Bob") and "Your pick" in out.panels["alice"].text
    assert [e[2] for e in await picks_of(store, 0)] == [cards]
    again = await authority.press(req("alice", delivery="d-lost"), menu, cards)
    assert again.duplicate and not again.deliveries  # the platform's retry applies nothing
    assert len(await picks_of(store, 0)) == 1


@pytest.mark.parametrize(("delivery", "resent"), [(None, CONFLICT), ("d-9", DUPLICATE)])
async def test_a_resent_save_that_meets_its_own_write_is_told_as_applied(
    store: RacingStore, authority: Authority, delivery: str | None, resent: SaveResult
) -> None:
    """The client sends the save again after a lost reply (as redis-py's retry does): the
    second run sees the first one's write, and the authority recognises it as its own."""
    dealt = await begin(authority)
    menu, cards = pick(dealt, "alice")
    store.lose_replies(1, "retry")
    store.answers.clear()
    out = await authority.press(req("alice", delivery=delivery), menu, cards)
    assert store.answers == [WRITTEN, resent]
    assert not out.unavailable and not out.duplicate
    assert not [d for d in out.deliveries if d.user == "alice"]  # no refusal, no warning
    assert waits_for(out, "Bob") and "Your pick" in out.panels["alice"].text
    assert [e[2] for e in await picks_of(store, 0)] == [cards]


async def test_a_delivery_another_worker_saved_first_is_not_applied_twice(
    store: RacingStore, authority: Authority, rival: Authority
) -> None:
    """A platform's retry of one press reaches two workers; the other saves it first."""
    dealt = await begin(authority)
    menu, cards = pick(dealt, "alice")
    theirs: list[Outbox] = []
    press = req("alice", delivery="d-twice")
    store.compete(1, doing(lambda: rival.press(press, menu, cards), theirs))
    store.answers.clear()
    out = await authority.press(press, menu, cards)
    assert store.answers == [DUPLICATE]
    assert out.duplicate and not out.deliveries and not out.public
    assert waits_for(theirs[0], "Bob")
    assert [e[2] for e in await picks_of(store, 0)] == [cards]
