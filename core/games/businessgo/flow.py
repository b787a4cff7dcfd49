"""The automatic steps between player decisions: moving, the spaces, sales and competitions,
auctions, debts, turns and the end of the game.

Every function works in place on the reducer's private copy of the state through a :class:`Ctx`,
which collects the sentences of the one public message an action makes and every payment.

A debt is settled as soon as it arises ("immediately before continuing the game"): a payment
that leaves the player on turn below zero opens the debt at once, and the game goes on from
where it stopped (the rest of a move, or the end of the turn) when the debt is paid.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from core.engine import Audience, Ending, Event, Outcome, Rng, Seat, Standing, open_decision, rank
from core.games.businessgo.board import board
from core.games.businessgo.events import REPORTS, Payback, PrivateNote, SaleMade, Transfer
from core.games.businessgo.legal import (
    asset_name,
    asset_value,
    assets_of,
    bank_price,
    boom_products,
    competitors,
    corporation_count,
    debt_ways,
    floor_of,
    removable,
    sale_amount,
    selling_corporations,
    units,
)
from core.games.businessgo.state import Auction, BusinessGoState, Sale
from core.games.businessgo.text import join, money, plural
from core.text import possessive
from core.turns import after

__all__ = [
    "PAYMENT_REASONS",
    "Ctx",
    "GoalMade",
    "accept_bid",
    "begin_turn",
    "check_winner",
    "close_auction",
    "close_competition",
    "competitor_corporations",
    "continue_debt",
    "continue_sales",
    "decide",
    "downgrade",
    "end_turn",
    "finish",
    "holdings",
    "move",
    "open_auction",
    "opening_roll",
    "private_note",
    "queue_sale",
    "ranking",
    "refuse_bids",
    "release",
    "remove_corporation",
    "sell_to_bank",
    "settle_debt_by_default",
    "start_debt",
]

PAYMENT_REASONS = {
    "licence",
    "start_up",
    "conversion",
    "sale",
    "pass_start",
    "land_start",
    "operating_fees",
    "service_fee",
    "service",
    "charity",
    "ecology",
    "mail",
    "casino_bet",
    "casino_win",
    "travel",
    "bank_sale",
    "downgrade",
    "auction",
    "written_off",
}
"""Every reason money moves, as recorded in the ``transfers`` of an action's report."""

ROLL_OFF_LIMIT = 200
"""A sales competition that has not found a winner after this many rolls goes to the seller
(only a rigged rng gets near it: every roll ends with odds of at least 1 in 2)."""


class Ctx:
    """One action's work: the state, the rng, the public lines, the payments, private events,
    and what the action's report tells besides (see :class:`~.events.ActionReport`)."""

    def __init__(self, state: BusinessGoState, rng: Rng) -> None:
        self.state = state
        self.rng = rng
        self.lines: list[str] = []
        self.transfers: list[Transfer] = []
        self.private: list[Event] = []
        self.dice_rolled: tuple[int, int] | None = None
        """The roll to move, for the report's ``dice`` (:meth:`dice` rolls them)."""
        self.space: str | None = None
        self.demand: list[str] | None = None
        self.mail: str | None = None
        self.casino: tuple[int, int] | None = None
        self.paybacks: list[Payback] = []
        self.sales: list[SaleMade] = []
        self.bids: dict[Seat, int] | None = None
        self.standings: list[Standing] | None = None
        self.reveals = False
        """The rules open sealed bids in this action (an auction closes)."""
        self.made: Seat | None = None
        """The first seat whose cash reached the goal in this action: the game is won then,
        so no later payment, transfer or roll of the action happens (:class:`GoalMade`)."""

    def say(self, text: str) -> None:
        self.lines.append(text)

    def name(self, seat: Seat) -> str:
        return self.state.names[seat]

    def _goal(self, seat: Seat) -> None:
        """Note ``seat`` as the winner if its cash has just reached the goal."""
        state = self.state
        reached = state.cash[seat] >= state.options.goal
        if self.made is None and reached and not state.bankrupt[seat] and not state.finished:
            self.made = seat

    def won(self) -> None:
        """Stop the action here if the game was won in it (:class:`GoalMade`)."""
        if self.made is not None:
            raise GoalMade

    def pay(self, seat: Seat, delta: int, reason: str) -> None:
        """Money between ``seat`` and the bank: positive is paid by the bank."""
        assert reason in PAYMENT_REASONS, reason
        if delta == 0:
            return
        self.won()
        self.state.cash[seat] += delta
        if delta > 0:
            self.state.bank_paid += delta
        else:
            self.state.bank_received -= delta
        self.transfers.append((seat, delta, reason))
        self._goal(seat)

    def transfer(self, payer: Seat, payee: Seat, amount: int, reason: str) -> None:
        """Money between two players (an auction)."""
        assert reason in PAYMENT_REASONS, reason
        self.won()
        self.state.cash[payer] -= amount
        self.state.cash[payee] += amount
        self.transfers += [(payer, -amount, reason), (payee, amount, reason)]
        self._goal(payee)

    def dice(self) -> tuple[int, int]:
        self.won()
        return self.rng.randint(1, 6), self.rng.randint(1, 6)

    def events(self, kind: str) -> list[Event]:
        """The report of the action of this ``kind`` (an action's ``type``, or ``timeout``),
        then the private notes."""
        public = REPORTS[kind](
            kind=kind,
            text="\n".join(self.lines),
            reveals=self.reveals,
            transfers=self.transfers,
            dice=self.dice_rolled,
            space=self.space,
            demand=self.demand,
            mail=self.mail,
            casino=self.casino,
            paybacks=self.paybacks,
            sales=self.sales,
            bids=self.bids,
            standings=self.standings,
        )
        return [public, *self.private]


