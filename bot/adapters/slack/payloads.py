"""What the Slack listeners read from a request, as typed models, and the reading of a body.

A signed request is still only a string until it is read: a field may be missing, an object may
be a string, an id may be ten thousand characters long. :func:`read_body` turns a verified body
into a JSON object (or says why it is not one) and :func:`admit` checks it against the models of
the kinds of request this app handles (a slash command, a ``block_actions`` press, the
submission of its form, the ``app_home_opened`` event and Slack's check of the events URL).
What is admitted goes to Bolt as the models' dump, the fields the listeners and Bolt's own
context read and nothing else, each of the type it is read as: nothing of the body that was
not checked reaches Bolt or a listener.

What is not admitted says, where it can be read, who sent it and where they can be told
(:class:`Unreadable`), so that they get a sentence rather than silence or Slack's "failed with
the error" banner.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Literal
from urllib.parse import parse_qsl

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    model_validator,
)

from bot.commands.codec import read_form
from core import text as markup

__all__ = [
    "FORM_CALLBACK",
    "FORM_FIELD",
    "MAX_ACTION_ID",
    "Admitted",
    "BlockActions",
    "EventCallback",
    "FormMeta",
    "HomeOpened",
    "Malformed",
    "SlashCommand",
    "Unhandled",
    "Unreadable",
    "UrlVerification",
    "ViewSubmission",
    "admit",
    "read_body",
    "unreadable",
]

FORM_CALLBACK = "boardroom_form"
FORM_FIELD = "answer"
MAX_ACTION_ID = 255
"""Slack's limit on an ``action_id`` (Block Kit reference): a longer one was not made here."""
MAX_FORM_FIELDS = 64
"""A slash command has about a dozen fields, an interaction payload one; a body with more is
not Slack's (and parsing it is bounded)."""
MAX_SHORT = 255
MAX_URL = 2048
MAX_METADATA = 3000
"""Slack's limit on a view's ``private_metadata``."""
MAX_VALUE = 2000
"""Slack's limit on a button's ``value`` (an option's is 150)."""
MAX_OPTIONS = 100
MAX_ACTIONS = 25


def _no_control(value: str) -> str:
    if any(ord(c) < 32 for c in value):
        raise ValueError("control character")
    return value


Id = Annotated[str, Field(pattern=r"^[A-Za-z0-9]{1,64}$")]
"""A Slack id (``U0123``, ``C0123``, ``T0123``): it goes into keys, ids and Web API calls."""
Context = Annotated[str, Field(pattern=r"^[A-Za-z0-9]{0,64}$")]
"""An id only Bolt's context reads (a team, an enterprise, the app), which Slack may send empty."""
Text = Annotated[str, AfterValidator(markup.valid)]
"""Free text, with any lone surrogate (which no JSON encoder can send on) replaced."""
Short = Annotated[
    str, Field(max_length=MAX_SHORT), AfterValidator(_no_control), AfterValidator(markup.valid)
]
Ts = Annotated[str, Field(pattern=r"^[0-9]{1,20}(\.[0-9]{1,20})?$")]
Url = Annotated[str, Field(max_length=MAX_URL, pattern=r"^https?://[^\s]+$")]
Command = Annotated[str, Field(pattern=r"^/[A-Za-z0-9_-]{1,32}$")]


class _Read(BaseModel):
    """Fields not named are dropped; those named must have their type (nothing is coerced)."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)


class SlashCommand(_Read):
    """A slash command's form fields (all strings: it comes form-encoded)."""

    command: Command
    user_id: Id
    channel_id: Id
    text: Text = ""
    user_name: Short | None = None
    channel_name: Short | None = None
    trigger_id: Short | None = None
    response_url: Url | None = None
    team_id: Context | None = None
    enterprise_id: Context | None = None
    api_app_id: Context | None = None
    is_enterprise_install: Short | None = None


class Team(_Read):
    id: Context
    enterprise_id: Context | None = None


class Enterprise(_Read):
    id: Context


class User(_Read):
    id: Id
    name: Short | None = None
    username: Short | None = None
    team_id: Context | None = None

    @property
    def handle(self) -> str:
        """The legacy handle Slack sends (the id when it sends none)."""
        return self.name or self.username or self.id


class Channel(_Read):
    id: Id
    name: Short | None = None


class Container(_Read):
    type: Short | None = None
    message_ts: Ts | None = None
    channel_id: Id | None = None
    is_ephemeral: bool = False
    thread_ts: Ts | None = None
    view_id: Short | None = None


class Option(_Read):
    value: Annotated[Text, Field(max_length=MAX_VALUE)]


