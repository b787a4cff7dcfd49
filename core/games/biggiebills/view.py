"""What a team may see: the public board, plus its own hand.

This is the only door for secrets besides events addressed to one seat. Money is in whole
$ millions, as in the state.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.engine import Deadline, Outcome, Seat, View
from core.games.biggiebills.cards import (
    BONUS_NAMES,
    card_name,
    challenge,
    exchange_price,
    growth,
    industry,
    target_percent,
)
from core.games.biggiebills.legal import (
    cost_of,
    in_force,
    max_plays,
    payoff_of,
    penalty_of,
    skip_fine,
)
from core.games.biggiebills.state import BiggieBillsOptions, BiggieBillsState
from core.games.biggiebills.text import money

__all__ = [
    "ActiveView",
    "BiggieBillsView",
    "BonusView",
    "ChallengeView",
    "CompletedView",
    "DecksView",
    "GrowthView",
    "HandView",
    "IndustryView",
    "PendingView",
    "Phase",
    "TeamView",
    "VoteView",
    "growth_view",
    "seat_view",
    "view",
]

Phase = Literal["turn", "block", "returns", "over"]
"""What a view shows the game deciding: the open decision's name, or ``over``."""


class _Part(BaseModel):
    """A part of the view: frozen and closed like the view itself."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class GrowthView(_Part):
    """A Growth card in the team's hand: its printed values and what it costs and pays in this
    cycle (after the Industry Rules card in force)."""

    id: str
    name: str
    stage: int
    cost: int
    """What playing it costs now (the printed cost after the Industry card)."""
    payoff: int
    """What completing it pays now: the first or the later payoff, after the Industry card."""
    penalty: int
    """What a standing challenge against it costs now, after the Industry card."""
    first: int
    """The printed payoff for the first team to complete it."""
    later: int
    """The printed payoff for every later completion."""
    printed_cost: int


class ChallengeView(_Part):
    """A Challenge card in the team's hand."""

    id: str
    name: str
    growth: str
    """The id of the Growth card it challenges."""
    stage: int
    """The stage of that Growth card."""


class BonusView(_Part):
    """A bonus card in the team's hand (a Flexible Challenge or Block a Challenge)."""

    id: str
    name: str


class HandView(_Part):
    """The cards the team holds: seen only by the team itself."""

    growth: list[GrowthView]
    challenges: list[ChallengeView]
    bonus: list[BonusView]


class CompletedView(_Part):
    """A Growth card a team has completed."""

    id: str
    name: str
    stage: int


class TeamView(_Part):
    """What everyone may see of one team; its cards only as counts."""

    seat: Seat
    name: str
    cash: int
    cash_text: str
    """``cash`` as the money formatter writes it (``$180M``)."""
    alive: bool
    out: str | None
    """Why the team left the game ("bankrupt", "acquired by ..."), else None."""
    completed: list[CompletedView]
    """Growth cards the team has completed, in order."""
    stages: list[int]
    """Completed Growth cards per stage (index 0 = stage 1)."""
    bonus_cards: int
    """Bonus cards in its hand."""
    bonus_earned: int
    """Bonus cards it has earned this game."""
    growth_cards: int
    """Growth cards in its hand."""
    challenge_cards: int
    """Challenge cards in its hand."""
    challenges_played: int
    """Challenges it has played this game (some Industry cards count them)."""
    turn_cash: int
    """Its cash when this turn began (the acquisition rule compares these)."""


class ActiveView(_Part):
    """A Growth card in play on the board, waiting to complete."""

    id: int
    """Its number on the board, unique within a game."""
    card: str
    """The Growth card's id."""
    name: str
    stage: int
    owner: Seat
    cost: int
    """What the owner paid (lost if the card is challenged)."""
    payoff: int
    """What completing it pays now."""
    penalty: int
    """What a standing challenge against it costs now."""
    target: Seat | None
    """The team to take over, for "Acquire a Competitor"."""
    challengers: list[Seat]
    """Teams whose challenge stood: the card fails."""
    blocked: list[Seat]
    """Teams whose challenge was blocked."""
    sealed: bool
    """A blocked acquisition: it cannot be challenged again."""


