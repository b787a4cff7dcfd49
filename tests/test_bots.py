"""Bot levels (``core/bots.py``): every level plays legally in every game, a strong bot's choice
is reproducible by its node budget, and the host seats bots by level."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import random
from typing import Any

import pytest
from pydantic import BaseModel

from bot.commands.authority import Authority, Request
from bot.commands.record import GameRecord
from bot.settings import Settings
from core import bots
from core.engine import GameLike, GameState, Seat
from core.registry import all_games
from storage import GameKey, GameStore
from tests.authority_support import Clock

SMALL = bots.Budget(nodes=120, worlds=3, horizon=6, candidates=4, seconds=None)


Decision = tuple[GameState, Seat, list[BaseModel]]


def _states(game: GameLike, seed: int, count: int) -> list[Decision]:
    """States met along a game of normal bots (every few moves)."""
    rng = random.Random(seed)
    state = game.setup(["A", "B", "C", "D"][: max(game.min_players, 3)], {}, rng)
    seen: list[Decision] = []
    for step in range(400):
        if state.finished or len(seen) >= count:
            break
        actors = game.actors(state)
        if not actors:
            break
        seat = actors[0]
        legal = game.legal_actions(state, seat)
        if step % 7 == 0 and len(legal) > 1:
            seen.append((state, seat, legal))
        choice = game.bot_choice(state, seat, legal, rng)
        state = game.apply(state, seat, choice, rng).state
    return seen


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_every_level_chooses_a_legal_action_and_strong_is_reproducible(game: GameLike) -> None:
    states = _states(game, 3, 6)
    assert states, "no decision with a choice was met"
    differs = 0
    for state, seat, legal in states:
        for level in bots.LEVELS:
            choice = bots.choose(game, state, seat, legal, random.Random(1), level, SMALL)
            assert choice in legal, (level, choice)
        thought = bots.Thought()
        first = bots.strong_choice(game, state, seat, legal, random.Random(9), SMALL, thought)
        again = bots.strong_choice(game, state, seat, legal, random.Random(9), SMALL)
        assert first == again, "the same seed and node budget chose differently"
        assert thought.nodes <= SMALL.nodes + SMALL.candidates * (SMALL.horizon + 1)
        assert 1 <= thought.worlds <= SMALL.worlds and len(thought.cpu_s) == 1
        easy = [bots.choose(game, state, seat, legal, random.Random(k), "easy") for k in range(20)]
        normal = [game.bot_choice(state, seat, legal, random.Random(k)) for k in range(20)]
        differs += easy != normal
    assert differs > 0, "an easy bot always played as the normal one"


def test_a_level_is_read_from_what_records_keep() -> None:
    assert bots.level_of(None) is None and bots.level_of(False) is None
    assert bots.level_of(True) == "normal"  # a bot stored before levels
    assert bots.level_of("strong") == "strong" and bots.level_of("easy") == "easy"


def _req(user: str) -> Request:
    return Request(platform="console", channel="c", user=user, name=user, community="office")


async def _record(store: GameStore) -> GameRecord:
    _, loaded = await store.load(GameKey("console", "c"))
    assert loaded is not None
    return GameRecord.model_validate_json(loaded.data)


async def test_the_host_adds_bots_by_level_and_their_names_say_it(
    store: GameStore, clock: Clock
) -> None:
    seeds = random.Random(1)
    authority = Authority(store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))
    await authority.command(_req("alice"), "bigidea", "start bots=strong")
    out = await authority.command(_req("alice"), "bigidea", "addbot 2")
    assert out.card is not None and "added 2 strong bots" in out.card.text
    assert "Strong Ada (strong bot)" in out.card.text and "bots: strong" in out.card.text
    out = await authority.command(_req("alice"), "bigidea", "addbot easy")
    assert out.card is not None and "Easy Alan (easy bot)" in out.card.text
    out = await authority.command(_req("alice"), "bigidea", "addbot 1 normal")
    assert out.card is not None and "Edsger (bot)" in out.card.text
    record = await _record(store)
    assert record.bots == [None, "strong", "strong", "easy", "normal"]
    assert [s.name for s in record.seats][1:] == [
        "Strong Ada",
        "Strong Grace",
        "Easy Alan",
        "Edsger",
    ]
    (answer,) = (await authority.command(_req("alice"), "bigidea", "addbot clever")).deliveries
    assert answer.message.text == (
        "`addbot` takes a number of bots and a level (easy, normal or strong), "
        "e.g. `/bigidea addbot 2 strong`."
    )
    # The game names the seats as the lobby did (the board and its picture draw these names);
    # a person who leaves gets the table's level.
    assert (await authority.command(_req("alice"), "bigidea", "begin")).begun
    begun = await _record(store)
    names = (begun.state or {})["names"]
    assert isinstance(names, list) and "Strong Ada" in names and "Easy Alan" in names
    await authority.command(_req("alice"), "bigidea", "leave")
    record = await _record(store)
    assert record.seats[0].bot == "strong"
    assert record.status == "finished"  # bots only: they played it to its end


async def test_an_unknown_table_level_is_refused(store: GameStore, clock: Clock) -> None:
    authority = Authority(store, Settings(), clock=clock)
    (answer,) = (await authority.command(_req("alice"), "bigidea", "start bots=genius")).deliveries
    assert answer.message.text == (
        "`bots` takes a level, easy, normal or strong: e.g. `/bigidea start bots=strong`."
    )


async def _bot_game(
    store: GameStore, clock: Clock, channel: str, pool: concurrent.futures.Executor | None
) -> str:
    """A game of The Big Idea between strong and normal bots (the host leaves at once), its
    searches in ``pool`` (None: in line): the final state as stored."""
    authority = Authority(store, Settings(), clock=clock, new_seed=lambda: 4242)
    authority.thinker = pool
    host = Request(platform="console", channel=channel, user="h", name="h", community="o")
    for word in ("start bots=strong", "addbot 1 normal", "addbot 1 strong", "begin", "leave"):
        await authority.command(host, "bigidea", word)
    fired = 0
    for _ in range(500):  # a person's step leaves strong moves to the deadline loop
        _, loaded = await store.load(GameKey("console", channel))
        assert loaded is not None
        record = GameRecord.model_validate_json(loaded.data)
        if record.status == "finished":
            break
        assert pool is not None, "in line, the bots played the game to its end at once"
        assert record.bot_due is not None and record.bot_due <= clock.now
        fired += len(await authority.fire_due("console"))
    assert (fired > 0) == (pool is not None)
    assert record.status == "finished" and record.state_json is not None
    return record.state_json


async def test_strong_bots_search_in_the_process_pool_as_they_would_in_line(
    store: GameStore, clock: Clock
) -> None:
    """With the worker's process pool, every strong decision is searched there (off the event
    loop) and the step runs again with the answer; a person's step does not wait for it (the
    deadline loop has the strong bot move): the game is the one played in line."""
    budget = bots.PLAY_BUDGET
    bots.PLAY_BUDGET = bots.Budget(nodes=120, worlds=3, horizon=6, candidates=4, seconds=None)
    context = multiprocessing.get_context("spawn")
    try:
        inline = await _bot_game(store, clock, "inline", None)
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as processes:
            pool = _Counting(processes)
            pooled = await _bot_game(store, clock, "pooled", pool)
    finally:
        bots.PLAY_BUDGET = budget
    assert pool.sent > 10, "the strong bots did not search in the pool"
    assert pooled == inline


class _Counting(concurrent.futures.Executor):
    """A process pool that counts what it is sent."""

    def __init__(self, pool: concurrent.futures.Executor) -> None:
        self.pool = pool
        self.sent = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        self.sent += 1
        return self.pool.submit(fn, *args, **kwargs)
