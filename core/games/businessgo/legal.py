"""What each seat may do now, and the money rules that decide it.

The reducer in ``rules.py`` validates with the same helpers, so ``legal_actions`` and ``apply``
cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from core.engine import Seat
from core.games.businessgo.actions import (
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
from core.games.businessgo.state import BusinessGoState, Corporation
from core.turns import rotation

__all__ = [
    "AUCTION_MINIMUM",
    "BET_STEPS",
    "asset_name",
    "asset_value",
    "assets_of",
    "bet_amounts",
    "bid_amounts",
    "bidders",
    "boom_products",
    "competitors",
    "convert_options",
    "corporation_count",
    "landed_price",
    "legal_actions",
    "sale_amount",
    "selling_corporations",
    "setup_options",
    "units",
    "waiting_for",
]

AUCTION_MINIMUM = 10_000
"""The smallest bid an auction accepts."""
BET_STEPS = (10_000, 50_000, 100_000, 250_000, 500_000, 1_000_000)
"""The Casino's bet buttons (any whole amount may be typed)."""


def units(state: BusinessGoState, seat: Seat) -> int:
    """Operating Fees units: 1 for a National, 3 for an International Corporation."""
    b = board()
    return state.units(seat, b.national_units, b.international_units)


def corporation_count(state: BusinessGoState, seat: Seat) -> int:
    return len(state.corporations_of(seat))


def selling_corporations(
    state: BusinessGoState, seat: Seat, product: str, country: str | None
) -> list[Corporation]:
    """``seat``'s corporations that may sell ``product`` in ``country`` (None: at a Boom).

    With the advanced rule a National Corporation sells only on its own continent, and at a
    Boom (which is on no continent) only International Corporations sell.
    """
    countries = board().countries
    corps = [c for c in state.corporations_of(seat) if countries[c.country].product == product]
    if not state.options.advanced:
        return corps
    if country is None:
        return [c for c in corps if c.international]
    continent = countries[country].continent
    return [c for c in corps if c.international or countries[c.country].continent == continent]


def sale_amount(corps: list[Corporation]) -> int:
    """One sale: the best rate on the licences of the selling corporations, for their number
    (three and more use the third column)."""
    countries = board().countries
    column = min(len(corps), 3) - 1
    rates = [
        (
            countries[c.country].international_sales
            if c.international
            else countries[c.country].national_sales
        )[column]
        for c in corps
    ]
    return max(rates, default=0)


def competitors(
    state: BusinessGoState, seller: Seat, product: str, country: str | None
) -> list[Seat]:
    """Other players who may enter a sales competition: clockwise from the seller, not bankrupt,
    not burnt out, and owning a corporation that may sell there."""
    n = state.players
    order = rotation(seller, n)[1:]
    return [
        s
        for s in order
        if not state.bankrupt[s]
        and state.burnout[s] == 0
        and selling_corporations(state, s, product, country)
    ]


def setup_options(state: BusinessGoState, seat: Seat) -> list[Setup]:
    countries = board().countries
    return [
        Setup(country=cid)
        for cid, owner in state.licences.items()
        if owner == seat
        and cid not in state.corporations
        and state.cash[seat] >= countries[cid].start_up
    ]


def convert_options(state: BusinessGoState, seat: Seat) -> list[Convert]:
    countries = board().countries
    return [
        Convert(country=c.country)
        for c in state.corporations_of(seat)
        if c.chimney and not c.international and state.cash[seat] >= countries[c.country].conversion
    ]


def landed_price(state: BusinessGoState) -> int:
    """The price of the licence or Service Industry on the player's space."""
    b = board()
    space = b.spaces[state.position[state.turn]]
    if space in b.countries:
        return b.countries[space].licence
    return b.services[space].price


def boom_products(state: BusinessGoState, seat: Seat) -> list[str]:
    return [
        p.id
        for p in board().product
        if p.id not in state.boom_sold and selling_corporations(state, seat, p.id, None)
    ]