# --- deadlines and decisions ---------------------------------------------------------------


def decide(ctx: Ctx, name: str) -> None:
    """Open a decision of the player on turn (or a window others answer): what it takes, its
    deadline and its timeout are declared in :data:`~.rules.FLOW`."""
    open_decision(ctx.state, name)


def opening_roll(state: BusinessGoState, rng: Rng) -> str:
    """Everyone rolls; the highest starts, ties roll again among themselves."""
    rolling = list(state.seats)
    lines = []
    while True:
        totals = {}
        for seat in rolling:
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            totals[seat] = a + b
        lines.append(", ".join(f"{state.names[s]} {t}" for s, t in totals.items()))
        best = max(totals.values())
        rolling = [s for s in rolling if totals[s] == best]
        if len(rolling) == 1:
            break
    state.starter = state.turn = rolling[0]
    return f"Opening roll: {'; tie, again: '.join(lines)}. {state.names[rolling[0]]} starts."


# --- turns ---------------------------------------------------------------------------------


def begin_turn(ctx: Ctx) -> None:
    """The player on turn skips it while burnt out; otherwise may set up, convert and roll."""
    state = ctx.state
    while state.burnout[state.turn] > 0:
        seat = state.turn
        state.burnout[seat] -= 1
        left = state.burnout[seat]
        more = f" ({left} more to skip)" if left else " (the last one)"
        ctx.say(f"{ctx.name(seat)} is burnt out and skips a turn{more}.")
        if not _advance_seat(ctx):
            return
    state.dice = []
    decide(ctx, "turn")


def _advance_seat(ctx: Ctx) -> bool:
    """Pass the turn clockwise to the next player still in; False when the game ended."""
    state = ctx.state
    seat = state.turn
    nxt = after(seat, state.players, lambda s: not state.bankrupt[s])
    if nxt is None:
        return False
    if _passes_starter(state.starter, seat, nxt, state.players):
        # Every player still in has had a turn: a new round.
        if state.round >= state.options.max_rounds:
            finish(ctx, Ending.ROUND_LIMIT)
            return False
        state.round += 1
    state.turn = nxt
    return True


def _passes_starter(starter: Seat, seat: Seat, nxt: Seat, n: int) -> bool:
    """Whether moving the turn clockwise from ``seat`` to ``nxt`` reaches the first player's
    place (a bankrupt first player keeps the place)."""
    distance = (nxt - seat) % n or n
    offset = (starter - seat) % n or n
    return offset <= distance


def end_turn(ctx: Ctx) -> None:
    """Settle a debt the last payment made, then the next player."""
    state = ctx.state
    state.sales = []
    state.auction = None
    if state.cash[state.turn] < 0:
        start_debt(ctx)
        return
    next_turn(ctx)


