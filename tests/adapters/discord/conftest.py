"""The fake Discord, a clean real redis-server and the bot's authority, per test."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from bot.commands.authority import Authority
from bot.settings import Settings
from storage import GameStore
from testkit.discord.fake import FakeDiscord, FakeUser

CHANNEL = 700_000_000_000_000_001
USERS = [
    FakeUser(800_000_000_000_000_000 + i, name)
    for i, name in enumerate(["alice", "bob", "carol", "dave"])
]


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = await FakeDiscord().start()
    yield server
    await server.close()


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[GameStore]:
    game_store = GameStore.from_url(redis_url)
    await game_store.client.flushdb()
    yield game_store
    await game_store.close()


@pytest.fixture
def settings(fake: FakeDiscord) -> Settings:
    return Settings.model_validate(
        {
            "DISCORD_GUILD_IDS": str(fake.guild_id),
            "DISCORD_API_URL": fake.api_url,
            "DISCORD_GATEWAY_URL": fake.gateway_url,
            "BOARDROOM_DEADLINE_POLL_SECONDS": 0.05,
        }
    )


@pytest.fixture
def authority(store: GameStore, settings: Settings) -> Authority:
    seeds = random.Random(11)
    return Authority(store, settings, new_seed=lambda: seeds.getrandbits(63))
