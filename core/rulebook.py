"""A game's rules page (``rules.md`` beside its modules) served in topics for chat.

Each game keeps one Markdown page for players (docs/games/<game>.md links to it). In chat a whole
page is too long, so ``/<game> rules`` answers with the overview and the topics, ``rules <topic>``
with the first ``##``/``###`` section whose title starts with the topic (or an alias of it), and
``rules all`` with the whole page.
"""

from __future__ import annotations

import re
from functools import cached_property
from importlib import resources

from core.text import escape

__all__ = ["RuleBook"]

_HEADING = re.compile(r"^(#{2,3}) (.+)$", re.MULTILINE)


class RuleBook:
    """The rules page of the game package ``package``, played with ``/<command>``."""

    def __init__(self, package: str, command: str, aliases: dict[str, str]) -> None:
        self.package = package
        self.command = command
        self.aliases = aliases
        """Words a player may type for a topic, e.g. ``{"win": "winning"}``."""

    @cached_property
    def page(self) -> str:
        """The whole page as Markdown."""
        return resources.files(self.package).joinpath("rules.md").read_text(encoding="utf-8")

    @cached_property
    def sections(self) -> list[tuple[str, str]]:
        """(lower-case title, text) of every ``##`` and ``###`` section, subsections included."""
        page = self.page
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

    def topics(self) -> list[str]:
        """The first word of every section title, as a player would type it."""
        firsts = [title.split()[0] for title, _ in self.sections]
        return list(dict.fromkeys(firsts))  # "End of the round" and "End of the game" share "end"

    def text(self, topic: str | None) -> str:
        """The overview and the topics for ``None``, the whole page for ``all``, else the first
        section whose title starts with ``topic``."""
        if topic is None or not topic.strip():
            overview = self.sections[0][1] if self.sections else ""
            return (
                f"{overview}\n\nMore: `/{self.command} rules <topic>` with a topic of "
                f"{', '.join(self.topics())}; `/{self.command} rules all` for the whole page."
            )
        key = topic.strip().lower()
        if key == "all":
            return self.page
        key = self.aliases.get(key, key)
        for title, text in self.sections:
            if title.startswith(key):
                return text
        typed = escape(topic.strip())
        return f"There is no rules topic “{typed}”. Topics: {', '.join(self.topics())}."
