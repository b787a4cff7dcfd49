"""The actions of The Big Idea: one discriminated union, the engine's Timeout included."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict

from core.engine import ActionSet, Seat, Timeout

__all__ = [
    "ACTIONS",
    "PITCH_LIMIT",
    "Action",
    "Invest",
    "Pass",
    "Pick",
    "Pitch",
    "Point",
    "ProductId",
    "Withdraw",
]

PITCH_LIMIT = 200
"""Longest pitch, in characters, after trimming."""


def _single(value: object) -> object:
    # A menu (ui.Select) fills its field with the list of chosen values; one choice is one id.
    if isinstance(value, list) and len(value) == 1:
        return value[0]
    return value


ProductId = Annotated[int, BeforeValidator(_single)]
"""A product number, also accepted as the one-element list a menu sends."""


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Pick(_Action):
    """Seed phase: the cards of your new product, chosen in secret."""

    type: Literal["pick"] = "pick"
    cards: list[str]


class Pitch(_Action):
    """Venture phase, until everyone has pointed: a sales pitch for your new product, posted
    to the table."""

    type: Literal["pitch"] = "pitch"
    text: str


class Point(_Action):
    """Venture phase: point at a player in secret (``None``: at nobody)."""

    type: Literal["point"] = "point"
    seat: Seat | None = None


class Invest(_Action):
    """Mezzanine: put one of your chits on a product, paying the chits already on it."""

    type: Literal["invest"] = "invest"
    product: ProductId


class Withdraw(_Action):
    """Mezzanine: take one of your chits back from a product."""

    type: Literal["withdraw"] = "withdraw"
    product: ProductId


class Pass(_Action):
    """Mezzanine: move no chits."""

    type: Literal["pass"] = "pass"


Action = Pick | Pitch | Point | Invest | Withdraw | Pass | Timeout
ACTIONS: ActionSet[Action] = ActionSet(Action)
"""The action union, declared once: the engine derives its validator and members."""
