"""A fake Discord (gateway websocket + REST) on 127.0.0.1, for the tests and the bench.

It speaks just enough of the protocol for the real discord.py client: HELLO, IDENTIFY, heartbeat
ACKs, READY, RESUME and INTERACTION_CREATE on the gateway; login, command sync, interaction
callbacks, followup webhooks, DM channels, threads, channel messages, edits and deletions over
REST. Every REST call is recorded, and every message the bot creates is kept with its audience (the
channel, one user's ephemeral view, or one user's DMs), so a test can ask what a given user can see.

It is at least as strict as Discord: a message Discord would refuse is refused here the same way
(:func:`validate_message`: 400 with code 50035 and Discord's nested ``errors``; 50006 for an empty
message), and so is a late or repeated interaction callback, a callback type the interaction does
not take, an expired interaction token, a post where the bot lacks a permission (:meth:`deny`) and
an edit of a deleted message. Files are checked as Discord checks them: a ``files[n]`` part with
a filename for every new attachment the body lists, none over
:attr:`FakeDiscord.attachment_size_limit` (413 / 40005), at most 10 and descriptions of at most
1,024 characters, and Attach Files where the bot uploads; what was uploaded is kept
(:meth:`FakeDiscord.attached`). Every refused call is in :attr:`FakeDiscord.refused`. Faults Discord
produces on its own can be injected: rate limits (:meth:`FakeDiscord.rate_limit`), closed DMs
(:attr:`FakeDiscord.closed_dms`), a moderator deleting a message (:meth:`delete_message`), and
Discord's cap on edits of messages older than an hour (:meth:`FakeDiscord.limit_old_edits`:
429 with JSON code 30046).
Notifications are counted as Discord computes them (:attr:`FakeDiscord.notifications`), every
message keeps the body it was created with (:attr:`FakeMessage.created`) and every post, edit
and deletion is in :attr:`FakeDiscord.history`, so a test can tell what a channel showed at
any moment. A click may carry an older version of its message (:meth:`FakeMessage.snapshot`: a
double click, an old copy on screen), and with two bots connected (two processes of one bot) an
interaction can go to either (``gateway=``).
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import itertools
import json
import math
import mimetypes
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import discord
from aiohttp import WSMsgType, web

from testkit.clock import Clock, Hold, RealClock, held, pause
from testkit.ratelimits import Window

__all__ = [
    "APP_ID",
    "BOT_ID",
    "BOT_PERMISSIONS",
    "DM_PERMISSIONS",
    "GLOBAL_PER_S",
    "GUILD_ID",
    "OLD_MESSAGE_S",
    "Call",
    "FakeDiscord",
    "FakeMessage",
    "FakeThread",
    "FakeUser",
    "Interaction",
    "Notification",
    "Upload",
    "is_empty",
    "route_bucket",
    "validate_autocomplete",
    "validate_message",
    "validate_modal",
]

APP_ID = 900_000_000_000_000_001
BOT_ID = 900_000_000_000_000_002
GUILD_ID = 900_000_000_000_000_003
_TIMESTAMP = "2024-01-01T00:00:00+00:00"

# Message flags (https://discord.com/developers/docs/resources/message#message-object-message-flags)
_SUPPRESS_EMBEDS = 1 << 2
_EPHEMERAL = 1 << 6
_LOADING = 1 << 7
_SUPPRESS_NOTIFICATIONS = 1 << 12
_COMPONENTS_V2 = 1 << 15

BOT_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    create_public_threads=True,
    send_messages_in_threads=True,
)
"""What a normal bot role has in a channel nobody restricted (no Manage Messages, no Mention
Everyone; Attach Files, which the invite asks for since ``rules all`` is a file): the default
``app_permissions`` of a guild interaction."""
DM_PERMISSIONS = discord.Permissions(
    attach_files=True, embed_links=True, mention_everyone=True, use_external_emojis=True
)
"""``app_permissions`` in the bot's own DMs, as Discord documents it."""

ACK_WINDOW_S = 3.0
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
"""Bytes per uploaded file: Discord's default (10 MiB since January 2025), which every
interaction's ``attachment_size_limit`` carries."""
MAX_ATTACHMENTS = 10
MAX_ATTACHMENT_DESCRIPTION = 1024
_FILE_PART = re.compile(r"files\[(\d+)\]")
TOKEN_LIFETIME_S = 15 * 60.0
RETRY_AFTER_S = 0.01
OLD_MESSAGE_S = 3600.0
"""Seconds (on the fake's clock) after which a message's edits count against
:meth:`FakeDiscord.limit_old_edits`."""
OLD_EDITS = 30046
OLD_EDITS_MESSAGE = "Maximum number of edits to messages older than 1 hour reached. Try again later"

Audience = Literal["channel", "ephemeral", "dm"]
MentionKind = Literal["everyone", "here", "user", "role"]

_SELECTS = frozenset({3, 5, 6, 7, 8})
_INTERACTIVE = frozenset({2, *_SELECTS})
_V2_TOP = frozenset({1, 9, 10, 12, 13, 14, 17})
_V2_IN_CONTAINER = frozenset({1, 9, 10, 12, 13, 14})
_PARSE = ("everyone", "roles", "users")
_REGULAR_PARSE = frozenset(_PARSE)
"""Without ``allowed_mentions``, a regular message (a channel post, a DM) parses everything..."""
_INTERACTION_PARSE = frozenset({"users"})
"""...and an interaction response or webhook message only user mentions (Discord's docs,
"Default Settings for Allowed Mentions")."""
_CALLBACKS: dict[int, frozenset[int]] = {
    2: frozenset({4, 5, 9, 12}),  # application command
    3: frozenset({4, 5, 6, 7, 9}),  # message component
    4: frozenset({8}),  # autocomplete
    5: frozenset({4, 5, 6, 7}),  # modal submit (6 and 7 only for a modal opened from a component)
}
_ARCHIVE_MINUTES = frozenset({60, 1440, 4320, 10080})
_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")


# --- what Discord refuses ------------------------------------------------------------------------


