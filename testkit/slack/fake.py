"""A fake Slack Web API on 127.0.0.1 that records every call, and a client that signs requests.

It ships with the bot (not only the tests) because ``boardroom bench --adapter slack`` drives the
real Bolt app against it. It answers the methods the adapter uses the way Slack does (``ok``,
``ts``, ``channel``) and refuses what Slack would refuse, so that adapter tests catch it:

- Block Kit beyond its documented limits (:func:`validate_blocks`, :func:`validate_message`,
  :func:`validate_view`): HTTP 200 ``{"ok": false, "error": "invalid_blocks", "errors": [...],
  "response_metadata": {"messages": ["[ERROR] ..."]}}`` (views: ``invalid_arguments``); no text
  and no blocks: ``no_text``; text over 40,000 characters: ``msg_too_long``.
- ``chat.update`` / ``chat.delete`` of a message it never posted in that conversation (a
  channel, a thread of it, or a DM), one deleted, or an ephemeral one: ``message_not_found``.
- Thread replies (``thread_ts``): a malformed ts, or the ts of a reply rather than of its
  parent: ``invalid_thread_ts``; no such parent in that channel (or a deleted one):
  ``thread_not_found``. Replies are kept apart from the channel's own messages
  (:meth:`FakeSlackAPI.channel_messages`, :meth:`FakeSlackAPI.replies`).
- Channels the bot is not in (:meth:`FakeSlackAPI.not_in`): ``not_in_channel``; channels it does
  not know, when :attr:`FakeSlackAPI.channels` is set: ``channel_not_found``; a DM that
  ``conversations.open`` did not open: ``channel_not_found``; users whose DMs cannot be opened
  (:meth:`FakeSlackAPI.close_dms`): the error given.
- ``views.open`` without a fresh, unused ``trigger_id`` issued by :class:`SignedClient`.
- Response URLs (:meth:`FakeSlackAPI.response_url`) used more than 5 times or after 30 minutes.
- Slack's budgets, always (:data:`METHOD_TIERS`): each method is rationed per app per workspace
  (per token) at its tier's minute rate with a modest burst (:data:`TIERS`: ``chat.update`` and
  ``chat.delete`` 50 a minute, ``chat.postEphemeral``, ``views.*``, ``files.*`` and
  ``users.info`` 100...), ``chat.postMessage`` at one a second per conversation (thread replies
  count against their channel, each DM is its own; :meth:`FakeSlackAPI.post_limit`) and
  :data:`POSTS_PER_WORKSPACE` a minute in all. A call past a budget is answered HTTP 429
  ``ratelimited`` with ``Retry-After`` in whole seconds and changes nothing. On top, random
  429s when a test asks (:meth:`FakeSlackAPI.rate_limit`), on any Web API method.
- File uploads, Slack's external flow: ``files.getUploadURLExternal`` needs ``filename`` and an
  integer ``length`` (``invalid_arguments``; a length of 0: ``missing_argument``; ``alt_txt``
  over 1,000 characters: ``alt_txt_too_large``); its ``upload_url`` (on this server) takes one
  POST of exactly ``length`` bytes, raw or as a multipart file (else HTTP 400; an unknown or
  used URL: 404); ``files.completeUploadExternal`` needs ``files`` (a JSON array of ``{id,
  title}``: ``invalid_arguments``) whose every id was issued and uploaded and not completed
  before (``file_not_found``), and shares them in ``channel_id`` (``channels``) only where
  the bot may post (``channel_not_found``, ``not_in_channel``), with ``initial_comment`` as the
  message's text. The shared files are on the :class:`Message` (``files``). An image
  block's ``slack_file`` ``id`` must be such a completed upload (else ``invalid_blocks``).

Only calls Slack accepted go to ``calls`` (and the ``on_call`` listeners); refused ones go to
``refused`` (with ``Call.error``), 429s to ``rate_limited``, and everything to ``received``
(:meth:`FakeSlackAPI.tally` counts them by method, e.g. the calls one press cost). Mentions are
accounted as Slack notifies them (``notifications``, with the thread they were posted in), and
every channel's and thread's posting rate is measured (:meth:`FakeSlackAPI.max_posts_per_s`).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import random
import re
import secrets
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlencode

from aiohttp import ClientSession, web

from testkit.clock import RealClock, held, pause
from testkit.local_server import free_port
from testkit.ratelimits import TokenBucket

__all__ = [
    "FILE_UPLOAD",
    "HANDLED",
    "METHOD_TIERS",
    "POSTS_PER_WORKSPACE",
    "RATE_LIMITED_METHODS",
    "TIERS",
    "Call",
    "FakeSlackAPI",
    "Message",
    "Notification",
    "PostRate",
    "ResponseURL",
    "SignedClient",
    "UploadedFile",
    "sign",
    "validate_blocks",
    "validate_message",
    "validate_view",
]

BOT_USER = "UBOARDROOM"
BOT_ID = "B0BOARD"
TEAM = "T0BOARD"
APP = "A0BOARD"
HANDLED = "boardroom.handled"
"""Not a Slack method: a bot under benchmark in another process calls it once it has answered
a request (``{"user": ...}``), so the load generator knows when the answer is complete."""
FILE_UPLOAD = "upload_url"
"""Not a Slack method: the ``method`` of a :class:`Call` that is a POST to an upload URL."""
DEAD_URL = "http://127.0.0.1:9/unused"
"""The response URL a :class:`SignedClient` without a fake to issue real ones puts in bodies."""

RATE_LIMITED_METHODS = ("chat.*", "conversations.*", "users.*", "views.*", "files.*")
"""What :meth:`FakeSlackAPI.rate_limit` applies to (``*``: any method of that family): every
Web API method the bot calls but ``auth.test`` and ``apps.connections.open``, made once a
process."""

TIERS: dict[int, tuple[float, int]] = {1: (1, 2), 2: (20, 3), 3: (50, 5), 4: (100, 10)}
"""Slack's tiers: calls a minute ("1+", "20+", "50+", "100+" in Slack's table) and the burst
taken at once (Slack tolerates "a small amount of burst", "sporadic bursts": these are modest,
so the fake is at least as strict)."""
METHOD_TIERS: dict[str, int] = {
    "chat.update": 3,
    "chat.delete": 3,
    "conversations.open": 3,
    "chat.postEphemeral": 4,
    "views.open": 4,
    "views.update": 4,
    "views.publish": 4,
    "files.getUploadURLExternal": 4,
    "files.completeUploadExternal": 4,
    "users.info": 4,
    "auth.test": 4,
    "apps.connections.open": 1,
}
"""Each method's tier, from its page of Slack's reference (``chat.postMessage`` is special: see
:meth:`FakeSlackAPI.post_limit` and :data:`POSTS_PER_WORKSPACE`)."""
POSTS_PER_WORKSPACE = (300.0, 20)
"""``chat.postMessage`` in all of a workspace: Slack keeps "a workspace-wide limit" it does not
publish; 300 a minute (burst 20) is this fake's figure for it."""

# --- Block Kit's documented limits --------------------------------------------------------------

MAX_MESSAGE_BLOCKS = 50
MAX_MODAL_BLOCKS = 100
MAX_MESSAGE_TEXT = 40_000
MAX_BLOCK_ID = 255
MAX_ACTION_ID = 255
MAX_SECTION_TEXT = 3000
MAX_FIELDS = 10
MAX_FIELD_TEXT = 2000
MAX_HEADER = 150
MAX_ACTIONS = 25
MAX_CONTEXT = 10
MAX_CONTEXT_TEXT = 3000
MAX_URL = 3000
MAX_ALT_TEXT = 2000
MAX_IMAGE_TITLE = 2000
MAX_BUTTON_TEXT = 75
MAX_BUTTON_VALUE = 2000
MAX_PLACEHOLDER = 150
MAX_OPTIONS = 100
MAX_OPTION_GROUPS = 100
MAX_OPTION_TEXT = 75
MAX_OPTION_VALUE = 150
MAX_OPTION_DESCRIPTION = 75
MAX_OVERFLOW_OPTIONS = 5
MAX_CHOICE_OPTIONS = 10
MAX_INPUT_LABEL = 2000
MAX_VIEW_TITLE = 24
MAX_VIEW_BUTTON = 24
MAX_CALLBACK_ID = 255
MAX_PRIVATE_METADATA = 3000
MAX_EXTERNAL_ID = 255

MAX_FILE_ALT = 1000
"""Characters of an upload's ``alt_txt`` (``alt_txt_too_large`` beyond)."""
RESPONSE_URL_USES = 5
RESPONSE_URL_TTL_S = 30 * 60.0
TRIGGER_TTL_S = 3.0

_TEXT_PROPS = {"plain_text": {"type", "text", "emoji"}, "mrkdwn": {"type", "text", "verbatim"}}
_BLOCK_PROPS = {
    "section": {"type", "block_id", "text", "fields", "accessory", "expand"},
    "header": {"type", "block_id", "text"},
    "actions": {"type", "block_id", "elements"},
    "context": {"type", "block_id", "elements"},
    "divider": {"type", "block_id"},
    "image": {"type", "block_id", "image_url", "slack_file", "alt_text", "title"},
    "input": {"type", "block_id", "label", "element", "dispatch_action", "hint", "optional"},
    "rich_text": {"type", "block_id", "elements"},
}
_SELECT_PROPS = {
    "type",
    "action_id",
    "placeholder",
    "options",
    "option_groups",
    "initial_option",
    "confirm",
    "focus_on_load",
}
_ELEMENT_PROPS = {
    "button": {"type", "text", "action_id", "url", "value", "style", "confirm"}
    | {"accessibility_label"},
    "static_select": _SELECT_PROPS,
    "multi_static_select": (_SELECT_PROPS - {"initial_option"})
    | {"initial_options", "max_selected_items"},
    "overflow": {"type", "action_id", "options", "confirm"},
    "image": {"type", "image_url", "slack_file", "alt_text"},
}
_OTHER_INTERACTIVE = {
    "checkboxes",
    "datepicker",
    "datetimepicker",
    "radio_buttons",
    "external_select",
    "users_select",
    "conversations_select",
    "channels_select",
    "multi_external_select",
    "multi_users_select",
    "multi_conversations_select",
    "multi_channels_select",
    "timepicker",
    "workflow_button",
}
_ACTION_ELEMENTS = {"button", "static_select", "multi_static_select", "overflow"}
_ACTION_ELEMENTS |= _OTHER_INTERACTIVE
_ACCESSORIES = (_ACTION_ELEMENTS - {"datetimepicker"}) | {"image"}
_INPUT_ELEMENTS = (_ACTION_ELEMENTS - {"button", "overflow", "workflow_button"}) | {
    "plain_text_input",
    "email_text_input",
    "url_text_input",
    "number_input",
    "rich_text_input",
    "file_input",
}
_STYLES = ("primary", "danger")

