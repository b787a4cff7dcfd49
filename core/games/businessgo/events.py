"""What happens in Busine$$ GO: one event class per kind, with what tests and hooks read.

Every action makes one public message, an :class:`ActionReport` of the action's kind (or
:class:`TimedOut`), that lists every payment it made and what it rolled and drew; private
notes may follow it. Money is in dollars.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from core.engine import Event, Move, Seat, Standing
from core.games.businessgo.state import BusinessGoState

__all__ = [
    "REPORTS",
    "ActionReport",
    "AuctionOpened",
    "BetPlaced",
    "BidAccepted",
    "BidSealed",
    "BoomSold",
    "Bought",
    "CompeteChoiceChanged",
    "CompetitionJoined",
    "CorporationConverted",
    "CorporationRemoved",
    "CorporationSetUp",
    "Downgraded",
    "OpeningRolled",
    "Passed",
    "Payback",
    "PrivateNote",
    "Rolled",
    "SaleMade",
    "SoldToBank",
    "TimedOut",
    "Transfer",
    "Travelled",
    "opening_events",
    "payments",
]

Transfer = tuple[Seat, int, str]
"""Money between a seat and the bank, ``(seat, delta, reason)``: a positive ``delta`` is paid
by the bank. A payment between two players is two transfers (a sale at auction)."""


class Payback(BaseModel):
    """What a Service Industry paid its owner as they passed or landed on it."""

    seat: Seat
    service: str
    amount: int


class SaleMade(BaseModel):
    """A sale settled: who sold, what, for how much, and by which corporations."""

    seat: Seat
    product: str
    amount: int
    by: list[str]
    """The countries of the corporations that made the sale."""


class ActionReport(Event):
    """The one public message of an action, and what the action did. Not a kind itself:
    each kind of action has its own subclass."""

    transfers: list[Transfer] = Field(default_factory=list)
    """Every payment, in order."""
    dice: tuple[int, int] | None = None
    """The roll of the player on turn, when it rolled to move."""
    space: str | None = None
    """The space the player on turn landed on (the last, when it moved twice)."""
    demand: list[str] | None = None
    """The Product Demand rolled on landing on a country."""
    mail: str | None = None
    """The Mail card drawn."""
    casino: tuple[int, int] | None = None
    """The Casino roll."""
    paybacks: list[Payback] = Field(default_factory=list)
    sales: list[SaleMade] = Field(default_factory=list)
    bids: dict[Seat, int] | None = None
    """The sealed bids of an auction that closed, by seat (0: passed)."""
    standings: list[Standing] | None = None
    """The final standings, when the action ended the game."""


class Rolled(ActionReport):
    """The player on turn rolls and moves."""

    kind: Literal["roll"] = "roll"


class CorporationSetUp(ActionReport):
    """The player on turn sets up a National Corporation."""

    kind: Literal["setup"] = "setup"


class CorporationConverted(ActionReport):
    """The player on turn converts a National Corporation into an International one."""

    kind: Literal["convert"] = "convert"


class Bought(ActionReport):
    """The player on turn buys the licence or Service Industry it landed on."""

    kind: Literal["buy"] = "buy"


class Passed(ActionReport):
    """A player declines, stops, stays or ends: does nothing more here."""

    kind: Literal["pass"] = "pass"


class BoomSold(ActionReport):
    """Boom: the player on turn sells one product of its choice."""

    kind: Literal["sell"] = "sell"


class BetPlaced(ActionReport):
    """Casino: the player on turn bets against the bank and rolls."""

    kind: Literal["bet"] = "bet"


class Travelled(ActionReport):
    """Travel Agency: the player on turn pays the fare and moves to a country."""

    kind: Literal["travel"] = "travel"


class CompetitionJoined(ActionReport):
    """A player enters the open sales competition."""

    kind: Literal["join"] = "join"


class BidSealed(ActionReport):
    """A player bids in secret in the open auction (or passes)."""

    kind: Literal["bid"] = "bid"


class BidAccepted(ActionReport):
    """The seller sells to the best bidder."""

    kind: Literal["accept"] = "accept"


class CompeteChoiceChanged(ActionReport):
    """A player changes its standing choice of joining every sales competition."""

    kind: Literal["always_compete"] = "always_compete"


class AuctionOpened(ActionReport):
    """A player in debt offers an asset at auction."""

    kind: Literal["auction"] = "auction"


class SoldToBank(ActionReport):
    """A player in debt sells an asset to the bank for half."""

    kind: Literal["sell_bank"] = "sell_bank"


class Downgraded(ActionReport):
    """A player in debt turns an International Corporation back into a National one."""

    kind: Literal["downgrade"] = "downgrade"


class CorporationRemoved(ActionReport):
    """Mail: the player's chosen corporation goes bankrupt and leaves the board."""

    kind: Literal["remove"] = "remove"


class TimedOut(ActionReport):
    """Time is up: the game makes the least harmful choice, or closes the open window."""

    kind: Literal["timeout"] = "timeout"


class OpeningRolled(Event):
    """The opening roll, told as the game begins: who starts."""

    kind: Literal["opening"] = "opening"


class PrivateNote(Event):
    """A note to one player alone (its sealed bid, its standing choice)."""

    kind: Literal["note"] = "note"


REPORTS: dict[str, type[ActionReport]] = {
    report.model_fields["kind"].default: report
    for report in (
        Rolled,
        CorporationSetUp,
        CorporationConverted,
        Bought,
        Passed,
        BoomSold,
        BetPlaced,
        Travelled,
        CompetitionJoined,
        BidSealed,
        BidAccepted,
        CompeteChoiceChanged,
        AuctionOpened,
        SoldToBank,
        Downgraded,
        CorporationRemoved,
        TimedOut,
    )
}
"""The report of each kind of action, by its ``type`` (``timeout`` for a deadline's)."""


def payments(event: Event) -> list[Move]:
    """An action's report lists ``(seat, delta, reason)``: positive is paid by the bank."""
    if not isinstance(event, ActionReport):
        return []
    return [
        (-1, seat, delta) if delta > 0 else (seat, -1, -delta)
        for seat, delta, _reason in event.transfers
    ]


def opening_events(state: BusinessGoState) -> list[Event]:
    """The opening roll that decided who goes first, told as the game begins."""
    return [OpeningRolled(text=state.opening)] if state.opening else []