def bet_amounts(state: BusinessGoState, seat: Seat) -> list[int]:
    b = board()
    top = min(b.casino_limit, state.cash[seat])
    amounts = [a for a in BET_STEPS if a <= top]
    if top >= b.casino_minimum and top not in amounts:
        amounts.append(top)
    return amounts


def assets_of(state: BusinessGoState, seat: Seat) -> list[str]:
    """Countries (licence with or without its corporation) and Service Industries of ``seat``."""
    mine = [cid for cid, owner in state.licences.items() if owner == seat]
    return mine + [sid for sid, owner in state.services.items() if owner == seat]


def asset_value(state: BusinessGoState, asset: str) -> int:
    """What an asset cost: licence, start-up and conversion; a Service Industry's price."""
    b = board()
    if asset in b.services:
        return b.services[asset].price
    country = b.countries[asset]
    value = country.licence
    corp = state.corporations.get(asset)
    if corp is not None:
        value += country.start_up
        if corp.international:
            value += country.conversion
    return value


def asset_name(state: BusinessGoState, asset: str) -> str:
    b = board()
    if asset in b.services:
        return b.services[asset].name
    corp = state.corporations.get(asset)
    name = b.countries[asset].name
    if corp is None:
        return f"the {name} licence"
    return f"the {'International' if corp.international else 'National'} Corporation in {name}"


def bidders(state: BusinessGoState, seller: Seat) -> list[Seat]:
    n = state.players
    order = rotation(seller, n)[1:]
    return [
        s
        for s in order
        if not state.bankrupt[s] and state.burnout[s] == 0 and state.cash[s] >= AUCTION_MINIMUM
    ]


def bid_amounts(state: BusinessGoState, seat: Seat) -> list[int]:
    """Bid buttons: a quarter, half, three quarters, all and 125 % of the asset's cost."""
    auction = state.auction
    if auction is None:
        return []
    value = asset_value(state, auction.asset)
    amounts = []
    for percent in (25, 50, 75, 100, 125):
        amount = max(AUCTION_MINIMUM, round(value * percent / 100 / 10_000) * 10_000)
        if amount <= state.cash[seat] and amount not in amounts:
            amounts.append(amount)
    return amounts


def legal_actions(state: BusinessGoState, seat: Seat) -> list[Any]:
    """Every action ``seat`` may apply now (typed bets and bids of other amounts also apply)."""
    if state.finished or seat not in state.seats or state.bankrupt[seat]:
        return []
    phase = state.phase
    if phase == "compete":
        sale = state.sales[0]
        return [Join(), Pass()] if seat in sale.undecided else []
    if phase == "auction":
        auction = state.auction
        if auction is None or seat not in auction.undecided:
            return []
        return [*(Bid(amount=a) for a in bid_amounts(state, seat)), Pass()]
    if seat != state.turn:
        return []
    if phase == "turn":
        return [*setup_options(state, seat), *convert_options(state, seat), Roll()]
    if phase in ("licence", "service"):
        buy: list[Any] = [Buy()] if state.cash[seat] >= landed_price(state) else []
        return [*buy, Pass()]
    if phase == "boom":
        return [*(Sell(product=p) for p in boom_products(state, seat)), Pass()]
    if phase == "casino":
        return [*(Bet(amount=a) for a in bet_amounts(state, seat)), Pass()]
    if phase == "travel":
        if state.cash[seat] < board().travel_fare:
            return [Pass()]
        return [*(Travel(country=c.id) for c in board().country), Pass()]
    if phase == "debt":
        options: list[Any] = [
            Downgrade(country=c.country) for c in state.corporations_of(seat) if c.international
        ]
        assets = assets_of(state, seat)
        options += [SellToBank(asset=a) for a in assets]
        if bidders(state, seat):
            options += [AuctionOff(asset=a) for a in assets if a not in state.unsold]
        return options
    if phase == "mail":
        return [Remove(country=c.country) for c in state.corporations_of(seat)]
    return []


def waiting_for(state: BusinessGoState) -> list[Seat]:
    if state.finished:
        return []
    if state.phase == "compete":
        return list(state.sales[0].undecided)
    if state.phase == "auction":
        return list(state.auction.undecided) if state.auction else []
    return [state.turn]
