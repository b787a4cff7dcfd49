"""Hostile HTTP at HTTP mode's front door, through the real Bolt app on 127.0.0.1 (a real
redis-server, the strict fake Web API): unsigned floods leave a few short log lines, malformed
bodies get a 4xx and no traceback, signed but unreadable payloads get a private sentence (or a
400) and change nothing, never a 500."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.adapters.slack.app import SORRY, UNREADABLE
from bot.adapters.slack.http import MAX_BODY, Refusals, serve_http
from bot.adapters.slack.payloads import FORM_CALLBACK, FORM_FIELD
from bot.commands.authority import UNKNOWN_BUTTON
from bot.commands.record import GameRecord
from testkit.slack.fake import Call, SignedClient
from testkit.slack.loopback import SECRET, Loopback
from tests.adapters.slack.conftest import CHANNEL, stored

FORMAT = "%(levelname)s %(name)s: %(message)s"
"""How ``boardroom`` formats its log (bot/cli.py)."""
DOOR = "bot.adapters.slack.http"
STATUS_BUTTON = "brd1:br1|c|bigidea||status"
"""The action id of a button running ``status``: a press of it changes nothing."""
HEX_ZEROS = "v0=" + "0" * 64


class LogSize(logging.Handler):
    """Everything logged while it is attached, formatted as ``boardroom`` writes it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter(FORMAT))
        self.written: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.written.append((record.name, self.format(record) + "\n"))

    @property
    def bytes(self) -> int:
        return sum(len(text.encode()) for _, text in self.written)

    @property
    def text(self) -> str:
        return "".join(text for _, text in self.written)

    def lines(self, logger: str = DOOR) -> list[str]:
        """The messages ``logger`` logged (without the level and name)."""
        prefix = re.compile(r"^\w+ [\w.]+: ")
        return [prefix.sub("", text.rstrip("\n")) for name, text in self.written if name == logger]


@pytest.fixture
def logged() -> Iterator[LogSize]:
    """The whole log at INFO, ``boardroom``'s default level (Bolt logs a refused signature at
    INFO: a quieter level would hide what is measured here)."""
    root = logging.getLogger()
    handler, level = LogSize(), root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield handler
    root.removeHandler(handler)
    root.setLevel(level)


@pytest.fixture
async def game(loop: Loopback) -> AsyncIterator[GameRecord]:
    """A game in its lobby in CHANNEL (Alice hosting, Bob joined), as saved."""
    for user, text in (("UALICE", "start"), ("UBOB", "join")):
        assert await loop.slack.post(loop.slack.slash_body("/bigidea", text, user, CHANNEL)) == 200
        await loop.adapter.settled()
    record = await stored(loop)
    assert record is not None
    yield record


def said_to(loop: Loopback, user: str, since: int = 0) -> list[str]:
    """What ``user`` was told privately since call ``since``: ephemeral messages and DMs, and
    posts through a response URL."""

    def private(call: Call) -> bool:
        if call.method == "chat.postEphemeral":
            return call.args.get("user") == user
        if call.method == "chat.postMessage":
            return call.args.get("channel") == f"D{user}"
        return call.method == "response_url"

    return [str(c.args.get("text", "")) for c in loop.api.calls[since:] if private(c)]


def form(body: bytes, **changes: str | None) -> bytes:
    """A form body with fields changed (None: left out)."""
    fields = dict(parse_qsl(body.decode()))
    for name, value in changes.items():
        if value is None:
            fields.pop(name, None)
        else:
            fields[name] = value
    return urlencode(fields).encode()


def press(loop: Loopback, **changes: Any) -> dict[str, Any]:
    """Alice's ``block_actions`` payload of the status button, as the client builds it,
    changed (None: left out)."""
    action = {"type": "button", "action_id": STATUS_BUTTON, "block_id": "b"}
    body = loop.slack.action_body("UALICE", CHANNEL, action, "1.0", False)
    payload: dict[str, Any] = json.loads(dict(parse_qsl(body.decode()))["payload"])
    for name, value in changes.items():
        if value is None:
            payload.pop(name, None)
        else:
            payload[name] = value
    return payload


