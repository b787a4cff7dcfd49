"""``boardroom discord [run|invite] [--shard-ids 0,1] [--shard-count N]`` and the bench hook."""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import logging
import sys

import aiohttp
import discord

from bot import metrics
from bot.adapters.discord.adapter import INVITE_PERMISSIONS, PLATFORM
from bot.adapters.discord.client import BoardroomClient, point_at
from bot.runtime import (
    STOP_GRACE_S,
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

__all__ = ["SCOPES", "add_arguments", "invite_url", "run"]

log = logging.getLogger(__name__)

SCOPES = ("bot", "applications.commands")
AUTHENTICATION_FAILED = 4004
"""The gateway's close code for a token it does not take."""
TOKEN_REFUSED = "Discord refused the bot token (401 Unauthorized): check DISCORD_TOKEN."
NO_TOKEN = (
    "DISCORD_TOKEN is not set: create a bot in the Discord developer portal and put its token "
    "in DISCORD_TOKEN (environment or .env). See docs/discord.md."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        nargs="?",
        choices=["run", "invite"],
        default="run",
        help="run the bot (default) or print its invite URL",
    )
    parser.add_argument(
        "--shard-ids",
        default="",
        help="comma-separated shards this process runs (with --shard-count), e.g. 0,1",
    )
    parser.add_argument(
        "--shard-count", type=int, default=None, help="total shards across every process"
    )
    parser.add_argument(
        "--client-id", default=None, help="application id for `invite` (default: from the token)"
    )


def invite_url(client_id: int) -> str:
    """The OAuth2 URL that adds the bot with exactly the scopes and permissions it needs."""
    return discord.utils.oauth_url(client_id, permissions=INVITE_PERMISSIONS, scopes=SCOPES)


def _client_id_of(token: str) -> int | None:
    # A bot token's first part is the bot user's id (which is the application id) in base64.
    head = token.split(".", 1)[0]
    try:
        return int(base64.b64decode(head + "=" * (-len(head) % 4)).decode())
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def run(settings: Settings, args: argparse.Namespace) -> int:
    """Run the bot until SIGINT or SIGTERM (0), or print the invite URL; 2 when a setting is
    missing or refused, 1 when Discord cannot be reached (one sentence on stderr either way)."""
    if args.action == "invite":
        client_id = int(args.client_id) if args.client_id else None
        if client_id is None and settings.discord_token:
            client_id = _client_id_of(settings.discord_token)
        if client_id is None:
            print("Give --client-id (the application id) or set DISCORD_TOKEN.", file=sys.stderr)
            return 2
        print(invite_url(client_id))
        return 0
    if not settings.discord_token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    try:
        shard_ids = [int(p) for p in args.shard_ids.split(",") if p.strip()]
    except ValueError:
        print("--shard-ids takes numbers separated by commas, e.g. 0,1", file=sys.stderr)
        return 2
    if shard_ids and args.shard_count is None:
        print("--shard-ids needs --shard-count (the total across processes)", file=sys.stderr)
        return 2
    return asyncio.run(_run(settings, settings.discord_token, shard_ids, args.shard_count))


async def _run(
    settings: Settings, token: str, shard_ids: list[int], shard_count: int | None
) -> int:
    stop = stop_on_signals()
    caveat = "Shard processes cannot share games without Redis."
    try:
        async with Runtime(settings, PLATFORM, stop, caveat=caveat) as runtime:
            point_at(settings.discord_api_url, settings.discord_gateway_url)
            # The runtime runs the deadline loop (its heartbeat is the health check's).
            client = BoardroomClient(
                runtime.authority, settings, shard_ids or None, shard_count, False
            )
            # Every REST call is counted (bot.metrics.http_trace), before login opens the session.
            client.http.http_trace = metrics.http_trace(PLATFORM)
            runtime.bind(client.adapter.table, client.adapter.desk)
            freeze_startup()
            async with client:
                try:
                    return await _serve(client, token, runtime)
                finally:
                    await settle(client.close(), "closing the connection to Discord")
    except StartFailed as failure:
        print(failure, file=sys.stderr)
        return failure.status
    except Stopped:
        print("Stopped before the bot had connected to Discord.", file=sys.stderr)
        return 0


async def _serve(client: BoardroomClient, token: str, runtime: Runtime) -> int:
    """Log in, open the gateway, then run until stopped (0) or the deadline loop dies
    (LOOP_DIED); a start that fails raises :class:`StartFailed` with its sentence."""
    settings, stop = runtime.settings, runtime.stop
    timeout = settings.connect_timeout_seconds
    await _log_in(client, token, stop, timeout)
    warm_drawer(runtime.drawer)  # the token is taken: the bot is starting
    await runtime.serve_ops()
    running = asyncio.create_task(client.connect())
    try:
        await _open_gateway(client, running, stop, timeout, settings.discord_gateway_url)
    except BaseException:
        # Cancelled, not closed: discord.py would log the closed session's failures (with
        # tracebacks) from its retry loop before it noticed.
        running.cancel()
        await asyncio.wait({running}, timeout=STOP_GRACE_S)
        raise
    print(f"Discord: connected as {client.user}.", file=sys.stderr)
    runtime.start_deadlines(client.adapter.deliver)
    try:
        try:
            code = await runtime.until_stopped(running)
        except Exception as error:  # the gateway's connection ended with an error
            raise _gateway_failure(error, settings.discord_gateway_url) from None
        if code == 0 and not running.done():
            print("Stopped.", file=sys.stderr)
        return code
    finally:
        stop.set()
        await settle(client.adapter.table.flush(), "showing the board pictures held back")
        await settle(client.close(), "closing the connection to Discord")
        if not running.done():
            await asyncio.wait({running}, timeout=STOP_GRACE_S)
            running.cancel()


async def _log_in(client: BoardroomClient, token: str, stop: asyncio.Event, timeout: float) -> None:
    """The REST half of starting: the token checked, the application read, commands synced."""
    api = discord.http.Route.BASE
    try:
        await step(client.login(token), stop, timeout)
    except discord.LoginFailure:
        raise StartFailed(TOKEN_REFUSED, 2) from None
    except discord.HTTPException as error:
        raise StartFailed(
            f"Discord at {api} answered {error.status} {error.response.reason} while the bot "
            "was logging in: check DISCORD_API_URL, or try again later.",
        ) from None
    except NoAnswer:
        raise StartFailed(
            f"Discord at {api} did not answer within {timeout:g} s: check the network, or "
            "DISCORD_API_URL (BOARDROOM_CONNECT_TIMEOUT_SECONDS sets the wait).",
        ) from None
    except (OSError, aiohttp.ClientError) as error:
        raise StartFailed(
            f"Could not reach Discord at {api}: {unreachable(error)}. Check the network, or "
            "DISCORD_API_URL.",
        ) from None


async def _open_gateway(
    client: BoardroomClient,
    running: asyncio.Task[None],
    stop: asyncio.Event,
    timeout: float,
    gateway: str | None,
) -> None:
    """Wait until every shard is READY. The first failure to connect ends the start, where
    discord.py would retry it every 5 s for ever (see :class:`FirstFailure`)."""
    with FirstFailure(logging.getLogger("discord.shard"), "Failed to connect") as watch:
        ready = asyncio.ensure_future(client.wait_until_ready())
        first: set[asyncio.Future[None] | asyncio.Future[BaseException]] = {
            ready,
            running,
            watch.failed,
        }
        try:
            await step(
                asyncio.wait(first, return_when=asyncio.FIRST_COMPLETED),
                stop,
                timeout,
            )
        except NoAnswer:
            where = f" at {gateway}" if gateway else ""
            raise StartFailed(
                f"Discord's gateway{where} did not let the bot in within {timeout:g} s: check the "
                "network, or DISCORD_GATEWAY_URL (BOARDROOM_CONNECT_TIMEOUT_SECONDS sets the "
                "wait).",
            ) from None
        finally:
            ready.cancel()
        if watch.failed.done() and not watch.failed.cancelled():
            raise _gateway_failure(watch.failed.result(), gateway)
        if running.done():
            error = None if running.cancelled() else running.exception()
            raise _gateway_failure(error, gateway)


def _gateway_failure(error: BaseException | None, gateway: str | None) -> StartFailed:
    """The sentence for a gateway connection that failed or closed."""
    where = f" at {gateway}" if gateway else ""
    if isinstance(error, discord.ConnectionClosed):
        if error.code == AUTHENTICATION_FAILED:
            return StartFailed(TOKEN_REFUSED, 2)
        return StartFailed(
            f"Discord's gateway{where} closed the bot's connection (close code {error.code}): "
            "try again later.",
        )
    why = unreachable(error) if error is not None else None
    if why is None:
        why = "it stopped without saying why" if error is None else repr(error)
    return StartFailed(
        f"Could not open Discord's gateway{where}: {why}. Check the network, or "
        "DISCORD_GATEWAY_URL.",
    )
