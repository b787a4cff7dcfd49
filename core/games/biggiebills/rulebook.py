"""The rules page: ``rules.md`` beside this module (docs/games/biggiebills.md links to it)."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

__all__ = ["rules_page", "rules_text", "topics"]

_HEADING = re.compile(r"^(#{2,3}) (.+)$", re.MULTILINE)
_ALIASES = {
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
}


@cache
def rules_page() -> str:
    """The whole page as Markdown."""
    return resources.files(__package__).joinpath("rules.md").read_text(encoding="utf-8")


@cache
def _sections() -> list[tuple[str, str]]:
    """(lower-case title, text) of every ``##`` and ``###`` section, subsections included."""
    page = rules_page()
    heads = list(_HEADING.finditer(page))
    sections = []
    for i, head in enumerate(heads):
        level = len(head.group(1))
        end = next(
            (h.start() for h in heads[i + 1 :] if len(h.group(1)) <= level),
            len(page),
        )
        sections.append((head.group(2).strip().lower(), page[head.start() : end].strip()))
    return sections


def topics() -> list[str]:
    """The first word of every section title, as a player would type it."""
    firsts = [title.split()[0] for title, _ in _sections()]
    return list(dict.fromkeys(firsts))  # "End of the round" and "End of the game" share "end"


def rules_text(topic: str | None) -> str:
    """The overview and the list of topics for ``None`` (a whole page is too long for a chat
    message), the whole page for ``all``, else the first section whose title starts with
    ``topic``."""
    if topic is None or not topic.strip():
        overview = _sections()[0][1] if _sections() else ""
        return (
            f"{overview}\n\nMore: `/biggiebills rules <topic>` with a topic of "
            f"{', '.join(topics())}; `/biggiebills rules all` for the whole page."
        )
    key = topic.strip().lower()
    if key == "all":
        return rules_page()
    key = _ALIASES.get(key, key)
    for title, text in _sections():
        if title.startswith(key):
            return text
    return f"There is no rules topic “{topic.strip()}”. Topics: {', '.join(topics())}."
