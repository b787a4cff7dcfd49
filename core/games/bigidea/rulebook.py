"""The rules page: ``rules.md`` beside this module (docs/games/bigidea.md links to it)."""

from __future__ import annotations

from core.rulebook import RuleBook

__all__ = ["BOOK", "rules_page", "rules_text", "topics"]

BOOK = RuleBook(
    "core.games.bigidea",
    "bigidea",
    {
        "pick": "seed",
        "product": "seed",
        "pitch": "pitches",
        "secret": "venture",
        "point": "venture",
        "vote": "venture",
        "open": "mezzanine",
        "invest": "mezzanine",
        "offering": "ipo",
        "end": "end of the game",
        "ending": "end of the game",
        "decisions": "rulings",
        "variant": "variants",
        "timeouts": "options",
    },
)


def rules_page() -> str:
    """The whole page as Markdown."""
    return BOOK.page


def topics() -> list[str]:
    return BOOK.topics()


def rules_text(topic: str | None) -> str:
    return BOOK.text(topic)
