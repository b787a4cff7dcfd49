"""Property tests: random play always ends, keeps the books and never shows a hidden card."""

from __future__ import annotations

import json
import random
from math import comb
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine import SYSTEM, Event, IllegalAction, Timeout
from core.games.bigidea import GAME
from core.games.bigidea.actions import Invest, NoPitch, Pass, Pick, Pitch, Point, Withdraw
from core.games.bigidea.state import BigIdeaOptions, BigIdeaState
from tests.games.bigidea_support import (
    NAMES,
    all_card_ids,
    check_books,
    check_public_events,
    check_public_surfaces,
)

SETTINGS = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

options = st.builds(
    BigIdeaOptions,
    larger_products=st.booleans(),
    four_chits=st.booleans(),
    safe_for_work=st.booleans(),
    pick_seconds=st.sampled_from([0, 120]),
    vote_seconds=st.sampled_from([0, 60]),
    turn_seconds=st.sampled_from([0, 90]),
)

_card_ids = st.sampled_from([*all_card_ids(), "zzz", ""])
_seats = st.none() | st.integers(min_value=-3, max_value=8)
# Pitches use an alphabet no card name or sentence can be spelled in, so that a pitch that
# happens to be legal cannot look like a leaked card.
_pitch_text = st.text(alphabet="0123456789 !?\n", max_size=230)

garbage = st.one_of(
    st.builds(Pick, cards=st.lists(_card_ids, max_size=6)),
    st.builds(Point, seat=_seats),
    st.builds(Invest, product=st.integers(min_value=-1, max_value=40)),
    st.builds(Withdraw, product=st.integers(min_value=-1, max_value=40)),
    st.builds(Pass),
    st.builds(Pitch, text=_pitch_text),
    st.builds(Timeout, key=st.sampled_from(["", "bigidea:r1:pick:v0", "x"])),
    st.dictionaries(
        st.sampled_from(["type", "cards", "seat", "product", "text", "key"]),
        st.none() | st.integers() | st.text(max_size=5) | st.lists(_card_ids, max_size=3),
    ),
    st.sampled_from(["pass", 3, None, {"type": "pick"}, {"type": "point", "seat": "Ann"}]),
)


class Table:
    """One game under test: applies actions and checks every invariant after each."""

    def __init__(self, players: int, opts: BigIdeaOptions, seed: int) -> None:
        self.seed = seed
        self.state: BigIdeaState = GAME.new_game(
            NAMES[:players], [False] * players, opts, random.Random(seed)
        )
        self.payouts = 0
        self.check(self.state, self.state, [])

    def rng(self) -> random.Random:
        return random.Random(f"{self.seed}:{self.state.version}")

    def apply(self, actor: int, action: Any) -> None:
        before = self.state
        transition = GAME.apply(before, actor, action, self.rng())
        self.state = transition.state
        self.check(before, self.state, transition.events)

    def try_garbage(self, actor: int, action: Any) -> None:
        before = self.state.model_dump()
        try:
            self.apply(actor, action)
        except IllegalAction:
            assert self.state.model_dump() == before

    def check(self, before: BigIdeaState, after: BigIdeaState, events: list[Event]) -> None:
        self.payouts += sum(sum(e.data["payouts"]) for e in events if e.kind == "ipo")
        check_books(after, self.payouts)
        check_public_events(before, after, events)
        check_public_surfaces(after)
        for seat in GAME.waiting_for(after)[:1]:
            json.dumps(GAME.view(after, seat))
        json.dumps([e.model_dump(mode="json") for e in events])
        # The authority stores the state as JSON and loads it back before the next action.
        assert BigIdeaState.model_validate_json(after.model_dump_json()) == after
        self.check_legal_is_complete(after)

    def check_legal_is_complete(self, state: BigIdeaState) -> None:
        opts = state.options
        for seat in GAME.waiting_for(state):
            legal = GAME.legal_actions(state, seat)
            assert legal, "a seat we wait for must have something to do"
            if state.phase == "pick":
                hand = len(state.hands[seat])
                top = min(opts.max_pick, hand)
                expected = sum(comb(hand, k) for k in range(opts.min_pick, top + 1))
                assert len(legal) == len({tuple(p.cards) for p in legal}) == expected
            elif state.phase == "venture":
                points = {Point(seat=s) for s in [*state.seats, None]}
                if seat in state.votes:
                    points.discard(Point(seat=state.votes[seat]))
                product = state.new_product_of(seat)
                # An owner whose pitch window is open may also say they will not pitch.
                pitching = product is not None and not product.pitch_done
                assert set(legal) == points | ({NoPitch()} if pitching else set())
                assert seat not in state.votes or pitching  # else nothing is awaited of it
            else:
                # Every invest or withdraw is listed exactly when it applies (a sample of the
                # products keeps the suite quick; over many steps all kinds are met).
                sample = random.Random(state.version).sample(
                    state.products, min(1, len(state.products))
                )
                for product in sample:
                    for action in (Invest(product=product.id), Withdraw(product=product.id)):
                        try:
                            GAME.apply(state, seat, action, self.rng())
                            applies = True
                        except IllegalAction:
                            applies = False
                        assert applies == (action in legal), action
        for seat in state.seats:
            if seat not in GAME.waiting_for(state) and state.phase == "mezzanine":
                assert GAME.legal_actions(state, seat) == []


