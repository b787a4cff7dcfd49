"""The options and the full (secret-holding) state of a game of BiggieBills$$$.

Seats are teams. Money is in whole $ millions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from core.engine import MAX_SECONDS, GameOptions, GameState, Seat

__all__ = [
    "CHALLENGE_HAND",
    "DEFAULT_CYCLES",
    "GROWTH_HAND",
    "MAX_BONUS_GAME",
    "MAX_BONUS_STAGE",
    "MAX_CYCLES",
    "MAX_LIMIT",
    "MAX_MINUTES",
    "MAX_TARGET",
    "MAX_TEAM",
    "MIN_TARGET",
    "START_CASH",
    "Active",
    "BiggieBillsOptions",
    "BiggieBillsState",
    "Pending",
    "TargetVote",
]

MAX_TEAM = 6
"""The document's largest team."""
START_CASH = 200
"""$M each team starts with."""
GROWTH_HAND = 6
CHALLENGE_HAND = 4
MAX_BONUS_STAGE = 2
MAX_BONUS_GAME = 8
MAX_CYCLES = 60
"""A safety net only: the moderator would call time after this many Business Cycles. The
``cycles`` time limit (at most :data:`MAX_LIMIT`) always comes first."""
MAX_LIMIT = 50
"""The longest time limit in Business Cycles a table may set (``cycles=0`` asks for it)."""
DEFAULT_CYCLES = 30
"""The time limit when the table sets none: three times the longest usual game."""
MIN_TARGET = 300
"""The smallest target: above the $200M every team starts with, with room to grow."""
MAX_TARGET = 10_000
"""The largest target ($10B): payoffs grow with the target, so every target up to it can be
reached (see ``cards.target_percent``)."""
MAX_MINUTES = 24 * 60


class BiggieBillsOptions(GameOptions):
    """Table options. The attribute docstrings are the lobby's option help."""

    target: int = Field(default=1000, ge=MIN_TARGET, le=MAX_TARGET)
    """Money to win, in $ millions (1000 = $1 billion; above it payoffs grow with the target,
    and the teams may agree on another during play)."""
    cycles: int = Field(default=DEFAULT_CYCLES, ge=0, le=MAX_LIMIT)
    """Time limit in Business Cycles: after the last one the richest team wins (0 = the
    longest, 50)."""
    turn_seconds: int = Field(default=180, ge=0, le=MAX_SECONDS)
    """Seconds a team has for its turn before it skips and pays the fine; 0 waits forever."""
    block_seconds: int = Field(default=60, ge=0, le=MAX_SECONDS)
    """Seconds a challenged team has to block before the challenge stands; 0 waits forever."""
    minutes: int = Field(default=0, ge=0, le=MAX_MINUTES)
    """Time limit in minutes of clock time: then the richest team wins (0 = none)."""
    # ``printed``: the value the rule document plays with, where the default is a house variant.
    min_team_size: int = Field(default=1, ge=1, le=6, json_schema_extra={"printed": "3"})
    """Fewest people in a human team (the document plays with 3-6; 1 lets one person be a team)."""
    acquired: Literal["join", "watch"] = Field(
        default="join", json_schema_extra={"printed": "watch"}
    )
    """An acquired team's people join the acquirer and play on (join), or only watch (watch)."""

    @property
    def cycle_limit(self) -> int:
        """The Business Cycle after which time is called (``cycles``; 0 asks for the longest)."""
        return self.cycles or MAX_LIMIT


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


class TargetVote(BaseModel):
    """A proposed new target, waiting for every team still in the game to agree."""

    target: int
    proposer: Seat
    agreed: list[Seat] = Field(default_factory=list)
    """Teams that have agreed (the proposer first)."""
    opened: int = 0
    """The state version the proposal made: the vote's buttons stand from then on."""


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
    target: int = 0
    """Money to win now: the ``target`` option, until every team agrees on another."""
    vote: TargetVote | None = None
    """A proposed new target being voted on."""
    proposed: dict[Seat, int] = Field(default_factory=dict)
    """Team -> the Business Cycle of its last proposal (one a cycle)."""
    time_called: bool = False
    """The game ended because its clock ran out."""

    @model_validator(mode="before")
    @classmethod
    def _target_from_options(cls, data: object) -> object:
        # States saved before the target could change mid-game play to the option's target.
        if isinstance(data, dict) and not data.get("target"):
            options = data.get("options")
            if isinstance(options, BiggieBillsOptions):
                data = {**data, "target": options.target}
            elif isinstance(options, dict):
                data = {**data, "target": options.get("target", 1000)}
        return data

    @classmethod
    def legacy_decision(cls, data: Mapping[str, object]) -> str | None:
        phase = str(data.get("phase", "turn"))
        return phase if phase in ("turn", "block", "returns") else None

    @classmethod
    def upgrade(cls, data: dict[str, object]) -> dict[str, object]:
        # Until issue 38 the game kept a phase of its own beside the decision (the same names).
        if "phase" not in data:
            return data  # as stored now (every copy the engine makes reads this way)
        return {key: value for key, value in data.items() if key != "phase"}

    @property
    def teams(self) -> int:
        return len(self.names)

    @property
    def turn_seat(self) -> Seat | None:
        if self.finished or not self.order:
            return None
        return self.order[self.turn_index % len(self.order)]

    def living(self) -> list[Seat]:
        return [s for s in self.seats if self.alive[s]]

    def find_active(self, active_id: int) -> Active | None:
        return next((a for a in self.active if a.id == active_id), None)

    def hand_of(self, seat: Seat) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        return tuple(self.growth[seat]), tuple(self.challenges[seat]), tuple(self.bonus[seat])
