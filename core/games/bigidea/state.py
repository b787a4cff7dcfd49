"""The options and the full (secret-holding) state of a game of The Big Idea."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from core.engine import MAX_SECONDS, GameOptions, GameState, Seat

__all__ = [
    "BASE_CHITS",
    "DEAL_CARDS",
    "MAX_PRODUCT_CARDS",
    "START_CARDS",
    "START_MONEY",
    "BigIdeaOptions",
    "BigIdeaState",
    "Launch",
    "Product",
]

START_CARDS = 3
DEAL_CARDS = 2
START_MONEY = 10_00
"""$10 in cents."""
BASE_CHITS = 5
MAX_PRODUCT_CARDS = 4
"""With ``larger_products``: one item and at most three descriptions (see the rules page)."""


class BigIdeaOptions(GameOptions):
    """Table options; the two variants of the rule sheet plus deck and clock settings.

    The attribute docstrings are the descriptions shown in the lobby's option help.
    """

    larger_products: bool = False
    """Variant: products of one item and 0-3 descriptions; prices and payouts grow per card."""
    four_chits: bool = False
    """Variant: every player starts with 4 chits instead of 5."""
    safe_for_work: bool = False
    """Leave the erotic, unholy and smokes cards out of the deck."""
    pick_seconds: int = Field(default=120, ge=0, le=MAX_SECONDS)
    """Seconds to pick a product before a random pick is made; 0 waits forever."""
    vote_seconds: int = Field(default=60, ge=0, le=MAX_SECONDS)
    """Seconds to point before idle players point at nobody; 0 waits forever."""
    turn_seconds: int = Field(default=90, ge=0, le=MAX_SECONDS)
    """Seconds for a mezzanine turn before the player passes; 0 waits forever."""

    @property
    def chits(self) -> int:
        return BASE_CHITS - 1 if self.four_chits else BASE_CHITS

    @property
    def min_pick(self) -> int:
        return 1 if self.larger_products else 2

    @property
    def max_pick(self) -> int:
        return MAX_PRODUCT_CARDS if self.larger_products else 2


class Product(BaseModel):
    """A product on the table: its cards and the chits on it."""

    id: int
    """Rises with every product made, so a smaller id is an older product."""
    owner: Seat
    cards: list[str]
    """The item first, then the descriptions in the order picked."""
    chits: list[int]
    """Chits on this product, by the seat that owns them."""
    new: bool = True
    """Made this round; older products are the ones pushed to the centre."""
    pitch: str | None = None
    """The owner's pitch, once made (one per product)."""

    @property
    def total_chits(self) -> int:
        return sum(self.chits)


class Launch(BaseModel):
    """A product that went public, as the final card recalls it (all public)."""

    label: str
    """``Bob's frozen cat``, as markup."""
    round: int
    chits: int
    paid: int
    """Cents the bank paid its backers."""


class BigIdeaState(GameState):
    """Everything about a game, hands and pending picks included; see ``view`` for the doors."""

    options: BigIdeaOptions
    round: int = 1
    rounds: int
    """Every player deals twice: 2 x players."""
    dealer: Seat = 0
    money: list[int]
    """Cents, by seat."""
    chits: list[int]
    """Chits in hand, by seat."""
    hands: list[list[str]]
    deck: list[str]
    """Face-down draw pile; index 0 is the top."""
    discard: list[str] = Field(default_factory=list)
    products: list[Product] = Field(default_factory=list)
    next_product_id: int = 1
    picks: list[list[str] | None]
    """Pending secret picks of the seed phase; the cards stay in the hand until the reveal."""
    votes: dict[int, int | None] = Field(default_factory=dict)
    """Secret pointing of the venture phase: seat -> target seat, or None for nobody."""
    turn: int = 0
    """Mezzanine position counted from the dealer (0 = the dealer)."""
    bank_paid: int = 0
    """Cents paid out by IPOs: the only money that enters the game after the start."""
    launches: int = 0
    """Products that went public (a successful IPO)."""
    best_launch: Launch | None = None
    """The launch that paid its backers the most (the earliest of equals)."""

    @classmethod
    def legacy_decision(cls, data: Mapping[str, object]) -> str | None:
        phase = str(data.get("phase"))
        return phase if phase in ("pick", "venture", "mezzanine") else None

    @classmethod
    def upgrade(cls, data: dict[str, object]) -> dict[str, object]:
        # Until issue 38 the game kept a phase of its own beside the decision, and called the
        # mezzanine's decision "turn" (its deadline key, "turn@v<n>", stands as it was: a timer
        # already armed still fires it).
        decision = data.get("decision")
        renamed = isinstance(decision, dict) and decision.get("name") == "turn"
        if "phase" not in data and not renamed:
            return data  # as stored now (every copy the engine makes reads this way)
        data = {key: value for key, value in data.items() if key != "phase"}
        if isinstance(decision, dict) and renamed:
            data["decision"] = {**decision, "name": "mezzanine"}
        return data

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def turn_seat(self) -> Seat | None:
        """The seat on its mezzanine turn; None outside the mezzanine."""
        if self.deciding != "mezzanine":
            return None
        return (self.dealer + self.turn) % self.players

    def product(self, product_id: int) -> Product | None:
        return next((p for p in self.products if p.id == product_id), None)

    def new_product_of(self, seat: Seat) -> Product | None:
        return next((p for p in self.products if p.new and p.owner == seat), None)