@SETTINGS
@given(
    players=st.integers(min_value=3, max_value=6),
    opts=options,
    seed=st.integers(min_value=0, max_value=2**32),
    moves=st.integers(min_value=0, max_value=2**32),
    junk=st.lists(st.tuples(st.integers(min_value=-2, max_value=7), garbage), max_size=25),
)
def test_random_play_ends_and_keeps_every_invariant(
    players: int, opts: BigIdeaOptions, seed: int, moves: int, junk: list[tuple[int, Any]]
) -> None:
    table = Table(players, opts, seed)
    chooser = random.Random(moves)
    progress = 0
    bound = 2 * players * 4 * players  # at most N picks, N votes, N no-pitches, N turns a round
    while not table.state.finished:
        state = table.state
        roll = chooser.random()
        if junk and roll < 0.1:
            table.try_garbage(*junk.pop())
            continue
        if state.phase == "venture" and roll < 0.2:
            owner = chooser.choice(state.seats)
            pitch = "".join(chooser.choices("0123456789 !", k=chooser.randint(0, 210)))
            table.try_garbage(owner, Pitch(text=pitch))
            continue
        if state.phase in ("pick", "venture") and roll < 0.3:
            # A seat that already chose changes its mind: allowed, and no progress.
            done = [s for s in state.seats if s not in GAME.waiting_for(state)]
            if done and GAME.legal_actions(state, done[0]):
                table.apply(done[0], chooser.choice(GAME.legal_actions(state, done[0])))
                continue
        progress += 1
        assert progress <= bound, "the game did not end within its bound"
        if state.deadline is not None and roll > 0.92:
            table.apply(SYSTEM, Timeout(key=state.deadline.key))
            continue
        seat = chooser.choice(GAME.waiting_for(state))
        legal = GAME.legal_actions(state, seat)
        if roll > 0.75:
            action = GAME.bot_action(GAME.view(state, seat), legal, chooser)
            assert action in legal
        elif state.phase == "venture" and seat in state.votes:
            action = NoPitch()  # awaited only for its pitch window (changing its mind is above)
        else:
            action = chooser.choice(legal)
        table.apply(seat, action)
    assert table.state.round == table.state.rounds == 2 * players
    outcome = table.state.outcome
    assert outcome is not None
    money = sorted(table.state.money, reverse=True)
    assert [s.score for s in outcome.standings] == [m / 100 for m in money]
    assert outcome.standings[0].rank == 1
    with_pass = GAME.legal_actions(table.state, 0)
    assert with_pass == []


@settings(max_examples=10, deadline=None)
@given(
    players=st.integers(min_value=3, max_value=6),
    opts=options,
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_bot_tables_finish(players: int, opts: BigIdeaOptions, seed: int) -> None:
    table = Table(players, opts, seed)
    bot_rng = random.Random(seed)
    for _ in range(2 * players * 4 * players):
        if table.state.finished:
            break
        seat = GAME.waiting_for(table.state)[0]
        legal = GAME.legal_actions(table.state, seat)
        choice = GAME.bot_action(GAME.view(table.state, seat), legal, bot_rng)
        assert choice in legal
        table.apply(seat, choice)
    assert table.state.finished
