"""The actions of Busine$$ GO: one discriminated union, the engine's Timeout included."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict

from core.engine import ActionSet, Timeout
from core.games.businessgo.board import board

__all__ = [
    "ACTIONS",
    "Accept",
    "Action",
    "AlwaysCompete",
    "AuctionOff",
    "Bet",
    "Bid",
    "Buy",
    "Convert",
    "Downgrade",
    "Join",
    "Pass",
    "Remove",
    "Roll",
    "Sell",
    "SellToBank",
    "Setup",
    "Travel",
]


def _single(value: object) -> object:
    # A menu (ui.Select) fills its field with the list of chosen values; one choice is one value.
    if isinstance(value, list) and len(value) == 1:
        return value[0]
    return value


def _key(name: str) -> str:
    return name.strip().lower().replace(" ", "_").replace("-", "_")


def _country(value: object) -> object:
    # A country is named by its id or its name ("United States"): read as its id, so that one
    # choice is one action however it is typed. A name of no country is left for the rules
    # to refuse, with a sentence.
    value = _single(value)
    if not isinstance(value, str):
        return value
    countries = board().countries
    if _key(value) in countries:
        return _key(value)
    return next((cid for cid, c in countries.items() if _key(c.name) == _key(value)), value)


def _asset(value: object) -> object:
    # A country (as above) or a Service Industry, by its id or its name ("Law Firm").
    value = _single(value)
    if not isinstance(value, str):
        return value
    services = board().services
    found = next((sid for sid, s in services.items() if _key(value) in (sid, _key(s.name))), None)
    return found if found is not None else _country(value)


Id = Annotated[str, BeforeValidator(_single)]
CountryId = Annotated[str, BeforeValidator(_country)]
"""A country's id, also read from its name."""
AssetId = Annotated[str, BeforeValidator(_asset)]
"""A country's or a Service Industry's id, also read from its name."""
Amount = Annotated[int, BeforeValidator(_single)]


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Roll(_Action):
    """Roll the two dice and move (ends the time for setting up and converting)."""

    type: Literal["roll"] = "roll"


class Setup(_Action):
    """Before rolling: set up a National Corporation on a country whose licence you own."""

    type: Literal["setup"] = "setup"
    country: CountryId


class Convert(_Action):
    """Before rolling: convert a National Corporation that has made a sale."""

    type: Literal["convert"] = "convert"
    country: CountryId


class Buy(_Action):
    """Buy the licence or Service Industry you landed on."""

    type: Literal["buy"] = "buy"


class Pass(_Action):
    """Decline, stop, stay or end: the choice of doing nothing more here."""

    type: Literal["pass"] = "pass"


class Sell(_Action):
    """Boom: sell one product of your choice."""

    type: Literal["sell"] = "sell"
    product: Id


class Bet(_Action):
    """Casino: bet this many dollars against the bank."""

    type: Literal["bet"] = "bet"
    amount: Amount


class Travel(_Action):
    """Travel Agency: pay the fare and move clockwise to this country."""

    type: Literal["travel"] = "travel"
    country: CountryId


class Join(_Action):
    """Enter the open sales competition."""

    type: Literal["join"] = "join"


class Bid(_Action):
    """A sealed bid in the open auction."""

    type: Literal["bid"] = "bid"
    amount: Amount


class Accept(_Action):
    """The auction has closed: sell to the best bidder (or sell to the bank instead)."""

    type: Literal["accept"] = "accept"


class AlwaysCompete(_Action):
    """A standing choice, at any time: join every sales competition you may enter without
    being asked (``always``), or be asked each time."""

    type: Literal["always_compete"] = "always_compete"
    always: bool


class AuctionOff(_Action):
    """In debt: offer a country (licence and corporation) or a Service Industry at auction."""

    type: Literal["auction"] = "auction"
    asset: AssetId


class SellToBank(_Action):
    """In debt: sell a country (licence and corporation) or a Service Industry for half."""

    type: Literal["sell_bank"] = "sell_bank"
    asset: AssetId


class Downgrade(_Action):
    """In debt: turn an International Corporation back into a National one for half its
    conversion."""

    type: Literal["downgrade"] = "downgrade"
    country: CountryId


class Remove(_Action):
    """Mail: the corporation of yours that has gone bankrupt."""

    type: Literal["remove"] = "remove"
    country: AssetId


Action = (
    Roll
    | Setup
    | Convert
    | Buy
    | Pass
    | Sell
    | Bet
    | Travel
    | Join
    | Bid
    | Accept
    | AlwaysCompete
    | AuctionOff
    | SellToBank
    | Downgrade
    | Remove
    | Timeout
)
ACTIONS: ActionSet[Action] = ActionSet(Action)
"""The action union, declared once: the engine derives its validator and members."""