def submission(**view: Any) -> dict[str, Any]:
    """A submission of the bot's form (``pitch``), its view changed."""
    meta = json.dumps({"g": "bigidea", "c": CHANNEL, "w": "pitch"})
    state = {"values": {FORM_FIELD: {FORM_FIELD: {"type": "plain_text_input", "value": "x"}}}}
    shown: dict[str, Any] = {"id": "V1", "type": "modal", "callback_id": FORM_CALLBACK}
    shown |= {"private_metadata": meta, "state": state}
    return {
        "type": "view_submission",
        "user": {"id": "UALICE", "name": "alice"},
        "view": shown | view,
    }


def encoded(payload: object) -> bytes:
    return urlencode({"payload": json.dumps(payload)}).encode()


# --- unsigned ---------------------------------------------------------------------------------


async def test_fifty_unsigned_megabytes_leave_two_short_lines(
    loop: Loopback, logged: LogSize
) -> None:
    """Bolt logged each refused body whole at INFO: 50 MB of log for 50 requests of 1 MB."""
    body = b"x" * 1_000_000
    statuses = [(await loop.slack.send(body, signed=False))[0] for _ in range(50)]
    assert statuses == [401] * 50
    await loop.restart()  # the worker stops: the count it held back is logged
    assert logged.bytes < 100_000, logged.bytes
    assert "Traceback" not in logged.text and "xxxxxxxxxx" not in logged.text
    lines = logged.lines()
    assert lines[0] == "refused a Slack request from 127.0.0.1: 401 unsigned", lines
    assert re.fullmatch(r"refused 49 more Slack requests in the last \d+ s: 401 unsigned", lines[1])
    assert len(lines) == 2, lines
    assert loop.api.calls == [] and await stored(loop) is None


async def test_a_genuine_stale_request_logs_nothing_of_its_sender(
    loop: Loopback, logged: LogSize
) -> None:
    body = loop.slack.slash_body("/bigidea", "pitch my secret plan", "UALICE", "C0PRIVATE")
    status, _ = await loop.slack.send(body, timestamp=1_700_000_000)
    assert status == 401
    assert logged.lines() == ["refused a Slack request from 127.0.0.1: 401 stale"]
    for secret in ("UALICE", "ualice", "C0PRIVATE", "secret plan", "secret+plan"):
        assert secret not in logged.text
    assert loop.api.calls == []


UNSIGNED_FORM = b"command=%2Fbigidea&text=start&user_id=UALICE&channel_id=C0TABLE"
UNSIGNED: dict[str, tuple[bytes, dict[str, str]]] = {
    "a body starting { that is not JSON": (b"{not json", {}),
    "payload= that is not JSON": (b"payload=%7Bnot+json", {}),
    "bytes that are not UTF-8": (b"\xff\xfe\x80command=x", {}),
    "a JSON array": (b"[1, 2, 3]", {"Content-Type": "application/json"}),
    "200,000-deep nesting": (b"[" * 200_000 + b"]" * 200_000, {"Content-Type": "application/json"}),
    "a timestamp that is not a number": (
        UNSIGNED_FORM,
        {"X-Slack-Request-Timestamp": "abc", "X-Slack-Signature": HEX_ZEROS},
    ),
    "a 400-digit timestamp": (
        UNSIGNED_FORM,
        {"X-Slack-Request-Timestamp": "9" * 400, "X-Slack-Signature": HEX_ZEROS},
    ),
    "a signature of the wrong form": (
        UNSIGNED_FORM,
        {"X-Slack-Request-Timestamp": "1700000000", "X-Slack-Signature": "v0=" + "z" * 5000},
    ),
    "a forged signature": (
        UNSIGNED_FORM,
        {"X-Slack-Request-Timestamp": "{now}", "X-Slack-Signature": HEX_ZEROS},
    ),
}


