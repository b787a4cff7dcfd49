"""Platform-neutral messages: the live board and a seat's private panel of choices."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from core import ui
from core.engine import Seat
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
from core.games.businessgo.legal import (
    asset_name,
    asset_value,
    landed_price,
    legal_actions,
)
from core.games.businessgo.state import BusinessGoState
from core.games.businessgo.text import join, money
from core.games.businessgo.view import CorporationView, view

__all__ = ["describe_action", "render_board", "render_private", "render_prompt"]


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
    "mail": "choosing the corporation that goes bankrupt",
    "over": "game over",
}
_PASS_LABELS = {
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


def render_board(state: BusinessGoState) -> ui.Message:
    """The live board, built from the public view only."""
    public = view(state, None)
    b = board()
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
        product = b.products[sale.product].name
        where = b.countries[sale.country].name if sale.country else "the Boom"
        joined = join([names[s] for s in sale.joined]) or "nobody yet"
        head.append(f"{names[sale.seller]} sells {product} to {where}; joined: {joined}.")
    if public.auction:
        auction = public.auction
        head.append(
            f"{names[auction.seller]} auctions {asset_name(state, auction.asset)}; "
            f"answered: {join([names[s] for s in auction.answered]) or 'nobody yet'}."
        )
    lines = []
    for continent in dict.fromkeys(c.continent for c in b.country):
        cells = []
        for c in b.country:
            if c.continent != continent:
                continue
            owner = public.licences.get(c.id)
            corp = public.corporations.get(c.id)
            if owner is None:
                cells.append(c.name)
            else:
                tag = f" {_corp_tag(corp)}" if corp else " licence"
                cells.append(f"{c.name} [{names[owner]}{tag}]")
        lines.append(f"{continent}: " + ", ".join(cells))
    services = [
        f"{s.name} [{names[public.services[s.id]]}]" if s.id in public.services else s.name
        for s in b.service
    ]
    lines.append("Service Industries: " + ", ".join(services))
    lines.append("N = National, N+ = has sold (white chimney), I = International.")
    fields = []
    for p in public.players:
        corps = [
            f"{b.countries[cid].name} {_corp_tag(corp)}"
            for cid, corp in public.corporations.items()
            if corp.owner == p.seat
        ]
        value = f"{p.cash_text} · on {p.space}"
        if p.bankrupt:
            value = "bankrupt"
        elif p.burnout:
            value += f" · burnt out ({p.burnout} turns)"
        if corps:
            value += " · " + ", ".join(corps)
        marker = "▶ " if p.seat == public.turn and not public.outcome else ""
        fields.append(ui.Field_(name=marker + p.name, value=value))
    return ui.Message(title="Busine$$ GO", text="\n".join([*head, "", *lines]), fields=fields)


def render_private(state: BusinessGoState, seat: Seat) -> ui.Message:
    """The seat's money and holdings and the controls for its legal actions."""
    b = board()
    lines = [f"You have {money(state.cash[seat])}."]
    mine = [
        f"{b.countries[c.country].name} ({'International' if c.international else 'National'}"
        + (", has sold" if c.chimney and not c.international else "")
        + ")"
        for c in state.corporations_of(seat)
    ]
    if mine:
        lines.append("Your corporations: " + ", ".join(mine) + ".")
    bare = [b.countries[cid].name for cid, o in state.licences.items() if o == seat]
    bare = [n for n in bare if n not in {b.countries[c].name for c in state.corporations}]
    if bare:
        lines.append("Licences without a corporation: " + ", ".join(bare) + ".")
    legal = legal_actions(state, seat)
    lines.append(_prompt_line(state, seat, legal))
    buttons: list[ui.Button] = []
    selects: list[ui.Select] = []
    buttons, selects = ui.controls(
        legal,
        lambda a: _button(state, seat, a),
        type,
        lambda kind, actions: _menus(state, seat, kind, actions),
    )
    typed = _TYPED.get(state.phase)
    if typed is not None and legal and len(buttons) < ui.MAX_BUTTONS:
        # An amount of one's own, as a form (the typed command, checked the same way).
        label, command = typed
        buttons.append(ui.Button(label=label, style="primary", command=command, ask=True))
    return ui.Message(
        title=f"Busine$$ GO: {state.names[seat]}",
        text="\n".join(line for line in lines if line),
        buttons=ui.rows(buttons),
        selects=selects,
    )


FORMS = {
    "bet": ui.Ask(
        title="Casino bet",
        label="How much do you bet? (e.g. 250k)",
        placeholder="250k",
        max_length=20,
    ),
    "bid": ui.Ask(
        title="Sealed bid",
        label="Your bid (e.g. 120k); the others never see it",
        placeholder="120k",
        max_length=20,
    ),
}
_TYPED = {"casino": ("Bet an amount…", "bet"), "auction": ("Bid an amount…", "bid")}


