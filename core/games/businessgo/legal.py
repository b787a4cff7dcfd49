"""What each seat may do now, and the money rules that decide it.

The reducer in ``rules.py`` validates with the same helpers, so ``legal_actions`` and ``apply``
cannot drift apart.
"""

from __future__ import annotations

from core.engine import Seat
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
from core.games.businessgo.state import BusinessGoState, Corporation
from core.turns import rotation

__all__ = [
    "AUCTION_MINIMUM",
    "BET_STEPS",
    "BID_STEPS",
    "asset_name",
    "asset_value",
    "assets_of",
    "automatic",
    "bank_price",
    "bet_amounts",
    "bid_amounts",
    "bidders",
    "bidding",
    "boom_products",
    "competing",
    "competitors",
    "convert_options",
    "corporation_count",
    "debt_ways",
    "floor_of",
    "landed_price",
    "legal_actions",
    "on_burnout",
    "on_turn",
    "removable",
    "sale_amount",
    "seat_out",
    "selling_corporations",
    "setup_options",
    "units",
    "waiting_for",
]

AUCTION_MINIMUM = 10_000
"""The smallest bid any auction accepts (the bank's price, when higher, is the floor)."""
BET_STEPS = (10_000, 50_000, 100_000, 250_000, 500_000, 1_000_000)
"""The Casino's bet buttons (any whole amount may be typed)."""
BID_STEPS = (50, 60, 70, 80, 90, 100, 110, 125)
"""The auction's bid buttons, in percent of what the asset cost (50 %: the bank's price)."""


def units(state: BusinessGoState, seat: Seat) -> int:
    """Operating Fees units: 1 for a National Corporation, 3 for an International one and for
    a Service Industry (which carries an International Corporation)."""
    b = board()
    return state.units(seat, b.national_units, b.international_units)


def corporation_count(state: BusinessGoState, seat: Seat) -> int:
    """Corporations for the Start grant, Charity Drive, Ecology, the per-corporation Mail
    cards and Service Industry paybacks: those on countries and the Service Industries."""
    return len(state.corporations_of(seat)) + len(state.services_of(seat))


def on_burnout(state: BusinessGoState, seat: Seat) -> bool:
    """Standing on the Burnout space: no investing (set-ups, conversions, licences, bids) and no
    sales competitions, until the piece moves off it."""
    return board().kind(state.position[seat]) == "burnout"


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
    """One sale: the average, over the selling corporations, of the rate each one's licence
    card gives for that many corporations (three and more use the third column), each card's
    International column for an International Corporation; rounded down to $10,000.

    Canada's card pays $300,000 with two National car corporations and the United States'
    $360,000, so the rulebook's Canada and United States pair sells for $330,000."""
    if not corps:
        return 0
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
    return sum(rates) // len(rates) // 10_000 * 10_000


def competitors(
    state: BusinessGoState, seller: Seat, product: str, country: str | None
) -> list[Seat]:
    """Other players who may enter a sales competition: clockwise from the seller, not bankrupt,
    not on the Burnout space, and owning a corporation that may sell there."""
    n = state.players
    order = rotation(seller, n)[1:]
    return [
        s
        for s in order
        if not state.bankrupt[s]
        and not on_burnout(state, s)
        and selling_corporations(state, s, product, country)
    ]


def setup_options(state: BusinessGoState, seat: Seat) -> list[Setup]:
    countries = board().countries
    if on_burnout(state, seat):
        return []
    return [
        Setup(country=cid)
        for cid, owner in state.licences.items()
        if owner == seat
        and cid not in state.corporations
        and cid not in state.closed
        and state.cash[seat] >= countries[cid].start_up
    ]


def convert_options(state: BusinessGoState, seat: Seat) -> list[Convert]:
    countries = board().countries
    if on_burnout(state, seat):
        return []
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
    return mine + state.services_of(seat)


def removable(state: BusinessGoState, seat: Seat) -> list[str]:
    """What a Mail card's bankrupt corporation may be: a corporation on a country or a Service
    Industry of ``seat``."""
    return [c.country for c in state.corporations_of(seat)] + state.services_of(seat)


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


def bank_price(state: BusinessGoState, asset: str) -> int:
    """What the bank pays for an asset in a debt: half of what it cost. An auction's floor."""
    return asset_value(state, asset) // 2


def asset_name(state: BusinessGoState, asset: str) -> str:
    b = board()
    if asset in b.services:
        return b.services[asset].name
    corp = state.corporations.get(asset)
    name = b.countries[asset].name
    if corp is None:
        return f"the {name} licence"
    return f"the {'International' if corp.international else 'National'} Corporation in {name}"


def floor_of(state: BusinessGoState, asset: str) -> int:
    """The smallest bid for ``asset``: the bank's price (and never under $10,000)."""
    return max(AUCTION_MINIMUM, bank_price(state, asset))


