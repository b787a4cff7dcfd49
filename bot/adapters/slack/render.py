"""Neutral :mod:`core.ui` messages as Slack Block Kit, within Slack's size limits.

Every button and select gets an ``action_id`` of ``brd<n>:<component id>``: the index keeps
action ids unique within a message (Slack refuses a message with two equal ones) and the
component id, bound by the table before a primitive sees the message
(:func:`bot.commands.codec.bind`, within :data:`ID_LIMIT`), is all the authority needs to handle
the press; this module draws it as it is. A control left unbound (its id could not fit) is left
out.

Text arrives as Boardroom markup (:mod:`core.text`): ``**bold**`` becomes Slack's ``*bold*``,
``&``, ``<`` and ``>`` become entities (so nothing typed can mention anyone), and an escaped
formatting character gets a zero-width space before it, which keeps Slack from reading it as a
mark (mrkdwn has no backslash escape). Plain-text fields (buttons, headers, options) lose the marks.
"""

from __future__ import annotations

import re
import time

from pydantic import JsonValue

from core import text as markup
from core import ui

__all__ = [
    "ACTION_PATTERN",
    "ID_LIMIT",
    "Block",
    "blocks",
    "component_id",
    "ends",
    "fallback_text",
    "mrkdwn",
]

Block = dict[str, JsonValue]

ACTION_PATTERN = re.compile(r"^brd\d+:")
"""What Bolt routes to the press handler: every component this module renders."""

# Slack's documented limits (Block Kit reference).
MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_FIELDS = 10
MAX_FIELD_TEXT = 2000
MAX_HEADER = 150
MAX_BUTTON_TEXT = 75
MAX_ELEMENTS = 25
MAX_OPTIONS = 100
MAX_OPTION_TEXT = 75
MAX_PLACEHOLDER = 150
MAX_FALLBACK = 3000
MAX_ACTION_ID = 255
ID_LIMIT = MAX_ACTION_ID - len("brd99:")
"""The longest component id a control may be bound to: an ``action_id`` less its index."""

_MARKS = frozenset("*_~`")
"""mrkdwn's formatting characters."""


