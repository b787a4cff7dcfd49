"""A fake Discord (gateway websocket + REST) on 127.0.0.1, for the tests and the bench.

It speaks just enough of the protocol for the real discord.py client: HELLO, IDENTIFY, heartbeat
ACKs, READY, RESUME and INTERACTION_CREATE on the gateway; login, command sync, interaction
callbacks, followup webhooks, DM channels, channel messages and edits over REST. Every REST call
is recorded, and every message the bot creates is kept with its audience (the channel, one user's
ephemeral view, or one user's DMs), so a test can ask what a given user can see.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import WSMsgType, web

__all__ = ["APP_ID", "BOT_ID", "Call", "FakeDiscord", "FakeMessage", "FakeUser", "Interaction"]

APP_ID = 900_000_000_000_000_001
BOT_ID = 900_000_000_000_000_002
GUILD_ID = 900_000_000_000_000_003
_EPHEMERAL = 64
_TIMESTAMP = "2024-01-01T00:00:00+00:00"

Audience = Literal["channel", "ephemeral", "dm"]


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
    """One REST call the bot made."""

    method: str
    path: str
    body: Any
    at: float


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

    @property
    def content(self) -> str:
        return str(self.data.get("content") or "")

    @property
    def text(self) -> str:
        """Content, embed titles, descriptions and fields, and component labels, as one string."""
        parts = [self.content]
        for embed in self.data.get("embeds") or []:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields") or []]
        for component in self.components:
            parts.append(str(component.get("label") or component.get("placeholder") or ""))
            parts += [str(o.get("label")) for o in component.get("options") or []]
        return "\n".join(p for p in parts if p)

    @property
    def components(self) -> list[dict[str, Any]]:
        """Buttons and selects, flattened out of their action rows."""
        return [c for row in self.data.get("components") or [] for c in row.get("components", [])]


@dataclass
class Interaction:
    """An interaction sent to the bot, and what became of it."""

    id: int
    token: str
    user: FakeUser
    channel_id: int
    sent_at: float
    answered: asyncio.Future[float]
    """Resolves to the time the bot's callback arrived."""
    callback: dict[str, Any] | None = None
    messages: list[FakeMessage] = field(default_factory=list)
    """Messages created for this interaction (its response and followups)."""


