"""Small formatting helpers shared by the rules, the views and the UI."""

from __future__ import annotations

from collections.abc import Sequence

from core.games.bigidea.cards import card, is_product, product_name, product_sentence
from core.games.bigidea.state import BigIdeaState, Product
from core.text import join, plural, possessive

__all__ = [
    "Cents",
    "card_list",
    "join",
    "money",
    "pick_line",
    "plural",
    "point_line",
    "product_label",
    "score_text",
]

Cents = int
"""The Big Idea's money: cents ($10 is 1000), since the variant pays half dollars."""


def money(cents: Cents) -> str:
    """``$3`` for whole dollars, ``$2.50`` otherwise (the variant pays half dollars)."""
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}${whole}" if rest == 0 else f"{sign}${whole}.{rest:02d}"


def product_label(state: BigIdeaState, product: Product) -> str:
    """``Bob's frozen cat``: unique on the table, since every card exists once."""
    return f"{possessive(state.names[product.owner])} {product_name(product.cards)}"


def card_list(card_ids: Sequence[str]) -> str:
    return " + ".join(card(cid).name for cid in card_ids)


def pick_line(card_ids: Sequence[str]) -> str:
    """A seat's pending pick, as its panel shows it and its confirmation says it: one text, so
    that the panel shows it once."""
    if is_product(card_ids):
        what = f"{product_name(card_ids)}: {product_sentence(card_ids)}"
    else:
        what = f"{card_list(card_ids)} (not a product: it will be discarded)."
    return f"Your pick: {what} You may change it until everyone has picked."


def point_line(whom: str) -> str:
    """Where a seat points while the pointing is secret, as its panel shows it and its
    confirmation says it (one text, so that the panel shows it once)."""
    return f"You point at {whom}. You may change it until everyone has pointed."


def score_text(score: float) -> str:
    """A standing's score, which is in dollars (money is in cents)."""
    return money(round(score * 100))