@pytest.mark.parametrize("what", list(UNSIGNED))
async def test_malformed_unsigned_bodies_are_refused_without_a_traceback(
    loop: Loopback, logged: LogSize, what: str
) -> None:
    body, headers = UNSIGNED[what]
    headers = {k: v.replace("{now}", str(int(time.time()))) for k, v in headers.items()}
    for _ in range(3):
        status, _answer = await loop.slack.send(body, headers, signed=False)
        assert status == 401
    assert "Traceback" not in logged.text and not any(
        level in logged.text for level in ("ERROR", "CRITICAL")
    )
    assert len(logged.lines()) == 1, logged.lines()  # the next two only counted
    reason = logged.lines()[0].rsplit(": ", 1)[1]
    assert reason in {"401 unsigned", "401 bad signature"}, reason
    assert loop.api.calls == [] and await stored(loop) is None


async def test_slacks_certificate_check_is_answered_without_a_signature(
    loop: Loopback, logged: LogSize
) -> None:
    """Slack's ``ssl_check`` (Bolt answered it before its signature check, as the door does)."""
    for body in (b"ssl_check=1&token=abc123", b"token=abc123&ssl_check=1"):
        assert await loop.slack.send(body, signed=False) == (200, b"")
    assert (await loop.slack.send(b"ssl_check=1&text=x", signed=False))[0] == 401
    assert logged.lines() == ["refused a Slack request from 127.0.0.1: 401 unsigned"]
    assert loop.api.calls == []


SIGNED_MALFORMED: dict[str, tuple[bytes, str]] = {
    "a body starting { that is not JSON": (b"{not json", "400 malformed (not JSON)"),
    "payload= that is not JSON": (b"payload=%7Bnot+json", "400 malformed (not JSON)"),
    "a JSON array": (b"[1, 2, 3]", "400 malformed (not a form)"),
    "200,000-deep nesting": (
        b'{"a":' + b"[" * 200_000 + b"]" * 200_000 + b"}",
        "400 malformed (nested too deep)",
    ),
    "20,000-deep nesting in payload=": (
        urlencode({"payload": '{"a":' + "[" * 20_000 + "]" * 20_000 + "}"}).encode(),
        "400 malformed (nested too deep)",
    ),
    "a payload that is a JSON string": (encoded("block_actions"), "400 malformed (not a JSON"),
    "a form with a field twice": (b"command=%2Fbigidea&command=%2Fbigidea", "400 malformed"),
    "bytes that are not UTF-8": (b"\xff\xfe\x80command=x", "401 bad signature"),
    "a kind this app does not handle": (encoded({"type": "shortcut"}), "404 not handled"),
}


@pytest.mark.parametrize("what", list(SIGNED_MALFORMED))
async def test_signed_bodies_that_are_no_request_get_a_4xx(
    loop: Loopback, logged: LogSize, what: str
) -> None:
    body, reason = SIGNED_MALFORMED[what]
    status, _ = await loop.slack.send(body)
    assert status == int(reason[:3])
    assert logged.lines()[0].split(": ", 1)[1].startswith(reason), logged.lines()
    assert "Traceback" not in logged.text
    assert loop.api.calls == [] and await stored(loop) is None


# --- signed, but unreadable -------------------------------------------------------------------


def _command(loop: Loopback, **changes: str | None) -> bytes:
    return form(loop.slack.slash_body("/bigidea", "status", "UALICE", CHANNEL), **changes)


