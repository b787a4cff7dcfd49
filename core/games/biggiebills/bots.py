"""A sensible bot team: it reads only its own view and chooses from the legal actions.

It grows first (the best payoff for the money, opening new stages early), challenges when
the penalty and the damage to a rival are worth more than its own next Growth card, always
uses a free Flexible Challenge, blocks every challenge it can, and takes over a competitor
when it may.
"""

from __future__ import annotations

from core.engine import Rng
from core.games.biggiebills.actions import (
    Accept,
    Action,
    Block,
    Challenge,
    Done,
    Exchange,
    PlayGrowth,
    ReturnCards,
    Skip,
)
from core.games.biggiebills.view import BiggieBillsView, GrowthView, TeamView

__all__ = ["RESERVE", "bot_action"]

RESERVE = 15
"""$M a bot keeps after paying for a Growth card when it can (a cushion against penalties)."""


def bot_action(view: BiggieBillsView, legal: list[Action], rng: Rng) -> Action:
    if not legal:
        raise ValueError("bot_action needs at least one legal action")
    if any(isinstance(a, Block) for a in legal):
        return next(a for a in legal if isinstance(a, Block))
    if all(isinstance(a, Accept) for a in legal):
        return legal[0]
    if isinstance(legal[0], ReturnCards):
        return _choose_return(view, [a for a in legal if isinstance(a, ReturnCards)])
    return _choose_turn(view, legal, rng)


def _me(view: BiggieBillsView) -> TeamView:
    assert view.you is not None, "a bot plays from a seat's own view"
    return view.teams[view.you]


def _hand(view: BiggieBillsView) -> list[GrowthView]:
    assert view.hand is not None, "a bot plays from a seat's own view"
    return view.hand.growth


def _growth_value(view: BiggieBillsView, card: GrowthView) -> float:
    """Net gain of playing a hand card, plus a premium for opening the next stage."""
    stages = _me(view).stages
    value = float(card.payoff - card.cost)
    stage = card.stage
    if stages[stage - 1] == 0:
        value += 15 * stage  # the first card of a stage opens the next one
    return value


def _challenge_value(view: BiggieBillsView, action: Challenge) -> float:
    active = next(a for a in view.active if a.id == action.active)
    owner = view.teams[active.owner]
    leader = max(t.cash for t in view.teams if t.alive)
    damage = 0.0 if active.challengers else 0.5 * active.payoff
    if owner.cash == leader:
        damage *= 1.5
    risk = 0.5 * active.penalty if owner.bonus_cards else 0.0
    return float(active.penalty) + damage - risk


def _acquire_value(view: BiggieBillsView, action: PlayGrowth) -> float:
    """What a take-over gains: the payoff less the cost plus a quarter of the target's cash, and
    something for putting the strongest rival out. Taking over a poor team early is not worth
    it; taking over the leader late, when its cash is large, is."""
    assert action.target is not None
    target = view.teams[action.target]
    card = next(c for c in _hand(view) if c.id == action.card)
    rivals = [t.cash for i, t in enumerate(view.teams) if t.alive and i != view.you]
    leader = 60.0 if target.cash >= max(rivals) else 0.0
    return float(card.payoff - card.cost + target.cash / 4) + leader


def _choose_turn(view: BiggieBillsView, legal: list[Action], rng: Rng) -> Action:
    me = _me(view)
    flex = [a for a in legal if isinstance(a, Challenge) and a.card.startswith("flex")]
    if flex:
        return max(flex, key=lambda a: _challenge_value(view, a))
    hand = {c.id: c for c in _hand(view)}
    scored: list[tuple[float, Action]] = []
    for action in legal:
        if isinstance(action, PlayGrowth) and action.target is not None:
            scored.append((_acquire_value(view, action), action))
        elif isinstance(action, PlayGrowth):
            card = hand[action.card]
            value = _growth_value(view, card)
            if me.cash - card.cost < RESERVE:
                value -= 40
            scored.append((value, action))
        elif isinstance(action, Challenge):
            scored.append((_challenge_value(view, action), action))
    if scored:
        best = max(value for value, _ in scored)
        if best > 0:
            return rng.choice([a for value, a in scored if value == best])
    done = next((a for a in legal if isinstance(a, Done)), None)
    if done is not None:
        return done
    exchange = _choose_exchange(view, legal)
    if exchange is not None:
        return exchange
    return next((a for a in legal if isinstance(a, Skip)), legal[-1])


def _useless(view: BiggieBillsView) -> list[str]:
    """Hand cards this team cannot use soon, worst first."""
    assert view.hand is not None, "a bot plays from a seat's own view"
    completed = {c.id for c in _me(view).completed}
    stages = _me(view).stages
    out: list[str] = []
    seen: set[str] = set()
    for card in view.hand.growth:
        if card.id in completed or card.id in seen:
            out.append(card.id)
        seen.add(card.id)
    for card in sorted(view.hand.growth, key=lambda c: -c.stage):
        opened = card.stage == 1 or stages[card.stage - 2] > 0
        if not opened and card.id not in out:
            out.append(card.id)
    for challenge in view.hand.challenges:
        if stages[challenge.stage - 1] == 0:
            out.append(challenge.id)
    return out


def _choose_exchange(view: BiggieBillsView, legal: list[Action]) -> Exchange | None:
    exchanges = [a for a in legal if isinstance(a, Exchange)]
    if not exchanges or _me(view).cash < 4 * view.exchange_price + RESERVE:
        return None
    useless = _useless(view)
    if len(useless) < 2:
        return None
    wanted = sorted(useless[:2])
    return next((a for a in exchanges if sorted(a.cards) == wanted), None)


def _choose_return(view: BiggieBillsView, legal: list[ReturnCards]) -> ReturnCards:
    """Give back the cards worth least: ones the team cannot use, then the smallest payoffs."""
    useless = set(_useless(view))
    growth = {c.id: c for c in _hand(view)}

    def worth(card: str) -> float:
        if card in useless:
            return 0.0
        known = growth.get(card)
        return float(known.payoff) if known else 50.0

    return min(legal, key=lambda action: sum(worth(card) for card in action.cards))