class Action(_Read):
    action_id: Annotated[Text, Field(min_length=1, max_length=MAX_ACTION_ID)]
    block_id: Short | None = None
    type: Short | None = None
    action_ts: Short | None = None
    value: Annotated[Text, Field(max_length=MAX_VALUE)] | None = None
    selected_option: Option | None = None
    selected_options: Annotated[list[Option], Field(max_length=MAX_OPTIONS)] | None = None

    @property
    def values(self) -> list[str] | None:
        """The chosen values of a select (None: not a select's press)."""
        if self.selected_options is not None:
            return [option.value for option in self.selected_options]
        if self.selected_option is not None:
            return [self.selected_option.value]
        return None


class _Interaction(_Read):
    user: User
    team: Team | None = None
    enterprise: Enterprise | None = None
    is_enterprise_install: bool | None = None
    api_app_id: Context | None = None
    trigger_id: Short | None = None
    response_url: Url | None = None


class BlockActions(_Interaction):
    """A press of a button or a choice in a menu."""

    type: Literal["block_actions"]
    channel: Channel | None = None
    container: Container = Field(default_factory=Container)
    actions: Annotated[list[Action], Field(min_length=1, max_length=MAX_ACTIONS)]

    @model_validator(mode="after")
    def _placed(self) -> BlockActions:
        if self.channel is None and self.container.channel_id is None:
            raise ValueError("a press from no channel")
        return self

    @property
    def action(self) -> Action:
        """The press (Slack sends one action per payload; Bolt routes on the first)."""
        return self.actions[0]

    @property
    def channel_id(self) -> str:
        return self.channel.id if self.channel is not None else str(self.container.channel_id)


class FormMeta(_Read):
    """What the form carries in its ``private_metadata``: game, channel and command word."""

    g: Short
    c: Id
    w: Short


class FormInput(_Read):
    value: Text | None = None
    type: Short | None = None


class FormState(_Read):
    values: dict[Short, dict[Short, FormInput]] = Field(default_factory=dict)


class View(_Read):
    id: Short | None = None
    type: Short
    """``modal`` (Bolt reads it to tell a workflow step's view apart)."""
    callback_id: Short
    private_metadata: Annotated[str, Field(max_length=MAX_METADATA)] = ""
    state: FormState
    team_id: Context | None = None
    app_installed_team_id: Context | None = None

    def meta(self) -> FormMeta:
        """The form's metadata, the form's name as the codec wrote it (ValueError when it is
        not the form's)."""
        named = read_form(self.private_metadata)
        if named is None:
            return FormMeta.model_validate({})  # refused, as any unreadable metadata
        return FormMeta(g=named.game, c=named.channel, w=named.command)

    @property
    def answer(self) -> str:
        """What was typed into the form's field ("" when nothing)."""
        field = self.state.values.get(FORM_FIELD, {}).get(FORM_FIELD)
        return (field.value or "") if field is not None else ""


class ViewSubmission(_Interaction):
    """A submitted modal; this app's own form is checked to the end (metadata, field)."""

    type: Literal["view_submission"]
    view: View

    @model_validator(mode="after")
    def _ours_readable(self) -> ViewSubmission:
        if self.view.callback_id == FORM_CALLBACK:
            try:
                self.view.meta()
            except ValidationError:
                raise ValueError("the form's metadata unreadable") from None
            if FORM_FIELD not in self.view.state.values.get(FORM_FIELD, {}):
                raise ValueError("the form without its field")
        return self


class HomeOpened(_Read):
    """The ``app_home_opened`` event: a person opened the app's Home (or Messages) tab."""

    type: Literal["app_home_opened"]
    user: Id
    channel: Id | None = None
    tab: Short | None = None
    """``home`` or ``messages``."""
    event_ts: Ts | None = None


class EventCallback(_Read):
    """An Events API delivery of one of the events the manifest subscribes to (only
    ``app_home_opened``)."""

    type: Literal["event_callback"]
    event: HomeOpened
    team_id: Context | None = None
    enterprise_id: Context | None = None
    api_app_id: Context | None = None
    event_id: Short | None = None
    event_time: int | None = None
    is_ext_shared_channel: bool | None = None


class UrlVerification(_Read):
    """Slack's check of the Events request URL when it is set: Bolt answers its challenge."""

    type: Literal["url_verification"]
    challenge: Short
    token: Short | None = None


# --- reading a body ---------------------------------------------------------------------------


class Malformed(ValueError):
    """A body that is not a JSON object nor a form (``str()``: why, for the log: no content)."""


def read_body(text: str, content_type: str) -> dict[str, JsonValue]:
    """The JSON object in a body, as Slack sends them: JSON (``application/json``, or a body
    starting with ``{``), an interaction's ``payload=<JSON>`` form, or a form (a slash command).

    Unlike Bolt's reading, a slash command whose text holds the word "payload" stays a slash
    command, and anything else raises :class:`Malformed`.
    """
    if content_type == "application/json" or text.startswith("{"):
        return _json_object(text)
    try:
        fields = parse_qsl(
            text, keep_blank_values=True, strict_parsing=bool(text), max_num_fields=MAX_FORM_FIELDS
        )
    except ValueError:
        raise Malformed("not a form") from None
    form: dict[str, JsonValue] = dict(fields)
    if len(form) != len(fields):
        raise Malformed("a form field repeated")
    payload = form.get("payload")
    if set(form) == {"payload"} and isinstance(payload, str):
        return _json_object(payload)
    return form