Node = dict[str, Any]


def _one_of(values: tuple[str, ...]) -> str:
    return "must match one of " + json.dumps(list(values))


class _Checker:
    """Walks one message's (or view's) blocks, collecting Slack's kind of error strings."""

    def __init__(self, modal: bool) -> None:
        self.modal = modal
        self.errors: list[str] = []
        self.action_ids: dict[str, str] = {}
        self.block_ids: dict[str, str] = {}
        self.inputs = 0

    def error(self, message: str, path: str) -> None:
        self.errors.append(f"{message} [json-pointer:{path}]")

    # --- primitives ------------------------------------------------------------------------

    def obj(self, node: object, path: str) -> Node | None:
        if isinstance(node, dict):
            return node
        self.error("must provide an object", path)
        return None

    def props(self, node: Node, allowed: set[str], path: str) -> None:
        for key in node:
            if key not in allowed:
                self.error(f"invalid additional property: {key}", path)

    def string(
        self, node: Node, key: str, path: str, limit: int, *, required: bool = False
    ) -> str | None:
        if key not in node:
            if required:
                self.error(f"missing required field: {key}", path)
            return None
        value = node[key]
        where = f"{path}/{key}"
        if not isinstance(value, str):
            self.error("must be a string", where)
            return None
        if not value:
            self.error("must be more than 0 characters", where)
        elif len(value) > limit:
            self.error(f"must be less than {limit + 1} characters", where)
        return value

    def url(self, node: Node, key: str, path: str, *, required: bool = False) -> None:
        value = self.string(node, key, path, MAX_URL, required=required)
        if value and not value.startswith(("http://", "https://")):
            self.error("must be a valid URL", f"{path}/{key}")

    def array(
        self, node: Node, key: str, path: str, limit: int, *, required: bool = True
    ) -> list[Any] | None:
        if key not in node:
            if required:
                self.error(f"missing required field: {key}", path)
            return None
        value = node[key]
        where = f"{path}/{key}"
        if not isinstance(value, list):
            self.error("must provide an array", where)
            return None
        if not value:
            self.error("must provide at least 1 item", where)
        elif len(value) > limit:
            self.error(f"must be less than {limit + 1} items", where)
        return value

    def text(
        self,
        node: Node,
        key: str,
        path: str,
        limit: int,
        *,
        plain: bool = False,
        required: bool = True,
    ) -> Node | None:
        """A text object: plain_text (or mrkdwn unless ``plain``) with 1..limit characters."""
        if key not in node:
            if required:
                self.error(f"missing required field: {key}", path)
            return None
        return self.text_object(node[key], f"{path}/{key}", limit, plain=plain)

    def text_object(self, value: object, path: str, limit: int, *, plain: bool) -> Node | None:
        node = self.obj(value, path)
        if node is None:
            return None
        allowed = ("plain_text",) if plain else ("plain_text", "mrkdwn")
        kind = node.get("type")
        if kind not in allowed:
            self.error(_one_of(allowed), f"{path}/type")
            return None
        self.props(node, _TEXT_PROPS[str(kind)], path)
        self.string(node, "text", path, limit, required=True)
        for flag in ("emoji", "verbatim"):
            if flag in node and not isinstance(node[flag], bool):
                self.error("must be a boolean", f"{path}/{flag}")
        return node

    def unique(self, seen: dict[str, str], value: str, what: str, path: str) -> None:
        if value in seen:
            self.error(f"{what} {value!r} is not unique (also at {seen[value]})", path)
        else:
            seen[value] = path

    # --- blocks ----------------------------------------------------------------------------

    def blocks(self, blocks: object, path: str) -> None:
        if not isinstance(blocks, list):
            self.error("must provide an array", path)
            return
        limit = MAX_MODAL_BLOCKS if self.modal else MAX_MESSAGE_BLOCKS
        if len(blocks) > limit:
            self.error(f"must be less than {limit + 1} items", path)
        for index, block in enumerate(blocks):
            self.block(block, f"{path}/{index}")

    def block(self, value: object, path: str) -> None:
        node = self.obj(value, path)
        if node is None:
            return
        kind = node.get("type")
        if (
            not isinstance(kind, str)
            or kind not in _BLOCK_PROPS
            or (kind == "input" and not self.modal)
        ):
            self.error(f"unsupported block type: {kind!r}", f"{path}/type")
            return
        self.props(node, _BLOCK_PROPS[kind], path)
        block_id = self.string(node, "block_id", path, MAX_BLOCK_ID)
        if block_id:
            self.unique(self.block_ids, block_id, "block_id", f"{path}/block_id")
        getattr(self, f"block_{kind}")(node, path)

    def block_section(self, node: Node, path: str) -> None:
        if "text" not in node and "fields" not in node:
            self.error("must provide text or fields", path)
        self.text(node, "text", path, MAX_SECTION_TEXT, required=False)
        fields = self.array(node, "fields", path, MAX_FIELDS, required=False) or []
        for index, item in enumerate(fields):
            self.text_object(item, f"{path}/fields/{index}", MAX_FIELD_TEXT, plain=False)
        if "accessory" in node:
            self.element(node["accessory"], f"{path}/accessory", _ACCESSORIES)
        if "expand" in node and not isinstance(node["expand"], bool):
            self.error("must be a boolean", f"{path}/expand")

    def block_header(self, node: Node, path: str) -> None:
        self.text(node, "text", path, MAX_HEADER, plain=True)

    def block_actions(self, node: Node, path: str) -> None:
        for index, item in enumerate(self.array(node, "elements", path, MAX_ACTIONS) or []):
            self.element(item, f"{path}/elements/{index}", _ACTION_ELEMENTS)

    def block_context(self, node: Node, path: str) -> None:
        for index, item in enumerate(self.array(node, "elements", path, MAX_CONTEXT) or []):
            where = f"{path}/elements/{index}"
            if isinstance(item, dict) and item.get("type") == "image":
                self.element(item, where, {"image"})
            else:
                self.text_object(item, where, MAX_CONTEXT_TEXT, plain=False)

    def block_divider(self, node: Node, path: str) -> None:
        pass

    def block_image(self, node: Node, path: str) -> None:
        self.image_source(node, path)
        self.string(node, "alt_text", path, MAX_ALT_TEXT, required=True)
        self.text(node, "title", path, MAX_IMAGE_TITLE, plain=True, required=False)

    def block_input(self, node: Node, path: str) -> None:
        self.inputs += 1
        self.text(node, "label", path, MAX_INPUT_LABEL, plain=True)
        self.text(node, "hint", path, MAX_INPUT_LABEL, plain=True, required=False)
        if "element" not in node:
            self.error("missing required field: element", path)
        else:
            self.element(node["element"], f"{path}/element", _INPUT_ELEMENTS)

    def block_rich_text(self, node: Node, path: str) -> None:
        for index, item in enumerate(self.array(node, "elements", path, 10_000) or []):
            element = self.obj(item, f"{path}/elements/{index}")
            if element is not None and not isinstance(element.get("type"), str):
                self.error("missing required field: type", f"{path}/elements/{index}")

    # --- elements --------------------------------------------------------------------------

    def image_source(self, node: Node, path: str) -> None:
        if "slack_file" in node:
            self.obj(node["slack_file"], f"{path}/slack_file")
            if "image_url" in node:
                self.error("must provide either image_url or slack_file, not both", path)
        else:
            self.url(node, "image_url", path, required=True)

    def element(self, value: object, path: str, allowed: set[str]) -> None:
        node = self.obj(value, path)
        if node is None:
            return
        kind = node.get("type")
        if not isinstance(kind, str) or kind not in allowed:
            self.error(f"unsupported element type: {kind!r}", f"{path}/type")
            return
        if kind in _ELEMENT_PROPS:
            self.props(node, _ELEMENT_PROPS[kind], path)
        if kind != "image":
            action_id = self.string(node, "action_id", path, MAX_ACTION_ID)
            if action_id:
                # Slack refuses two interactive elements with one action_id in a message.
                self.unique(self.action_ids, action_id, "action_id", f"{path}/action_id")
        if "confirm" in node:
            self.confirm(node["confirm"], f"{path}/confirm")
        if kind == "button":
            self.button(node, path)
        elif kind in ("static_select", "multi_static_select"):
            self.select(node, path, multi=kind.startswith("multi_"))
        elif kind == "overflow":
            for index, item in enumerate(
                self.array(node, "options", path, MAX_OVERFLOW_OPTIONS) or []
            ):
                self.option(item, f"{path}/options/{index}", {}, overflow=True)
        elif kind == "image":
            self.image_source(node, path)
            self.string(node, "alt_text", path, MAX_ALT_TEXT, required=True)
        elif kind in ("checkboxes", "radio_buttons"):
            self.array(node, "options", path, MAX_CHOICE_OPTIONS)

    def button(self, node: Node, path: str) -> None:
        self.text(node, "text", path, MAX_BUTTON_TEXT, plain=True)
        self.string(node, "value", path, MAX_BUTTON_VALUE)
        self.url(node, "url", path)
        self.string(node, "accessibility_label", path, MAX_BUTTON_TEXT)
        if "style" in node and node["style"] not in _STYLES:
            self.error(_one_of(_STYLES), f"{path}/style")

    def confirm(self, value: object, path: str) -> None:
        node = self.obj(value, path)
        if node is None:
            return
        self.props(node, {"title", "text", "confirm", "deny", "style"}, path)
        self.text(node, "title", path, 100, plain=True)
        self.text(node, "text", path, 300)
        self.text(node, "confirm", path, 30, plain=True)
        self.text(node, "deny", path, 30, plain=True)
        if "style" in node and node["style"] not in _STYLES:
            self.error(_one_of(_STYLES), f"{path}/style")

    def select(self, node: Node, path: str, multi: bool) -> None:
        self.text(node, "placeholder", path, MAX_PLACEHOLDER, plain=True, required=False)
        values: dict[str, str] = {}
        if "options" in node and "option_groups" in node:
            self.error("must provide either options or option_groups, not both", path)
        elif "options" not in node and "option_groups" not in node:
            self.error("missing required field: options or option_groups", path)
        for index, item in enumerate(
            self.array(node, "options", path, MAX_OPTIONS, required=False) or []
        ):
            self.option(item, f"{path}/options/{index}", values)
        groups = self.array(node, "option_groups", path, MAX_OPTION_GROUPS, required=False)
        for index, item in enumerate(groups or []):
            where = f"{path}/option_groups/{index}"
            group = self.obj(item, where)
            if group is None:
                continue
            self.props(group, {"label", "options"}, where)
            self.text(group, "label", where, MAX_OPTION_TEXT, plain=True)
            for number, option in enumerate(self.array(group, "options", where, MAX_OPTIONS) or []):
                self.option(option, f"{where}/options/{number}", values)
        if multi:
            if "max_selected_items" in node:
                most = node["max_selected_items"]
                if isinstance(most, bool) or not isinstance(most, int):
                    self.error("must be an integer", f"{path}/max_selected_items")
                elif most < 1:
                    self.error("must be at least 1", f"{path}/max_selected_items")
            initial = node.get("initial_options")
            chosen = initial if isinstance(initial, list) else []
            for index, option in enumerate(chosen):
                self.initial(option, values, f"{path}/initial_options/{index}")
        elif "initial_option" in node:
            self.initial(node["initial_option"], values, f"{path}/initial_option")

    def initial(self, option: object, values: dict[str, str], path: str) -> None:
        value = option.get("value") if isinstance(option, dict) else None
        if value not in values:
            self.error("must match one of the provided options", path)

    def option(
        self, value: object, path: str, values: dict[str, str], *, overflow: bool = False
    ) -> None:
        node = self.obj(value, path)
        if node is None:
            return
        allowed = {"text", "value", "description"} | ({"url"} if overflow else set())
        self.props(node, allowed, path)
        self.text(node, "text", path, MAX_OPTION_TEXT, plain=True)
        option_value = self.string(node, "value", path, MAX_OPTION_VALUE, required=True)
        self.text(node, "description", path, MAX_OPTION_DESCRIPTION, plain=True, required=False)
        if overflow:
            self.url(node, "url", path)
        if option_value is not None and not overflow:
            self.unique(values, option_value, "option value", f"{path}/value")


