"""``boardroom bench --adapter discord``: interaction-to-callback latency at many games at once.

The real discord.py client connects to the fake Discord (bot/adapters/discord/fake.py) on
127.0.0.1 and a real redis-server (REDIS_URL, or one started on a free port); ``games`` tables of
four simulated users play The Big Idea at the same time through slash commands and clicks, with
deadlines off. After every table has opened and begun, each presses at a person's pace (one
press every THINK_S on average) for PACE_S seconds: the latency a player sees while that many
games go on. (Pressing back to back instead measures the queue of one Python process that also
runs the fake Discord and every simulated user, not the bot.) Each interaction is timed from
the gateway dispatch to the bot's callback POST (the moment Discord would show the answer or the
"thinking" state). The last line printed is::

    p50_ms=<x> p99_ms=<x>
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time

from bot.adapters.discord.fake import FakeDiscord, FakeUser
from bot.adapters.discord.sim import Table, running_bot
from bot.commands.authority import Authority
from bot.settings import Settings
from bot.simulate import percentile
from storage import GameStore
from storage.local_server import LocalRedisServer, RedisServerError

__all__ = ["run_bench"]

OPTIONS = "pick_seconds=0 vote_seconds=0 turn_seconds=0"
"""Simulated users answer at once; a deadline firing would only add noise."""
THINK_S = 1.0
PACE_S = 15.0
_FIRST_CHANNEL = 700_000_000_000_001_000
_FIRST_USER = 800_000_000_000_001_000


async def run_bench(settings: Settings, games: int, seed: int) -> int:
    async with contextlib.AsyncExitStack() as stack:
        url = settings.redis_url
        if not url:
            try:
                server = await stack.enter_async_context(LocalRedisServer())
            except RedisServerError as exc:
                print(f"cannot start a local redis-server: {exc}")
                return 2
            url = server.url
        return await _measure(settings, url, games, seed)
    return 2  # pragma: no cover (mypy: the exit stack could swallow an exception)


async def _measure(settings: Settings, url: str, games: int, seed: int) -> int:
    # The bench's own REST/gateway URLs are the fake's; the deadline runner is not needed.
    logging.getLogger("discord").setLevel(logging.ERROR)
    store = GameStore.from_url(url)
    seeds = random.Random(seed)
    authority = Authority(store, settings, new_seed=lambda: seeds.getrandbits(63))
    fake = await FakeDiscord().start()
    local = settings.model_copy(update={"discord_guild_ids": str(fake.guild_id)})
    try:
        async with running_bot(fake, authority, local) as client:
            tables = [
                Table(
                    fake,
                    client,
                    _FIRST_CHANNEL + g,
                    [FakeUser(_FIRST_USER + 4 * g + i, f"p{g}-{i}") for i in range(4)],
                    random.Random(seeds.getrandbits(64)),
                )
                for g in range(games)
            ]
            await asyncio.gather(*(t.open(OPTIONS) for t in tables))
            for table in tables:
                table.latencies.clear()
            started = time.perf_counter()
            until = time.monotonic() + PACE_S
            results = await asyncio.gather(
                *(t.play(think_s=THINK_S, until=until) for t in tables), return_exceptions=True
            )
            elapsed = time.perf_counter() - started
    finally:
        await fake.close()
        await store.close()
    failed = [r for r in results if isinstance(r, BaseException)]
    latencies = [s * 1000 for t in tables for s in t.latencies]
    p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
    finished = sum(1 for r in results if r is not None and not isinstance(r, BaseException))
    print(f"games={games} failed={len(failed)} finished_in_window={finished}")
    print(
        f"interactions={len(latencies)} in {elapsed:.1f} s, think {THINK_S} s, "
        f"REST calls {len(fake.calls)}"
    )
    for error in failed[:3]:
        print(f"a game failed: {error!r}")
    print(f"p50_ms={p50:.2f} p99_ms={p99:.2f}")
    return 1 if failed else 0
