"""Redis fixtures: a real redis-server on a free loopback port, and the embedded store."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from storage import GameStore
from storage.local_server import LocalRedisServer, RedisServerError, free_port

__all__ = ["RedisServer", "free_port"]

RedisServer = LocalRedisServer
"""The tests' name for a redis-server they started (kept for existing annotations)."""


def _started(server: LocalRedisServer) -> LocalRedisServer:
    try:
        return server.start()
    except RedisServerError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server shared by the whole session; the ``store`` fixture flushes it per test."""
    server = _started(LocalRedisServer(free_port(), tmp_path_factory.mktemp("redis")))
    yield server.url
    server.stop()


@pytest.fixture
def spawn_redis(tmp_path: Path) -> Iterator[Callable[[int | None], LocalRedisServer]]:
    """Start private servers (on a given port, e.g. to restart one); all are stopped at the end."""
    servers: list[LocalRedisServer] = []

    def spawn(port: int | None = None) -> LocalRedisServer:
        server = LocalRedisServer(port or free_port(), tmp_path)
        servers.append(server)
        return _started(server)

    yield spawn
    for server in servers:
        server.stop()


@pytest.fixture(params=["redis", "embedded"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[GameStore]:
    """A clean GameStore on the real server and on the embedded one, so every test runs on both."""
    if request.param == "redis":
        game_store = GameStore.from_url(request.getfixturevalue("redis_url"))
        await game_store.client.flushdb()
    else:
        game_store = GameStore.from_url(None)
    yield game_store
    await game_store.close()