_CONTAINER = {"type": "message", "message_ts": "1.0", "channel_id": CHANNEL}
_HUGE = {"type": "button", "action_id": "brd1:br1|a|bigidea||1||" + "[" * 10_000}
_BAD_OPTIONS = {"action_id": STATUS_BUTTON, "selected_options": ["a"]}
UNREADABLE_CASES: dict[str, tuple[Callable[[Loopback], bytes], str | None]] = {
    "a command without channel_id": (lambda loop: _command(loop, channel_id=None), "response_url"),
    "a command without user_id": (lambda loop: _command(loop, user_id=None), None),
    "a command from a user id that is markup": (
        lambda loop: _command(loop, user_id="<!here>"),
        None,
    ),
    "a command that is no command": (lambda loop: _command(loop, command="bigidea"), "ephemeral"),
    "a press without a user": (lambda loop: encoded(press(loop, user=None)), None),
    "a press from a user without an id": (
        lambda loop: encoded(press(loop, user={"name": "x"})),
        None,
    ),
    "a press from a user that is a string": (
        lambda loop: encoded(press(loop, user="UALICE")),
        "ephemeral",
    ),
    "a press of no action": (lambda loop: encoded(press(loop, actions=[])), "ephemeral"),
    "a press of an action that is a string": (
        lambda loop: encoded(press(loop, actions=["x"])),
        "ephemeral",
    ),
    "a press whose options are not objects": (
        lambda loop: encoded(press(loop, actions=[_BAD_OPTIONS])),
        "ephemeral",
    ),
    "a press of a 10 kB action id": (
        lambda loop: encoded(press(loop, actions=[_HUGE])),
        "ephemeral",
    ),
    "a press from no channel": (
        lambda loop: encoded(press(loop, channel=None, container={"type": "message"})),
        "response_url",
    ),
    "a press whose channel is a string": (
        lambda loop: encoded(press(loop, channel=CHANNEL, container=_CONTAINER)),
        "ephemeral",
    ),
    "a press from a team that is a number": (
        lambda loop: encoded(press(loop, team=7)),
        "ephemeral",
    ),
    "a press whose is_ephemeral is a word": (
        lambda loop: encoded(press(loop, container={**_CONTAINER, "is_ephemeral": "no"})),
        "ephemeral",
    ),
    "a press from nowhere with a bad response URL": (
        lambda loop: encoded(press(loop, channel=None, container=None, response_url="x:y")),
        None,
    ),
    "a submission without its state": (lambda loop: encoded(submission(state=None)), "ephemeral"),
    "a submission whose view is a string": (
        lambda loop: encoded({**submission(), "view": "V1"}),
        None,
    ),
}
"""Signed bodies with a field missing or of the wrong type, and how the sender is told:
``ephemeral``, ``response_url``, or None (nobody can be: a 400)."""


@pytest.mark.parametrize("what", list(UNREADABLE_CASES))
async def test_a_signed_unreadable_payload_is_refused_with_a_private_sentence(
    loop: Loopback, game: GameRecord, logged: LogSize, what: str
) -> None:
    build, told = UNREADABLE_CASES[what]
    body = build(loop)
    since = len(loop.api.calls)
    status, _ = await loop.slack.send(body)
    await loop.adapter.settled()
    calls = loop.api.calls[since:]
    if told is None:
        assert status == 400
        assert calls == []
    else:
        assert status == 200
        assert said_to(loop, "UALICE", since) == [UNREADABLE]
        method = "response_url" if told == "response_url" else "chat.postEphemeral"
        assert [c.method for c in calls] == [method]
    assert await stored(loop) == game  # nothing was done
    assert "Traceback" not in logged.text
    kind = {"command": "command", "press": "block_actions", "submission": "view_submission"}
    reason = f"{status} unreadable {kind[what.split()[1]]}"
    if told is not None:
        reason += " (the sender was told)"
    assert [line.split(": ", 1)[1] for line in logged.lines()] == [reason]


async def test_an_unreadable_form_says_so_under_its_field(loop: Loopback, game: GameRecord) -> None:
    body = encoded(submission(private_metadata="{not json"))
    since = len(loop.api.calls)
    status, answer = await loop.slack.send(body)
    assert status == 200
    assert json.loads(answer) == {"response_action": "errors", "errors": {FORM_FIELD: UNREADABLE}}
    await loop.adapter.settled()
    assert loop.api.calls[since:] == [] and await stored(loop) == game


