"""The options and the full (secret-holding) state of a game of BiggieBills$$$.

Seats are teams. Money is in whole $ millions.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from core.engine import MAX_SECONDS, GameOptions, GameState, Seat

__all__ = [
    "CHALLENGE_HAND",
    "GROWTH_HAND",
    "MAX_BONUS_GAME",
    "MAX_BONUS_STAGE",
    "MAX_CYCLES",
    "START_CASH",
    "Active",
    "BiggieBillsOptions",
    "BiggieBillsState",
    "Pending",
    "Phase",
]

START_CASH = 200
"""$M each team starts with."""
GROWTH_HAND = 6
CHALLENGE_HAND = 4
MAX_BONUS_STAGE = 2
MAX_BONUS_GAME = 8
MAX_CYCLES = 60
"""The moderator calls time after this many Business Cycles even without a time limit, so
that every game ends (bot games reach the target in far fewer)."""

Phase = Literal["turn", "block", "returns", "over"]


class BiggieBillsOptions(GameOptions):
    """Table options. The attribute docstrings are the lobby's option help."""

    target: int = Field(default=1000, ge=100, le=100_000)
    """Money to win, in $ millions (1000 = $1 billion; the teams may agree on another)."""
    cycles: int = Field(default=0, ge=0, le=MAX_CYCLES)
    """Time limit in Business Cycles; then the richest team wins (0 = no limit)."""
    turn_seconds: int = Field(default=180, ge=0, le=MAX_SECONDS)
    """Seconds a team has for its turn before it skips and pays the fine; 0 waits forever."""
    block_seconds: int = Field(default=60, ge=0, le=MAX_SECONDS)
    """Seconds a challenged team has to block before the challenge stands; 0 waits forever."""
    min_team_size: int = Field(default=1, ge=1, le=6)
    """Fewest people in a human team (the document plays with 3-6; 1 lets one person be a team)."""
    acquired: Literal["join", "watch"] = "join"
    """An acquired team's people join the acquirer and play on (join), or only watch (watch)."""


class Active(BaseModel):
    """A Growth card in play on the board, waiting to complete."""

    id: int
    """Its number on the board, unique within a game."""
    card: str
    owner: Seat
    cost: int
    """What the owner paid (lost if the card is challenged)."""
    target: Seat | None = None
    """The team to take over, for "Acquire a Competitor"."""
    challengers: list[Seat] = Field(default_factory=list)
    """Teams whose challenge stood: the card fails."""
    blocked: list[Seat] = Field(default_factory=list)
    """Teams whose challenge was blocked."""
    sealed: bool = False
    """A blocked acquisition: it cannot be challenged again."""

    @property
    def challenged(self) -> bool:
        return bool(self.challengers)


class Pending(BaseModel):
    """A challenge waiting for the challenged team to block or accept."""

    active: int
    challenger: Seat
    card: str
    """The Challenge card or Flexible Challenge used."""
    penalty: int


class BiggieBillsState(GameState):
    """Everything about a game, hands included; see ``view`` for what each seat may see."""

    options: BiggieBillsOptions
    phase: Phase = "turn"
    cycle: int = 0
    order: list[Seat] = Field(default_factory=list)
    """This cycle's random team order; every team plays twice, in this order each time."""
    turn_index: int = 0
    """Position in the cycle: 0 .. 2 * len(order) - 1."""
    industry: str | None = None
    """The Industry Rules card in force this cycle (none in the first)."""
    cash: list[int]
    alive: list[bool]
    out: list[str | None]
    """Why a team left the game ("bankrupt", "acquired by ..."), else None."""
    growth: list[list[str]]
    """Growth cards in each team's hand."""
    challenges: list[list[str]]
    bonus: list[list[str]]
    growth_deck: list[str]
    challenge_deck: list[str]
    bonus_deck: list[str]
    industry_deck: list[str]
    """Industry cards not yet drawn; reshuffled when all have been used."""
    growth_discard: list[str] = Field(default_factory=list)
    challenge_discard: list[str] = Field(default_factory=list)
    bonus_discard: list[str] = Field(default_factory=list)
    active: list[Active] = Field(default_factory=list)
    """Growth cards in play, in the order they were played."""
    next_active: int = 1
    completed: list[list[str]]
    """Growth cards each team has completed, in order."""
    firsts: list[str] = Field(default_factory=list)
    """Growth cards someone has completed (later completions get the lower payoff)."""
    bonus_earned: list[list[int]]
    """Bonus cards earned per team per stage (index 0 = stage 1)."""
    challenges_played: list[int]
    """Challenges each team has played this game (some Industry cards count them)."""
    plays_left: int = 0
    """Growth/Challenge plays left in this turn."""
    flex_left: int = 0
    """Flexible Challenge plays left in this turn."""
    acted: bool = False
    """The team on turn has done something this turn (it may end it without a fine)."""
    turn_cash: list[int] = Field(default_factory=list)
    """Cash of every team when this turn began (the acquisition rule compares these)."""
    pending: Pending | None = None
    returns: list[Seat] = Field(default_factory=list)
    """Teams that must return cards after an acquisition, the first one now."""
    resume: Literal["turn", "cycle"] = "turn"
    """Where play continues once the returns are done."""
    eliminated: list[Seat] = Field(default_factory=list)
    """Teams in the order they left the game."""
    acquired_by: dict[Seat, Seat] = Field(default_factory=dict)
    """Acquired team -> the team that acquired it."""
    out_cycle: dict[Seat, int] = Field(default_factory=dict)
    """Team -> the Business Cycle in which it left the game."""

    @property
    def teams(self) -> int:
        return len(self.names)

    @property
    def turn_seat(self) -> Seat | None:
        if self.phase == "over" or not self.order:
            return None
        return self.order[self.turn_index % len(self.order)]

    def living(self) -> list[Seat]:
        return [s for s in self.seats if self.alive[s]]

    def find_active(self, active_id: int) -> Active | None:
        return next((a for a in self.active if a.id == active_id), None)

    def hand_of(self, seat: Seat) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        return tuple(self.growth[seat]), tuple(self.challenges[seat]), tuple(self.bonus[seat])
