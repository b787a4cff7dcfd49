"""What each seat may do now, and the money rules that decide it.

The reducer in ``rules.py`` validates with the same helpers, so ``legal_actions`` and ``apply``
cannot drift apart.
"""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel

from core.engine import Seat
from core.games.businessgo.actions import (
    Accept,
    Action,
    AlwaysCompete,
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
from core.games.businessgo.text import join, money
from core.text import escape, possessive
from core.turns import rotation

__all__ = [
    "AUCTION_MINIMUM",
    "BANKRUPT",
    "BET_STEPS",
    "BID_STEPS",
    "accept_options",
    "always_compete_options",
    "always_compete_problem",
    "amount_shape",
    "answer_problem",
    "anytime",
    "asset_name",
    "asset_problem",
    "asset_value",
    "assets_of",
    "auction_options",
    "auction_problem",
    "bank_price",
    "bank_sale_options",
    "bank_sale_problem",
    "bet_amounts",
    "bet_options",
    "bet_problem",
    "bid_amounts",
    "bid_options",
    "bid_pass_problem",
    "bid_problem",
    "bidders",
    "bidding",
    "boom_products",
    "buy_options",
    "buy_problem",
    "competing",
    "competitors",
    "convert_options",
    "convert_problem",
    "corporation_count",
    "country_problem",
    "debt_ways",
    "downgrade_options",
    "downgrade_problem",
    "floor_of",
    "join_options",
    "join_problem",
    "landed_price",
    "misplaced",
    "moment",
    "not_yours",
    "on_burnout",
    "on_turn",
    "out_of_the_game",
    "pass_options",
    "refuse_bids_options",
    "refuse_bids_problem",
    "removable",
    "remove_options",
    "remove_problem",
    "roll_options",
    "sale_amount",
    "seat_out",
    "sell_options",
    "sell_problem",
    "selling_corporations",
    "setup_options",
    "setup_problem",
    "stay_out_problem",
    "travel_options",
    "travel_problem",
    "units",
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


# Offers are made once each (actions are frozen: one object may be offered to every seat of
# every game), by the ids of the board: a move's offers cost a lookup, not a validation.
_ROLL, _BUY, _PASS, _JOIN, _ACCEPT = Roll(), Buy(), Pass(), Join(), Accept()


@cache
def _setup(country: str) -> Setup:
    return Setup(country=country)


@cache
def _convert(country: str) -> Convert:
    return Convert(country=country)


@cache
def _auction(asset: str) -> AuctionOff:
    return AuctionOff(asset=asset)


@cache
def _bank_sale(asset: str) -> SellToBank:
    return SellToBank(asset=asset)


@cache
def _downgrade(country: str) -> Downgrade:
    return Downgrade(country=country)


@cache
def _remove(asset: str) -> Remove:
    return Remove(country=asset)


def setup_options(state: BusinessGoState, seat: Seat) -> list[Setup]:
    """A set-up on each country whose licence ``seat`` owns (:func:`setup_problem` keeps
    those it may set up)."""
    return [_setup(c) for c, owner in state.licences.items() if owner == seat]


def convert_options(state: BusinessGoState, seat: Seat) -> list[Convert]:
    """A conversion of each of ``seat``'s corporations (:func:`convert_problem` keeps those
    it may convert)."""
    return [_convert(c.country) for c in state.corporations_of(seat)]


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


# --- who may act ---------------------------------------------------------------------------


def not_yours(state: BusinessGoState, seat: Seat) -> str | None:
    """Why ``seat`` may make none of the moves of a decision of the player on turn, or None."""
    if state.bankrupt[seat]:
        return BANKRUPT
    if seat != state.turn:
        return f"It is {possessive(state.names[state.turn])} turn, not yours."
    return None


def out_of_the_game(state: BusinessGoState, seat: Seat) -> str | None:
    """Why ``seat`` may not answer a window every player may be asked (a competition, an
    auction): it is bankrupt."""
    return BANKRUPT if state.bankrupt[seat] else None


BANKRUPT = "You are bankrupt and out of this game."


# --- names -----------------------------------------------------------------------------------


def country_problem(country: str) -> str | None:
    """Why ``country`` (an id, as the action model reads names) names no country, or None."""
    if country in board().countries:
        return None
    return (
        f"There is no country called “{escape(country)}”: the board's track names every "
        "country (`/businessgo status` shows it)."
    )


def asset_problem(asset: str) -> str | None:
    """Why ``asset`` names no country and no Service Industry, or None."""
    b = board()
    if asset in b.countries or asset in b.services:
        return None
    return (
        f"There is no country or Service Industry called “{escape(asset)}”: "
        "`/businessgo hand` lists yours."
    )


def _label(asset: str) -> str:
    b = board()
    return b.services[asset].name if asset in b.services else b.countries[asset].name


def _own_problem(state: BusinessGoState, seat: Seat, asset: str) -> str | None:
    if asset not in assets_of(state, seat):
        return f"You do not own {_label(asset)}: `/businessgo hand` lists what you own."
    return None


def _burnout_problem(state: BusinessGoState, seat: Seat) -> str | None:
    if on_burnout(state, seat):
        return "You are on the Burnout space: you cannot invest until your piece moves off it."
    return None


# --- before rolling --------------------------------------------------------------------------


def setup_problem(state: BusinessGoState, seat: Seat, action: Setup) -> str | None:
    """Why ``seat`` may not set up a National Corporation on ``action.country``, or None."""
    if problem := country_problem(action.country):
        return problem
    country = board().countries[action.country]
    if action.country in state.closed:
        return (
            f"{possessive(country.name)} corporation went bankrupt; no corporation can be set up "
            "there again."
        )
    if state.licences.get(action.country) != seat:
        return f"You need the {country.name} Business Licence to set up there."
    if action.country in state.corporations:
        return f"There is already a corporation in {country.name}; a country never takes a second."
    if problem := _burnout_problem(state, seat):
        return problem
    if state.cash[seat] < country.start_up:
        return (
            f"A National Corporation in {country.name} costs {money(country.start_up)}; "
            f"you have {money(state.cash[seat])}."
        )
    return None


def convert_problem(state: BusinessGoState, seat: Seat, action: Convert) -> str | None:
    """Why ``seat`` may not convert its corporation on ``action.country``, or None."""
    if problem := country_problem(action.country):
        return problem
    country = board().countries[action.country]
    corp = state.corporations.get(action.country)
    if corp is None or corp.owner != seat:
        return f"You own no corporation in {country.name}."
    if corp.international:
        return f"Your corporation in {country.name} is already International."
    if not corp.chimney:
        return (
            f"Your corporation in {country.name} has not made a sale yet (no white chimney), "
            "so it cannot go International."
        )
    if problem := _burnout_problem(state, seat):
        return problem
    if state.cash[seat] < country.conversion:
        return (
            f"Converting {country.name} costs {money(country.conversion)}; "
            f"you have {money(state.cash[seat])}."
        )
    return None


def anytime(state: BusinessGoState, seat: Seat, action: Action) -> str | None:
    """A move of the decision open that nothing but whose it is can refuse (roll, pass...)."""
    return None


def roll_options(state: BusinessGoState, seat: Seat) -> list[Roll]:
    return [_ROLL]


# --- on a space ------------------------------------------------------------------------------


def buy_problem(state: BusinessGoState, seat: Seat, action: Buy) -> str | None:
    """Why ``seat`` may not buy the licence or Service Industry it landed on, or None."""
    b = board()
    space = b.spaces[state.position[seat]]
    price = landed_price(state)
    if state.cash[seat] < price:
        label = (
            f"The {b.countries[space].name} Business Licence"
            if state.deciding == "licence"
            else b.services[space].name
        )
        return f"{label} costs {money(price)}; you have {money(state.cash[seat])}."
    return None


def buy_options(state: BusinessGoState, seat: Seat) -> list[Buy]:
    return [_BUY]


def pass_options(state: BusinessGoState, seat: Seat) -> list[Pass]:
    return [_PASS]


def sell_problem(state: BusinessGoState, seat: Seat, action: Sell) -> str | None:
    """Why ``seat`` may not sell ``action.product`` in this Boom, or None."""
    products = board().products
    product = action.product
    if product not in products:
        return f"There is no product called “{escape(product)}”."
    if product in state.boom_sold:
        return f"You already sold {products[product].name} in this Boom."
    if not selling_corporations(state, seat, product, None):
        return f"You own no corporation that can sell {products[product].name} here."
    return None


def sell_options(state: BusinessGoState, seat: Seat) -> list[Sell]:
    return list(_every_sale())


@cache
def _every_sale() -> tuple[Sell, ...]:
    return tuple(Sell(product=p.id) for p in board().product)


def bet_problem(state: BusinessGoState, seat: Seat, action: Bet) -> str | None:
    """Why ``seat`` may not bet ``action.amount`` at the Casino, or None."""
    b = board()
    amount = action.amount
    if amount < b.casino_minimum:
        return f"You bet {money(amount)}, but the smallest bet is {money(b.casino_minimum)}."
    if amount > b.casino_limit:
        return f"You bet {money(amount)}, but the largest bet is {money(b.casino_limit)}."
    if amount > state.cash[seat]:
        return f"You cannot bet {money(amount)}: you have {money(state.cash[seat])}."
    return None


def bet_options(state: BusinessGoState, seat: Seat) -> list[Bet]:
    return [Bet(amount=a) for a in bet_amounts(state, seat)]


def amount_shape(action: Bet | Bid) -> object:
    """A bet or a bid is one choice whatever amount is typed (the offers list a few)."""
    return action.type


def travel_problem(state: BusinessGoState, seat: Seat, action: Travel) -> str | None:
    """Why ``seat`` may not travel to ``action.country`` from the Travel Agency, or None."""
    if problem := country_problem(action.country):
        return problem
    fare = board().travel_fare
    if state.cash[seat] < fare:
        return f"The fare is {money(fare)}; you have {money(state.cash[seat])}."
    return None


def travel_options(state: BusinessGoState, seat: Seat) -> list[Travel]:
    return list(_every_journey())


@cache
def _every_journey() -> tuple[Travel, ...]:
    return tuple(Travel(country=c.id) for c in board().country)


# --- windows -------------------------------------------------------------------------------


def join_problem(state: BusinessGoState, seat: Seat, action: Join) -> str | None:
    """Why ``seat`` may not enter the open sales competition, or None."""
    sale = state.sales[0]
    product = board().products[sale.product].name
    if seat == sale.seller:
        return "You are the seller; the others compete with you."
    if seat not in sale.eligible:
        if state.burnout[seat]:
            return "You are on Burnout and cannot enter a sales competition."
        return f"You own no corporation that can sell {product} here."
    if seat not in sale.undecided:
        return "You have already answered this sales competition."
    return None


def join_options(state: BusinessGoState, seat: Seat) -> list[Join]:
    return [_JOIN]


def stay_out_problem(state: BusinessGoState, seat: Seat, action: Pass) -> str | None:
    """Why ``seat`` may not stay out of the open sales competition, or None."""
    if seat not in state.sales[0].undecided:
        return "You are not deciding on this sales competition."
    return None


def answer_problem(state: BusinessGoState, seat: Seat) -> str | None:
    """Why ``seat`` may not bid or pass in the open auction, saying why, or None."""
    auction = state.auction
    assert auction is not None
    if seat == auction.seller:
        return "You cannot bid in your own auction."
    if seat not in auction.eligible:
        if on_burnout(state, seat):
            return "You are on the Burnout space: you cannot bid until your piece moves off it."
        if state.cash[seat] < auction.floor:
            return (
                f"You cannot bid: the smallest bid is the bank's price, {money(auction.floor)}, "
                f"and you have {money(state.cash[seat])}."
            )
        return "You were not asked to bid in this auction."
    if seat not in auction.undecided:
        return "You have already answered this auction."
    return None


def bid_problem(state: BusinessGoState, seat: Seat, action: Bid) -> str | None:
    """Why ``seat`` may not bid ``action.amount`` in the open auction, or None."""
    if problem := answer_problem(state, seat):
        return problem
    auction = state.auction
    assert auction is not None
    if action.amount < auction.floor:
        return (
            f"Your bid of {money(action.amount)} is below the smallest bid, the bank's price "
            f"of {money(auction.floor)}: below it {state.names[auction.seller]} would sell to "
            "the bank."
        )
    if action.amount > state.cash[seat]:
        return f"You cannot bid {money(action.amount)}: you have {money(state.cash[seat])}."
    return None


def bid_options(state: BusinessGoState, seat: Seat) -> list[Bid]:
    return [Bid(amount=a) for a in bid_amounts(state, seat)]


def bid_pass_problem(state: BusinessGoState, seat: Seat, action: Pass) -> str | None:
    """Why ``seat`` may not pass in the open auction, or None."""
    return answer_problem(state, seat)


def always_compete_problem(state: BusinessGoState, seat: Seat, action: AlwaysCompete) -> str | None:
    """Why ``seat`` may not make this standing choice for sales competitions, or None."""
    if state.bankrupt[seat]:
        return BANKRUPT
    if state.always_competes(seat) == action.always:
        return (
            "You already join every sales competition you may enter."
            if action.always
            else "You are already asked before each sales competition."
        )
    return None


def always_compete_options(state: BusinessGoState, seat: Seat) -> list[AlwaysCompete]:
    """The other standing choice than the seat's."""
    return [AlwaysCompete(always=not state.always_competes(seat))]


# --- debts -----------------------------------------------------------------------------------


def auction_problem(state: BusinessGoState, seat: Seat, action: AuctionOff) -> str | None:
    """Why ``seat`` may not auction ``action.asset`` to pay its debt, or None."""
    asset = action.asset
    if problem := asset_problem(asset) or _own_problem(state, seat, asset):
        return problem
    if asset in state.unsold:
        return (
            f"Nobody bid for {_label(asset)} in this debt, so it cannot be auctioned again; "
            f"you can {debt_ways(state, seat)}."
        )
    if not bidders(state, seat, asset):
        return (
            f"Nobody else can pay the bank's price for {_label(asset)} "
            f"({money(floor_of(state, asset))}) now; you can {debt_ways(state, seat)}."
        )
    return None


def auction_options(state: BusinessGoState, seat: Seat) -> list[AuctionOff]:
    return [_auction(a) for a in assets_of(state, seat)]


def bank_sale_problem(state: BusinessGoState, seat: Seat, action: SellToBank) -> str | None:
    """Why ``seat`` may not sell ``action.asset`` to the bank to pay its debt, or None."""
    return asset_problem(action.asset) or _own_problem(state, seat, action.asset)


def bank_sale_options(state: BusinessGoState, seat: Seat) -> list[SellToBank]:
    return [_bank_sale(a) for a in assets_of(state, seat)]


def downgrade_problem(state: BusinessGoState, seat: Seat, action: Downgrade) -> str | None:
    """Why ``seat`` may not downgrade its corporation on ``action.country``, or None."""
    if problem := country_problem(action.country):
        return problem
    corp = state.corporations.get(action.country)
    if corp is None or corp.owner != seat or not corp.international:
        name = board().countries[action.country].name
        return f"You own no International Corporation in {name}; you can {debt_ways(state, seat)}."
    return None


def downgrade_options(state: BusinessGoState, seat: Seat) -> list[Downgrade]:
    return [_downgrade(c.country) for c in state.corporations_of(seat)]


def _ways(state: BusinessGoState, seat: Seat) -> tuple[list[str], list[str], list[str]]:
    """What ``seat`` may auction, sell to the bank and downgrade to pay its debt: the assets
    the checks above pass (by the same conditions, without their sentences, which name these
    ways)."""
    assets = assets_of(state, seat)
    auctions = [a for a in assets if a not in state.unsold and bidders(state, seat, a)]
    internationals = [c.country for c in state.corporations_of(seat) if c.international]
    return auctions, assets, internationals


# --- an auction closed, a Mail card ------------------------------------------------------------


def accept_options(state: BusinessGoState, seat: Seat) -> list[Accept]:
    return [_ACCEPT]


def refuse_bids_problem(state: BusinessGoState, seat: Seat, action: SellToBank) -> str | None:
    """Why the seller may not turn the bids down by selling ``action.asset`` to the bank."""
    if problem := asset_problem(action.asset) or _own_problem(state, seat, action.asset):
        return problem
    assert state.auction is not None
    if action.asset != state.auction.asset:
        return "Take the best bid or sell the auctioned asset to the bank; other sales wait."
    return None


def refuse_bids_options(state: BusinessGoState, seat: Seat) -> list[SellToBank]:
    return [_bank_sale(state.auction.asset)] if state.auction else []


def remove_problem(state: BusinessGoState, seat: Seat, action: Remove) -> str | None:
    """Why ``seat``'s corporation on ``action.country`` cannot be the one a Mail card makes go
    bankrupt, or None."""
    if problem := asset_problem(action.country):
        return problem
    if action.country not in removable(state, seat):
        return (
            f"{_label(action.country)} is not one of your corporations: `/businessgo hand` "
            "lists yours."
        )
    return None


def remove_options(state: BusinessGoState, seat: Seat) -> list[Remove]:
    return [_remove(a) for a in removable(state, seat)]


# --- a move the open decision does not take ------------------------------------------------

_ONLY = {
    "licence": "You can buy only the licence or Service Industry you have just landed on.",
    "boom": "You can choose Boom sales only when you land on the Boom space.",
    "casino": "You can bet only when you land on the Casino.",
    "travel": "You can travel only from the Travel Agency.",
    "debt": "You can do that only to pay a debt.",
    "accept": "You can accept a bid only when your auction has closed.",
    "mail": "Only a Mail card makes a corporation go bankrupt.",
}
"""Why an action is refused outside its decision, by the decision it belongs to."""

_DOING: dict[type[BaseModel], str] = {
    Setup: "set up a corporation",
    Convert: "convert a corporation",
    Buy: "buy anything",
    Sell: "choose a Boom sale",
    Bet: "bet",
    Travel: "travel",
    AuctionOff: "auction",
    SellToBank: "sell to the bank",
    Accept: "accept a bid",
    Downgrade: "downgrade",
    Remove: "remove a corporation",
}
"""What each move is, as the refusals say it (``You cannot <doing> now``)."""


def moment(state: BusinessGoState, actor: Seat) -> str:
    """What the game decides now, as a sentence: a refusal at the wrong moment says what the
    moment is for, so the player knows what to do instead."""
    b = board()
    names = state.names
    deciding = state.deciding
    if deciding == "compete" and state.sales:
        asked = list(state.sales[0].undecided)
        who = join(["you" if s == actor else names[s] for s in asked]) or "nobody"
        return f"Now the sales competition is open: {who} may join it or stay out."
    if deciding == "auction" and state.auction is not None:
        asked = list(state.auction.undecided)
        who = join(["you" if s == actor else names[s] for s in asked]) or "nobody"
        return f"Now the auction is open: {who} may bid or pass."
    space = b.spaces[state.position[state.turn]]
    choice = {
        "turn": "set up, convert or roll",
        "boom": "choose Boom sales or end the Boom",
        "casino": "bet at the Casino or stop",
        "travel": "travel from the Travel Agency or stay",
        "debt": f"raise money to pay the debt ({debt_ways(state, state.turn)})",
        "accept": "sell to the best bidder or to the bank",
        "mail": "choose the corporation that goes bankrupt",
    }.get(deciding or "")
    if deciding == "licence" and space in b.countries:
        choice = f"buy the {b.countries[space].name} Business Licence or not"
    elif deciding == "service" and space in b.services:
        choice = f"buy {b.services[space].name} or not"
    if choice is None:
        return ""
    whose = "your" if actor == state.turn else f"{names[state.turn]}'s"
    return f"Now it is {whose} choice: {choice}."


def _name_problem(action: Action) -> str | None:
    """A name that is wrong at any moment: said before the moment is."""
    if isinstance(action, Setup | Convert | Travel | Downgrade):
        return country_problem(action.country)
    if isinstance(action, AuctionOff | SellToBank):
        return asset_problem(action.asset)
    if isinstance(action, Remove):
        return asset_problem(action.country)
    return None


def misplaced(state: BusinessGoState, actor: Seat, action: Action, where: tuple[str, ...]) -> str:
    """Why a move is refused while a decision that does not take it is open (``where``: the
    decisions that do): whose turn it is, a name that is wrong at any moment, then what the
    moment is for."""
    now = moment(state, actor)
    if state.bankrupt[actor]:
        return BANKRUPT
    if isinstance(action, Join):
        return f"No sales competition is open. {now}"
    if isinstance(action, Bid):
        return "No auction is open: bids come when a player in debt auctions something. " + now
    if actor != state.turn:
        return f"It is {possessive(state.names[state.turn])} turn, not yours."
    if problem := _name_problem(action):
        return problem
    if isinstance(action, Roll):
        return f"You have rolled already this turn. {now}"
    if isinstance(action, Pass):
        return {
            "turn": "Roll the dice to play your turn (set up and convert first if you like).",
            "debt": "You must raise money first: the game goes on once your debt is paid. "
            f"You can {debt_ways(state, actor)}.",
            "mail": "Choose the corporation that goes bankrupt.",
            "accept": "Take the best bid, or sell to the bank instead.",
        }.get(state.deciding or "", f"You cannot pass now. {now}".strip())
    doing = _DOING.get(type(action), "do that")
    if "turn" in where:
        # Every other moment of one's own turn comes after the roll.
        return (
            f"You have rolled already: you can {doing} only before the roll, on your next "
            f"turn. {now}"
        )
    deciding = state.deciding
    if deciding in ("compete", "auction"):
        # What the turn goes on with once the window closes: an action of that waits for it.
        after = {"accept", "debt"} if deciding == "auction" else {state.after_sales}
        window = "the sales competition" if deciding == "compete" else "the auction"
        if after & set(where):
            return f"Wait for {window} to close. {now}"
    if deciding == "debt":
        return (
            "You must raise money first: the game goes on once your debt is paid. "
            f"You can {debt_ways(state, actor)}."
        )
    return f"{_ONLY.get(where[0], f'You cannot {doing} now.')} {now}".strip()


def debt_ways(state: BusinessGoState, seat: Seat) -> str:
    """How ``seat`` can raise money now, as the end of a sentence ("auction to the other
    players, sell to the bank for half or downgrade an International Corporation"): only the
    ways that are open, since the board and the refusals offer them."""
    auctions, bank_sales, downgrades = _ways(state, seat)
    ways = []
    if auctions:
        ways.append("auction to the other players")
    if bank_sales:
        ways.append("sell to the bank for half")
    if downgrades:
        ways.append("downgrade an International Corporation")
    if not ways:
        return "nothing: with nothing left to sell you go bankrupt"
    return ways[0] if len(ways) == 1 else f"{', '.join(ways[:-1])} or {ways[-1]}"


def competing(state: BusinessGoState) -> list[Seat]:
    """Whom a sales competition waits for: the owners of the product who have not answered."""
    return list(state.sales[0].undecided) if state.sales else []


def bidding(state: BusinessGoState) -> list[Seat]:
    """Whom an auction waits for: the bidders who have not bid or passed."""
    return list(state.auction.undecided) if state.auction else []


def on_turn(state: BusinessGoState) -> list[Seat]:
    """Whom every other decision waits for: the player on turn."""
    return [state.turn]


def seat_out(state: BusinessGoState, seat: Seat) -> bool:
    """A bankrupt player has left the game; their turns are skipped."""
    return state.bankrupt[seat]
