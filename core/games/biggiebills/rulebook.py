"""The rules page: ``rules.md`` beside this module (docs/games/biggiebills.md links to it)."""

from __future__ import annotations

from core.rulebook import RuleBook

__all__ = ["BOOK", "rules_page", "rules_text", "topics"]

BOOK = RuleBook(
    "core.games.biggiebills",
    "biggiebills",
    {
        "growth": "growth cards",
        "challenge": "challenge cards",
        "challenges": "challenge cards",
        "industry": "industry rules",
        "bonus": "bonus cards",
        "flexible": "bonus cards",
        "acquire": "acquiring",
        "acquisition": "acquiring",
        "win": "winning",
        "end": "winning",
        "cycle": "business cycles",
        "cycles": "business cycles",
        "decisions": "rulings",
        "numbers": "tuning",
        "simulation": "tuning",
        "commands": "typed commands",
        "target": "winning",
        "vote": "winning",
        "time": "winning",
        "minutes": "winning",
        "cards": "hand",
    },
)


def rules_page() -> str:
    """The whole page as Markdown."""
    return BOOK.page


def topics() -> list[str]:
    return BOOK.topics()


def rules_text(topic: str | None) -> str:
    return BOOK.text(topic)
