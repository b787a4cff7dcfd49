"""Neutral UI messages (core/ui.py) as Discord content, embeds and components.

Discord's limits are applied here, so nothing else needs to know them: 2000 characters of
content, 4096 in an embed description, 25 fields, 5 action rows of 5 buttons, 25 select options,
80-character button labels. Long text is cut with an ellipsis (the full text is always one
`/<game> status` or `rules` away); components that do not fit are left out and logged. Each
button and menu is drawn with the id it was bound to (``custom_id``: the table binds every
message before a primitive sees it, see :func:`bot.commands.codec.bind`, within
:data:`CUSTOM_ID_LIMIT`); one left unbound (its id could not fit) is left out. Files
(:class:`core.ui.File`) become attachments with their description (alt text, at most 1,024
characters); one larger than the upload limit (10 MiB by default; an interaction says its own)
is left out, logged and said in the text, so that the message never promises a file it does
not carry.

Text arrives as Boardroom markup (:mod:`core.text`) and leaves as Discord markdown: escaped
characters stay escaped (a backslash, or a zero-width space after ``@`` so that nothing reads as
a mention), and labels, which Discord shows as plain text, lose their marks. Every send also
carries ``allowed_mentions`` that notify nobody (:data:`NO_MENTIONS`).
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass, field

import discord

from bot.adapters.discord.components import GameButton, GameSelect
from core import text as markup
from core import ui

__all__ = ["CUSTOM_ID_LIMIT", "FILE_LIMIT", "NO_MENTIONS", "Rendered", "markdown", "render"]

log = logging.getLogger(__name__)

CONTENT_LIMIT = 2000
DESCRIPTION_LIMIT = 4096
TITLE_LIMIT = 256
FIELD_NAME_LIMIT = 256
FIELD_VALUE_LIMIT = 1024
MAX_FIELDS = 25
MAX_ROWS = 5
ROW_WIDTH = 5
LABEL_LIMIT = 80
CUSTOM_ID_LIMIT = 100
"""Characters of a component's custom id (what the table binds ids within for Discord)."""
OPTION_LIMIT = 100
MAX_OPTIONS = 25
PLACEHOLDER_LIMIT = 150
FILE_LIMIT = 10 * 1024 * 1024
"""Bytes per uploaded file where nothing says otherwise (Discord's default since 2025)."""
FILE_DESCRIPTION_LIMIT = 1024
_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


NO_MENTIONS = discord.AllowedMentions.none()
"""What every message may notify: nobody (a turn notice names its one user itself)."""


def markdown(text: str) -> str:
    """Boardroom markup as Discord markdown."""
    out = []
    for kind, value in markup.tokens(text):
        if kind == "literal":
            out.append("@\u200b" if value == "@" else "\\" + value)
        else:
            out.append(value)
    return "".join(out)


@dataclass
class Rendered:
    """Keyword arguments for ``send``/``edit``: content, embeds and a view (or none), and the
    files that fit the upload limit (sent by the primitives that can carry them)."""

    content: str | None = None
    embeds: list[discord.Embed] = field(default_factory=list)
    view: discord.ui.View | None = None
    files: list[ui.File] = field(default_factory=list)
    picture: ui.File | None = None
    """A board's picture, attached beneath its embed (its alt text the description)."""

    def attachments(self, picture: bool = True) -> list[discord.File]:
        """The files (and, with ``picture``, the picture) as discord.py uploads them (new
        objects each time: a send reads them)."""
        listed = [*self.files, *([self.picture] if picture and self.picture else [])]
        return [
            discord.File(
                io.BytesIO(f.data),
                filename=f.name,
                description=cut(f.alt, FILE_DESCRIPTION_LIMIT) or None,
            )
            for f in listed
        ]