def next_turn(ctx: Ctx) -> None:
    state = ctx.state
    state.moving = 0
    if len(state.active()) <= 1:
        finish(ctx, Ending.LAST_STANDING)
        return
    if _advance_seat(ctx):
        begin_turn(ctx)


# --- moving and the spaces -----------------------------------------------------------------


def move(ctx: Ctx, steps: int) -> None:
    """Move clockwise, collecting and paying what the passed spaces say, then land."""
    ctx.state.moving = steps
    walk(ctx)


def walk(ctx: Ctx) -> None:
    """Go on with the move: one space at a time; a debt made on the way is settled at once."""
    state = ctx.state
    b = board()
    seat = state.turn
    while state.moving > 0:
        state.moving -= 1
        state.position[seat] = (state.position[seat] + 1) % len(b.spaces)
        if state.moving == 0:
            break
        _pass_space(ctx, seat, state.position[seat])
        if state.cash[seat] < 0:
            start_debt(ctx)  # settled before the move goes on
            return
    land(ctx)


def _pass_space(ctx: Ctx, seat: Seat, index: int) -> None:
    ctx.won()
    b = board()
    kind = b.kind(index)
    if kind == "start":
        if corporation_count(ctx.state, seat):
            ctx.pay(seat, b.pass_start, "pass_start")
            ctx.say(f"{ctx.name(seat)} passes BUSINE$$ GO Start: {money(b.pass_start)} grant.")
    elif kind == "operating_fees":
        _operating_fees(ctx, seat, "passes")
    elif kind == "service":
        _service_payback(ctx, seat, b.spaces[index], "passes")


def land(ctx: Ctx) -> None:
    """Resolve the space the player on turn stands on."""
    ctx.won()
    state = ctx.state
    b = board()
    index = state.position[state.turn]
    kind = b.kind(index)
    space = b.spaces[index]
    ctx.space = space
    if kind == "country":
        _land_country(ctx, space)
        return
    landing = _LANDINGS.get(kind)
    if landing is not None and landing(ctx, space):
        return  # the space asks the player something first
    end_turn(ctx)


def _land_start(ctx: Ctx, space: str) -> bool:
    seat, name, b = ctx.state.turn, ctx.name(ctx.state.turn), board()
    ctx.say(f"{name} lands on BUSINE$$ GO Start.")
    if corporation_count(ctx.state, seat):
        ctx.pay(seat, b.land_start, "land_start")
        ctx.say(f"{name} collects {money(b.land_start)}.")
    else:
        ctx.say(f"{name} owns no corporation: no grant.")
    return False


def _land_service(ctx: Ctx, space: str) -> bool:
    state = ctx.state
    seat, name = state.turn, ctx.name(state.turn)
    owner = state.services.get(space)
    service = board().services[space]
    if owner == seat:
        ctx.say(f"{name} lands on their own {service.name}.")
        _service_payback(ctx, seat, space, "lands on")
    elif owner is None:
        ctx.say(
            f"{name} lands on {service.name}, for sale at {money(service.price)} "
            f"(it pays its owner {money(service.fee_per_corporation)} for each corporation "
            "of the owner's competitors)."
        )
        if state.cash[seat] >= service.price:
            decide(ctx, "service")
            return True
        ctx.say(f"{name} cannot afford it.")
    else:
        ctx.say(f"{name} lands on {service.name}, owned by {ctx.name(owner)}.")
    return False


def _land_boom(ctx: Ctx, space: str) -> bool:
    state = ctx.state
    name = ctx.name(state.turn)
    ctx.say(f"{name} lands on Boom: the economy is booming!")
    state.boom_sold = []
    state.boom_left = 3
    if boom_products(state, state.turn):
        decide(ctx, "boom")
        return True
    ctx.say(f"{name} has no corporation that can sell.")
    return False


def _land_burnout(ctx: Ctx, space: str) -> bool:
    ctx.state.burnout[ctx.state.turn] = 2
    ctx.say(
        f"{ctx.name(ctx.state.turn)} lands on Burnout and skips the next two turns (no "
        "investing and no sales competitions while on Burnout)."
    )
    return False


def _land_casino(ctx: Ctx, space: str) -> bool:
    state, b = ctx.state, board()
    name = ctx.name(state.turn)
    ctx.say(f"{name} lands on the Casino.")
    if state.cash[state.turn] >= b.casino_minimum:
        state.casino_bets = 0
        decide(ctx, "casino")
        return True
    ctx.say(f"{name} cannot afford the smallest bet ({money(b.casino_minimum)}).")
    return False


