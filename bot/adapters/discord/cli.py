"""``boardroom discord [run|invite] [--shard-ids 0,1] [--shard-count N]`` and the bench hook."""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import logging
import random
import secrets
import sys

import aiohttp
import discord

from bot.adapters.discord.adapter import INVITE_PERMISSIONS
from bot.adapters.discord.client import BoardroomClient, point_at
from bot.commands.authority import Authority
from bot.commands.deadlines import LOOP_DIED
from bot.runtime import (
    STOP_GRACE_S,
    FirstFailure,
    NoAnswer,
    StartFailed,
    Stopped,
    freeze_startup,
    open_store,
    picture_drawer,
    settle,
    step,
    stop_on_signals,
    unreachable,
    warm_drawer,
    warn_about_policy,
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
    store = open_store(settings, "Shard processes cannot share games without Redis.")
    try:
        await step(warn_about_policy(store), stop)
        seeds = random.Random(secrets.randbits(64))
        authority = Authority(store, settings, new_seed=lambda: seeds.getrandbits(63))
        point_at(settings.discord_api_url, settings.discord_gateway_url)
        client = BoardroomClient(authority, settings, shard_ids or None, shard_count)
        with picture_drawer(settings) as drawer:
            client.adapter.table.drawer = drawer
            freeze_startup()
            async with client:
                try:
                    return await _serve(client, token, stop, settings)
                finally:
                    await settle(client.close(), "closing the connection to Discord")
    except StartFailed as failure:
        print(failure, file=sys.stderr)
        return failure.status
    except Stopped:
        print("Stopped before the bot had connected to Discord.", file=sys.stderr)
        return 0
    finally:
        await settle(store.close(), "closing the store")


async def _serve(
    client: BoardroomClient, token: str, stop: asyncio.Event, settings: Settings
) -> int:
    """Log in, open the gateway, then run until stopped (0) or the deadline loop dies
    (LOOP_DIED); a start that fails raises :class:`StartFailed` with its sentence."""
    timeout = settings.connect_timeout_seconds
    await _log_in(client, token, stop, timeout)
    warm_drawer(client.adapter.table.drawer)  # the token is taken: the bot is starting
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
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if stop.is_set():
            print("Stopped.", file=sys.stderr)
            return 0
        error = None if running.cancelled() else running.exception()
        if error is not None:
            raise _gateway_failure(error, settings.discord_gateway_url)
        return LOOP_DIED if client.loop_died else 0
    finally:
        stopping.cancel()
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
