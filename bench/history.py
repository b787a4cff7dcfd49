"""``boardroom bench --history`` (and the end of the plain ``boardroom bench``): what the
community's memory costs on a real redis-server.

- ``record_ms``: recording one finished game of four people in a community of 10,000 rated
  people, the whole of :meth:`bot.commands.community.results.Recorder.publish` (the game's
  log read, the ratings read, openskill, the compare-and-set write, the pending result cleared);
- ``leaderboard_ms``: ``/boardroom leaderboard bigidea`` answered in that community (the read
  of the top ten and the message built).

The community is filled first (not timed) with one rating per person.
"""

from __future__ import annotations

import contextlib
import json
import random
import statistics
import time

from bot.commands.authority import Authority
from bot.commands.community.results import (
    GameResult,
    Person,
    Rating,
    Recorder,
    SeatResult,
    game_id,
    shown,
)
from bot.commands.step import Request
from bot.settings import Settings
from storage import GameKey, GameStore
from storage import history as kept
from testkit.local_server import bench_redis

__all__ = ["history_bench"]

PEOPLE = 10_000
GOAL_MS = 5.0
PLATFORM = "bench"


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _fill(store: GameStore, where: kept.Community, rng: random.Random) -> None:
    client = store.client
    for start in range(0, PEOPLE, 1000):
        pipe = client.pipeline(transaction=False)
        for n in range(start, min(PEOPLE, start + 1000)):
            user = f"U{n:05d}"
            games = rng.randint(1, 40)
            rating = Rating(
                mu=rng.gauss(25, 4),
                sigma=max(1.0, 8.33 - games * 0.15),
                games=games,
                wins=rng.randint(0, games // 3),
                name=f"Person {n}",
            )
            pipe.hset(where.key("ratings:bigidea"), user, rating.model_dump_json())
            pipe.zadd(where.key("board:bigidea"), {user: shown(rating)})
            pipe.hset(where.key("people"), user, rating.name)
        await pipe.execute()


def _result(key: GameKey, index: int, now: float, rng: random.Random) -> str:
    users = rng.sample(range(PEOPLE), 4)
    seats = [
        SeatResult(
            name=f"Person {u}",
            people=[Person(user=f"U{u:05d}", name=f"Person {u}")],
            rank=rank,
            score=f"${40 - rank * 5}",
        )
        for rank, u in enumerate(users, start=1)
    ]
    return GameResult(
        id=game_id(key, index),
        game="bigidea",
        platform=PLATFORM,
        channel=key.channel,
        community="bench",
        began_at=now - 1800,
        ended_at=now,
        seats=seats,
        summary=f"{seats[0].name} wins with $35.",
        seed=index,
        first_version=0,
        final_version=80,
    ).model_dump_json()


async def history_bench(settings: Settings, seed: int = 1, games: int = 500) -> int:
    """Run it; 0 when both p99s meet the goal, 1 when not, 2 when no Redis."""
    rng = random.Random(seed)
    async with contextlib.AsyncExitStack() as stack:
        url = await bench_redis(stack, settings.redis_url)
        if url is None:
            return 2
        store = GameStore.from_url(url, cluster=settings.redis_cluster)
        stack.push_async_callback(store.close)
        run = f"{seed}-{time.time_ns()}"
        where = kept.Community(PLATFORM, "bench")
        await store.client.delete(
            *(where.key(p) for p in ("rev", "results", "replays", "recent", "people", "seen")),
            where.key("ratings:bigidea"),
            where.key("board:bigidea"),
            where.key("seen:bigidea"),
        )
        await _fill(store, where, rng)
        recorder = Recorder(store, settings)
        log = json.dumps([["U1", "begin", ["a", "b", "c", "d"], [False] * 4]])
        record_ms = []
        for index in range(games):
            key = GameKey(PLATFORM, f"{run}-{index}")
            result = _result(key, index, time.time(), rng)
            await store.save(key, "{}", expected=None, version=1, log=log, ttl_s=600, result=result)
            started = time.perf_counter()
            await recorder.publish(key, result)
            record_ms.append((time.perf_counter() - started) * 1000)
        community = Authority(store, settings).community
        asker = Request(
            platform=PLATFORM, channel="c", user="U00001", name="Person 1", community="bench"
        )
        board_ms = []
        for _ in range(games * 2):
            started = time.perf_counter()
            out = await community.command(asker, "leaderboard bigidea")
            board_ms.append((time.perf_counter() - started) * 1000)
            assert out.deliveries and not out.unavailable
        size = await store.client.zcard(where.key("board:bigidea"))
        print(
            f"history: a community of {size} rated people, {games} games recorded, "
            f"{len(board_ms)} leaderboards read"
        )
        print(
            f"record_ms_p50={statistics.median(record_ms):.2f} "
            f"record_ms_p99={_p(record_ms, 0.99):.2f} "
            f"leaderboard_ms_p50={statistics.median(board_ms):.2f} "
            f"leaderboard_ms_p99={_p(board_ms, 0.99):.2f} (goal <= {GOAL_MS:g} ms each)"
        )
        ok = _p(record_ms, 0.99) <= GOAL_MS and _p(board_ms, 0.99) <= GOAL_MS
        return 0 if ok else 1
    return 2  # pragma: no cover (mypy: the context manager could swallow an exception)