def _land_levy(ctx: Ctx, space: str) -> bool:
    """Charity Drive and Ecology: a sum for each corporation the player has."""
    state, b = ctx.state, board()
    seat, name = state.turn, ctx.name(state.turn)
    kind = b.kind(state.position[seat])
    each = b.charity_per_corporation if kind == "charity" else b.ecology_per_corporation
    count = corporation_count(state, seat)
    title = "Charity Drive" if kind == "charity" else "Ecology"
    if count:
        ctx.pay(seat, -each * count, kind)
        ctx.say(
            f"{name} lands on {title} and pays {money(each)} for each of "
            f"{plural(count, 'corporation')}: {money(each * count)}."
        )
    else:
        ctx.say(f"{name} lands on {title} and owns no corporation: nothing to pay.")
    return False


def _land_mail(ctx: Ctx, space: str) -> bool:
    return _mail(ctx)


def _land_operating_fees(ctx: Ctx, space: str) -> bool:
    _operating_fees(ctx, ctx.state.turn, "lands on")
    return False


def _land_travel(ctx: Ctx, space: str) -> bool:
    state, b = ctx.state, board()
    name = ctx.name(state.turn)
    ctx.say(f"{name} lands on the Travel Agency.")
    if state.cash[state.turn] >= b.travel_fare:
        decide(ctx, "travel")
        return True
    ctx.say(f"{name} cannot afford the {money(b.travel_fare)} fare.")
    return False


_LANDINGS: dict[str, Callable[[Ctx, str], bool]] = {
    "start": _land_start,
    "service": _land_service,
    "boom": _land_boom,
    "burnout": _land_burnout,
    "casino": _land_casino,
    "charity": _land_levy,
    "ecology": _land_levy,
    "mail": _land_mail,
    "operating_fees": _land_operating_fees,
    "travel_agency": _land_travel,
}
"""What landing on each kind of space does (but a country's); True: the space asks the player
something before the turn ends."""


def _land_country(ctx: Ctx, country_id: str) -> None:
    state = ctx.state
    b = board()
    seat = state.turn
    country = b.countries[country_id]
    owner = state.licences.get(country_id)
    if country_id in state.closed:
        held = ", closed: its corporation went bankrupt"
    elif owner is not None:
        held = f", licence held by {ctx.name(owner)}"
    else:
        held = ", licence unsold"
    faces = [b.demand_die[i].faces[ctx.rng.randint(1, 6) - 1] for i in range(3)]
    ctx.demand = faces
    shown = list(dict.fromkeys(faces))
    names = [b.products[p].name for p in faces]
    ctx.say(
        f"{ctx.name(seat)} lands on {country.name} ({country.continent}{held}). "
        f"Product Demand: {', '.join(names)}."
    )
    state.sales = []
    for product in shown:
        if selling_corporations(state, seat, product, country_id):
            queue_sale(ctx, product, country_id)
    if not state.sales:
        ctx.say(f"{ctx.name(seat)} makes none of these products: no sale.")
    state.after_sales = "licence"
    continue_sales(ctx)


def _after_country(ctx: Ctx) -> None:
    state = ctx.state
    b = board()
    seat = state.turn
    country_id = b.spaces[state.position[seat]]
    if country_id in state.licences or country_id in state.closed:
        end_turn(ctx)
        return
    price = b.countries[country_id].licence
    if state.cash[seat] >= price:
        decide(ctx, "licence")
        return
    ctx.say(f"{ctx.name(seat)} cannot afford the licence ({money(price)}).")
    end_turn(ctx)


def _operating_fees(ctx: Ctx, seat: Seat, how: str) -> None:
    state = ctx.state
    b = board()
    count = units(state, seat)
    if count == 0:
        ctx.say(f"{ctx.name(seat)} {how} Operating Fees with no corporation: nothing to pay.")
        return
    card = b.fee_cards[_draw(state.fees, b.fee_cards)]
    if card.kind == "table":
        amount = b.salary(count)
        how_much = f"{plural(count, 'unit')} on the table"
    else:
        amount = card.amount * count
        how_much = f"{plural(count, 'unit')} × {money(card.amount)}"
    ctx.pay(seat, -amount, "operating_fees")
    ctx.say(
        f"{ctx.name(seat)} {how} Operating Fees and draws {card.name}: "
        f"{how_much} = {money(amount)}."
    )


