"""``boardroom slack`` (Socket Mode, or ``--http``) and ``boardroom bench --adapter slack``."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable

from aiohttp import ClientError, ClientSession
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot import metrics
from bot.adapters.slack.app import PLATFORM, SlackAdapter
from bot.adapters.slack.budget import BudgetedWebClient
from bot.adapters.slack.http import EVENTS_PATH, HEALTH_PATH, serve_http
from bot.runtime import (
    FirstFailure,
    NoAnswer,
    Runtime,
    StartFailed,
    Stopped,
    freeze_startup,
    settle,
    step,
    stop_on_signals,
    unreachable,
    warm_drawer,
)
from bot.settings import Settings

__all__ = ["add_arguments", "run"]

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://slack.com/api/"
SOCKET_LOG = logging.getLogger("bot.adapters.slack.socket")
"""What slack_sdk's Socket Mode client logs (connections, retries)."""
REVOKED = frozenset({"token_revoked", "token_expired", "account_inactive"})
"""Slack's answers for a token that worked once: the app was uninstalled or the token revoked."""
TOKEN_ERRORS = REVOKED | {"invalid_auth", "not_authed", "not_allowed_token_type"}
"""Slack's answers for a token it does not take: a setting to change (exit status 2)."""
TOKEN_KINDS = {
    "SLACK_BOT_TOKEN": "the Bot User OAuth Token, xoxb-...",
    "SLACK_APP_TOKEN": "an app-level token with connections:write, xapp-...",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``boardroom slack``."""
    parser.add_argument(
        "--http",
        action="store_true",
        help="serve the Events and Interactivity endpoint (/slack/events) instead of Socket Mode",
    )
    parser.add_argument("--port", type=int, default=3000, help="the HTTP port with --http")
    parser.add_argument(
        "--host",
        default=None,
        help="the address to listen on with --http (default: SLACK_HTTP_HOST, 127.0.0.1; "
        "0.0.0.0 behind a load balancer or in a container)",
    )


def _missing(settings: Settings, http: bool) -> list[str]:
    needed = {"SLACK_BOT_TOKEN": settings.slack_bot_token}
    if http:
        needed["SLACK_SIGNING_SECRET"] = settings.slack_signing_secret
    else:
        needed["SLACK_APP_TOKEN"] = settings.slack_app_token
    return [name for name, value in needed.items() if not value]


def run(settings: Settings, args: argparse.Namespace) -> int:
    """Run the Slack bot until SIGINT or SIGTERM (0); 2 when a token it needs is missing or
    refused, 1 when Slack cannot be reached (one sentence on stderr either way)."""
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
    host = getattr(args, "host", None) or settings.slack_http_host
    return asyncio.run(_serve(settings, http, host, int(getattr(args, "port", 3000))))


def api_url(settings: Settings) -> str:
    """SLACK_API_URL with the trailing slash slack_sdk joins method names onto."""
    url = settings.slack_api_url or DEFAULT_API_URL
    return url if url.endswith("/") else url + "/"


async def _serve(settings: Settings, http: bool, host: str, port: int) -> int:
    stop = stop_on_signals()
    # Every Web API call, response URL and upload is counted (bot.metrics.http_trace).
    session = ClientSession(trace_configs=[metrics.http_trace(PLATFORM)])
    try:
        async with Runtime(settings, PLATFORM, stop) as runtime:
            return await _start_and_run(runtime, session, http, host, port)
    except StartFailed as failure:
        print(failure, file=sys.stderr)
        return failure.status
    except Stopped:
        print("Stopped before the bot had connected to Slack.", file=sys.stderr)
        return 0
    finally:
        await settle(session.close(), "closing the Web API session")


async def _start_and_run(
    runtime: Runtime, session: ClientSession, http: bool, host: str, port: int
) -> int:
    """Check the bot token, serve (HTTP) or connect (Socket Mode), then run the deadline loop
    until stopped (0) or it dies (LOOP_DIED); a start that fails raises :class:`StartFailed`."""
    settings, stop = runtime.settings, runtime.stop
    url = api_url(settings)
    timeout = settings.connect_timeout_seconds
    client = BudgetedWebClient(token=settings.slack_bot_token, base_url=url, session=session)
    secret = settings.slack_signing_secret if http else None
    adapter = SlackAdapter(runtime.authority, client, secret)
    runtime.bind(adapter.table, adapter.desk)
    await _slack_step(client.auth_test(), "SLACK_BOT_TOKEN", url, stop, timeout)
    warm_drawer(runtime.drawer)  # the token is taken: the bot is starting
    freeze_startup()
    await runtime.serve_ops()
    if http:
        try:
            runner, bound = await serve_http(adapter, host, port, runtime.health)
        except OSError as error:
            raise StartFailed(
                f"Cannot listen on {host} port {port}: {unreachable(error)} (SLACK_HTTP_HOST or "
                "--host sets the address)."
            ) from None
        stopping: Callable[[], Awaitable[object]] = runner.cleanup
        print(
            f"Slack HTTP mode: listening on {host}:{bound}{EVENTS_PATH} (health: {HEALTH_PATH})",
            file=sys.stderr,
        )
    else:
        stopping = await _connect_socket(adapter, settings, url, stop, timeout)
        print("Slack Socket Mode: connected.", file=sys.stderr)
    runtime.start_deadlines(adapter.deliver)
    try:
        code = await runtime.until_stopped()
        if code == 0:
            print("Stopped.", file=sys.stderr)
        return code
    finally:
        stop.set()
        await settle(adapter.table.flush(), "showing the board pictures held back")
        await settle(stopping(), "closing the connection to Slack")


async def _connect_socket(
    adapter: SlackAdapter, settings: Settings, url: str, stop: asyncio.Event, timeout: float
) -> Callable[[], Awaitable[object]]:
    """Open the Socket Mode connection; returns what closes it.

    The app token is checked with ``apps.connections.open`` first (its answer is the socket
    URL the handler connects to), so a refused token is a sentence rather than slack_sdk's
    retry loop. The handler's connect then runs as a task: it retries a failed websocket for
    ever, logging a traceback each time; the first failure ends the start instead
    (:class:`FirstFailure`), and a stop or the timeout cancels it.
    """
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

    token = settings.slack_app_token or ""  # run() checked it is set
    opened = await _slack_step(
        adapter.client.apps_connections_open(app_token=token), "SLACK_APP_TOKEN", url, stop, timeout
    )
    handler = AsyncSocketModeHandler(adapter.app, token, logger=SOCKET_LOG)
    handler.client.wss_uri = str(opened["url"])
    with FirstFailure(SOCKET_LOG, "Failed to connect") as watch:
        connecting = asyncio.ensure_future(handler.connect_async())  # type: ignore[no-untyped-call]
        either: set[asyncio.Future[None] | asyncio.Future[BaseException]] = {
            connecting,
            watch.failed,
        }
        try:
            try:
                await step(
                    asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED),
                    stop,
                    timeout,
                )
            except NoAnswer:
                raise StartFailed(
                    f"Slack's Socket Mode connection did not open within {timeout:g} s: check "
                    "the network (BOARDROOM_CONNECT_TIMEOUT_SECONDS sets the wait)."
                ) from None
            if watch.failed.done() and not watch.failed.cancelled():
                error = watch.failed.result()
                raise StartFailed(
                    f"Could not open Slack's Socket Mode connection: "
                    f"{unreachable(error) or repr(error)}. Check that the network lets the bot "
                    "open websockets (wss://) to Slack."
                )
            connecting.result()
        except BaseException:
            connecting.cancel()
            closing = handler.close_async()  # type: ignore[no-untyped-call]
            await settle(closing, "closing the Socket Mode connection")
            raise
    close: Callable[[], Awaitable[object]] = handler.close_async
    return close


async def _slack_step(
    call: Awaitable[AsyncSlackResponse], setting: str, url: str, stop: asyncio.Event, timeout: float
) -> AsyncSlackResponse:
    """One Web API call of starting, its failure as a sentence naming ``setting``'s token."""
    try:
        return await step(call, stop, timeout)
    except SlackApiError as error:
        code = str(error.response.get("error"))
        raise StartFailed(_refusal(code, setting), 2 if code in TOKEN_ERRORS else 1) from None
    except NoAnswer:
        raise StartFailed(
            f"Slack at {url} did not answer within {timeout:g} s: check the network, or "
            "SLACK_API_URL (BOARDROOM_CONNECT_TIMEOUT_SECONDS sets the wait)."
        ) from None
    except (OSError, ClientError) as error:
        raise StartFailed(
            f"Could not reach Slack at {url}: {unreachable(error)}. Check the network, or "
            "SLACK_API_URL."
        ) from None


def _refusal(code: str, setting: str) -> str:
    """The sentence for Slack's ``code`` refusing a call made with ``setting``'s token."""
    if code in REVOKED:
        return (
            f"Slack says {setting} no longer works ({code}): the app was uninstalled or its "
            "token revoked; reinstall the app (docs/slack.md) and copy its new token."
        )
    if code in TOKEN_ERRORS:
        kind = TOKEN_KINDS.get(setting, "a Slack token")
        return f"Slack refused {setting} ({code}): it must be {kind} (docs/slack.md)."
    return f"Slack refused to start the bot ({code}): try again later, or see docs/slack.md."
