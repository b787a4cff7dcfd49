"""Small text helpers every game's sentences use, and Boardroom's text markup.

Every string in a :mod:`core.ui` message is written in one small markup that each platform's
renderer translates: ``**bold**`` and backslash escapes (``\\*`` is a literal asterisk). Text that
players typed (display names, team names, pitches) enters it only through :func:`escape`, so a
name such as ``**BUY** @everyone`` can neither format a message nor mention anyone; renderers turn
the markup into Discord markdown, Slack mrkdwn or plain text (:func:`plain`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

__all__ = [
    "BIDI_CONTROLS",
    "BOLD",
    "ELLIPSIS",
    "PAGE_LIMIT",
    "SPECIAL",
    "clip",
    "clip_start",
    "escape",
    "join",
    "pages",
    "plain",
    "plural",
    "possessive",
    "tokens",
    "unescape",
    "valid",
]

SPECIAL = frozenset("\\*_~`|><@#[]")
"""Characters :func:`escape` protects: markdown, mrkdwn and mention syntax on either platform."""
BOLD = "**"
ELLIPSIS = "…"

_TOKEN = re.compile(r"\\(.)|(\*\*)", re.DOTALL)
_HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.MULTILINE)

PAGE_LIMIT = 1800
"""Characters of one page of a long text: one plain Discord message (2,000) with room to spare,
and well within a Slack section (3,000)."""


def join(words: Sequence[str], last: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c`` (``last="or"``: ``a, b or c``)."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {last} " + words[-1]


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 unit``, ``2 units``; ``words`` for an irregular plural."""
    return f"{count:,} {word if count == 1 else (words or word + 's')}"


def possessive(name: str) -> str:
    """``Red's``, ``Sharks'``: a name (a team, a player, a country) taking the possessive.

    A name ending in s takes a bare apostrophe, so that a team called Sharks reads "Sharks'
    turn", not "Sharks's turn". ``name`` may be markup: escapes never end in a letter.
    """
    return f"{name}'" if name[-1:] in ("s", "S") else f"{name}'s"


_CLIP_REACH = 5
"""A clip backs up to a space only within the last fifth of the room: a long word (a mention,
a URL) is then cut rather than losing most of what fits."""


def clip(text: str, limit: int) -> str:
    """``text`` (markup, or a platform's text made from it) in at most ``limit`` characters:
    when too long, cut at a word boundary and ended with an ellipsis. A backslash escape is
    never split and bold (``**``) stays paired, the closing marks counted in the limit."""
    if len(text) <= limit:
        return text
    if limit <= len(ELLIPSIS):
        return ELLIPSIS[:limit]
    room = limit - len(ELLIPSIS)
    head, opened = _head(text, room)
    if opened:  # the closing marks need room of their own
        head, opened = _head(text, room - len(BOLD))
    space = head.rfind(" ")
    if space > len(head) - len(head) // _CLIP_REACH:
        head = head[:space]
        opened = sum(1 for kind, _ in tokens(head) if kind == "bold") % 2 == 1
    return head.rstrip() + ELLIPSIS + (BOLD if opened else "")


def _head(text: str, room: int) -> tuple[str, bool]:
    """The longest run of whole tokens of ``text`` within ``room`` characters (text tokens may
    be cut), and whether a bold mark is left open."""
    out: list[str] = []
    used, opened = 0, False
    for kind, value in tokens(text):
        shown = "\\" + value if kind == "literal" else value
        if used + len(shown) > room:
            if kind == "text":
                out.append(shown[: room - used])
            break
        out.append(shown)
        used += len(shown)
        opened = opened != (kind == "bold")
    return "".join(out), opened


def clip_start(text: str, limit: int) -> str:
    """The end of ``text`` in at most ``limit`` characters: when too long, whole lines from a
    line break (else from a word boundary), after an ellipsis. For a story whose newest lines
    matter most."""
    if len(text) <= limit:
        return text
    if limit <= len(ELLIPSIS):
        return ELLIPSIS[:limit]
    room = limit - len(ELLIPSIS)
    tail = text[len(text) - room :]
    # At a break the cut falls just before the tail (its first line is whole); else drop the
    # partial first line, or at least the partial first word.
    if text[len(text) - room - 1] == "\n":
        return ELLIPSIS + tail
    for mark in ("\n", " "):
        at = tail.find(mark)
        if 0 <= at < len(tail) - 1 and (mark == "\n" or at < room // _CLIP_REACH):
            return ELLIPSIS + tail[at + 1 :].lstrip()
    return ELLIPSIS + tail


def escape(typed: str) -> str:
    """``typed`` (a player's text) as literal markup: specials escaped, one line, valid unicode.

    Line breaks and other control characters become spaces and text-direction controls go
    (an override in a name would turn the rest of the line around), so user text never breaks
    a message's layout; a lone surrogate (which no platform can send) becomes U+FFFD.
    """
    out = []
    for char in valid(typed):
        if char in BIDI_CONTROLS:
            continue
        if unicodedata.category(char) in ("Cc", "Zl", "Zp"):
            out.append(" ")
        elif char in SPECIAL:
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out)


BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Unicode's explicit text-direction marks, embeddings, overrides and isolates: typed text loses
them (letters keep their own direction, so right-to-left names still read right)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def valid(typed: str) -> str:
    """``typed`` with any lone surrogate (text no platform can carry, nor JSON encode to UTF-8)
    replaced by U+FFFD; everything else as it is."""
    return _SURROGATE.sub("\ufffd", typed)


def tokens(markup: str) -> list[tuple[str, str]]:
    """``markup`` as ``("text", s)``, ``("literal", c)`` (an escaped character) and
    ``("bold", "**")`` tokens, in order; renderers build their platform's text from these."""
    out: list[tuple[str, str]] = []
    last = 0
    for match in _TOKEN.finditer(markup):
        if match.start() > last:
            out.append(("text", markup[last : match.start()]))
        if match.group(1) is not None:
            out.append(("literal", match.group(1)))
        else:
            out.append(("bold", BOLD))
        last = match.end()
    if last < len(markup):
        out.append(("text", markup[last:]))
    return out


def unescape(markup: str) -> str:
    """``markup`` with its escapes resolved and its bold marks kept (the terminal shows them)."""
    return "".join(value for _, value in tokens(markup))


def plain(markup: str) -> str:
    """``markup`` as plain text: bold marks dropped, escapes resolved (labels, console)."""
    return "".join(value for kind, value in tokens(markup) if kind != "bold")


def pages(document: str, limit: int = PAGE_LIMIT) -> list[str]:
    """A Markdown ``document`` (a rules page) as chat messages of at most ``limit`` characters.

    Headings become bold lines (no chat platform shows ``## ``), and tables lists (neither
    draws a Markdown table: :func:`_as_list`); pages break between paragraphs, or between lines
    of a paragraph too long for one page, and only as a last resort mid-line.
    """
    text = _HEADING.sub(lambda m: f"{BOLD}{m.group(1)}{BOLD}", document.strip())
    text = _TABLE.sub(lambda m: _as_list(m.group(0)), text)
    out: list[str] = []
    page = ""
    for block in _pieces(text, limit):
        joined = f"{page}\n\n{block}" if page else block
        if len(joined) <= limit:
            page = joined
        else:
            out.append(page)
            page = block
    if page:
        out.append(page)
    return out


def _pieces(text: str, limit: int) -> list[str]:
    """Paragraphs of ``text``, those over ``limit`` split into lines (and lines into slices)."""
    pieces: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = _unwrapped(paragraph)
        if len(paragraph) <= limit:
            pieces.append(paragraph)
            continue
        # Too long for one page: as many whole lines as fit go together, still one paragraph.
        chunk = ""
        for line in paragraph.splitlines():
            for part in (line[i : i + limit] for i in range(0, max(len(line), 1), limit)):
                if chunk and len(chunk) + 1 + len(part) > limit:
                    pieces.append(chunk)
                    chunk = ""
                chunk = f"{chunk}\n{part}" if chunk else part
        if chunk:
            pieces.append(chunk)
    return [piece for piece in pieces if piece.strip()]


_STRUCTURED = re.compile(r"^\s*([-*+•](\s|$)|[|>]|\d+[.)](\s|$)|```)")

_TABLE = re.compile(r"^\|.*\|[ \t]*\n\|[ :|-]*-[ :|-]*\|[ \t]*(?:\n\|.*\|[ \t]*)*$", re.MULTILINE)
"""A Markdown table: its header row, the ``| --- |`` row and its rows."""


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _as_list(table: str) -> str:
    """A Markdown table as a list chat shows well: one ``•`` line per row, ``first: second``
    for two columns, else the first cell in bold and the others named by their headers. A
    table whose header repeats (``| # | space | # | space |``, a long list in two halves) is
    read as the shorter table it folds, its left half first."""
    header, _, *rows = table.strip().splitlines()
    heads = _cells(header)
    width = next(
        k
        for k in range(1, len(heads) + 1)
        if len(heads) % k == 0 and all(h == heads[i % k] for i, h in enumerate(heads))
    )
    cut = [_cells(row) for row in rows]
    records = [row[start : start + width] for start in range(0, len(heads), width) for row in cut]
    lines = []
    for record in records:
        if not any(record):
            continue
        first, rest = record[0], record[1:]
        if width == 1:
            lines.append(f"• {first}")
        elif width == 2:
            lines.append(f"• {first}: {rest[0]}" if rest and rest[0] else f"• {first}")
        else:
            named = [
                f"{head}: {cell}" for head, cell in zip(heads[1:width], rest, strict=False) if cell
            ]
            lines.append(f"• {BOLD}{first}{BOLD} — " + "; ".join(named) if named else f"• {first}")
    return "\n".join(lines)


def _unwrapped(paragraph: str) -> str:
    """A paragraph's hard line breaks dropped where they only wrap the source (chat wraps
    lines itself, and a break in a sentence breaks it in every client): prose lines are joined,
    and in a list each item's continuation lines join their item; a table's rows and code
    blocks stay as they are."""
    lines = paragraph.splitlines()
    if not any(_STRUCTURED.match(line) for line in lines):
        return " ".join(line.strip() for line in lines)
    out: list[str] = []
    fenced = False
    for line in lines:
        if line.strip().startswith("```"):
            fenced = not fenced
            out.append(line)
            continue
        joins = out and not fenced and not _STRUCTURED.match(line) and line.strip()
        if joins and not out[-1].strip().startswith(("|", "```")):
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(out)
