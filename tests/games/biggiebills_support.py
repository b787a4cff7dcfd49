"""Helpers for BiggieBills$$$ tests: a rigged rng, tables set up card by card, invariants."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from core.engine import Event, Seat
from core.games.biggiebills import GAME
from core.games.biggiebills.cards import (
    all_challenges,
    all_growth,
    bonus_deck,
    challenge_deck,
    growth_deck,
    growth_of_challenge,
    is_growth,
)
from core.games.biggiebills.state import BiggieBillsOptions, BiggieBillsState
from testkit.rules import Referee
from testkit.rules import RiggedRandom as RiggedRandom
from testkit.rules import kinds as kinds
from testkit.rules import of_kind as of_kind
from testkit.rules import of_type as of_type
from testkit.rules import public_text as public_text

NAMES = ["Red", "Blue", "Green", "Gold", "Ink", "Jade", "Kiwi", "Lime"]


REFEREE: Referee[BiggieBillsState] = Referee(GAME)
act = REFEREE.act
refused = REFEREE.refused
timeout = REFEREE.timeout


def new_game(
    teams: int = 4, orders: Iterable[Sequence[int]] = (), **options: Any
) -> BiggieBillsState:
    return GAME.new_game(NAMES[:teams], BiggieBillsOptions(**options), RiggedRandom(orders=orders))


def challenge_stands(
    state: BiggieBillsState, seat: Seat, action: Any
) -> tuple[BiggieBillsState, list[Event]]:
    """``seat`` challenges; the window opens (it opens for every challenge) and the challenged
    team accepts. The events of both steps."""
    state, events = act(state, seat, action)
    assert state.deciding == "block" and state.pending is not None
    active = state.find_active(state.pending.active)
    assert active is not None
    state, more = act(state, active.owner, {"type": "accept"})
    return state, events + more


# --- arranging a table ---------------------------------------------------------------------


def _take(state: BiggieBillsState, card: str) -> None:
    """Remove one copy of ``card`` from the decks or discards (to put it somewhere else)."""
    piles: list[list[str]]
    if is_growth(card):
        piles = [state.growth_deck, state.growth_discard]
    elif card.startswith("challenge_"):
        piles = [state.challenge_deck, state.challenge_discard]
    else:
        piles = [state.bonus_deck, state.bonus_discard]
    for pile in piles:
        if card in pile:
            pile.remove(card)
            return
    raise AssertionError(f"no free copy of {card}")


def arrange(
    state: BiggieBillsState,
    seat: Seat,
    growth: Sequence[str] | None = None,
    challenges: Sequence[str] | None = None,
    bonus: Sequence[str] | None = None,
    completed: Sequence[str] | None = None,
    cash: int | None = None,
) -> BiggieBillsState:
    """A copy of ``state`` where ``seat`` holds exactly these cards (the old ones go back under
    the decks), has completed these cards, and has this much cash. Cards stay conserved."""
    state = state.model_copy(deep=True)
    if growth is not None:
        state.growth_deck += state.growth[seat]
        state.growth[seat] = []
        for card in growth:
            _take(state, card)
            state.growth[seat].append(card)
    if challenges is not None:
        state.challenge_deck += state.challenges[seat]
        state.challenges[seat] = []
        for card in challenges:
            _take(state, card)
            state.challenges[seat].append(card)
    if bonus is not None:
        state.bonus_deck += state.bonus[seat]
        state.bonus[seat] = []
        for card in bonus:
            _take(state, card)
            state.bonus[seat].append(card)
    if completed is not None:
        state.growth_deck += state.completed[seat]
        state.completed[seat] = []
        for card in completed:
            _take(state, card)
            state.completed[seat].append(card)
            if card not in state.firsts:
                state.firsts.append(card)
    if cash is not None:
        state.cash[seat] = cash
        if state.turn_cash:
            state.turn_cash[seat] = cash
    check_cards(state)
    return state


def play_to(state: BiggieBillsState, seat: Seat) -> BiggieBillsState:
    """End turns with the team on turn (by a free 'done' after a skip costs money, so by
    setting the turn as acted) until it is ``seat``'s turn."""
    for _ in range(40):
        if state.finished or (state.turn_seat == seat and state.deciding != "block"):
            return state
        turn = state.turn_seat
        assert turn is not None
        work = state.model_copy(deep=True)
        work.acted = True  # a free pass for arranging tables; its events are not under test
        state, _ = act(work, turn, {"type": "done"})
    raise AssertionError("never reached that seat")


# --- acquisitions ----------------------------------------------------------------------------

STAGES_1_TO_3 = ["vendor_management", "business_plan", "seed_funding"]
STAGES_1_TO_3 += ["product_launch", "sales_team", "supply_chain"]
STAGES_1_TO_3 += ["patent_portfolio", "franchise_program", "national_distribution"]
"""Three completed cards in each of stages 1, 2 and 3: "completed growth stages 1, 2 and 3"."""


def ready_to_acquire(cash: int = 400, target_cash: int = 500) -> BiggieBillsState:
    """Red holds Acquire a Competitor and meets its conditions against Blue."""
    state = new_game()
    hand = ["acquire_a_competitor", "office_lease", "brand_identity", "first_hires"]
    hand += ["erp_system", "global_brand"]
    state = arrange(state, 0, growth=hand, completed=STAGES_1_TO_3, cash=cash)
    return arrange(state, 1, cash=target_cash)


# --- invariants ----------------------------------------------------------------------------


def check_cards(state: BiggieBillsState) -> None:
    """Every card is in exactly one place: hands, decks, discards, the board or completed."""
    teams = state.teams
    growth = [c for h in state.growth for c in h] + state.growth_deck + state.growth_discard
    growth += [a.card for a in state.active] + [c for done in state.completed for c in done]
    assert Counter(growth) == Counter(growth_deck(teams))
    challenges = [c for h in state.challenges for c in h]
    challenges += state.challenge_deck + state.challenge_discard
    assert Counter(challenges) == Counter(challenge_deck(teams))
    bonus = [c for h in state.bonus for c in h] + state.bonus_deck + state.bonus_discard
    assert Counter(bonus) == Counter(bonus_deck(teams))


def identity(card: str) -> str:
    """The Growth card a Growth or Challenge card is about (they share its name)."""
    return growth_of_challenge(card)


_NAMES = {g.id: g.name for g in all_growth()}
_PATTERNS = {gid: re.compile(rf"(?<!\w){re.escape(name)}(?!\w)") for gid, name in _NAMES.items()}
assert len(all_challenges()) == len(_NAMES)


def hidden_identities(state: BiggieBillsState, public: set[str]) -> set[str]:
    """Growth cards (by identity) held in some hand and never made public by a play."""
    held = {identity(c) for h in state.growth + state.challenges for c in h}
    return held - public


def made_public(state: BiggieBillsState) -> set[str]:
    """Identities shown on the board now: active and completed cards."""
    return {a.card for a in state.active} | {c for done in state.completed for c in done}


def leaks(hidden: set[str], texts: Iterable[str]) -> list[str]:
    blob = "\n".join(texts)
    found = []
    for gid in hidden:
        if _NAMES[gid] in blob and (m := _PATTERNS[gid].search(blob)):
            found.append(f"{gid}: {blob[max(0, m.start() - 60) : m.end() + 60]!r}")
        if gid in blob:
            found.append(f"{gid} (id)")
    return found
