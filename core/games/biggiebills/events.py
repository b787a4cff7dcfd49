"""What happens in BiggieBills$$$: one event class per kind, with what tests and hooks read.

Money is in $M. Every event that moves money is a :class:`~core.engine.MoneyEvent`: its
``moves`` list each payment as ``(payer, payee, amount)``, ``-1`` the bank.
"""

from __future__ import annotations

from typing import Literal

from core.engine import Ending, Event, MoneyEvent, Seat, Standing

__all__ = [
    "BonusEarned",
    "CardsExchanged",
    "CardsReturned",
    "ChallengeAccepted",
    "ChallengeBlocked",
    "ChallengePlayed",
    "CycleBegun",
    "CycleEnded",
    "DeckReshuffled",
    "GameOver",
    "GrowthCompleted",
    "GrowthFailed",
    "GrowthPlayed",
    "HandChanged",
    "NoBonusLeft",
    "TargetChanged",
    "TargetProposed",
    "TargetVoted",
    "TeamBankrupt",
    "TimeCalled",
    "TurnBegun",
    "TurnEnded",
    "TurnSkipped",
    "VoteLapsed",
]


class HandChanged(Event):
    """A team's hand changed (told to that team only): its whole new hand."""

    kind: Literal["hand"] = "hand"
    growth: list[str]
    challenges: list[str]
    bonus: list[str]


class TurnEnded(Event):
    """The team on turn ends its turn (or its time runs out after it acted)."""

    kind: Literal["done"] = "done"


class GrowthPlayed(MoneyEvent):
    """A team plays a Growth card and pays its cost to the bank."""

    kind: Literal["play"] = "play"
    seat: Seat
    card: str
    active: int
    """The id of the card in play."""
    target: Seat | None
    """The team an Acquire a Competitor is played against."""


class ChallengePlayed(MoneyEvent):
    """A team challenges a card in play; the challenged team may block or accept."""

    kind: Literal["challenge"] = "challenge"
    seat: Seat
    active: int
    card: str
    """The Challenge (or Flexible Challenge) card played."""


class ChallengeBlocked(MoneyEvent):
    """The challenged team blocks: the challenger pays it the penalty."""

    kind: Literal["block"] = "block"
    seat: Seat
    """The owner of the challenged card."""
    active: int


class ChallengeAccepted(MoneyEvent):
    """The challenge stands: the owner pays the challenger, and the card will fail."""

    kind: Literal["accept"] = "accept"
    seat: Seat
    """The owner of the challenged card."""
    active: int


class CardsExchanged(MoneyEvent):
    """A team pays the bank to exchange two cards for new ones."""

    kind: Literal["exchange"] = "exchange"
    seat: Seat


class TurnSkipped(MoneyEvent):
    """A team skips its turn (or lets its time run out) and pays the fine."""

    kind: Literal["skip"] = "skip"
    seat: Seat


class CardsReturned(Event):
    """A team returns extra cards to the moderator, or the moderator does when time is up."""

    kind: Literal["return"] = "return"
    seat: Seat
    count: int | None = None
    """How many cards it returned (``None``: the moderator returned them on a timeout)."""


class TargetProposed(Event):
    """A team proposes a new target; the vote opens."""

    kind: Literal["propose"] = "propose"
    seat: Seat
    target: int


class TargetVoted(Event):
    """A team agrees to or refuses the proposed target."""

    kind: Literal["vote"] = "vote"
    seat: Seat
    agree: bool


class DeckReshuffled(Event):
    """An empty deck is refilled from its shuffled discards."""

    kind: Literal["reshuffle"] = "reshuffle"
    deck: str
    """``growth``, ``challenge`` or ``bonus``."""
    size: int


class CycleBegun(MoneyEvent):
    """A Business Cycle begins: its order and, after the first, its Industry card's payments."""

    kind: Literal["cycle"] = "cycle"
    cycle: int
    order: list[Seat]
    industry: str | None = None


class TurnBegun(Event):
    """A team's turn opens."""

    kind: Literal["turn"] = "turn"
    seat: Seat
    cycle: int
    turn: int
    """The index of the turn in the cycle, from 0."""


class CycleEnded(Event):
    """The Business Cycle ends."""

    kind: Literal["cycle_end"] = "cycle_end"


class VoteLapsed(Event):
    """The cycle ends with the vote on a new target still open: it lapses."""

    kind: Literal["vote_lapsed"] = "vote_lapsed"
    target: int


class TimeCalled(Event):
    """The game clock has run out: the cycle ends at once."""

    kind: Literal["time"] = "time"
    cycle: int


class GrowthFailed(Event):
    """A challenged card is discarded with no payoff."""

    kind: Literal["failed"] = "failed"
    seat: Seat
    card: str
    active: int


class GrowthCompleted(MoneyEvent):
    """A card completes and pays off; an Acquire a Competitor also takes over its target."""

    kind: Literal["complete"] = "complete"
    seat: Seat
    card: str
    active: int
    first: bool
    """The first completion of this card in the game."""
    acquired: Seat | None = None
    """The team an Acquire a Competitor took over."""


class NoBonusLeft(Event):
    """A team has earned a Bonus card, but none are left."""

    kind: Literal["bonus_none"] = "bonus_none"
    seat: Seat
    stage: int


class BonusEarned(Event):
    """A team earns a Bonus card for its completions in a stage."""

    kind: Literal["bonus"] = "bonus"
    seat: Seat
    stage: int


class TeamBankrupt(Event):
    """A team has no money left and leaves the game."""

    kind: Literal["bankrupt"] = "bankrupt"
    seat: Seat


class TargetChanged(Event):
    """Every team still in has agreed: the proposed target is the target now."""

    kind: Literal["target"] = "target"
    target: int
    was: int


class GameOver(Event):
    """The game ends, with the final standings."""

    kind: Literal["game_over"] = "game_over"
    ended: Ending
    standings: list[Standing]
