"""The actions of BiggieBills$$$: one discriminated union, the engine's Timeout included.

A team acts through its seat; any member of the team may send the team's action.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, model_validator

from core.engine import ActionSet, Seat, Timeout

__all__ = [
    "ACTIONS",
    "Accept",
    "Action",
    "Block",
    "Challenge",
    "Done",
    "Exchange",
    "PlayGrowth",
    "ProposeTarget",
    "ReturnCards",
    "Skip",
    "Vote",
]


def _single(value: object) -> object:
    # A menu (ui.Select) fills its field with the list of chosen values; one choice is one value.
    if isinstance(value, list) and len(value) == 1:
        return value[0]
    return value


def _copy_tags(value: object) -> object:
    # The exchange menu tells two copies of one card apart as "id#1", "id#2"; the order of
    # the two cards does not matter, so it is sorted (equal exchanges compare equal).
    if isinstance(value, list):
        cards = [v.split("#", 1)[0] if isinstance(v, str) else v for v in value]
        return sorted(cards, key=str)
    return value


CardId = Annotated[str, BeforeValidator(_single)]
SeatArg = Annotated[int, BeforeValidator(_single)]
"""A number, also accepted as the one-element list a menu sends."""
OptionalSeat = Annotated[Seat | None, BeforeValidator(_single)]


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PlayGrowth(_Action):
    """Play a Growth card from the hand, paying its cost; ``target`` names the team to take
    over with "Acquire a Competitor"."""

    type: Literal["play"] = "play"
    card: CardId
    target: OptionalSeat = None


class Challenge(_Action):
    """Challenge the active Growth card ``active`` (its number on the board) with a Challenge
    card or a Flexible Challenge bonus card (``flex_12`` / ``flex_34``)."""

    type: Literal["challenge"] = "challenge"
    active: SeatArg
    card: CardId

    @model_validator(mode="before")
    @classmethod
    def _from_menu(cls, data: object) -> object:
        # The challenge menu fills one field, "choice", with "<active>|<card>".
        if isinstance(data, dict) and "choice" in data:
            data = dict(data)
            choice = _single(data.pop("choice"))
            if isinstance(choice, str) and "|" in choice:
                active, card = choice.split("|", 1)
                data["active"], data["card"] = active, card
        return data


class Exchange(_Action):
    """Exchange two Growth/Challenge cards for two new ones of the same kinds."""

    type: Literal["exchange"] = "exchange"
    cards: Annotated[list[str], BeforeValidator(_copy_tags)]


class Skip(_Action):
    """Skip the turn and pay the fine."""

    type: Literal["skip"] = "skip"


class Done(_Action):
    """End the turn after playing (e.g. not using a second play or a Flexible Challenge)."""

    type: Literal["done"] = "done"


class Block(_Action):
    """Block the pending challenge with a Block a Challenge bonus card."""

    type: Literal["block"] = "block"


class Accept(_Action):
    """Let the pending challenge stand."""

    type: Literal["accept"] = "accept"


class ReturnCards(_Action):
    """After an acquisition: give the moderator back the cards above 6 Growth and 4 Challenge,
    all the extra cards of a kind at once (a menu per kind, so two presses at most)."""

    type: Literal["return"] = "return"
    cards: Annotated[list[str], BeforeValidator(_copy_tags)]


class ProposeTarget(_Action):
    """Propose a new target (in $M) to every team: it takes effect when every team still in
    the game agrees. Made on the proposing team's turn; it does not use the turn's play."""

    type: Literal["target"] = "target"
    target: int


class Vote(_Action):
    """Agree, or not, to the new target proposed."""

    type: Literal["vote"] = "vote"
    agree: bool


Action = (
    PlayGrowth
    | Challenge
    | Exchange
    | Skip
    | Done
    | Block
    | Accept
    | ReturnCards
    | ProposeTarget
    | Vote
    | Timeout
)
ACTIONS: ActionSet[Action] = ActionSet(Action)
"""The action union, declared once: the engine derives its validator and members."""
