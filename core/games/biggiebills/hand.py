"""A team's hand as its members read it: one card a line, with what it costs, pays and risks
now, and marks for the cards it has completed, holds twice, or could play now.

Only the team itself is ever shown these lines (its panel, its private hand messages).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from core.engine import Seat
from core.games.biggiebills.cards import (
    ACQUIRE,
    BLOCK,
    BONUS_NAMES,
    FLEX_STAGES,
    acquire_missing,
    card_name,
    catalogue,
    challenge,
    challenges_allowed,
    growth,
    growth_of_challenge,
    industry,
    is_growth,
)
from core.games.biggiebills.legal import (
    card_problem,
    challenge_card_problem,
    cost_of,
    cost_under,
    in_force,
    payoff_under,
    penalty_under,
    stage_open,
    stages_of,
)
from core.games.biggiebills.state import Active, BiggieBillsState
from core.games.biggiebills.text import join, money, possessive

__all__ = [
    "COMPLETED",
    "DUPLICATE",
    "card_marks",
    "card_summary",
    "hand_change",
    "hand_lines",
    "hand_text",
    "unplayable",
]

COMPLETED = "✓ completed: no use to your team"
DUPLICATE = "duplicate"


def _playable(state: BiggieBillsState, seat: Seat, flex: bool = False) -> str:
    """The mark of a card the team could play: now, or on its turn."""
    left = state.flex_left if flex else state.plays_left
    on_turn = state.deciding == "turn" and state.turn_seat == seat and left > 0
    return "▶ playable now" if on_turn else "▶ playable on your turn"


def card_summary(state: BiggieBillsState, card: str) -> str:
    """``S1 · $20M → $40M first / $35M later · penalty $8M`` for a Growth card (at this cycle's
    prices), ``S2 · penalty $16M`` for a Challenge card."""
    return _summary(card, state.industry, state.target, card in state.firsts)


@lru_cache(maxsize=8192)
def _summary(card: str, rules_id: str | None, target: int, first_taken: bool) -> str:
    """:func:`card_summary` from all it reads (the Industry card in force, the target, whether
    the card's first payoff was taken): the same lines for every panel of a cycle, worked out
    once (a team's panel, 148 -> 100 us)."""
    rules = industry(rules_id) if rules_id else None
    if is_growth(card):
        stage = growth(card).stage
        cost = money(cost_under(rules, card))
        first, later = (payoff_under(rules, target, card, taken) for taken in (True, False))
        if first_taken:
            pays = f"{money(later)} (first payoff taken)"
        else:
            pays = f"{money(first)} first / {money(later)} later"
        return f"S{stage} · {cost} → {pays} · penalty {money(penalty_under(rules, card))}"
    target_card = growth_of_challenge(card)
    return f"S{challenge(card).stage} · penalty {money(penalty_under(rules, target_card))}"


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


def unplayable(state: BiggieBillsState, seat: Seat) -> list[str]:
    """Why no card in ``seat``'s hand can be played now, one short clause per card or group of
    cards ("Sales Team needs $5M more"), for a team on turn with no Growth or Challenge play
    among its choices. Only the team itself reads them."""
    reasons: list[str] = []
    if state.plays_left == 0:
        reasons.append("your team has no Growth or Challenge play left this turn")
    elif not challenges_allowed(in_force(state)):
        reasons += _growth_reasons(state, seat)
        if state.challenges[seat]:
            reasons.append("the Industry Rules card in force allows no challenges")
    else:
        reasons += _growth_reasons(state, seat)
        reasons += _challenge_reasons(state, seat)
    reasons += _bonus_reasons(state, seat)
    return reasons


def _growth_reasons(state: BiggieBillsState, seat: Seat) -> list[str]:
    done: list[str] = []
    in_play: list[str] = []
    closed: dict[int, list[str]] = {}
    others: list[str] = []
    active = {a.card for a in state.active if a.owner == seat}
    for card in dict.fromkeys(state.growth[seat]):
        name, stage = card_name(card), growth(card).stage
        if card in state.completed[seat]:
            done.append(name)
        elif card in active:
            in_play.append(name)
        elif not stage_open(state, seat, stage):
            closed.setdefault(stage, []).append(name)
        elif card == ACQUIRE:
            others.append(_acquire_reason(state, seat))
        else:
            short = cost_of(state, card) - state.cash[seat] + 1
            others.append(f"{name} needs {money(short)} more")
    reasons = []
    if done:
        reasons.append(f"{join(done)} {'is' if len(done) == 1 else 'are'} completed")
    if in_play:
        reasons.append(f"{join(in_play)} {'is' if len(in_play) == 1 else 'are'} in play already")
    for shut, names in sorted(closed.items()):
        reasons.append(
            f"{join(names)} {'needs' if len(names) == 1 else 'need'} a completed Stage "
            f"{shut - 1} card first"
        )
    return reasons + others


def _acquire_reason(state: BiggieBillsState, seat: Seat) -> str:
    """Why Acquire a Competitor cannot be played against any team now."""
    name = card_name(ACQUIRE)
    stages = stages_of(state, seat)
    missing = acquire_missing(stages)
    if missing is not None:
        needed = catalogue().acquisition.stage_cards[missing - 1]
        return (
            f"{name} needs {needed} completed Stage {missing} cards (your team has "
            f"{stages[missing - 1]})"
        )
    short = cost_of(state, ACQUIRE) - state.cash[seat] + 1
    if short > 0:
        return f"{name} needs {money(short)} more"
    return f"{name} needs 75% of its target's cash at the start of this turn"


def _challenge_reasons(state: BiggieBillsState, seat: Seat) -> list[str]:
    """Why each Challenge card in the hand has nothing to challenge."""
    nothing: list[str] = []
    reasons: list[str] = []
    for card in dict.fromkeys(state.challenges[seat]):
        target = growth_of_challenge(card)
        candidates = [a for a in state.active if a.card == target and a.owner != seat]
        if not candidates:
            nothing.append(card_name(target))
            continue
        reasons.append(f"{card_name(card)}: {_challenge_reason(state, seat, candidates[0])}")
    if nothing:
        reasons.insert(0, f"no {join(nothing, 'or')} of another team is in play to challenge")
    return reasons


def _challenge_reason(state: BiggieBillsState, seat: Seat, active: Active) -> str:
    """Why ``seat`` cannot challenge ``active`` (another team's card it has the means for)."""
    whose = f"{possessive(state.names[active.owner])} {card_name(active.card)}"
    if active.sealed:
        return f"{whose} is protected by a Block a Challenge"
    if seat in active.challengers or seat in active.blocked:
        return f"your team has challenged {whose} already"
    stage = growth(active.card).stage
    return f"to challenge {whose} first, your team needs a completed Stage {stage} card"


def _bonus_reasons(state: BiggieBillsState, seat: Seat) -> list[str]:
    reasons = []
    for card in dict.fromkeys(state.bonus[seat]):
        name = BONUS_NAMES[card]
        if card == BLOCK:
            reasons.append(f"{name} only answers a challenge to your own card")
        elif not challenges_allowed(in_force(state)):
            reasons.append(f"{name}: the Industry Rules card in force allows no challenges")
        elif state.flex_left == 0:
            reasons.append(f"{name}: your team has no Flexible Challenge play left this turn")
        else:
            low, high = FLEX_STAGES[card]
            candidates = [
                a for a in state.active if a.owner != seat and growth(a.card).stage in (low, high)
            ]
            if not candidates:
                reasons.append(f"{name}: no Stage {low} or {high} card of another team is in play")
            else:
                reasons.append(f"{name}: {_challenge_reason(state, seat, candidates[0])}")
    return reasons


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
