"""A fake Socket Mode websocket on 127.0.0.1: sends envelopes, collects the app's acks."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import WSMsgType, web


class FakeSocketMode:
    """Accepts one Socket Mode client; ``send`` an envelope, ``acks`` gets what came back."""

    def __init__(self) -> None:
        self.acks: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.connected = asyncio.Event()
        self._ws: web.WebSocketResponse | None = None
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> str:
        app = web.Application()
        app.router.add_get("/link", self._socket)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"ws://127.0.0.1:{port}/link"
        return self.url

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def send(self, envelope: dict[str, Any]) -> None:
        assert self._ws is not None
        await self._ws.send_str(json.dumps(envelope))

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._ws = ws
        await ws.send_str(json.dumps({"type": "hello", "num_connections": 1}))
        self.connected.set()
        async for message in ws:
            if message.type == WSMsgType.TEXT:
                await self.acks.put(json.loads(message.data))
        return ws
