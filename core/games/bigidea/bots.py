"""A simple, honest bot: it reads only its own view and chooses from the legal actions."""

from __future__ import annotations

from core.engine import Rng, Seat
from core.games.bigidea.actions import Action, Invest, Pass, Pick, Point, Withdraw
from core.games.bigidea.view import BigIdeaView, ProductView

__all__ = ["RESERVE", "bot_action"]

RESERVE = 3_00
"""Cents a bot keeps in hand: it never invests below this."""


def bot_action(view: BigIdeaView, legal: list[Action], rng: Rng) -> Action:
    """Pick item + description(s), point at the most backed product, invest when it pays."""
    if not legal:
        raise ValueError("bot_action needs at least one legal action")
    if isinstance(legal[0], Pick):
        return _choose_pick(view, [a for a in legal if isinstance(a, Pick)], rng)
    if isinstance(legal[0], Point):
        # A bot has no words for a pitch (pitches are free text, never in ``legal``).
        return _choose_point(view, [a for a in legal if isinstance(a, Point)], rng)
    return _choose_mezzanine(view, legal)


def _me(view: BigIdeaView) -> Seat:
    if view.you is None:
        raise ValueError("a bot plays from a seat's own view, not the channel's")
    return view.you


def _choose_pick(view: BigIdeaView, legal: list[Pick], rng: Rng) -> Pick:
    types = {c.id: c.type for c in view.own.hand} if view.own is not None else {}
    # Two cards make the base product; in the variant a third card raises prices and payouts
    # alike, and keeping the hand from running dry matters more than a fourth.
    target = 3 if view.options.larger_products else 2

    def score(pick: Pick) -> tuple[int, int]:
        items = sum(1 for cid in pick.cards if types.get(cid) == 1)
        return (1 if items == 1 else 0, -abs(len(pick.cards) - target))

    best = max(score(p) for p in legal)
    return rng.choice([p for p in legal if score(p) == best])


def _choose_point(view: BigIdeaView, legal: list[Point], rng: Rng) -> Point:
    me = _me(view)
    nobody = next((a for a in legal if a.seat is None), legal[-1])
    if view.players[me].chits == 0:
        return nobody
    candidates = [p for p in view.products if p.new and p.owner != me]
    if not candidates:
        return nobody
    most = max(p.total_chits for p in candidates)
    owner = rng.choice([p.owner for p in candidates if p.total_chits == most])
    return next((a for a in legal if a.seat == owner), nobody)


def _expected_return(view: BigIdeaView, product: ProductView, chits: int) -> float:
    """Expected cents one chit brings back at the next IPO with ``chits`` on the product."""
    per_roll = 100 * len(product.cards) if view.options.larger_products else 200
    return sum(per_roll * roll for roll in range(1, min(chits, 6) + 1)) / 6


def _choose_mezzanine(view: BigIdeaView, legal: list[Action]) -> Action:
    me = _me(view)
    money = view.players[me].money
    products = {p.id: p for p in view.products}
    best: tuple[float, Invest] | None = None
    for action in legal:
        if not isinstance(action, Invest):
            continue
        product = products[action.product]
        price = product.your_price
        if price is None:
            raise ValueError("a bot plays from a seat's own view, not the channel's")
        gain = _expected_return(view, product, product.total_chits + 1) - price
        if money - price >= RESERVE and gain > 0 and (best is None or gain > best[0]):
            best = (gain, action)
    if best is not None:
        return best[1]
    if view.players[me].chits == 0:
        # Out of chits: free one from a long shot (a single chit floats on a 1 only).
        for action in legal:
            if isinstance(action, Withdraw) and products[action.product].total_chits == 1:
                return action
    return next((a for a in legal if isinstance(a, Pass)), legal[-1])
