"""A fake Slack Web API on 127.0.0.1 that records every call, and a client that signs requests.

It ships with the bot (not only the tests) because ``boardroom bench --adapter slack`` drives the
real Bolt app against it. It answers the methods the adapter uses the way Slack does (``ok``,
``ts``, ``channel``) and nothing more.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from aiohttp import ClientSession, web

from storage.local_server import free_port

__all__ = ["HANDLED", "Call", "FakeSlackAPI", "SignedClient", "sign"]

BOT_USER = "UBOARDROOM"
TEAM = "T0BOARD"
HANDLED = "boardroom.handled"
"""Not a Slack method: a bot under benchmark in another process calls it once it has answered
a request (``{"user": ...}``), so the load generator knows when the answer is complete."""


@dataclass
class Call:
    """One Web API call as the fake received it."""

    method: str
    args: dict[str, Any]
    at: float = field(default_factory=time.perf_counter)
    ts: str | None = None
    """The message ts the fake answered with, for posts."""

    @property
    def blocks(self) -> list[dict[str, Any]]:
        raw = self.args.get("blocks") or []
        return list(json.loads(raw) if isinstance(raw, str) else raw)


class FakeSlackAPI:
    """An aiohttp server speaking enough of ``https://slack.com/api/`` for the adapter.

    ``calls`` holds every call in arrival order; ``on_call`` callbacks see each as it arrives
    (the bench uses them to time answers). ``socket_url`` is what ``apps.connections.open`` hands
    a Socket Mode client.
    """

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.on_call: list[Callable[[Call], None]] = []
        self.socket_url: str | None = None
        self.fail: dict[str, str] = {}
        """Method name -> Slack error code to answer with (e.g. ``message_not_found``)."""
        self._ts = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self, port: int = 0) -> str:
        """Serve on 127.0.0.1 (a free port by default); returns the base URL, with its slash."""
        app = web.Application()
        app.router.add_post("/api/{method}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        port = port or free_port()
        await web.TCPSite(self._runner, "127.0.0.1", port).start()
        self.url = f"http://127.0.0.1:{port}/api/"
        return self.url

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def called(self, *methods: str) -> list[Call]:
        return [c for c in self.calls if c.method in methods]

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        raw = await request.read()
        if request.content_type == "application/json":
            args: dict[str, Any] = json.loads(raw or b"{}")
        else:
            args = dict(parse_qsl(raw.decode()))
        # slack_sdk sends some methods' arguments in the query string.
        args = {**dict(request.query), **args}
        call = Call(method, args)
        answer = self._answer(call)
        self.calls.append(call)
        for listener in self.on_call:
            listener(call)
        return web.json_response(answer)

    def _answer(self, call: Call) -> dict[str, Any]:
        if call.method in self.fail:
            return {"ok": False, "error": self.fail[call.method]}
        args = call.args
        if call.method == "auth.test":
            return {"ok": True, "user_id": BOT_USER, "bot_id": "B0BOARD", "team_id": TEAM}
        if call.method in ("chat.postMessage", "chat.update"):
            call.ts = args.get("ts") or f"{next(self._ts)}.000100"
            return {"ok": True, "channel": args.get("channel"), "ts": call.ts}
        if call.method == "chat.postEphemeral":
            call.ts = f"{next(self._ts)}.000200"
            return {"ok": True, "message_ts": call.ts}
        if call.method == "conversations.open":
            return {"ok": True, "channel": {"id": f"D{args.get('users', '')}"}}
        if call.method == HANDLED:
            return {"ok": True}
        if call.method == "apps.connections.open" and self.socket_url:
            return {"ok": True, "url": self.socket_url}
        return {"ok": False, "error": "unknown_method"}


def sign(secret: str, body: bytes, timestamp: int) -> str:
    """Slack's request signature: ``v0=`` HMAC-SHA256 of ``v0:<timestamp>:<body>``."""
    base = b"v0:" + str(timestamp).encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


class SignedClient:
    """Posts slash commands and block actions to a Bolt endpoint, signed as Slack would."""

    def __init__(self, endpoint: str, secret: str, session: ClientSession) -> None:
        self.endpoint = endpoint
        self.secret = secret
        self.session = session
        self._triggers = itertools.count(1)

    def trigger_id(self) -> str:
        return f"{next(self._triggers)}.{time.time_ns()}"

    def slash_body(
        self, command: str, text: str, user: str, channel: str, trigger_id: str | None = None
    ) -> bytes:
        form = {
            "token": "unused",
            "team_id": TEAM,
            "channel_id": channel,
            "channel_name": "directmessage" if channel.startswith("D") else channel,
            "user_id": user,
            "user_name": user.lower(),
            "command": command,
            "text": text,
            "response_url": "http://127.0.0.1:9/unused",
            "trigger_id": trigger_id or self.trigger_id(),
            "api_app_id": "A0BOARD",
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
        payload = {
            "type": "block_actions",
            "team": {"id": TEAM},
            "user": {"id": user, "username": user.lower(), "name": user.lower()},
            "api_app_id": "A0BOARD",
            "channel": {"id": channel, "name": channel},
            "container": {
                "type": "message",
                "message_ts": message_ts,
                "channel_id": channel,
                "is_ephemeral": ephemeral,
            },
            "trigger_id": self.trigger_id(),
            "response_url": "http://127.0.0.1:9/unused",
            "actions": [{**action, "action_ts": f"{time.time():.6f}"}],
        }
        return urlencode({"payload": json.dumps(payload)}).encode()

    async def post(
        self, body: bytes, timestamp: int | None = None, secret: str | None = None, retry: int = 0
    ) -> int:
        """POST ``body`` signed with ``secret`` (default: the right one) at ``timestamp``."""
        ts = int(time.time()) if timestamp is None else timestamp
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Slack-Request-Timestamp": str(ts),
            "X-Slack-Signature": sign(secret or self.secret, body, ts),
        }
        if retry:
            headers["X-Slack-Retry-Num"] = str(retry)
            headers["X-Slack-Retry-Reason"] = "http_timeout"
        async with self.session.post(self.endpoint, data=body, headers=headers) as response:
            await response.read()
            return response.status