class FakeDiscord:
    """The fake server; ``start()`` it, point the client at ``api_url`` / ``gateway_url``."""

    def __init__(self, guild_id: int = GUILD_ID) -> None:
        self.guild_id = guild_id
        self.calls: list[Call] = []
        self.messages: dict[int, FakeMessage] = {}
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
        self.identified = asyncio.Event()
        self._dm_channels: dict[int, int] = {}
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
        """Ephemeral messages and DMs ``user`` received, oldest first."""
        return self._private_messages.get(user.id, [])

    def public(self, channel_id: int) -> list[FakeMessage]:
        """The channel's messages, oldest first."""
        return self._channel_messages.get(channel_id, [])

    # --- sending interactions --------------------------------------------------------------

    async def slash(
        self,
        user: FakeUser,
        channel_id: int,
        group: str,
        sub: str,
        options: dict[str, str] | None = None,
        dm: bool = False,
    ) -> Interaction:
        """``/<group> <sub> [options]`` typed by ``user`` (``dm``: in their DM with the bot)."""
        inner = [{"name": k, "type": 3, "value": v} for k, v in (options or {}).items()]
        data: dict[str, Any] = {
            "id": str(next(self._ids)),
            "name": group,
            "type": 1,
            "options": [{"name": sub, "type": 1, "options": inner}] if sub else inner,
        }
        if not dm and group in {c["name"] for c in self.commands.get(str(self.guild_id), [])}:
            data["guild_id"] = str(self.guild_id)
        return await self._interact(user, channel_id, 2, data, None, dm)

    async def click(
        self, user: FakeUser, message: FakeMessage, custom_id: str, values: list[str] | None = None
    ) -> Interaction:
        """``user`` presses the component ``custom_id`` of ``message`` (a select with values)."""
        kind = next(c["type"] for c in message.components if c.get("custom_id") == custom_id)
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": kind}
        if values is not None:
            data["values"] = values
        dm = message.audience == "dm"
        return await self._interact(user, message.channel_id, 3, data, message, dm)

    async def _interact(
        self,
        user: FakeUser,
        channel_id: int,
        kind: int,
        data: dict[str, Any],
        message: FakeMessage | None,
        dm: bool,
    ) -> Interaction:
        interaction_id = next(self._ids)
        token = f"token-{interaction_id}"
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(APP_ID),
            "type": kind,
            "token": token,
            "version": 1,
            "attachment_size_limit": 8_000_000,
            "data": data,
            "channel_id": str(channel_id),
            "locale": "en-US",
            "app_permissions": "0",
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
            payload["channel"] = {
                "id": str(channel_id),
                "type": 0,
                "guild_id": str(self.guild_id),
                "name": f"table-{channel_id}",
                "position": 0,
            }
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
            payload["message"] = message.data
        record = Interaction(
            id=interaction_id,
            token=token,
            user=user,
            channel_id=channel_id,
            sent_at=time.perf_counter(),
            answered=asyncio.get_running_loop().create_future(),
        )
        self.interactions[interaction_id] = record
        self._tokens[token] = record
        await self.dispatch("INTERACTION_CREATE", payload)
        return record

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a dispatch to the newest identified gateway connection."""
        for ws, seq in reversed(self._sockets):
            if not ws.closed:
                seq[0] += 1
                await ws.send_str(json.dumps({"op": 0, "t": event, "s": seq[0], "d": data}))
                return
        raise RuntimeError("no bot is connected to the fake gateway")

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
        raw = await request.read()
        body = json.loads(raw) if raw and request.content_type == "application/json" else None
        path = "/" + request.match_info["path"]
        self.calls.append(Call(request.method, path, body, time.perf_counter()))
        parts = path.strip("/").split("/")
        method = request.method
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
        if parts[0] == "interactions" and parts[-1] == "callback":
            return self._callback(int(parts[1]), body or {})
        if parts[0] == "webhooks":
            return self._webhook(method, parts, body or {})
        if path == "/users/@me/channels" and method == "POST":
            recipient = int((body or {})["recipient_id"])
            channel = self._dm_channels.setdefault(recipient, next(self._ids))
            return _json(
                {
                    "id": str(channel),
                    "type": 1,
                    "recipients": [{**FakeUser(recipient, f"user{recipient}").payload()}],
                    "last_message_id": None,
                }
            )
        if parts[0] == "channels" and len(parts) >= 3 and parts[2] == "messages":
            channel_id = int(parts[1])
            if method == "POST":
                return self._channel_post(channel_id, body or {})
            if method == "PATCH" and len(parts) == 4:
                return self._edit(int(parts[3]), body or {})
        return _json({"message": f"fake Discord has no route {method} {path}", "code": 0}, 404)

    def _callback(self, interaction_id: int, body: dict[str, Any]) -> web.Response:
        interaction = self.interactions.get(interaction_id)
        if interaction is None:
            return _json({"message": "Unknown interaction", "code": 10062}, 404)
        if interaction.callback is not None:
            acknowledged = {"message": "Interaction has already been acknowledged.", "code": 40060}
            return _json(acknowledged, 400)
        interaction.callback = body
        if not interaction.answered.done():
            interaction.answered.set_result(time.perf_counter())
        kind = body.get("type")
        data = body.get("data") or {}
        resource: dict[str, Any] = {"type": kind}
        message_id = None
        if kind == 4:
            message = self._create(interaction, data)
            resource["message"] = message.data
            message_id = message.id
        return _json(
            {
                "interaction": {
                    "id": str(interaction_id),
                    "type": 2,
                    "response_message_id": str(message_id) if message_id else None,
                    "response_message_loading": kind == 5,
                    "response_message_ephemeral": bool(data.get("flags", 0) & _EPHEMERAL),
                },
                "resource": resource,
            }
        )

    def _webhook(self, method: str, parts: list[str], body: dict[str, Any]) -> web.Response:
        token = parts[2]
        interaction = self._tokens.get(token)
        if interaction is None:
            return _json({"message": "Unknown webhook", "code": 10015}, 404)
        if method == "POST":
            return _json(self._create(interaction, body).data)
        if method == "PATCH" and len(parts) == 5:
            if parts[4] == "@original":
                if not interaction.messages:
                    message = self._create(interaction, body)
                    return _json(message.data)
                return self._edit(interaction.messages[0].id, body)
            return self._edit(int(parts[4]), body)
        return _json({"message": "fake Discord: unsupported webhook call", "code": 0}, 404)

    def _create(self, interaction: Interaction, data: dict[str, Any]) -> FakeMessage:
        ephemeral = bool(data.get("flags", 0) & _EPHEMERAL)
        message = self._message(
            interaction.channel_id,
            "ephemeral" if ephemeral else "channel",
            interaction.user.id if ephemeral else None,
            data,
        )
        interaction.messages.append(message)
        return message

    def _channel_post(self, channel_id: int, body: dict[str, Any]) -> web.Response:
        recipient = next((u for u, c in self._dm_channels.items() if c == channel_id), None)
        if recipient is not None and recipient in self.closed_dms:
            return _json({"message": "Cannot send messages to this user", "code": 50007}, 403)
        audience: Audience = "dm" if recipient is not None else "channel"
        return _json(self._message(channel_id, audience, recipient, body).data)

    def _message(
        self, channel_id: int, audience: Audience, user: int | None, body: dict[str, Any]
    ) -> FakeMessage:
        message_id = next(self._ids)
        flags = int(body.get("flags") or 0)
        data = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "type": 0,
            "author": {**self._bot_user(), "bot": True},
            "content": body.get("content") or "",
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "attachments": [],
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "timestamp": _TIMESTAMP,
            "edited_timestamp": None,
            "flags": flags,
        }
        message = FakeMessage(message_id, channel_id, audience, user, data)
        self.messages[message_id] = message
        if user is not None:
            self._private_messages.setdefault(user, []).append(message)
        else:
            self._channel_messages.setdefault(channel_id, []).append(message)
        if audience == "channel":
            self.activity[channel_id] = self.activity.get(channel_id, 0) + 1
        return message

    def _edit(self, message_id: int, body: dict[str, Any]) -> web.Response:
        message = self.messages.get(message_id)
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        for key in ("content", "embeds", "components"):
            if key in body:
                message.data[key] = body[key] if body[key] is not None else []
        message.edits += 1
        if message.audience == "channel":
            self.activity[message.channel_id] = self.activity.get(message.channel_id, 0) + 1
        message.data["edited_timestamp"] = _TIMESTAMP
        return _json(message.data)


def _json(data: Any, status: int = 200) -> web.Response:
    # discord.py parses JSON only when the content type is exactly application/json.
    return web.Response(
        body=json.dumps(data).encode(), status=status, content_type="application/json"
    )
