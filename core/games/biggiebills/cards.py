"""The card catalogue (read from ``cards.toml``): Growth, Challenge, Industry Rules and Bonus.

Money is in $ millions throughout the game. Industry Rules cards are combinations of a small
vocabulary of effects (:data:`IndustryEffect`); :func:`percent_of`, :func:`fine`,
:func:`exchange_price` and friends read them, so no card is a special case in the rules.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "ACQUIRE",
    "BLOCK",
    "BONUS_NAMES",
    "EXCHANGE_PRICE",
    "FLEX_12",
    "FLEX_34",
    "FLEX_STAGES",
    "SKIP_FINE",
    "STAGES",
    "AcquisitionTable",
    "Catalogue",
    "ChallengeCard",
    "GrowthCard",
    "IndustryCard",
    "IndustryEffect",
    "acquire_missing",
    "acquire_ready",
    "bonus_deck",
    "catalogue",
    "challenge_deck",
    "challenge_id",
    "growth",
    "growth_deck",
    "growth_of_challenge",
    "industry",
    "is_challenge",
    "target_percent",
]

STAGES = (1, 2, 3, 4)
ACQUIRE = "acquire_a_competitor"
"""The Stage 4 Growth card that takes over another team."""
SKIP_FINE = 10
"""$M fine for skipping a turn (an Industry card may change it for one cycle)."""
EXCHANGE_PRICE = 5
"""$M price of exchanging two cards (an Industry card may change it for one cycle)."""

FLEX_12 = "flex_12"
FLEX_34 = "flex_34"
BLOCK = "block"
BONUS_NAMES = {
    FLEX_12: "Flexible Challenge (stages 1-2)",
    FLEX_34: "Flexible Challenge (stages 3-4)",
    BLOCK: "Block a Challenge",
}
FLEX_STAGES = {FLEX_12: (1, 2), FLEX_34: (3, 4)}

_CHALLENGE_PREFIX = "challenge_"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GrowthCard(_Frozen):
    """One unique Growth card; amounts in $M."""

    id: str
    name: str
    stage: Literal[1, 2, 3, 4]
    cost: int = Field(gt=0)
    first: int = Field(gt=0)
    """Payoff of the first team to complete this card."""
    later: int = Field(gt=0)
    """Payoff of every later completion."""
    penalty: int = Field(gt=0)
    """Paid by the owner to each successful challenger (and by a blocked challenger)."""

    @model_validator(mode="after")
    def _first_pays_more(self) -> GrowthCard:
        if self.first < self.later:
            raise ValueError(f"{self.id}: the first payoff must be at least the later one")
        return self


class ChallengeCard(_Frozen):
    """The Challenge card of one Growth card ("Challenge Vendor Management")."""

    id: str
    name: str
    growth: str
    stage: int


class CostEffect(_Frozen):
    kind: Literal["cost"]
    stages: list[int]
    percent: int = Field(ge=0)


class PayoffEffect(_Frozen):
    kind: Literal["payoff"]
    stages: list[int]
    percent: int = Field(ge=0)


class PenaltyEffect(_Frozen):
    kind: Literal["penalty"]
    stages: list[int]
    percent: int = Field(ge=0)


class TwoCardsEffect(_Frozen):
    kind: Literal["two_cards"]


class FineEffect(_Frozen):
    kind: Literal["fine"]
    amount: int = Field(ge=0)


class ExchangeEffect(_Frozen):
    kind: Literal["exchange"]
    amount: int = Field(ge=0)


class NoChallengesEffect(_Frozen):
    kind: Literal["no_challenges"]


class PerCompletedEffect(_Frozen):
    kind: Literal["per_completed"]
    stages: list[int]
    amount: int


class PerChallengeEffect(_Frozen):
    kind: Literal["per_challenge"]
    amount: int


IndustryEffect = Annotated[
    CostEffect
    | PayoffEffect
    | PenaltyEffect
    | TwoCardsEffect
    | FineEffect
    | ExchangeEffect
    | NoChallengesEffect
    | PerCompletedEffect
    | PerChallengeEffect,
    Field(discriminator="kind"),
]


def _stages(stages: list[int]) -> str:
    if sorted(stages) == list(STAGES):
        return "all stages"
    if len(stages) == 1:
        return f"stage {stages[0]}"
    return "stages " + ", ".join(str(s) for s in stages[:-1]) + f" and {stages[-1]}"


def _money(amount: int) -> str:
    return f"${amount}M"


def effect_text(effect: IndustryEffect) -> str:
    """One sentence per effect, used on the card and the rules page."""
    if isinstance(effect, CostEffect | PayoffEffect | PenaltyEffect):
        what = {"cost": "Growth costs", "payoff": "payoffs", "penalty": "challenge penalties"}
        return (
            f"{what[effect.kind].capitalize()} of {_stages(effect.stages)} are {effect.percent}%."
        )
    if isinstance(effect, TwoCardsEffect):
        return "Two-card play: two Growth/Challenge cards and two Flexible Challenges per turn."
    if isinstance(effect, FineEffect):
        return f"Skipping a turn costs {_money(effect.amount)}."
    if isinstance(effect, ExchangeEffect):
        return f"Exchanging two cards costs {_money(effect.amount)}."
    if isinstance(effect, NoChallengesEffect):
        return "No challenges may be played."
    if isinstance(effect, PerCompletedEffect):
        verb = "receives" if effect.amount >= 0 else "pays"
        return (
            f"Each team {verb} {_money(abs(effect.amount))} per completed Growth card of "
            f"{_stages(effect.stages)}."
        )
    verb = "receives" if effect.amount >= 0 else "pays"
    return f"Each team {verb} {_money(abs(effect.amount))} per challenge it has played."


class IndustryCard(_Frozen):
    """An Industry Rules card: in force for one Business Cycle."""

    id: str
    name: str
    effects: list[IndustryEffect] = Field(min_length=1)

    @property
    def text(self) -> str:
        return " ".join(effect_text(e) for e in self.effects)


class AcquisitionTable(_Frozen):
    """What "have completed growth stages 1, 2 and 3" asks of an acquirer."""

    stage_cards: list[int] = Field(min_length=3, max_length=3)
    """Completed Growth cards needed in each of stages 1, 2 and 3 (a stage counts as completed
    with this many of its six cards)."""


class TargetTable(_Frozen):
    """How the payoffs follow a target above the one the cards are printed for."""

    printed: int = Field(gt=0)
    """The target the printed payoffs are for ($M)."""
    step: int = Field(gt=0)
    """Every ``step`` $M of target above ``printed`` adds 1% to every payoff."""


class Catalogue(_Frozen):
    growth: list[GrowthCard] = Field(min_length=24, max_length=24)
    industry: list[IndustryCard] = Field(min_length=24, max_length=24)
    acquisition: AcquisitionTable
    target: TargetTable

    @model_validator(mode="after")
    def _six_per_stage(self) -> Catalogue:
        for stage in STAGES:
            count = sum(1 for g in self.growth if g.stage == stage)
            if count != 6:
                raise ValueError(f"stage {stage} has {count} Growth cards, not 6")
        ids = [g.id for g in self.growth] + [i.id for i in self.industry]
        if len(set(ids)) != len(ids):
            raise ValueError("card ids must be unique")
        names = {g.name: g.stage for g in self.growth}
        if names.get("Vendor Management") != 1 or names.get("Acquire a Competitor") != 4:
            raise ValueError("the document's two named cards must keep their stages")
        return self


@cache
def catalogue() -> Catalogue:
    raw = resources.files(__package__).joinpath("cards.toml").read_text(encoding="utf-8")
    return Catalogue.model_validate(tomllib.loads(raw))


@cache
def _growth() -> dict[str, GrowthCard]:
    return {g.id: g for g in catalogue().growth}


@cache
def _challenges() -> dict[str, ChallengeCard]:
    return {
        challenge_id(g.id): ChallengeCard(
            id=challenge_id(g.id), name=f"Challenge {g.name}", growth=g.id, stage=g.stage
        )
        for g in catalogue().growth
    }


@cache
def _industry() -> dict[str, IndustryCard]:
    return {i.id: i for i in catalogue().industry}


def growth(card_id: str) -> GrowthCard:
    return _growth()[card_id]


def challenge(card_id: str) -> ChallengeCard:
    return _challenges()[card_id]


def industry(card_id: str) -> IndustryCard:
    return _industry()[card_id]


def all_growth() -> list[GrowthCard]:
    return list(_growth().values())


def all_challenges() -> list[ChallengeCard]:
    return list(_challenges().values())


def all_industry() -> list[IndustryCard]:
    return list(_industry().values())


def challenge_id(growth_id: str) -> str:
    return _CHALLENGE_PREFIX + growth_id


def growth_of_challenge(card_id: str) -> str:
    return card_id.removeprefix(_CHALLENGE_PREFIX)


def is_growth(card_id: str) -> bool:
    return card_id in _growth()


def is_challenge(card_id: str) -> bool:
    return card_id in _challenges()


def card_name(card_id: str) -> str:
    """The printed name of any Growth, Challenge or Bonus card."""
    if card_id in _growth():
        return _growth()[card_id].name
    if card_id in _challenges():
        return _challenges()[card_id].name
    return BONUS_NAMES.get(card_id, card_id)


def copies(teams: int) -> tuple[int, int, int]:
    """(Growth sets, Challenge sets, Bonus sets) for a table of ``teams`` teams."""
    return (3, 2, 1) if teams <= 4 else (6, 4, 2)


def growth_deck(teams: int) -> list[str]:
    return [g.id for g in catalogue().growth] * copies(teams)[0]


def challenge_deck(teams: int) -> list[str]:
    return list(_challenges()) * copies(teams)[1]


def bonus_deck(teams: int) -> list[str]:
    """12 Flexible Challenges for stages 1-2, 12 for stages 3-4, 24 Blocks; doubled for 5-8."""
    return ([FLEX_12] * 12 + [FLEX_34] * 12 + [BLOCK] * 24) * copies(teams)[2]


def acquire_ready(stages: list[int]) -> bool:
    """Whether a team with ``stages`` completed cards per stage (index 0 = stage 1) has
    "completed growth stages 1, 2 and 3" as Acquire a Competitor asks."""
    needed = catalogue().acquisition.stage_cards
    return all(stages[i] >= needed[i] for i in range(3))


def acquire_missing(stages: list[int]) -> int | None:
    """The first of stages 1-3 that a team has not completed enough of, or None."""
    needed = catalogue().acquisition.stage_cards
    return next((i + 1 for i in range(3) if stages[i] < needed[i]), None)


def target_percent(target: int) -> int:
    """The percent every payoff is paid at for ``target``: 100 up to the printed target, then
    1% more for every ``step`` $M above it."""
    table = catalogue().target
    return 100 + max(0, target - table.printed) // table.step


def percent_of(card: IndustryCard | None, kind: str, stage: int, amount: int) -> int:
    """``amount`` after every ``kind`` effect (cost, payoff, penalty) on ``stage``, rounded
    half up to whole $M."""
    if card is None:
        return amount
    for effect in card.effects:
        if (
            isinstance(effect, CostEffect | PayoffEffect | PenaltyEffect)
            and effect.kind == kind
            and stage in effect.stages
        ):
            amount = (amount * effect.percent + 50) // 100
    return amount


def fine(card: IndustryCard | None) -> int:
    for effect in card.effects if card else []:
        if isinstance(effect, FineEffect):
            return effect.amount
    return SKIP_FINE


def exchange_price(card: IndustryCard | None) -> int:
    for effect in card.effects if card else []:
        if isinstance(effect, ExchangeEffect):
            return effect.amount
    return EXCHANGE_PRICE


def two_cards(card: IndustryCard | None) -> bool:
    return any(isinstance(e, TwoCardsEffect) for e in (card.effects if card else []))


def challenges_allowed(card: IndustryCard | None) -> bool:
    return not any(isinstance(e, NoChallengesEffect) for e in (card.effects if card else []))


def cycle_start_amount(card: IndustryCard, completed: list[str], challenges: int) -> int:
    """What one team receives (negative: pays) when ``card`` is drawn: rewards and charges
    based on its completed Growth cards and the challenges it has played."""
    total = 0
    for effect in card.effects:
        if isinstance(effect, PerCompletedEffect):
            count = sum(1 for cid in completed if growth(cid).stage in effect.stages)
            total += effect.amount * count
        elif isinstance(effect, PerChallengeEffect):
            total += effect.amount * challenges
    return total
