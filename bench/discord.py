"""``boardroom bench --adapter discord``: interaction-to-callback latency at many games at once.

The bot runs in its own process, exactly as in production: ``python -m bot discord`` with
``DISCORD_API_URL`` / ``DISCORD_GATEWAY_URL`` pointing at the fake Discord
(testkit/discord/fake.py) on 127.0.0.1 and ``REDIS_URL`` at a real redis-server (REDIS_URL,
or one started on a free port). This process plays Discord: the fake's gateway and REST, and
``games`` tables of four simulated users (:class:`~testkit.discord.remote.RemoteTable`)
playing The Big Idea through slash commands and clicks, with deadlines off. Keeping the two apart
means the bot is not charged for Discord's own work, nor for the players'.

After every table has opened and begun, each presses at a person's pace (one press every THINK_S
on average, uniform between half and one and a half of it) for PACE_S seconds: the latency a
player sees while that many games go on. Each interaction is timed, in the fake, from the gateway
dispatch of INTERACTION_CREATE to the bot's callback POST (the moment Discord would show the answer
or the "thinking" state). The bot's process has no hook to say it is done with an interaction; a
table counts it done when the REST calls concerning the table have gone quiet (see remote.py).
The last line printed is::

    p50_ms=<x> p99_ms=<x>
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import os
import random
import sys
import time

from bot.settings import Settings
from bot.simulate import percentile
from storage import GameStore
from testkit.discord.fake import FakeUser
from testkit.discord.remote import (
    QUIET_S,
    SETTLE_TIMEOUT_S,
    RemoteTable,
    WatchedDiscord,
    all_quiet,
)
from testkit.local_server import bench_redis

__all__ = ["run_bench"]

OPTIONS = "pick_seconds=0 vote_seconds=0 turn_seconds=0"
"""Simulated users answer at once; a deadline firing would only add noise."""
THINK_S = 1.0
PACE_S = 15.0
CONNECT_TIMEOUT_S = 30.0
"""How long the bot's process may take to log in, sync its commands and identify."""
STOP_TIMEOUT_S = 5.0
_FIRST_CHANNEL = 700_000_000_000_001_000
_FIRST_USER = 800_000_000_000_001_000


async def run_bench(settings: Settings, games: int, seed: int) -> int:
    """Play ``games`` tables at once; 0 when none failed, 1 otherwise, 2 when it cannot start."""
    if games < 1:
        print("need games >= 1")
        return 2
    async with contextlib.AsyncExitStack() as stack:
        url = await bench_redis(stack, settings.redis_url)
        if url is None:
            return 2
        fake = WatchedDiscord()
        await fake.start()
        stack.push_async_callback(fake.close)
        bot = await _start_bot(fake, url)
        stack.push_async_callback(_stop, bot)
        if not await _connected(fake, bot):
            if bot.returncode is not None:
                print(f"the bot process exited with {bot.returncode} before it connected")
            else:
                print(f"the bot process did not connect in {CONNECT_TIMEOUT_S:g} s")
            return 2
        store = GameStore.from_url(url)
        stack.push_async_callback(store.close)
        print(f"bench discord: {games} concurrent games of 4 players, seed {seed}")
        print(
            f"redis: {'REDIS_URL' if settings.redis_url else url}; the bot in its own process "
            f"(pid {bot.pid}, python -m bot discord) against the fake Discord on 127.0.0.1:"
            f"{fake.port}"
        )
        return await _measure(fake, store, games, seed)
    return 2  # pragma: no cover (mypy: the exit stack could swallow an exception)


# --- the bot's process -------------------------------------------------------------------------


async def _start_bot(fake: WatchedDiscord, redis_url: str) -> asyncio.subprocess.Process:
    env = {
        **os.environ,
        "DISCORD_TOKEN": "bench-token",
        "DISCORD_API_URL": fake.api_url,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "DISCORD_GUILD_IDS": str(fake.guild_id),
        "REDIS_URL": redis_url,
        "BOARDROOM_LOG_LEVEL": "WARNING",
    }
    # A plain child interpreter running the production entry point; its warnings go to stderr,
    # its stdout nowhere, so the bench's last line stays the figures.
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "discord", env=env, stdout=asyncio.subprocess.DEVNULL
    )


async def _connected(fake: WatchedDiscord, bot: asyncio.subprocess.Process) -> bool:
    """True once the bot synced its guild commands and identified; False if it exited or timed
    out first."""
    identified = asyncio.ensure_future(fake.identified.wait())
    exited = asyncio.ensure_future(bot.wait())
    try:
        await asyncio.wait(
            {identified, exited}, timeout=CONNECT_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        identified.cancel()
        exited.cancel()
    return fake.identified.is_set() and str(fake.guild_id) in fake.commands


async def _stop(bot: asyncio.subprocess.Process) -> None:
    if bot.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            bot.terminate()
        try:
            await asyncio.wait_for(bot.wait(), STOP_TIMEOUT_S)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                bot.kill()
            await bot.wait()


# --- the Discord side --------------------------------------------------------------------------


async def _measure(fake: WatchedDiscord, store: GameStore, games: int, seed: int) -> int:
    seeds = random.Random(seed)
    tables = [
        RemoteTable(
            fake,
            store,
            _FIRST_CHANNEL + g,
            [FakeUser(_FIRST_USER + 4 * g + i, f"p{g}-{i}") for i in range(4)],
            random.Random(seeds.getrandbits(64)),
        )
        for g in range(games)
    ]
    opened = await asyncio.gather(*(t.open(OPTIONS) for t in tables), return_exceptions=True)
    failed = [r for r in opened if isinstance(r, BaseException)]
    # Every table began at once: let the bot finish that rush before the measured part.
    await asyncio.wait_for(all_quiet(fake), SETTLE_TIMEOUT_S)
    for table in tables:
        table.watch_from_now()
    playing = [t for t, r in zip(tables, opened, strict=True) if not isinstance(r, BaseException)]
    calls_before = len(fake.calls)
    # This process stands in for Discord and the players: a collection of its garbage (tens of
    # ms) would be charged to the bot. The bot's process keeps Python's default collector.
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        started = time.perf_counter()
        until = time.monotonic() + PACE_S
        results = await asyncio.gather(
            *(t.play(think_s=THINK_S, until=until) for t in playing), return_exceptions=True
        )
        elapsed = time.perf_counter() - started
    finally:
        gc.enable()
        gc.unfreeze()
    calls = len(fake.calls) - calls_before
    failed += [r for r in results if isinstance(r, BaseException)]
    latencies = [s * 1000 for t in tables for s in t.latencies]
    p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
    finished = sum(1 for r in results if r is not None and not isinstance(r, BaseException))
    late = sum(t.late for t in tables)
    gaps = [b - a for t in tables for a, b in itertools.pairwise(t.sent)]
    pace = sum(gaps) / max(len(gaps), 1)
    print(f"games={games} failed={len(failed)} finished_in_window={finished}")
    print(
        f"interactions={len(latencies)} in {elapsed:.1f} s ({len(latencies) / elapsed:.1f}/s); "
        f"pace: a game pressed every {pace:.2f} s on average (think {THINK_S:g} s, "
        f"uniform x0.5..x1.5)"
    )
    print(
        f"REST calls {calls} ({calls / max(len(latencies), 1):.1f} per interaction); "
        f"done = quiet for {QUIET_S * 1000:.0f} ms after the callback, late calls {late}"
    )
    for error in failed[:3]:
        print(f"a game failed: {error!r}")
    print(f"p50_ms={p50:.2f} p99_ms={p99:.2f}")
    return 1 if failed else 0
