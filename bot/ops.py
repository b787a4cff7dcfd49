"""What an operator reads of a running worker: ``GET /healthz`` and ``GET /metrics`` on the port
``BOARDROOM_METRICS_PORT`` names (every runtime: Discord, Slack Socket Mode, Slack HTTP), and the
log as JSON lines (``BOARDROOM_LOG_FORMAT=json``).

The server is aiohttp's, on the bot's own event loop: a scrape or a health check is answered
between two interactions, and ``/healthz`` within ``BOARDROOM_HEALTH_TIMEOUT_SECONDS`` however
Redis fails (:func:`bot.health.health`).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from bot import metrics

__all__ = ["HEALTH_PATH", "METRICS_PATH", "Health", "JsonLines", "healthz", "serve_ops"]

HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"
SHUTDOWN_S = 1.0
"""How long a scrape in flight may take to finish once the worker stops."""

Health = Callable[[], Awaitable[tuple[bool, Mapping[str, object]]]]


def healthz(health: Health) -> Callable[[web.Request], Awaitable[web.Response]]:
    """The handler of ``GET /healthz``: 200 when healthy, else 503; the body says what is wrong
    (the same on the ops port and on Slack's HTTP mode's own port)."""

    async def handler(_request: web.Request) -> web.Response:
        ok, report = await health()
        body = json.dumps({"ok": ok, **report})
        return web.Response(text=body, status=200 if ok else 503, content_type="application/json")

    return handler


async def _metrics(_request: web.Request) -> web.Response:
    response = web.Response(body=metrics.scrape())
    response.headers["Content-Type"] = CONTENT_TYPE_LATEST
    return response


async def serve_ops(host: str, port: int, health: Health) -> tuple[web.AppRunner, int]:
    """Serve ``/healthz`` and ``/metrics`` on ``host``:``port`` (0: a free port); the runner
    (to clean up) and the port. OSError when the address cannot be listened on."""
    app = web.Application()
    app.router.add_get(HEALTH_PATH, healthz(health))
    app.router.add_get(METRICS_PATH, _metrics)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_S)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError:
        await runner.cleanup()
        raise
    bound = runner.addresses[0][1] if port == 0 else port
    return runner, int(bound)


class JsonLines(logging.Formatter):
    """One JSON object a line: time, level, logger, message and, while a request is handled,
    its platform, kind, channel, game and delivery id (:func:`bot.metrics.in_context`). What a
    player typed is never in it: the bot's own log lines name ids and kinds, never text."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, str | float] = {
            "ts": round(record.created, 3),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        context = metrics.context()
        for field in ("platform", "channel", "game", "delivery"):
            value = getattr(context, field)
            if value:
                line[field] = value
        if context.platform:
            line["kind"] = context.kind
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)
