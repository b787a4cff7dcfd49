"""What a seat may see: everything on the table, except the sealed auction bids of others and
the order of the card stacks.

This is the only door for secrets besides events addressed to one seat.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from core.engine import Deadline, Outcome, Seat, View
from core.games.businessgo.board import board
from core.games.businessgo.legal import units
from core.games.businessgo.rules import FLOW
from core.games.businessgo.state import BusinessGoOptions, BusinessGoState
from core.games.businessgo.text import money

__all__ = [
    "AuctionView",
    "BusinessGoView",
    "CorporationView",
    "Phase",
    "PlayerView",
    "SaleView",
    "view",
]

Phase = Literal[
    "turn",  # before rolling: set up, convert, roll
    "licence",  # landed on an unsold country: buy its licence or not
    "service",  # landed on an unsold Service Industry: buy it or not
    "boom",  # choose up to three different products to sell
    "casino",  # bet or stop
    "travel",  # travel to a country or stay
    "compete",  # a sales competition is open: owners of the product may join
    "debt",  # cash below zero: raise money
    "auction",  # a debtor's asset is up for sealed bids
    "accept",  # the bids are open: the seller takes the best one or sells to the bank
    "mail",  # a Mail card: choose the corporation to remove
    "over",
]
"""What a view shows the game deciding: the open decision's name, or ``over``."""


class _Part(BaseModel):
    """A part of the view: frozen and closed like the view itself."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class PlayerView(_Part):
    """A seat as the whole table sees it."""

    seat: Seat
    name: str
    cash: int
    """Dollars; below zero while the seat is in debt."""
    cash_text: str
    """``cash`` as the game writes it (``$1,250,000``)."""
    position: int
    """The index of the seat's space on the board."""
    space: str
    """The name of that space."""
    burnout: int
    """Turns the seat still has to skip."""
    bankrupt: bool
    units: int
    """Operating Fees units: 1 per National Corporation, 3 per International one and per
    Service Industry."""
    always_competes: bool
    """The seat's standing choice: it joins every sales competition it may enter without
    being asked."""


class CorporationView(_Part):
    """A corporation on a country (the licence is owned by the same player)."""

    country: str
    owner: Seat
    international: bool
    chimney: bool
    """Has made a sale (the first white chimney)."""


class SaleView(_Part):
    """The sale being settled, with its sales competition."""

    product: str
    country: str | None
    """Where the sale is made; None during a Boom."""
    seller: Seat
    eligible: list[Seat]
    """Other owners of the product who may join the competition."""
    joined: list[Seat]
    declined: list[Seat]


class AuctionView(_Part):
    """A debtor's asset up for sealed bids: who has answered, never how much."""

    seller: Seat
    asset: str
    """A country or Service Industry id."""
    floor: int
    """The bank's price for the asset: the smallest bid, and what the seller gets instead."""
    eligible: list[Seat]
    """The seats that may bid."""
    answered: list[Seat]
    """The seats that have bid or passed, in seat order."""
    your_bid: int | None
    """The viewer's own sealed bid in dollars (0: passed); None when the viewer has not
    answered, and always in the channel's view."""
    bids: dict[Seat, int]
    """Every bid (0: passed) once the auction has closed and the seller chooses; empty while
    the bids are sealed."""


class BusinessGoView(View):
    """What one seat, or with ``you`` None the whole channel, may see of a game."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    game: Literal["businessgo"] = "businessgo"
    version: int
    phase: Phase
    round: int
    turn: Seat
    """The seat on turn."""
    starter: Seat
    """The winner of the opening roll: a new round begins when the turn reaches its place."""
    opening: str
    """How the opening roll went."""
    dice: list[int]
    """The movement roll of this turn; empty until the player on turn rolls."""
    goal: int
    """The winning amount in dollars."""
    waiting_for: list[Seat]
    options: BusinessGoOptions
    players: list[PlayerView]
    licences: dict[str, Seat]
    """Country id -> licence owner."""
    corporations: dict[str, CorporationView]
    """Country id -> its corporation."""
    services: dict[str, Seat]
    """Service Industry id -> owner."""
    boom_sold: list[str]
    """Products sold in the current Boom."""
    boom_left: int
    """How many more products the current Boom may sell."""
    sale: SaleView | None
    auction: AuctionView | None
    unsold: list[str]
    """Assets that drew no bid in the current debt: they cannot be auctioned again."""
    closed: list[str]
    """Countries whose corporation went bankrupt: never a corporation there again."""
    deadline: Deadline | None
    outcome: Outcome | None
    you: Seat | None
    """The viewer; None for the channel (and for anyone not seated)."""


def view(state: BusinessGoState, viewer: Seat | None) -> BusinessGoView:
    """``viewer=None`` is what the whole channel may see."""
    if viewer is not None and viewer not in state.seats:
        viewer = None
    b = board()
    players = [
        PlayerView(
            seat=seat,
            name=state.names[seat],
            cash=state.cash[seat],
            cash_text=money(state.cash[seat]),
            position=state.position[seat],
            space=b.space_name(state.position[seat]),
            burnout=state.burnout[seat],
            bankrupt=state.bankrupt[seat],
            units=units(state, seat),
            always_competes=state.always_competes(seat),
        )
        for seat in state.seats
    ]
    sale = state.sales[0] if state.sales else None
    auction = state.auction
    return BusinessGoView(
        version=state.version,
        phase=state.deciding or "over",
        round=state.round,
        turn=state.turn,
        starter=state.starter,
        opening=state.opening,
        dice=list(state.dice),
        goal=state.options.goal,
        waiting_for=FLOW.waiting_for(state),
        # Copies: the view must not share a mutable model with the state.
        options=state.options.model_copy(),
        players=players,
        licences=dict(state.licences),
        corporations={
            cid: CorporationView(
                country=c.country, owner=c.owner, international=c.international, chimney=c.chimney
            )
            for cid, c in state.corporations.items()
        },
        services=dict(state.services),
        boom_sold=list(state.boom_sold),
        boom_left=state.boom_left,
        sale=None
        if sale is None
        else SaleView(
            product=sale.product,
            country=sale.country,
            seller=sale.seller,
            eligible=list(sale.eligible),
            joined=list(sale.joined),
            declined=list(sale.declined),
        ),
        auction=None
        if auction is None
        else AuctionView(
            seller=auction.seller,
            asset=auction.asset,
            floor=auction.floor,
            eligible=list(auction.eligible),
            answered=sorted(auction.bids),
            your_bid=auction.bids.get(viewer) if viewer is not None else None,
            bids=dict(auction.bids) if state.deciding == "accept" else {},
        ),
        unsold=list(state.unsold),
        closed=list(state.closed),
        deadline=state.deadline.model_copy() if state.deadline else None,
        outcome=state.outcome.model_copy(deep=True) if state.outcome else None,
        you=viewer,
    )