class _Errors:
    """Discord's nested form errors: ``{"a": {"0": {"b": {"_errors": [{code, message}]}}}}``."""

    def __init__(self) -> None:
        self.tree: dict[str, Any] = {}

    def add(self, path: tuple[str | int, ...], code: str, message: str) -> None:
        node = self.tree
        for key in path:
            node = node.setdefault(str(key), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def required(self, path: tuple[str | int, ...]) -> None:
        self.add(path, "BASE_TYPE_REQUIRED", "This field is required")

    def text(
        self,
        path: tuple[str | int, ...],
        value: Any,
        high: int,
        *,
        low: int = 0,
        strip: bool = False,
    ) -> int:
        """Check an optional string of ``low``..``high`` characters; returns its length."""
        if value is None:
            if low:
                self.required(path)
            return 0
        if not isinstance(value, str):
            self.add(path, "BASE_TYPE_STRING", "Must be a string.")
            return 0
        length = len(value.strip() if strip else value)
        if low and length == 0:
            self.required(path)
        elif length < low or length > high:
            if low:
                message = f"Must be between {low} and {high} in length."
                self.add(path, "BASE_TYPE_BAD_LENGTH", message)
            else:
                self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length.")
        return length

    def array(
        self, path: tuple[str | int, ...], value: Any, high: int, *, low: int = 0
    ) -> list[Any]:
        """Check an optional array of ``low``..``high`` items; returns it (or [])."""
        if value is None:
            if low:
                self.required(path)
            return []
        if not isinstance(value, list):
            self.add(path, "BASE_TYPE_ARRAY", "Must be an array.")
            return []
        if len(value) < low or len(value) > high:
            if low:
                message = f"Must be between {low} and {high} in length."
                self.add(path, "BASE_TYPE_BAD_LENGTH", message)
            else:
                self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length.")
        return value

    def integer(self, path: tuple[str | int, ...], value: Any, low: int, high: int) -> int | None:
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            self.add(path, "NUMBER_TYPE_COERCE", f'Value "{value}" is not int.')
            return None
        if value < low:
            self.add(
                path, "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {low}."
            )
        elif value > high:
            self.add(path, "NUMBER_TYPE_MAX", f"int value should be less than or equal to {high}.")
        return value

    def choice(self, path: tuple[str | int, ...], value: Any, allowed: tuple[Any, ...]) -> bool:
        if value in allowed:
            return True
        self.add(path, "BASE_TYPE_CHOICES", f"Value must be one of {allowed}.")
        return False

    def url(self, path: tuple[str | int, ...], value: Any, schemes: tuple[str, ...]) -> None:
        if value is None:
            return
        if not isinstance(value, str) or "://" not in value:
            self.add(path, "URL_TYPE_INVALID_URL", "Not a well formed URL.")
            return
        scheme = value.split("://", 1)[0].lower()
        if scheme not in schemes:
            message = f'Scheme "{scheme}" is not supported. Scheme must be one of {schemes}.'
            self.add(path, "URL_TYPE_INVALID_SCHEME", message)


@dataclass
class _Seen:
    """What one message (or modal) holds across all its components."""

    custom_ids: set[str] = field(default_factory=set)
    ids: set[int] = field(default_factory=set)
    count: int = 0
    text: int = 0


def validate_message(body: dict[str, Any], *, components_v2: bool | None = None) -> dict[str, Any]:
    """Discord's form errors for a message body, nested as Discord nests them; {} when valid.

    ``body`` is what goes to ``POST``/``PATCH /channels/{id}/messages``, an interaction callback's
    ``data`` (types 4 and 7) or a webhook message. ``components_v2`` overrides the body's
    ``IS_COMPONENTS_V2`` flag (an edited message keeps the flag it was created with). Emptiness is
    not checked here: Discord answers it with its own code (50006, see :func:`is_empty`).
    """
    errors = _Errors()
    flags = body.get("flags")
    flags = flags if isinstance(flags, int) else 0
    v2 = bool(flags & _COMPONENTS_V2) if components_v2 is None else components_v2
    content = body.get("content")
    if v2:
        for key in ("content", "embeds", "sticker_ids", "poll"):
            if body.get(key):
                errors.add(
                    (key,),
                    "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                    f"The '{key}' field cannot be used when using MessageFlags.IS_COMPONENTS_V2",
                )
    else:
        errors.text(("content",), content, 2000)
        _check_embeds(errors, body.get("embeds"))
    components = errors.array(("components",), body.get("components"), 10**6)
    if v2:
        _check_v2(errors, components)
    else:
        _check_rows(errors, components)
    mentions = body.get("allowed_mentions")
    if mentions is not None:
        _check_allowed_mentions(errors, mentions)
    attachments = errors.array(("attachments",), body.get("attachments"), MAX_ATTACHMENTS)
    for index, item in enumerate(attachments):
        if not isinstance(item, dict):
            errors.add(
                ("attachments", index),
                "MODEL_TYPE_CONVERT",
                "Only dictionaries may be used in a ModelType",
            )
            continue
        path = ("attachments", index, "description")
        errors.text(path, item.get("description"), MAX_ATTACHMENT_DESCRIPTION)
    return errors.tree


def is_empty(body: dict[str, Any]) -> bool:
    """A message with nothing to show: Discord refuses it with 400 / 50006."""
    content = body.get("content")
    shown = isinstance(content, str) and content.strip() != ""
    return not (
        shown
        or body.get("embeds")
        or body.get("components")
        or body.get("attachments")
        or body.get("sticker_ids")
        or body.get("poll")
    )


def _check_embeds(errors: _Errors, value: Any) -> None:
    embeds = errors.array(("embeds",), value, 10)
    total = 0
    for i, embed in enumerate(embeds):
        path: tuple[str | int, ...] = ("embeds", i)
        if not isinstance(embed, dict):
            errors.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        # Discord trims leading and trailing whitespace before measuring.
        total += errors.text((*path, "title"), embed.get("title"), 256, strip=True)
        total += errors.text((*path, "description"), embed.get("description"), 4096, strip=True)
        fields = errors.array((*path, "fields"), embed.get("fields"), 25)
        for k, item in enumerate(fields):
            at = (*path, "fields", k)
            if not isinstance(item, dict):
                errors.add(at, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
                continue
            total += errors.text((*at, "name"), item.get("name"), 256, low=1, strip=True)
            total += errors.text((*at, "value"), item.get("value"), 1024, low=1, strip=True)
        footer = embed.get("footer")
        if isinstance(footer, dict):
            total += errors.text(
                (*path, "footer", "text"), footer.get("text"), 2048, low=1, strip=True
            )
            errors.url((*path, "footer", "icon_url"), footer.get("icon_url"), _IMAGE_SCHEMES)
        author = embed.get("author")
        if isinstance(author, dict):
            total += errors.text(
                (*path, "author", "name"), author.get("name"), 256, low=1, strip=True
            )
            errors.url((*path, "author", "url"), author.get("url"), _LINK_SCHEMES)
            errors.url((*path, "author", "icon_url"), author.get("icon_url"), _IMAGE_SCHEMES)
        errors.url((*path, "url"), embed.get("url"), _LINK_SCHEMES)
        for key in ("image", "thumbnail"):
            media = embed.get(key)
            if isinstance(media, dict):
                errors.url((*path, key, "url"), media.get("url"), _IMAGE_SCHEMES)
    if total > 6000:
        errors.add(
            ("embeds",), "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000"
        )


_LINK_SCHEMES = ("http", "https")
_IMAGE_SCHEMES = ("http", "https", "attachment")
_BUTTON_URL_SCHEMES = ("http", "https", "discord")


def _check_rows(errors: _Errors, rows: list[Any]) -> None:
    """Classic components: up to 5 action rows at the top."""
    if len(rows) > 5:
        errors.add(("components",), "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    seen = _Seen()
    for i, row in enumerate(rows):
        path: tuple[str | int, ...] = ("components", i)
        if not isinstance(row, dict) or row.get("type") != 1:
            errors.add(
                (*path, "type"), "UNION_TYPE_CHOICES", 'Value of field "type" must be one of (1,).'
            )
            continue
        _check_row(errors, path, row, seen)


def _check_id(
    errors: _Errors, path: tuple[str | int, ...], component: dict[str, Any], seen: _Seen
) -> None:
    ident = component.get("id")
    if isinstance(ident, int) and ident > 0:
        if ident in seen.ids:
            errors.add(
                (*path, "id"), "COMPONENT_ID_DUPLICATED", "Component id cannot be duplicated"
            )
        seen.ids.add(ident)


def _check_row(
    errors: _Errors, path: tuple[str | int, ...], row: dict[str, Any], seen: _Seen
) -> None:
    _check_id(errors, path, row, seen)
    children = errors.array((*path, "components"), row.get("components"), 5, low=1)
    width = 0
    for j, child in enumerate(children):
        at = (*path, "components", j)
        seen.count += 1
        kind = child.get("type") if isinstance(child, dict) else None
        if kind == 2:
            width += 1
            _check_button(errors, at, child, seen)
        elif kind in _SELECTS:
            width += 5
            _check_select(errors, at, child, seen, modal=False)
        else:
            errors.add(
                (*at, "type"),
                "UNION_TYPE_CHOICES",
                'Value of field "type" must be one of (2, 3, 5, 6, 7, 8).',
            )
            continue
        if width > 5:
            message = "The specified component exceeds the maximum width"
            errors.add(at, "COMPONENT_LAYOUT_WIDTH_EXCEEDED", message)


def _check_custom_id(
    errors: _Errors, path: tuple[str | int, ...], component: dict[str, Any], seen: _Seen
) -> None:
    custom_id = component.get("custom_id")
    errors.text((*path, "custom_id"), custom_id, 100, low=1)
    if isinstance(custom_id, str) and custom_id:
        if custom_id in seen.custom_ids:
            errors.add(
                (*path, "custom_id"),
                "COMPONENT_CUSTOM_ID_DUPLICATED",
                "Component custom id cannot be duplicated",
            )
        seen.custom_ids.add(custom_id)


def _check_button(
    errors: _Errors, path: tuple[str | int, ...], button: dict[str, Any], seen: _Seen
) -> None:
    _check_id(errors, path, button, seen)
    style = button.get("style")
    if not errors.choice((*path, "style"), style, (1, 2, 3, 4, 5, 6)):
        return
    label = button.get("label")
    errors.text((*path, "label"), label, 80)
    if style == 6:  # premium: a SKU and nothing else
        if button.get("sku_id") is None:
            errors.required((*path, "sku_id"))
        for key in ("custom_id", "url", "label", "emoji"):
            if button.get(key) is not None:
                errors.add(
                    (*path, key),
                    "BUTTON_COMPONENT_PREMIUM_FIELD_INVALID",
                    f"A premium button cannot have a {key}",
                )
        return
    if style == 5:  # link: a URL, no custom id
        errors.text((*path, "url"), button.get("url"), 512, low=1)
        errors.url((*path, "url"), button.get("url"), _BUTTON_URL_SCHEMES)
        if button.get("custom_id") is not None:
            errors.add(
                (*path, "custom_id"),
                "BUTTON_COMPONENT_CUSTOM_ID_URL_MUTUALLY_EXCLUSIVE",
                "A link button cannot have a custom id",
            )
    else:
        _check_custom_id(errors, path, button, seen)
        if button.get("url") is not None:
            errors.add(
                (*path, "url"),
                "BUTTON_COMPONENT_CUSTOM_ID_URL_MUTUALLY_EXCLUSIVE",
                "Only a link button can have a url",
            )
    if not label and not button.get("emoji"):
        errors.add(
            (*path, "label"),
            "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED",
            "A button needs a label or an emoji",
        )


def _check_select(
    errors: _Errors,
    path: tuple[str | int, ...],
    select: dict[str, Any],
    seen: _Seen,
    *,
    modal: bool,
) -> None:
    _check_id(errors, path, select, seen)
    _check_custom_id(errors, path, select, seen)
    errors.text((*path, "placeholder"), select.get("placeholder"), 150)
    low = errors.integer((*path, "min_values"), select.get("min_values"), 0, 25)
    high = errors.integer((*path, "max_values"), select.get("max_values"), 1, 25)
    low = 1 if low is None and "min_values" not in select else low
    high = 1 if high is None and "max_values" not in select else high
    if modal:
        if select.get("disabled"):
            errors.add(
                (*path, "disabled"),
                "COMPONENT_DISABLED_IN_MODAL",
                "Modals cannot have disabled components",
            )
        if low == 0 and select.get("required", True) is not False:
            errors.add(
                (*path, "min_values"),
                "NUMBER_TYPE_MIN",
                "int value should be greater than or equal to 1.",
            )
    if low is not None and high is not None and low > high:
        errors.add(
            (*path, "min_values"),
            "NUMBER_TYPE_MAX",
            f"int value should be less than or equal to {high}.",
        )
    if select.get("type") != 3:
        errors.array((*path, "default_values"), select.get("default_values"), high or 25)
        return
    options = errors.array((*path, "options"), select.get("options"), 25, low=1)
    values: set[str] = set()
    defaults = 0
    for k, option in enumerate(options):
        at = (*path, "options", k)
        if not isinstance(option, dict):
            errors.add(at, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        errors.text((*at, "label"), option.get("label"), 100, low=1)
        errors.text((*at, "value"), option.get("value"), 100, low=1)
        errors.text((*at, "description"), option.get("description"), 100)
        value = option.get("value")
        if isinstance(value, str):
            if value in values:
                errors.add(
                    (*at, "value"),
                    "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                    "Component select option value cannot be duplicated",
                )
            values.add(value)
        defaults += bool(option.get("default"))
    if options and high is not None and high > len(options):
        message = f"int value should be less than or equal to {len(options)}."
        errors.add((*path, "max_values"), "NUMBER_TYPE_MAX", message)
    if high is not None and defaults > high:
        errors.add(
            (*path, "options"),
            "SELECT_COMPONENT_TOO_MANY_DEFAULT_VALUES",
            f"Must have {high} or fewer default options",
        )


def _check_v2(errors: _Errors, components: list[Any]) -> None:
    """Components V2: layout and content components, 40 in all, 4000 characters of text."""
    seen = _Seen()
    for i, component in enumerate(components):
        _check_v2_component(errors, ("components", i), component, _V2_TOP, seen)
    if seen.count > 40:
        errors.add(
            ("components",),
            "MESSAGE_COMPONENTS_V2_TOO_MANY_COMPONENTS",
            "Must be 40 or fewer components in total, nested components included.",
        )
    if seen.text > 4000:
        errors.add(
            ("components",),
            "MESSAGE_COMPONENTS_V2_CONTENT_TOO_LONG",
            "The text displays of a message must be 4000 or fewer characters in total.",
        )


def _check_v2_component(
    errors: _Errors,
    path: tuple[str | int, ...],
    component: Any,
    allowed: frozenset[int],
    seen: _Seen,
) -> None:
    kind = component.get("type") if isinstance(component, dict) else None
    if kind not in allowed:
        types = ", ".join(str(t) for t in sorted(allowed))
        errors.add(
            (*path, "type"),
            "UNION_TYPE_CHOICES",
            f'Value of field "type" must be one of ({types}).',
        )
        return
    seen.count += 1
    if kind == 1:
        _check_row(errors, path, component, seen)
        return
    if kind == 2:
        _check_button(errors, path, component, seen)
        return
    _check_id(errors, path, component, seen)
    if kind == 9:  # section: 1-3 text displays and an accessory
        children = errors.array((*path, "components"), component.get("components"), 3, low=1)
        for j, child in enumerate(children):
            _check_v2_component(errors, (*path, "components", j), child, frozenset({10}), seen)
        accessory = component.get("accessory")
        if accessory is None:
            errors.required((*path, "accessory"))
        else:
            _check_v2_component(errors, (*path, "accessory"), accessory, frozenset({2, 11}), seen)
    elif kind == 10:
        seen.text += errors.text((*path, "content"), component.get("content"), 4000, low=1)
    elif kind == 11:
        _check_media(errors, (*path, "media"), component.get("media"))
        errors.text((*path, "description"), component.get("description"), 1024)
    elif kind == 12:
        items = errors.array((*path, "items"), component.get("items"), 10, low=1)
        for k, item in enumerate(items):
            at = (*path, "items", k)
            _check_media(
                errors, (*at, "media"), item.get("media") if isinstance(item, dict) else None
            )
            if isinstance(item, dict):
                errors.text((*at, "description"), item.get("description"), 1024)
    elif kind == 13:
        media = component.get("file")
        _check_media(errors, (*path, "file"), media, ("attachment",))
    elif kind == 14:
        if component.get("spacing") is not None:
            errors.choice((*path, "spacing"), component.get("spacing"), (1, 2))
    elif kind == 17:
        children = errors.array((*path, "components"), component.get("components"), 40, low=1)
        for j, child in enumerate(children):
            _check_v2_component(errors, (*path, "components", j), child, _V2_IN_CONTAINER, seen)
        colour = component.get("accent_color")
        if colour is not None:
            errors.integer((*path, "accent_color"), colour, 0, 0xFFFFFF)


def _check_media(
    errors: _Errors,
    path: tuple[str | int, ...],
    media: Any,
    schemes: tuple[str, ...] = _IMAGE_SCHEMES,
) -> None:
    if not isinstance(media, dict) or not media.get("url"):
        errors.required((*path, "url"))
        return
    errors.url((*path, "url"), media["url"], schemes)


def _check_allowed_mentions(errors: _Errors, mentions: Any) -> None:
    path: tuple[str | int, ...] = ("allowed_mentions",)
    if not isinstance(mentions, dict):
        errors.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return
    parse = errors.array((*path, "parse"), mentions.get("parse"), 3)
    for k, kind in enumerate(parse):
        errors.choice((*path, "parse", k), kind, _PARSE)
    for key in ("users", "roles"):
        ids = errors.array((*path, key), mentions.get(key), 100)
        # An empty or null list is fine; a list next to the same type in "parse" is ambiguous.
        if ids and key in parse:
            errors.add(
                path,
                "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                f'parse:["{key}"] and {key}: [ids...] are mutually exclusive.',
            )


def validate_modal(data: dict[str, Any]) -> dict[str, Any]:
    """Form errors for a modal (callback type 9 ``data``): title 1-45, 1-5 components."""
    errors = _Errors()
    seen = _Seen()
    errors.text(("custom_id",), data.get("custom_id"), 100, low=1)
    errors.text(("title",), data.get("title"), 45, low=1)
    components = errors.array(("components",), data.get("components"), 5, low=1)
    inputs = 0
    for i, component in enumerate(components):
        path: tuple[str | int, ...] = ("components", i)
        kind = component.get("type") if isinstance(component, dict) else None
        if kind == 1:  # the older form: an action row holding one text input
            children = errors.array((*path, "components"), component.get("components"), 1, low=1)
            for j, child in enumerate(children):
                at = (*path, "components", j)
                if not isinstance(child, dict) or child.get("type") != 4:
                    errors.add(
                        (*at, "type"),
                        "UNION_TYPE_CHOICES",
                        'Value of field "type" must be one of (4,).',
                    )
                    continue
                errors.text((*at, "label"), child.get("label"), 45, low=1)
                _check_text_input(errors, at, child, seen)
                inputs += 1
        elif kind == 18:  # a label around one input
            errors.text((*path, "label"), component.get("label"), 45, low=1)
            errors.text((*path, "description"), component.get("description"), 100)
            child = component.get("component")
            at = (*path, "component")
            child_kind = child.get("type") if isinstance(child, dict) else None
            if child_kind == 4:
                _check_text_input(errors, at, child, seen)
            elif child_kind in _SELECTS:
                _check_select(errors, at, child, seen, modal=True)
            elif child_kind in (19, 21, 22, 23):
                _check_custom_id(errors, at, child, seen)
            else:
                errors.add(
                    (*at, "type"),
                    "UNION_TYPE_CHOICES",
                    'Value of field "type" must be one of (3, 4, 5, 6, 7, 8, 19, 21, 22, 23).',
                )
                continue
            inputs += 1
        elif kind == 10:
            errors.text((*path, "content"), component.get("content"), 4000, low=1)
        else:
            errors.add(
                (*path, "type"),
                "UNION_TYPE_CHOICES",
                'Value of field "type" must be one of (1, 10, 18).',
            )
    if components and not inputs:
        errors.add(("components",), "MODAL_REQUIRES_INPUT", "A modal needs at least one input")
    return errors.tree


def _check_text_input(
    errors: _Errors, path: tuple[str | int, ...], text_input: dict[str, Any], seen: _Seen
) -> None:
    _check_custom_id(errors, path, text_input, seen)
    errors.choice((*path, "style"), text_input.get("style"), (1, 2))
    low = errors.integer((*path, "min_length"), text_input.get("min_length"), 0, 4000)
    high = errors.integer((*path, "max_length"), text_input.get("max_length"), 1, 4000)
    if low is not None and high is not None and low > high:
        errors.add(
            (*path, "min_length"),
            "NUMBER_TYPE_MAX",
            f"int value should be less than or equal to {high}.",
        )
    errors.text((*path, "value"), text_input.get("value"), 4000)
    errors.text((*path, "placeholder"), text_input.get("placeholder"), 100)


def validate_autocomplete(data: dict[str, Any]) -> dict[str, Any]:
    """Form errors for autocomplete choices (callback type 8 ``data``): up to 25."""
    errors = _Errors()
    choices = errors.array(("choices",), data.get("choices"), 25)
    for i, choice in enumerate(choices):
        path: tuple[str | int, ...] = ("choices", i)
        if not isinstance(choice, dict):
            errors.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        errors.text((*path, "name"), choice.get("name"), 100, low=1)
        if isinstance(choice.get("value"), str):
            errors.text((*path, "value"), choice.get("value"), 100)
    return errors.tree


def _walk(components: Any) -> Iterator[dict[str, Any]]:
    """Every component of a tree (action rows, containers, sections, labels), depth first."""
    for component in components if isinstance(components, list) else []:
        if not isinstance(component, dict):
            continue
        yield component
        yield from _walk(component.get("components"))
        for key in ("accessory", "component"):
            if isinstance(component.get(key), dict):
                yield from _walk([component[key]])


# --- who is there and what they see --------------------------------------------------------------


@dataclass(frozen=True)
class Upload:
    """One ``files[n]`` part of a multipart request: what the bot uploaded."""

    filename: str
    data: bytes


@dataclass(frozen=True)
class FakeUser:
    """A simulated Discord user."""

    id: int
    name: str

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.name,
            "discriminator": "0",
            "avatar": None,
        }


@dataclass
class Call:
    """One REST call the bot made, and how the fake answered it."""

    method: str
    path: str
    body: Any
    at: float
    status: int = 200
    reply: Any = None
    """The JSON the fake answered when it refused the call (``code``, ``message``, ``errors``)."""

    @property
    def code(self) -> int | None:
        """Discord's JSON error code of a refusal (50035, 50013, 10008...)."""
        return self.reply.get("code") if isinstance(self.reply, dict) else None


@dataclass
class FakeMessage:
    """A message the bot created, and who can see it."""

    id: int
    channel_id: int
    audience: Audience
    user: int | None
    """The one user who sees it (ephemeral or DM); None for a channel message."""
    data: dict[str, Any]
    edits: int = 0
    deleted: bool = False
    created: dict[str, Any] = field(default_factory=dict)
    """The body the message was created with, as sent (its first content and its
    ``allowed_mentions``, which decided whom it notified)."""
    created_at: float = 0.0
    """When it was created, on the fake's clock."""
    old_edits: int = 0
    """Edits accepted since it was an hour old (see :meth:`FakeDiscord.limit_old_edits`)."""

    @property
    def content(self) -> str:
        return str(self.data.get("content") or "")

    @property
    def loading(self) -> bool:
        """A deferred response still "thinking": nothing was put in it yet."""
        return bool(int(self.data.get("flags") or 0) & _LOADING)

    @property
    def text(self) -> str:
        """Content, embed titles, descriptions and fields, text displays and component labels."""
        parts = [self.content]
        for embed in self.data.get("embeds") or []:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields") or []]
        for component in _walk(self.data.get("components")):
            if component.get("type") == 10:
                parts.append(str(component.get("content") or ""))
        for component in self.components:
            parts.append(str(component.get("label") or component.get("placeholder") or ""))
            parts += [str(o.get("label")) for o in component.get("options") or []]
        return "\n".join(p for p in parts if p)

    @property
    def components(self) -> list[dict[str, Any]]:
        """Buttons and selects, flattened out of their action rows (and containers, sections)."""
        return [c for c in _walk(self.data.get("components")) if c.get("type") in _INTERACTIVE]

    def snapshot(self) -> dict[str, Any]:
        """The message as shown now, kept apart from later edits (see :meth:`FakeDiscord.click`)."""
        return copy.deepcopy(self.data)


@dataclass(frozen=True)
class Notification:
    """Someone Discord would notify of a new message (a mention that pings)."""

    message_id: int
    channel_id: int
    kind: MentionKind
    target: int | None
    """The user or role id; None for @everyone and @here."""
    silent: bool = False
    """Sent with SUPPRESS_NOTIFICATIONS: a badge, no push notification."""


@dataclass
class FakeThread:
    """A thread the bot started."""

    id: int
    parent_id: int
    name: str
    type: int = 11
    auto_archive_duration: int = 1440
    archived: bool = False
    message_id: int | None = None


@dataclass
class Interaction:
    """An interaction sent to the bot, and what became of it."""

    id: int
    token: str
    user: FakeUser
    channel_id: int
    sent_at: float
    answered: asyncio.Future[float]
    """Resolves to the time the bot's (first) callback arrived, even one that was refused."""
    callback: dict[str, Any] | None = None
    """The accepted callback body."""
    messages: list[FakeMessage] = field(default_factory=list)
    """Messages created for this interaction (its response and followups)."""
    kind: int = 2
    """Interaction type: 2 command, 3 component, 4 autocomplete, 5 modal submit."""
    message: FakeMessage | None = None
    """The message whose component was used (component and modal-submit interactions)."""
    dm: bool = False
    app_permissions: int = 0
    original: FakeMessage | None = None
    """The original response: created by type 4, the "thinking" message of type 5, the
    component's message for types 6 and 7."""
    followups: list[FakeMessage] = field(default_factory=list)
    acknowledged_at: float | None = None
    modal: dict[str, Any] | None = None
    """The modal opened by a type 9 callback."""
    choices: list[Any] | None = None
    """Autocomplete choices of a type 8 callback."""
    late: bool = False
    """The callback came after the acknowledgement window: Discord answered 10062."""
    hold: Hold = field(default_factory=lambda: Hold(None), repr=False)
    """Keeps a virtual clock from jumping until the callback arrives (see ``testkit.clock``)."""

    @property
    def resolved(self) -> bool:
        """The user is not left waiting: answered, and a deferred "thinking" response filled."""
        kind = (self.callback or {}).get("type")
        if kind is None:
            return False
        if kind == 5:
            original = self.original
            return bool(self.followups) or (
                original is not None and not original.loading and not is_empty(original.data)
            )
        return True


# --- rationing ----------------------------------------------------------------------------------

GLOBAL_PER_S = 50
"""Requests a bot may make in a second over every server, interaction callbacks and webhooks
(followups, edits of an interaction's messages) aside."""
ROUTE_LIMITS: dict[tuple[str, str], tuple[int, float]] = {
    ("POST", "messages"): (5, 5.0),
    ("PATCH", "message"): (5, 5.0),
    ("DELETE", "message"): (5, 1.0),
    ("POST", "threads"): (5, 5.0),
    ("POST", "dm"): (5, 5.0),
    ("POST", "webhook"): (5, 2.0),
    ("PATCH", "webhook"): (5, 2.0),
}
"""Discord's per-route buckets the bot meets: messages created in a channel (5 per 5 s), edited
(5 per 5 s) and deleted (5 per s), threads started, DM channels opened, and an interaction's
webhook (followups, edits of its messages: 5 per 2 s per token). Discord announces each in the
``X-RateLimit-*`` headers and says not to hard-code them; these are its long-standing values."""


def route_bucket(method: str, path: str) -> tuple[str, int, float] | None:
    """The bucket a call counts against: its name (the route with its top-level resource, a
    channel or a webhook token), limit and window; None for a route without one here."""
    parts = path.strip("/").split("/")
    kind = None
    major = ""
    if parts[0] == "channels" and len(parts) >= 3 and parts[2] == "messages":
        major = parts[1]
        if len(parts) == 3:
            kind = "messages"
        elif len(parts) == 4:
            kind = "message"
        elif len(parts) == 5 and parts[4] == "threads":
            kind = "threads"
    elif path == "/users/@me/channels":
        kind = "dm"
    elif parts[0] == "webhooks" and len(parts) >= 3:
        kind, major = "webhook", parts[2]
    limits = ROUTE_LIMITS.get((method, kind or ""))
    if limits is None:
        return None
    return (f"{method} {kind} {major}", *limits)


# --- the server ----------------------------------------------------------------------------------


class FakeDiscord:
    """The fake server; ``start()`` it, point the client at ``api_url`` / ``gateway_url``.

    ``clock`` times everything the fake judges by time (the acknowledgement window and token
    lifetime of interactions, the posts counted by :meth:`max_posts_per_5s`, each call's
    :attr:`Call.at`): the real clock by default; a test gives the bot's table the same
    :class:`~testkit.clock.VirtualClock`, so pacing is checked in the time the table keeps
    without being waited out. While an interaction awaits its callback the fake holds that
    clock (it does not jump), so acknowledging is timed in real time.
    """

    def __init__(self, guild_id: int = GUILD_ID, clock: Clock | None = None) -> None:
        self.guild_id = guild_id
        self.clock: Clock = clock or RealClock()
        self.calls: list[Call] = []
        self.latency_s = 0.0
        """How long each REST call takes before it is answered (on the fake's clock), so that
        two processes' calls overlap as they would against Discord."""
        self.refused: list[Call] = []
        """Calls answered with a 4xx other than 429: Discord would not have done what they asked."""
        self.rate_limited: list[Call] = []
        """Calls answered 429 (see :meth:`rate_limit`); discord.py waits and retries them."""
        self.messages: dict[int, FakeMessage] = {}
        self.deleted: dict[int, FakeMessage] = {}
        self._channel_messages: dict[int, list[FakeMessage]] = {}
        self._private_messages: dict[int, list[FakeMessage]] = {}
        self._tokens: dict[str, Interaction] = {}
        self.interactions: dict[int, Interaction] = {}
        self.commands: dict[str, list[dict[str, Any]]] = {}
        """Synced commands by scope: "global" or the guild id."""
        self.activity: dict[int, int] = {}
        """Channel messages posted or edited, by channel: a press that changed the game shows."""
        self.closed_dms: set[int] = set()
        """Users whose DMs are closed: sending them a message answers 403 / 50007."""
        self.notifications: list[Notification] = []
        self.history: list[tuple[Literal["post", "edit", "delete"], int, int]] = []
        """Every message created, edited and deleted, in order: (what, channel id, message id),
        so a test can tell what a channel showed at any moment (not only at the end)."""
        """Everyone Discord would notify of the messages created so far (edits never notify)."""
        self.updates = 0
        """Messages replaced by an UPDATE_MESSAGE (type 7) callback."""
        self.embeds_dropped: list[FakeMessage] = []
        """Messages whose embeds Discord left out: the bot lacked Embed Links there."""
        self.threads: dict[int, FakeThread] = {}
        self.attachment_size_limit = ATTACHMENT_SIZE_LIMIT
        """Bytes per uploaded file (every interaction says so); a larger one answers 413 /
        40005."""
        self.files: dict[str, Upload] = {}
        """What was uploaded, by the attachment id Discord gave it (see :meth:`attached`)."""
        self._request_uploads: dict[str, Upload] = {}
        """The files of the request being routed (set only while it is, with no await)."""
        self.bot_permissions = BOT_PERMISSIONS
        """The bot's permissions in a channel nobody restricted."""
        self.ack_window = ACK_WINDOW_S
        """Seconds the bot has for an interaction's callback; later ones answer 10062."""
        self.token_lifetime = TOKEN_LIFETIME_S
        """Seconds an interaction token works for followups and edits; then 401 / 50027."""
        self.retry_after = RETRY_AFTER_S
        """``retry_after`` of an injected 429 (small: discord.py sleeps it before retrying)."""
        self.identified = asyncio.Event()
        self.token: str | None = None
        """The bot token Discord takes (None: any). REST calls with another answer 401, as
        Discord does ``{"message": "401: Unauthorized", "code": 0}``, and an IDENTIFY with
        another is closed with 4004 ("Authentication failed."). Interaction callbacks and
        webhooks are exempt: their token is in the path."""
        self._denied: dict[int, set[str]] = {}
        self._dm_channels: dict[int, int] = {}
        self._post_times: dict[int, list[float]] = {}
        self._rate_ratio = 0.0
        self._rate_rng = random.Random(0)
        self._old_edits: int | None = None
        self._windows: dict[str, Window] = {}
        """Each route bucket's window, by :func:`route_bucket`'s name."""
        self._global = Window(GLOBAL_PER_S, 1.0)
        self.rationed = True
        """Whether the route buckets and the global limit are enforced (a test about something
        else may turn them off, and says so)."""
        self.over_global = 0
        """Calls answered 429 for the global limit (every server's calls together)."""
        self._retrying: set[str] = set()
        self._ids = itertools.count(1_000_000_000_000_000_000)
        self._sockets: list[tuple[web.WebSocketResponse, list[int]]] = []
        self._runner: web.AppRunner | None = None
        self.port = 0

    # --- life cycle ------------------------------------------------------------------------

    async def start(self) -> FakeDiscord:
        app = web.Application()
        app.router.add_get("/", self._gateway)
        app.router.add_route("*", "/api/v10/{path:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        return self

    async def close(self) -> None:
        for interaction in self.interactions.values():
            interaction.hold.release()
        for ws, _ in list(self._sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    # --- what users see --------------------------------------------------------------------

    def private(self, user: FakeUser) -> list[FakeMessage]:
        """Ephemeral messages and DMs ``user`` received, oldest first (deleted ones gone)."""
        return self._private_messages.get(user.id, [])

    def public(self, channel_id: int) -> list[FakeMessage]:
        """The channel's (or thread's) messages, oldest first (deleted ones gone)."""
        return self._channel_messages.get(channel_id, [])

    def dm_channel(self, user: FakeUser) -> int | None:
        """The id of the bot's DM channel with ``user``, once the bot opened it."""
        return self._dm_channels.get(user.id)

    def is_dm(self, channel_id: int) -> bool:
        """Whether ``channel_id`` is a DM channel the bot opened with someone."""
        return self._dm_recipient(channel_id) is not None

    def message(self, message_id: int) -> FakeMessage:
        """A message the bot created, whether or not it was deleted since."""
        found = self.messages.get(message_id) or self.deleted.get(message_id)
        if found is None:
            raise KeyError(f"no message {message_id}")
        return found

    def attached(self, message: FakeMessage) -> list[tuple[dict[str, Any], bytes]]:
        """The message's attachments as the bot sees them, each with the bytes uploaded."""
        found = []
        for attachment in message.data.get("attachments") or []:
            upload = self.files.get(str(attachment.get("id")))
            found.append((attachment, upload.data if upload is not None else b""))
        return found

    @property
    def invalid(self) -> list[Call]:
        """Refused calls the bot alone is to blame for (400: a body or callback Discord refuses)."""
        return [c for c in self.refused if c.status == 400]

    def max_posts_per_5s(self, channel_id: int, window: float = 5.0) -> int:
        """The most messages the bot posted to the channel within any ``window`` seconds.

        Counts ``POST /channels/{id}/messages`` (Discord allows about 5 per 5 s per channel;
        interaction responses and followups go to the interaction's webhook instead). Measured,
        never refused.
        """
        times = self._post_times.get(channel_id, [])
        best = start = 0
        for end, at in enumerate(times):
            while at - times[start] >= window:
                start += 1
            best = max(best, end - start + 1)
        return best

    # --- faults and moderators -------------------------------------------------------------

    def rate_limit(self, ratio: float, seed: int = 0) -> None:
        """Answer ``ratio`` of the bot's message calls with a 429, as Discord's buckets do.

        Message calls: creating, editing and deleting channel messages, opening a DM channel and
        every webhook call (followups, edits of responses); interaction callbacks are exempt, as on
        Discord. The 429 has Discord's body and headers (including ``Via``, without which
        discord.py takes a 429 for a Cloudflare ban and raises). The retry of a limited call is
        let through, as it would be once its bucket reset, so a call is limited at most once in a
        row (discord.py gives up after 5 tries). 0 turns it off.
        """
        self._rate_ratio = ratio
        self._rate_rng = random.Random(seed)
        self._retrying.clear()

    def limit_old_edits(self, edits: int | None = 0) -> None:
        """Refuse edits of messages older than an hour (:data:`OLD_MESSAGE_S` on ``clock``) once
        ``edits`` of them were accepted, per message (0: every one; None: no limit).

        Discord caps how often a message older than an hour may be edited, and past the cap
        answers ``PATCH /channels/{channel}/messages/{message}`` with a 429 whose JSON code is
        30046 ("Maximum number of edits to messages older than 1 hour reached. Try again
        later"; discord.py raises it as ``429 Too Many Requests (error code: 30046)`` once its
        retries are spent: it takes the 429 for a rate limit, sleeps ``retry_after`` and tries
        again, 5 times). Discord does not say how many edits it allows; here the cap is
        ``edits`` and never resets, so a bot must post such a surface anew to go on showing it.
        Edits through an interaction (a webhook, an UPDATE_MESSAGE callback) are not capped:
        their tokens expire after 15 minutes anyway.
        """
        self._old_edits = edits

    def deny(self, channel_id: int, *permissions: str) -> None:
        """Take permissions (discord.Permissions names, e.g. "send_messages") from the bot there."""
        for name in permissions:
            if name not in discord.Permissions.VALID_FLAGS:
                raise ValueError(f"no such permission: {name}")
        self._denied.setdefault(channel_id, set()).update(permissions)

    def allow(self, channel_id: int, *permissions: str) -> None:
        """Give back permissions :meth:`deny` took."""
        self._denied.get(channel_id, set()).difference_update(permissions)

    def permissions(self, channel_id: int) -> discord.Permissions:
        """The bot's permissions in a channel: what interactions there carry as app_permissions.

        A thread has its parent's, less what was denied on the thread itself. The bit field is
        literal, as Discord sends it; what Discord implies on top is applied where the bot acts:
        without View Channel every channel call answers 50001, without Send Messages (in a
        thread: Send Messages in Threads) a post answers 50013.
        """
        if self._dm_recipient(channel_id) is not None:
            return discord.Permissions(DM_PERMISSIONS.value)
        denied = set(self._denied.get(channel_id, set()))
        thread = self.threads.get(channel_id)
        if thread is not None:
            denied |= self._denied.get(thread.parent_id, set())
        value = self.bot_permissions.value
        for name in denied:
            value &= ~discord.Permissions(**{name: True}).value
        return discord.Permissions(value)

    def delete_message(self, message_id: int) -> FakeMessage:
        """A moderator (or the user, for an ephemeral one) deletes a message."""
        message = self.messages.get(message_id)
        if message is None:
            raise KeyError(f"no message {message_id}")
        self._forget(message)
        return message

    def archive_thread(self, thread_id: int) -> None:
        """The thread goes quiet and is archived (the bot's next post in it revives it)."""
        self.threads[thread_id].archived = True

    # --- sending interactions --------------------------------------------------------------

    async def slash(
        self,
        user: FakeUser,
        channel_id: int,
        group: str,
        sub: str,
        options: dict[str, str] | None = None,
        dm: bool = False,
        gateway: int | None = None,
    ) -> Interaction:
        """``/<group> <sub> [options]`` typed by ``user`` (``dm``: in their DM with the bot).

        ``gateway``: which connected bot receives it (see :meth:`dispatch`)."""
        inner = [{"name": k, "type": 3, "value": v} for k, v in (options or {}).items()]
        chosen: list[dict[str, Any]] = inner
        if sub:
            # ``more undo``: a subcommand of a subcommand group.
            *nest, leaf = sub.split()
            chosen = [{"name": leaf, "type": 1, "options": inner}]
            for name in reversed(nest):
                chosen = [{"name": name, "type": 2, "options": chosen}]
        data: dict[str, Any] = {
            "id": str(next(self._ids)),
            "name": group,
            "type": 1,
            "options": chosen,
        }
        if not dm and group in {c["name"] for c in self.commands.get(str(self.guild_id), [])}:
            data["guild_id"] = str(self.guild_id)
        return await self._interact(user, channel_id, 2, data, None, dm, gateway=gateway)

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str,
        values: list[str] | None = None,
        *,
        shown: dict[str, Any] | None = None,
        gateway: int | None = None,
    ) -> Interaction:
        """``user`` presses the component ``custom_id`` of ``message`` (a select with values).

        ``shown``: the message as the user's client still shows it (a :meth:`FakeMessage.snapshot`
        taken earlier), when it was edited since: a second click before the first one's update
        arrived, or an old copy left on screen. The press then carries that version, as
        Discord's does, while an UPDATE_MESSAGE answer replaces the message itself. ``gateway``:
        which connected bot receives it (see :meth:`dispatch`).

        Refused here (ValueError) when no Discord client could send it: the message was deleted,
        the component is not on it (a link button has no custom id) or is disabled, or the values
        are not a choice the menu offers.
        """
        if message.deleted:
            raise ValueError(f"message {message.id} was deleted; nobody can press its components")
        data_shown = shown if shown is not None else message.data
        components = [
            c for c in _walk(data_shown.get("components")) if c.get("type") in _INTERACTIVE
        ]
        found = (c for c in components if c.get("custom_id") == custom_id)
        component = next(found, None)
        if component is None:  # link buttons have no custom id: the browser opens them
            raise ValueError(f"message {message.id} has no component {custom_id!r}")
        if component.get("disabled"):
            raise ValueError(f"{custom_id!r} is disabled; Discord clients cannot press it")
        kind = component["type"]
        if kind == 3 and values is not None:
            offered = {str(o.get("value")) for o in component.get("options") or []}
            low, high = component.get("min_values", 1), component.get("max_values", 1)
            if not set(values) <= offered or len(set(values)) != len(values):
                raise ValueError(f"{values} are not options of {custom_id!r}")
            if not low <= len(values) <= high:
                raise ValueError(f"{custom_id!r} takes {low} to {high} values, not {len(values)}")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": kind}
        if values is not None:
            data["values"] = values
        dm = message.audience == "dm"
        return await self._interact(
            user, message.channel_id, 3, data, message, dm, shown=data_shown, gateway=gateway
        )

    async def submit(
        self, user: FakeUser, opened: Interaction, values: dict[str, str | list[str]]
    ) -> Interaction:
        """``user`` submits the modal ``opened``'s callback showed, with ``values`` by custom id."""
        modal = opened.modal
        if modal is None:
            raise ValueError(f"interaction {opened.id} opened no modal")
        answers: list[dict[str, Any]] = []
        for component in modal.get("components") or []:
            if component.get("type") == 1:
                inner = component["components"][0]
                answer = {"type": 4, "custom_id": inner["custom_id"]}
                answer["value"] = values.get(inner["custom_id"], "")
                answers.append({"type": 1, "components": [answer]})
            elif component.get("type") == 18:
                inner = component["component"]
                value = values.get(inner.get("custom_id", ""), "")
                answer = {"type": inner["type"], "custom_id": inner.get("custom_id")}
                if inner["type"] == 4:
                    answer["value"] = value
                else:
                    answer["values"] = [value] if isinstance(value, str) else value
                answers.append({"type": 18, "component": answer})
        data = {"custom_id": modal["custom_id"], "components": answers}
        shown = opened.message.data if opened.message is not None else None
        return await self._interact(
            user, opened.channel_id, 5, data, opened.message, opened.dm, shown=shown
        )

    async def _interact(
        self,
        user: FakeUser,
        channel_id: int,
        kind: int,
        data: dict[str, Any],
        message: FakeMessage | None,
        dm: bool,
        *,
        shown: dict[str, Any] | None = None,
        gateway: int | None = None,
    ) -> Interaction:
        interaction_id = next(self._ids)
        token = f"token-{interaction_id}"
        permissions = DM_PERMISSIONS.value if dm else self.permissions(channel_id).value
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(APP_ID),
            "type": kind,
            "token": token,
            "version": 1,
            "attachment_size_limit": self.attachment_size_limit,
            "data": data,
            "channel_id": str(channel_id),
            "locale": "en-US",
            "app_permissions": str(permissions),
            "entitlements": [],
            "authorizing_integration_owners": {},
        }
        if dm:
            payload["channel"] = {"id": str(channel_id), "type": 1, "recipients": [user.payload()]}
            payload["user"] = user.payload()
            payload["context"] = 1
        else:
            payload["guild_id"] = str(self.guild_id)
            payload["guild_locale"] = "en-US"
            payload["channel"] = self._channel_payload(channel_id)
            payload["member"] = {
                "user": user.payload(),
                "roles": [],
                "joined_at": _TIMESTAMP,
                "deaf": False,
                "mute": False,
                "flags": 0,
                "permissions": "0",
            }
            payload["context"] = 0
        if message is not None:
            payload["message"] = shown if shown is not None else message.data
        record = Interaction(
            id=interaction_id,
            token=token,
            user=user,
            channel_id=channel_id,
            sent_at=self.clock.now(),
            answered=asyncio.get_running_loop().create_future(),
            kind=kind,
            message=message,
            dm=dm,
            app_permissions=permissions,
        )
        self.interactions[interaction_id] = record
        self._tokens[token] = record
        # The clock waits for the callback (and at most the window, should none come).
        record.hold = held(self.clock)
        asyncio.get_running_loop().call_later(self.ack_window + 0.1, record.hold.release)
        await self.dispatch("INTERACTION_CREATE", payload, gateway)
        return record

    def _channel_payload(self, channel_id: int) -> dict[str, Any]:
        thread = self.threads.get(channel_id)
        if thread is not None:
            return self._thread_payload(thread)
        return {
            "id": str(channel_id),
            "type": 0,
            "guild_id": str(self.guild_id),
            "name": f"table-{channel_id}",
            "position": 0,
        }

    @property
    def gateways(self) -> int:
        """How many bots are connected and identified (two processes of one bot: 2)."""
        return sum(1 for ws, _ in self._sockets if not ws.closed)

    async def dispatch(self, event: str, data: dict[str, Any], gateway: int | None = None) -> None:
        """Send a dispatch to the newest identified gateway connection, or to the ``gateway``-th
        of those connected now, oldest first (so two bot processes can each get their own)."""
        connected = [(ws, seq) for ws, seq in self._sockets if not ws.closed]
        if not connected:
            raise RuntimeError("no bot is connected to the fake gateway")
        ws, seq = connected[-1] if gateway is None else connected[gateway]
        seq[0] += 1
        await ws.send_str(json.dumps({"op": 0, "t": event, "s": seq[0], "d": data}))

    # --- gateway ---------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        seq = [0]
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 30_000}}))
        async for frame in ws:
            if frame.type != WSMsgType.TEXT:
                continue
            message = json.loads(frame.data)
            op = message.get("op")
            if op == 1:
                await ws.send_str(json.dumps({"op": 11}))
            elif op in (2, 6):
                if self.token is not None and message["d"].get("token") != self.token:
                    await ws.close(code=4004, message=b"Authentication failed.")
                    break
                self._sockets.append((ws, seq))
                if op == 2:
                    seq[0] += 1
                    ready = {
                        "v": 10,
                        "user": {**self._bot_user(), "bot": True},
                        "guilds": [],
                        "session_id": f"session-{next(self._ids)}",
                        "resume_gateway_url": self.gateway_url,
                        "application": {"id": str(APP_ID), "flags": 0},
                        "shard": message["d"].get("shard", [0, 1]),
                    }
                    await ws.send_str(json.dumps({"op": 0, "t": "READY", "s": seq[0], "d": ready}))
                else:
                    seq[0] += 1
                    await ws.send_str(json.dumps({"op": 0, "t": "RESUMED", "s": seq[0], "d": {}}))
                self.identified.set()
        self._sockets = [(w, s) for w, s in self._sockets if w is not ws]
        return ws

    def _bot_user(self) -> dict[str, Any]:
        return {"id": str(BOT_ID), "username": "Boardroom", "discriminator": "0", "avatar": None}

    # --- REST ------------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        # Every await comes before the call is recorded, and none after (remote.WatchedDiscord
        # reads the newest call as this request's).
        body: Any = None
        uploads: dict[str, Upload] = {}
        if request.content_type == "multipart/form-data":  # files: the JSON is payload_json
            form = await request.post()
            payload = form.get("payload_json")
            if isinstance(payload, bytes | bytearray):  # sent with Content-Type: application/json
                payload = payload.decode()
            body = json.loads(payload) if isinstance(payload, str) else {}
            for name, value in form.items():
                part = _FILE_PART.fullmatch(name)
                # A part without a filename is no file to Discord (a plain form field).
                if part is not None and isinstance(value, web.FileField) and value.filename:
                    uploads[part[1]] = Upload(value.filename, value.file.read())
            for attachment in _new_attachments(body):
                upload = uploads.get(str(attachment.get("id")))
                if upload is not None:
                    attachment["size"] = len(upload.data)
        else:
            raw = await request.read()
            if raw and request.content_type == "application/json":
                body = json.loads(raw)
        path = "/" + request.match_info["path"]
        if self.latency_s:
            await pause(self.clock, self.latency_s)
        call = Call(request.method, path, body, self.clock.now())
        self.calls.append(call)
        self._request_uploads = uploads
        headers: dict[str, str] = {}
        try:
            response = (
                self._unauthorized(request, path)
                or self._limited(request.method, path)
                or self._rationed(request.method, path, headers)
                or self._upload_refusal(request.method, path, body, uploads)
                or self._route(request.method, path, body)
            )
        finally:
            self._request_uploads = {}
        if response.status != 429:
            response.headers.update(headers)
        call.status = response.status
        if 400 <= response.status < 500:
            call.reply = response.data if isinstance(response, _Reply) else None
        if response.status == 429:
            self.rate_limited.append(call)
        elif 400 <= response.status < 500:
            self.refused.append(call)
        return response

    def _unauthorized(self, request: web.Request, path: str) -> web.Response | None:
        """401 for a call whose ``Authorization`` is not ``Bot <token>`` (see :attr:`token`)."""
        if self.token is None or path.startswith(("/webhooks/", "/interactions/")):
            return None
        if request.headers.get("Authorization") == f"Bot {self.token}":
            return None
        return _error(401, 0, "401: Unauthorized")

    def _upload_refusal(
        self, method: str, path: str, body: Any, uploads: dict[str, Upload]
    ) -> web.Response | None:
        """What Discord answers a request whose files it will not take (None: it takes them).

        Every new attachment the body lists (an ``id`` that is a ``files[n]`` index, not a
        kept attachment's snowflake) needs its part, with a filename (50035
        ``ATTACHMENT_NOT_FOUND``, "Attachment data not found"); no file may exceed
        :attr:`attachment_size_limit` (413 / 40005); uploading needs Attach Files (403 /
        50013), in a channel as in an interaction's response (``app_permissions``). A refused
        callback still counts as the interaction's first answer (:attr:`Interaction.answered`).
        """
        if method not in ("POST", "PATCH") or not isinstance(body, dict):
            return None
        refusal = self._files_refusal(path, body, uploads)
        if refusal is not None and _is_callback(path):
            interaction = self.interactions.get(_snowflake(path.strip("/").split("/")[1]))
            if interaction is not None:
                interaction.hold.release()
                if not interaction.answered.done():
                    interaction.answered.set_result(self.clock.now())
        return refusal

    def _files_refusal(
        self, path: str, body: dict[str, Any], uploads: dict[str, Upload]
    ) -> web.Response | None:
        errors = _Errors()
        under: tuple[str | int, ...] = ("data",) if _is_callback(path) else ()
        for index, attachment in enumerate(_new_attachments(body)):
            if str(attachment.get("id")) not in uploads:
                where: tuple[str | int, ...] = (*under, "attachments", index)
                errors.add(where, "ATTACHMENT_NOT_FOUND", "Attachment data not found")
        if errors.tree:
            return _invalid(errors.tree)
        if not uploads:
            return None
        if any(len(upload.data) > self.attachment_size_limit for upload in uploads.values()):
            return _error(413, 40005, "Request entity too large")
        if not self._may_attach(path):
            return _error(403, 50013, "Missing Permissions")
        return None

    def _may_attach(self, path: str) -> bool:
        """Whether the bot has Attach Files where ``path`` posts (a DM always allows it)."""
        parts = path.strip("/").split("/")
        interaction: Interaction | None = None
        if _is_callback(path):
            interaction = self.interactions.get(_snowflake(parts[1]))
        elif parts[0] == "webhooks" and len(parts) >= 3:
            interaction = self._tokens.get(parts[2])
        elif parts[0] == "channels" and len(parts) >= 3:
            return bool(self.permissions(_snowflake(parts[1])).attach_files)
        if interaction is None:
            return True  # unknown: the route answers that
        return bool(interaction.app_permissions & discord.Permissions(attach_files=True).value)

    def _route(self, method: str, path: str, body: Any) -> web.Response:
        parts = path.strip("/").split("/")
        if path == "/users/@me" and method == "GET":
            return _json({**self._bot_user(), "bot": True})
        if path == "/oauth2/applications/@me":
            return _json(
                {
                    "id": str(APP_ID),
                    "name": "Boardroom",
                    "description": "",
                    "icon": None,
                    "bot_public": True,
                    "bot_require_code_grant": False,
                    "owner": {**self._bot_user(), "id": "1"},
                    "verify_key": "0" * 64,
                    "flags": 0,
                }
            )
        if path in ("/gateway/bot", "/gateway"):
            limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
            return _json({"url": self.gateway_url, "shards": 1, "session_start_limit": limit})
        if parts[0] == "applications" and method == "PUT":
            scope = parts[3] if len(parts) > 3 and parts[2] == "guilds" else "global"
            synced = [
                {**c, "id": str(next(self._ids)), "application_id": str(APP_ID), "version": "1"}
                for c in body or []
            ]
            self.commands[scope] = synced
            return _json(synced)
        data = body if isinstance(body, dict) else {}
        callback = parts[0] == "interactions" and len(parts) == 4 and parts[3] == "callback"
        if callback and method == "POST":
            return self._callback(_snowflake(parts[1]), parts[2], data)
        if parts[0] == "webhooks":
            return self._webhook(method, parts, data)
        if path == "/users/@me/channels" and method == "POST":
            recipient = _snowflake(str(data.get("recipient_id", "")))
            channel = self._dm_channels.setdefault(recipient, next(self._ids))
            return _json(
                {
                    "id": str(channel),
                    "type": 1,
                    "recipients": [{**FakeUser(recipient, f"user{recipient}").payload()}],
                    "last_message_id": None,
                }
            )
        if parts[0] == "channels" and len(parts) >= 3:
            channel_id = _snowflake(parts[1])
            if parts[2] == "messages":
                if len(parts) == 3 and method == "POST":
                    return self._channel_post(channel_id, data)
                if len(parts) == 4:
                    return self._channel_message(method, channel_id, _snowflake(parts[3]), data)
                if len(parts) == 5 and parts[4] == "threads" and method == "POST":
                    return self._thread_from_message(channel_id, _snowflake(parts[3]), data)
            if parts[2] == "threads" and len(parts) == 3 and method == "POST":
                return self._thread(channel_id, data)
        return _json({"message": f"fake Discord has no route {method} {path}", "code": 0}, 404)

    def _old(self, message: FakeMessage) -> bool:
        return self.clock.now() - message.created_at > OLD_MESSAGE_S

    def _old_edit_refusal(self, message: FakeMessage) -> web.Response | None:
        """Discord's 429 / 30046 for an edit past :meth:`limit_old_edits`'s cap (None: allowed)."""
        if self._old_edits is None or not self._old(message):
            return None
        if message.old_edits < self._old_edits:
            return None
        body = {
            "message": OLD_EDITS_MESSAGE,
            "code": OLD_EDITS,
            "retry_after": self.retry_after,
            "global": False,
        }
        route = f"PATCH /channels/{message.channel_id}/messages/{{id}}"
        return self._too_many(body, hashlib.sha1(route.encode()).hexdigest()[:16])

    def _too_many(
        self, body: dict[str, Any], bucket: str, limit: int = 5, scope: str = "user"
    ) -> web.Response:
        """A 429 with Discord's headers (``Via`` among them: without it discord.py takes a 429
        for a Cloudflare ban and raises at once)."""
        after = float(body["retry_after"])
        response = _json(body, 429)
        response.headers.update(
            {
                "Retry-After": str(max(1, math.ceil(after))),
                "X-RateLimit-Limit": str(limit),
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{self.clock.wall() + after:.3f}",
                "X-RateLimit-Reset-After": f"{after:.3f}",
                "X-RateLimit-Bucket": bucket,
                "X-RateLimit-Scope": scope,
                # Discord's responses come through Google's front end; discord.py checks for it.
                "Via": "1.1 google",
            }
        )
        return response

    def _rationed(self, method: str, path: str, headers: dict[str, str]) -> web.Response | None:
        """Discord's budgets: the route's bucket (:func:`route_bucket`) and the bot's
        :data:`GLOBAL_PER_S` a second (interaction callbacks and webhooks exempt). A call past
        either is answered 429 with Discord's body and headers and changes nothing; a call
        within its route's bucket gets the ``X-RateLimit-*`` headers discord.py paces by, in
        ``headers``."""
        if not self.rationed:
            return None
        now = self.clock.now()
        route = route_bucket(method, path)
        window = None
        if route is not None:
            name, limit, window_s = route
            window = self._windows.setdefault(name, Window(limit, window_s))
            state = window.take(now)
            bucket = hashlib.sha1(name.rsplit(" ", 1)[0].encode()).hexdigest()[:16]
            if not state.granted:
                body = {"message": "You are being rate limited.", "global": False}
                return self._too_many(
                    body | {"retry_after": round(state.reset_after, 3)}, bucket, state.limit
                )
            headers.update(
                {
                    "X-RateLimit-Limit": str(state.limit),
                    "X-RateLimit-Remaining": str(state.remaining),
                    "X-RateLimit-Reset": f"{self.clock.wall() + state.reset_after:.3f}",
                    "X-RateLimit-Reset-After": f"{state.reset_after:.3f}",
                    "X-RateLimit-Bucket": bucket,
                }
            )
        if path.startswith(("/interactions/", "/webhooks/")):
            return None
        state = self._global.take(now)
        if state.granted:
            return None
        if window is not None:
            window.give_back()
        self.over_global += 1
        body = {
            "message": "You are being rate limited.",
            "retry_after": round(state.reset_after, 3),
            "global": True,
        }
        response = self._too_many(body, "global", GLOBAL_PER_S, scope="global")
        response.headers["X-RateLimit-Global"] = "true"
        return response

    def _limited(self, method: str, path: str) -> web.Response | None:
        """A 429 for a message call, when :meth:`rate_limit` says so."""
        if self._rate_ratio <= 0 or method not in ("POST", "PATCH", "DELETE"):
            return None
        parts = path.strip("/").split("/")
        messages = parts[0] == "channels" and len(parts) >= 3 and parts[2] == "messages"
        if not (messages or parts[0] == "webhooks" or path == "/users/@me/channels"):
            return None
        key = f"{method} {path}"
        if key in self._retrying:
            self._retrying.discard(key)
            return None
        if self._rate_rng.random() >= self._rate_ratio:
            return None
        self._retrying.add(key)
        route = "/".join("{id}" if p.isdigit() or p.startswith("token-") else p for p in parts)
        bucket = hashlib.sha1(f"{method} {route}".encode()).hexdigest()[:16]
        body = {"message": "You are being rate limited.", "retry_after": self.retry_after}
        return self._too_many(body | {"global": False}, bucket)

    # --- interactions ------------------------------------------------------------------------

    def _callback(self, interaction_id: int, token: str, body: dict[str, Any]) -> web.Response:
        interaction = self.interactions.get(interaction_id)
        if interaction is None or interaction.token != token:
            return _error(404, 10062, "Unknown interaction")
        now = self.clock.now()
        interaction.hold.release()
        if not interaction.answered.done():
            interaction.answered.set_result(now)
        if interaction.callback is not None:
            return _error(400, 40060, "Interaction has already been acknowledged.")
        if interaction.late or now - interaction.sent_at > self.ack_window:
            # Too late: Discord has shown the user "The application did not respond" and
            # invalidated the token.
            interaction.late = True
            return _error(404, 10062, "Unknown interaction")
        kind = body.get("type")
        data = body.get("data") or {}
        allowed = _CALLBACKS.get(interaction.kind, frozenset())
        if kind in (6, 7) and interaction.message is None:
            allowed = allowed - {6, 7}  # a modal opened from a slash command has no message
        if kind not in allowed:
            message = (
                f"Callback type {kind} is not valid for an interaction of type {interaction.kind}"
            )
            return _invalid_at(("type",), "INTERACTION_CALLBACK_TYPE_INVALID", message)
        target = interaction.message
        if kind == 4:
            errors = validate_message(data)
            if errors:
                return _invalid({"data": errors})
            if is_empty(data):
                return _error(400, 50006, "Cannot send an empty message")
        elif kind == 5:
            flags = data.get("flags") or 0
            if flags & ~_EPHEMERAL:
                message = "A deferred response may only set the EPHEMERAL flag"
                return _invalid_at(("data", "flags"), "MESSAGE_FLAGS_INVALID", message)
        elif kind == 7 and target is not None:
            if target.deleted:
                return _error(404, 10008, "Unknown Message")
            refusal = self._check_edit(target, data, under="data")
            if refusal is not None:
                return refusal
        elif kind == 8:
            errors = validate_autocomplete(data)
            if errors:
                return _invalid({"data": errors})
        elif kind == 9:
            errors = validate_modal(data)
            if errors:
                return _invalid({"data": errors})

        interaction.callback = body
        interaction.acknowledged_at = now
        resource: dict[str, Any] = {"type": kind}
        if kind == 4:
            interaction.original = self._respond(interaction, data)
        elif kind == 5:
            loading = {"flags": (int(data.get("flags") or 0) & _EPHEMERAL) | _LOADING}
            interaction.original = self._respond(interaction, loading)
        elif kind in (6, 7):
            interaction.original = target
            if kind == 7 and target is not None:
                self._apply_edit(target, data, self._can_embed(interaction))
                self.updates += 1
        elif kind == 8:
            interaction.choices = list(data.get("choices") or [])
        elif kind == 9:
            interaction.modal = data
        original = interaction.original
        if original is not None and kind in (4, 5, 7):
            resource["message"] = original.data
        return _json(
            {
                "interaction": {
                    "id": str(interaction_id),
                    "type": interaction.kind,
                    "activity_instance_id": None,
                    "response_message_id": str(original.id) if original else None,
                    "response_message_loading": kind == 5,
                    "response_message_ephemeral": bool(
                        original is not None and original.audience == "ephemeral"
                    ),
                },
                "resource": resource,
            }
        )

    def _webhook(self, method: str, parts: list[str], body: dict[str, Any]) -> web.Response:
        if len(parts) < 3 or parts[1] != str(APP_ID):
            return _error(404, 10015, "Unknown Webhook")
        interaction = self._tokens.get(parts[2])
        if interaction is None:
            return _error(404, 10015, "Unknown Webhook")
        age = self.clock.now() - interaction.sent_at
        if age > self.token_lifetime or (interaction.callback is None and age > self.ack_window):
            return _error(401, 50027, "Invalid Webhook Token")
        if interaction.callback is None:
            return _error(404, 10015, "Unknown Webhook")
        if len(parts) == 3 and method == "POST":
            return self._followup(interaction, body)
        if len(parts) == 5 and parts[3] == "messages":
            if parts[4] == "@original":
                target = interaction.original
            else:
                wanted = _snowflake(parts[4])
                own = [interaction.original, *interaction.messages]
                target = next((m for m in own if m is not None and m.id == wanted), None)
            if target is None or target.deleted:
                return _error(404, 10008, "Unknown Message")
            if method == "GET":
                return _json(target.data)
            if method == "DELETE":
                self._forget(target)
                return web.Response(status=204)
            if method == "PATCH":
                refusal = self._check_edit(target, body)
                if refusal is not None:
                    return refusal
                filled = target.loading
                self._apply_edit(target, body, self._can_embed(interaction))
                if filled:
                    # The "thinking" message is only now really sent: its mentions ping.
                    self._notify(target, body, _INTERACTION_PARSE, self._dm_of(interaction))
                return _json(target.data)
        return _json({"message": "fake Discord: unsupported webhook call", "code": 0}, 404)

    def _followup(self, interaction: Interaction, body: dict[str, Any]) -> web.Response:
        errors = validate_message(body)
        if errors:
            return _invalid(errors)
        if is_empty(body):
            return _error(400, 50006, "Cannot send an empty message")
        original = interaction.original
        if original is not None and original.loading and not original.deleted:
            # Discord: the first followup after a deferred "thinking" response edits that message
            # instead of creating one, and keeps the defer's ephemeral choice.
            self._apply_edit(original, body, self._can_embed(interaction))
            self._notify(original, body, _INTERACTION_PARSE, self._dm_of(interaction))
            interaction.followups.append(original)
            return _json(original.data)
        message = self._respond(interaction, body)
        interaction.followups.append(message)
        return _json(message.data)

    def _respond(self, interaction: Interaction, data: dict[str, Any]) -> FakeMessage:
        """A response or followup message of ``interaction`` (ephemeral if its flags say so)."""
        ephemeral = bool(int(data.get("flags") or 0) & _EPHEMERAL)
        message = self._message(
            interaction.channel_id,
            "ephemeral" if ephemeral else "channel",
            interaction.user.id if ephemeral else None,
            data,
            self._can_embed(interaction),
        )
        interaction.messages.append(message)
        if not ephemeral and not message.loading:
            self._notify(message, data, _INTERACTION_PARSE, self._dm_of(interaction))
        return message

    def _can_embed(self, interaction: Interaction) -> bool:
        return bool(interaction.app_permissions & discord.Permissions(embed_links=True).value)

    def _dm_of(self, interaction: Interaction) -> int | None:
        return interaction.user.id if interaction.dm else None

    # --- channels ----------------------------------------------------------------------------

    def _dm_recipient(self, channel_id: int) -> int | None:
        return next((u for u, c in self._dm_channels.items() if c == channel_id), None)

    def _may_see(self, channel_id: int) -> web.Response | None:
        if self._dm_recipient(channel_id) is None and not self.permissions(channel_id).view_channel:
            return _error(403, 50001, "Missing Access")
        return None

    def _channel_post(self, channel_id: int, body: dict[str, Any]) -> web.Response:
        recipient = self._dm_recipient(channel_id)
        perms = self.permissions(channel_id)
        if recipient is not None:
            if recipient in self.closed_dms:
                return _error(403, 50007, "Cannot send messages to this user")
        else:
            refusal = self._may_see(channel_id)
            if refusal is not None:
                return refusal
            thread = self.threads.get(channel_id)
            may_send = perms.send_messages_in_threads if thread else perms.send_messages
            if not may_send:
                return _error(403, 50013, "Missing Permissions")
        errors = validate_message(body)
        if errors:
            return _invalid(errors)
        if is_empty(body):
            return _error(400, 50006, "Cannot send an empty message")
        thread = self.threads.get(channel_id)
        if thread is not None:
            thread.archived = False  # a post by someone who may post revives an archived thread
        audience: Audience = "dm" if recipient is not None else "channel"
        message = self._message(channel_id, audience, recipient, body, perms.embed_links)
        self._post_times.setdefault(channel_id, []).append(self.clock.now())
        self._notify(message, body, _REGULAR_PARSE, recipient)
        return _json(message.data)

    def _channel_message(
        self, method: str, channel_id: int, message_id: int, body: dict[str, Any]
    ) -> web.Response:
        refusal = self._may_see(channel_id)
        if refusal is not None:
            return refusal
        message = self.messages.get(message_id)
        # Ephemeral messages exist only behind their interaction's token.
        if message is None or message.channel_id != channel_id or message.audience == "ephemeral":
            return _error(404, 10008, "Unknown Message")
        if method == "GET":
            return _json(message.data)
        if method == "DELETE":
            self._forget(message)
            return web.Response(status=204)
        if method == "PATCH":
            thread = self.threads.get(channel_id)
            if thread is not None and thread.archived:
                return _error(400, 50083, "Thread is archived")
            refusal = self._old_edit_refusal(message) or self._check_edit(message, body)
            if refusal is not None:
                return refusal
            if self._old_edits is not None and self._old(message):
                message.old_edits += 1
            self._apply_edit(message, body, self.permissions(channel_id).embed_links)
            return _json(message.data)
        return _json(
            {"message": f"fake Discord has no route {method} for a message", "code": 0}, 405
        )

    def _thread_from_message(
        self, channel_id: int, message_id: int, body: dict[str, Any]
    ) -> web.Response:
        refusal = self._may_see(channel_id)
        if refusal is not None:
            return refusal
        message = self.messages.get(message_id)
        if message is None or message.channel_id != channel_id or message.audience != "channel":
            return _error(404, 10008, "Unknown Message")
        if not self.permissions(channel_id).create_public_threads:
            return _error(403, 50013, "Missing Permissions")
        if message_id in self.threads:
            return _error(400, 160004, "A thread has already been created for this message")
        refusal = self._check_thread(body)
        if refusal is not None:
            return refusal
        # Discord gives a thread started from a message the message's id.
        return self._open_thread(message_id, channel_id, body, 11, message_id)

    def _thread(self, channel_id: int, body: dict[str, Any]) -> web.Response:
        refusal = self._may_see(channel_id)
        if refusal is not None:
            return refusal
        kind = body.get("type", 12)
        needed = "create_public_threads" if kind == 11 else "create_private_threads"
        if kind not in (11, 12):
            message = "Value must be one of (11, 12)."
            return _invalid_at(("type",), "BASE_TYPE_CHOICES", message)
        if not getattr(self.permissions(channel_id), needed):
            return _error(403, 50013, "Missing Permissions")
        refusal = self._check_thread(body)
        if refusal is not None:
            return refusal
        return self._open_thread(next(self._ids), channel_id, body, kind, None)

    def _check_thread(self, body: dict[str, Any]) -> web.Response | None:
        errors = _Errors()
        errors.text(("name",), body.get("name"), 100, low=1)
        duration = body.get("auto_archive_duration")
        if duration is not None:
            errors.choice(("auto_archive_duration",), duration, tuple(sorted(_ARCHIVE_MINUTES)))
        return _invalid(errors.tree) if errors.tree else None

    def _open_thread(
        self, thread_id: int, parent: int, body: dict[str, Any], kind: int, message_id: int | None
    ) -> web.Response:
        thread = FakeThread(
            id=thread_id,
            parent_id=parent,
            name=str(body["name"]),
            type=kind,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
            message_id=message_id,
        )
        self.threads[thread_id] = thread
        return _json(self._thread_payload(thread))

    def _thread_payload(self, thread: FakeThread) -> dict[str, Any]:
        return {
            "id": str(thread.id),
            "type": thread.type,
            "guild_id": str(self.guild_id),
            "parent_id": str(thread.parent_id),
            "name": thread.name,
            "owner_id": str(BOT_ID),
            "message_count": len(self.public(thread.id)),
            "member_count": 1,
            "rate_limit_per_user": 0,
            "flags": 0,
            "thread_metadata": {
                "archived": thread.archived,
                "auto_archive_duration": thread.auto_archive_duration,
                "archive_timestamp": _TIMESTAMP,
                "locked": False,
            },
        }

    # --- messages ----------------------------------------------------------------------------

    def _message(
        self,
        channel_id: int,
        audience: Audience,
        user: int | None,
        body: dict[str, Any],
        embed_links: bool = True,
    ) -> FakeMessage:
        message_id = next(self._ids)
        flags = int(body.get("flags") or 0)
        if audience != "ephemeral":
            flags &= ~_EPHEMERAL
        data = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "type": 0,
            "author": {**self._bot_user(), "bot": True},
            "content": body.get("content") or "",
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "attachments": self._attachments(channel_id, body.get("attachments")),
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "timestamp": _TIMESTAMP,
            "edited_timestamp": None,
            "flags": flags,
        }
        message = FakeMessage(
            message_id,
            channel_id,
            audience,
            user,
            data,
            created=dict(body),
            created_at=self.clock.now(),
        )
        self._drop_embeds(message, embed_links)
        self.messages[message_id] = message
        self.history.append(("post", channel_id, message_id))
        if user is not None:
            self._private_messages.setdefault(user, []).append(message)
        else:
            self._channel_messages.setdefault(channel_id, []).append(message)
        if audience == "channel":
            self.activity[channel_id] = self.activity.get(channel_id, 0) + 1
        return message

    def _attachments(self, channel_id: int, requested: Any) -> list[dict[str, Any]]:
        """Attachment objects for a request's attachment list (new uploads get an id, a URL,
        their size and content type, and their bytes are kept in :attr:`files`)."""
        made = []
        for item in requested if isinstance(requested, list) else []:
            ident = str(item.get("id", ""))
            upload = None
            if len(ident) < 17:  # an upload's index in the request, not a kept attachment's id
                upload = self._request_uploads.get(ident)
                ident = str(next(self._ids))
            filename = str(item.get("filename") or (upload.filename if upload else "file"))
            url = f"https://cdn.discordapp.com/attachments/{channel_id}/{ident}/{filename}"
            made.append(
                {
                    **item,
                    "id": ident,
                    "filename": filename,
                    "size": len(upload.data) if upload else int(item.get("size") or 0),
                    "url": url,
                    "proxy_url": url.replace("cdn.discordapp.com", "media.discordapp.net"),
                }
            )
            if upload is not None:
                made[-1]["content_type"] = _content_type(filename, upload.data)
                self.files[ident] = upload
        return made

    def _drop_embeds(self, message: FakeMessage, embed_links: bool) -> None:
        # Without Embed Links Discord still takes the message but leaves its embeds out (it used
        # to refuse it with 50013); the message may then show nothing at all.
        if not embed_links and message.data.get("embeds"):
            message.data["embeds"] = []
            if not any(m is message for m in self.embeds_dropped):
                self.embeds_dropped.append(message)

    def _edited(self, message: FakeMessage, body: dict[str, Any]) -> dict[str, Any]:
        """The message as it would be after the edit ``body`` (for validation)."""
        data = message.data
        merged: dict[str, Any] = {
            k: data.get(k) for k in ("content", "embeds", "components", "attachments")
        }
        for key in merged:
            if key in body:
                merged[key] = body[key]
        flags = int(data.get("flags") or 0)
        new = body.get("flags")
        if isinstance(new, int):
            # Only SUPPRESS_EMBEDS can change, and IS_COMPONENTS_V2 be set (never unset).
            flags = (flags & ~_SUPPRESS_EMBEDS) | (new & (_SUPPRESS_EMBEDS | _COMPONENTS_V2))
        merged["flags"] = flags
        if "allowed_mentions" in body:
            merged["allowed_mentions"] = body["allowed_mentions"]
        return merged

    def _check_edit(
        self, message: FakeMessage, body: dict[str, Any], under: str | None = None
    ) -> web.Response | None:
        """The refusal of an edit (``under``: the key errors nest in, "data" for a callback)."""
        merged = self._edited(message, body)
        errors = validate_message(merged)
        if errors:
            return _invalid({under: errors} if under else errors)
        if is_empty(merged):
            return _error(400, 50006, "Cannot send an empty message")
        return None

    def _apply_edit(self, message: FakeMessage, body: dict[str, Any], embed_links: bool) -> None:
        merged = self._edited(message, body)
        data = message.data
        for key in ("content", "embeds", "components", "attachments"):
            if key in body:
                value = merged[key]
                data[key] = value if value is not None else ("" if key == "content" else [])
        if "attachments" in body:
            data["attachments"] = self._attachments(message.channel_id, data["attachments"])
        data["flags"] = merged["flags"] & ~_LOADING
        self._drop_embeds(message, embed_links)
        message.edits += 1
        self.history.append(("edit", message.channel_id, message.id))
        data["edited_timestamp"] = _TIMESTAMP
        if message.audience == "channel":
            self.activity[message.channel_id] = self.activity.get(message.channel_id, 0) + 1

    def _forget(self, message: FakeMessage) -> None:
        message.deleted = True
        self.messages.pop(message.id, None)
        self.history.append(("delete", message.channel_id, message.id))
        self.deleted[message.id] = message
        for lists in (self._channel_messages, self._private_messages):
            for messages in lists.values():
                if message in messages:
                    messages.remove(message)

    def _notify(
        self,
        message: FakeMessage,
        body: dict[str, Any],
        default: frozenset[str],
        dm_recipient: int | None,
    ) -> None:
        """Record whom Discord notifies of the new, non-ephemeral ``message``.

        From its content only (embeds never ping; for Components V2 its text displays) and the
        ``allowed_mentions`` exactly as sent (absent: Discord's default for the kind of message).
        Permissions are not consulted: a server may well let the bot mention everyone and make its
        roles mentionable, so what the message allows is what counts. In a DM only its recipient
        can be notified.
        """
        if message.audience == "ephemeral":
            return
        text = message.content
        if int(message.data.get("flags") or 0) & _COMPONENTS_V2:
            text = "\n".join(
                str(c.get("content") or "")
                for c in _walk(message.data.get("components"))
                if c.get("type") == 10
            )
        allowed = body.get("allowed_mentions")
        if isinstance(allowed, dict):
            parse = set(allowed.get("parse") or [])
            users = {int(u) for u in allowed.get("users") or []}
            roles = {int(r) for r in allowed.get("roles") or []}
        else:
            parse, users, roles = set(default), set(), set()
        found: list[tuple[MentionKind, int | None]] = []
        if dm_recipient is None and "everyone" in parse:
            if "@everyone" in text:
                found.append(("everyone", None))
            if "@here" in text:
                found.append(("here", None))
        for match in _USER_MENTION.findall(text):
            user = int(match)
            if user == BOT_ID or (dm_recipient is not None and user != dm_recipient):
                continue
            if ("users" in parse or user in users) and ("user", user) not in found:
                found.append(("user", user))
        if dm_recipient is None:
            for match in _ROLE_MENTION.findall(text):
                role = int(match)
                if ("roles" in parse or role in roles) and ("role", role) not in found:
                    found.append(("role", role))
        silent = bool(int(body.get("flags") or 0) & _SUPPRESS_NOTIFICATIONS)
        for kind, target in found:
            self.notifications.append(
                Notification(message.id, message.channel_id, kind, target, silent)
            )