def bidders(state: BusinessGoState, seller: Seat, asset: str) -> list[Seat]:
    """Who may bid for ``asset``: the others still in, off the Burnout space, who could pay
    at least the floor; clockwise from the seller."""
    floor = floor_of(state, asset)
    n = state.players
    order = rotation(seller, n)[1:]
    return [
        s
        for s in order
        if not state.bankrupt[s] and not on_burnout(state, s) and state.cash[s] >= floor
    ]


def bid_amounts(state: BusinessGoState, seat: Seat | None) -> list[int]:
    """Bid buttons: from the floor (the bank's price) up to 125 % of the asset's cost, in
    whole $10,000s, as far as ``seat``'s cash goes (None: the buttons every bidder shares on
    the board, as far as the richest of those yet to answer can go; a bid above one's own cash
    is refused, with how much one has)."""
    auction = state.auction
    if auction is None:
        return []
    value = asset_value(state, auction.asset)
    if seat is not None:
        cash = state.cash[seat]
    else:
        cash = max((state.cash[s] for s in auction.undecided), default=0)
    amounts = [auction.floor] if auction.floor <= cash else []
    for percent in BID_STEPS:
        amount = -(-value * percent // 1_000_000) * 10_000  # rounded up to $10,000
        if auction.floor < amount <= cash and amount not in amounts:
            amounts.append(amount)
    return amounts


def legal_actions(state: BusinessGoState, seat: Seat) -> list[Action]:
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
    if phase == "accept":
        assert state.auction is not None
        return [Accept(), SellToBank(asset=state.auction.asset)]
    if phase == "turn":
        return [*setup_options(state, seat), *convert_options(state, seat), Roll()]
    if phase in ("licence", "service"):
        buy: list[Action] = [Buy()] if state.cash[seat] >= landed_price(state) else []
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
        return [*_downgrades(state, seat), *_bank_sales(state, seat), *_auctions(state, seat)]
    if phase == "mail":
        return [Remove(country=a) for a in removable(state, seat)]
    return []


def _downgrades(state: BusinessGoState, seat: Seat) -> list[Downgrade]:
    return [Downgrade(country=c.country) for c in state.corporations_of(seat) if c.international]


def _bank_sales(state: BusinessGoState, seat: Seat) -> list[SellToBank]:
    return [SellToBank(asset=a) for a in assets_of(state, seat)]


def _auctions(state: BusinessGoState, seat: Seat) -> list[AuctionOff]:
    """What ``seat`` may auction: an asset not yet offered in this debt that someone else can
    pay the bank's price for."""
    return [
        AuctionOff(asset=a)
        for a in assets_of(state, seat)
        if a not in state.unsold and bidders(state, seat, a)
    ]


def debt_ways(state: BusinessGoState, seat: Seat) -> str:
    """How ``seat`` can raise money now, as the end of a sentence ("auction to the other
    players, sell to the bank for half or downgrade an International Corporation"): only the
    ways that are open, since the board and the refusals offer them."""
    ways = []
    if _auctions(state, seat):
        ways.append("auction to the other players")
    if _bank_sales(state, seat):
        ways.append("sell to the bank for half")
    if _downgrades(state, seat):
        ways.append("downgrade an International Corporation")
    if not ways:
        return "nothing: with nothing left to sell you go bankrupt"
    return ways[0] if len(ways) == 1 else f"{', '.join(ways[:-1])} or {ways[-1]}"


def automatic(state: BusinessGoState) -> tuple[Seat, Action] | None:
    """The move made for a seat by itself (option ``auto_moves``): the only legal move of a
    seat the game waits for."""
    if not state.options.auto_moves or state.finished:
        return None
    for seat in waiting_for(state):
        legal = legal_actions(state, seat)
        if len(legal) == 1:
            return seat, legal[0]
    return None


def competing(state: BusinessGoState) -> list[Seat]:
    """Whom a sales competition waits for: the owners of the product who have not answered."""
    return list(state.sales[0].undecided) if state.sales else []


def bidding(state: BusinessGoState) -> list[Seat]:
    """Whom an auction waits for: the bidders who have not bid or passed."""
    return list(state.auction.undecided) if state.auction else []


def on_turn(state: BusinessGoState) -> list[Seat]:
    """Whom every other decision waits for: the player on turn."""
    return [state.turn]


def waiting_for(state: BusinessGoState) -> list[Seat]:
    """Whom the game waits for now, in whatever phase."""
    if state.finished:
        return []
    if state.phase == "compete":
        return competing(state)
    if state.phase == "auction":
        return bidding(state)
    return on_turn(state)


def seat_out(state: BusinessGoState, seat: Seat) -> bool:
    """A bankrupt player has left the game; their turns are skipped."""
    return state.bankrupt[seat]
