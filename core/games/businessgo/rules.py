"""The reducer: set-up, then each action validated and applied on the engine's private copy."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import TypeVar

from core.engine import Decision, Event, IllegalAction, Moves, Rng, Seat
from core.games.businessgo import flow
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
from core.games.businessgo.flow import Ctx
from core.games.businessgo.legal import (
    asset_value,
    assets_of,
    automatic,
    bidders,
    bidding,
    boom_products,
    competing,
    debt_ways,
    floor_of,
    landed_price,
    on_burnout,
    on_turn,
    removable,
    selling_corporations,
)
from core.games.businessgo.state import BusinessGoOptions, BusinessGoState, Corporation
from core.games.businessgo.text import join, money
from core.text import escape, possessive

__all__ = ["DECISIONS", "MOVES", "new_state"]


def new_state(names: Sequence[str], options: BusinessGoOptions, rng: Rng) -> BusinessGoState:
    b = board()
    n = len(names)
    mail = [c.id for c in b.mail_card]
    fees = [c.id for c in b.fee_card]
    rng.shuffle(mail)
    rng.shuffle(fees)
    state = BusinessGoState(
        names=list(names),
        options=options,
        cash=[b.start_cash] * n,
        position=[0] * n,
        bankrupt=[False] * n,
        burnout=[0] * n,
        mail=mail,
        fees=fees,
        ask_compete=[not options.always_compete] * n,
        asked=[0] * n,
    )
    state.opening = flow.opening_roll(state, rng)
    ctx = Ctx(state, rng)
    flow.decide(ctx, "turn")
    return state


def _report(ctx: Ctx, kind: str) -> list[Event]:
    """The events of an action of this ``kind`` (its ``type``, or ``timeout``), once the game
    has checked for a winner."""
    flow.check_winner(ctx)
    return ctx.events(kind)


_T = TypeVar("_T", bound=Action)


def _move(
    handle: Callable[[Ctx, Seat, _T], None], standing: bool = False
) -> Callable[[BusinessGoState, Seat, _T, Rng], list[Event]]:
    """``handle`` as a move: from a seat that may act now (a ``standing`` choice, at any time),
    counted as a decision the seat was asked unless the game would have made it by itself."""

    def move(state: BusinessGoState, seat: Seat, action: _T, rng: Rng) -> list[Event]:
        ctx = Ctx(state, rng)
        if standing:
            with suppress(flow.GoalMade):
                handle(ctx, seat, action)
            return _report(ctx, action.type)
        _check_actor(state, seat, action)
        asked = automatic(state) != (seat, action)
        with suppress(flow.GoalMade):
            handle(ctx, seat, action)
        if asked:
            if not state.asked:
                state.asked = [0] * state.players
            state.asked[seat] += 1
        return _report(ctx, action.type)

    return move


def _check_actor(state: BusinessGoState, actor: Seat, action: Action) -> None:
    if state.bankrupt[actor]:
        raise IllegalAction("You are bankrupt and out of this game.")
    if isinstance(action, Join):
        if state.phase != "compete":
            raise IllegalAction(f"No sales competition is open. {_moment(state, actor)}")
        return
    if isinstance(action, Bid):
        if state.phase != "auction":
            raise IllegalAction(
                "No auction is open: bids come when a player in debt auctions something. "
                + _moment(state, actor)
            )
        return
    if isinstance(action, Pass) and state.phase in ("compete", "auction"):
        return
    if actor != state.turn:
        raise IllegalAction(f"It is {possessive(state.names[state.turn])} turn, not yours.")


_ONLY = {
    "licence": "You can buy only the licence or Service Industry you have just landed on.",
    "boom": "You can choose Boom sales only when you land on the Boom space.",
    "casino": "You can bet only when you land on the Casino.",
    "travel": "You can travel only from the Travel Agency.",
    "debt": "You can do that only to pay a debt.",
    "accept": "You can accept a bid only when your auction has closed.",
    "mail": "Only a Mail card makes a corporation go bankrupt.",
}
"""Why an action is refused outside its phase, by the phase it belongs to."""


def _moment(state: BusinessGoState, actor: Seat) -> str:
    """What the game decides now, as a sentence: a refusal at the wrong moment says what the
    moment is for, so the player knows what to do instead."""
    b = board()
    names = state.names
    phase = state.phase
    if phase == "compete" and state.sales:
        asked = list(state.sales[0].undecided)
        who = join(["you" if s == actor else names[s] for s in asked]) or "nobody"
        return f"Now the sales competition is open: {who} may join it or stay out."
    if phase == "auction" and state.auction is not None:
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
    }.get(phase)
    if phase == "licence" and space in b.countries:
        choice = f"buy the {b.countries[space].name} Business Licence or not"
    elif phase == "service" and space in b.services:
        choice = f"buy {b.services[space].name} or not"
    if choice is None:
        return ""
    whose = "your" if actor == state.turn else f"{names[state.turn]}'s"
    return f"Now it is {whose} choice: {choice}."


def _phase(state: BusinessGoState, actor: Seat, *phases: str, doing: str) -> None:
    if state.phase in phases:
        return
    now = _moment(state, actor)
    if "turn" in phases:
        # Every other moment of one's own turn comes after the roll.
        raise IllegalAction(
            f"You have rolled already: you can {doing} only before the roll, on your next "
            f"turn. {now}"
        )
    if state.phase in ("compete", "auction"):
        # What the turn goes on with once the window closes: an action of that waits for it.
        after = {"accept", "debt"} if state.phase == "auction" else {state.after_sales}
        window = "the sales competition" if state.phase == "compete" else "the auction"
        if after & set(phases):
            raise IllegalAction(f"Wait for {window} to close. {now}")
    if state.phase == "debt" and "debt" not in phases:
        raise IllegalAction(
            "You must raise money first: the game goes on once your debt is paid. "
            f"You can {debt_ways(state, actor)}."
        )
    raise IllegalAction(f"{_ONLY.get(phases[0], f'You cannot {doing} now.')} {now}".strip())


# --- before rolling ------------------------------------------------------------------------


def _country(country_id: str) -> str:
    key = country_id.strip().lower().replace(" ", "_").replace("-", "_")
    countries = board().countries
    if key in countries:
        return key
    for cid, country in countries.items():
        if country.name.lower() == country_id.strip().lower():
            return cid
    raise IllegalAction(
        f"There is no country called “{escape(country_id)}”: the board's track names every "
        "country (`/businessgo status` shows it)."
    )


def _no_investing_on_burnout(state: BusinessGoState, seat: Seat) -> None:
    if on_burnout(state, seat):
        raise IllegalAction(
            "You are on the Burnout space: you cannot invest until your piece moves off it."
        )


def _setup(ctx: Ctx, seat: Seat, action: Setup) -> None:
    state = ctx.state
    cid = _country(action.country)  # a name that is wrong at any moment is said first
    _phase(state, seat, "turn", doing="set up a corporation")
    country = board().countries[cid]
    if cid in state.closed:
        raise IllegalAction(
            f"{possessive(country.name)} corporation went bankrupt; no corporation can be set up "
            "there again."
        )
    if state.licences.get(cid) != seat:
        raise IllegalAction(f"You need the {country.name} Business Licence to set up there.")
    if cid in state.corporations:
        raise IllegalAction(
            f"There is already a corporation in {country.name}; a country never takes a second."
        )
    _no_investing_on_burnout(state, seat)
    if state.cash[seat] < country.start_up:
        raise IllegalAction(
            f"A National Corporation in {country.name} costs {money(country.start_up)}; "
            f"you have {money(state.cash[seat])}."
        )
    state.corporations[cid] = Corporation(country=cid, owner=seat)
    ctx.pay(seat, -country.start_up, "start_up")
    product = board().products[country.product].name
    ctx.say(
        f"{ctx.name(seat)} sets up a National Corporation in {country.name} "
        f"({product}) for {money(country.start_up)}."
    )
    flow.decide(ctx, "turn")


def _convert(ctx: Ctx, seat: Seat, action: Convert) -> None:
    state = ctx.state
    cid = _country(action.country)
    _phase(state, seat, "turn", doing="convert a corporation")
    country = board().countries[cid]
    corp = state.corporations.get(cid)
    if corp is None or corp.owner != seat:
        raise IllegalAction(f"You own no corporation in {country.name}.")
    if corp.international:
        raise IllegalAction(f"Your corporation in {country.name} is already International.")
    if not corp.chimney:
        raise IllegalAction(
            f"Your corporation in {country.name} has not made a sale yet (no white chimney), "
            "so it cannot go International."
        )
    _no_investing_on_burnout(state, seat)
    if state.cash[seat] < country.conversion:
        raise IllegalAction(
            f"Converting {country.name} costs {money(country.conversion)}; "
            f"you have {money(state.cash[seat])}."
        )
    corp.international = True
    ctx.pay(seat, -country.conversion, "conversion")
    ctx.say(
        f"{ctx.name(seat)} converts the corporation in {country.name} into an International "
        f"Corporation for {money(country.conversion)}."
    )
    flow.decide(ctx, "turn")


def _roll(ctx: Ctx, seat: Seat, action: Roll) -> None:
    state = ctx.state
    if state.phase != "turn":
        raise IllegalAction(f"You have rolled already this turn. {_moment(state, seat)}")
    a, b = ctx.dice()
    state.dice = [a, b]
    ctx.dice_rolled = (a, b)
    ctx.say(f"{ctx.name(seat)} rolls {a}+{b} = {a + b}.")
    flow.move(ctx, a + b)


# --- on a space ----------------------------------------------------------------------------


def _buy(ctx: Ctx, seat: Seat, action: Buy) -> None:
    state = ctx.state
    _phase(state, seat, "licence", "service", doing="buy anything")
    b = board()
    space = b.spaces[state.position[seat]]
    price = landed_price(state)
    label = (
        f"the {b.countries[space].name} Business Licence"
        if state.phase == "licence"
        else b.services[space].name
    )
    if state.cash[seat] < price:
        raise IllegalAction(
            f"{label[0].upper()}{label[1:]} costs {money(price)}; you have "
            f"{money(state.cash[seat])}."
        )
    if state.phase == "licence":
        state.licences[space] = seat
        ctx.pay(seat, -price, "licence")
    else:
        state.services[space] = seat
        ctx.pay(seat, -price, "service")
    ctx.say(f"{ctx.name(seat)} buys {label} for {money(price)}.")
    flow.end_turn(ctx)


def _pass(ctx: Ctx, seat: Seat, action: Pass) -> None:
    state = ctx.state
    name = ctx.name(seat)
    if state.phase == "compete":
        sale = state.sales[0]
        if seat not in sale.undecided:
            raise IllegalAction("You are not deciding on this sales competition.")
        sale.declined.append(seat)
        ctx.say(f"{name} stays out of the competition.")
        if not sale.undecided:
            flow.continue_sales(ctx)
        return
    if state.phase == "auction":
        _bid_or_pass(ctx, seat, 0)
        return
    if state.phase == "turn":
        raise IllegalAction(
            "Roll the dice to play your turn (set up and convert first if you like)."
        )
    if state.phase in ("debt", "mail", "accept"):
        raise IllegalAction(
            {
                "debt": "You must raise money first: the game goes on once your debt is paid. "
                f"You can {debt_ways(state, seat)}.",
                "mail": "Choose the corporation that goes bankrupt.",
                "accept": "Take the best bid, or sell to the bank instead.",
            }[state.phase]
        )
    said = {
        "licence": f"{name} does not buy the licence.",
        "service": f"{name} does not buy the Service Industry.",
        "boom": f"{name} ends the Boom.",
        "casino": f"{name} leaves the Casino.",
        "travel": f"{name} stays at the Travel Agency.",
    }
    ctx.say(said.get(state.phase, f"{name} passes."))
    flow.end_turn(ctx)


def _sell(ctx: Ctx, seat: Seat, action: Sell) -> None:
    state = ctx.state
    _phase(state, seat, "boom", doing="choose a Boom sale")
    product = action.product
    products = board().products
    if product not in products:
        raise IllegalAction(f"There is no product called “{escape(product)}”.")
    if product in state.boom_sold:
        raise IllegalAction(f"You already sold {products[product].name} in this Boom.")
    if not selling_corporations(state, seat, product, None):
        raise IllegalAction(f"You own no corporation that can sell {products[product].name} here.")
    assert product in boom_products(state, seat)
    state.boom_sold.append(product)
    state.boom_left -= 1
    state.sales = []
    flow.queue_sale(ctx, product, None)
    state.after_sales = "boom"
    flow.continue_sales(ctx)


def _bet(ctx: Ctx, seat: Seat, action: Bet) -> None:
    state = ctx.state
    _phase(state, seat, "casino", doing="bet")
    b = board()
    amount = action.amount
    if amount < b.casino_minimum:
        raise IllegalAction(
            f"You bet {money(amount)}, but the smallest bet is {money(b.casino_minimum)}."
        )
    if amount > b.casino_limit:
        raise IllegalAction(
            f"You bet {money(amount)}, but the largest bet is {money(b.casino_limit)}."
        )
    if amount > state.cash[seat]:
        raise IllegalAction(f"You cannot bet {money(amount)}: you have {money(state.cash[seat])}.")
    ctx.pay(seat, -amount, "casino_bet")
    d1, d2 = ctx.dice()
    ctx.casino = (d1, d2)
    state.casino_bets += 1
    name = ctx.name(seat)
    if d1 == d2:
        ctx.pay(seat, 3 * amount, "casino_win")
        ctx.say(
            f"{name} bets {money(amount)} and rolls {d1}+{d2}, doubles: wins {money(3 * amount)}!"
        )
    elif (d1 + d2) % 2 == 0:
        ctx.pay(seat, 2 * amount, "casino_win")
        ctx.say(
            f"{name} bets {money(amount)} and rolls {d1}+{d2} = {d1 + d2}, even: "
            f"wins {money(2 * amount)}."
        )
    else:
        ctx.say(
            f"{name} bets {money(amount)} and rolls {d1}+{d2} = {d1 + d2}, odd: loses the bet. "
            "The Casino is closed until the next visit."
        )
        flow.end_turn(ctx)
        return
    if state.cash[seat] >= b.casino_minimum:
        flow.decide(ctx, "casino")
    else:
        flow.end_turn(ctx)


def _travel(ctx: Ctx, seat: Seat, action: Travel) -> None:
    state = ctx.state
    cid = _country(action.country)
    _phase(state, seat, "travel", doing="travel")
    b = board()
    if state.cash[seat] < b.travel_fare:
        raise IllegalAction(
            f"The fare is {money(b.travel_fare)}; you have {money(state.cash[seat])}."
        )
    ctx.pay(seat, -b.travel_fare, "travel")
    ctx.say(f"{ctx.name(seat)} pays {money(b.travel_fare)} and travels to {b.countries[cid].name}.")
    target = b.index_of(cid)
    steps = (target - state.position[seat]) % len(b.spaces)
    flow.move(ctx, steps)


# --- windows -------------------------------------------------------------------------------


def _join(ctx: Ctx, seat: Seat, action: Join) -> None:
    state = ctx.state
    sale = state.sales[0]
    product = board().products[sale.product].name
    if seat == sale.seller:
        raise IllegalAction("You are the seller; the others compete with you.")
    if seat not in sale.eligible:
        if state.burnout[seat]:
            raise IllegalAction("You are on Burnout and cannot enter a sales competition.")
        raise IllegalAction(f"You own no corporation that can sell {product} here.")
    if seat not in sale.undecided:
        raise IllegalAction("You have already answered this sales competition.")
    sale.joined.append(seat)
    ctx.say(f"{ctx.name(seat)} joins the sales competition for {product}.")
    if not sale.undecided:
        flow.continue_sales(ctx)


def _bid(ctx: Ctx, seat: Seat, action: Bid) -> None:
    auction = ctx.state.auction
    assert auction is not None
    _may_answer(ctx.state, seat)
    if action.amount < auction.floor:
        raise IllegalAction(
            f"Your bid of {money(action.amount)} is below the smallest bid, the bank's price "
            f"of {money(auction.floor)}: below it {ctx.name(auction.seller)} would sell to "
            "the bank."
        )
    _bid_or_pass(ctx, seat, action.amount)


def _may_answer(state: BusinessGoState, seat: Seat) -> None:
    """Refuse a bid or pass from someone the open auction does not ask, saying why."""
    auction = state.auction
    assert auction is not None
    if seat == auction.seller:
        raise IllegalAction("You cannot bid in your own auction.")
    if seat not in auction.eligible:
        if on_burnout(state, seat):
            raise IllegalAction(
                "You are on the Burnout space: you cannot bid until your piece moves off it."
            )
        if state.cash[seat] < auction.floor:
            raise IllegalAction(
                f"You cannot bid: the smallest bid is the bank's price, {money(auction.floor)}, "
                f"and you have {money(state.cash[seat])}."
            )
        raise IllegalAction("You were not asked to bid in this auction.")
    if seat not in auction.undecided:
        raise IllegalAction("You have already answered this auction.")


def _bid_or_pass(ctx: Ctx, seat: Seat, amount: int) -> None:
    state = ctx.state
    auction = state.auction
    assert auction is not None
    _may_answer(state, seat)
    if amount > state.cash[seat]:
        raise IllegalAction(f"You cannot bid {money(amount)}: you have {money(state.cash[seat])}.")
    auction.bids[seat] = amount
    ctx.say(f"{ctx.name(seat)} {'has bid' if amount else 'passes'}.")
    if amount:
        flow.private_note(ctx, seat, f"Your sealed bid: {money(amount)}.")
    if not auction.undecided:
        flow.close_auction(ctx)


# --- debts ---------------------------------------------------------------------------------


def _asset(asset: str) -> str:
    """A country or Service Industry by id or name."""
    b = board()
    key = asset.strip().lower().replace(" ", "_").replace("-", "_")
    for sid, service in b.services.items():
        if key in (sid, service.name.lower().replace(" ", "_").replace("-", "_")):
            return sid
    try:
        return _country(asset)
    except IllegalAction:
        raise IllegalAction(
            f"There is no country or Service Industry called “{escape(asset)}”: "
            "`/businessgo hand` lists yours."
        ) from None


def _own(state: BusinessGoState, seat: Seat, asset: str) -> None:
    if asset not in assets_of(state, seat):
        raise IllegalAction(
            f"You do not own {_label(asset)}: `/businessgo hand` lists what you own."
        )


def _label(asset: str) -> str:
    b = board()
    return b.services[asset].name if asset in b.services else b.countries[asset].name


def _auction_off(ctx: Ctx, seat: Seat, action: AuctionOff) -> None:
    state = ctx.state
    asset = _asset(action.asset)
    _phase(state, seat, "debt", doing="auction")
    _own(state, seat, asset)
    if asset in state.unsold:
        raise IllegalAction(
            f"Nobody bid for {_label(asset)} in this debt, so it cannot be auctioned again; "
            f"you can {debt_ways(state, seat)}."
        )
    eligible = bidders(state, seat, asset)
    if not eligible:
        raise IllegalAction(
            f"Nobody else can pay the bank's price for {_label(asset)} "
            f"({money(floor_of(state, asset))}) now; you can {debt_ways(state, seat)}."
        )
    flow.open_auction(ctx, seat, asset, eligible)


def _sell_to_bank(ctx: Ctx, seat: Seat, action: SellToBank) -> None:
    state = ctx.state
    asset = _asset(action.asset)
    _phase(state, seat, "debt", "accept", doing="sell to the bank")
    _own(state, seat, asset)
    if state.phase == "accept":
        assert state.auction is not None
        if asset != state.auction.asset:
            raise IllegalAction(
                "Take the best bid or sell the auctioned asset to the bank; other sales wait."
            )
        flow.refuse_bids(ctx)
        return
    flow.sell_to_bank(ctx, seat, asset)
    flow.continue_debt(ctx)


def _accept(ctx: Ctx, seat: Seat, action: Accept) -> None:
    _phase(ctx.state, seat, "accept", doing="accept a bid")
    flow.accept_bid(ctx)


def _always_compete(ctx: Ctx, seat: Seat, action: AlwaysCompete) -> None:
    """The standing choice: join every sales competition without being asked, or be asked."""
    state = ctx.state
    if state.bankrupt[seat]:
        raise IllegalAction("You are bankrupt and out of this game.")
    if not state.ask_compete:
        state.ask_compete = [False] * state.players
    if state.always_competes(seat) == action.always:
        raise IllegalAction(
            "You already join every sales competition you may enter."
            if action.always
            else "You are already asked before each sales competition."
        )
    state.ask_compete[seat] = not action.always
    if action.always:
        flow.private_note(
            ctx,
            seat,
            "From now on you join every sales competition you may enter, without being asked "
            "(`/businessgo compete ask` to be asked again).",
        )
    else:
        flow.private_note(
            ctx,
            seat,
            "From now on you are asked before each sales competition "
            "(`/businessgo compete always` to join them all).",
        )
    sale = state.sales[0] if state.phase == "compete" and state.sales else None
    if action.always and sale is not None and seat in sale.undecided:
        _join(ctx, seat, Join())
        return
    # A public line for the log: the table sees that nothing in the game moved.
    ctx.say(
        f"{ctx.name(seat)} will "
        + ("join every sales competition." if action.always else "be asked before competing.")
    )


def _downgrade(ctx: Ctx, seat: Seat, action: Downgrade) -> None:
    state = ctx.state
    cid = _country(action.country)
    _phase(state, seat, "debt", doing="downgrade")
    corp = state.corporations.get(cid)
    if corp is None or corp.owner != seat or not corp.international:
        name = board().countries[cid].name
        raise IllegalAction(
            f"You own no International Corporation in {name}; you can {debt_ways(state, seat)}."
        )
    flow.downgrade(ctx, seat, cid)
    flow.continue_debt(ctx)


def _remove(ctx: Ctx, seat: Seat, action: Remove) -> None:
    state = ctx.state
    asset = _asset(action.country)
    _phase(state, seat, "mail", doing="remove a corporation")
    if asset not in removable(state, seat):
        raise IllegalAction(
            f"{_label(asset)} is not one of your corporations: `/businessgo hand` lists yours."
        )
    flow.remove_corporation(ctx, seat, asset)
    flow.end_turn(ctx)


# --- timeouts ------------------------------------------------------------------------------


def _runs_out(handle: Callable[[Ctx], None]) -> Callable[[BusinessGoState, Rng], list[Event]]:
    """A decision's timeout: ``handle`` makes the least harmful choice, reported as the
    clock's (``timeout``)."""

    def timed_out(state: BusinessGoState, rng: Rng) -> list[Event]:
        ctx = Ctx(state, rng)
        with suppress(flow.GoalMade):
            handle(ctx)
        return _report(ctx, "timeout")

    return timed_out