def _block_errors(blocks: object, path: str, modal: bool) -> tuple[list[str], int]:
    checker = _Checker(modal)
    checker.blocks(blocks, path)
    return checker.errors, checker.inputs


def validate_blocks(blocks: list[dict[str, Any]], *, modal: bool = False) -> list[str]:
    """What Slack would refuse in ``blocks`` (of a message, or of a modal with ``modal``).

    Each error reads like Slack's, ending with a JSON pointer:
    ``must be less than 3001 characters [json-pointer:/blocks/0/text/text]``. Empty: valid.
    """
    return _block_errors(blocks, "/blocks", modal)[0]


def _parsed_blocks(raw: object) -> tuple[list[Any] | None, str | None]:
    """The blocks argument as a list (it may arrive as a JSON string); else why not."""
    if raw is None or raw == "":
        return None, None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            return None, "blocks is not valid JSON [json-pointer:/blocks]"
    if not isinstance(raw, list):
        return None, "must provide an array [json-pointer:/blocks]"
    return raw, None


def _message_refusal(args: dict[str, Any]) -> tuple[str, list[str]] | None:
    """The Slack error code and messages refusing a message's ``text``/``blocks``, or None."""
    blocks, malformed = _parsed_blocks(args.get("blocks"))
    if malformed:
        return "invalid_blocks_format", [malformed]
    if blocks is not None:
        errors = validate_blocks(blocks)
        if errors:
            return "invalid_blocks", errors
    text = args.get("text")
    if text is not None and not isinstance(text, str):
        return "invalid_arguments", ["must be a string [json-pointer:/text]"]
    if text and len(text) > MAX_MESSAGE_TEXT:
        return "msg_too_long", [f"text is longer than {MAX_MESSAGE_TEXT} characters"]
    if not text and not blocks and not args.get("attachments"):
        return "no_text", ["a message needs text or blocks"]
    return None


def validate_message(args: dict[str, Any]) -> list[str]:
    """What Slack would refuse in a message's arguments (``chat.postMessage``,
    ``chat.postEphemeral``, ``chat.update`` or a response URL payload): empty when valid.

    Block errors read like :func:`validate_blocks`'; a message-level refusal starts with its
    Slack error code (``no_text: ...``, ``msg_too_long: ...``).
    """
    refusal = _message_refusal(args)
    if refusal is None:
        return []
    code, errors = refusal
    if code in ("invalid_blocks", "invalid_blocks_format", "invalid_arguments"):
        return errors
    return [f"{code}: {e}" for e in errors]


def validate_view(view: object) -> list[str]:
    """What Slack would refuse in a modal view (``views.open`` / ``views.update``)."""
    checker = _Checker(modal=True)
    node = checker.obj(view, "/view")
    if node is None:
        return checker.errors
    checker.props(
        node,
        {
            "type",
            "title",
            "blocks",
            "close",
            "submit",
            "private_metadata",
            "callback_id",
            "clear_on_close",
            "notify_on_close",
            "external_id",
            "submit_disabled",
        },
        "/view",
    )
    if node.get("type") != "modal":
        checker.error(_one_of(("modal",)), "/view/type")
    checker.text(node, "title", "/view", MAX_VIEW_TITLE, plain=True)
    checker.text(node, "submit", "/view", MAX_VIEW_BUTTON, plain=True, required=False)
    checker.text(node, "close", "/view", MAX_VIEW_BUTTON, plain=True, required=False)
    checker.string(node, "callback_id", "/view", MAX_CALLBACK_ID)
    checker.string(node, "external_id", "/view", MAX_EXTERNAL_ID)
    if node.get("private_metadata"):  # may be empty
        checker.string(node, "private_metadata", "/view", MAX_PRIVATE_METADATA)
    if "blocks" not in node:
        checker.error("missing required field: blocks", "/view")
    else:
        checker.blocks(node["blocks"], "/view/blocks")
    if checker.inputs and "submit" not in node:
        checker.error("missing required field: submit (the view has input blocks)", "/view")
    return checker.errors


MAX_VIEW_BYTES = 250_000
"""Slack's largest view (``view_too_large``)."""


def validate_home_view(view: object) -> list[str]:
    """What Slack would refuse in a Home tab's view (``views.publish``): ``type: home``, its
    blocks (a view's limits), and none of a modal's title or buttons."""
    checker = _Checker(modal=True)
    node = checker.obj(view, "/view")
    if node is None:
        return checker.errors
    checker.props(
        node, {"type", "blocks", "private_metadata", "callback_id", "external_id"}, "/view"
    )
    if node.get("type") != "home":
        checker.error(_one_of(("home",)), "/view/type")
    checker.string(node, "callback_id", "/view", MAX_CALLBACK_ID)
    checker.string(node, "external_id", "/view", MAX_EXTERNAL_ID)
    if node.get("private_metadata"):
        checker.string(node, "private_metadata", "/view", MAX_PRIVATE_METADATA)
    if "blocks" not in node:
        checker.error("missing required field: blocks", "/view")
    else:
        checker.blocks(node["blocks"], "/view/blocks")
    return checker.errors


def _manifest_home_tab() -> bool:
    """Whether the app's manifest (``slack-manifest.json`` beside this package) enables the
    Home tab, as Slack's app configuration would."""
    manifest = Path(__file__).resolve().parents[2] / "slack-manifest.json"
    try:
        features = json.loads(manifest.read_text()).get("features", {})
    except (OSError, ValueError):
        return False
    return bool(features.get("app_home", {}).get("home_tab_enabled"))


# --- mentions -----------------------------------------------------------------------------------

_MENTION = re.compile(
    r"<(?:@(?P<user>[UW][A-Z0-9]+)|!(?P<broadcast>here|channel|everyone|group)"
    r"|!subteam\^(?P<group>[A-Z0-9]+))(?:\|[^<>]*)?>"
)


def _mentions(text: str) -> list[tuple[str, str]]:
    """``(kind, target)`` of every mention that notifies in one mrkdwn string."""
    found = []
    for match in _MENTION.finditer(text):
        if match["user"]:
            found.append(("user", match["user"]))
        elif match["group"]:
            found.append(("group", match["group"]))
        else:
            word = "channel" if match["broadcast"] == "group" else str(match["broadcast"])
            found.append((word, word))
    return found


