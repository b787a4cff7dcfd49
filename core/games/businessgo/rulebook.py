"""The rules page: ``rules.md`` beside this module (docs/games/businessgo.md links to it)."""

from __future__ import annotations

from core.rulebook import RuleBook

__all__ = ["BOOK", "rules_page", "rules_text", "topics"]

BOOK = RuleBook(
    "core.games.businessgo",
    "businessgo",
    {
        "roll": "turn",
        "convert": "turn",
        "corporation": "turn",
        "licence": "licences",
        "license": "licences",
        "sale": "selling",
        "sales": "selling",
        "demand": "selling",
        "compete": "competition",
        "join": "competition",
        "salary": "fees",
        "debt": "debts",
        "auction": "debts",
        "bid": "debts",
        "accept": "debts",
        "floor": "debts",
        "bankruptcy": "debts",
        "track": "board",
        "odds": "casino",
        "auto": "pace",
        "automatic": "pace",
        "always": "competition",
        "maintenance": "fees",
        "win": "winning",
        "decisions": "rulings",
        "timeouts": "options",
        "numbers": "simulation",
    },
)


def rules_page() -> str:
    """The whole page as Markdown."""
    return BOOK.page


def topics() -> list[str]:
    return BOOK.topics()


def rules_text(topic: str | None) -> str:
    return BOOK.text(topic)
