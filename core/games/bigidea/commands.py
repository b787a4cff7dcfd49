"""Text commands (``/bigidea pitch ...``): the way to type what buttons cannot carry."""

from __future__ import annotations

from core.commands import Arg, Command, Kind
from core.engine import IllegalAction, Seat
from core.games.bigidea.actions import (
    PITCH_LIMIT,
    Action,
    Invest,
    Pass,
    Pick,
    Pitch,
    Point,
    Withdraw,
)
from core.games.bigidea.cards import catalogue
from core.games.bigidea.state import BigIdeaState
from core.games.bigidea.ui import PITCH_FORM
from core.text import escape

__all__ = ["COMMANDS", "parse_text"]

COMMANDS: tuple[Command, ...] = (
    Command(
        "pitch",
        f"pitch your new product to the table (up to {PITCH_LIMIT} characters)",
        (Arg("text"),),
        ask=PITCH_FORM,
    ),
    Command(
        "pick",
        "pick the cards of your new product in secret",
        (Arg("card", Kind.CARD), Arg("card", Kind.CARD)),
    ),
    Command(
        "point",
        "point in secret in the venture phase",
        (Arg("player|nobody", Kind.PLAYER),),
    ),
    Command(
        "invest",
        "put a chit on a product on your mezzanine turn",
        (Arg("product #", Kind.NUMBER),),
    ),
    Command(
        "withdraw",
        "take one of your chits back on your mezzanine turn",
        (Arg("product #", Kind.NUMBER),),
    ),
    Command("pass", "move no chits on your mezzanine turn"),
)
_NOBODY = {"nobody", "none", "no one", "noone"}


def parse_text(state: BigIdeaState, seat: Seat, word: str, rest: str) -> Action | None:
    """The action a text command means; None when its argument is missing."""
    rest = rest.strip()
    if word == "pass":
        return Pass()
    if not rest:
        return None
    if word == "pitch":
        return Pitch(text=rest)
    if word == "pick":
        return Pick(cards=[_card_id(name) for name in rest.replace(",", " ").split()])
    if word == "point":
        return Point(seat=_seat(state, rest))
    if word in ("invest", "withdraw"):
        number = rest.removeprefix("#")
        if not number.isdigit():
            raise IllegalAction(f"Give the product's number from the board, such as `{word} 3`.")
        return Invest(product=int(number)) if word == "invest" else Withdraw(product=int(number))
    return None


def _card_id(text: str) -> str:
    key = text.strip().lower()
    for card in catalogue().values():
        names = {card.id, card.name, card.name.rstrip("-"), (card.printed or "").lower()}
        if key in names:
            return card.id
    raise IllegalAction(f"There is no card called “{escape(text)}”.")


def _seat(state: BigIdeaState, text: str) -> Seat | None:
    key = text.strip().lower().removeprefix("@")
    if key in _NOBODY:
        return None
    matches = [s for s, name in enumerate(state.names) if name.lower() == key]
    if not matches:
        matches = [s for s, name in enumerate(state.names) if name.lower().startswith(key)]
    if len(matches) == 1:
        return matches[0]
    raise IllegalAction(f"Point at one of {', '.join(state.names)}, or at nobody.")
