"""A sensible bot: it reads only its own view (and the printed board) and chooses from the
legal actions.

It invests while it keeps a reserve for the fees its holdings will cost, bids up to what an
asset is worth to it (never below the bank's price, which is the floor), takes the best bid
for its own asset unless the bank pays as much, and raises cash in a debt with what costs it
the least income: bare licences first, then a downgrade, then its cheapest corporation, sold
to the bank unless a rival could pay more for it at auction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from core.engine import Rng, Seat
from core.games.businessgo.actions import (
    Accept,
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

__all__ = ["RESERVE", "UNIT_RESERVE", "bot_action", "reserve"]

RESERVE = 100_000
"""Cash a bot keeps after an investment, whatever it owns."""
UNIT_RESERVE = 25_000
"""And for each Operating Fees unit it owns after the investment (what a lap's fees cost)."""


def reserve(view: BusinessGoView, me: Seat, more_units: int = 0) -> int:
    """What the bot keeps in cash after an investment that adds ``more_units``."""
    return RESERVE + UNIT_RESERVE * (view.players[me].units + more_units)


def bot_action(view: BusinessGoView, legal: list[Action], rng: Rng) -> Action:
    if not legal:
        raise ValueError("bot_action needs at least one legal action")
    if view.you is None:
        raise ValueError("a bot plays from a seat's own view, not the channel's")
    me = view.you
    choose = _BY_PHASE.get(view.phase)
    if choose is None:
        return legal[-1]
    return choose(_Turn(view, legal, me, view.players[me].cash, rng))


@dataclass(frozen=True)
class _Turn:
    """What the bot decides from: its view, its legal actions, its seat and cash, its dice."""

    view: BusinessGoView
    legal: list[Action]
    me: Seat
    cash: int
    rng: Rng


def _on_turn(t: _Turn) -> Action:
    """Set up the corporation it can best afford, else convert one, else roll."""
    view, me, cash = t.view, t.me, t.cash
    countries = board().countries
    setups = [a for a in t.legal if isinstance(a, Setup)]
    affordable = [a for a in setups if cash - countries[a.country].start_up >= reserve(view, me, 1)]
    if affordable:
        return max(
            affordable,
            key=lambda a: (_product_weight(view, me, a.country), countries[a.country].start_up),
        )
    converts = [
        a
        for a in t.legal
        if isinstance(a, Convert)
        and cash - countries[a.country].conversion >= reserve(view, me, 2) + RESERVE
    ]
    if converts:
        return max(converts, key=lambda a: countries[a.country].conversion)
    return _first(t.legal, Roll) or t.legal[-1]


def _on_licence(t: _Turn) -> Action:
    b = board()
    buy = _first(t.legal, Buy)
    space = b.spaces[t.view.players[t.me].position]
    price = b.countries[space].licence + b.countries[space].start_up
    if buy is not None and t.cash - price >= reserve(t.view, t.me, 1) // 2:
        return buy
    return Pass()


def _on_service(t: _Turn) -> Action:
    b = board()
    buy = _first(t.legal, Buy)
    space = b.spaces[t.view.players[t.me].position]
    price = b.services[space].price
    if buy is not None and t.cash - price >= reserve(t.view, t.me, 3) + RESERVE:
        return buy
    return Pass()


def _on_boom(t: _Turn) -> Action:
    sells = [a for a in t.legal if isinstance(a, Sell)]
    return sells[0] if sells else Pass()


def _on_casino(t: _Turn) -> Action:
    bets = [a for a in t.legal if isinstance(a, Bet) and a.amount <= t.cash // 8]
    if bets and t.rng.random() < 0.6:
        return max(bets, key=lambda a: a.amount)
    return Pass()


def _on_mail(t: _Turn) -> Action:
    removes = [a for a in t.legal if isinstance(a, Remove)]
    return min(removes, key=lambda a: (_cost(t.view, a.country), a.country))


_BY_PHASE: dict[str, Callable[[_Turn], Action]] = {
    "compete": lambda t: _first(t.legal, Join) or t.legal[-1],
    "auction": lambda t: _bid(t.view, t.legal, t.me, t.cash),
    "accept": lambda t: _accept(t.view, t.legal),
    "turn": _on_turn,
    "licence": _on_licence,
    "service": _on_service,
    "boom": _on_boom,
    "casino": _on_casino,
    "travel": lambda t: _travel(t.view, t.legal, t.me, t.cash),
    "debt": lambda t: _raise(t.view, t.legal, t.me),
    "mail": _on_mail,
}
"""How the bot decides in each phase of the game."""


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


def _cost(view: BusinessGoView, asset: str) -> int:
    """What an asset cost: licence, start-up and conversion, or a Service Industry's price."""
    b = board()
    if asset in b.services:
        return b.services[asset].price
    country = b.countries[asset]
    corp = view.corporations.get(asset)
    if corp is None:
        return country.licence
    return country.licence + country.start_up + (country.conversion if corp.international else 0)


def _travel(view: BusinessGoView, legal: list[Action], me: Seat, cash: int) -> Action:
    countries = board().countries
    travels = [a for a in legal if isinstance(a, Travel)]
    if not travels or cash < 2 * reserve(view, me):
        return Pass()
    unsold = [a for a in travels if a.country not in view.licences and a.country not in view.closed]
    if unsold:
        return min(unsold, key=lambda a: countries[a.country].licence)
    return travels[0]


def _worth(view: BusinessGoView, me: Seat, asset: str) -> int:
    """What an auctioned asset is worth to the bot: most of its cost, all of it for a product
    the bot already makes (more corporations of a product sell for more)."""
    b = board()
    cost = _cost(view, asset)
    if asset in b.services:
        return cost * 9 // 10
    same = _product_weight(view, me, asset)
    if asset not in view.corporations:
        return cost if same else cost * 3 // 4
    return cost * min(10, 7 + same) // 10


def _bid(view: BusinessGoView, legal: list[Action], me: Seat, cash: int) -> Action:
    auction = view.auction
    if auction is None:
        return Pass()
    units = 0
    corp = view.corporations.get(auction.asset)
    if auction.asset in board().services:
        units = 3
    elif corp is not None:
        units = 3 if corp.international else 1
    limit = min(_worth(view, me, auction.asset), cash - reserve(view, me, units))
    bids = [a for a in legal if isinstance(a, Bid) and a.amount <= limit]
    if not bids:
        return Pass()
    return max(bids, key=lambda a: a.amount)


def _accept(view: BusinessGoView, legal: list[Action]) -> Action:
    """Take the best bid when it pays more than the bank; at the bank's price, let the bank
    have it rather than a rival."""
    auction = view.auction
    best = max(auction.bids.values(), default=0) if auction else 0
    if auction is not None and best > auction.floor:
        return _first(legal, Accept) or legal[0]
    return _first(legal, SellToBank) or legal[0]


def _raise(view: BusinessGoView, legal: list[Action], me: Seat) -> Action:
    """The least costly way to raise cash: bare licences, a downgrade, then the cheapest
    corporation or Service Industry, at auction only when a rival could pay above the bank."""
    b = board()
    countries = b.countries
    owed = -view.players[me].cash
    sales = [a for a in legal if isinstance(a, SellToBank)]
    auctions = {a.asset: a for a in legal if isinstance(a, AuctionOff)}

    def enough_first(assets: list[str], proceeds: dict[str, int]) -> list[str]:
        # The cheapest that covers the debt, else the one that raises the most.
        covering = sorted((a for a in assets if proceeds[a] >= owed), key=lambda a: proceeds[a])
        return covering or sorted(assets, key=lambda a: -proceeds[a])

    def sell(asset: str) -> Action:
        floor = _cost(view, asset) // 2
        rich = [
            p
            for p in view.players
            if p.seat != me and not p.bankrupt and p.cash >= floor + 2 * reserve(view, p.seat)
        ]
        if asset in auctions and rich:
            return auctions[asset]
        return next(a for a in sales if a.asset == asset)

    bare = [a.asset for a in sales if a.asset in countries and a.asset not in view.corporations]
    if bare:
        proceeds = {a: _cost(view, a) // 2 for a in bare}
        return sell(enough_first(bare, proceeds)[0])
    downgrades = [a for a in legal if isinstance(a, Downgrade)]
    if downgrades:
        back = {a.country: countries[a.country].conversion // 2 for a in downgrades}
        chosen = enough_first(list(back), back)[0]
        return next(a for a in downgrades if a.country == chosen)
    assets = [a.asset for a in sales]
    if assets:
        # The least valuable first (what it would cost to build again).
        return sell(min(assets, key=lambda a: (_cost(view, a), a)))
    return legal[0]