def _draw(deck: list[str], known: Mapping[str, object]) -> str:
    """The top card, put back at the bottom. Cards no longer printed (a game saved before the
    stack changed) leave the stack as they come up."""
    while deck and deck[0] not in known:
        deck.pop(0)
    if not deck:
        deck.extend(known)  # only a stack of cards from an older board: the printed one
    card_id = deck.pop(0)
    deck.append(card_id)
    return card_id


def competitor_corporations(state: BusinessGoState, seat: Seat) -> int:
    return sum(corporation_count(state, s) for s in state.active() if s != seat)


def _service_payback(ctx: Ctx, seat: Seat, service_id: str, how: str) -> None:
    state = ctx.state
    if state.services.get(service_id) != seat:
        return
    service = board().services[service_id]
    count = competitor_corporations(state, seat)
    amount = service.fee_per_corporation * count
    if amount:
        ctx.pay(seat, amount, "service_fee")
        ctx.paybacks.append(Payback(seat=seat, service=service_id, amount=amount))
    ctx.say(
        f"{ctx.name(seat)} {how} their {service.name}: {money(service.fee_per_corporation)} "
        f"for each of {plural(count, 'corporation')} of their competitors = {money(amount)}."
    )


def _mail(ctx: Ctx) -> bool:
    """Draw and obey the top Mail card; True when it opened a decision or moved the piece."""
    state = ctx.state
    b = board()
    seat = state.turn
    card_id = _draw(state.mail, b.mail_cards)
    card = b.mail_cards[card_id]
    ctx.mail = card_id
    name = ctx.name(seat)
    ctx.say(f"{name} lands on Mail: “{card.text}”")
    count = corporation_count(state, seat)
    if card.kind == "collect":
        ctx.pay(seat, card.amount, "mail")
    elif card.kind == "pay":
        ctx.pay(seat, -card.amount, "mail")
    elif card.kind == "collect_per_corporation":
        ctx.pay(seat, card.amount * count, "mail")
        ctx.say(f"{name} collects {money(card.amount * count)}.")
    elif card.kind == "pay_per_corporation":
        ctx.pay(seat, -card.amount * count, "mail")
        ctx.say(f"{name} pays {money(card.amount * count)}.")
    elif card.kind == "remove_corporation":
        choices = removable(state, seat)
        if not choices:
            ctx.say(f"{name} owns no corporation: nothing to remove.")
        elif len(choices) == 1:
            remove_corporation(ctx, seat, choices[0])
        else:
            decide(ctx, "mail")
            return True
    elif card.kind == "go_to":
        target = b.index_of(card.space)
        state.position[seat] = target
        land(ctx)
        return True
    elif card.kind == "advance_to":
        target = b.index_of(card.space)
        steps = (target - state.position[seat]) % len(b.spaces) or len(b.spaces)
        move(ctx, steps)
        return True
    return False


def remove_corporation(ctx: Ctx, seat: Seat, asset: str) -> None:
    """A Mail card's bankrupt corporation leaves the board. On a country it takes the licence
    with it and the country is closed for the rest of the game (never a second corporation
    there); a Service Industry goes back to the bank, for sale again."""
    state = ctx.state
    b = board()
    if asset in b.services:
        state.services.pop(asset, None)
        ctx.say(
            f"{possessive(ctx.name(seat))} {b.services[asset].name} goes bankrupt and goes back "
            "to the bank (for sale again)."
        )
        return
    state.corporations.pop(asset, None)
    state.licences.pop(asset, None)
    state.closed.append(asset)
    name = b.countries[asset].name
    ctx.say(
        f"{possessive(ctx.name(seat))} corporation in {name} goes bankrupt and leaves the board "
        f"with its licence: no corporation will ever be set up in {name} again."
    )


# --- sales and competitions ----------------------------------------------------------------


def queue_sale(ctx: Ctx, product: str, country: str | None) -> None:
    state = ctx.state
    seller = state.turn
    state.sales.append(
        Sale(
            product=product,
            country=country,
            seller=seller,
            eligible=competitors(state, seller, product, country),
        )
    )