def _cut(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, cut between words with an ellipsis."""
    return markup.clip(text, limit)


def _entities(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def mrkdwn(text: str) -> str:
    """Boardroom markup as Slack mrkdwn (see the module's docstring)."""
    out = []
    for kind, value in markup.tokens(text):
        if kind == "bold":
            out.append("*")
        elif kind == "literal" and value in _MARKS:
            out.append("\u200b" + value)
        else:
            out.append(_entities(value))
    return "".join(out)


def _plain(text: str, limit: int) -> Block:
    return {"type": "plain_text", "text": _cut(markup.plain(text) or " ", limit), "emoji": True}


def _chunks(text: str, limit: int) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, cut at line ends where possible,
    else between words (a mrkdwn entity such as ``&amp;`` holds no space, so none is split)."""
    pieces: list[str] = []
    while len(text) > limit:
        cut = text.rfind("\n", 0, limit)
        if cut <= 0:
            cut = text.rfind(" ", 0, limit)
        cut = cut if cut > 0 else limit
        pieces.append(text[:cut])
        text = text[cut:].lstrip("\n").removeprefix(" ")
    if text:
        pieces.append(text)
    return pieces


def component_id(action_id: str) -> str | None:
    """The component id inside an ``action_id`` made here, or None for anything else."""
    if not ACTION_PATTERN.match(action_id):
        return None
    return action_id.split(":", 1)[1]


class _Ids:
    """Numbers the components of one message (their action ids), over ids unique already."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, custom_id: str) -> str:
        self.count += 1
        return f"brd{self.count}:{custom_id}"


def _button(button: ui.Button, ids: _Ids) -> Block | None:
    if button.custom_id is None:
        return None  # unbound: its id did not fit (the binding said so)
    element: Block = {
        "type": "button",
        "text": _plain(button.label, MAX_BUTTON_TEXT),
        "action_id": ids(button.custom_id),
    }
    # Slack has two accent styles; the neutral "success" reads as the primary one.
    if button.style in ("primary", "success"):
        element["style"] = "primary"
    elif button.style == "danger":
        element["style"] = "danger"
    return element


def _option(option: ui.SelectOption) -> Block:
    built: Block = {"text": _plain(option.label, MAX_OPTION_TEXT), "value": option.value}
    if option.description:
        built["description"] = _plain(option.description, MAX_OPTION_TEXT)
    return built


def _select(select: ui.Select, ids: _Ids) -> Block | None:
    if select.custom_id is None:
        return None
    many = select.max_values > 1
    element: Block = {
        "type": "multi_static_select" if many else "static_select",
        "placeholder": _plain(select.placeholder, MAX_PLACEHOLDER),
        "action_id": ids(select.custom_id),
    }
    options: list[JsonValue] = [_option(o) for o in select.options]
    if len(options) <= MAX_OPTIONS:
        element["options"] = options
    else:
        # Past 100 options Slack wants option groups (up to 100 groups of 100).
        groups = [options[i : i + MAX_OPTIONS] for i in range(0, len(options), MAX_OPTIONS)]
        element["option_groups"] = [
            {"label": _plain(f"{i * MAX_OPTIONS + 1}-{i * MAX_OPTIONS + len(g)}", 75), "options": g}
            for i, g in enumerate(groups[:MAX_OPTIONS])
        ]
    if many:
        element["max_selected_items"] = select.max_values
    return element


def _fields(fields: list[ui.Field_]) -> list[Block]:
    out: list[Block] = []
    inline = [f for f in fields if f.inline]
    for start in range(0, len(inline), MAX_FIELDS):
        out.append(
            {
                "type": "section",
                "fields": [
                    {
                        "type": "mrkdwn",
                        "text": _cut(f"*{mrkdwn(f.name)}*\n{mrkdwn(f.value)}", MAX_FIELD_TEXT),
                    }
                    for f in inline[start : start + MAX_FIELDS]
                ],
            }
        )
    for f in fields:
        if not f.inline:
            text = _cut(f"*{mrkdwn(f.name)}*\n{mrkdwn(f.value)}", MAX_SECTION_TEXT)
            out.append({"type": "section", "text": {"type": "mrkdwn", "text": text}})
    return out


def blocks(message: ui.Message) -> list[Block]:
    """``message`` as Block Kit blocks, its controls bound to their ids already
    (:func:`bot.commands.codec.bind`)."""
    out: list[Block] = []
    if message.title:
        out.append({"type": "header", "text": _plain(message.title, MAX_HEADER)})
    for piece in _chunks(mrkdwn(message.text), MAX_SECTION_TEXT):
        out.append({"type": "section", "text": {"type": "mrkdwn", "text": piece}})
    out.extend(_fields(message.fields))
    if message.deadline is not None:
        out.append({"type": "context", "elements": [{"type": "mrkdwn", "text": ends(message)}]})
    if message.image_url:
        out.append({"type": "image", "image_url": message.image_url, "alt_text": "board"})
    ids = _Ids()
    controls: list[Block] = []
    for row in message.buttons:
        live = [b for b in row if not b.disabled]
        # Slack buttons cannot be disabled: a greyed-out choice becomes a line of context.
        dead = [b.label for b in row if b.disabled]
        elements: list[JsonValue] = [e for e in (_button(b, ids) for b in live) if e is not None]
        for start in range(0, len(elements), MAX_ELEMENTS):
            controls.append({"type": "actions", "elements": elements[start : start + MAX_ELEMENTS]})
        if dead:
            text = _cut(" · ".join(mrkdwn(label) for label in dead), MAX_SECTION_TEXT)
            controls.append({"type": "context", "elements": [{"type": "mrkdwn", "text": text}]})
    for select in message.selects:
        menu = _select(select, ids)
        if menu is not None:
            controls.append({"type": "actions", "elements": [menu]})
    # Components matter more than the tail of a long text: keep them when trimming to 50 blocks.
    room = MAX_BLOCKS - len(controls)
    if len(out) > room:
        out = out[: max(room - 1, 0)]
        out.append({"type": "context", "elements": [{"type": "mrkdwn", "text": "(cut short)"}]})
    return (out + controls)[:MAX_BLOCKS]


def ends(message: ui.Message) -> str:
    """When the message's decision ends, in the reader's time zone, with its day ("today",
    "tomorrow", "Dec 9": a turn may last days). Slack's date token does not count down; the
    fallback, for clients that cannot show it, is UTC."""
    due = int(message.deadline or 0)
    utc = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(due))
    return f"⏳ Ends <!date^{due}^{{date_short_pretty}} at {{time_secs}}|{utc}>."


def fallback_text(message: ui.Message) -> str:
    """The notification text Slack shows where blocks cannot be (and screen readers read)."""
    text = message.plain_text() or "Boardroom"
    return _cut(mrkdwn(text), MAX_FALLBACK)
