"""``boardroom slack`` (Socket Mode, or ``--http``) and ``boardroom bench --adapter slack``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys

from aiohttp import ClientSession
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack.app import PLATFORM, SlackAdapter
from bot.adapters.slack.http import EVENTS_PATH, HEALTH_PATH, serve_http
from bot.commands.authority import Authority
from bot.commands.deadlines import Heartbeat, run_deadlines, until_stopped
from bot.health import health
from bot.runtime import freeze_startup, open_store, warn_about_policy
from bot.settings import Settings

__all__ = ["add_arguments", "bench", "run"]

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://slack.com/api/"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``boardroom slack``."""
    parser.add_argument(
        "--http",
        action="store_true",
        help="serve the Events and Interactivity endpoint (/slack/events) instead of Socket Mode",
    )
    parser.add_argument("--port", type=int, default=3000, help="the HTTP port with --http")


def _missing(settings: Settings, http: bool) -> list[str]:
    needed = {"SLACK_BOT_TOKEN": settings.slack_bot_token}
    if http:
        needed["SLACK_SIGNING_SECRET"] = settings.slack_signing_secret
    else:
        needed["SLACK_APP_TOKEN"] = settings.slack_app_token
    return [name for name, value in needed.items() if not value]


def run(settings: Settings, args: argparse.Namespace) -> int:
    """Run the Slack bot until interrupted; 2 when a token it needs is missing."""
    http = bool(getattr(args, "http", False))
    missing = _missing(settings, http)
    if missing:
        mode = "HTTP mode" if http else "Socket Mode"
        print(
            f"Slack {mode} needs {' and '.join(missing)} (see docs/slack.md to create the app "
            "and find them).",
            file=sys.stderr,
        )
        return 2
    return asyncio.run(_serve(settings, http, int(getattr(args, "port", 3000))))


def api_url(settings: Settings) -> str:
    """SLACK_API_URL with the trailing slash slack_sdk joins method names onto."""
    url = settings.slack_api_url or DEFAULT_API_URL
    return url if url.endswith("/") else url + "/"


async def _serve(settings: Settings, http: bool, port: int) -> int:
    store = open_store(settings)
    await warn_about_policy(store)
    session = ClientSession()
    client = AsyncWebClient(
        token=settings.slack_bot_token, base_url=api_url(settings), session=session
    )
    authority = Authority(store, settings)
    adapter = SlackAdapter(authority, client, settings.slack_signing_secret if http else None)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    freeze_startup()
    heartbeat = Heartbeat(settings.deadline_poll_seconds)
    deadlines = asyncio.create_task(
        run_deadlines(
            authority, PLATFORM, adapter.deliver, settings.deadline_poll_seconds, stop, heartbeat
        )
    )
    code = 0
    try:
        if http:
            runner, bound = await serve_http(
                adapter, "0.0.0.0", port, lambda: health(authority, heartbeat)
            )
            print(
                f"Slack HTTP mode: listening on :{bound}{EVENTS_PATH} (health: {HEALTH_PATH})",
                file=sys.stderr,
            )
            code = await until_stopped(stop, deadlines)
            await runner.cleanup()
        else:
            from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

            handler = AsyncSocketModeHandler(adapter.app, settings.slack_app_token)
            await handler.connect_async()  # type: ignore[no-untyped-call]
            print("Slack Socket Mode: connected.", file=sys.stderr)
            code = await until_stopped(stop, deadlines)
            await handler.close_async()  # type: ignore[no-untyped-call]
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            await deadlines
        await session.close()
        await store.close()
    return code


async def bench(settings: Settings, games: int, seed: int) -> int:
    """``boardroom bench --adapter slack``; see :mod:`bench.slack`."""
    from bench.slack import run_bench

    return await run_bench(settings, games, seed)
