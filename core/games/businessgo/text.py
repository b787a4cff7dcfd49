"""Small formatting helpers shared by the rules, the views and the UI."""

from __future__ import annotations

from core.text import join, plural

__all__ = ["Dollars", "join", "money", "parse_amount", "plural", "score_text"]

Dollars = int
"""Busine$$ GO's money: whole dollars ($10,000,000 is 10_000_000)."""


def money(amount: Dollars) -> str:
    """``$1,250,000``; negative amounts as ``-$20,000``."""
    sign = "-" if amount < 0 else ""
    return f"{sign}${abs(amount):,}"


def parse_amount(text: str) -> Dollars | None:
    """``250000``, ``$250,000``, ``250k``, ``1.5m`` -> dollars; None when it is not an amount."""
    word = text.strip().lower().replace(",", "").replace("_", "").removeprefix("$")
    factor = 1
    if word.endswith("k"):
        factor, word = 1_000, word[:-1]
    elif word.endswith("m"):
        factor, word = 1_000_000, word[:-1]
    try:
        value = float(word)
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    amount = round(value * factor)
    return amount if amount == value * factor else None


def score_text(score: float) -> str:
    """A standing's score: the seat's cash, in dollars."""
    return money(round(score))
