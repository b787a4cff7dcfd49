"""Busine$$ GO's own rules over random games: documented payments, debts only on one's turn,
sealed bids, one public message per action.

The generic checks (legal moves apply, refusals, books by listed payments, secrets, ids,
replay) are the conformance kit's (``tests/test_conformance.py``); this file adds what is
Busine$$ GO's, and tables poor enough that debts, auctions and bankruptcies happen.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from core.engine import Event, GameState, Seat
from core.games.businessgo import GAME
from core.games.businessgo.actions import Bid
from core.games.businessgo.board import board
from core.games.businessgo.events import ActionReport
from core.games.businessgo.flow import PAYMENT_REASONS
from core.games.businessgo.state import BusinessGoOptions, BusinessGoState, Corporation
from testkit.conformance import play_random
from tests.games.businessgo_support import auction_view, check_books


def poor(seed: int) -> Any:
    """Two corporations each (one International) and little money, but for every other seat,
    which keeps enough to bid at the bank's price: debts, auctions and bankruptcies become
    common. The cash taken is booked as paid to the bank."""

    def arrange(dealt: GameState) -> GameState:
        assert isinstance(dealt, BusinessGoState)
        state = dealt.model_copy(deep=True)
        countries = list(board().countries)
        random.Random(seed).shuffle(countries)
        for seat in state.seats:
            for cid, international in zip(
                countries[2 * seat : 2 * seat + 2], (True, False), strict=True
            ):
                state.licences[cid] = seat
                state.corporations[cid] = Corporation(
                    country=cid, owner=seat, international=international, chimney=True
                )
        state.cash = [_poor_cash(seat) for seat in state.seats]
        state.bank_received += sum(board().start_cash - cash for cash in state.cash)
        return state

    return arrange


def _poor_cash(seat: Seat) -> int:
    return 100_000 if seat % 2 == 0 else 600_000


class Rules:
    """Busine$$ GO's invariants after every action."""

    def __init__(self, players: int, taken: list[int] | None = None) -> None:
        self.flows = [-t for t in taken] if taken else [0] * players
        self.phases: set[str] = set()

    def __call__(
        self, _before: Any, _actor: Seat, action: Any, after: Any, events: list[Event]
    ) -> None:
        self.phases.add(after.deciding or "over")
        public = [e for e in events if e.audience.is_public]
        assert len(public) == 1, "one public message per action"
        for event in events:
            transfers = event.transfers if isinstance(event, ActionReport) else []
            for seat, delta, reason in transfers:
                assert reason in PAYMENT_REASONS
                self.flows[seat] += delta
        check_books(after, self.flows)
        for seat in after.seats:
            if not after.bankrupt[seat] and after.deciding not in ("debt", "auction", "accept"):
                # A debt is settled as soon as it arises: nobody owes money at any other
                # decision (the game does not go on until it is paid).
                assert after.cash[seat] >= 0
            if after.cash[seat] < 0:
                assert seat == after.turn and not after.bankrupt[seat]
            if seat not in GAME.waiting_for(after):
                assert GAME.legal_actions(after, seat) == []
        if isinstance(action, Bid) and after.deciding == "auction":
            # A sealed bid: its amount reaches only the bidder while the auction is open.
            assert f"${action.amount:,}" not in "".join(e.text for e in public)
        if after.auction is not None:
            assert auction_view(after, None).your_bid is None
        automatic = GAME.automatic(after)
        if automatic is not None:
            # A move made by itself is the only legal move of a seat the game waits for.
            seat, move = automatic
            assert seat in GAME.waiting_for(after) and GAME.legal_actions(after, seat) == [move]
        assert sum(after.asked) <= after.version
        for seat in GAME.waiting_for(after):
            panel = GAME.render_private(after, seat)
            assert all(
                b.version == after.version and b.seat == seat
                for b in panel.all_buttons()
                if b.action is not None
            )
        if after.outcome is not None:
            assert 1 <= after.outcome.rounds <= after.options.max_rounds


OPTIONS = [
    BusinessGoOptions(short=True),
    BusinessGoOptions(
        advanced=True,
        target=1_500_000,
        turn_seconds=0,
        compete_seconds=0,
        auto_moves=False,
        always_compete=False,  # everyone is asked: competition windows open
    ),
    BusinessGoOptions(max_rounds=6, auction_seconds=0, always_compete=False),
]


@pytest.mark.parametrize(
    ("players", "options"), [(2, OPTIONS[0]), (4, OPTIONS[1]), (5, OPTIONS[2])]
)
@pytest.mark.parametrize("seed", range(2))
def test_every_payment_is_documented_and_debts_are_settled_on_turn(
    players: int, options: BusinessGoOptions, seed: int
) -> None:
    rules = Rules(players)
    run = play_random(GAME, players, options, seed, generic=False, hook=rules)
    assert run.state.finished and "roll" in run.kinds
    if not options.always_compete and options.max_rounds >= 10:  # long enough for a sale
        assert "compete" in rules.phases


@pytest.mark.parametrize("seed", [1, 3, 4])
def test_poor_tables_reach_debts_and_auctions_and_keep_every_check(seed: int) -> None:
    """With every generic check on, secrets included: sealed bids are compared here."""
    players = 3 + seed % 3
    taken = [board().start_cash - _poor_cash(seat) for seat in range(players)]
    options = BusinessGoOptions(max_rounds=12)
    rules = Rules(players, taken)
    run = play_random(GAME, players, options, seed, hook=rules, arrange=poor(seed))
    assert run.state.finished and run.transitions > 0
    assert {"debt", "auction", "accept"} <= rules.phases