def continue_sales(ctx: Ctx) -> None:
    """Open the next competition window, or settle sales until one must wait."""
    state = ctx.state
    b = board()
    while state.sales:
        sale = state.sales[0]
        if sale.undecided:
            where = b.countries[sale.country].name if sale.country else "the booming market"
            product = b.products[sale.product].name
            announce = f"{ctx.name(sale.seller)} announces a sale of {product} to {where}."
            standing = [s for s in sale.undecided if state.always_competes(s)]
            if standing:
                sale.joined.extend(standing)
                names = join([ctx.name(s) for s in standing])
                verb = "joins" if len(standing) == 1 else "join"
                announce += f" {names} {verb} the sales competition (always compete)."
            if sale.undecided:
                rivals = join([ctx.name(s) for s in sale.undecided])
                ctx.say(f"{announce} {rivals} may join the sales competition.")
                decide(ctx, "compete")
                return
            ctx.say(announce)
        _settle_sale(ctx, sale)
        state.sales.pop(0)
    if state.after_sales == "licence":
        _after_country(ctx)
    elif state.after_sales == "boom" and state.boom_left > 0 and boom_products(state, state.turn):
        decide(ctx, "boom")
    else:
        end_turn(ctx)


def close_competition(ctx: Ctx) -> None:
    """The window closes: whoever has not joined is out."""
    sale = ctx.state.sales[0]
    late = sale.undecided
    if late:
        ctx.say(f"Too late to join: {join([ctx.name(s) for s in late])} (you snooze, you lose).")
        sale.declined.extend(late)
    continue_sales(ctx)


def _roll_off(ctx: Ctx, players: list[Seat]) -> Seat:
    """Odd totals are out, doubles win at once; all odd rolls again; until one is left."""
    remaining = list(players)
    for _ in range(ROLL_OFF_LIMIT):
        rolls = []
        evens = []
        for seat in remaining:
            a, b = ctx.dice()
            if a == b:
                rolls.append(f"{ctx.name(seat)} {a}+{b} doubles")
                ctx.say("Competition roll: " + ", ".join(rolls) + f": {ctx.name(seat)} wins.")
                return seat
            total = a + b
            rolls.append(f"{ctx.name(seat)} {a}+{b}={total}" + ("" if total % 2 == 0 else " out"))
            if total % 2 == 0:
                evens.append(seat)
        if not evens:
            ctx.say("Competition roll: " + ", ".join(rolls) + ": all odd, roll again.")
            continue
        if len(evens) == 1:
            ctx.say("Competition roll: " + ", ".join(rolls) + f": {ctx.name(evens[0])} wins.")
            return evens[0]
        ctx.say("Competition roll: " + ", ".join(rolls) + ".")
        remaining = evens
    return remaining[0]


def _settle_sale(ctx: Ctx, sale: Sale) -> None:
    state = ctx.state
    b = board()
    product = b.products[sale.product].name
    where = b.countries[sale.country].name if sale.country else "the booming market"
    seller = sale.seller
    if sale.joined:
        n = state.players
        players = [s for s in ((seller + i) % n for i in range(n)) if s in [seller, *sale.joined]]
        ctx.say(
            f"Sales competition for {product} in {where}: {join([ctx.name(s) for s in players])}."
        )
        winner = _roll_off(ctx, players)
    else:
        winner = seller
    corps = selling_corporations(state, winner, sale.product, sale.country)
    amount = sale_amount(corps)
    for corp in corps:
        corp.chimney = True
    ctx.pay(winner, amount, "sale")
    ctx.sales.append(
        SaleMade(seat=winner, product=sale.product, amount=amount, by=[c.country for c in corps])
    )
    kinds = sum(1 for c in corps if c.international)
    detail = plural(len(corps), "corporation") + (f", {kinds} International" if kinds else "")
    ctx.say(f"{ctx.name(winner)} sells {product} to {where} ({detail}): {money(amount)}.")


# --- debts and auctions --------------------------------------------------------------------


def start_debt(ctx: Ctx) -> None:
    """A payment has just left the player on turn below zero: a new debt, settled now."""
    state = ctx.state
    if assets_of(state, state.turn):
        if not state.debts:
            state.debts = [0] * state.players
        state.debts[state.turn] += 1
    continue_debt(ctx)


