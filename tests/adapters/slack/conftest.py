"""The real Bolt app on 127.0.0.1 with a fake Web API and a real redis-server, per test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.commands.record import GameRecord
from storage import GameKey
from testkit.slack.loopback import Loopback

CHANNEL = "C0TABLE"


@pytest.fixture
async def loop(redis_url: str) -> AsyncIterator[Loopback]:
    loopback = await Loopback.start(redis_url, seed=7)
    await loopback.store.client.flushdb()
    yield loopback
    await loopback.close()


async def stored(loop: Loopback, channel: str = CHANNEL) -> GameRecord | None:
    """The channel's game record as saved in Redis."""
    _, loaded = await loop.store.load(GameKey("slack", channel))
    return GameRecord.model_validate_json(loaded.data) if loaded else None