def _pinging_texts(blocks: list[Any]) -> list[str]:
    """Every mrkdwn string in ``blocks`` (section text and fields, context elements)."""
    texts = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        candidates: list[Any] = []
        if block.get("type") == "section":
            candidates = [block.get("text"), *(block.get("fields") or [])]
        elif block.get("type") == "context":
            candidates = list(block.get("elements") or [])
        for item in candidates:
            if isinstance(item, dict) and item.get("type") == "mrkdwn":
                texts.append(str(item.get("text", "")))
    return texts


def _rich_text_mentions(node: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "user" and node.get("user_id"):
            found.append(("user", str(node["user_id"])))
        elif kind == "usergroup" and node.get("usergroup_id"):
            found.append(("group", str(node["usergroup_id"])))
        elif kind == "broadcast" and node.get("range") in ("here", "channel", "everyone"):
            found.append((str(node["range"]), str(node["range"])))
        for value in node.values():
            found += _rich_text_mentions(value)
    elif isinstance(node, list):
        for item in node:
            found += _rich_text_mentions(item)
    return found


# --- records ------------------------------------------------------------------------------------


@dataclass
class Call:
    """One Web API call (or response URL post) as the fake received it."""

    method: str
    args: dict[str, Any]
    at: float = field(default_factory=time.monotonic)
    """When it arrived, by the fake's clock."""
    ts: str | None = None
    """The message ts the fake answered with, for posts (and the one edited, for edits)."""
    error: str | None = None
    """The Slack error code it was refused with (``ratelimited`` for a 429); None if accepted."""
    channel: str | None = None
    """The conversation it acted on (for response URL posts: the interaction's)."""
    url: str | None = None
    """For ``method="response_url"``: the response URL posted to."""

    @property
    def blocks(self) -> list[dict[str, Any]]:
        raw = self.args.get("blocks") or []
        return list(json.loads(raw) if isinstance(raw, str) else raw)


@dataclass
class UploadedFile:
    """A file uploaded through the external flow, from its upload URL to its shares."""

    id: str
    filename: str
    length: int
    alt_txt: str | None
    snippet_type: str | None
    upload_url: str
    data: bytes | None = None
    """What was POSTed to the upload URL (None until then)."""
    title: str | None = None
    completed: bool = False
    shares: list[tuple[str, str]] = field(default_factory=list)
    """(channel, ts) of each message it was shared in."""


@dataclass
class Message:
    """A message the fake holds, as its readers see it now."""

    channel: str
    ts: str
    text: str
    blocks: list[dict[str, Any]]
    posted: Call
    ephemeral: bool = False
    user: str | None = None
    """An ephemeral message's only reader."""
    thread_ts: str | None = None
    """The parent's ts when this is a reply in a thread (None: a message of the channel)."""
    deleted: bool = False
    edits: list[Call] = field(default_factory=list)
    """``chat.update`` calls and response URL ``replace_original`` posts applied to it."""
    files: list[UploadedFile] = field(default_factory=list)
    """Files shared with it (``files.completeUploadExternal``; its text the initial comment)."""


@dataclass
class Notification:
    """Someone Slack notified because of a posted message."""

    call: Call
    channel: str
    kind: str
    """``user``, ``group`` (a user group), ``here``, ``channel`` or ``everyone``."""
    target: str
    """The user or user group id; for the three broadcasts, the same word as ``kind``."""
    thread: str | None = None
    """The thread the message was posted in (None: the channel itself)."""


@dataclass(frozen=True)
class PostRate:
    """How fast messages were posted in one conversation (measured, never refused)."""

    posts: int
    peak: int
    """The most posts within any one second."""
    sustained: float
    """Posts per second over the time from the first post to the last (at least a second)."""


@dataclass
class ResponseURL:
    """A response URL the fake issued, and the interaction it belongs to."""

    token: str
    url: str
    channel: str | None
    user: str | None
    message_ts: str | None
    """The message the interaction came from (None for a slash command)."""
    ephemeral: bool
    issued_at: float
    uses: int = 0
    last_ts: str | None = None
    """The newest message posted through it (what a slash command's replace_original edits)."""


def _trigger_tag(body: str) -> str:
    return hmac.new(b"boardroom-fake-slack", body.encode(), hashlib.sha256).hexdigest()[:12]


_USER_ID = re.compile(r"[UW][A-Z0-9]+")
_TS = re.compile(r"\d+\.\d+")
_TRIGGER = re.compile(r"(\d+)\.(\d+)\.([0-9a-f]{12})")


def _normalized(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _json(body: dict[str, Any], status: int = 200, **headers: str) -> web.Response:
    return web.json_response(body, status=status, headers=headers or None)


def _refusal_body(code: str, errors: list[str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"ok": False, "error": code}
    if errors:
        body["errors"] = errors
        body["response_metadata"] = {"messages": [f"[ERROR] {e}" for e in errors]}
    return body


class FakeSlackAPI:
    """An aiohttp server speaking enough of ``https://slack.com/api/`` for the adapter.

    ``calls`` holds every accepted call in arrival order; ``on_call`` callbacks see each as it
    is accepted (the bench uses them to time answers). ``socket_url`` is what
    ``apps.connections.open`` hands a Socket Mode client. ``clock`` (monotonic seconds by
    default) times response URLs, triggers issued through it and posting rates; a test may
    replace it to move time on, or give the bot's table the same
    :class:`~testkit.clock.VirtualClock` so that pacing is counted in the time the table keeps
    (a :class:`SignedClient` holds that clock while its request waits for the HTTP answer).
    """

    running: ClassVar[list[FakeSlackAPI]] = []
    """The fakes serving in this process (a :class:`SignedClient` without ``api`` uses the
    only one, if exactly one is running)."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self.calls: list[Call] = []
        self.refused: list[Call] = []
        self.rate_limited: list[Call] = []
        self.received: list[Call] = []
        self.on_call: list[Callable[[Call], None]] = []
        self.socket_url: str | None = None
        self.fail: dict[str, str] = {}
        """Method name -> Slack error code to answer with (e.g. ``message_not_found``)."""
        self.latency_s = 0.0
        """How long each Web API call takes to be answered (Slack's own take tens of ms), on
        ``clock``: makes deliveries that run at once overlap."""
        self.notifications: list[Notification] = []
        self.messages: dict[tuple[str, str], Message] = {}
        """(channel, ts) -> every message posted, ephemeral ones and deleted ones included."""
        self.users: dict[str, dict[str, Any]] = {
            BOT_USER: {"name": "boardroom", "real_name": "Boardroom", "is_bot": True}
        }
        """User id -> what ``users.info`` says (``name``, ``real_name``, ``display_name``, or a
        ``profile``); anything left out defaults to the id's lowercase handle. Any well-formed
        user id exists (Slack knows everyone who can press a button); ``missing_users`` and
        malformed ids answer ``user_not_found``."""
        self.missing_users: set[str] = set()
        """Users ``users.info`` does not find (deleted, or from another workspace)."""
        self.closed_dms: dict[str, str] = {}
        """User -> the error ``conversations.open`` answers for them (:meth:`close_dms`)."""
        self.channels: set[str] | None = None
        """When a set: the conversations that exist (with the DMs ``conversations.open``
        opened); chat methods elsewhere answer ``channel_not_found``."""
        self.views: dict[str, dict[str, Any]] = {}
        self.homes: dict[str, dict[str, Any]] = {}
        """User -> the Home tab view last published for them (``views.publish``)."""
        self.home_tab_enabled = _manifest_home_tab()
        """Whether the app's configuration enables the Home tab (else ``views.publish`` of a
        home view answers ``not_enabled``): as the project's manifest says."""
        self.files: dict[str, UploadedFile] = {}
        """Every upload ``files.getUploadURLExternal`` started, by file id."""
        self._upload_urls: dict[str, str] = {}
        """Upload URL token -> file id."""
        self.response_urls: dict[str, ResponseURL] = {}
        self.response_url_uses = RESPONSE_URL_USES
        self.response_url_ttl_s = RESPONSE_URL_TTL_S
        self.trigger_ttl_s = TRIGGER_TTL_S
        self.clock: Callable[[], float] = clock or RealClock()
        self.url = ""
        self.root = ""
        self._not_in: set[str] = set()
        self._dms: dict[str, str] = {}
        self._triggers: dict[str, float] = {}
        self._exchanged: set[str] = set()
        self._posts: dict[tuple[str, str | None], list[float]] = {}
        """(channel, None) -> when every message was posted there, thread replies included;
        (channel, "") -> when each of the channel's own messages was; (channel, thread ts) ->
        when each reply of that thread was."""
        self._limit: tuple[float, random.Random, int] | None = None
        self._post_limit: tuple[int, float] | None = (1, 1.0)
        self.tiers: dict[str, int] = dict(METHOD_TIERS)
        """Each rationed method's tier (a test may change one; a method left out is rationed
        only by :meth:`rate_limit`)."""
        self.over_budget = 0
        """Calls answered 429 for being past a budget (a tier, a conversation's posts), not
        drawn at random by :meth:`rate_limit`."""
        self.posts_per_workspace: tuple[float, int] | None = POSTS_PER_WORKSPACE
        """``chat.postMessage`` in all of a workspace: a minute's worth and its burst (None:
        not rationed)."""
        self._buckets: dict[tuple[str, str], TokenBucket] = {}
        """(token, method) -> its bucket: per app per workspace, as Slack counts."""
        self._ts = itertools.count(1)
        self._view_ids = itertools.count(1)
        self._file_ids = itertools.count(1)
        self._runner: web.AppRunner | None = None

    async def start(self, port: int = 0) -> str:
        """Serve on 127.0.0.1 (a free port by default); returns the base URL, with its slash."""
        app = web.Application()
        app.router.add_post("/api/{method}", self._handle)
        app.router.add_get("/api/{method}", self._handle)
        app.router.add_post("/response/{token}", self._respond)
        app.router.add_post("/upload/{token}", self._upload)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        port = port or free_port()
        await web.TCPSite(self._runner, "127.0.0.1", port).start()
        self.root = f"http://127.0.0.1:{port}/"
        self.url = f"{self.root}api/"
        FakeSlackAPI.running.append(self)
        return self.url

    async def close(self) -> None:
        if self in FakeSlackAPI.running:
            FakeSlackAPI.running.remove(self)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # --- what a test arranges or reads ------------------------------------------------------

    def called(self, *methods: str) -> list[Call]:
        return [c for c in self.calls if c.method in methods]

    def forget_records(self) -> None:
        """Drop what the fake recorded of the calls so far (messages, calls, posting times,
        triggers, response URLs, files): a long bench's memory is then the bot's, not the
        fake's. Budgets and the DMs opened stand."""
        for kept in (self.messages, self.response_urls, self.files, self._posts, self._triggers):
            kept.clear()
        for made in (self.calls, self.received, self.refused, self.rate_limited):
            made.clear()
        self.notifications.clear()
        self._upload_urls.clear()
        self._exchanged.clear()

    def not_in(self, channel: str) -> None:
        """The bot is not a member of ``channel`` (e.g. a private one, where
        ``chat:write.public`` does not help): posts there answer ``not_in_channel``."""
        self._not_in.add(channel)

    def join(self, channel: str) -> None:
        """Undo :meth:`not_in`."""
        self._not_in.discard(channel)

    def rate_limit(self, ratio: float, seed: int = 0, retry_after: int = 0) -> None:
        """Answer that fraction of calls to :data:`RATE_LIMITED_METHODS` with HTTP 429
        (``Retry-After: retry_after``, ``{"ok": false, "error": "ratelimited"}``), chosen by a
        ``random.Random(seed)``; ``ratio=0`` stops it."""
        self._limit = (ratio, random.Random(seed), retry_after) if ratio > 0 else None

    def post_limit(self, posts: int = 1, window_s: float = 1.0) -> None:
        """Refuse ``chat.postMessage`` into a conversation that had ``posts`` messages posted
        within the last ``window_s`` seconds of ``clock`` (thread replies count against their
        channel; each DM is a conversation of its own): HTTP 429 ``ratelimited`` with
        ``Retry-After: 1``, as Slack answers past its one message a second per channel (it
        tolerates short bursts: ``posts`` above 1 allows them). On from the start with Slack's
        one a second; ``posts=0`` turns it off."""
        self._post_limit = (posts, window_s) if posts > 0 else None

    def _over_post_limit(self, method: str, args: dict[str, Any]) -> bool:
        if self._post_limit is None or method != "chat.postMessage":
            return False
        posts, window = self._post_limit
        now = self.clock()
        recent = 0
        for at in reversed(self._posts.get((str(args.get("channel", "")), None), [])):
            if now - at >= window:
                break
            recent += 1
        return recent >= posts

    def delete(self, channel: str, ts: str) -> None:
        """Someone deleted the message ``ts`` in ``channel`` (a test's doing, not the bot's)."""
        message = self.messages.get((channel, ts))
        if message is None:
            raise KeyError(f"no message {ts} in {channel}")
        message.deleted = True

    def message(self, channel: str, ts: str) -> Message | None:
        return self.messages.get((channel, ts))

    def channel_messages(self, channel: str, deleted: bool = False) -> list[Message]:
        """The messages everyone sees in ``channel`` itself (not thread replies, not ephemeral
        ones), oldest first; with ``deleted``, the deleted ones too."""
        return [
            m
            for m in self.messages.values()
            if m.channel == channel
            and m.thread_ts is None
            and not m.ephemeral
            and (deleted or not m.deleted)
        ]

    def replies(self, channel: str, thread: str, deleted: bool = False) -> list[Message]:
        """The replies in the thread of message ``thread`` in ``channel``, oldest first."""
        return [
            m
            for m in self.messages.values()
            if m.channel == channel
            and m.thread_ts == thread
            and not m.ephemeral
            and (deleted or not m.deleted)
        ]

    def close_dms(self, user: str, error: str = "user_disabled") -> None:
        """The bot cannot DM ``user``: ``conversations.open`` answers ``error`` for them."""
        self.closed_dms[user] = error

    def tally(self, since: int = 0) -> Counter[str]:
        """Every call received from index ``since`` of ``received`` on, by method: Web API
        methods, response URL posts (``response_url``) and uploads (``upload_url``), accepted,
        refused or answered 429 alike (each is a request the bot made); ``boardroom.handled``
        left out."""
        return Counter(c.method for c in self.received[since:] if c.method != HANDLED)

    def add_user(
        self,
        user: str,
        display_name: str | None = None,
        real_name: str | None = None,
        name: str | None = None,
    ) -> None:
        """Make ``user`` known to ``users.info`` (with these names, when given)."""
        entry = self.users.setdefault(user, {})
        for key, value in (("display_name", display_name), ("real_name", real_name)):
            if value is not None:
                entry[key] = value
        if name is not None:
            entry["name"] = name

    def handle(self, user: str) -> str:
        """The user's handle (``name``), as a slash command's ``user_name`` carries it."""
        return str(self.users.get(user, {}).get("name") or user.lower())

    def user_exists(self, user: str) -> bool:
        return bool(_USER_ID.fullmatch(user)) and user not in self.missing_users

    def user_info(self, user: str) -> dict[str, Any]:
        """The ``user`` object ``users.info`` answers for an existing user."""
        entry = self.users.get(user, {})
        profile = dict(entry.get("profile") or {})
        name = self.handle(user)
        display = str(entry.get("display_name") or profile.get("display_name") or name)
        real = str(entry.get("real_name") or profile.get("real_name") or display)
        profile.update(
            {
                "display_name": display,
                "real_name": real,
                "display_name_normalized": _normalized(display),
                "real_name_normalized": _normalized(real),
            }
        )
        return {
            "id": user,
            "team_id": TEAM,
            "name": name,
            "real_name": real,
            "deleted": False,
            "is_bot": bool(entry.get("is_bot", False)),
            "profile": profile,
        }

    def response_url(
        self,
        token: str,
        *,
        channel: str | None = None,
        user: str | None = None,
        message_ts: str | None = None,
        ephemeral: bool = False,
    ) -> str:
        """The response URL of ``token``, issued now (with its interaction) if it is new."""
        if token not in self.response_urls:
            url = f"{self.root}response/{token}"
            self.response_urls[token] = ResponseURL(
                token, url, channel, user, message_ts, ephemeral, self.clock()
            )
        return self.response_urls[token].url

    def new_response_url(
        self,
        channel: str,
        user: str,
        message_ts: str | None = None,
        ephemeral: bool = False,
    ) -> str:
        """A fresh response URL for an interaction by ``user`` in ``channel`` (from the
        message ``message_ts``, or a slash command when None)."""
        token = secrets.token_urlsafe(12)
        return self.response_url(
            token, channel=channel, user=user, message_ts=message_ts, ephemeral=ephemeral
        )

    def issue_trigger(self, trigger_id: str) -> None:
        """``trigger_id`` was handed out now (by a :class:`SignedClient`)."""
        self._triggers[trigger_id] = self.clock()

    def max_posts_per_s(
        self, channel: str, thread: str | None = None, top_level: bool = False
    ) -> PostRate:
        """How fast messages were posted in ``channel`` (``chat.postMessage`` and in-channel
        response URL posts), by ``clock``: every one, thread replies included (what Slack's
        per-channel limit counts); with ``thread``, only the replies in that thread; with
        ``top_level``, only the channel's own messages."""
        key = "" if top_level else thread
        times = sorted(self._posts.get((channel, key), []))
        peak, start = 0, 0
        for end, moment in enumerate(times):
            while moment - times[start] >= 1.0:
                start += 1
            peak = max(peak, end - start + 1)
        span = times[-1] - times[0] if times else 0.0
        sustained = len(times) / max(span, 1.0)
        return PostRate(len(times), peak, sustained)

    def notified(self, kind: str | None = None) -> list[str]:
        """The targets notified so far (of one ``kind``, or all), in order."""
        return [n.target for n in self.notifications if kind is None or n.kind == kind]

    def notified_in(self, channel: str, thread: str | None = None) -> list[Notification]:
        """The notifications of posts in ``channel`` itself, or with ``thread`` in that
        thread."""
        return [n for n in self.notifications if n.channel == channel and n.thread == thread]

    # --- the HTTP side ----------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        raw = await request.read()
        if request.content_type == "application/json":
            args: dict[str, Any] = json.loads(raw or b"{}")
        else:
            args = dict(parse_qsl(raw.decode()))
        # slack_sdk sends some methods' arguments in the query string.
        args = {**dict(request.query), **args}
        call = Call(method, args, at=self.clock())
        self.received.append(call)
        if self.latency_s and method != HANDLED:
            await pause(self.clock, self.latency_s)
        token = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        token = token or str(args.get("token", ""))
        answer = self._auth_error(method, token)
        if answer is None:
            wait = self._rationed(method, token, args)
            if wait is not None:
                call.error = "ratelimited"
                self.rate_limited.append(call)
                body = {"ok": False, "error": "ratelimited"}
                return _json(body, 429, **{"Retry-After": str(wait)})
            answer = self._answer(call)
        self._settle(call, answer)
        return _json(answer)

    def _rationed(self, method: str, token: str, args: dict[str, Any]) -> int | None:
        """The ``Retry-After`` of a call past a budget (None: it may go on). Every budget is
        asked before any is charged, so a refused call uses none of them."""
        if self._limited(method):
            assert self._limit is not None
            return self._limit[2]
        if self._over_post_limit(method, args):
            self.over_budget += 1
            return 1
        now = self.clock()
        buckets = []
        tier = self.tiers.get(method)
        if tier is not None:
            buckets.append(self._bucket(token, method, *TIERS[tier]))
        if method == "chat.postMessage" and self.posts_per_workspace is not None:
            buckets.append(self._bucket(token, method, *self.posts_per_workspace))
        waits = [bucket.take(now) for bucket in buckets]
        if any(waits):
            for bucket, wait in zip(buckets, waits, strict=True):
                if not wait:
                    bucket.tokens += 1.0  # granted here, refused by another: not spent
            self.over_budget += 1
            return TokenBucket.retry_after(max(waits))
        return None

    def _bucket(self, token: str, method: str, per_minute: float, burst: int) -> TokenBucket:
        key = (token, method)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(per_minute, burst)
        return bucket

    def _settle(self, call: Call, answer: dict[str, Any]) -> None:
        if answer.get("ok"):
            self.calls.append(call)
            for listener in self.on_call:
                listener(call)
        else:
            call.error = str(answer.get("error"))
            self.refused.append(call)

    def _limited(self, method: str) -> bool:
        if self._limit is None:
            return False
        family = method.split(".", 1)[0] + ".*"
        if method not in RATE_LIMITED_METHODS and family not in RATE_LIMITED_METHODS:
            return False
        ratio, rng, _ = self._limit
        return rng.random() < ratio

    @staticmethod
    def _auth_error(method: str, token: str) -> dict[str, Any] | None:
        if method == HANDLED:
            return None
        if not token:
            return _refusal_body("not_authed")
        if not token.startswith(("xox", "xapp-")):
            return _refusal_body("invalid_auth")
        app_level = token.startswith("xapp-")
        if app_level != (method == "apps.connections.open"):
            return _refusal_body("not_allowed_token_type")
        return None

    def _answer(self, call: Call) -> dict[str, Any]:
        if call.method in self.fail:
            return _refusal_body(self.fail[call.method])
        handler = self._methods().get(call.method)
        if handler is None:
            return _refusal_body("unknown_method")
        return handler(call)

    def _methods(self) -> dict[str, Callable[[Call], dict[str, Any]]]:
        return {
            "auth.test": self._auth_test,
            "chat.postMessage": self._post_message,
            "chat.postEphemeral": self._post_ephemeral,
            "chat.update": self._update,
            "chat.delete": self._delete,
            "conversations.open": self._open,
            "users.info": self._users_info,
            "views.open": self._views_open,
            "views.update": self._views_update,
            "views.publish": self._views_publish,
            "files.getUploadURLExternal": self._upload_url,
            "files.completeUploadExternal": self._complete_upload,
            "apps.connections.open": self._connections_open,
            HANDLED: lambda call: {"ok": True},
        }

    # --- methods ----------------------------------------------------------------------------

    def _auth_test(self, call: Call) -> dict[str, Any]:
        return {
            "ok": True,
            "url": "https://boardroom.slack.com/",
            "team": "Boardroom",
            "user": "boardroom",
            "team_id": TEAM,
            "user_id": BOT_USER,
            "bot_id": BOT_ID,
        }

    def _connections_open(self, call: Call) -> dict[str, Any]:
        if not self.socket_url:
            return _refusal_body("unknown_method")
        return {"ok": True, "url": self.socket_url}

    def _channel_error(self, channel: object, posting: bool) -> dict[str, Any] | None:
        if not isinstance(channel, str) or not channel:
            return _refusal_body("channel_not_found")
        if channel.startswith("D") and channel not in self._dms:
            return _refusal_body("channel_not_found")  # a DM nobody opened
        if self.channels is not None and channel not in self.channels and channel not in self._dms:
            return _refusal_body("channel_not_found")
        if posting and channel in self._not_in:
            return _refusal_body("not_in_channel")
        return None

    def _content_error(self, args: dict[str, Any]) -> dict[str, Any] | None:
        refusal = _message_refusal(args) or self._slack_file_refusal(args)
        if refusal is None:
            return None
        code, errors = refusal
        detailed = code in ("invalid_blocks", "invalid_blocks_format", "invalid_arguments")
        return _refusal_body(code, errors if detailed else None)

    def _slack_file_refusal(self, args: dict[str, Any]) -> tuple[str, list[str]] | None:
        """An image block's ``slack_file`` must name a file this workspace holds whose upload
        was completed (``files.completeUploadExternal``): Slack refuses an unknown id, and one
        whose upload is not complete yet, with ``invalid_blocks``."""
        blocks, _malformed = _parsed_blocks(args.get("blocks"))
        errors = []
        for index, block in enumerate(blocks or []):
            source = block.get("slack_file") if isinstance(block, dict) else None
            if not isinstance(source, dict):
                continue
            where = f"[json-pointer:/blocks/{index}/slack_file]"
            if "id" not in source and "url" not in source:
                errors.append(f"must provide either id or url {where}")
                continue
            if "url" in source:
                continue  # a file's permalink: not checked here
            uploaded = self.files.get(str(source["id"]))
            if uploaded is None or not uploaded.completed:
                errors.append(f"invalid slack file {where}")
        return ("invalid_blocks", errors) if errors else None

    def _new_ts(self, ephemeral: bool = False) -> str:
        return f"{next(self._ts)}.{'000200' if ephemeral else '000100'}"

    def _store(
        self,
        call: Call,
        channel: str,
        ephemeral: bool,
        user: str | None,
        thread: str | None = None,
    ) -> Message:
        ts = self._new_ts(ephemeral)
        call.ts, call.channel = ts, channel
        blocks, _ = _parsed_blocks(call.args.get("blocks"))
        message = Message(
            channel,
            ts,
            str(call.args.get("text") or ""),
            blocks or [],
            call,
            ephemeral,
            user,
            thread,
        )
        self.messages[(channel, ts)] = message
        return message

    def _thread_error(self, channel: str, thread: object) -> dict[str, Any] | None:
        """Why a reply in ``thread`` of ``channel`` is refused (None: it is a live parent)."""
        if not isinstance(thread, str) or not _TS.fullmatch(thread):
            return _refusal_body("invalid_thread_ts")
        parent = self.messages.get((channel, thread))
        if parent is None or parent.deleted or parent.ephemeral:
            return _refusal_body("thread_not_found")
        if parent.thread_ts is not None:
            return _refusal_body("invalid_thread_ts")  # a reply's ts, not its parent's
        return None

    def _published(self, call: Call, message: Message) -> None:
        """A message everyone in its conversation sees: count the post, note who is pinged."""
        now = self.clock()
        self._posts.setdefault((message.channel, None), []).append(now)
        place = message.thread_ts or ""
        self._posts.setdefault((message.channel, place), []).append(now)
        pings = _mentions(message.text) if message.text else []
        for text in _pinging_texts(message.blocks):
            pings += _mentions(text)
        pings += _rich_text_mentions([b for b in message.blocks if b.get("type") == "rich_text"])
        seen: set[tuple[str, str]] = set()
        for kind, target in pings:
            if (kind, target) not in seen:
                seen.add((kind, target))
                self.notifications.append(
                    Notification(call, message.channel, kind, target, message.thread_ts)
                )

    @staticmethod
    def _message_body(message: Message) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": "message",
            "user": BOT_USER,
            "bot_id": BOT_ID,
            "app_id": APP,
            "text": message.text,
            "ts": message.ts,
        }
        if message.blocks:
            body["blocks"] = message.blocks
        if message.thread_ts is not None:
            body["thread_ts"] = message.thread_ts
        return body

    def _post_message(self, call: Call) -> dict[str, Any]:
        channel = call.args.get("channel")
        refused = self._channel_error(channel, posting=True) or self._content_error(call.args)
        thread = call.args.get("thread_ts") or None
        if not refused and thread is not None:
            refused = self._thread_error(str(channel), thread)
        if refused:
            return refused
        message = self._store(call, str(channel), False, None, thread)
        self._published(call, message)
        return {
            "ok": True,
            "channel": channel,
            "ts": message.ts,
            "message": self._message_body(message),
        }

    def _post_ephemeral(self, call: Call) -> dict[str, Any]:
        channel, user = call.args.get("channel"), call.args.get("user")
        refused = self._channel_error(channel, posting=True)
        if refused:
            return refused
        if not isinstance(user, str) or not user:
            return _refusal_body("user_not_found")
        if isinstance(channel, str) and channel in self._dms and self._dms[channel] != user:
            return _refusal_body("user_not_in_channel")  # a DM is its user's and the bot's
        refused = self._content_error(call.args)
        thread = call.args.get("thread_ts") or None
        if not refused and thread is not None:
            refused = self._thread_error(str(channel), thread)
        if refused:
            return refused
        message = self._store(call, str(channel), True, user, thread)
        return {"ok": True, "message_ts": message.ts}

    def _editable(self, channel: object, ts: object) -> Message | None:
        """The bot's live, non-ephemeral message ``ts`` in ``channel``, if there is one."""
        message = self.messages.get((str(channel), str(ts)))
        if message is None or message.deleted or message.ephemeral:
            return None
        return message

    def _update(self, call: Call) -> dict[str, Any]:
        args = call.args
        refused = self._channel_error(args.get("channel"), posting=False)
        if refused:
            return refused
        refused = self._content_error(args)
        if refused:
            return refused
        message = self._editable(args.get("channel"), args.get("ts"))
        if message is None:
            return _refusal_body("message_not_found")
        call.ts, call.channel = message.ts, message.channel
        # Slack keeps what an update leaves out: the old text, or the old blocks.
        if "text" in args:
            message.text = str(args.get("text") or "")
        if "blocks" in args:
            blocks, _ = _parsed_blocks(args.get("blocks"))
            message.blocks = blocks or []
        message.edits.append(call)
        return {
            "ok": True,
            "channel": message.channel,
            "ts": message.ts,
            "text": message.text,
            "message": self._message_body(message),
        }

    def _delete(self, call: Call) -> dict[str, Any]:
        args = call.args
        refused = self._channel_error(args.get("channel"), posting=False)
        if refused:
            return refused
        message = self._editable(args.get("channel"), args.get("ts"))
        if message is None:
            return _refusal_body("message_not_found")
        message.deleted = True
        call.ts, call.channel = message.ts, message.channel
        return {"ok": True, "channel": message.channel, "ts": message.ts}

    def _open(self, call: Call) -> dict[str, Any]:
        raw = str(call.args.get("users") or "")
        users = [u.strip() for u in raw.split(",") if u.strip()]
        if not users:
            return _refusal_body("users_list_not_supplied")
        closed = [self.closed_dms[u] for u in users if u in self.closed_dms]
        if closed:
            return _refusal_body(closed[0])
        if not all(self.user_exists(u) for u in users):
            return _refusal_body("user_not_found")
        dm = f"D{users[0]}" if len(users) == 1 else "G" + "".join(sorted(users))
        already = dm in self._dms
        self._dms[dm] = raw
        call.channel = dm
        return {"ok": True, "already_open": already, "channel": {"id": dm}}

    def _users_info(self, call: Call) -> dict[str, Any]:
        user = str(call.args.get("user") or "")
        if not self.user_exists(user):
            return _refusal_body("user_not_found")
        return {"ok": True, "user": self.user_info(user)}

    def _trigger_error(self, trigger: object) -> str | None:
        match = _TRIGGER.fullmatch(trigger) if isinstance(trigger, str) else None
        if match is None or match[3] != _trigger_tag(f"{match[1]}.{match[2]}"):
            return "invalid_trigger_id"
        if trigger in self._exchanged:
            return "exchanged_trigger_id"
        issued = self._triggers.get(str(trigger))
        if issued is not None:
            age = self.clock() - issued
        else:  # issued by a client not linked to this fake: its id carries the wall clock
            age = time.time() - int(match[2]) / 1e9
        return "expired_trigger_id" if age > self.trigger_ttl_s else None

    def _view_arg(self, call: Call) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        raw = call.args.get("view")
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except json.JSONDecodeError:
                return None, _refusal_body("invalid_arguments", ["view is not valid JSON"])
        errors = validate_view(raw)
        if errors:
            return None, _refusal_body("invalid_arguments", errors)
        assert isinstance(raw, dict)
        return raw, None

    def _stored_view(self, view: dict[str, Any], view_id: str) -> dict[str, Any]:
        stored = {
            **view,
            "id": view_id,
            "team_id": TEAM,
            "app_id": APP,
            "bot_id": BOT_ID,
            "hash": f"{int(time.time())}.{secrets.token_hex(4)}",
            "state": {"values": {}},
            "root_view_id": view_id,
            "private_metadata": view.get("private_metadata", ""),
            "callback_id": view.get("callback_id", ""),
            "external_id": view.get("external_id", ""),
        }
        self.views[view_id] = stored
        return stored

    def _views_open(self, call: Call) -> dict[str, Any]:
        view, refused = self._view_arg(call)
        if refused:
            return refused
        assert view is not None
        trigger = call.args.get("trigger_id") or call.args.get("interactivity_pointer")
        problem = self._trigger_error(trigger)
        if problem:
            return _refusal_body(problem)
        external = view.get("external_id")
        if external and any(v.get("external_id") == external for v in self.views.values()):
            return _refusal_body("duplicate_external_id")
        self._exchanged.add(str(trigger))
        return {"ok": True, "view": self._stored_view(view, f"V{next(self._view_ids):08d}")}

    def _views_update(self, call: Call) -> dict[str, Any]:
        view, refused = self._view_arg(call)
        if refused:
            return refused
        assert view is not None
        view_id, external = call.args.get("view_id"), call.args.get("external_id")
        if not view_id and external:
            view_id = next(
                (i for i, v in self.views.items() if v.get("external_id") == external), None
            )
        if not view_id or view_id not in self.views:
            return _refusal_body("not_found")
        wanted = call.args.get("hash")
        if wanted and wanted != self.views[view_id]["hash"]:
            return _refusal_body("hash_conflict")
        return {"ok": True, "view": self._stored_view(view, str(view_id))}

    def _views_publish(self, call: Call) -> dict[str, Any]:
        raw = call.args.get("view")
        if isinstance(raw, str):
            if len(raw.encode()) > MAX_VIEW_BYTES:
                return _refusal_body("view_too_large")
            try:
                raw = json.loads(raw)
            except json.JSONDecodeError:
                return _refusal_body("invalid_arguments", ["view is not valid JSON"])
        elif len(json.dumps(raw).encode()) > MAX_VIEW_BYTES:
            return _refusal_body("view_too_large")
        user = call.args.get("user_id")
        if not isinstance(user, str) or not self.user_exists(user) or user == BOT_USER:
            return _refusal_body("invalid_arguments", ["invalid `user_id`"])
        errors = validate_home_view(raw)
        if errors:
            return _refusal_body("invalid_arguments", errors)
        assert isinstance(raw, dict)
        if not self.home_tab_enabled:
            return _refusal_body("not_enabled")
        before = self.homes.get(user)
        wanted = call.args.get("hash")
        if wanted and (before is None or wanted != before["hash"]):
            return _refusal_body("hash_conflict")
        view_id = before["id"] if before is not None else f"V{next(self._view_ids):08d}"
        stored = self._stored_view(raw, view_id)
        del self.views[view_id]  # (a Home tab is not a modal: views.update cannot reach it)
        self.homes[user] = stored
        return {"ok": True, "view": stored}

    # --- file uploads -----------------------------------------------------------------------

    def _upload_url(self, call: Call) -> dict[str, Any]:
        args = call.args
        missing = [k for k in ("filename", "length") if not str(args.get(k) or "").strip()]
        if missing:
            errors = [f"missing required field: {k}" for k in missing]
            return _refusal_body("invalid_arguments", errors)
        try:
            length = int(str(args["length"]))
        except ValueError:
            return _refusal_body("invalid_arguments", ["length must be an integer"])
        if length < 0:
            return _refusal_body("invalid_arguments", ["length must be a positive integer"])
        if length == 0:
            return _refusal_body("missing_argument")
        alt = args.get("alt_txt")
        if isinstance(alt, str) and len(alt) > MAX_FILE_ALT:
            return _refusal_body("alt_txt_too_large")
        file_id = f"F{next(self._file_ids):09d}"
        token = secrets.token_urlsafe(12)
        url = f"{self.root}upload/{token}"
        snippet = args.get("snippet_type")
        self.files[file_id] = UploadedFile(
            file_id,
            str(args["filename"]),
            length,
            alt if isinstance(alt, str) else None,
            snippet if isinstance(snippet, str) else None,
            url,
        )
        self._upload_urls[token] = file_id
        return {"ok": True, "upload_url": url, "file_id": file_id}

    async def _upload(self, request: web.Request) -> web.Response:
        """A POST of the file's bytes to its upload URL (raw, or a multipart file part)."""
        token = request.match_info["token"]
        if request.content_type == "multipart/form-data":
            form = await request.post()
            parts = [v for v in form.values() if isinstance(v, web.FileField)]
            data = parts[0].file.read() if parts else b""
        else:
            data = await request.read()
        call = Call(FILE_UPLOAD, {"length": len(data)}, at=self.clock())
        call.url = f"{self.root}upload/{token}"
        self.received.append(call)
        uploaded = self.files.get(self._upload_urls.pop(token, ""))
        if uploaded is None or uploaded.data is not None:
            call.error = "not_found"
            self.refused.append(call)
            return web.Response(status=404, text="Not Found")
        if len(data) != uploaded.length:
            # The URL is spent all the same: Slack's upload service takes one POST per ticket.
            call.error = "length_mismatch"
            self.refused.append(call)
            return web.Response(status=400, text=f"expected {uploaded.length} bytes")
        uploaded.data = data
        self._settle(call, {"ok": True})
        return web.Response(text=f"OK - {len(data)}")

    def _complete_upload(self, call: Call) -> dict[str, Any]:
        args = call.args
        raw = args.get("files")
        try:
            listed = json.loads(raw) if isinstance(raw, str) else raw
        except json.JSONDecodeError:
            listed = None
        if (
            not isinstance(listed, list)
            or not listed
            or not all(isinstance(f, dict) and isinstance(f.get("id"), str) for f in listed)
        ):
            return _refusal_body("invalid_arguments", ["files must be an array of {id, title}"])
        uploads = [self.files.get(f["id"]) for f in listed]
        ready = [u for u in uploads if u is not None and u.data is not None and not u.completed]
        if len(ready) != len(listed):
            return _refusal_body("file_not_found")
        targets = [str(args["channel_id"])] if args.get("channel_id") else []
        targets += [c.strip() for c in str(args.get("channels") or "").split(",") if c.strip()]
        thread = args.get("thread_ts") or None
        for target in targets:
            refused = self._channel_error(target, posting=True)
            if refused:
                return refused
            if thread is not None:
                refused = self._thread_error(target, thread)
                if refused:
                    return refused
        for entry, uploaded in zip(listed, ready, strict=True):
            uploaded.completed = True
            uploaded.title = str(entry.get("title") or uploaded.filename)
        comment = str(args.get("initial_comment") or "")
        for target in targets:
            ts = self._new_ts()
            message = Message(target, ts, comment, [], call, thread_ts=thread, files=ready)
            self.messages[(target, ts)] = message
            for uploaded in ready:
                uploaded.shares.append((target, ts))
            call.ts, call.channel = call.ts or ts, call.channel or target
            self._published(call, message)
        return {"ok": True, "files": [{"id": u.id, "title": u.title} for u in ready]}

    # --- response URLs ----------------------------------------------------------------------

    async def _respond(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        raw = await request.read()
        try:
            if request.content_type == "application/json":
                payload = json.loads(raw or b"{}")
            else:
                payload = json.loads(dict(parse_qsl(raw.decode())).get("payload", "{}"))
        except json.JSONDecodeError:
            payload = None
        issued = self.response_urls.get(token)
        call = Call("response_url", payload if isinstance(payload, dict) else {}, at=self.clock())
        call.url = issued.url if issued else f"{self.root}response/{token}"
        call.channel = issued.channel if issued else None
        self.received.append(call)
        if not isinstance(payload, dict):
            status, answer = 400, _refusal_body("invalid_payload")
        elif issued is None:
            status, answer = 404, _refusal_body("no_service")
        else:
            status, answer = self._response_answer(issued, call)
        self._settle(call, answer)
        return _json(answer, status)

    def _response_answer(self, issued: ResponseURL, call: Call) -> tuple[int, dict[str, Any]]:
        payload = call.args
        if self.clock() - issued.issued_at > self.response_url_ttl_s:
            return 404, _refusal_body("expired_url")
        if issued.uses >= self.response_url_uses:
            return 404, _refusal_body("used_url")
        for flag in ("replace_original", "delete_original"):
            if flag in payload and not isinstance(payload[flag], bool):
                return 400, _refusal_body("invalid_payload", [f"{flag} must be a boolean"])
        kind = payload.get("response_type", "ephemeral")
        if kind not in ("ephemeral", "in_channel"):
            return 400, _refusal_body("invalid_payload", [_one_of(("ephemeral", "in_channel"))])
        original = self.messages.get(
            (str(issued.channel), str(issued.message_ts or issued.last_ts))
        )
        if original is not None and original.deleted:
            original = None
        if payload.get("delete_original"):
            if original is None:
                return 404, _refusal_body("message_not_found")
            original.deleted = True
            call.ts = original.ts
            issued.uses += 1
            return 200, {"ok": True}
        refused = self._content_error(payload)
        if refused:
            return 400, refused
        if payload.get("replace_original"):
            if original is None:
                return 404, _refusal_body("message_not_found")
            original.text = str(payload.get("text") or "")
            original.blocks = _parsed_blocks(payload.get("blocks"))[0] or []
            original.edits.append(call)
            call.ts = original.ts
        elif issued.channel is None:
            return 404, _refusal_body("channel_not_found")
        else:
            channel = issued.channel
            in_channel = kind == "in_channel"
            # In a thread when asked (Slack's "publishing in thread" through a response URL).
            thread = payload.get("thread_ts") or None
            refused = self._thread_error(channel, thread) if thread is not None else None
            if refused:
                return 404, refused
            message = self._store(
                call, channel, ephemeral=not in_channel, user=issued.user, thread=thread
            )
            if in_channel:
                self._published(call, message)
            issued.last_ts = message.ts
        issued.uses += 1
        return 200, {"ok": True}


def sign(secret: str, body: bytes, timestamp: int) -> str:
    """Slack's request signature: ``v0=`` HMAC-SHA256 of ``v0:<timestamp>:<body>``."""
    base = b"v0:" + str(timestamp).encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


class SignedClient:
    """Posts slash commands and block actions to a Bolt endpoint, signed as Slack would.

    With a fake (``api``, or else the only :class:`FakeSlackAPI` running in this process) the
    bodies carry real response URLs and triggers from it, and users' handles as its
    ``users.info`` names them; without one, a dead response URL.
    """

    def __init__(
        self,
        endpoint: str,
        secret: str,
        session: ClientSession,
        api: FakeSlackAPI | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.secret = secret
        self.session = session
        self._api = api
        self._triggers = itertools.count(1)

    @property
    def api(self) -> FakeSlackAPI | None:
        if self._api is not None:
            return self._api
        running = FakeSlackAPI.running
        return running[0] if len(running) == 1 else None

    def trigger_id(self) -> str:
        """A trigger in Slack's format (``132456.7890123.abcdef``) the fake will accept once."""
        body = f"{next(self._triggers)}.{time.time_ns()}"
        trigger = f"{body}.{_trigger_tag(body)}"
        api = self.api
        if api is not None:
            api.issue_trigger(trigger)
        return trigger

    def _user(self, user: str) -> str:
        """The user's handle (the fake's ``users.info`` name for it)."""
        api = self.api
        return user.lower() if api is None else api.handle(user)

    def _response_url(
        self, channel: str, user: str, message_ts: str | None = None, ephemeral: bool = False
    ) -> str:
        api = self.api
        if api is None or not api.root:
            return DEAD_URL
        return api.new_response_url(channel, user, message_ts, ephemeral)

    def slash_body(
        self, command: str, text: str, user: str, channel: str, trigger_id: str | None = None
    ) -> bytes:
        form = {
            "token": "unused",
            "team_id": TEAM,
            "channel_id": channel,
            "channel_name": "directmessage" if channel.startswith("D") else channel,
            "user_id": user,
            "user_name": self._user(user),
            "command": command,
            "text": text,
            "response_url": self._response_url(channel, user),
            "trigger_id": trigger_id or self.trigger_id(),
            "api_app_id": APP,
        }
        return urlencode(form).encode()

    def action_body(
        self,
        user: str,
        channel: str,
        action: dict[str, Any],
        message_ts: str = "1.0",
        ephemeral: bool = False,
    ) -> bytes:
        handle = self._user(user)
        container: dict[str, Any] = {
            "type": "message",
            "message_ts": message_ts,
            "channel_id": channel,
            "is_ephemeral": ephemeral,
        }
        payload: dict[str, Any] = {
            "type": "block_actions",
            "team": {"id": TEAM},
            "user": {"id": user, "username": handle, "name": handle, "team_id": TEAM},
            "api_app_id": APP,
            "channel": {
                "id": channel,
                "name": "directmessage" if channel.startswith("D") else channel,
            },
            "container": container,
            "trigger_id": self.trigger_id(),
            "response_url": self._response_url(channel, user, message_ts, ephemeral),
            "state": {"values": {}},
            "actions": [{**action, "action_ts": f"{time.time():.6f}"}],
        }
        api = self.api
        shown = api.message(channel, message_ts) if api is not None else None
        if shown is not None and shown.thread_ts is not None:
            container["thread_ts"] = shown.thread_ts  # a reply in a thread says which
        if shown is not None and not shown.deleted and not ephemeral:
            payload["message"] = FakeSlackAPI._message_body(shown)
        return urlencode({"payload": json.dumps(payload)}).encode()

    def event_body(self, event: dict[str, Any]) -> bytes:
        """An Events API delivery of ``event`` (JSON, as Slack sends it)."""
        body = {
            "token": "unused",
            "team_id": TEAM,
            "api_app_id": APP,
            "event": event,
            "type": "event_callback",
            "event_id": f"Ev{secrets.token_hex(5).upper()}",
            "event_time": int(time.time()),
            "authorizations": [
                {
                    "team_id": TEAM,
                    "user_id": BOT_USER,
                    "is_bot": True,
                    "is_enterprise_install": False,
                }
            ],
            "is_ext_shared_channel": False,
        }
        return json.dumps(body).encode()

    def home_opened_body(self, user: str, tab: str = "home") -> bytes:
        """``user`` opens the app's Home tab (``tab="messages"``: its Messages tab); the event
        carries the view last published for them, as Slack's does."""
        event: dict[str, Any] = {
            "type": "app_home_opened",
            "user": user,
            "channel": f"D{user[1:]}"[:11],
            "tab": tab,
            "event_ts": f"{time.time():.6f}",
        }
        api = self.api
        if api is not None and user in api.homes:
            event["view"] = api.homes[user]
        return self.event_body(event)

    async def open_home(self, user: str, tab: str = "home") -> int:
        """Send ``app_home_opened`` for ``user``, signed; the HTTP status of the answer."""
        status, _ = await self.send(
            self.home_opened_body(user, tab), {"Content-Type": "application/json"}
        )
        return status

    async def post(
        self, body: bytes, timestamp: int | None = None, secret: str | None = None, retry: int = 0
    ) -> int:
        """POST ``body`` signed with ``secret`` (default: the right one) at ``timestamp``."""
        headers = {}
        if retry:
            headers["X-Slack-Retry-Num"] = str(retry)
            headers["X-Slack-Retry-Reason"] = "http_timeout"
        status, _ = await self.send(body, headers, timestamp=timestamp, secret=secret)
        return status

    async def send(
        self,
        body: bytes,
        headers: dict[str, str] | None = None,
        *,
        signed: bool = True,
        timestamp: int | None = None,
        secret: str | None = None,
    ) -> tuple[int, bytes]:
        """POST ``body`` as it is, with ``headers`` over the usual ones (a form's content type;
        with ``signed``, Slack's signature headers for ``secret`` at ``timestamp``); the status
        and the body of the answer. For requests Slack would never send."""
        sent = {"Content-Type": "application/x-www-form-urlencoded"}
        if signed:
            ts = int(time.time()) if timestamp is None else timestamp
            sent["X-Slack-Request-Timestamp"] = str(ts)
            sent["X-Slack-Signature"] = sign(secret or self.secret, body, ts)
        sent.update(headers or {})
        api = self.api
        # Slack waits for the acknowledgement in real time: the test's clock does not jump.
        with held(api.clock if api is not None else None):
            async with self.session.post(self.endpoint, data=body, headers=sent) as response:
                return response.status, await response.read()
