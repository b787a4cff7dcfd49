"""Property tests: random play always ends, moves money only by documented payments, and
keeps sealed bids secret."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine import SYSTEM, Event, IllegalAction, Timeout
from core.games.businessgo import GAME
from core.games.businessgo.actions import (
    AuctionOff,
    Bet,
    Bid,
    Buy,
    Convert,
    Downgrade,
    Join,
    Pass,
    Remove,
    Roll,
    Sell,
    SellToBank,
    Setup,
    Travel,
)
from core.games.businessgo.board import board
from core.games.businessgo.flow import PAYMENT_REASONS
from core.games.businessgo.state import BusinessGoOptions, BusinessGoState, Corporation
from tests.games.businessgo_support import NAMES, check_books

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

options = st.builds(
    BusinessGoOptions,
    short=st.booleans(),
    advanced=st.booleans(),
    target=st.sampled_from([None, 1_500_000, 3_000_000]),
    turn_seconds=st.sampled_from([0, 60]),
    compete_seconds=st.sampled_from([0, 20]),
    auction_seconds=st.sampled_from([0, 30]),
    max_rounds=st.integers(min_value=1, max_value=12),
)

_places = st.sampled_from([*board().countries, *board().services, "atlantis", ""])
_amounts = st.integers(min_value=-10, max_value=3_000_000)
garbage = st.one_of(
    st.builds(Roll),
    st.builds(Setup, country=_places),
    st.builds(Convert, country=_places),
    st.builds(Buy),
    st.builds(Pass),
    st.builds(Sell, product=st.sampled_from([*board().products, "tea"])),
    st.builds(Bet, amount=_amounts),
    st.builds(Travel, country=_places),
    st.builds(Join),
    st.builds(Bid, amount=_amounts),
    st.builds(AuctionOff, asset=_places),
    st.builds(SellToBank, asset=_places),
    st.builds(Downgrade, country=_places),
    st.builds(Remove, country=_places),
    st.builds(Timeout, key=st.sampled_from(["", "businessgo:turn:v0", "x"])),
)


class Table:
    """One game under test: applies actions and checks the books after each."""

    def __init__(
        self, players: int, opts: BusinessGoOptions, seed: int, poor: bool = False
    ) -> None:
        self.seed = seed
        self.state: BusinessGoState = GAME.new_game(
            NAMES[:players], [False] * players, opts, random.Random(seed)
        )
        self.flows = [0] * players
        if poor:
            # Little money and two corporations each (one International) make debts, auctions
            # and bankruptcies common; the cash taken is booked as paid to the bank, so the
            # ledger still balances.
            countries = list(board().countries)
            random.Random(seed).shuffle(countries)
            for seat in self.state.seats:
                for cid, international in zip(
                    countries[2 * seat : 2 * seat + 2], (True, False), strict=True
                ):
                    self.state.licences[cid] = seat
                    self.state.corporations[cid] = Corporation(
                        country=cid, owner=seat, international=international, chimney=True
                    )
            taken = board().start_cash - 100_000
            self.state.cash = [100_000] * players
            self.state.bank_received += taken * players
            self.flows = [-taken] * players
        check_books(self.state, self.flows)

    def rng(self) -> random.Random:
        return random.Random(f"{self.seed}:{self.state.version}")

    def apply(self, actor: int, action: Any) -> None:
        before = self.state
        transition = GAME.apply(before, actor, action, self.rng())
        self.state = transition.state
        self.check(before, transition.events)
        if isinstance(action, Bid) and self.state.auction is not None:
            # A sealed bid: its amount reaches only the bidder while the auction is open.
            public = [e.text for e in transition.events if e.audience.is_public]
            assert f"${action.amount:,}" not in "".join(public)

    def try_garbage(self, actor: int, action: Any) -> None:
        before = self.state.model_dump()
        try:
            self.apply(actor, action)
        except IllegalAction as error:
            assert str(error)
            assert self.state.model_dump() == before

    def check(self, before: BusinessGoState, events: list[Event]) -> None:
        after = self.state
        public = [e for e in events if e.audience.is_public]
        assert len(public) == 1, "one public message per action"
        for event in events:
            for seat, delta, reason in event.data.get("transfers", []):
                assert reason in PAYMENT_REASONS
                self.flows[seat] += delta
        check_books(after, self.flows)
        for seat in after.seats:
            if not after.bankrupt[seat] and after.phase not in ("debt", "over"):
                # Only the player on turn can owe money, and only until the turn ends.
                assert after.cash[seat] >= 0 or seat == after.turn
        if after.auction is not None:
            assert GAME.view(after, None)["auction"]["your_bid"] is None
        json.dumps(GAME.view(after, None))
        json.dumps([e.model_dump(mode="json") for e in events])
        assert BusinessGoState.model_validate_json(after.model_dump_json()) == after
        GAME.render_board(after)
        for seat in GAME.waiting_for(after):
            legal = GAME.legal_actions(after, seat)
            assert legal, "a seat we wait for must have something to do"
            panel = GAME.render_private(after, seat)
            # Every action button is for this seat at this moment (a form button carries no action).
            assert all(
                b.version == after.version and b.seat == seat
                for b in panel.all_buttons()
                if b.action is not None
            )
            # Every listed action applies (a sample keeps the suite quick).
            for action in random.Random(after.version).sample(legal, min(2, len(legal))):
                GAME.apply(after, seat, action, self.rng())
        for seat in after.seats:
            if seat not in GAME.waiting_for(after):
                assert GAME.legal_actions(after, seat) == []


@SETTINGS
@given(
    players=st.integers(min_value=2, max_value=5),
    opts=options,
    seed=st.integers(min_value=0, max_value=2**32),
    moves=st.integers(min_value=0, max_value=2**32),
    junk=st.lists(st.tuples(st.integers(min_value=-2, max_value=6), garbage), max_size=25),
    poor=st.booleans(),
)
def test_random_play_ends_and_moves_money_only_by_documented_payments(
    players: int,
    opts: BusinessGoOptions,
    seed: int,
    moves: int,
    junk: list[tuple[int, Any]],
    poor: bool,
) -> None:
    table = Table(players, opts, seed, poor)
    chooser = random.Random(moves)
    bound = 400 * players * opts.max_rounds
    steps = 0
    while not table.state.finished:
        steps += 1
        assert steps <= bound, "the game did not end within its bound"
        state = table.state
        roll = chooser.random()
        if junk and roll < 0.1:
            table.try_garbage(*junk.pop())
            continue
        if state.deadline is not None and roll > 0.93:
            table.apply(SYSTEM, Timeout(key=state.deadline.key))
            continue
        seat = chooser.choice(GAME.waiting_for(state))
        legal = GAME.legal_actions(state, seat)
        if roll > 0.5:
            action = GAME.bot_action(GAME.view(state, seat), legal, chooser)
            assert action in legal
        else:
            action = chooser.choice(legal)
        table.apply(seat, action)
    outcome = table.state.outcome
    assert outcome is not None
    assert outcome.ended in {"reached the target", "last one standing", "round limit"}
    assert 1 <= outcome.rounds <= opts.max_rounds
    assert outcome.standings[0].rank == 1
    assert all(GAME.legal_actions(table.state, s) == [] for s in table.state.seats)


@settings(max_examples=8, deadline=None)
@given(players=st.integers(min_value=2, max_value=5), seed=st.integers(0, 2**32))
def test_bot_tables_finish(players: int, seed: int) -> None:
    table = Table(players, BusinessGoOptions(short=True, max_rounds=60), seed)
    bot_rng = random.Random(seed)
    for _ in range(20_000):
        if table.state.finished:
            break
        seat = GAME.waiting_for(table.state)[0]
        legal = GAME.legal_actions(table.state, seat)
        choice = GAME.bot_action(GAME.view(table.state, seat), legal, bot_rng)
        assert choice in legal
        table.apply(seat, choice)
    assert table.state.finished
