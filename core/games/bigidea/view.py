"""What a seat may see: the public table, plus its own hand, pick and vote.

This is the only door for secrets besides events addressed to one seat.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from core.engine import Seat
from core.games.bigidea.cards import card, product_name, product_sentence
from core.games.bigidea.legal import can_pick, invest_cost, waiting_for
from core.games.bigidea.state import BigIdeaState, Product
from core.games.bigidea.text import money

__all__ = ["card_view", "seat_view", "view"]


def card_view(card_id: str) -> dict[str, Any]:
    c = card(card_id)
    return {"id": c.id, "name": c.name, "type": c.type, "text": c.text}


@cache
def _product_text(card_ids: tuple[str, ...]) -> tuple[str, str, tuple[tuple[str, str, int], ...]]:
    # Views are rebuilt after every action for the same few products: name them once.
    cards = tuple((c.id, c.name, c.type) for c in map(card, card_ids))
    return product_name(card_ids), product_sentence(card_ids), cards


def _product_view(state: BigIdeaState, product: Product, viewer: Seat | None) -> dict[str, Any]:
    name, sentence, cards = _product_text(tuple(product.cards))
    data: dict[str, Any] = {
        "id": product.id,
        "owner": product.owner,
        "name": name,
        "sentence": sentence,
        "cards": [{"id": cid, "name": cname, "type": ctype} for cid, cname, ctype in cards],
        "chits": list(product.chits),
        "total_chits": product.total_chits,
        "new": product.new,
        "pitch": product.pitch,
    }
    if viewer is not None:
        data["your_price"] = sum(invest_cost(state, product, viewer))
    return data


def seat_view(state: BigIdeaState, seat: Seat) -> dict[str, Any]:
    """The part only ``seat`` may see: its hand, its pending pick and where it points."""
    pick = state.picks[seat]
    return {
        "hand": [card_view(cid) for cid in state.hands[seat]],
        "pick": list(pick) if pick is not None else None,
        "voted": seat in state.votes,
        "vote": state.votes.get(seat),
    }


def view(state: BigIdeaState, viewer: Seat | None) -> dict[str, Any]:
    """A JSON-serialisable dict; ``viewer=None`` is what the whole channel may see."""
    if viewer is not None and viewer not in state.seats:
        viewer = None
    players = []
    for seat in state.seats:
        players.append(
            {
                "seat": seat,
                "name": state.names[seat],
                "money": state.money[seat],
                "money_text": money(state.money[seat]),
                "chits": state.chits[seat],
                "hand_size": len(state.hands[seat]),
                "picked": state.picks[seat] is not None if state.phase == "pick" else None,
                "can_pick": can_pick(state, seat) if state.phase == "pick" else None,
                "voted": seat in state.votes if state.phase == "venture" else None,
            }
        )
    data: dict[str, Any] = {
        "game": "bigidea",
        "version": state.version,
        "phase": state.phase,
        "round": state.round,
        "rounds": state.rounds,
        "dealer": state.dealer,
        "turn": state.turn_seat,
        "waiting_for": waiting_for(state),
        "options": state.options.model_dump(mode="json"),
        "players": players,
        "products": [_product_view(state, p, viewer) for p in state.products],
        "deck_size": len(state.deck),
        "discard_size": len(state.discard),
        "deadline": state.deadline.model_dump(mode="json") if state.deadline else None,
        "outcome": state.outcome.model_dump(mode="json") if state.outcome else None,
        "you": viewer,
    }
    if viewer is not None:
        data.update(seat_view(state, viewer))
    return data