async def test_an_action_id_nested_deeper_than_any_action_is_an_unknown_button(
    loop: Loopback, game: GameRecord, logged: LogSize
) -> None:
    """Within Slack's 255 characters, as deep as fits: the press decodes to nothing."""
    deep = "brd1:br1|a|bigidea||1||" + "[" * 110 + "]" * 110
    since = len(loop.api.calls)
    action = {"type": "button", "action_id": deep, "block_id": "b"}
    status, _ = await loop.slack.send(encoded(press(loop, actions=[action])))
    await loop.adapter.settled()
    assert status == 200
    assert said_to(loop, "UALICE", since) == [UNKNOWN_BUTTON]
    assert await stored(loop) == game
    assert "Traceback" not in logged.text


async def test_a_command_whose_text_says_payload_is_still_a_command(loop: Loopback) -> None:
    """Bolt read any form holding the word "payload" as an interaction, found no payload
    field in it, and answered 404: the player's command was lost."""
    for user, text in (("UALICE", "start"), ("UBOB", "join payload")):
        body = loop.slack.slash_body("/biggiebills", text, user, CHANNEL)
        assert await loop.slack.post(body) == 200
        await loop.adapter.settled()
    record = await stored(loop)
    assert record is not None
    assert [(seat.name, seat.users) for seat in record.seats] == [
        ("ualice", ["UALICE"]),
        ("payload", ["UBOB"]),
    ]


async def test_requests_with_every_field_slack_sends_are_admitted(
    loop: Loopback, game: GameRecord, logged: LogSize
) -> None:
    """The checks take what Slack sends beside the fields read: empty enterprise fields, a
    message and its state, a view's hash and empty external id, nulls."""
    command = form(
        loop.slack.slash_body("/bigidea", "status", "UALICE", CHANNEL),
        team_domain="boardroom",
        enterprise_id="",
        enterprise_name="",
        is_enterprise_install="false",
    )
    full_press = press(
        loop,
        token="legacy",
        is_enterprise_install=False,
        enterprise=None,
        team={"id": "T0BOARD", "domain": "boardroom"},
        message={"type": "message", "ts": "1.0", "text": "board", "blocks": []},
        state={"values": {}},
        actions=[
            {
                "type": "button",
                "action_id": STATUS_BUTTON,
                "block_id": "b",
                "text": {"type": "plain_text", "text": "Status", "emoji": True},
                "value": "v",
                "action_ts": "1700000000.000100",
            }
        ],
    )
    view = {"hash": "1.abc", "external_id": "", "previous_view_id": None, "root_view_id": "V1"}
    full_submission = submission(**view) | {"response_urls": [], "is_enterprise_install": False}
    since = len(loop.api.calls)
    for body in (command, encoded(full_press), encoded(full_submission)):
        assert (await loop.slack.send(body))[0] == 200
        await loop.adapter.settled()
    said = said_to(loop, "UALICE", since)
    assert len(said) == 3 and UNREADABLE not in said, said
    assert logged.lines() == []


# --- the body limit ---------------------------------------------------------------------------