def continue_debt(ctx: Ctx) -> None:
    """The player on turn raises money until out of debt, or goes bankrupt; then the game goes
    on where the debt stopped it (the rest of the move, or the next player)."""
    state = ctx.state
    seat = state.turn
    state.auction = None
    if state.cash[seat] >= 0:
        state.unsold = []
        ctx.say(f"{ctx.name(seat)} is out of debt with {money(state.cash[seat])}.")
        if state.moving > 0:
            ctx.say(f"{ctx.name(seat)} moves on.")
            walk(ctx)
        else:
            next_turn(ctx)
        return
    if not assets_of(state, seat):
        state.unsold = []
        _bankrupt(ctx, seat)
        next_turn(ctx)
        return
    ctx.say(
        f"{ctx.name(seat)} owes {money(-state.cash[seat])} and must pay it now: "
        f"{debt_ways(state, seat)}."
    )
    decide(ctx, "debt")


def _bankrupt(ctx: Ctx, seat: Seat) -> None:
    state = ctx.state
    state.bankrupt[seat] = True
    state.moving = 0
    if state.cash[seat] < 0:
        ctx.pay(seat, -state.cash[seat], "written_off")
    ctx.say(f"{ctx.name(seat)} cannot pay and is bankrupt: out of the game. Better luck next time!")


def release(state: BusinessGoState, asset: str) -> None:
    """An asset goes back to the bank: the licence (and corporation) or the Service Industry."""
    state.corporations.pop(asset, None)
    state.licences.pop(asset, None)
    state.services.pop(asset, None)


def sell_to_bank(ctx: Ctx, seat: Seat, asset: str) -> None:
    price = bank_price(ctx.state, asset)
    label = asset_name(ctx.state, asset)
    release(ctx.state, asset)
    ctx.pay(seat, price, "bank_sale")
    ctx.say(f"{ctx.name(seat)} sells {label} to the bank for {money(price)} (half its cost).")