def _bids_close(ctx: Ctx) -> None:
    auction = ctx.state.auction
    assert auction is not None
    late = auction.undecided
    if late:
        verb = "passes" if len(late) == 1 else "pass"
        ctx.say(f"Time is up for bids: {join([ctx.name(s) for s in late])} {verb}.")
    flow.close_auction(ctx)


def _rolls(ctx: Ctx) -> None:
    seat = ctx.state.turn
    ctx.say(f"Time is up: {ctx.name(seat)} rolls.")
    _roll(ctx, seat, Roll())


def _pays_the_debt(ctx: Ctx) -> None:
    state, seat = ctx.state, ctx.state.turn
    downgrades = any(c.international for c in state.corporations_of(seat))
    ctx.say(
        f"Time is up: {ctx.name(seat)} "
        + ("downgrades and sells" if downgrades else "sells")
        + " to the bank, cheapest first, until the debt is paid."
    )
    flow.settle_debt_by_default(ctx)


def _takes_the_best_bid(ctx: Ctx) -> None:
    ctx.say(f"Time is up: {ctx.name(ctx.state.turn)} takes the best bid.")
    flow.accept_bid(ctx)


def _loses_the_cheapest(ctx: Ctx) -> None:
    state, seat = ctx.state, ctx.state.turn
    cheapest = min(removable(state, seat), key=lambda a: (asset_value(state, a), a))
    ctx.say(f"Time is up: {ctx.name(seat)} loses the cheapest corporation.")
    flow.remove_corporation(ctx, seat, cheapest)
    flow.end_turn(ctx)


