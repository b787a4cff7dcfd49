"""BiggieBills$$$'s own rules over random games: every payment is one the document gives.

The generic checks (legal moves, refusals, books, cards kept, secrets, ids, replay) are the
conformance kit's (``tests/test_conformance.py``); this file adds only what is BiggieBills'.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.engine import Event, GameState, MoneyEvent, Seat
from core.games.biggiebills import GAME
from core.games.biggiebills.actions import Vote
from core.games.biggiebills.cards import (
    ACQUIRE,
    cycle_start_amount,
    exchange_price,
    fine,
    growth,
    industry,
    percent_of,
    target_percent,
)
from core.games.biggiebills.events import (
    CardsExchanged,
    ChallengeAccepted,
    ChallengeBlocked,
    ChallengePlayed,
    CycleBegun,
    GrowthCompleted,
    GrowthPlayed,
    TurnSkipped,
)
from core.games.biggiebills.state import BiggieBillsOptions, BiggieBillsState
from testkit.conformance import play_random

_BANK = -1


def check_payment(
    before: BiggieBillsState,
    after: BiggieBillsState,
    event: MoneyEvent,
    payer: int,
    payee: int,
    amount: int,
) -> None:
    card = industry(before.industry) if before.industry else None
    if isinstance(event, GrowthPlayed):
        g = growth(event.card)
        assert (payer, payee) == (event.seat, _BANK)
        assert amount == percent_of(card, "cost", g.stage, g.cost)
    elif isinstance(event, TurnSkipped):
        assert payee == _BANK and amount == fine(card)
    elif isinstance(event, CardsExchanged):
        assert payee == _BANK and amount == exchange_price(card)
    elif isinstance(event, ChallengePlayed | ChallengeAccepted | ChallengeBlocked):
        active = event.active
        g = growth(next(a.card for a in before.active if a.id == active))
        assert amount == percent_of(card, "penalty", g.stage, g.penalty)
    elif isinstance(event, GrowthCompleted):
        g = growth(event.card)
        if payer == _BANK:
            assert payee == event.seat
            # cards completing at a cycle's end are paid under that cycle's Industry card, and
            # every payoff grows with a target above $1B
            grown = [(b * target_percent(before.target) + 50) // 100 for b in (g.first, g.later)]
            assert amount in {percent_of(card, "payoff", g.stage, b) for b in grown}
        else:
            assert g.id == ACQUIRE and payer == event.acquired
    elif isinstance(event, CycleBegun):
        assert event.industry is not None, "no Industry card: no payment"
        new = industry(event.industry)
        seat = payee if payer == _BANK else payer
        # completions at the end of the old cycle happen before the new card is drawn
        expected = cycle_start_amount(new, after.completed[seat], after.challenges_played[seat])
        assert (amount if payee == seat else -amount) == expected
    else:
        raise AssertionError(f"undocumented payment in {event.kind}: {event.text}")


def check_payments(
    before: Any, _actor: Seat, _action: Any, after: Any, events: list[Event]
) -> None:
    for event in events:
        if not isinstance(event, MoneyEvent):
            continue
        for payer, payee, amount in event.moves:
            assert amount > 0 or event.kind == "complete"
            check_payment(before, after, event, payer, payee, amount)
    if after.outcome is not None:
        assert after.outcome.rounds == after.cycle


OPTIONS = [
    BiggieBillsOptions(),
    BiggieBillsOptions(target=400, cycles=3),
    BiggieBillsOptions(turn_seconds=0, block_seconds=0, cycles=8),
]


@pytest.mark.parametrize(("teams", "options"), [(3, OPTIONS[0]), (5, OPTIONS[1]), (8, OPTIONS[2])])
@pytest.mark.parametrize("seed", range(3))
def test_every_payment_is_a_documented_one(
    teams: int, options: BiggieBillsOptions, seed: int
) -> None:
    run = play_random(GAME, teams, options, seed, generic=False, hook=check_payments)
    assert run.state.finished and {"play", "complete"} <= run.kinds


@pytest.mark.parametrize(("teams", "options"), [(3, OPTIONS[0]), (5, OPTIONS[1]), (8, OPTIONS[2])])
def test_whom_the_game_waits_for_is_whoever_has_a_move_besides_the_vote(
    teams: int, options: BiggieBillsOptions
) -> None:
    """The open decision's declared ``waits`` read legal_actions' branches without listing
    every play: over random games the seats the engine derives agree with the list in every
    state, blocks included."""
    phases: set[str] = set()

    def agrees(
        before: GameState, actor: Seat, action: Any, after: GameState, _: list[Event]
    ) -> None:
        for state in (before, after):
            assert isinstance(state, BiggieBillsState)
            phases.add(state.deciding or "over")
            listed = [
                seat
                for seat in state.seats
                if any(not isinstance(a, Vote) for a in GAME.legal_actions(state, seat))
            ]
            assert GAME.waiting_for(state) == listed, (state.deciding, listed)

    run = play_random(GAME, teams, options, 7, generic=False, hook=agrees)
    assert run.state.finished and {"turn", "block", "over"} <= phases, phases
