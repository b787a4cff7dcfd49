"""``boardroom bench`` end to end, small, against the test suite's redis-server."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from bench.authority import bench
from bot.settings import Settings

KEYS = ("actions_per_s", "floor_ratio", "p50_ms", "p99_ms", "bytes_per_game")


async def test_bench_plays_every_game_and_prints_the_numbers(
    redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(REDIS_URL=redis_url)

    code = await bench(settings, games=3, players=4, seed=7, think_ms=20, pace_seconds=1)

    lines = capsys.readouterr().out.strip().splitlines()
    assert code == 0, "\n".join(lines)
    assert "games finished: 3/3" in "\n".join(lines)
    assert "at a player's pace (3 games" in "\n".join(lines)
    pairs = dict(word.split("=", 1) for word in lines[-1].split())
    assert list(pairs) == list(KEYS)
    assert all(float(value) > 0 for value in pairs.values()), lines[-1]
    assert pairs["bytes_per_game"].isdigit()
    # On a shared server the bench removes its games; only dedupe keys (with a TTL) stay.
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        left = [key async for key in client.scan_iter("boardroom:{bench:*")]
        assert all(":dedupe:" in key for key in left), left[:5]
        assert all([await client.ttl(key) > 0 for key in left])
        assert [key async for key in client.scan_iter("boardroom:user:{bench:*")] == []
        assert [key async for key in client.scan_iter("boardroom-bench:*:game")] == []
    finally:
        await client.aclose()