def downgrade(ctx: Ctx, seat: Seat, country_id: str) -> None:
    country = board().countries[country_id]
    ctx.state.corporations[country_id].international = False
    ctx.pay(seat, country.conversion // 2, "downgrade")
    ctx.say(
        f"{ctx.name(seat)} downgrades the corporation in {country.name} to National and gets "
        f"{money(country.conversion // 2)} back."
    )


def settle_debt_by_default(ctx: Ctx) -> None:
    """On a timeout: downgrade, then sell the cheapest assets to the bank, until out of debt."""
    state = ctx.state
    seat = state.turn
    while state.cash[seat] < 0:
        internationals = [c for c in state.corporations_of(seat) if c.international]
        assets = assets_of(state, seat)
        if internationals:
            downgrade(ctx, seat, internationals[0].country)
        elif assets:
            sell_to_bank(ctx, seat, min(assets, key=lambda a: (asset_value(state, a), a)))
        else:
            break
    continue_debt(ctx)


def open_auction(ctx: Ctx, seat: Seat, asset: str, eligible: list[Seat]) -> None:
    state = ctx.state
    floor = floor_of(state, asset)
    state.auction = Auction(seller=seat, asset=asset, eligible=eligible, floor=floor)
    ctx.say(
        f"{ctx.name(seat)} auctions {asset_name(state, asset)} (it cost "
        f"{money(asset_value(state, asset))}; the bank pays {money(floor)}, the smallest bid). "
        f"{join([ctx.name(s) for s in eligible])} may bid in secret."
    )
    decide(ctx, "auction")


def close_auction(ctx: Ctx) -> None:
    """The bids are opened; the seller then takes the best one or sells to the bank."""
    state = ctx.state
    auction = state.auction
    assert auction is not None
    for seat in auction.undecided:
        auction.bids[seat] = 0
    ctx.reveals = True
    label = asset_name(state, auction.asset)
    shown = ", ".join(
        f"{ctx.name(s)} {money(auction.bids[s]) if auction.bids[s] else 'passed'}"
        for s in auction.eligible
    )
    ctx.bids = {s: auction.bids[s] for s in auction.eligible}
    best = auction.best()
    if best is None:
        ctx.say(f"Auction of {label}: {shown}. No bid; nothing is sold.")
        state.unsold.append(auction.asset)
        continue_debt(ctx)
        return
    winner, amount = best
    ctx.say(
        f"Auction of {label}: {shown}. Best bid: {ctx.name(winner)}, {money(amount)}. "
        f"{ctx.name(auction.seller)} takes it or sells to the bank for {money(auction.floor)}."
    )
    decide(ctx, "accept")


def accept_bid(ctx: Ctx) -> None:
    """The seller sells to the best bidder."""
    state = ctx.state
    auction = state.auction
    assert auction is not None
    best = auction.best()
    assert best is not None
    winner, amount = best
    asset = auction.asset
    label = asset_name(state, asset)
    if asset in state.services:
        state.services[asset] = winner
    else:
        state.licences[asset] = winner
        if asset in state.corporations:
            state.corporations[asset].owner = winner
    ctx.transfer(winner, auction.seller, amount, "auction")
    ctx.say(
        f"{ctx.name(auction.seller)} accepts: {ctx.name(winner)} buys {label} for {money(amount)}."
    )
    continue_debt(ctx)


def refuse_bids(ctx: Ctx) -> None:
    """The seller turns the bids down and sells the auctioned asset to the bank."""
    state = ctx.state
    auction = state.auction
    assert auction is not None
    ctx.say(f"{ctx.name(auction.seller)} turns the bids down.")
    sell_to_bank(ctx, auction.seller, auction.asset)
    continue_debt(ctx)


# --- the end -------------------------------------------------------------------------------


class GoalMade(Exception):
    """Raised by the next payment, transfer or roll of an action in which a player's cash
    reached the goal: the game is won at that moment, and the action stops there."""


def check_winner(ctx: Ctx) -> None:
    """The first to reach the target wins at once (the richest, should two get there)."""
    state = ctx.state
    if state.finished:
        return
    if ctx.made is not None:
        finish(ctx, Ending.TARGET)
        return
    goal = state.options.goal
    rich = [s for s in state.active() if state.cash[s] >= goal]
    if rich:
        finish(ctx, Ending.TARGET)


def ranking(state: BusinessGoState) -> list[Standing]:
    """The players by cash, a bankrupt player below everyone still playing."""

    def worth(seat: Seat) -> tuple[int, int]:
        return (0 if state.bankrupt[seat] else 1, state.cash[seat])

    return rank(
        state.names,
        state.seats,
        worth,
        lambda s: float(state.cash[s]),
        note=lambda s: "bankrupt" if state.bankrupt[s] else holdings(state, s),
    )


def holdings(state: BusinessGoState, seat: Seat) -> str:
    """``5 licences, 2 National, 1 International``: what a player owns (Corporations)."""
    corporations = state.corporations_of(seat)
    international = sum(1 for c in corporations if c.international)
    parts = [plural(sum(1 for owner in state.licences.values() if owner == seat), "licence")]
    if len(corporations) > international:
        parts.append(f"{len(corporations) - international} National")
    if international:
        parts.append(f"{international} International")
    services = len(state.services_of(seat))
    if services:
        parts.append(plural(services, "Service Industry", "Service Industries"))
    return ", ".join(parts) if parts != ["0 licences"] else "owns nothing"


def finish(ctx: Ctx, ended: Ending) -> None:
    state = ctx.state
    state.sales = []
    state.auction = None
    state.moving = 0

    standings = ranking(state)
    top = [st.name for st in standings if st.rank == 1]
    best = money(state.cash[standings[0].seat])
    reason = {
        Ending.TARGET: f"the first to make {money(state.options.goal)}",
        Ending.LAST_STANDING: "the last one standing",
        Ending.ROUND_LIMIT: f"the richest after {plural(state.options.max_rounds, 'round')}",
    }[ended]
    if len(top) == 1:
        summary = f"{top[0]} wins with {best}, {reason}."
    else:
        summary = f"{join(top)} tie for first with {best}."
    table = "\n".join(
        f"{st.rank}. {st.name} {money(state.cash[st.seat])}"
        + (" (bankrupt)" if state.bankrupt[st.seat] else "")
        for st in standings
    )
    state.outcome = Outcome(standings=standings, summary=summary, rounds=state.round, ended=ended)
    ctx.say(f"Game over after {plural(state.round, 'round')}. {summary}\n{table}")
    ctx.standings = standings


def private_note(ctx: Ctx, seat: Seat, text: str) -> None:
    ctx.private.append(PrivateNote(text=text, audience=Audience.only(seat)))
