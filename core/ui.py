"""Platform-neutral UI messages.

Games turn their views and events into these models; adapters render them (Discord components,
Slack Block Kit, numbered console choices) and never format game text themselves.

A button or select carries what pressing it means: a game ``action`` (a dict the game's action
union validates) tagged with the state ``version`` it was built for, or a lobby ``command`` such as
``join``. A select fills ``field`` of its action with the chosen option values.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Sequence
from typing import Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

__all__ = [
    "MAX_BOARD",
    "MAX_BUTTONS",
    "MAX_FILE_ALT",
    "MAX_FILE_NAME",
    "MAX_FORM_LABEL",
    "MAX_FORM_TITLE",
    "MAX_LABEL",
    "MAX_OPTIONS",
    "MAX_ROWS",
    "MAX_TEXT",
    "ROW",
    "Ask",
    "Button",
    "Field_",
    "File",
    "Message",
    "Picture",
    "Select",
    "SelectOption",
    "controls",
    "fit",
    "fit_alt",
    "idle",
    "menus",
    "rows",
    "with_buttons",
]

Style = Literal["primary", "secondary", "success", "danger"]


MAX_FORM_TITLE = 24
"""Characters of a form's title (Slack's modal title limit; Discord allows 45)."""
MAX_FORM_LABEL = 45
"""Characters of a form's question (Discord's text input label limit)."""


class Ask(BaseModel):
    """A one-question form (a Discord modal, a Slack modal): what a typed move needs.

    A button whose ``command`` is a game's text command (``pitch``, ``bet``) and which has an
    Ask opens the form; the answer completes the command (``pitch <answer>``), which is then
    checked exactly as if it had been typed.
    """

    title: str = Field(max_length=MAX_FORM_TITLE)
    label: str = Field(max_length=MAX_FORM_LABEL)
    placeholder: str = ""
    max_length: int = Field(default=200, ge=1, le=4000)
    long: bool = False
    """Several lines (a pitch) rather than one (an amount)."""


class Button(BaseModel):
    """A button; exactly one of ``action`` (a game action) or ``command`` (a lobby command)."""

    label: str
    style: Style = "secondary"
    action: dict[str, JsonValue] | None = None
    version: int | None = None
    """The state version the action was offered at; older presses are answered as stale."""
    command: str | None = None
    seat: int | None = None
    """When set, only this seat may press it (a button in someone's private panel)."""
    disabled: bool = False
    ask: bool = False
    """The ``command`` is typed: pressing opens the game's form for it (``Command.ask``)."""
    custom_id: str | None = Field(default=None, exclude=True)
    """The opaque id a platform carries for it, bound where the message is shown
    (``bot.commands.codec.bind``); None: unbound, and renderers leave it out. Not content."""

    @model_validator(mode="after")
    def _one_meaning(self) -> Self:
        if (self.action is None) == (self.command is None):
            raise ValueError("a button has exactly one of an action or a command")
        if self.ask and self.command is None:
            raise ValueError("only a command button can open a form")
        return self


class SelectOption(BaseModel):
    label: str
    value: str
    description: str | None = None


class Select(BaseModel):
    """A menu whose chosen values fill ``action[field]`` (a list) before it is applied."""

    placeholder: str
    options: list[SelectOption]
    action: dict[str, JsonValue]
    field: str
    version: int
    seat: int | None = None
    min_values: int = Field(default=1, ge=0)
    max_values: int = Field(default=1, ge=1)
    custom_id: str | None = Field(default=None, exclude=True)
    """The opaque id a platform carries for it (see :attr:`Button.custom_id`)."""

    @model_validator(mode="after")
    def _choosable(self) -> Self:
        if not self.options:
            raise ValueError("a menu needs at least one option")
        if self.min_values > self.max_values:
            raise ValueError("a menu cannot ask for more values than it allows")
        if self.max_values > len(self.options):
            raise ValueError("a menu cannot allow more values than it has options")
        if len({o.value for o in self.options}) != len(self.options):
            raise ValueError("a menu's option values must differ")
        return self


class Field_(BaseModel):
    """A labelled value, shown as a column on Discord and Slack and as ``name: value`` lines."""

    name: str
    value: str
    inline: bool = True


MAX_FILE_NAME = 100
"""Characters of a file's name."""
MAX_FILE_ALT = 1000
"""Characters of a file's description (Slack's ``alt_txt`` limit; Discord allows 1,024)."""


class File(BaseModel):
    """A file that comes with a message: a whole rules page, later a board drawn as a picture.

    Each adapter sends it its platform's way (a Discord attachment, a Slack upload, a file
    written by the console) and applies its platform's size limit, so a game never needs to
    know them. The bytes survive JSON (the table digests and stores messages as JSON) as
    base64.
    """

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    name: str = Field(max_length=MAX_FILE_NAME, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    """The file's name: letters, digits, ``.``, ``_`` and ``-`` only (no path, no space), so
    that every platform shows it as it is and the console can write it anywhere safely."""
    data: bytes
    mime: str = "application/octet-stream"
    """Its media type (``text/markdown; charset=utf-8``, ``image/png``)."""
    alt: str = Field(default="", max_length=MAX_FILE_ALT)
    """What it is, in plain text, for those who cannot open it (Discord's attachment
    description, Slack's file title and, for a picture, its alt text)."""


class Picture(BaseModel):
    """A board (or a chart) drawn as a picture: the encoded bytes, their format, the size in
    pixels and the alt text, which says in a sentence or two what the picture shows.

    A game draws it from its public view only (``core/games/<game>/picture.py``), as a pure
    function: the same view gives the same bytes, so :attr:`digest` tells whether the picture
    changed. Each platform shows it its own way (a Discord attachment, a Slack upload in an
    image block, a file written by the console).
    """

    model_config = ConfigDict(frozen=True, ser_json_bytes="base64", val_json_bytes="base64")

    data: bytes
    format: Literal["png", "webp"] = "png"
    width: int = Field(ge=1)
    height: int = Field(ge=1)
    alt: str = Field(max_length=MAX_FILE_ALT)
    stem: str = "board"
    """What its file is named after (``board``, ``money`` for the end-of-game chart)."""

    @property
    def mime(self) -> str:
        return f"image/{self.format}"

    @property
    def digest(self) -> str:
        """A short digest of the bytes: equal pictures, equal digests."""
        return hashlib.sha256(self.data).hexdigest()[:16]

    def file(self, stem: str | None = None) -> File:
        """The picture as a file named ``<stem>-<digest>.<format>`` (a new name for each new
        picture, so no platform shows a cached older one; ``stem``: :attr:`stem` by default)."""
        return File(
            name=f"{stem or self.stem}-{self.digest[:8]}.{self.format}",
            data=self.data,
            mime=self.mime,
            alt=self.alt,
        )


def fit_alt(text: str) -> str:
    """``text`` cut to :data:`MAX_FILE_ALT` characters (alt text every platform takes)."""
    return text if len(text) <= MAX_FILE_ALT else text[: MAX_FILE_ALT - 1].rstrip() + "…"


class Message(BaseModel):
    """One message: a title, text, fields and rows of buttons or selects (and files)."""

    title: str | None = None
    text: str = ""
    fields: list[Field_] = Field(default_factory=list)
    buttons: list[list[Button]] = Field(default_factory=list)
    """Rows of buttons (Discord allows 5 rows of 5)."""
    selects: list[Select] = Field(default_factory=list)
    image_url: str | None = None
    deadline: float | None = None
    """When the decision this message asks for ends (unix time): each platform shows a
    countdown (Discord ``<t:…:R>``, Slack the time in the reader's zone, the console seconds)."""
    closed_text: str | None = None
    """What a prompt says once its decision is over and its buttons are gone (None: its text
    as it was), so that a closed prompt never reads as still waiting for someone."""
    picture_key: str | None = None
    """A board's picture: which one it is (equal keys, equal pictures), so that the table
    redraws and each platform re-uploads it only when it changed."""
    picture: Picture | None = Field(default=None, exclude=True)
    """The picture itself, filled in by the table (drawn off the event loop) just before the
    message is sent; never stored with the table's refs (only the key is)."""
    files: list[File] = Field(default_factory=list)
    """Files that come with it. Private answers carry them on every platform (Discord attaches
    them, Slack uploads them to the reader's DM, the console names or writes them)."""

    def plain_text(self) -> str:
        """The whole message as plain text (used by the console and in tests)."""
        parts = [f"**{self.title}**"] if self.title else []
        if self.text:
            parts.append(self.text)
        parts.extend(f"{f.name}: {f.value}" for f in self.fields)
        return "\n".join(parts)

    def all_buttons(self) -> list[Button]:
        return [b for row in self.buttons for b in row]


# --- what every platform can show, for the games' presentation code --------------------------

ROW = 5
"""Buttons per row (Discord's limit)."""
MAX_ROWS = 5
"""Rows per message, a menu taking a row of its own (Discord's limit)."""
MAX_BUTTONS = ROW * MAX_ROWS
"""Buttons per message (Discord: 5 rows of 5)."""
MAX_OPTIONS = 25
"""Options per menu (Discord's limit)."""
MAX_LABEL = 75
"""Characters per button or option label (Slack's limit; Discord allows 80)."""
MAX_TEXT = 4000
"""Characters of a message's text that every platform shows whole: a Discord embed description
holds 4,096 (less the countdown line its renderer adds; Boardroom markup is as long as the
Discord markdown it becomes), Slack splits longer text into sections of 3,000."""
MAX_BOARD = 3000
"""Characters of a board's own text, by design: the table adds below it the newest lines of the
story (``bot.table.LOG_ON_BOARD``, 900) and above it a turn notice, within :data:`MAX_TEXT`."""


def idle(team: bool = False) -> str:
    """What a private panel says while its seat has nothing to do. It names nobody: a panel is
    not redrawn as the turns pass, so a name would go stale (the board says whose turn it is,
    and the seat is told when it is its own)."""
    who = "your team" if team else "you"
    return (
        f"Nothing for {who} to do now: the board shows whose turn it is, and you are told "
        "when it is yours."
    )


def fit(label: str) -> str:
    """``label`` cut to :data:`MAX_LABEL` characters, with an ellipsis when cut."""
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1].rstrip() + "…"


def with_buttons(message: Message, buttons: Sequence[Button]) -> Message:
    """``message`` with ``buttons`` added where the platforms' rows leave room: a row of their
    own, else the end of the last row; unchanged when neither has room (its text then says
    how to type what they do)."""
    used = len(message.buttons) + len(message.selects)
    if used < MAX_ROWS:
        return message.model_copy(update={"buttons": [*message.buttons, list(buttons)]})
    last = message.buttons[-1] if message.buttons else None
    if last is not None and len(last) + len(buttons) <= ROW:
        kept = [*message.buttons[:-1], [*last, *buttons]]
        return message.model_copy(update={"buttons": kept})
    return message


def rows(buttons: Sequence[Button]) -> list[list[Button]]:
    """``buttons`` laid out :data:`ROW` to a row."""
    return [list(buttons[i : i + ROW]) for i in range(0, len(buttons), ROW)]


T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def controls(
    actions: Sequence[T],
    button: Callable[[T], Button],
    group: Callable[[T], K | None],
    menus: Callable[[K, list[T]], list[Select]],
    other_menus: int = 0,
) -> tuple[list[Button], list[Select]]:
    """Buttons for ``actions`` while they fit the platforms, else menus.

    Every game makes the same choice: one button per action when the buttons fit in the rows
    left beside ``other_menus`` menus; otherwise the actions whose ``group`` is None stay
    buttons and each group becomes the menus ``menus(group, actions)`` builds (a group of one
    stays a button).
    """
    room = ROW * (MAX_ROWS - other_menus)
    if len(actions) <= room:
        return [button(a) for a in actions], []
    grouped: dict[K, list[T]] = {}
    buttons: list[Button] = []
    for action in actions:
        key = group(action)
        if key is None:
            buttons.append(button(action))
        else:
            grouped.setdefault(key, []).append(action)
    selects: list[Select] = []
    for key, members in grouped.items():
        if len(members) == 1:
            buttons.append(button(members[0]))
        else:
            selects.extend(menus(key, members))
    return buttons, selects


def menus(
    placeholder: str,
    options: Sequence[SelectOption],
    action: dict[str, JsonValue],
    field: str,
    version: int,
    seat: int | None = None,
) -> list[Select]:
    """One choice as menus of at most :data:`MAX_OPTIONS` options each (none if no options)."""
    return [
        Select(
            placeholder=placeholder,
            options=list(options[start : start + MAX_OPTIONS]),
            action=action,
            field=field,
            version=version,
            seat=seat,
        )
        for start in range(0, len(options), MAX_OPTIONS)
    ]