def _json_object(text: str) -> dict[str, JsonValue]:
    try:
        loaded = json.loads(text)
    except RecursionError:
        # json's scanner refuses nesting past the interpreter's recursion limit (about 1,000
        # levels) by raising this, before any of the object is built.
        raise Malformed("nested too deep") from None
    except ValueError:
        raise Malformed("not JSON") from None
    if not isinstance(loaded, dict):
        raise Malformed("not a JSON object")
    return loaded


# --- admitting a request ----------------------------------------------------------------------


@dataclass(frozen=True)
class Admitted:
    """A request of a kind the app handles, every field it reads checked."""

    kind: str
    body: dict[str, JsonValue]
    """What Bolt is given: the model's fields, nothing else of the request."""


@dataclass(frozen=True)
class Unhandled:
    """A readable request of a kind this app does not handle (Slack sends none of these)."""

    kind: str


@dataclass(frozen=True)
class Unreadable:
    """A request the app cannot read (a field missing or of the wrong type), with what of it
    can be read to tell the sender: their id, the channel, the response URL (each None when
    even that is unreadable), and whether it is this app's form."""

    kind: str
    user: str | None = None
    channel: str | None = None
    response_url: str | None = None
    form: bool = False


_KIND = re.compile(r"[a-z_]{1,40}")
_MODELS: dict[str, type[_Read]] = {
    "block_actions": BlockActions,
    "view_submission": ViewSubmission,
    "event_callback": EventCallback,
    "url_verification": UrlVerification,
}


def admit(body: dict[str, JsonValue]) -> Admitted | Unhandled | Unreadable:
    """What ``body`` (from :func:`read_body`) is: a request to hand to Bolt, or why not."""
    if body.get("ssl_check") == "1":
        return Unhandled("ssl_check")  # answered 200 by the caller: Slack checks the certificate
    model: type[_Read] | None = SlashCommand
    kind = "command"
    if "command" not in body:
        typed = body.get("type")
        # The kind goes into the log: only as a word of Slack's ("shortcut", "view_closed").
        kind = typed if isinstance(typed, str) and _KIND.fullmatch(typed) else "unknown"
        model = _MODELS.get(kind)
    if model is None:
        return Unhandled(kind)
    try:
        read = model.model_validate(body)
    except ValidationError:
        if kind == "event_callback" and not _home_opened(body):
            return Unhandled(kind)  # an event the manifest does not subscribe to
        return unreadable(kind, body)
    return Admitted(kind, read.model_dump(exclude_none=True))


def _home_opened(body: dict[str, JsonValue]) -> bool:
    event = body.get("event")
    return isinstance(event, dict) and event.get("type") == "app_home_opened"


def unreadable(kind: str, body: dict[str, JsonValue]) -> Unreadable:
    """What can still be read of a body its model refused, each piece checked on its own."""
    channel: object
    if kind == "command":
        user, channel = body.get("user_id"), body.get("channel_id")
    else:
        found = body.get("user")
        user = found.get("id") if isinstance(found, dict) else found
        where = body.get("channel")
        container = body.get("container")
        channel = where.get("id") if isinstance(where, dict) else None
        if channel is None and isinstance(container, dict):
            channel = container.get("channel_id")
        view = body.get("view")
        if channel is None and isinstance(view, dict):
            channel = _meta_channel(view.get("private_metadata"))
    return Unreadable(
        kind=kind,
        user=_checked(Channel, user),
        channel=_checked(Channel, channel),
        response_url=_url(body.get("response_url")),
        form=kind == "view_submission" and _is_form(body.get("view")),
    )


def _checked(model: type[Channel], value: object) -> str | None:
    """``value`` if it is a valid Slack id, else None."""
    try:
        return model.model_validate({"id": value}).id
    except ValidationError:
        return None


def _url(value: object) -> str | None:
    try:
        return _ResponseUrl.model_validate({"url": value}).url
    except ValidationError:
        return None


class _ResponseUrl(_Read):
    url: Url


def _meta_channel(metadata: object) -> object:
    if not isinstance(metadata, str) or len(metadata) > MAX_METADATA:
        return None
    named = read_form(metadata)
    return named.channel if named is not None else None


def _is_form(view: object) -> bool:
    """Whether ``view`` is this app's form with its field (so an error can be shown under it)."""
    if not isinstance(view, dict) or view.get("callback_id") != FORM_CALLBACK:
        return False
    state = view.get("state")
    values = state.get("values") if isinstance(state, dict) else None
    block = values.get(FORM_FIELD) if isinstance(values, dict) else None
    return isinstance(block, dict) and FORM_FIELD in block
