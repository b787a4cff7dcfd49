"""Text commands (``/businessgo roll``, ``/businessgo bet 250k`` ...): typed play.

Each is declared with its arguments' kinds, which read what is typed (``core.commands.read``:
an amount with ``k`` or ``M``, a country or a Service Industry by its name), and the move they
make."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from pydantic import BaseModel

from core.commands import Arg, Command, Kind, Values
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
from core.games.businessgo.state import BusinessGoState
from core.games.businessgo.ui import BET_FORM, BID_FORM

__all__ = ["COMMANDS", "country_names", "holding_names", "product_names"]


@cache
def country_names() -> dict[str, tuple[str, ...]]:
    """Every country by its id, with its name."""
    return {country.id: (country.name,) for country in board().country}


@cache
def holding_names() -> dict[str, tuple[str, ...]]:
    """What a player may hold and sell: every country and every Service Industry."""
    return {**country_names(), **{s.id: (s.name,) for s in board().service}}


@cache
def product_names() -> dict[str, tuple[str, ...]]:
    """Every product by its id, with its name (and without its plural's s)."""
    return {p.id: (p.name, p.name.rstrip("s")) for p in board().product}


def _plain(
    kind: type[Roll | Buy | Pass | Accept],
) -> Callable[[BusinessGoState, Seat, Values], Action]:
    def make(state: BusinessGoState, seat: Seat, typed: Values) -> Action:
        return kind()

    return make


def _named(
    kind: type[Setup | Convert | Travel | Downgrade | Remove | AuctionOff | SellToBank | Sell],
) -> Callable[[BusinessGoState, Seat, Values], BaseModel]:
    """The move ``kind`` of the one thing named (its first field)."""
    field = next(name for name in kind.model_fields if name != "type")

    def make(state: BusinessGoState, seat: Seat, typed: Values) -> BaseModel:
        return kind.model_validate({field: typed.text(0)})

    return make


def _compete(state: BusinessGoState, seat: Seat, typed: Values) -> Action:
    """``compete``: join the open competition; ``compete always`` / ``ask``: the standing
    choice."""
    if not typed.given(0):
        return Join()
    return AlwaysCompete(always=typed.any(0) is True)


def _bet(state: BusinessGoState, seat: Seat, typed: Values) -> Bet:
    return Bet(amount=typed.number(0))


def _bid(state: BusinessGoState, seat: Seat, typed: Values) -> Bid:
    return Bid(amount=typed.number(0))


_COUNTRY = Arg(
    "country",
    Kind.PLACE,
    names=country_names,
    unknown="There is no country called “{text}”: the board's track names every country "
    "(`/businessgo status` shows it).",
)
_HOLDING = Arg(
    "country|service",
    Kind.PLACE,
    names=holding_names,
    unknown="There is no country or Service Industry called “{text}”: `/businessgo hand` "
    "lists yours.",
)
_AMOUNT = Arg(
    "amount",
    Kind.AMOUNT,
    unknown="Give an amount in dollars, such as `{word} 250000` or `{word} 250k`.",
)
COMMANDS: tuple[Command, ...] = (
    Command("roll", "roll the dice and move", make=_plain(Roll)),
    Command(
        "setup",
        "before rolling, set up a National Corporation",
        (_COUNTRY,),
        make=_named(Setup),
    ),
    Command(
        "convert",
        "before rolling, make a corporation that has sold International",
        (_COUNTRY,),
        make=_named(Convert),
    ),
    Command("buy", "buy the licence or Service Industry you landed on", make=_plain(Buy)),
    Command(
        "pass",
        "decline, stop betting, stay, end a Boom or stay out of a competition",
        make=_plain(Pass),
    ),
    Command(
        "sell",
        "in a Boom, sell one of your products",
        (
            Arg(
                "product",
                Kind.CARD,
                names=product_names,
                unknown="There is no product called “{text}”; the products are {names}.",
            ),
        ),
        make=_named(Sell),
    ),
    Command("bet", "bet at the Casino (e.g. `bet 250k`)", (_AMOUNT,), ask=BET_FORM, make=_bet),
    Command("travel", "at the Travel Agency, travel there", (_COUNTRY,), make=_named(Travel)),
    Command(
        "compete",
        "join the open sales competition; `compete ask` / `compete always`: be asked each time, "
        "or join every one without being asked (the default)",
        (
            Arg(
                "standing",
                Kind.WORD,
                required=False,
                choices=("ask", "always"),
                words=(("always", True), ("auto", True), ("ask", False), ("asked", False)),
                unknown="Type `compete` to join the open competition, `compete always` to join "
                "every one without being asked, or `compete ask` to be asked each time.",
            ),
        ),
        make=_compete,
    ),
    Command("bid", "a sealed bid in the open auction", (_AMOUNT,), ask=BID_FORM, make=_bid),
    Command("accept", "your auction has closed, sell to the best bidder", make=_plain(Accept)),
    Command(
        "auction",
        "in debt, auction it to the other players",
        (_HOLDING,),
        make=_named(AuctionOff),
    ),
    Command("bank", "in debt, sell it to the bank for half", (_HOLDING,), make=_named(SellToBank)),
    Command(
        "downgrade",
        "in debt, make an International National again",
        (_COUNTRY,),
        make=_named(Downgrade),
    ),
    Command(
        "remove",
        "the corporation a Mail card makes go bankrupt",
        # A Service Industry's too: the name of either is read.
        (Arg("country", Kind.PLACE, names=holding_names, unknown=_HOLDING.unknown),),
        make=_named(Remove),
    ),
)
