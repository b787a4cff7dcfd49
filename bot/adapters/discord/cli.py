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

import discord

from bot.adapters.discord.adapter import INVITE_PERMISSIONS
from bot.adapters.discord.client import BoardroomClient, point_at
from bot.commands.authority import Authority
from bot.commands.deadlines import LOOP_DIED
from bot.runtime import freeze_startup, open_store, warn_about_policy
from bot.settings import Settings

__all__ = ["SCOPES", "add_arguments", "bench", "invite_url", "run"]

log = logging.getLogger(__name__)

SCOPES = ("bot", "applications.commands")
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
    """Run the bot until interrupted, or print the invite URL; 2 when a setting is missing."""
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
    store = open_store(settings, "Shard processes cannot share games without Redis.")
    await warn_about_policy(store)
    seeds = random.Random(secrets.randbits(64))
    authority = Authority(store, settings, new_seed=lambda: seeds.getrandbits(63))
    point_at(settings.discord_api_url, settings.discord_gateway_url)
    client = BoardroomClient(authority, settings, shard_ids or None, shard_count)
    freeze_startup()
    try:
        async with client:
            await client.start(token)
    except discord.LoginFailure:
        print("Discord refused DISCORD_TOKEN; copy the bot token again.", file=sys.stderr)
        return 2
    finally:
        await store.close()
    return LOOP_DIED if client.loop_died else 0


async def bench(settings: Settings, games: int, seed: int) -> int:
    """``boardroom bench --adapter discord``; see bench/discord.py."""
    from bench.discord import run_bench

    return await run_bench(settings, games, seed)