def _is_callback(path: str) -> bool:
    parts = path.strip("/").split("/")
    return parts[0] == "interactions" and len(parts) == 4 and parts[3] == "callback"


def _new_attachments(body: Any) -> list[dict[str, Any]]:
    """The attachments a body (or a callback's ``data``) lists that are new uploads."""
    if not isinstance(body, dict):
        return []
    listed = body.get("attachments")
    data = body.get("data")
    if listed is None and isinstance(data, dict):
        listed = data.get("attachments")
    if not isinstance(listed, list):
        return []
    return [a for a in listed if isinstance(a, dict) and len(str(a.get("id", ""))) < 17]


def _content_type(filename: str, data: bytes) -> str:
    """The content type Discord gives an upload: from its name (discord.py sends every file
    as ``application/octet-stream``), text marked UTF-8 when it is."""
    guessed = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    if guessed.startswith("text/"):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return guessed
        return f"{guessed}; charset=utf-8"
    return guessed


def _snowflake(text: str) -> int:
    return int(text) if text.isdigit() else 0


class _Reply(web.Response):
    """A JSON response that keeps the data it was made of (for :attr:`Call.reply`)."""

    def __init__(self, data: Any, status: int) -> None:
        # discord.py parses JSON only when the content type is exactly application/json.
        super().__init__(
            body=json.dumps(data).encode(), status=status, content_type="application/json"
        )
        self.data = data


def _json(data: Any, status: int = 200) -> web.Response:
    return _Reply(data, status)


def _error(status: int, code: int, message: str) -> web.Response:
    return _json({"message": message, "code": code}, status)


def _invalid(errors: dict[str, Any]) -> web.Response:
    return _json({"code": 50035, "message": "Invalid Form Body", "errors": errors}, 400)


def _invalid_at(path: tuple[str | int, ...], code: str, message: str) -> web.Response:
    errors = _Errors()
    errors.add(path, code, message)
    return _invalid(errors.tree)