def _prompt_line(state: BusinessGoState, seat: Seat, legal: list[Action]) -> str:
    if not legal:
        if state.finished:
            return "The game is over."
        return f"Waiting for {state.names[state.turn]}."
    b = board()
    phase = state.phase
    if phase == "turn":
        return "Your turn: set up or convert before you roll (not after), then roll."
    if phase in ("licence", "service"):
        space = b.space_name(state.position[seat])
        return f"Buy {space} for {money(landed_price(state))}?"
    if phase == "boom":
        return f"Boom: choose up to {state.boom_left} more different products to sell."
    if phase == "casino":
        return (
            f"Casino: bet up to {money(min(b.casino_limit, state.cash[seat]))} "
            "(or type `/businessgo bet <amount>`). Even pays double, doubles triple, odd loses."
        )
    if phase == "travel":
        return f"Travel to any country for {money(b.travel_fare)}, or stay."
    if phase == "compete":
        sale = state.sales[0]
        where = b.countries[sale.country].name if sale.country else "the Boom"
        return (
            f"{state.names[sale.seller]} sells {b.products[sale.product].name} to {where}. "
            "Join the sales competition? You snooze, you lose!"
        )
    if phase == "auction" and state.auction is not None:
        asset = state.auction.asset
        return (
            f"{state.names[state.auction.seller]} auctions {asset_name(state, asset)} (cost "
            f"{money(asset_value(state, asset))}). Your sealed bid? "
            "(or type `/businessgo bid <amount>`)"
        )
    if phase == "debt":
        return (
            f"You owe {money(-state.cash[seat])}: auction, sell to the bank for half, "
            "or downgrade an International Corporation."
        )
    if phase == "mail":
        return "Choose the corporation that goes bankrupt."
    return ""


def _button(state: BusinessGoState, seat: Seat, action: Action) -> ui.Button:
    style: Literal["primary", "secondary", "success", "danger"] = "secondary"
    if isinstance(action, Roll | Buy | Join | Sell):
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
    state: BusinessGoState, seat: Seat, kind: type[BaseModel], actions: list[Action]
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
        ui.SelectOption(label=ui.fit(describe_action(state, a)), value=str(getattr(a, field)))
        for a in actions
    ]
    action = {"type": kind.model_fields["type"].default}
    return ui.menus(placeholder, options, action, field, state.version, seat)


def render_prompt(state: BusinessGoState) -> ui.Message | None:
    """Every choice is private; the board says whom the game waits for."""
    return None


def describe_action(state: BusinessGoState, action: Action) -> str:
    """A short label; sealed bids are not described by amount (labels may reach a log)."""
    b = board()
    countries = b.countries

    def country(cid: str) -> str:
        return countries[cid].name if cid in countries else cid

    if isinstance(action, Roll):
        return "Roll the dice"
    if isinstance(action, Setup):
        c = countries.get(action.country)
        cost = f" ({money(c.start_up)})" if c else ""
        return f"Set up in {country(action.country)}{cost}"
    if isinstance(action, Convert):
        c = countries.get(action.country)
        cost = f" ({money(c.conversion)})" if c else ""
        return f"Convert {country(action.country)} to International{cost}"
    if isinstance(action, Buy):
        if state.phase in ("licence", "service"):
            return f"Buy for {money(landed_price(state))}"
        return "Buy"
    if isinstance(action, Pass):
        return _PASS_LABELS.get(state.phase, "Pass")
    if isinstance(action, Sell):
        product = b.products.get(action.product)
        return f"Sell {product.name if product else action.product}"
    if isinstance(action, Bet):
        return f"Bet {money(action.amount)}"
    if isinstance(action, Travel):
        return f"Travel to {country(action.country)}"
    if isinstance(action, Join):
        return "Join the competition"
    if isinstance(action, Bid):
        return f"Bid {money(action.amount)}"
    if isinstance(action, AuctionOff | SellToBank):
        known = action.asset in countries or action.asset in b.services
        what = asset_name(state, action.asset) if known else action.asset
        if isinstance(action, SellToBank):
            half = f" for {money(asset_value(state, action.asset) // 2)}" if known else ""
            return f"Sell {what} to the bank{half}"
        return f"Auction {what}"
    if isinstance(action, Downgrade):
        c = countries.get(action.country)
        back = f" (+{money(c.conversion // 2)})" if c else ""
        return f"Downgrade {country(action.country)}{back}"
    if isinstance(action, Remove):
        return f"Remove {country(action.country)}"
    return "Time is up"
