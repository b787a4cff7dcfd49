"""Small formatting helpers shared by the rules, the views and the UI."""

from __future__ import annotations

from core.text import join, plural, possessive

__all__ = ["Millions", "join", "money", "plural", "possessive", "score_text"]

Millions = int
"""BiggieBills$$$' money: whole $ millions ($1 billion is 1000)."""


def money(amount: Millions) -> str:
    """``$200M``, ``$1.25B``, ``-$10M`` (amounts are whole $ millions)."""
    sign = "-" if amount < 0 else ""
    amount = abs(amount)
    if amount >= 1000:
        billions = f"{amount / 1000:.3f}".rstrip("0").rstrip(".")
        return f"{sign}${billions}B"
    return f"{sign}${amount}M"


def score_text(score: float) -> str:
    """A standing's score: the team's cash, in $ millions."""
    return money(round(score))
