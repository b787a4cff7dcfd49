"""The Big Idea's own rules over random games: the books, the chits, every legal move listed.

The generic checks (legal moves apply, refusals, books by listed payments, cards kept, secrets,
ids, replay) are the conformance kit's (``tests/test_conformance.py``); this file adds only
what is The Big Idea's.
"""

from __future__ import annotations

import random
from math import comb
from typing import Any

import pytest

from core.engine import Event, IllegalAction, Seat
from core.games.bigidea import GAME
from core.games.bigidea.actions import Invest, Pick, Pitch, Point, Withdraw
from core.games.bigidea.events import IpoHeld
from core.games.bigidea.legal import has_pick_option, may_pitch, pick_options
from core.games.bigidea.state import BigIdeaOptions, BigIdeaState
from testkit.conformance import play_random
from tests.games.bigidea_support import check_books


def check_legal_is_complete(state: BigIdeaState) -> None:
    opts = state.options
    for seat in GAME.waiting_for(state):
        legal = GAME.legal_actions(state, seat)
        assert legal, "a seat we wait for must have something to do"
        if state.deciding == "pick":
            hand = len(state.hands[seat])
            top = min(opts.max_pick, hand)
            expected = sum(comb(hand, k) for k in range(opts.min_pick, top + 1))
            picks = {tuple(p.cards) for p in legal if isinstance(p, Pick)}
            assert len(legal) == len(picks) == expected
        elif state.deciding == "venture":
            points = {Point(seat=s) for s in [*state.seats, None]}
            if seat in state.votes:
                points.discard(Point(seat=state.votes[seat]))
            assert {a for a in legal if isinstance(a, Point)} == points
            # A pitch is free text: one stands for them all, listed while the seat may pitch.
            pitches = [a for a in legal if isinstance(a, Pitch)]
            assert len(pitches) == (1 if may_pitch(state, seat) else 0)
            assert seat not in state.votes  # the pointing waits for pointers alone
        else:
            # Every invest or withdraw is listed exactly when it applies (a sample of the
            # products keeps the suite quick; over many steps all kinds are met).
            sample = random.Random(state.version).sample(
                state.products, min(1, len(state.products))
            )
            for product in sample:
                for action in (Invest(product=product.id), Withdraw(product=product.id)):
                    try:
                        GAME.apply(state, seat, action, random.Random(state.version))
                        applies = True
                    except IllegalAction:
                        applies = False
                    assert applies == (action in legal), action
    for seat in state.seats:
        if seat not in GAME.waiting_for(state) and state.deciding == "mezzanine":
            assert GAME.legal_actions(state, seat) == []
        if state.deciding == "pick":  # the panel's quick check says what the list would
            assert has_pick_option(state, seat) == bool(pick_options(state, seat))


class Books:
    """The IPO payouts seen so far: the only money that enters the game."""

    def __init__(self) -> None:
        self.payouts = 0

    def __call__(
        self, _before: Any, _actor: Seat, _action: Any, after: Any, events: list[Event]
    ) -> None:
        self.payouts += sum(sum(e.payouts) for e in events if isinstance(e, IpoHeld))
        check_books(after, self.payouts)
        check_legal_is_complete(after)
        if after.outcome is not None:
            assert after.round == after.rounds == 2 * after.players
            money = sorted(after.money, reverse=True)
            assert [s.score for s in after.outcome.standings] == [m / 100 for m in money]


OPTIONS = [
    BigIdeaOptions(),
    BigIdeaOptions(larger_products=True, four_chits=True, pick_seconds=0),
    BigIdeaOptions(safe_for_work=True, vote_seconds=0, turn_seconds=0),
]


@pytest.mark.parametrize(
    ("players", "options"), [(3, OPTIONS[0]), (4, OPTIONS[1]), (6, OPTIONS[2])]
)
@pytest.mark.parametrize("seed", range(3))
def test_books_chits_and_legal_moves_hold_over_random_games(
    players: int, options: BigIdeaOptions, seed: int
) -> None:
    run = play_random(GAME, players, options, seed, generic=False, hook=Books())
    assert run.state.finished and "ipo" in run.kinds