def cut(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, cut between words with an ellipsis."""
    return markup.clip(text, limit)


def render(message: ui.Message, file_limit: int = FILE_LIMIT) -> Rendered:
    """Render ``message``, its controls bound to their ids already
    (:func:`bot.commands.codec.bind`); ``file_limit``: bytes per file where it is shown (an
    interaction's own limit)."""
    rendered = Rendered()
    if message.picture is not None and len(message.picture.data) <= file_limit:
        rendered.picture = message.picture.file()
    text = markdown(message.text)
    for attached in message.files:
        if len(attached.data) <= file_limit:
            rendered.files.append(attached)
            continue
        log.warning("the file %s is over %d bytes; left out", attached.name, file_limit)
        mib = file_limit / 2**20
        note = f"({attached.name} is too large to attach here: Discord takes {mib:g} MiB a file.)"
        text = f"{text}\n\n{markdown(markup.escape(note))}".strip()
    if message.deadline is not None:
        # Timestamps every client shows in its reader's own zone: a live countdown ("in 45
        # seconds", "in 3 days") and the date and time (a turn of days ends on a given day).
        due = int(message.deadline)
        text = f"{text}\n⏳ Ends <t:{due}:R> (<t:{due}:f>).".strip()
    if message.title or message.fields or message.image_url or len(text) > CONTENT_LIMIT:
        embed = discord.Embed(
            title=cut(markdown(message.title), TITLE_LIMIT) if message.title else None,
            description=cut(text, DESCRIPTION_LIMIT) if text else None,
        )
        for item in message.fields[:MAX_FIELDS]:
            embed.add_field(
                name=cut(markdown(item.name), FIELD_NAME_LIMIT) or "\u200b",
                value=cut(markdown(item.value), FIELD_VALUE_LIMIT) or "\u200b",
                inline=item.inline,
            )
        if message.image_url:
            embed.set_image(url=message.image_url)
        rendered.embeds.append(embed)
    else:
        rendered.content = text or "\u200b"
    rendered.view = _view(message)
    return rendered


def _view(message: ui.Message) -> discord.ui.View | None:
    rows: list[list[GameButton | GameSelect]] = []
    for buttons in message.buttons:
        for start in range(0, len(buttons), ROW_WIDTH):
            made = [_button(b) for b in buttons[start : start + ROW_WIDTH]]
            rows.append([item for item in made if item is not None])
    for select in message.selects:
        menu = _select(select)
        rows.append([menu] if menu is not None else [])
    rows = [row for row in rows if row]
    if not rows:
        return None
    if len(rows) > MAX_ROWS:
        log.warning("a message has %d component rows; showing %d", len(rows), MAX_ROWS)
    view = discord.ui.View(timeout=None)
    for index, items in enumerate(rows[:MAX_ROWS]):
        for item in items:
            item.row = index
            view.add_item(item)
    return view


def _button(button: ui.Button) -> GameButton | None:
    if button.custom_id is None:
        return None  # unbound: its id did not fit (the binding said so)
    return GameButton(
        discord.ui.Button(
            label=cut(markup.plain(button.label), LABEL_LIMIT) or "?",
            style=_STYLES[button.style],
            custom_id=button.custom_id,
            disabled=button.disabled,
        )
    )


def _select(select: ui.Select) -> GameSelect | None:
    if select.custom_id is None:
        return None
    options = [
        discord.SelectOption(
            label=cut(markup.plain(o.label), OPTION_LIMIT) or "?",
            value=o.value[:OPTION_LIMIT],
            description=cut(markup.plain(o.description), OPTION_LIMIT) if o.description else None,
        )
        for o in select.options[:MAX_OPTIONS]
    ]
    if not options:
        return None
    high = max(1, min(select.max_values, len(options)))
    low = max(0, min(select.min_values, high))
    return GameSelect(
        discord.ui.Select(
            custom_id=select.custom_id,
            placeholder=cut(markup.plain(select.placeholder), PLACEHOLDER_LIMIT),
            options=options,
            min_values=low,
            max_values=high,
        )
    )