class PendingView(_Part):
    """A challenge waiting for the challenged team to block or accept."""

    active: int
    """The number of the challenged active card."""
    challenger: Seat
    card: str
    """The Challenge card or Flexible Challenge used."""
    penalty: int
    card_name: str
    """The name of ``card``."""


class IndustryView(_Part):
    """The Industry Rules card in force this cycle."""

    id: str
    name: str
    text: str
    """Its effects, as the rules page words them."""


class VoteView(_Part):
    """A proposed new target, waiting for every team still in the game to agree."""

    target: int
    proposer: Seat
    agreed: list[Seat]
    """Teams that have agreed (the proposer first)."""


class DecksView(_Part):
    """How many cards are left in each face-down deck."""

    growth: int
    challenge: int
    bonus: int


class BiggieBillsView(View):
    """What one team (or, with ``you`` None, the channel) may see of a game."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    game: Literal["biggiebills"] = "biggiebills"
    version: int
    phase: Phase
    cycle: int
    order: list[Seat]
    """This cycle's team order; every team plays twice, in this order each time."""
    turn_index: int
    """Position in the cycle: 0 .. 2 * len(order) - 1."""
    turn: Seat | None
    """The team on turn (None once the game is over)."""
    plays_left: int
    """Growth/Challenge plays left in this turn."""
    flex_left: int
    """Flexible Challenge plays left in this turn."""
    acted: bool
    """The team on turn has done something this turn (it may end it without a fine)."""
    max_plays: int
    """Growth/Challenge plays a turn allows in this cycle."""
    industry: IndustryView | None
    """The Industry Rules card in force (none in the first cycle)."""
    skip_fine: int
    """What skipping a turn costs in this cycle."""
    exchange_price: int
    """What exchanging two cards costs in this cycle."""
    target: int
    """Money to win now (the teams may have agreed on another than the option's)."""
    payoff_percent: int
    """Every payoff is this percent of the printed one (above 100 for a target above $1B)."""
    vote: VoteView | None
    """A proposed new target being voted on."""
    options: BiggieBillsOptions
    teams: list[TeamView]
    """Every team, in seat order (``teams[seat]``)."""
    active: list[ActiveView]
    """Growth cards in play, in the order they were played."""
    firsts: list[str]
    """Growth cards someone has completed (later completions get the lower payoff)."""
    pending: PendingView | None
    returns: list[Seat]
    """Teams that must return cards after an acquisition, the first one now."""
    decks: DecksView
    deadline: Deadline | None
    outcome: Outcome | None
    you: Seat | None
    """The seat this view is for; None for the channel."""
    hand: HandView | None = Field(default=None, exclude_if=lambda hand: hand is None)
    """The seat's own hand; None (and left out of the JSON) in the channel's view."""


def growth_view(state: BiggieBillsState, card_id: str) -> GrowthView:
    """A Growth card with its printed values and what it costs and pays in this cycle."""
    card = growth(card_id)
    return GrowthView(
        id=card.id,
        name=card.name,
        stage=card.stage,
        cost=cost_of(state, card_id),
        payoff=payoff_of(state, card_id),
        penalty=penalty_of(state, card_id),
        first=card.first,
        later=card.later,
        printed_cost=card.cost,
    )


# The parts that depend on a card alone are made once per card: they are frozen and hold no
# list, so every view may share them.


@cache
def _challenge(card_id: str) -> ChallengeView:
    card = challenge(card_id)
    return ChallengeView(id=card_id, name=card_name(card_id), growth=card.growth, stage=card.stage)


@cache
def _bonus(card_id: str) -> BonusView:
    return BonusView(id=card_id, name=BONUS_NAMES[card_id])


