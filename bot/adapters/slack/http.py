"""Slack's HTTP mode: the Bolt app's endpoint and a health check on one aiohttp server."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from bot.adapters.slack.app import SlackAdapter
from storage.local_server import free_port

__all__ = ["EVENTS_PATH", "HEALTH_PATH", "Health", "serve_http"]

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"

Health = Callable[[], Awaitable[tuple[bool, dict[str, Any]]]]
SHUTDOWN_S = 3.0
"""How long requests in flight may take to finish once the worker stops (Slack wants every
answer within 3 s anyway); aiohttp's default, 60 s, would hold up a stop."""


async def serve_http(
    adapter: SlackAdapter, host: str, port: int, health: Health | None = None
) -> tuple[web.AppRunner, int]:
    """Serve the Bolt app's Events and Interactivity endpoint (port 0: a free one) and, with
    ``health``, ``GET /healthz`` (200 when healthy, else 503; the body says what is wrong).

    Returns the runner (to clean up) and the port.
    """
    app = adapter.app.web_app(path=EVENTS_PATH)
    if health is not None:

        async def healthz(_request: web.Request) -> web.Response:
            ok, report = await health()
            body = json.dumps({"ok": ok, **report})
            return web.Response(
                text=body, status=200 if ok else 503, content_type="application/json"
            )

        app.router.add_get(HEALTH_PATH, healthz)
    port = port or free_port()
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_S)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner, port
