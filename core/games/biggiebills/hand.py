"""A team's hand as its members read it: one card a line, with what it costs, pays and risks
now, and marks for the cards it has completed, holds twice, or could play now.

Only the team itself is ever shown these lines (its panel, its private hand messages).
"""

from __future__ import annotations

from collections import Counter

from core.engine import Seat
from core.games.biggiebills.cards import (
    ACQUIRE,
    BLOCK,
    BONUS_NAMES,
    FLEX_STAGES,
    card_name,
    challenge,
    growth,
    growth_of_challenge,
    is_growth,
)
from core.games.biggiebills.legal import (
    card_problem,
    challenge_card_problem,
    cost_of,
    payoff_of,
    penalty_of,
)
from core.games.biggiebills.state import BiggieBillsState
from core.games.biggiebills.text import join, money, possessive

__all__ = [
    "COMPLETED",
    "DUPLICATE",
    "card_marks",
    "card_summary",
    "hand_change",
    "hand_lines",
    "hand_text",
]

COMPLETED = "✓ completed: no use to your team"
DUPLICATE = "duplicate"


def _playable(state: BiggieBillsState, seat: Seat, flex: bool = False) -> str:
    """The mark of a card the team could play: now, or on its turn."""
    left = state.flex_left if flex else state.plays_left
    on_turn = state.phase == "turn" and state.turn_seat == seat and left > 0
    return "▶ playable now" if on_turn else "▶ playable on your turn"


def card_summary(state: BiggieBillsState, card: str) -> str:
    """``S1 · $20M → $40M first / $35M later · penalty $8M`` for a Growth card (at this cycle's
    prices), ``S2 · penalty $16M`` for a Challenge card."""
    if is_growth(card):
        stage = growth(card).stage
        cost = money(cost_of(state, card))
        first, later = payoff_of(state, card, True), payoff_of(state, card, False)
        if card in state.firsts:
            pays = f"{money(later)} (first payoff taken)"
        else:
            pays = f"{money(first)} first / {money(later)} later"
        return f"S{stage} · {cost} → {pays} · penalty {money(penalty_of(state, card))}"
    target = growth_of_challenge(card)
    return f"S{challenge(card).stage} · penalty {money(penalty_of(state, target))}"


def card_marks(state: BiggieBillsState, seat: Seat, cards: list[str]) -> list[list[str]]:
    """The marks of each of ``cards`` (a hand, in order): completed, duplicate, playable now."""
    counts: Counter[str] = Counter()
    playable = _playable(state, seat)
    marks = []
    in_play = {a.card for a in state.active if a.owner == seat}
    for card in cards:
        counts[card] += 1
        mine: list[str] = []
        if is_growth(card):
            if card in state.completed[seat]:
                mine.append(COMPLETED)
            elif counts[card] > 1 or card in in_play:
                mine.append(DUPLICATE)
            if _growth_playable(state, seat, card):
                mine.append(playable)
        else:
            if counts[card] > 1:
                mine.append(DUPLICATE)
            if targets := _challenge_playable(state, seat, card):
                mine.append(f"{playable}: {targets}")
        marks.append(mine)
    return marks


def _growth_playable(state: BiggieBillsState, seat: Seat, card: str) -> bool:
    """The card could be played now, on the team's turn (whoever is on turn now)."""
    if card == ACQUIRE:
        return any(card_problem(state, seat, card, t) is None for t in state.seats)
    return card_problem(state, seat, card, None) is None


def _challenge_playable(state: BiggieBillsState, seat: Seat, card: str) -> str:
    """The active cards ``card`` could challenge now, on the team's turn: ``Blue's #3``."""
    return ", ".join(
        f"{possessive(state.names[a.owner])} #{a.id}"
        for a in state.active
        if challenge_card_problem(state, seat, a.id, card) is None
    )


def _line(name: str, summary: str, marks: list[str]) -> str:
    return " · ".join([f"• {name}", summary, *marks]) if summary else f"• {name}"


def hand_lines(state: BiggieBillsState, seat: Seat) -> list[str]:
    """The team's hand, one card a line, under a heading per kind."""
    lines = ["Growth cards (cost → payoff · penalty if challenged):"]
    hand = state.growth[seat]
    for card, marks in zip(hand, card_marks(state, seat, hand), strict=True):
        lines.append(_line(card_name(card), card_summary(state, card), marks))
    if not hand:
        lines.append("• none")
    lines.append("Challenge cards:")
    hand = state.challenges[seat]
    for card, marks in zip(hand, card_marks(state, seat, hand), strict=True):
        lines.append(_line(card_name(card), card_summary(state, card), marks))
    if not hand:
        lines.append("• none")
    lines.append("Bonus cards:")
    for card in state.bonus[seat]:
        if card == BLOCK:
            lines.append(f"• {BONUS_NAMES[card]} · answers a challenge to your card")
            continue
        stages = FLEX_STAGES[card]
        targets = _challenge_playable(state, seat, card)
        marks = [f"{_playable(state, seat, flex=True)}: {targets}"] if targets else []
        lines.append(_line(BONUS_NAMES[card], f"any S{stages[0]}-S{stages[1]} card", marks))
    if not state.bonus[seat]:
        lines.append("• none")
    return lines


Hand = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def hand_change(before: Hand, after: Hand) -> str:
    """What came into a team's hand and what left it: ``New in your team's hand: Sales Team.
    Gone from it: Vendor Management.`` (the panel shows the whole hand)."""
    old = Counter(c for kind in before for c in kind)
    new = Counter(c for kind in after for c in kind)
    came, went = sorted((new - old).elements()), sorted((old - new).elements())
    parts = []
    if came:
        parts.append(f"New in your team's hand: {join([card_name(c) for c in came])}.")
    if went:
        gone = join([card_name(c) for c in went])
        parts.append(f"Gone from it: {gone}." if came else f"Gone from your team's hand: {gone}.")
    return " ".join(parts) or "Your team drew the same cards it gave back."


def hand_text(state: BiggieBillsState, seat: Seat) -> str:
    """The team's hand in one message, for every member of the team."""
    return "Your team's hand.\n" + "\n".join(hand_lines(state, seat))
