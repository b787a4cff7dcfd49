"""What happens in The Big Idea: one event class per kind, with what tests and hooks read.

Money is in cents. Every event that moves money is a :class:`~core.engine.MoneyEvent`: its
``moves`` list each payment as ``(payer, payee, cents)``, ``-1`` the bank.
"""

from __future__ import annotations

from typing import Literal

from core.engine import Event, MoneyEvent, Seat, Standing

__all__ = [
    "CardsDealt",
    "ChitInvested",
    "ChitWithdrawn",
    "DeckEmpty",
    "DeckReshuffled",
    "GameOver",
    "IpoHeld",
    "MezzanineOpened",
    "PickChosen",
    "PicksRevealed",
    "Pitched",
    "PlayerPassed",
    "PointChosen",
    "PointsRevealed",
    "ProductDiscarded",
    "RoundBegun",
    "TimedOut",
    "VentureOpened",
]


class DeckReshuffled(Event):
    """The empty deck is refilled from the shuffled discards."""

    kind: Literal["reshuffle"] = "reshuffle"
    deck_size: int


class CardsDealt(Event):
    """A player receives cards (told to that player only)."""

    kind: Literal["cards"] = "cards"
    cards: list[str]


class DeckEmpty(Event):
    """Deck and discards ran out while dealing: some players got fewer cards."""

    kind: Literal["deck_empty"] = "deck_empty"
    short: list[str]
    """The names of the players dealt fewer cards."""


class RoundBegun(Event):
    """A round begins: its dealer deals, and the seed phase opens."""

    kind: Literal["round"] = "round"
    round: int
    dealer: Seat


class PickChosen(Event):
    """A player's pick, or the random one made for them (told to that player only)."""

    kind: Literal["your_pick"] = "your_pick"
    cards: list[str]


class PicksRevealed(Event):
    """Every pick is turned face up at once; products are made, the rest discarded."""

    kind: Literal["reveal"] = "reveal"
    picks: list[list[str] | None]
    """Each seat's pick, ``None`` for a seat that made none."""
    products: list[int]
    """The ids of the products made."""


class VentureOpened(Event):
    """The venture phase opens: owners may pitch, everyone points in secret."""

    kind: Literal["venture"] = "venture"


class Pitched(Event):
    """An owner pitches their new product, in their own words."""

    kind: Literal["pitch"] = "pitch"
    seat: Seat
    product: int
    pitch: str
    """The pitch as the owner wrote it (spaces collapsed)."""


class PointChosen(Event):
    """Where a player points (told to that player only)."""

    kind: Literal["your_vote"] = "your_vote"
    seat: Seat | None
    """The seat pointed at, ``None`` for nobody."""


class PointsRevealed(Event):
    """Every pointing finger is shown at once and the chits are placed."""

    kind: Literal["votes"] = "votes"
    votes: list[Seat | None]
    """Where each seat pointed, ``None`` for nobody."""


class MezzanineOpened(Event):
    """The mezzanine phase opens, from the dealer clockwise."""

    kind: Literal["mezzanine"] = "mezzanine"


class PlayerPassed(Event):
    """A player passes in the mezzanine, or has no chit to move and passes by itself."""

    kind: Literal["pass"] = "pass"
    seat: Seat
    auto: bool = False
    """The game passed for the player: it had no other choice."""


class ChitInvested(MoneyEvent):
    """A player invests a chit in a product, paying the chits already on it."""

    kind: Literal["invest"] = "invest"
    seat: Seat
    product: int
    paid: list[int]
    """What the investor paid each seat, in cents."""


class ChitWithdrawn(Event):
    """A player takes a chit back from a product."""

    kind: Literal["withdraw"] = "withdraw"
    seat: Seat
    product: int


class ProductDiscarded(Event):
    """A product with no chits is discarded at the IPO."""

    kind: Literal["ipo_discard"] = "ipo_discard"
    product: int
    cards: list[str]


class IpoHeld(MoneyEvent):
    """A product's IPO roll: on a success the bank pays every chit on it."""

    kind: Literal["ipo"] = "ipo"
    product: int
    cards: list[str]
    roll: int
    chits: int
    success: bool
    payouts: list[int]
    """What each seat received, in cents."""


class TimedOut(Event):
    """Time is up for the seats the game was waiting for."""

    kind: Literal["timeout"] = "timeout"
    phase: Literal["pick", "venture", "mezzanine"]
    seats: list[Seat]


class GameOver(Event):
    """Every player has dealt twice: the final standings."""

    kind: Literal["game_over"] = "game_over"
    standings: list[Standing]
