"""The card catalogue (read from ``cards.toml``) and how cards read as a product."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "DESCRIPTION",
    "ITEM",
    "Card",
    "card",
    "catalogue",
    "deck_ids",
    "is_product",
    "product_name",
    "product_sentence",
]

ITEM: Literal[1] = 1
"""Type 1 cards: the thing ("It's like a cat...")."""
DESCRIPTION: Literal[2] = 2
"""Type 2 cards: what makes it new ("...that's frozen in a block of ice!")."""


class Card(BaseModel):
    """One printed card."""

    model_config = ConfigDict(frozen=True)

    id: str
    type: Literal[1, 2]
    name: str
    """The card's title, spelling corrected."""
    printed: str | None = None
    """The title as the rule sheet prints it, when it differs from ``name``."""
    text: str
    """The printed sentence."""
    nsfw: bool = False
    """Left out of the deck by the ``safe_for_work`` option."""

    @property
    def is_item(self) -> bool:
        return self.type == ITEM


@cache
def catalogue() -> dict[str, Card]:
    """Every card by id, in the order of ``cards.toml``."""
    raw = resources.files(__package__).joinpath("cards.toml").read_text(encoding="utf-8")
    cards = [Card.model_validate(entry) for entry in tomllib.loads(raw)["card"]]
    return {c.id: c for c in cards}


def card(card_id: str) -> Card:
    return catalogue()[card_id]


def deck_ids(safe_for_work: bool) -> list[str]:
    """The ids of the cards in play, in catalogue order (the caller shuffles)."""
    return [c.id for c in catalogue().values() if not (safe_for_work and c.nsfw)]


def is_product(card_ids: Sequence[str]) -> bool:
    """A product is exactly one item plus descriptions; anything else is discarded."""
    items = sum(1 for cid in card_ids if card(cid).is_item)
    return items == 1 and len(card_ids) >= 1


def _ordered(card_ids: Sequence[str]) -> list[Card]:
    cards = [card(cid) for cid in card_ids]
    return [c for c in cards if c.is_item] + [c for c in cards if not c.is_item]


def product_name(card_ids: Sequence[str]) -> str:
    """A short name such as ``frozen cyber-cat``: descriptions as adjectives, then the item."""
    return _product_name(tuple(card_ids))


def product_sentence(card_ids: Sequence[str]) -> str:
    """The product as its cards read aloud.

    ``It's like a cat... that's frozen in a block of ice!``; further descriptions continue
    the sentence (``...that's frozen in a block of ice... but it's huge!``) and a lone item
    ends with ``!`` instead of its trailing ellipsis.
    """
    return _product_sentence(tuple(card_ids))


# Boards and views are rebuilt after every action; the same few products are named each time.
@cache
def _product_name(card_ids: tuple[str, ...]) -> str:
    cards = _ordered(card_ids)
    words = [c.name for c in cards[1:]] + [c.name for c in cards[:1]]
    name = words[0] if words else ""
    for word in words[1:]:
        # Prefix cards ("cyber-", "mexi-") are printed to be glued onto the next word.
        name += word if name.endswith("-") else " " + word
    return name


@cache
def _product_sentence(card_ids: tuple[str, ...]) -> str:
    cards = _ordered(card_ids)
    if not cards:
        return ""
    head, descriptions = cards[0], cards[1:]
    if not descriptions:
        return head.text.removesuffix("...") + "!"
    tails = [d.text.removeprefix("...") for d in descriptions]
    tails = [t.removesuffix("!") for t in tails[:-1]] + tails[-1:]
    return head.text + " " + "... ".join(tails)
