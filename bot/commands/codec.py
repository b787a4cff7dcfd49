"""Button and select ids: what a press means, packed into the short string platforms carry.

Discord custom ids and Slack action values are strings (Discord: at most 100 characters), and
they must survive a restart, so everything needed to handle a press is inside the id: the game,
the state version the choice was offered at, the seat it belongs to, and the action itself.

The action is written compactly, as a JSON list of its ``type`` and its other fields' values in
the order of the game's action model (trailing defaults left out): ``["challenge",36,"c_x"]``, and
a numeric (Discord) channel id in base 36 after a ``~``, so that even BiggieBills' longest choices
in a DM at a high version fit. Ids written before this form, with the action as a JSON object
(``{"card":"x","type":"play"}``), still decode to the same press.

Ids are bound here, once per message where it is shown (:func:`bind`, called by the table's
executor and every other path that shows controls): each button and menu gets its final id in
``custom_id``, and renderers draw that opaque string without knowing what it holds.

A form (a modal a button opens) is named here too, once for every platform (:func:`form_id`,
:func:`read_form`): Discord carries the name as the modal's custom id, Slack as its private
metadata. Adapters match ids by the patterns here (:data:`BUTTON_PATTERN`...), never by their
own reading of the grammar.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable

from pydantic import BaseModel, Field, JsonValue
from pydantic_core import PydanticUndefined

from core import ui
from core.registry import get_game

__all__ = [
    "BUTTON_PATTERN",
    "FORM_PATTERN",
    "MAX_DECODED_LENGTH",
    "MAX_ID_LENGTH",
    "SELECT_PATTERN",
    "FormName",
    "MessageIds",
    "Press",
    "bind",
    "decode",
    "encode_button",
    "encode_select",
    "form_id",
    "read_form",
    "seat_of",
]

MAX_ID_LENGTH = 100
MAX_DECODED_LENGTH = 255
"""The longest id :func:`decode` reads: Slack's limit on an ``action_id`` (Discord's is 100), so
nothing longer was made here; a press can carry anything, and this bounds the work of reading."""
MAX_DEPTH = 4
"""How deeply an id's action may nest: an action is a list or object of values, a value at most
a list of strings (``["discard",["c_a","c_b"]]``); anything deeper was not made here."""
_PREFIX = "br1"

# (?s): the JSON tail of an id never holds a newline, but a stray one must not stop the match.
BUTTON_PATTERN = rf"(?s){_PREFIX}\|[acq]\d*\|.*"
"""Every button id made here (a game's action, a command, a command's form to open), as a
regular expression (Discord's persistent handlers are registered by one)."""
SELECT_PATTERN = rf"(?s){_PREFIX}\|s\d*\|.*"
"""Every menu id made here."""
FORM_PATTERN = rf"{_PREFIX}\|f\|([a-z0-9_]+)\|([A-Za-z0-9]+)\|([a-z_]+)"
"""Every form name made here: the game, its channel and the command the answer completes."""

log = logging.getLogger(__name__)


class Press(BaseModel):
    """A decoded button or select press."""

    game: str
    channel: str | None = None
    """The game's channel when the press came from elsewhere (a DM)."""
    action: dict[str, JsonValue] | None = None
    command: str | None = None
    version: int | None = None
    seat: int | None = None
    field: str | None = None
    values: list[str] = Field(default_factory=list)
    ask: bool = False
    """A typed command's button: open its form rather than run it (``Command.ask``)."""

    def resolved_action(self) -> dict[str, JsonValue] | None:
        """The action with the chosen select values filled in."""
        if self.action is None:
            return None
        if self.field is None:
            return self.action
        return {**self.action, self.field: list(self.values)}


class FormName(BaseModel):
    """What a form answers: the game, its channel and the typed command its answer completes,
    so that any worker, after any restart, can take the submitted answer."""

    game: str
    channel: str
    command: str


def form_id(game: str, channel: str, command: str) -> str:
    """The name a form carries (Discord: the modal's custom id; Slack: its private metadata)."""
    return f"{_PREFIX}|f|{game}|{channel}|{command}"


def read_form(text: str) -> FormName | None:
    """The form named ``text`` (None: not one of ours). A Slack form opened before forms were
    named here carries ``{"g": game, "c": channel, "w": command}``, and reads the same."""
    match = re.fullmatch(FORM_PATTERN, text)
    if match is not None:
        return FormName(game=match.group(1), channel=match.group(2), command=match.group(3))
    try:
        earlier = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(earlier, dict) or set(earlier) != {"g", "c", "w"}:
        return None
    game, channel, command = earlier["g"], earlier["c"], earlier["w"]
    if not all(isinstance(part, str) for part in (game, channel, command)):
        return None
    return FormName(game=game, channel=channel, command=command)


def _compact(action: dict[str, JsonValue]) -> str:
    return json.dumps(action, separators=(",", ":"), sort_keys=True)


def _seat(seat: int | None) -> str:
    return "" if seat is None else str(seat)


def _kind(letter: str, slot: int) -> str:
    """The kind field: ``a``, ``c`` or ``s``, followed by the slot when it is not 0."""
    return f"{letter}{slot}" if slot else letter


def encode_button(
    game: str,
    button: ui.Button,
    channel: str | None = None,
    slot: int = 0,
    limit: int = MAX_ID_LENGTH,
) -> str:
    """The id of ``button``; ``channel`` names the game's channel when the button is shown
    elsewhere (a DM), so that pressing it acts on that channel's game. ``slot`` tells apart
    components of one message that would otherwise share an id (see :class:`MessageIds`)."""
    where = channel or ""
    if button.command is not None:
        letter = "q" if button.ask else "c"  # q: the command asks for text (a form) first
        return _checked(f"{_PREFIX}|{_kind(letter, slot)}|{game}|{where}|{button.command}", limit)
    if button.action is None:
        raise ValueError("a button needs an action or a command")

    def build(where: str, action: str) -> str:
        return (
            f"{_PREFIX}|{_kind('a', slot)}|{game}|{where}|{button.version}|"
            f"{_seat(button.seat)}|{action}"
        )

    return _fitted(game, button.action, where, build, limit)


def encode_select(
    game: str,
    select: ui.Select,
    channel: str | None = None,
    slot: int = 0,
    limit: int = MAX_ID_LENGTH,
) -> str:
    def build(where: str, action: str) -> str:
        return (
            f"{_PREFIX}|{_kind('s', slot)}|{game}|{where}|{select.version}|"
            f"{_seat(select.seat)}|{select.field}|{action}"
        )

    return _fitted(game, select.action, channel or "", build, limit)


class MessageIds:
    """The component ids of one message, unique by construction.

    Discord and Slack refuse a message in which two components share an id; two menus of one
    choice split in parts (26 countries in two menus) would. The first component with a given
    meaning keeps the plain id; each later one gets the next free slot, which decoding ignores.
    """

    def __init__(self, game: str, channel: str | None = None, limit: int = MAX_ID_LENGTH) -> None:
        self.game = game
        self.channel = channel
        self.limit = limit
        """The platform's longest id (Discord: 100; Slack allows 255)."""
        self._used: set[str] = set()

    def button(self, button: ui.Button) -> str:
        """The id of ``button`` in this message; ValueError when it cannot fit."""
        return self._unique(
            lambda slot: encode_button(self.game, button, self.channel, slot, self.limit)
        )

    def select(self, select: ui.Select) -> str:
        """The id of ``select`` in this message; ValueError when it cannot fit."""
        return self._unique(
            lambda slot: encode_select(self.game, select, self.channel, slot, self.limit)
        )

    def _unique(self, encode: Callable[[int], str]) -> str:
        slot = 0
        custom_id = encode(slot)
        while custom_id in self._used:
            slot += 1
            custom_id = encode(slot)
        self._used.add(custom_id)
        return custom_id


def bind(
    message: ui.Message, game: str, channel: str | None = None, limit: int = MAX_ID_LENGTH
) -> ui.Message:
    """``message`` with each button and menu carrying its id (``custom_id``) for one place.

    ``game`` is the game the controls act on; ``channel`` names its channel when the message is
    shown anywhere else (a DM, a thread with an id of its own, a private reply), so that a press
    there acts on that channel's game; ``limit`` is the platform's longest id. Ids are unique
    within the message (:class:`MessageIds`); a control whose id cannot fit is left unbound
    (None, logged), and renderers leave it out. ``message`` itself is not changed.
    """
    if not message.buttons and not message.selects:
        return message
    ids = MessageIds(game, channel, limit)
    rows = [[_bound_button(ids, button) for button in row] for row in message.buttons]
    selects = [_bound_select(ids, select) for select in message.selects]
    return message.model_copy(update={"buttons": rows, "selects": selects})


def _bound_button(ids: MessageIds, button: ui.Button) -> ui.Button:
    custom_id = _fitting(ids, "button", button.label, lambda: ids.button(button))
    return button.model_copy(update={"custom_id": custom_id})


def _bound_select(ids: MessageIds, select: ui.Select) -> ui.Select:
    custom_id = _fitting(ids, "menu", select.placeholder, lambda: ids.select(select))
    return select.model_copy(update={"custom_id": custom_id})


def _fitting(ids: MessageIds, what: str, name: str, encode: Callable[[], str]) -> str | None:
    """The control's id, or None (logged) when it cannot fit: one choice left out rather than
    the whole message lost."""
    try:
        return encode()
    except ValueError:
        log.warning(
            "%s %r of %s does not fit an id of %d characters; left out",
            what,
            name,
            ids.game,
            ids.limit,
        )
        return None


def _fitted(
    game: str,
    action: dict[str, JsonValue],
    where: str,
    build: Callable[[str, str], str],
    limit: int,
) -> str:
    """The id in the compact form (JSON only for an action that is not one of the game's)."""
    listed = _positional(game, action)
    if listed is None:
        return _checked(build(where, _compact(action)), limit)
    return _checked(build(_short_channel(where), listed), limit)


def _checked(custom_id: str, limit: int = MAX_ID_LENGTH) -> str:
    if len(custom_id) > limit:
        raise ValueError(f"component id longer than {limit} characters: {custom_id}")
    return custom_id


def _fields(game: str, kind: JsonValue) -> list[tuple[str, object]] | None:
    """The fields after ``type`` of ``game``'s action model of that type, with their defaults
    (``PydanticUndefined``: none)."""
    found = get_game(game)
    model = found.action_model(kind) if found is not None and isinstance(kind, str) else None
    if model is None:
        return None
    return [(name, f.default) for name, f in model.model_fields.items() if name != "type"]


def _positional(game: str, action: dict[str, JsonValue]) -> str | None:
    """``["challenge",36,"c_x"]`` for ``{"active":36,"card":"c_x","type":"challenge"}``, or None
    when the action is not one of the game's models."""
    fields = _fields(game, action.get("type"))
    if fields is None or not set(action) <= {"type", *(name for name, _ in fields)}:
        return None
    values = []
    for name, default in fields:
        if name not in action and default is PydanticUndefined:
            return None
        values.append(action.get(name, default))
    while values and _same(values[-1], fields[len(values) - 1][1]):
        values.pop()  # a trailing default: decoding leaves it out and the model fills it in
    try:
        return json.dumps([action["type"], *values], separators=(",", ":"))
    except (TypeError, ValueError):
        return None


def _same(value: object, default: object) -> bool:
    return type(value) is type(default) and bool(value == default)


def _short_channel(channel: str) -> str:
    """A numeric (Discord) channel id in base 36 after ``~``; anything else as it is."""
    if not channel.isdigit() or channel.startswith("0"):
        return channel
    number, digits = int(channel), ""
    while number:
        number, rest = divmod(number, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[rest] + digits
    return "~" + digits


def _long_channel(channel: str) -> str | None:
    if not channel:
        return None
    if channel.startswith("~"):
        return str(int(channel[1:], 36))
    return channel


def _depth(value: JsonValue) -> int:
    """How deeply ``value`` nests (a scalar: 0), counted without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:  # past it, the answer is known: refused
                stack.extend((child, depth) for child in _children(node))
    return deepest


def _children(node: dict[str, JsonValue] | list[JsonValue]) -> list[JsonValue]:
    return list(node.values()) if isinstance(node, dict) else node


def _action(game: str, text: str) -> dict[str, JsonValue]:
    """The action of an id's JSON tail, in either form; ValueError when it is neither."""
    try:
        loaded = json.loads(text)
    except RecursionError:  # not reachable within MAX_DECODED_LENGTH; a guard all the same
        raise ValueError("nested too deep") from None
    if _depth(loaded) > MAX_DEPTH:
        raise ValueError("nested too deep")
    if isinstance(loaded, dict):
        return loaded
    if not isinstance(loaded, list) or not loaded:
        raise ValueError("not an action")
    fields = _fields(game, loaded[0])
    if fields is None or len(loaded) - 1 > len(fields):
        raise ValueError("not an action of this game")
    names = [name for name, _ in fields]
    return {"type": loaded[0], **dict(zip(names, loaded[1:], strict=False))}


def seat_of(custom_id: str) -> int | None:
    """The seat a game choice's id belongs to, read without decoding its action (None: no
    seat, or not a game choice)."""
    parts = custom_id.split("|", 6)
    if len(parts) < 7 or parts[0] != _PREFIX or parts[1][:1] not in ("a", "s"):
        return None
    return int(parts[5]) if parts[5].isascii() and parts[5].isdigit() else None


def decode(custom_id: str, values: list[str] | None = None) -> Press | None:
    """Parse an id made by this module; anything else (or garbage) gives None."""
    if len(custom_id) > MAX_DECODED_LENGTH:
        return None
    head = custom_id.split("|", 4)
    if len(head) < 5 or head[0] != _PREFIX:
        return None
    kind, game = head[1][:1], head[2]
    if not head[1][1:].isdigit() and head[1][1:]:
        return None  # a slot (see MessageIds) is digits only
    # Split only as far as the kind's fields go, so the JSON tail is never cut.
    parts = custom_id.split("|", {"c": 4, "q": 4, "a": 6, "s": 7}.get(kind, 4))
    try:
        channel = _long_channel(head[3])
        if kind in ("c", "q"):
            return Press(game=game, channel=channel, command=parts[4], ask=kind == "q")
        version = int(parts[4])
        seat = int(parts[5]) if parts[5] else None
        if kind == "a":
            action = _action(game, parts[6])
            return Press(game=game, channel=channel, action=action, version=version, seat=seat)
        if kind == "s":
            action = _action(game, parts[7])
            return Press(
                game=game,
                channel=channel,
                action=action,
                version=version,
                seat=seat,
                field=parts[6],
                values=list(values or []),
            )
    except (IndexError, ValueError):
        return None
    return None
