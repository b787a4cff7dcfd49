"""The board, the licences and the card decks, read from ``board.toml`` beside this module."""

from __future__ import annotations

import tomllib
from functools import cache, cached_property
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

__all__ = [
    "Board",
    "Country",
    "FeeCard",
    "MailCard",
    "Product",
    "Service",
    "board",
]

SpaceKind = Literal[
    "start",
    "country",
    "service",
    "boom",
    "burnout",
    "casino",
    "charity",
    "ecology",
    "mail",
    "operating_fees",
    "travel_agency",
]
_SIMPLE_SPACES: dict[str, SpaceKind] = {
    "start": "start",
    "boom": "boom",
    "burnout": "burnout",
    "casino": "casino",
    "charity": "charity",
    "ecology": "ecology",
    "mail": "mail",
    "operating_fees": "operating_fees",
    "travel_agency": "travel_agency",
}
SPACE_NAMES = {
    "start": "BUSINE$$ GO Start",
    "boom": "Boom",
    "burnout": "Burnout",
    "casino": "Casino",
    "charity": "Charity Drive",
    "ecology": "Ecology",
    "mail": "Mail",
    "operating_fees": "Operating Fees",
    "travel_agency": "Travel Agency",
}


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Product(_Frozen):
    id: str
    name: str


class Country(_Frozen):
    """One Business Licence card."""

    id: str
    name: str
    continent: str
    product: str
    licence: int
    start_up: int
    """Setting up a National Corporation."""
    conversion: int
    """Converting the National Corporation into an International one."""
    national_sales: tuple[int, int, int]
    """Total paid for one sale with 1, 2, 3 (or more) corporations making the product."""
    international_sales: tuple[int, int, int]


class Service(_Frozen):
    """One Service Industry Corporation card."""

    id: str
    name: str
    price: int
    fee_per_corporation: int
    """Paid by the bank for each corporation the owner's competitors own."""


class FeeCard(_Frozen):
    id: str
    name: str
    kind: Literal["table", "per_unit"]
    amount: int = 0


class MailCard(_Frozen):
    id: str
    text: str
    kind: Literal[
        "collect",
        "pay",
        "collect_per_corporation",
        "pay_per_corporation",
        "advance_to",
        "go_to",
        "remove_corporation",
    ]
    amount: int = 0
    space: str = ""


class DemandDie(_Frozen):
    faces: tuple[str, str, str, str, str, str]


class Board(_Frozen):
    """Everything printed on the board and its cards."""

    start_cash: int
    pass_start: int
    land_start: int
    casino_limit: int
    casino_minimum: int
    charity_per_corporation: int
    ecology_per_corporation: int
    travel_fare: int
    national_units: int
    international_units: int
    spaces: tuple[str, ...]
    demand_die: tuple[DemandDie, ...]
    product: tuple[Product, ...]
    country: tuple[Country, ...]
    service: tuple[Service, ...]
    fee_card: tuple[FeeCard, ...]
    salary_table: tuple[tuple[int, int], ...]
    mail_card: tuple[MailCard, ...]

    @model_validator(mode="after")
    def _consistent(self) -> Board:
        products = {p.id for p in self.product}
        countries = {c.id for c in self.country}
        services = {s.id for s in self.service}
        for space in self.spaces:
            if space not in countries | services | set(_SIMPLE_SPACES):
                raise ValueError(f"unknown space {space!r}")
        if len(countries) != 26 or not countries <= set(self.spaces):
            raise ValueError("the board needs its 26 countries")
        if len(self.demand_die) != 3:
            raise ValueError("there are three Product Demand dice")
        for die in self.demand_die:
            if not set(die.faces) <= products:
                raise ValueError(f"unknown product on a demand die: {die.faces}")
        for c in self.country:
            if c.product not in products:
                raise ValueError(f"{c.name} makes an unknown product")
        for card in self.mail_card:
            if card.kind in ("advance_to", "go_to") and card.space not in self.spaces:
                raise ValueError(f"mail card {card.id} sends to an unknown space")
        return self

    # --- look-ups ---------------------------------------------------------------------------

    def kind(self, index: int) -> SpaceKind:
        space = self.spaces[index]
        if space in _SIMPLE_SPACES:
            return _SIMPLE_SPACES[space]
        return "country" if space in self.countries else "service"

    def space_name(self, index: int) -> str:
        space = self.spaces[index]
        if space in self.countries:
            return self.countries[space].name
        if space in self.services:
            return self.services[space].name
        return SPACE_NAMES[space]

    def index_of(self, space: str) -> int:
        return self.spaces.index(space)

    @cached_property
    def countries(self) -> dict[str, Country]:
        return {c.id: c for c in self.country}

    @cached_property
    def services(self) -> dict[str, Service]:
        return {s.id: s for s in self.service}

    @cached_property
    def products(self) -> dict[str, Product]:
        return {p.id: p for p in self.product}

    @cached_property
    def fee_cards(self) -> dict[str, FeeCard]:
        return {c.id: c for c in self.fee_card}

    @cached_property
    def mail_cards(self) -> dict[str, MailCard]:
        return {c.id: c for c in self.mail_card}

    def salary(self, units: int) -> int:
        """The Employee Salary table: the amount for ``units`` (0 units pay nothing)."""
        amount = 0
        for lowest, value in self.salary_table:
            if units >= lowest:
                amount = value
        return amount


@cache
def board() -> Board:
    """The board as printed in ``board.toml``."""
    raw = resources.files(__package__).joinpath("board.toml").read_text(encoding="utf-8")
    return Board.model_validate(tomllib.loads(raw))
