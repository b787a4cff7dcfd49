"""``boardroom bench --replays``: replays do not hold up other channels.

Plays a few games of The Big Idea to their end (two people and a bot, the deadlines moving them
on), then presses replay buttons 200 times at 14 a second, from 20 people stepping through those
games, while someone in another channel asks for ``/bigidea help`` every 50 ms. Every command
goes through the real authority and store (the embedded one unless ``REDIS_URL`` is set), on
one event loop, as a worker runs them. Prints last ``replay_presses=<n> replay_ms_p50=<x>
replay_ms_p99=<x> help_ms_p50=<x> help_ms_p99=<x> help_ms_max=<x> rebuilt=<n>`` (goal: help
within 200 ms at p99).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time

from bot.commands.authority import Authority, Request
from bot.commands.community.boardroom import COMMAND
from bot.settings import Settings
from storage import GameKey, GameStore
from storage import history as kept

__all__ = ["replay_bench"]

PRESSES = 200
RATE = 14.0
"""Replay presses a second."""
PEOPLE = 20
HELP_EVERY_S = 0.05
GAMES = 3


class _Clock:
    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


def _req(user: str, channel: str) -> Request:
    return Request(platform="console", channel=channel, user=user, name=user, community="bench")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _finished_game(authority: Authority, store: GameStore, clock: _Clock, n: int) -> None:
    channel = f"game-{n}"
    host, guest = _req("U-ann", channel), _req("U-bo", channel)
    await authority.command(host, "bigidea", "start pick_seconds=5 vote_seconds=5 turn_seconds=5")
    await authority.command(guest, "bigidea", "join")
    await authority.command(host, "bigidea", "addbot 1")
    await authority.command(host, "bigidea", "begin")
    key = GameKey("console", channel)
    for _ in range(3000):
        _, loaded = await store.load(key)
        assert loaded is not None
        if '"status":"finished"' in loaded.data:
            return
        clock.offset += 6.0
        await authority.fire_due("console")
    raise RuntimeError("a bench game never ended")


async def replay_bench(settings: Settings, seed: int) -> int:
    store = GameStore.from_url(settings.redis_url, cluster=settings.redis_cluster)
    clock = _Clock()
    seeds = random.Random(seed)
    authority = Authority(store, settings, clock=clock, new_seed=lambda: seeds.getrandbits(63))
    try:
        for n in range(GAMES):
            await _finished_game(authority, store, clock, n)
        ids = await kept.recent(store, kept.Community("console", "bench"), 0.0, GAMES)
        chooser = random.Random(seed)
        replay_ms: list[float] = []
        help_ms: list[float] = []
        stop = asyncio.Event()

        async def press(i: int) -> None:
            person = f"U-viewer-{i % PEOPLE}"
            text = f"replay {chooser.choice(ids)} {chooser.randrange(0, 60)}"
            started = time.perf_counter()
            await authority.command(_req(person, "lobby"), COMMAND, text)
            replay_ms.append((time.perf_counter() - started) * 1000)

        async def ask_help() -> None:
            while not stop.is_set():
                started = time.perf_counter()
                await authority.command(_req("U-other", "elsewhere"), "bigidea", "help")
                help_ms.append((time.perf_counter() - started) * 1000)
                await asyncio.sleep(HELP_EVERY_S)

        helper = asyncio.create_task(ask_help())
        began = time.perf_counter()
        tasks = []
        for i in range(PRESSES):
            due = began + i / RATE
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            tasks.append(asyncio.create_task(press(i)))
        await asyncio.gather(*tasks)
        stop.set()
        await helper
        rebuilt = authority.community.replays.rebuilt
        print(
            f"replay_presses={len(replay_ms)} rate_per_s={RATE:g} "
            f"replay_ms_p50={statistics.median(replay_ms):.1f} "
            f"replay_ms_p99={_percentile(replay_ms, 0.99):.1f} "
            f"help_ms_p50={statistics.median(help_ms):.1f} "
            f"help_ms_p99={_percentile(help_ms, 0.99):.1f} help_ms_max={max(help_ms):.1f} "
            f"rebuilt={rebuilt}"
        )
        return 0
    finally:
        await store.close()
