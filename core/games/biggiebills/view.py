"""What a team may see: the public board, plus its own hand.

This is the only door for secrets besides events addressed to one seat.
"""

from __future__ import annotations

from typing import Any

from core.engine import Seat
from core.games.biggiebills.cards import BONUS_NAMES, card_name, challenge, exchange_price, growth
from core.games.biggiebills.legal import (
    cost_of,
    in_force,
    max_plays,
    payoff_of,
    penalty_of,
    skip_fine,
)
from core.games.biggiebills.state import BiggieBillsState
from core.games.biggiebills.text import money

__all__ = ["growth_view", "seat_view", "view"]


def growth_view(state: BiggieBillsState, card_id: str) -> dict[str, Any]:
    """A Growth card with its printed values and what it costs and pays in this cycle."""
    card = growth(card_id)
    return {
        "id": card.id,
        "name": card.name,
        "stage": card.stage,
        "cost": cost_of(state, card_id),
        "payoff": payoff_of(state, card_id),
        "penalty": penalty_of(state, card_id),
        "first": card.first,
        "later": card.later,
        "printed_cost": card.cost,
    }


def seat_view(state: BiggieBillsState, seat: Seat) -> dict[str, Any]:
    """The part only ``seat`` may see: its hand."""
    return {
        "hand": {
            "growth": [growth_view(state, c) for c in state.growth[seat]],
            "challenges": [
                {
                    "id": c,
                    "name": card_name(c),
                    "growth": challenge(c).growth,
                    "stage": challenge(c).stage,
                }
                for c in state.challenges[seat]
            ],
            "bonus": [{"id": c, "name": BONUS_NAMES[c]} for c in state.bonus[seat]],
        }
    }


def _stages(state: BiggieBillsState, seat: Seat) -> list[int]:
    counts = [0, 0, 0, 0]
    for c in state.completed[seat]:
        counts[growth(c).stage - 1] += 1
    return counts


def view(state: BiggieBillsState, viewer: Seat | None) -> dict[str, Any]:
    """A JSON-serialisable dict; ``viewer=None`` is what the whole channel may see."""
    if viewer is not None and viewer not in state.seats:
        viewer = None
    card = in_force(state)
    teams = [
        {
            "seat": s,
            "name": state.names[s],
            "cash": state.cash[s],
            "cash_text": money(state.cash[s]),
            "alive": state.alive[s],
            "out": state.out[s],
            "completed": [
                {"id": c, "name": card_name(c), "stage": growth(c).stage}
                for c in state.completed[s]
            ],
            "stages": _stages(state, s),
            "bonus_cards": len(state.bonus[s]),
            "bonus_earned": sum(state.bonus_earned[s]),
            "growth_cards": len(state.growth[s]),
            "challenge_cards": len(state.challenges[s]),
            "challenges_played": state.challenges_played[s],
            "turn_cash": state.turn_cash[s] if state.turn_cash else state.cash[s],
        }
        for s in state.seats
    ]
    active = [
        {
            "id": a.id,
            "card": a.card,
            "name": card_name(a.card),
            "stage": growth(a.card).stage,
            "owner": a.owner,
            "cost": a.cost,
            "payoff": payoff_of(state, a.card),
            "penalty": penalty_of(state, a.card),
            "target": a.target,
            "challengers": list(a.challengers),
            "blocked": list(a.blocked),
            "sealed": a.sealed,
        }
        for a in state.active
    ]
    pending = state.pending.model_dump(mode="json") if state.pending else None
    if pending is not None:
        pending["card_name"] = card_name(pending["card"])
    data: dict[str, Any] = {
        "game": "biggiebills",
        "version": state.version,
        "phase": state.phase,
        "cycle": state.cycle,
        "order": list(state.order),
        "turn_index": state.turn_index,
        "turn": state.turn_seat if state.phase != "over" else None,
        "plays_left": state.plays_left,
        "flex_left": state.flex_left,
        "acted": state.acted,
        "max_plays": max_plays(state),
        "industry": (
            {"id": card.id, "name": card.name, "text": card.text} if card is not None else None
        ),
        "skip_fine": skip_fine(state),
        "exchange_price": exchange_price(in_force(state)),
        "target": state.options.target,
        "options": state.options.model_dump(mode="json"),
        "teams": teams,
        "active": active,
        "firsts": list(state.firsts),
        "pending": pending,
        "returns": list(state.returns),
        "decks": {
            "growth": len(state.growth_deck),
            "challenge": len(state.challenge_deck),
            "bonus": len(state.bonus_deck),
        },
        "deadline": state.deadline.model_dump(mode="json") if state.deadline else None,
        "outcome": state.outcome.model_dump(mode="json") if state.outcome else None,
        "you": viewer,
    }
    if viewer is not None:
        data.update(seat_view(state, viewer))
    return data
