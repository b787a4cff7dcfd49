"""Platform-neutral messages: the live board with the open decision's choices, and what
``hand`` shows a player."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from core import ui
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
from core.games.businessgo.flow import competitor_corporations
from core.games.businessgo.legal import (
    asset_name,
    asset_value,
    bank_price,
    bid_amounts,
    debt_ways,
    landed_price,
)
from core.games.businessgo.rules import FLOW
from core.games.businessgo.state import BusinessGoState
from core.games.businessgo.text import join, money, plural
from core.games.businessgo.view import AuctionView, BusinessGoView, CorporationView, PlayerView
from core.text import possessive

__all__ = [
    "BET_FORM",
    "BID_FORM",
    "describe_action",
    "licence_card",
    "render_board",
    "render_private",
    "render_prompt",
    "service_card",
]


_PHASES = {
    "turn": "before the roll: set up, convert, roll",
    "licence": "deciding on a licence",
    "service": "deciding on a Service Industry",
    "boom": "choosing Boom sales",
    "casino": "at the Casino",
    "travel": "at the Travel Agency",
    "compete": "sales competition open",
    "debt": "raising money to pay a debt",
    "auction": "auction open (sealed bids)",
    "accept": "taking the best bid or selling to the bank",
    "mail": "choosing the corporation that goes bankrupt",
    "over": "game over",
}
_PASS_LABELS: dict[str | None, str] = {
    "licence": "Don't buy",
    "service": "Don't buy",
    "boom": "End the Boom",
    "casino": "Stop betting",
    "travel": "Stay here",
    "compete": "Stay out",
    "auction": "Pass",
}


def _corp_tag(corp: CorporationView) -> str:
    """``N`` a National, ``N+`` one that has sold (a white chimney), ``I`` an International.

    No markdown characters: the notation must read the same on Discord, Slack and the console."""
    return "I" if corp.international else ("N+" if corp.chimney else "N")


def licence_card(country_id: str) -> str:
    """A Business Licence card as one paragraph: product, costs and every sale rate."""
    b = board()
    c = b.countries[country_id]
    national = " / ".join(money(a) for a in c.national_sales)
    international = " / ".join(money(a) for a in c.international_sales)
    return (
        f"{c.name} Business Licence ({c.continent}): makes {b.products[c.product].name}. "
        f"Licence {money(c.licence)} · National start-up {money(c.start_up)} · conversion to "
        f"International {money(c.conversion)}. One sale with 1 / 2 / 3 corporations of the "
        f"product: National {national}; International {international}."
    )


def service_card(state: BusinessGoState, service_id: str, seat: Seat | None) -> str:
    """A Service Industry card: its price and what it would pay ``seat`` at today's count
    (None: not said)."""
    service = board().services[service_id]
    text = (
        f"{service.name}: price {money(service.price)}; each time its owner passes or lands on "
        f"it, the bank pays {money(service.fee_per_corporation)} for each corporation of the "
        "owner's competitors"
    )
    if seat is None:
        return text + "."
    count = competitor_corporations(state, seat)
    return (
        f"{text} (for {state.names[seat]} now: {plural(count, 'corporation')}, "
        f"{money(count * service.fee_per_corporation)})."
    )


def _track(public: BusinessGoView) -> list[str]:
    """The board as an ordered list: space number, space, owner and who stands there, from
    the public view (the board's own)."""
    b = board()
    names = [p.name for p in public.players]
    here: dict[int, list[str]] = {}
    for p in public.players:
        if not p.bankrupt:
            here.setdefault(p.position, []).append(p.name)
    lines = []
    for index, space in enumerate(b.spaces):
        line = f"{index} {b.space_name(index)}"
        if space in b.countries:
            line += f" · {b.products[b.countries[space].product].name}"
            owner = public.licences.get(space)
            corp = public.corporations.get(space)
            if space in public.closed:
                line += " [closed]"
            elif owner is not None:
                tag = _corp_tag(corp) if corp else "licence"
                line += f" [{names[owner]} {tag}]"
        elif space in b.services:
            owner = public.services.get(space)
            line += f" [{names[owner]}]" if owner is not None else ""
        if index in here:
            line += " ◀ " + ", ".join(here[index])
        lines.append(line)
    return lines


def render_board(
    state: BusinessGoState, public: BusinessGoView, pictured: bool = False
) -> ui.Message:
    """The live board, built from the public view only. ``pictured``: the board's picture
    shows the track (every space, its owner and tag, the tokens), so the text leaves it out and
    each player's line names what they own, their licences too (and the closed countries are
    said): everything the track told in words."""
    head = _board_head(state, public)
    b = board()
    legend = "N = National, N+ = has sold (white chimney), I = International."
    if pictured:
        closed = [b.countries[c].name for c in public.closed]
        lines = [*(["Closed: " + join(closed) + "."] if closed else []), legend]
    else:
        lines = [
            "The track, clockwise (◀ marks where players stand; passing 0 pays the grant, "
            "passing 16 the Operating Fees):",
            *_track(public),
            legend,
        ]
    fields = [_player_field(public, p, pictured) for p in public.players]
    buttons, selects = _board_controls(state)
    decision = _decision_line(state) if buttons or selects else ""
    return ui.Message(
        title="Busine$$ GO",
        text="\n".join([*head, "", *lines, *(["", decision] if decision else [])]),
        fields=fields,
        buttons=ui.rows(buttons),
        selects=selects,
    )


def _board_head(state: BusinessGoState, public: BusinessGoView) -> list[str]:
    """The board's first lines: the round and goal, whose turn it is (or the result), the last
    roll, and the sale and auction under way."""
    names = [p.name for p in public.players]
    head = [f"Round {public.round} · Goal {money(public.goal)}"]
    if public.round == 1 and public.opening:
        head.append(public.opening)
    if public.outcome:
        head.append(public.outcome.summary)
    else:
        turn = names[public.turn]
        head.append(f"{turn} to play: {_PHASES[public.phase]}.")
        waiting = [names[s] for s in public.waiting_for if s != public.turn]
        if waiting:
            head.append("Waiting for " + join(waiting) + ".")
    if public.dice:
        head.append(f"Last roll: {public.dice[0]}+{public.dice[1]}.")
    if public.sale:
        sale = public.sale
        b = board()
        product = b.products[sale.product].name
        where = b.countries[sale.country].name if sale.country else "the Boom"
        joined = join([names[s] for s in sale.joined]) or "nobody yet"
        head.append(f"{names[sale.seller]} sells {product} to {where}; joined: {joined}.")
    if public.auction:
        head.append(_auction_line(state, public.auction, names))
    return head


def _auction_line(state: BusinessGoState, auction: AuctionView, names: list[str]) -> str:
    if auction.bids:
        bids = ", ".join(
            f"{names[s]} {money(a) if a else 'passed'}" for s, a in auction.bids.items()
        )
        return (
            f"{names[auction.seller]} auctioned {asset_name(state, auction.asset)}: "
            f"{bids}; the bank pays {money(auction.floor)}."
        )
    return (
        f"{names[auction.seller]} auctions {asset_name(state, auction.asset)} "
        f"(smallest bid {money(auction.floor)}); "
        f"answered: {join([names[s] for s in auction.answered]) or 'nobody yet'}."
    )


def _player_field(public: BusinessGoView, p: PlayerView, pictured: bool) -> ui.Field_:
    """A player's line: cash and space, or bankrupt, burnout, and what they own (their bare
    licences too when the picture shows the track)."""
    b = board()
    corps = [
        f"{b.countries[cid].name} {_corp_tag(corp)}"
        for cid, corp in public.corporations.items()
        if corp.owner == p.seat
    ]
    if pictured:  # (the track says whose a bare licence is)
        corps += [
            f"{b.countries[cid].name} licence"
            for cid, owner in public.licences.items()
            if owner == p.seat and cid not in public.corporations
        ]
    corps += [b.services[sid].name for sid, owner in public.services.items() if owner == p.seat]
    value = f"{p.cash_text} · on {p.position} {p.space}"
    if p.bankrupt:
        value = "bankrupt"
    elif p.burnout:
        value += f" · burnt out ({plural(p.burnout, 'turn')} to skip)"
    if corps and not p.bankrupt:
        value += " · " + ", ".join(corps)
    marker = "▶ " if p.seat == public.turn and not public.outcome else ""
    return ui.Field_(name=marker + p.name, value=value)


def _board_controls(state: BusinessGoState) -> tuple[list[ui.Button], list[ui.Select]]:
    """The choices of the decision open now, on the board (every choice but a sealed bid's
    amount is open information): a turn's belong to its player (anyone else who presses is
    told whose they are); a sales competition's and an auction's to whoever is asked, each
    answering for themselves."""
    if state.finished:
        return [], []
    phase = state.deciding
    if phase == "compete":
        if not state.sales or not state.sales[0].undecided:
            return [], []
        shared: list[Action] = [Join(), Pass(), AlwaysCompete(always=True)]
        return [_button(state, None, a) for a in shared], []
    if phase == "auction":
        auction = state.auction
        if auction is None or not auction.undecided:
            return [], []
        # The same amounts for every bidder, as far as the richest of them can go (a bid
        # above one's own cash is refused, with why).
        bids: list[Action] = [Bid(amount=a) for a in bid_amounts(state, None)]
        return _controls(state, None, [*bids, Pass()])
    seat = state.turn
    legal = FLOW.asked(state, seat)
    if not legal:
        return [], []
    return _controls(state, seat, legal)


def _controls(
    state: BusinessGoState, seat: Seat | None, actions: list[Action]
) -> tuple[list[ui.Button], list[ui.Select]]:
    buttons, selects = ui.controls(
        actions,
        lambda a: _button(state, seat, a),
        type,
        lambda kind, group: _menus(state, seat, kind, group),
    )
    typed = _TYPED.get(state.deciding)
    if typed is not None and len(buttons) < ui.MAX_BUTTONS:
        # An amount of one's own, as a form (the typed command, checked the same way).
        label, command = typed
        buttons.append(ui.Button(label=label, style="primary", command=command, ask=True))
    return buttons, selects


def render_private(state: BusinessGoState, seat: Seat) -> ui.Message:
    """What ``hand`` shows a player: their money and holdings, and where their choices are
    (on the board: every choice in Busine$$ GO is open but a sealed bid's amount)."""
    lines = [f"You have {money(state.cash[seat])}.", *_holdings(state, seat)]
    auction = state.auction
    if auction is not None and auction.bids.get(seat) and state.deciding == "auction":
        lines.append(f"Your sealed bid: {money(auction.bids[seat])}.")
    if state.finished:
        lines.append("The game is over.")
    elif FLOW.asked(state, seat):
        lines.append("The game waits for you: your choices are the buttons on the board.")
    else:
        lines.append(ui.idle())
    if not state.finished and not state.bankrupt[seat]:
        lines.append(
            "Sales competitions: you join them all without being asked "
            "(`/businessgo compete ask` to be asked)."
            if state.always_competes(seat)
            else "Sales competitions: you are asked each time "
            "(`/businessgo compete always` to join them all)."
        )
    return ui.Message(title=f"Busine$$ GO: {state.names[seat]}", text="\n".join(lines))


def _holdings(state: BusinessGoState, seat: Seat) -> list[str]:
    """A player's corporations, bare licences and Service Industries, a line each."""
    b = board()
    lines = []
    mine = [
        f"{b.countries[c.country].name} ({'International' if c.international else 'National'}"
        + (", has sold" if c.chimney and not c.international else "")
        + ")"
        for c in state.corporations_of(seat)
    ]
    if mine:
        lines.append("Your corporations: " + ", ".join(mine) + ".")
    bare = [
        b.countries[cid].name
        for cid, owner in state.licences.items()
        if owner == seat and cid not in state.corporations
    ]
    if bare:
        lines.append("Licences without a corporation: " + ", ".join(bare) + ".")
    services = [b.services[sid] for sid in state.services_of(seat)]
    if services:
        count = competitor_corporations(state, seat)
        lines.append(
            "Your Service Industries: "
            + ", ".join(
                f"{s.name} (space {b.index_of(s.id)}, {money(s.fee_per_corporation)} × "
                f"{count} = {money(s.fee_per_corporation * count)} a visit)"
                for s in services
            )
            + "."
        )
    return lines


BET_FORM = ui.Ask(
    title="Casino bet",
    label="How much do you bet? (e.g. 250k)",
    placeholder="250k",
    max_length=20,
)
BID_FORM = ui.Ask(
    title="Sealed bid",
    label="Your bid (e.g. 120k); the others never see it",
    placeholder="120k",
    max_length=20,
)
"""The forms the Casino's and the auction's buttons open (``bet <amount>``, ``bid <amount>``)."""
_TYPED: dict[str | None, tuple[str, str]] = {
    "casino": ("Bet an amount…", "bet"),
    "auction": ("Bid an amount…", "bid"),
}


def _decision_line(state: BusinessGoState) -> str:
    """What the board's buttons decide, for everyone to read."""
    b = board()
    phase = state.deciding
    who = state.names[state.turn]
    if phase == "turn":
        return (
            f"{possessive(who)} choices: set up or convert before the roll (not after), then roll."
        )
    if phase == "licence":
        space = b.spaces[state.position[state.turn]]
        return (
            f"{who} may buy the {b.countries[space].name} Business Licence for "
            f"{money(landed_price(state))}.\n{licence_card(space)}"
        )
    if phase == "service":
        space = b.spaces[state.position[state.turn]]
        return (
            f"{who} may buy {b.services[space].name} for {money(landed_price(state))}.\n"
            + service_card(state, space, state.turn)
        )
    if phase == "boom":
        return f"Boom: {who} chooses up to {state.boom_left} more different products to sell."
    if phase == "casino":
        limit = money(min(b.casino_limit, state.cash[state.turn]))
        return (
            f"Casino: {who} may bet up to {limit} (or type `/businessgo bet <amount>`). Even "
            "pays double, doubles triple, odd loses."
        )
    if phase == "travel":
        return f"{who} may travel to any country for {money(b.travel_fare)}, or stay."
    if phase == "compete":
        sale = state.sales[0]
        where = b.countries[sale.country].name if sale.country else "the Boom"
        asked = join([state.names[s] for s in sale.undecided])
        return (
            f"{state.names[sale.seller]} sells {b.products[sale.product].name} to {where}. "
            f"Join the sales competition, {asked}? You snooze, you lose!"
        )
    if phase == "auction" and state.auction is not None:
        auction = state.auction
        asked = join([state.names[s] for s in auction.undecided])
        return (
            f"{state.names[auction.seller]} auctions {asset_name(state, auction.asset)} (cost "
            f"{money(asset_value(state, auction.asset))}). Sealed bids from {asked}, at least "
            f"the bank's price {money(auction.floor)} (or type `/businessgo bid <amount>`): "
            "only the bidder sees a bid's amount.\n" + _asset_card(state, auction.asset)
        )
    if phase == "accept" and state.auction is not None:
        auction = state.auction
        best = auction.best()
        assert best is not None
        bids = ", ".join(
            f"{state.names[s]} {money(auction.bids[s]) if auction.bids[s] else 'passed'}"
            for s in auction.eligible
        )
        return (
            f"The bids for {asset_name(state, auction.asset)}: {bids}. {who} sells to "
            f"{state.names[best[0]]} for {money(best[1])}, or to the bank for "
            f"{money(auction.floor)}."
        )
    if phase == "debt":
        return (
            f"{who} owes {money(-state.cash[state.turn])} and must pay it before the game goes "
            f"on: {debt_ways(state, state.turn)}."
        )
    if phase == "mail":
        return (
            f"{who} chooses the corporation that goes bankrupt: one on a country leaves with "
            "its licence and closes that country for good; a Service Industry goes back on sale."
        )
    return ""


def _asset_card(state: BusinessGoState, asset: str) -> str:
    b = board()
    if asset in b.services:
        return service_card(state, asset, None)
    return licence_card(asset)


def _button(state: BusinessGoState, seat: Seat | None, action: Action) -> ui.Button:
    """A control for ``action``, ``seat``'s alone (None: each presser answers for
    themselves)."""
    style: Literal["primary", "secondary", "success", "danger"] = "secondary"
    if isinstance(action, Roll | Buy | Join | Sell | Accept):
        style = "primary"
    elif isinstance(action, Setup | Convert | Travel | Bet | Bid):
        style = "success"
    elif isinstance(action, SellToBank | AuctionOff | Downgrade | Remove):
        style = "danger"
    return ui.Button(
        label=ui.fit(describe_action(state, action)),
        style=style,
        action=action.model_dump(mode="json"),
        version=state.version,
        seat=seat,
    )


def _menus(
    state: BusinessGoState, seat: Seat | None, kind: type[BaseModel], actions: list[Action]
) -> list[ui.Select]:
    field = next(f for f in kind.model_fields if f != "type")
    placeholders: dict[type[BaseModel], str] = {
        Travel: "Travel to...",
        Setup: "Set up a National Corporation in...",
        Convert: "Convert to International...",
        SellToBank: "Sell to the bank...",
        AuctionOff: "Auction...",
        Downgrade: "Downgrade...",
        Remove: "Remove...",
        Bet: "Bet...",
        Bid: "Bid...",
        Sell: "Sell...",
    }
    placeholder = placeholders.get(kind, "Choose...")
    options = [
        ui.SelectOption(
            label=ui.fit(describe_action(state, a)),
            value=str(getattr(a, field)),
            description=_travel_note(state, a) if isinstance(a, Travel) else None,
        )
        for a in actions
    ]
    action = {"type": kind.model_fields["type"].default}
    return ui.menus(placeholder, options, action, field, state.version, seat)


def _travel_note(state: BusinessGoState, action: Travel) -> str | None:
    """A travel option's country: space, product and whether its licence is for sale."""
    b = board()
    c = b.countries.get(action.country)
    if c is None:
        return None
    owner = state.licences.get(c.id)
    if c.id in state.closed:
        status = "closed"
    elif owner is None:
        status = f"licence for sale, {money(c.licence)}"
    else:
        status = "licence sold"
    return ui.fit(f"space {b.index_of(c.id)} · {b.products[c.product].name} · {status}")


def render_prompt(state: BusinessGoState) -> ui.Message | None:
    """No prompt: the board carries the open decision's choices."""
    return None


def describe_action(state: BusinessGoState, action: Action) -> str:
    """A short label; sealed bids are not described by amount (labels may reach a log)."""
    described = _describe_move(state, action)
    return described if described is not None else _describe_holding(state, action)


def _country(cid: str) -> str:
    countries = board().countries
    return countries[cid].name if cid in countries else cid


def _describe_move(state: BusinessGoState, action: Action) -> str | None:
    """The label of a move of the turn, the Casino, a sale or an auction (None: another)."""
    if isinstance(action, Roll):
        return "Roll the dice"
    if isinstance(action, Buy):
        if state.deciding in ("licence", "service"):
            return f"Buy for {money(landed_price(state))}"
        return "Buy"
    if isinstance(action, Pass):
        return _PASS_LABELS.get(state.deciding, "Pass")
    if isinstance(action, Sell):
        product = board().products.get(action.product)
        return f"Sell {product.name if product else action.product}"
    if isinstance(action, Bet):
        return f"Bet {money(action.amount)}"
    if isinstance(action, Travel):
        return f"Travel to {_country(action.country)}"
    if isinstance(action, Join):
        return "Join the competition"
    if isinstance(action, Bid):
        return f"Bid {money(action.amount)}"
    if isinstance(action, Accept):
        best = state.auction.best() if state.auction else None
        if best is not None:
            return f"Sell to {state.names[best[0]]} for {money(best[1])}"
        return "Accept the best bid"
    if isinstance(action, AlwaysCompete):
        return "Always join" if action.always else "Ask me before competing"
    return None


def _describe_holding(state: BusinessGoState, action: Action) -> str:
    """The label of a change to what a player holds (or of the game clock's timeout)."""
    b = board()
    countries = b.countries
    if isinstance(action, Setup):
        c = countries.get(action.country)
        cost = f" ({money(c.start_up)})" if c else ""
        return f"Set up in {_country(action.country)}{cost}"
    if isinstance(action, Convert):
        c = countries.get(action.country)
        cost = f" ({money(c.conversion)})" if c else ""
        return f"Convert {_country(action.country)} to International{cost}"
    if isinstance(action, AuctionOff | SellToBank):
        known = action.asset in countries or action.asset in b.services
        what = asset_name(state, action.asset) if known else action.asset
        if isinstance(action, SellToBank):
            half = f" for {money(bank_price(state, action.asset))}" if known else ""
            return f"Sell {what} to the bank{half}"
        return f"Auction {what}"
    if isinstance(action, Downgrade):
        c = countries.get(action.country)
        back = f" (+{money(c.conversion // 2)})" if c else ""
        return f"Downgrade {_country(action.country)}{back}"
    if isinstance(action, Remove):
        service = b.services.get(action.country)
        return f"Remove {service.name if service else _country(action.country)}"
    return "Time is up"