@cache
def _completed(card_id: str) -> CompletedView:
    return CompletedView(id=card_id, name=card_name(card_id), stage=growth(card_id).stage)


@cache
def _industry(card_id: str) -> IndustryView:
    card = industry(card_id)
    return IndustryView(id=card.id, name=card.name, text=card.text)


def seat_view(state: BiggieBillsState, seat: Seat) -> HandView:
    """The part only ``seat`` may see: its hand."""
    return HandView(
        growth=[growth_view(state, c) for c in state.growth[seat]],
        challenges=[_challenge(c) for c in state.challenges[seat]],
        bonus=[_bonus(c) for c in state.bonus[seat]],
    )


def _stages(state: BiggieBillsState, seat: Seat) -> list[int]:
    counts = [0, 0, 0, 0]
    for c in state.completed[seat]:
        counts[growth(c).stage - 1] += 1
    return counts


def _team(state: BiggieBillsState, s: Seat) -> TeamView:
    return TeamView(
        seat=s,
        name=state.names[s],
        cash=state.cash[s],
        cash_text=money(state.cash[s]),
        alive=state.alive[s],
        out=state.out[s],
        completed=[_completed(c) for c in state.completed[s]],
        stages=_stages(state, s),
        bonus_cards=len(state.bonus[s]),
        bonus_earned=sum(state.bonus_earned[s]),
        growth_cards=len(state.growth[s]),
        challenge_cards=len(state.challenges[s]),
        challenges_played=state.challenges_played[s],
        turn_cash=state.turn_cash[s] if state.turn_cash else state.cash[s],
    )


def view(state: BiggieBillsState, viewer: Seat | None) -> BiggieBillsView:
    """What ``viewer`` may see; ``viewer=None`` (or a seat not in the game) is what the whole
    channel may see."""
    if viewer is not None and viewer not in state.seats:
        viewer = None
    card = in_force(state)
    active = [
        ActiveView(
            id=a.id,
            card=a.card,
            name=card_name(a.card),
            stage=growth(a.card).stage,
            owner=a.owner,
            cost=a.cost,
            payoff=payoff_of(state, a.card),
            penalty=penalty_of(state, a.card),
            target=a.target,
            challengers=list(a.challengers),
            blocked=list(a.blocked),
            sealed=a.sealed,
        )
        for a in state.active
    ]
    pending = state.pending
    return BiggieBillsView(
        version=state.version,
        phase=state.deciding or "over",
        cycle=state.cycle,
        order=list(state.order),
        turn_index=state.turn_index,
        turn=state.turn_seat if not state.finished else None,
        plays_left=state.plays_left,
        flex_left=state.flex_left,
        acted=state.acted,
        max_plays=max_plays(state),
        industry=_industry(card.id) if card is not None else None,
        skip_fine=skip_fine(state),
        exchange_price=exchange_price(card),
        target=state.target,
        payoff_percent=target_percent(state.target),
        vote=(
            VoteView(
                target=state.vote.target,
                proposer=state.vote.proposer,
                agreed=list(state.vote.agreed),
            )
            if state.vote is not None
            else None
        ),
        # copies, so that the view shares nothing mutable with the state
        options=state.options.model_copy(),
        teams=[_team(state, s) for s in state.seats],
        active=active,
        firsts=list(state.firsts),
        pending=(
            PendingView(
                active=pending.active,
                challenger=pending.challenger,
                card=pending.card,
                penalty=pending.penalty,
                card_name=card_name(pending.card),
            )
            if pending is not None
            else None
        ),
        returns=list(state.returns),
        decks=DecksView(
            growth=len(state.growth_deck),
            challenge=len(state.challenge_deck),
            bonus=len(state.bonus_deck),
        ),
        deadline=state.deadline.model_copy() if state.deadline else None,
        outcome=state.outcome.model_copy(deep=True) if state.outcome else None,
        you=viewer,
        hand=seat_view(state, viewer) if viewer is not None else None,
    )
