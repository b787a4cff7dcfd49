"""What a seat may see: the public table, plus its own hand, pick and vote.

This is the only door for secrets besides events addressed to one seat.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.engine import Deadline, Outcome, Seat, View
from core.games.bigidea.cards import card, product_name, product_sentence
from core.games.bigidea.legal import can_pick, invest_cost
from core.games.bigidea.rules import FLOW
from core.games.bigidea.state import BigIdeaOptions, BigIdeaState, Product
from core.games.bigidea.text import money

__all__ = [
    "BigIdeaView",
    "CardView",
    "HandCardView",
    "Phase",
    "PlayerView",
    "ProductView",
    "SeatView",
    "card_view",
    "seat_view",
    "view",
]

Phase = Literal["pick", "venture", "mezzanine", "over"]
"""The phase of the rule sheet a view shows: the open decision's name, or ``over``."""


class _Part(BaseModel):
    """A part of the view: frozen and closed like the view itself."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class CardView(_Part):
    """A card as a product on the table shows it."""

    id: str
    name: str
    type: Literal[1, 2]
    """1: an item (the thing), 2: a description (what makes it new)."""


class HandCardView(CardView):
    """A card in the seat's own hand, with its printed sentence."""

    text: str


def _absent(value: object) -> bool:
    return value is None


class ProductView(_Part):
    """A product on the table."""

    id: int
    """Rises with every product made, so a smaller id is an older product."""
    owner: Seat
    name: str
    """A short name such as ``frozen cat``."""
    sentence: str
    """The product as its cards read aloud."""
    cards: list[CardView]
    """The item first, then the descriptions in the order picked."""
    chits: list[int]
    """Chits on this product, by the seat that owns them."""
    total_chits: int
    new: bool
    """Made this round; older products are the ones pushed to the centre."""
    pitch: str | None
    your_price: int | None = Field(default=None, exclude_if=_absent)
    """Cents the viewer would pay to invest a chit in it now; only in a seat's view (``None``,
    and left out of the JSON, in the channel's)."""


class PlayerView(_Part):
    """A seat as the whole table sees it."""

    seat: Seat
    name: str
    money: int
    """Cents."""
    money_text: str
    """``money`` as the game writes it (``$12.50``)."""
    chits: int
    """Chits in hand."""
    hand_size: int
    picked: bool | None
    """In the seed phase, whether the seat has picked (the pick itself is secret); else None."""
    can_pick: bool | None
    """In the seed phase, whether the seat holds enough cards for a product; else None."""
    voted: bool | None
    """In the venture phase, whether the seat has pointed (not where); else None."""


class SeatView(_Part):
    """The part only the seat itself may see."""

    hand: list[HandCardView]
    pick: list[str] | None
    """The seat's pending secret pick of the seed phase, if any."""
    voted: bool
    """Whether the seat has pointed in the venture phase."""
    vote: Seat | None
    """Where the seat points: a seat, or None for nobody (or not yet: see ``voted``)."""


class BigIdeaView(View):
    """What one seat, or with ``you`` None the whole channel, may see of a game: the public
    table, and in a seat's view its own part (``own``)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    game: Literal["bigidea"] = "bigidea"
    version: int
    phase: Phase
    round: int
    rounds: int
    """Every player deals twice: 2 x players."""
    dealer: Seat
    turn: Seat | None
    """The seat on its mezzanine turn; None outside the mezzanine phase."""
    waiting_for: list[Seat]
    options: BigIdeaOptions
    players: list[PlayerView]
    products: list[ProductView]
    deck_size: int
    discard_size: int
    deadline: Deadline | None
    outcome: Outcome | None
    you: Seat | None
    """The viewer; None for the channel (and for anyone not seated)."""
    own: SeatView | None = Field(default=None, exclude_if=_absent)
    """The viewer's own part; None (and left out of the JSON) in the channel's view."""


@cache
def _hand_card(card_id: str) -> HandCardView:
    c = card(card_id)
    return HandCardView(id=c.id, name=c.name, type=c.type, text=c.text)


def card_view(card_id: str) -> HandCardView:
    """A card as its holder sees it in the hand."""
    return _hand_card(card_id)


@cache
def _product_text(card_ids: tuple[str, ...]) -> tuple[str, str, tuple[CardView, ...]]:
    # Views are rebuilt after every action for the same few products: name them once. The card
    # models are frozen and hold no containers, so one copy serves every view.
    cards = tuple(CardView(id=c.id, name=c.name, type=c.type) for c in map(card, card_ids))
    return product_name(card_ids), product_sentence(card_ids), cards


def _product_view(state: BigIdeaState, product: Product, viewer: Seat | None) -> ProductView:
    name, sentence, cards = _product_text(tuple(product.cards))
    return ProductView(
        id=product.id,
        owner=product.owner,
        name=name,
        sentence=sentence,
        cards=list(cards),
        chits=list(product.chits),
        total_chits=product.total_chits,
        new=product.new,
        pitch=product.pitch,
        your_price=None if viewer is None else sum(invest_cost(state, product, viewer)),
    )


def seat_view(state: BigIdeaState, seat: Seat) -> SeatView:
    """The part only ``seat`` may see: its hand, its pending pick and where it points."""
    pick = state.picks[seat]
    return SeatView(
        hand=[card_view(cid) for cid in state.hands[seat]],
        pick=list(pick) if pick is not None else None,
        voted=seat in state.votes,
        vote=state.votes.get(seat),
    )


def view(state: BigIdeaState, viewer: Seat | None) -> BigIdeaView:
    """``viewer=None`` is what the whole channel may see."""
    if viewer is not None and viewer not in state.seats:
        viewer = None
    deciding = state.deciding
    players = [
        PlayerView(
            seat=seat,
            name=state.names[seat],
            money=state.money[seat],
            money_text=money(state.money[seat]),
            chits=state.chits[seat],
            hand_size=len(state.hands[seat]),
            picked=state.picks[seat] is not None if deciding == "pick" else None,
            can_pick=can_pick(state, seat) if deciding == "pick" else None,
            voted=seat in state.votes if deciding == "venture" else None,
        )
        for seat in state.seats
    ]
    return BigIdeaView(
        version=state.version,
        phase=deciding or "over",
        round=state.round,
        rounds=state.rounds,
        dealer=state.dealer,
        turn=state.turn_seat,
        waiting_for=FLOW.waiting_for(state),
        # Copies: the view must not share a mutable model with the state.
        options=state.options.model_copy(),
        players=players,
        products=[_product_view(state, p, viewer) for p in state.products],
        deck_size=len(state.deck),
        discard_size=len(state.discard),
        deadline=state.deadline.model_copy() if state.deadline else None,
        outcome=state.outcome.model_copy(deep=True) if state.outcome else None,
        you=viewer,
        own=seat_view(state, viewer) if viewer is not None else None,
    )
