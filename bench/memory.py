"""``boardroom bench --adapter slack --memory``: what a worker keeps per channel, once it is quiet.

One worker (the real Bolt app over HTTP, its table and its budget, on a real redis-server and
the virtual clock; boards as text) plays ``--games`` channels (10,000 by default) once each:
the host starts a
game of The Big Idea, adds two bots, begins it and ends it (a card, a thread, a board, a panel by
DM, the final card and its result). Then everything goes quiet for two minutes of the clock (every
platform window and every reservation passes) and one more request arrives. What the worker keeps
for channels is counted before (after a single channel, quiet the same way) and after, and so is
its memory: Python's allocated blocks and the process's resident size (the fake Slack's own
records of the calls, which are not the worker's, are dropped as the run goes, and the last
line is taken after a full collection). What grows besides is bounded caches kept by what a
game says, not by channel (pydantic's cache of JSON strings, the texts of card combinations).

The last line::

    channels_kept_before=<n> channels_kept_after=<n> limits_kept_before=<n>
    limits_kept_after=<n> blocks_before=<n> blocks_after=<n> rss_mb_before=<x> rss_mb_after=<x>
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import time
from dataclasses import dataclass

from bot.adapters.slack.app import SlackAdapter
from bot.settings import Settings
from testkit.clock import VirtualClock
from testkit.local_server import bench_redis
from testkit.slack.loopback import Loopback

__all__ = ["run_memory_bench"]

HOST = "UMEMHOST"
QUIET_S = 120.0
"""Long enough for every window and reservation to pass (the longest limit's window is 63 s)."""
FORGET_EVERY = 200
"""Channels after which the fake Slack drops its records (not the worker's memory)."""


@dataclass(frozen=True)
class Kept:
    """What the worker keeps, as counted at one moment."""

    channels: int
    limits: int
    blocks: int
    rss_mb: float

    def line(self, when: str) -> str:
        return (
            f"channels_kept_{when}={self.channels} limits_kept_{when}={self.limits} "
            f"blocks_{when}={self.blocks} rss_mb_{when}={self.rss_mb:.1f}"
        )


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1024 / 1024


def _kept(adapter: SlackAdapter) -> Kept:
    gc.collect()
    return Kept(
        channels=adapter.table.channels(),
        limits=adapter.budget.limits_known(),
        blocks=sys.getallocatedblocks(),
        rss_mb=_rss_mb(),
    )


async def _play(loop: Loopback, channel: str) -> None:
    for text in ("start", "addbot 2", "begin", "end"):
        await loop.slack.post(loop.slack.slash_body("/bigidea", text, HOST, channel))
        await loop.adapter.settled()


async def _quiet(loop: Loopback, clock: VirtualClock) -> None:
    """Everything passes; then one more request (the first a quiet worker forgets at)."""
    await loop.adapter.table.caught_up()
    await clock.sleep(QUIET_S)
    await loop.slack.post(loop.slack.slash_body("/bigidea", "help", HOST, "CMEMQUIET"))
    await loop.adapter.settled()


async def run_memory_bench(settings: Settings, seed: int, games: int) -> int:
    """Play ``games`` channels once each and print what the worker keeps before and after;
    0 when it keeps no more channels after than after one."""
    async with contextlib.AsyncExitStack() as stack:
        url = await bench_redis(stack, settings.redis_url)
        if url is None:
            return 2
        clock = VirtualClock()
        # Pictures off: their drawings and files are kept by key, a bounded cache of their own
        # (see the table bench), and the fake's copies of them would swell the process.
        quiet = Settings.model_validate({"BOARDROOM_PICTURES": False})
        loop = await Loopback.start(url, seed, settings=quiet, clock=clock)
        stack.push_async_callback(loop.close)
        await loop.store.client.flushdb()
        await _play(loop, "CMEM0")
        await _quiet(loop, clock)
        loop.api.forget_records()
        before = _kept(loop.adapter)
        started = time.monotonic()
        for n in range(1, games + 1):
            await _play(loop, f"CMEM{n}")
            if n % FORGET_EVERY == 0:
                loop.api.forget_records()
        played_s = time.monotonic() - started
        busiest = _kept(loop.adapter)
        await _quiet(loop, clock)
        loop.api.forget_records()
        after = _kept(loop.adapter)
        print(
            f"{games} channels played in {played_s:.0f} s; while playing the worker kept "
            f"{busiest.channels} channels and {busiest.limits} limits"
        )
        print(f"{before.line('before')} {after.line('after')}")
        return 0 if after.channels <= max(1, before.channels) else 1