def _passes(ctx: Ctx) -> None:
    seat = ctx.state.turn
    ctx.say(f"Time is up for {ctx.name(seat)}.")
    _pass(ctx, seat, Pass())


def _yours(handle: Callable[[Ctx], None]) -> Decision[BusinessGoState]:
    """A decision of the player on turn: the turn's clock, and ``handle`` when it runs out."""
    return Decision(
        waits=on_turn, seconds=lambda state: state.options.turn_seconds, timeout=_runs_out(handle)
    )


DECISIONS: dict[str, Decision[BusinessGoState]] = {
    "turn": _yours(_rolls),
    "licence": _yours(_passes),
    "service": _yours(_passes),
    "boom": _yours(_passes),
    "casino": _yours(_passes),
    "travel": _yours(_passes),
    "debt": _yours(_pays_the_debt),
    "accept": _yours(_takes_the_best_bid),
    "mail": _yours(_loses_the_cheapest),
    "compete": Decision(
        waits=competing,
        seconds=lambda state: state.options.compete_seconds,
        timeout=_runs_out(flow.close_competition),
    ),
    "auction": Decision(
        waits=bidding,
        seconds=lambda state: state.options.auction_seconds,
        timeout=_runs_out(_bids_close),
    ),
}
"""The decisions the game waits on, one a phase: the player on turn's, with the turn's clock
and the least harmful choice when it runs out (roll, decline, stop, stay, pay the debt, take
the best bid, lose the cheapest corporation), and the windows the other players answer at
once, a sales competition and an auction, each with its own clock, closed when it runs out."""


MOVES: Moves[BusinessGoState] = {
    Roll: _move(_roll),
    Setup: _move(_setup),
    Convert: _move(_convert),
    Buy: _move(_buy),
    Pass: _move(_pass),
    Sell: _move(_sell),
    Bet: _move(_bet),
    Travel: _move(_travel),
    Join: _move(_join),
    Bid: _move(_bid),
    Accept: _move(_accept),
    AuctionOff: _move(_auction_off),
    SellToBank: _move(_sell_to_bank),
    Downgrade: _move(_downgrade),
    Remove: _move(_remove),
    AlwaysCompete: _move(_always_compete, standing=True),
}
"""The moves, by the action each applies (a ``Timeout`` is its decision's, :data:`DECISIONS`)."""
