"""Text commands (``/businessgo roll``, ``/businessgo bet 250k`` ...): typed play."""

from __future__ import annotations

from core.commands import Arg, Command, Kind
from core.engine import IllegalAction, Seat
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
from core.games.businessgo.text import parse_amount
from core.games.businessgo.ui import BET_FORM, BID_FORM
from core.text import escape

__all__ = ["COMMANDS", "parse_text"]

_COUNTRY = Arg("country", Kind.PLACE)
_HOLDING = Arg("country|service", Kind.PLACE)
COMMANDS: tuple[Command, ...] = (
    Command("roll", "roll the dice and move"),
    Command("setup", "before rolling, set up a National Corporation", (_COUNTRY,)),
    Command(
        "convert", "before rolling, make a corporation that has sold International", (_COUNTRY,)
    ),
    Command("buy", "buy the licence or Service Industry you landed on"),
    Command("pass", "decline, stop betting, stay, end a Boom or stay out of a competition"),
    Command("sell", "in a Boom, sell one of your products", (Arg("product", Kind.CARD),)),
    Command(
        "bet", "bet at the Casino (e.g. `bet 250k`)", (Arg("amount", Kind.AMOUNT),), ask=BET_FORM
    ),
    Command("travel", "at the Travel Agency, travel there", (_COUNTRY,)),
    Command(
        "compete",
        "join the open sales competition; `compete ask` / `compete always`: be asked each time, "
        "or join every one without being asked (the default)",
        (Arg("standing", Kind.WORD, required=False, choices=("ask", "always")),),
    ),
    Command("bid", "a sealed bid in the open auction", (Arg("amount", Kind.AMOUNT),), ask=BID_FORM),
    Command("accept", "your auction has closed, sell to the best bidder"),
    Command("auction", "in debt, auction it to the other players", (_HOLDING,)),
    Command("bank", "in debt, sell it to the bank for half", (_HOLDING,)),
    Command("downgrade", "in debt, make an International National again", (_COUNTRY,)),
    Command("remove", "the corporation a Mail card makes go bankrupt", (_COUNTRY,)),
)
_NO_ARGUMENT: dict[str, type[Roll | Buy | Pass | Join | Accept]] = {
    "roll": Roll,
    "buy": Buy,
    "pass": Pass,
    "compete": Join,
    "accept": Accept,
}
_STANDING = {"always": True, "auto": True, "ask": False, "asked": False}
"""``compete always`` / ``compete ask``: the standing choice for sales competitions."""


def parse_text(state: BusinessGoState, seat: Seat, word: str, rest: str) -> Action | None:
    """The action a text command means; None when its argument is missing."""
    rest = rest.strip()
    if word == "compete" and rest:
        key = rest.lower()
        if key not in _STANDING:
            raise IllegalAction(
                "Type `compete` to join the open competition, `compete always` to join every "
                "one without being asked, or `compete ask` to be asked each time."
            )
        return AlwaysCompete(always=_STANDING[key])
    if word in _NO_ARGUMENT:
        return _NO_ARGUMENT[word]()
    if not rest:
        return None
    if word in ("bet", "bid"):
        amount = parse_amount(rest)
        if amount is None:
            raise IllegalAction(
                f"Give an amount in dollars, such as `{word} 250000` or `{word} 250k`."
            )
        return Bet(amount=amount) if word == "bet" else Bid(amount=amount)
    if word == "sell":
        return Sell(product=_product(rest))
    if word == "setup":
        return Setup(country=rest)
    if word == "convert":
        return Convert(country=rest)
    if word == "travel":
        return Travel(country=rest)
    if word == "downgrade":
        return Downgrade(country=rest)
    if word == "remove":
        return Remove(country=rest)
    if word == "auction":
        return AuctionOff(asset=rest)
    if word == "bank":
        return SellToBank(asset=rest)
    return None


def _product(text: str) -> str:
    key = text.strip().lower()
    for product in board().product:
        if key in (product.id, product.name, product.name.rstrip("s")):
            return product.id
    names = ", ".join(p.name for p in board().product)
    raise IllegalAction(f"There is no product called “{escape(text)}”; the products are {names}.")
