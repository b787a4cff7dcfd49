"""Text commands (``/bigidea pitch ...``): the way to type what buttons cannot carry.

Each is declared with its arguments' kinds, which read what is typed (``core.commands.read``),
and the move they make."""

from __future__ import annotations

from functools import cache

from core.commands import Arg, Command, Kind, Values
from core.engine import Seat
from core.games.bigidea.actions import PITCH_LIMIT, Invest, Pass, Pick, Pitch, Point, Withdraw
from core.games.bigidea.cards import catalogue
from core.games.bigidea.state import BigIdeaState
from core.games.bigidea.ui import PITCH_FORM

__all__ = ["COMMANDS"]


@cache
def card_names() -> dict[str, tuple[str, ...]]:
    """Every card by its id, with the names it goes by (a prefix card's without its dash, and
    its printed name)."""
    return {
        card.id: tuple({card.name, card.name.rstrip("-"), (card.printed or card.name).lower()})
        for card in catalogue().values()
    }


def _pitch(state: BigIdeaState, seat: Seat, typed: Values) -> Pitch:
    return Pitch(text=typed.text(0))


def _pick(state: BigIdeaState, seat: Seat, typed: Values) -> Pick:
    more = typed.names(1) if typed.given(1) else []
    return Pick(cards=[typed.text(0), *more])


def _point(state: BigIdeaState, seat: Seat, typed: Values) -> Point:
    return Point(seat=typed.seat(0))


def _invest(state: BigIdeaState, seat: Seat, typed: Values) -> Invest:
    return Invest(product=typed.number(0))


def _withdraw(state: BigIdeaState, seat: Seat, typed: Values) -> Withdraw:
    return Withdraw(product=typed.number(0))


def _pass(state: BigIdeaState, seat: Seat, typed: Values) -> Pass:
    return Pass()


_CARD = Arg("card", Kind.CARD, names=card_names, unknown="There is no card called “{text}”.")
_PRODUCT = Arg(
    "product #",
    Kind.NUMBER,
    unknown="Give the product's number from the board, such as `{word} 3`.",
)
COMMANDS: tuple[Command, ...] = (
    Command(
        "pitch",
        f"pitch your new product to the table (up to {PITCH_LIMIT} characters)",
        (Arg("text"),),
        ask=PITCH_FORM,
        make=_pitch,
    ),
    Command(
        "pick",
        "pick the cards of your new product in secret",
        (
            _CARD,
            Arg(
                "card",
                Kind.CARD,
                required=False,
                names=card_names,
                many=True,
                unknown=_CARD.unknown,
            ),
        ),
        make=_pick,
    ),
    Command(
        "point",
        "point in secret in the venture phase",
        (
            Arg(
                "player|nobody",
                Kind.PLAYER,
                words=(("nobody", None), ("none", None), ("no one", None), ("noone", None)),
                unknown="Point at one of {names}, or at nobody.",
            ),
        ),
        make=_point,
    ),
    Command("invest", "put a chit on a product on your mezzanine turn", (_PRODUCT,), make=_invest),
    Command(
        "withdraw",
        "take one of your chits back on your mezzanine turn",
        (_PRODUCT,),
        make=_withdraw,
    ),
    Command("pass", "move no chits on your mezzanine turn", make=_pass),
)
