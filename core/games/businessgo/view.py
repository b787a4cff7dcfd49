"""What a seat may see: everything on the table, except the sealed auction bids of others and
the order of the card stacks.

This is the only door for secrets besides events addressed to one seat.
"""

from __future__ import annotations

from typing import Any

from core.engine import Seat
from core.games.businessgo.board import board
from core.games.businessgo.legal import units, waiting_for
from core.games.businessgo.state import BusinessGoState
from core.games.businessgo.text import money

__all__ = ["view"]


def view(state: BusinessGoState, viewer: Seat | None) -> dict[str, Any]:
    """A JSON-serialisable dict; ``viewer=None`` is what the whole channel may see."""
    if viewer is not None and viewer not in state.seats:
        viewer = None
    b = board()
    players = []
    for seat in state.seats:
        players.append(
            {
                "seat": seat,
                "name": state.names[seat],
                "cash": state.cash[seat],
                "cash_text": money(state.cash[seat]),
                "position": state.position[seat],
                "space": b.space_name(state.position[seat]),
                "burnout": state.burnout[seat],
                "bankrupt": state.bankrupt[seat],
                "units": units(state, seat),
            }
        )
    data: dict[str, Any] = {
        "game": "businessgo",
        "version": state.version,
        "phase": state.phase,
        "round": state.round,
        "turn": state.turn,
        "starter": state.starter,
        "opening": state.opening,
        "dice": list(state.dice),
        "goal": state.options.goal,
        "waiting_for": waiting_for(state),
        "options": state.options.model_dump(mode="json"),
        "players": players,
        "licences": dict(state.licences),
        "corporations": {cid: c.model_dump(mode="json") for cid, c in state.corporations.items()},
        "services": dict(state.services),
        "boom_sold": list(state.boom_sold),
        "boom_left": state.boom_left,
        "sale": state.sales[0].model_dump(mode="json") if state.sales else None,
        "auction": None,
        "unsold": list(state.unsold),
        "deadline": state.deadline.model_dump(mode="json") if state.deadline else None,
        "outcome": state.outcome.model_dump(mode="json") if state.outcome else None,
        "you": viewer,
    }
    if state.auction is not None:
        auction = state.auction
        data["auction"] = {
            "seller": auction.seller,
            "asset": auction.asset,
            "eligible": list(auction.eligible),
            "answered": sorted(auction.bids),
            "your_bid": auction.bids.get(viewer) if viewer is not None else None,
        }
    return data