async def test_the_largest_real_payloads_fit_and_a_longer_body_is_413(
    loop: Loopback, game: GameRecord
) -> None:
    # A press on a message as full as Slack allows (50 sections of 3,000 characters Slack
    # escapes: \u00e9), and the submission of a modal of Slack's 100 blocks.
    def sections(n: int, letter: str) -> list[dict[str, Any]]:
        text = {"type": "mrkdwn", "text": letter * 3000}
        return [{"type": "section", "block_id": f"s{i}", "text": text} for i in range(n)]

    message = {"type": "message", "ts": "1.0", "text": "board", "blocks": sections(50, "é")}
    full_press = encoded(press(loop, message=message))
    modal = encoded(submission(blocks=sections(100, "x")))
    since = len(loop.api.calls)
    for body in (full_press, modal):
        assert 300_000 < len(body) < MAX_BODY
        status, _ = await loop.slack.send(body)
        assert status == 200
    await loop.adapter.settled()
    assert len(said_to(loop, "UALICE", since)) == 2, "both were answered"

    status, _ = await loop.slack.send(b"x" * (MAX_BODY + 1))
    assert status == 413

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(MAX_BODY // 65536 + 2):
            yield b"x" * 65536

    async with loop.slack.session.post(loop.slack.endpoint, data=chunks()) as response:
        assert response.status == 413  # no Content-Length: read no further than the limit


# --- the log of refusals ----------------------------------------------------------------------


async def test_refusals_are_logged_once_per_reason_then_counted(
    loop: Loopback, logged: LogSize
) -> None:
    now = [0.0]
    refusals = Refusals(clock=lambda: now[0])
    runner, port = await serve_http(loop.adapter, "127.0.0.1", 0, refusals=refusals)
    door = SignedClient(f"http://127.0.0.1:{port}/slack/events", SECRET, loop.slack.session)
    try:
        forwarded = {"X-Forwarded-For": "203.0.113.9, 10.0.0.1"}
        for _ in range(3):
            assert (await door.send(b"x", forwarded, signed=False))[0] == 401
        assert (await door.send(b"x", {"X-Forwarded-For": "<!channel>"}, signed=False))[0] == 401
        assert (await door.send(b"x", secret="forged"))[0] == 401
        now[0] = 11.0
        refusals.tick()  # what the server does every 10 s
        assert (await door.send(b"x", signed=False))[0] == 401  # within 10 s of the count
        now[0] = 30.0
        assert (await door.send(b"x", signed=False))[0] == 401
    finally:
        await runner.cleanup()
    assert logged.lines() == [
        "refused a Slack request from 127.0.0.1 (forwarded for 203.0.113.9): 401 unsigned",
        "refused a Slack request from 127.0.0.1: 401 bad signature",
        "refused 3 more Slack requests in the last 11 s: 401 unsigned",
        "refused 1 more Slack request in the last 19 s: 401 unsigned",
        "refused a Slack request from 127.0.0.1: 401 unsigned",
    ]
    assert refusals.total == {"401 unsigned": 6, "401 bad signature": 1}


# --- fuzzing ----------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value in ``value``."""
    found = [path] if path else []
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*path, index))
    return found


def _mutated(value: Any, path: tuple[Any, ...], new: Any, delete: bool) -> Any:
    head, *rest = path
    copy = dict(value) if isinstance(value, dict) else list(value)
    if rest:
        copy[head] = _mutated(copy[head], tuple(rest), new, delete)
    elif delete:
        del copy[head]
    else:
        copy[head] = new
    return copy


@settings(  # (no deadline: the suite's profile, tests/conftest.py)
    max_examples=60,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
async def test_fuzzed_signed_payloads_never_fail_nor_change_the_game(
    loop: Loopback, game: GameRecord, logged: LogSize, data: st.DataObject
) -> None:
    """Any field of a press or a form submission replaced by any JSON value, or left out; any
    field of a slash command (``status``: it changes nothing) but its text replaced by any
    string, or left out."""
    kind = data.draw(st.sampled_from(["press", "submission", "command"]))
    delete = data.draw(st.booleans())
    if kind == "command":
        fields = dict(
            parse_qsl(loop.slack.slash_body("/bigidea", "status", "UALICE", CHANNEL).decode())
        )
        name = data.draw(st.sampled_from(sorted(set(fields) - {"text"})))
        value = None if delete else data.draw(st.text(max_size=40))
        body = form(urlencode(fields).encode(), **{name: value})
    else:
        template = press(loop) if kind == "press" else submission()
        path = data.draw(st.sampled_from(_paths(template)))
        body = encoded(_mutated(template, path, data.draw(JSON), delete))
    since = len(loop.api.calls)
    status, _ = await loop.slack.send(body)
    await loop.adapter.settled()
    assert status in (200, 400, 404), (status, kind)
    assert SORRY not in said_to(loop, "UALICE", since)
    assert "Traceback" not in logged.text, logged.text[-3000:]
    assert await stored(loop) == game
