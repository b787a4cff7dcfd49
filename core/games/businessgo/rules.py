"""The reducer: set-up, then each action validated and applied on the engine's private copy."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import TypeVar

from core.engine import Decision, Event, Flow, Play, Plays, Rng, Seat
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
    accept_options,
    always_compete_options,
    always_compete_problem,
    amount_shape,
    anytime,
    asset_value,
    auction_options,
    auction_problem,
    bank_sale_options,
    bank_sale_problem,
    bet_options,
    bet_problem,
    bid_options,
    bid_pass_problem,
    bid_problem,
    bidders,
    bidding,
    buy_options,
    buy_problem,
    competing,
    convert_options,
    convert_problem,
    downgrade_options,
    downgrade_problem,
    join_options,
    join_problem,
    landed_price,
    misplaced,
    not_yours,
    on_turn,
    out_of_the_game,
    pass_options,
    refuse_bids_options,
    refuse_bids_problem,
    removable,
    remove_options,
    remove_problem,
    roll_options,
    sell_options,
    sell_problem,
    setup_options,
    setup_problem,
    stay_out_problem,
    travel_options,
    travel_problem,
)
from core.games.businessgo.state import BusinessGoOptions, BusinessGoState, Corporation
from core.games.businessgo.text import join, money

__all__ = ["FLOW", "automatic", "new_state"]


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
    """``handle`` as a move's apply: counted as a decision the seat was asked unless the game
    would have made it by itself (or it is a ``standing`` choice)."""

    def move(state: BusinessGoState, seat: Seat, action: _T, rng: Rng) -> list[Event]:
        ctx = Ctx(state, rng)
        asked = not standing and automatic(state) != (seat, action)
        with suppress(flow.GoalMade):
            handle(ctx, seat, action)
        if asked:
            if not state.asked:
                state.asked = [0] * state.players
            state.asked[seat] += 1
        return _report(ctx, action.type)

    return move


# --- before rolling ------------------------------------------------------------------------


def _setup(ctx: Ctx, seat: Seat, action: Setup) -> None:
    state = ctx.state
    country = board().countries[action.country]
    state.corporations[action.country] = Corporation(country=action.country, owner=seat)
    ctx.pay(seat, -country.start_up, "start_up")
    product = board().products[country.product].name
    ctx.say(
        f"{ctx.name(seat)} sets up a National Corporation in {country.name} "
        f"({product}) for {money(country.start_up)}."
    )
    flow.decide(ctx, "turn")


def _convert(ctx: Ctx, seat: Seat, action: Convert) -> None:
    country = board().countries[action.country]
    ctx.state.corporations[action.country].international = True
    ctx.pay(seat, -country.conversion, "conversion")
    ctx.say(
        f"{ctx.name(seat)} converts the corporation in {country.name} into an International "
        f"Corporation for {money(country.conversion)}."
    )
    flow.decide(ctx, "turn")


def _roll(ctx: Ctx, seat: Seat, action: Roll) -> None:
    a, b = ctx.dice()
    ctx.state.dice = [a, b]
    ctx.dice_rolled = (a, b)
    ctx.say(f"{ctx.name(seat)} rolls {a}+{b} = {a + b}.")
    flow.move(ctx, a + b)


# --- on a space ----------------------------------------------------------------------------


def _buy(ctx: Ctx, seat: Seat, action: Buy) -> None:
    state = ctx.state
    b = board()
    space = b.spaces[state.position[seat]]
    price = landed_price(state)
    if state.deciding == "licence":
        state.licences[space] = seat
        ctx.pay(seat, -price, "licence")
        label = f"the {b.countries[space].name} Business Licence"
    else:
        state.services[space] = seat
        ctx.pay(seat, -price, "service")
        label = b.services[space].name
    ctx.say(f"{ctx.name(seat)} buys {label} for {money(price)}.")
    flow.end_turn(ctx)


_DECLINED = {
    "licence": "{} does not buy the licence.",
    "service": "{} does not buy the Service Industry.",
    "boom": "{} ends the Boom.",
    "casino": "{} leaves the Casino.",
    "travel": "{} stays at the Travel Agency.",
}
"""What passing says, by the decision it declines."""


def _pass(ctx: Ctx, seat: Seat, action: Pass) -> None:
    """Decline, stop or stay: the turn ends."""
    said = _DECLINED.get(ctx.state.deciding or "", "{} passes.")
    ctx.say(said.format(ctx.name(seat)))
    flow.end_turn(ctx)


def _sell(ctx: Ctx, seat: Seat, action: Sell) -> None:
    state = ctx.state
    state.boom_sold.append(action.product)
    state.boom_left -= 1
    state.sales = []
    flow.queue_sale(ctx, action.product, None)
    state.after_sales = "boom"
    flow.continue_sales(ctx)


def _bet(ctx: Ctx, seat: Seat, action: Bet) -> None:
    state = ctx.state
    b = board()
    amount = action.amount
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
    b = board()
    ctx.pay(seat, -b.travel_fare, "travel")
    ctx.say(
        f"{ctx.name(seat)} pays {money(b.travel_fare)} and travels to "
        f"{b.countries[action.country].name}."
    )
    target = b.index_of(action.country)
    steps = (target - state.position[seat]) % len(b.spaces)
    flow.move(ctx, steps)


# --- windows -------------------------------------------------------------------------------


def _join(ctx: Ctx, seat: Seat, action: Join) -> None:
    sale = ctx.state.sales[0]
    product = board().products[sale.product].name
    sale.joined.append(seat)
    ctx.say(f"{ctx.name(seat)} joins the sales competition for {product}.")
    if not sale.undecided:
        flow.continue_sales(ctx)


def _stay_out(ctx: Ctx, seat: Seat, action: Pass) -> None:
    sale = ctx.state.sales[0]
    sale.declined.append(seat)
    ctx.say(f"{ctx.name(seat)} stays out of the competition.")
    if not sale.undecided:
        flow.continue_sales(ctx)


def _bid(ctx: Ctx, seat: Seat, action: Bid | Pass) -> None:
    """A sealed bid, or a pass (a bid of nothing); the last answer closes the auction."""
    auction = ctx.state.auction
    assert auction is not None
    amount = action.amount if isinstance(action, Bid) else 0
    auction.bids[seat] = amount
    ctx.say(f"{ctx.name(seat)} {'has bid' if amount else 'passes'}.")
    if amount:
        flow.private_note(ctx, seat, f"Your sealed bid: {money(amount)}.")
    if not auction.undecided:
        flow.close_auction(ctx)


# --- debts ---------------------------------------------------------------------------------


def _auction_off(ctx: Ctx, seat: Seat, action: AuctionOff) -> None:
    flow.open_auction(ctx, seat, action.asset, bidders(ctx.state, seat, action.asset))


def _sell_to_bank(ctx: Ctx, seat: Seat, action: SellToBank) -> None:
    flow.sell_to_bank(ctx, seat, action.asset)
    flow.continue_debt(ctx)


def _refuse_bids(ctx: Ctx, seat: Seat, action: SellToBank) -> None:
    flow.refuse_bids(ctx)


def _accept(ctx: Ctx, seat: Seat, action: Accept) -> None:
    flow.accept_bid(ctx)


def _always_compete(ctx: Ctx, seat: Seat, action: AlwaysCompete) -> None:
    """The standing choice: join every sales competition without being asked, or be asked."""
    state = ctx.state
    if not state.ask_compete:
        state.ask_compete = [False] * state.players
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
    sale = state.sales[0] if state.deciding == "compete" and state.sales else None
    if action.always and sale is not None and seat in sale.undecided:
        _join(ctx, seat, Join())
        return
    # A public line for the log: the table sees that nothing in the game moved.
    ctx.say(
        f"{ctx.name(seat)} will "
        + ("join every sales competition." if action.always else "be asked before competing.")
    )


def _downgrade(ctx: Ctx, seat: Seat, action: Downgrade) -> None:
    flow.downgrade(ctx, seat, action.country)
    flow.continue_debt(ctx)


def _remove(ctx: Ctx, seat: Seat, action: Remove) -> None:
    flow.remove_corporation(ctx, seat, action.country)
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


def _yours(
    handle: Callable[[Ctx], None], plays: Plays[BusinessGoState]
) -> Decision[BusinessGoState]:
    """A decision of the player on turn, with the moves it takes: the turn's clock, and
    ``handle`` when it runs out."""
    return Decision(
        plays=plays,
        who=not_yours,
        waits=on_turn,
        seconds=lambda state: state.options.turn_seconds,
        timeout=_runs_out(handle),
    )


_PASS: Plays[BusinessGoState] = {Pass: Play(check=anytime, apply=_move(_pass), offers=pass_options)}
"""Declining: the last choice of every decision on a space (not buying, stopping, staying)."""


FLOW: Flow[BusinessGoState, Action] = Flow(
    decisions={
        "turn": _yours(
            _rolls,
            {
                Setup: Play(check=setup_problem, apply=_move(_setup), offers=setup_options),
                Convert: Play(check=convert_problem, apply=_move(_convert), offers=convert_options),
                Roll: Play(check=anytime, apply=_move(_roll), offers=roll_options),
            },
        ),
        "licence": _yours(
            _passes,
            {Buy: Play(check=buy_problem, apply=_move(_buy), offers=buy_options), **_PASS},
        ),
        "service": _yours(
            _passes,
            {Buy: Play(check=buy_problem, apply=_move(_buy), offers=buy_options), **_PASS},
        ),
        "boom": _yours(
            _passes,
            {Sell: Play(check=sell_problem, apply=_move(_sell), offers=sell_options), **_PASS},
        ),
        "casino": _yours(
            _passes,
            {
                Bet: Play(
                    check=bet_problem, apply=_move(_bet), offers=bet_options, shape=amount_shape
                ),
                **_PASS,
            },
        ),
        "travel": _yours(
            _passes,
            {
                Travel: Play(check=travel_problem, apply=_move(_travel), offers=travel_options),
                **_PASS,
            },
        ),
        "debt": _yours(
            _pays_the_debt,
            {
                Downgrade: Play(
                    check=downgrade_problem, apply=_move(_downgrade), offers=downgrade_options
                ),
                SellToBank: Play(
                    check=bank_sale_problem, apply=_move(_sell_to_bank), offers=bank_sale_options
                ),
                AuctionOff: Play(
                    check=auction_problem, apply=_move(_auction_off), offers=auction_options
                ),
            },
        ),
        "accept": _yours(
            _takes_the_best_bid,
            {
                Accept: Play(check=anytime, apply=_move(_accept), offers=accept_options),
                SellToBank: Play(
                    check=refuse_bids_problem,
                    apply=_move(_refuse_bids),
                    offers=refuse_bids_options,
                ),
            },
        ),
        "mail": _yours(
            _loses_the_cheapest,
            {Remove: Play(check=remove_problem, apply=_move(_remove), offers=remove_options)},
        ),
        "compete": Decision(
            plays={
                Join: Play(check=join_problem, apply=_move(_join), offers=join_options),
                Pass: Play(check=stay_out_problem, apply=_move(_stay_out), offers=pass_options),
            },
            who=out_of_the_game,
            waits=competing,
            seconds=lambda state: state.options.compete_seconds,
            timeout=_runs_out(flow.close_competition),
        ),
        "auction": Decision(
            plays={
                Bid: Play(
                    check=bid_problem, apply=_move(_bid), offers=bid_options, shape=amount_shape
                ),
                Pass: Play(check=bid_pass_problem, apply=_move(_bid), offers=pass_options),
            },
            who=out_of_the_game,
            waits=bidding,
            seconds=lambda state: state.options.auction_seconds,
            timeout=_runs_out(_bids_close),
        ),
    },
    standing={
        AlwaysCompete: Play(
            check=always_compete_problem,
            apply=_move(_always_compete, standing=True),
            offers=always_compete_options,
        ),
    },
    misplaced=misplaced,
)
"""What may be played when, one decision a moment of the turn: the player on turn's, with the
turn's clock and the least harmful choice when it runs out (roll, decline, stop, stay, pay the
debt, take the best bid, lose the cheapest corporation), and the windows the other players
answer at once, a sales competition and an auction, each with its own clock, closed when it
runs out; and, at any time, the standing choice to join every sales competition."""


def automatic(state: BusinessGoState) -> tuple[Seat, Action] | None:
    """The move made for a seat by itself (option ``auto_moves``): the only move the open
    decision asks of a seat it waits for."""
    if not state.options.auto_moves or state.finished:
        return None
    for seat in FLOW.waiting_for(state):
        asked = FLOW.asked(state, seat)
        if len(asked) == 1:
            return seat, asked[0]
    return None
