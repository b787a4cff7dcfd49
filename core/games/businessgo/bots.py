"""A sensible bot: it reads only its own view (and the printed board) and chooses from the
legal actions."""

from __future__ import annotations

from typing import TypeVar

from core.engine import Rng, Seat
from core.games.businessgo.actions import (
    Action,
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
from core.games.businessgo.view import BusinessGoView

__all__ = ["RESERVE", "bot_action"]

RESERVE = 150_000
"""Cash a bot keeps after an investment, for Operating Fees and the like."""


def bot_action(view: BusinessGoView, legal: list[Action], rng: Rng) -> Action:
    if not legal:
        raise ValueError("bot_action needs at least one legal action")
    if view.you is None:
        raise ValueError("a bot plays from a seat's own view, not the channel's")
    me = view.you
    cash = view.players[me].cash
    phase = view.phase
    b = board()
    countries = b.countries
    if phase == "compete":
        return _first(legal, Join) or legal[-1]
    if phase == "auction":
        return _bid(view, legal, cash)
    if phase == "turn":
        setups = [a for a in legal if isinstance(a, Setup)]
        affordable = [a for a in setups if cash - countries[a.country].start_up >= RESERVE]
        if affordable:
            return max(affordable, key=lambda a: _product_weight(view, me, a.country))
        converts = [
            a
            for a in legal
            if isinstance(a, Convert) and cash - countries[a.country].conversion >= 2 * RESERVE
        ]
        if converts:
            return converts[0]
        return _first(legal, Roll) or legal[-1]
    if phase == "licence":
        buy = _first(legal, Buy)
        space = b.spaces[view.players[me].position]
        price = countries[space].licence + countries[space].start_up
        if buy is not None and cash - price >= RESERVE // 2:
            return buy
        return Pass()
    if phase == "service":
        buy = _first(legal, Buy)
        space = b.spaces[view.players[me].position]
        if buy is not None and cash - b.services[space].price >= 2 * RESERVE:
            return buy
        return Pass()
    if phase == "boom":
        sells = [a for a in legal if isinstance(a, Sell)]
        return sells[0] if sells else Pass()
    if phase == "casino":
        bets = [a for a in legal if isinstance(a, Bet) and a.amount <= cash // 8]
        if bets and rng.random() < 0.6:
            return max(bets, key=lambda a: a.amount)
        return Pass()
    if phase == "travel":
        return _travel(view, legal, cash)
    if phase == "debt":
        downgrade = _first(legal, Downgrade)
        if downgrade is not None:
            return downgrade
        sales = [a for a in legal if isinstance(a, SellToBank)]
        bare = [a for a in sales if a.asset in countries and a.asset not in view.corporations]
        if bare:
            return bare[0]
        auctions = [a for a in legal if isinstance(a, AuctionOff)]
        if auctions:
            return auctions[0]
        return sales[0] if sales else legal[0]
    if phase == "mail":
        removes = [a for a in legal if isinstance(a, Remove)]
        return min(removes, key=lambda a: countries[a.country].start_up)
    return legal[-1]


K = TypeVar("K")


def _first(legal: list[Action], kind: type[K]) -> K | None:
    return next((a for a in legal if isinstance(a, kind)), None)


def _product_weight(view: BusinessGoView, me: Seat, country: str) -> int:
    """More corporations of one product pay more: prefer the product we already make."""
    countries = board().countries
    product = countries[country].product
    return sum(
        1
        for cid, corp in view.corporations.items()
        if corp.owner == me and countries[cid].product == product
    )


def _travel(view: BusinessGoView, legal: list[Action], cash: int) -> Action:
    countries = board().countries
    travels = [a for a in legal if isinstance(a, Travel)]
    if not travels or cash < 2 * RESERVE:
        return Pass()
    unsold = [a for a in travels if a.country not in view.licences]
    if unsold:
        return min(unsold, key=lambda a: countries[a.country].licence)
    return travels[0]


def _bid(view: BusinessGoView, legal: list[Action], cash: int) -> Action:
    bids = [a for a in legal if isinstance(a, Bid) and cash - a.amount >= 2 * RESERVE]
    if not bids:
        return Pass()
    # Half the cost or less: a bargain next to what the bank would charge.
    auction = view.auction
    countries = board().countries
    asset = auction.asset if auction else ""
    cost = countries[asset].licence if asset in countries else 0
    cheap = [a for a in bids if a.amount <= max(cost, bids[0].amount)]
    return max(cheap or bids[:1], key=lambda a: a.amount)
