"""Taking a move back by consent, pausing, and games of week-long turns, through the authority
on a real redis-server (the kit checks take-backs in every game: tests/test_conformance.py)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bot.commands import codec
from bot.commands.authority import STALE, Authority, Request
from bot.commands.game import takeback, undo
from bot.commands.game.actionlog import replay
from bot.commands.outbox import Outbox
from bot.commands.pipeline import DAY_S
from bot.commands.record import GameRecord
from bot.settings import Settings
from core import ui
from core.engine import GameLike, GameState, erase
from core.games.biggiebills import GAME as BIGGIEBILLS
from core.games.bigidea import GAME as BIGIDEA
from storage import GameKey, GameStore
from storage.store import _game_key
from tests.authority_support import Clock, public_text

GAME = erase(BIGIDEA)
BILLS = erase(BIGGIEBILLS)
CHANNEL = "undo-1"
KEY = GameKey("console", CHANNEL)


@pytest.fixture
def store(redis_store: GameStore) -> GameStore:
    return redis_store


def make_authority(store: GameStore, clock: Clock, **settings: Any) -> Authority:
    seeds = random.Random(11)
    return Authority(
        store,
        Settings.model_validate(settings),
        clock=clock,
        new_seed=lambda: seeds.getrandbits(63),
    )


@pytest.fixture
def authority(store: GameStore, clock: Clock) -> Authority:
    return make_authority(store, clock)


def req(user: str) -> Request:
    return Request(platform="console", channel=CHANNEL, user=user, name=user.title())


def said(out: Outbox, user: str) -> str:
    return "\n".join(d.message.text for d in out.deliveries if d.user == user)


async def record(store: GameStore) -> GameRecord:
    _, loaded = await store.load(KEY)
    assert loaded is not None
    return GameRecord.model_validate_json(loaded.data)


async def state_of(store: GameStore, game: GameLike = GAME) -> GameState:
    rec = await record(store)
    assert rec.state_json is not None
    return game.state_model.model_validate_json(rec.state_json)


async def begin(
    authority: Authority,
    humans: list[str],
    bots: int = 0,
    options: str = "",
    game: GameLike = GAME,
) -> None:
    await authority.command(req(humans[0]), game.name, f"start {options}")
    for user in humans[1:]:
        await authority.command(req(user), game.name, "join")
    if bots:
        await authority.command(req(humans[0]), game.name, f"addbot {bots}")
    out = await authority.command(req(humans[0]), game.name, "begin")
    assert out.board is not None, said(out, humans[0])


def button_for(state: GameState, seat: int, action: Any, game: GameLike = GAME) -> str:
    button = ui.Button(
        label="x", action=action.model_dump(mode="json"), version=state.version, seat=seat
    )
    return codec.encode_button(game.name, button)


async def move(
    authority: Authority, store: GameStore, user: str, pick: int = 0, game: GameLike = GAME
) -> str:
    """``user`` presses a button of one of their legal actions; its id (to press it again)."""
    rec = await record(store)
    seat = rec.seat_of(user)
    assert seat is not None
    state = await state_of(store, game)
    legal = game.legal_actions(state, seat)
    assert legal, f"{user} has nothing to do"
    custom_id = button_for(state, seat, legal[pick % len(legal)], game)
    out = await authority.press(req(user), custom_id)
    assert not said(out, user).startswith("That"), said(out, user)
    return custom_id


def as_played(state: GameState) -> dict[str, Any]:
    """A state without what a take-back changes by design (its version history)."""
    data = state.model_dump(mode="json")
    for name in ("version", "decision_version"):
        data.pop(name)
    if data.get("decision"):
        data["decision"].pop("opened")
    if data.get("deadline"):
        data["deadline"].pop("key")
    return data


async def stored_log(store: GameStore) -> list[str]:
    return list((await store.read_history(KEY)).lines)


async def test_a_move_is_taken_back_once_everyone_approves_and_one_refusal_ends_a_request(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    await begin(authority, ["alice", "bob", "carol"])
    before = await state_of(store)
    picked = await move(authority, store, "alice")
    after = await state_of(store)
    assert after.version == before.version + 1
    hidden = after.model_dump()["picks"][0]
    assert hidden, "Alice's pick is pending, secret"

    asked = await authority.command(req("alice"), "bigidea", "undo")
    assert "the others answer on the board" in said(asked, "alice")
    assert asked.board is not None
    assert [b.command for b in asked.board.buttons[-1]] == ["undo yes", "undo no"]
    assert "Alice asks to take back their last move" in asked.board.text
    assert not any(card in public_text(asked) for card in hidden), "the request tells the pick"
    again = await authority.command(req("alice"), "bigidea", "undo")
    assert "You have asked already" in said(again, "alice")
    own = await authority.command(req("alice"), "bigidea", "undo yes")
    assert "your own request" in said(own, "alice")

    yes = await authority.command(req("bob"), "bigidea", "undo yes")
    assert "the others are still answering" in said(yes, "bob")
    no = await authority.press(
        req("carol"), codec.encode_button("bigidea", asked.board.buttons[-1][1])
    )
    assert "Carol refused Alice's request to take back a move." in public_text(no)
    assert "Carol refused your request" in said(no, "alice")
    assert no.board is not None and "asks to take back" not in no.board.text
    rec = await record(store)
    assert rec.undo_request is None
    assert (await state_of(store)).model_dump() == after.model_dump(), "a refusal changes nothing"
    late = await authority.command(req("bob"), "bigidea", "undo yes")
    assert said(late, "bob") == takeback.NO_REQUEST

    clock.now += 30
    await authority.command(req("alice"), "bigidea", "undo")
    await authority.command(req("bob"), "bigidea", "undo yes")
    done = await authority.command(req("carol"), "bigidea", "undo yes")
    assert "Alice took back their last move: the game is as it was before." in public_text(done)
    assert not any(card in public_text(done) for card in hidden), "the log tells the pick"
    back = await state_of(store)
    assert as_played(back) == as_played(before)
    assert back.version == after.version + 1 and back.decision_version == back.version
    assert set(done.panels) == {"alice", "bob", "carol"}, "every panel is drawn anew"
    assert done.board is not None and "asks to take back" not in done.board.text
    rec = await record(store)
    assert before.deadline is not None
    assert rec.deadline_due == clock.now + before.deadline.seconds, "the deadline re-armed"
    assert rec.undo_points == [] and rec.undo_request is None

    # The log says what happened, and replays to the game as stored (versions never repeat).
    lines = await stored_log(store)
    assert json.loads(lines[-1]) == [["alice", "undo", before.version]]
    rebuilt = replay(GAME, rec.seed, rec.options, rec.first_version, lines)
    assert rebuilt is not None and rebuilt.model_dump() == back.model_dump()

    # The pick's button from before it was taken back is stale now; Alice picks again.
    stale = await authority.press(req("alice"), picked)
    assert STALE in said(stale, "alice")
    await move(authority, store, "alice", pick=1)
    assert (await state_of(store)).version == back.version + 1


async def test_nothing_is_taken_back_after_a_reveal(authority: Authority, store: GameStore) -> None:
    await begin(authority, ["alice", "bob", "carol"])
    for user in ("alice", "bob", "carol"):
        await move(authority, store, user)
    rec = await record(store)
    assert rec.undo_points == [], "the picks were turned over"
    before = await state_of(store)
    out = await authority.command(req("carol"), "bigidea", "undo")
    assert said(out, "carol") == undo.NOTHING_TO_TAKE_BACK
    assert (await state_of(store)).model_dump() == before.model_dump()


async def test_two_moves_since_are_taken_back_with_the_askers_and_others_may_not_ask(
    authority: Authority, store: GameStore
) -> None:
    await begin(authority, ["alice", "bob", "carol"])
    before = await state_of(store)
    await move(authority, store, "alice")
    await move(authority, store, "bob")
    await authority.command(req("alice"), "bigidea", "undo")
    rec = await record(store)
    assert rec.undo_request is not None and rec.undo_request.moves == 2
    await authority.command(req("bob"), "bigidea", "undo yes")
    await authority.command(req("carol"), "bigidea", "undo yes")
    assert as_played(await state_of(store)) == as_played(before)
    nothing = await authority.command(req("carol"), "bigidea", "undo")
    assert said(nothing, "carol") == undo.NOTHING_TO_TAKE_BACK


async def test_a_move_by_anyone_ends_a_request(authority: Authority, store: GameStore) -> None:
    await begin(authority, ["alice", "bob", "carol"])
    await move(authority, store, "alice")
    await authority.command(req("alice"), "bigidea", "undo")
    out_id = await move(authority, store, "bob")
    assert out_id
    rec = await record(store)
    assert rec.undo_request is None
    history = await stored_log(store)
    assert not any(undo.taken_back(json.loads(text)) for text in history)


async def test_the_host_alone_with_bots_takes_back_at_once(
    authority: Authority, store: GameStore
) -> None:
    await begin(authority, ["alice"], bots=2, game=BILLS)
    for turn in range(200):
        before = await state_of(store, BILLS)
        if before.finished:
            break
        seat = (await record(store)).seat_of("alice")
        if seat not in BILLS.actors(before):
            raise AssertionError("Alice waits for nobody but bots")
        await move(authority, store, "alice", pick=turn, game=BILLS)
        rec = await record(store)
        if rec.undo_points:
            out = await authority.command(req("alice"), BILLS.name, "undo")
            assert "Alice took back their last move" in public_text(out), said(out, "alice")
            assert as_played(await state_of(store, BILLS)) == as_played(before)
            return
    raise AssertionError("no move of Alice's could be taken back in a whole game")


# --- pausing -------------------------------------------------------------------------------------


async def test_a_paused_game_keeps_its_time_for_twenty_days_and_refuses_moves(
    store: GameStore, clock: Clock
) -> None:
    authority = make_authority(store, clock, BOARDROOM_GAME_TTL_HOURS=1)
    await begin(authority, ["alice", "bob", "carol"], options=f"pick_seconds={3 * DAY_S}")
    clock.now += DAY_S
    rec = await record(store)
    assert rec.deadline_due is not None
    left = rec.deadline_due - clock.now
    asked = await authority.command(req("bob"), "bigidea", "pause")
    assert "Bob asks to pause the game" in public_text(asked)
    assert asked.board is not None and "Bob asked to pause the game" in asked.board.text
    assert [b.command for b in asked.board.buttons[-1]] == ["pause"]
    assert (await record(store)).paused is None
    paused = await authority.command(req("alice"), "bigidea", "pause")
    assert "Alice paused the game" in public_text(paused)
    assert paused.board is not None and "Paused by Alice" in paused.board.text
    assert "then deleted" in paused.board.text
    assert [b.command for b in paused.board.buttons[-1]] == ["resume"]
    rec = await record(store)
    assert rec.paused is not None and rec.next_due is None
    ttl = await store.client.ttl(_game_key(KEY))
    assert ttl >= 30 * DAY_S - 60, "a paused game is kept for BOARDROOM_PAUSED_TTL_DAYS"

    state = await state_of(store)
    refused = await authority.press(
        req("carol"), button_for(state, 2, GAME.legal_actions(state, 2)[0])
    )
    assert "The game is paused (by Alice)" in said(refused, "carol")
    nothing = await authority.command(req("carol"), "bigidea", "undo")
    assert "paused" in said(nothing, "carol")

    clock.now += 20 * DAY_S
    await authority.fire_due("console")  # nothing is due while paused
    assert (await state_of(store)).model_dump() == state.model_dump(), "no deadline fired"
    resumed = await authority.command(req("bob"), "bigidea", "resume")
    assert "Bob resumed the game" in public_text(resumed)
    rec = await record(store)
    assert rec.paused is None
    assert rec.deadline_due == pytest.approx(clock.now + left), "the time it had left"
    ttl = await store.client.ttl(_game_key(KEY))
    assert ttl >= left + DAY_S - 60, "kept until its deadline and a day"
    await move(authority, store, "carol")


# --- long games --------------------------------------------------------------------------------


async def test_a_game_of_three_day_deadlines_played_a_move_a_day_finishes(
    store: GameStore, clock: Clock
) -> None:
    """One move a virtual day (the bots answer at once), on a TTL of an hour: every save keeps
    the game until its open deadline and a day, read from Redis."""
    three = 3 * DAY_S
    authority = make_authority(store, clock, BOARDROOM_GAME_TTL_HOURS=1)
    options = f"pick_seconds={three} vote_seconds={three} turn_seconds={three}"
    await begin(authority, ["alice"], bots=2, options=options)
    start, days = clock.now, 0
    for turn in range(400):
        if (await record(store)).status == "finished":
            break
        clock.now += DAY_S
        days += 1
        await authority.fire_due("console")  # a notice may be due; no deadline is
        rec = await record(store)
        if rec.status == "finished":
            break
        assert rec.deadline_due is not None and rec.deadline_due > clock.now
        await move(authority, store, "alice", pick=turn)
        rec = await record(store)
        ttl = await store.client.ttl(_game_key(KEY))
        if rec.status == "playing" and rec.deadline_due is not None:
            assert ttl >= rec.deadline_due - clock.now + DAY_S - 60, (ttl, turn)
            assert ttl > 3600
    rec = await record(store)
    assert rec.status == "finished"
    assert days >= 10 and clock.now - start >= 10 * DAY_S


async def test_the_movers_panel_offers_to_take_the_move_back(
    authority: Authority, store: GameStore
) -> None:
    await begin(authority, ["alice", "bob", "carol"])
    state = await state_of(store)
    out = await authority.press(req("alice"), button_for(state, 0, GAME.legal_actions(state, 0)[0]))
    panel = out.panels["alice"]
    take_back = [b for row in panel.buttons for b in row if b.command == "undo"]
    assert [b.label for b in take_back] == ["Take back"]
    asked = await authority.press(req("alice"), codec.encode_button("bigidea", take_back[0]))
    assert asked.board is not None and "Alice asks to take back" in asked.board.text
    assert (await record(store)).undo_request is not None


async def test_a_long_deadline_is_told_privately_once_and_again_an_hour_before(
    store: GameStore, clock: Clock
) -> None:
    three = 3 * DAY_S
    authority = make_authority(store, clock)
    options = f"pick_seconds={three} vote_seconds={three} turn_seconds={three}"
    await authority.command(req("alice"), "bigidea", f"start {options}")
    await authority.command(req("bob"), "bigidea", "join")
    await authority.command(req("carol"), "bigidea", "join")
    begun = await authority.command(req("alice"), "bigidea", "begin")
    rec = await record(store)
    assert rec.deadline_due is not None and rec.warn_due == rec.deadline_due - 3600
    told = {d.user: d for d in begun.deliveries if d.note and d.note.startswith("deadline:")}
    assert set(told) == {"bob", "carol"}, "everyone waited for but the host who just began"
    assert all(d.message.deadline == rec.deadline_due for d in told.values())
    await move(authority, store, "alice")
    again = [d for d in (await authority.command(req("bob"), "bigidea", "status")).deliveries]
    assert not any(d.note for d in again), "told once"

    clock.now = rec.warn_due + 1
    fired = await authority.fire_due("console")
    warned = [d for out in fired for d in out.deliveries if d.note and "last-hour" in d.note]
    assert {d.user for d in warned} == {"bob", "carol"}, "Alice picked already"
    assert "One hour is left" in warned[0].message.text
    rec = await record(store)
    assert rec.warn_due is None and rec.deadline_due is not None
    clock.now = rec.deadline_due + 1
    await authority.fire_due("console")
    assert (await state_of(store)).deciding != "pick", "the deadline still ends the picks"
