"""The options and the full state of a game of Busine$$ GO."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, Field

from core.engine import MAX_SECONDS, GameOptions, GameState, Seat

__all__ = [
    "NORMAL_TARGET",
    "SHORT_TARGET",
    "Auction",
    "BusinessGoOptions",
    "BusinessGoState",
    "Corporation",
    "Sale",
]

NORMAL_TARGET = 10_000_000
SHORT_TARGET = 5_000_000


class BusinessGoOptions(GameOptions):
    """Table options. The attribute docstrings are the lobby's option help."""

    short: bool = False
    """Short game: the first to $5,000,000 wins instead of $10,000,000."""
    target: int | None = Field(default=None, ge=1_000_000, le=100_000_000)
    """A custom winning amount in dollars (overrides `short`)."""
    advanced: bool = False
    """Advanced rule: a National Corporation sells only on its own continent."""
    turn_seconds: int = Field(default=60, ge=0, le=MAX_SECONDS)
    """Seconds for each of your decisions before the least harmful choice is made; 0 waits."""
    compete_seconds: int = Field(default=20, ge=0, le=MAX_SECONDS)
    """Seconds to join a sales competition (you snooze, you lose); 0 waits for every answer."""
    auction_seconds: int = Field(default=30, ge=0, le=MAX_SECONDS)
    """Seconds to bid in an auction; 0 waits for every answer."""
    max_rounds: int = Field(default=100, ge=1, le=1000)
    """Round cap: after this many rounds the richest player wins."""
    auto_moves: bool = True
    """A move that is the only legal one is made for you (no button to press for it)."""
    # ``printed``: the rulebook asks each player to state that they enter a competition.
    always_compete: bool = Field(default=True, json_schema_extra={"printed": "no"})
    """Everyone starts by joining every sales competition they may enter without being asked
    (each player can switch with `/businessgo compete ask`); no: everyone is asked."""

    @property
    def goal(self) -> int:
        if self.target is not None:
            return self.target
        return SHORT_TARGET if self.short else NORMAL_TARGET


class Corporation(BaseModel):
    """A corporation on a COUNTRY space (the licence is owned by the same player)."""

    country: str
    owner: Seat
    international: bool = False
    chimney: bool = False
    """Has made a sale (the first white chimney)."""


class Sale(BaseModel):
    """A sale announced by the player on turn, with its sales competition."""

    product: str
    country: str | None
    """Where the sale is made; None during a Boom."""
    seller: Seat
    eligible: list[Seat] = Field(default_factory=list)
    """Other owners of the product who may join the competition."""
    joined: list[Seat] = Field(default_factory=list)
    declined: list[Seat] = Field(default_factory=list)

    @property
    def undecided(self) -> list[Seat]:
        return [s for s in self.eligible if s not in self.joined and s not in self.declined]


class Auction(BaseModel):
    """A debtor's asset offered to the other players for sealed bids."""

    seller: Seat
    asset: str
    eligible: list[Seat]
    floor: int = 10_000
    """The bank's price for the asset (half its cost, at least $10,000): the smallest bid, and
    what the seller gets by turning the bids down."""
    bids: dict[int, int] = Field(default_factory=dict)
    """Seat -> bid in dollars (0: passed). Secret until the auction closes."""

    def best(self) -> tuple[Seat, int] | None:
        """The highest bid and its bidder (a tie goes to the first bidder clockwise from the
        seller, the order of ``eligible``); None when nobody bid."""
        offers = [(self.bids.get(s, 0), -i, s) for i, s in enumerate(self.eligible)]
        amount, _, seat = max(offers, default=(0, 0, -1))
        return (seat, amount) if amount > 0 else None

    @property
    def undecided(self) -> list[Seat]:
        return [s for s in self.eligible if s not in self.bids]


class BusinessGoState(GameState):
    """Everything about a game; only auction bids and the card order are secret."""

    @classmethod
    def legacy_decision(cls, data: Mapping[str, object]) -> str | None:
        phase = str(data.get("phase", "turn"))
        return None if phase == "over" else phase

    @classmethod
    def upgrade(cls, data: dict[str, object]) -> dict[str, object]:
        # Until issue 38 the game kept a phase of its own beside the decision (the same names).
        if "phase" not in data:
            return data  # as stored now (every copy the engine makes reads this way)
        return {key: value for key, value in data.items() if key != "phase"}

    options: BusinessGoOptions
    cash: list[int]
    position: list[int]
    bankrupt: list[bool]
    burnout: list[int]
    """Turns each seat still has to skip."""
    licences: dict[str, Seat] = Field(default_factory=dict)
    """Country id -> licence owner."""
    corporations: dict[str, Corporation] = Field(default_factory=dict)
    services: dict[str, Seat] = Field(default_factory=dict)
    mail: list[str]
    """Mail card ids, top first."""
    fees: list[str]
    """Operating Fees card ids, top first."""
    opening: str = ""
    """How the opening roll went."""
    unsold: list[str] = Field(default_factory=list)
    """Assets that drew no bid in the current debt: they cannot be auctioned again."""
    starter: Seat = 0
    turn: Seat = 0
    round: int = 1
    dice: list[int] = Field(default_factory=list)
    """The last movement roll."""
    sales: list[Sale] = Field(default_factory=list)
    """Pending sales; the first is the one being settled."""
    after_sales: Literal["licence", "boom", "end"] = "end"
    boom_sold: list[str] = Field(default_factory=list)
    boom_left: int = 0
    casino_bets: int = 0
    auction: Auction | None = None
    bank_paid: int = 0
    """Dollars the bank paid to players (sales, grants, casino wins, sold assets...)."""
    debts: list[int] = Field(default_factory=list)
    """How many times each seat has had to raise cash (sell, downgrade or auction) for a debt."""
    bank_received: int = 0
    """Dollars players paid to the bank (licences, fees, bets, debts written off count here)."""
    moving: int = 0
    """Steps the player on turn still has to move: a debt that arose on the way (Operating
    Fees passed) is settled first, then the move goes on."""
    closed: list[str] = Field(default_factory=list)
    """Countries whose corporation went bankrupt (Mail card): no corporation is ever set up
    there again, and their licence is not for sale."""
    ask_compete: list[bool] = Field(default_factory=list)
    """Seats that want to be asked before joining a sales competition (the standing choice;
    empty: everybody always joins)."""
    asked: list[int] = Field(default_factory=list)
    """Decisions each seat has made: its actions, not counting the moves made for it (the
    only legal move), the clock's or a standing choice."""

    @property
    def players(self) -> int:
        return len(self.names)

    def active(self) -> list[Seat]:
        return [s for s in self.seats if not self.bankrupt[s]]

    def corporations_of(self, seat: Seat) -> list[Corporation]:
        """The seat's corporations on countries (its Service Industries are not listed)."""
        return [c for c in self.corporations.values() if c.owner == seat]

    def services_of(self, seat: Seat) -> list[str]:
        return [sid for sid, owner in self.services.items() if owner == seat]

    def units(self, seat: Seat, national: int = 1, international: int = 3) -> int:
        """Operating Fees units; a Service Industry carries an International Corporation."""
        return international * len(self.services_of(seat)) + sum(
            international if c.international else national for c in self.corporations_of(seat)
        )

    def always_competes(self, seat: Seat) -> bool:
        return not (self.ask_compete and self.ask_compete[seat])
