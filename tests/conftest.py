"""Redis fixtures: a real redis-server on a free loopback port, the embedded store, and real
Redis Clusters on loopback (3 masters for the session; 3 masters + 3 replicas to break)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from bot.runtime import freeze_startup
from storage import GameStore
from testkit.local_server import LocalRedisCluster, LocalRedisServer, RedisServerError, free_port
from tests.authority_support import Clock

__all__ = ["RedisServer", "free_port"]

RedisServer = LocalRedisServer
"""The tests' name for a redis-server they started (kept for existing annotations)."""

# Hypothesis, for every property test: no deadline per example. A deadline is a timed test,
# and speed is measured by the benchmarks, never asserted: on two cores shared with other work
# Hypothesis' default (200 ms) fails examples at random, saying nothing about the code. A hang
# is still caught, by pytest-timeout (pyproject.toml), with its stack. ``print_blob``: a failure
# prints the ``@reproduce_failure`` line that replays it.
settings.register_profile("boardroom", deadline=None, print_blob=True)
settings.load_profile("boardroom")


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Each test process collects garbage as the bot does once it has started
    (:func:`bot.runtime.freeze_startup`): what the imports built is frozen out of the
    collector's way, and young collections run every 50,000 allocations rather than every 700
    (the kit's games: -9 % CPU)."""
    freeze_startup()


def _started(server: LocalRedisServer) -> LocalRedisServer:
    try:
        return server.start()
    except RedisServerError as exc:
        pytest.fail(str(exc), pytrace=False)


def _started_cluster(cluster: LocalRedisCluster) -> LocalRedisCluster:
    try:
        return cluster.start()  # stops what it started when it fails
    except RedisServerError as exc:
        pytest.fail(str(exc), pytrace=False)


WORKERS_PER_CORE = 2
"""pytest-xdist workers ``-n auto`` starts per core (pyproject.toml's addopts)."""


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: :data:`WORKERS_PER_CORE` workers a core. A worker spends much of its time
    waiting rather than computing (a bot process starting, a real Redis timing out, a cluster
    failing over, a round trip to a loopback fake), and a second worker a core runs meanwhile:
    on 2 shared cores a mix of such tests took 57 s with 4 workers, 65-71 s with 2.
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still sets the number (xdist's own hook reads it)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return WORKERS_PER_CORE * len(os.sched_getaffinity(0))


LONG_FIRST = (
    "tests/test_conformance.py::test_every_game_keeps_the_engine_contract[biggiebills-3]",
    "tests/test_conformance.py::test_every_game_keeps_the_engine_contract[biggiebills",
    "tests/test_conformance.py::test_every_game_keeps_the_engine_contract[businessgo",
    "tests/test_conformance.py::test_every_game_keeps_the_engine_contract[bigidea-3]",
    "tests/test_bench.py",
    "tests/adapters/discord/test_hostile.py",
    "tests/adapters/slack/test_slack_pictures.py",
    "tests/adapters/discord/test_pictures.py",
    "tests/adapters/slack/test_slack_hostile.py",
    "tests/adapters/discord/test_permissions.py",
    "tests/adapters/discord/test_game.py",
    "tests/adapters/discord/test_private.py",
    "tests/test_faultbench.py",
    "tests/adapters/slack/test_slack_front_door.py",
    "tests/test_startup.py",
    "tests/test_conformance.py",
    "tests/games/test_biggiebills_bots.py",
    "tests/adapters/slack/test_slack_game.py",
    "tests/test_console",
)
"""Where the tests that take longest begin (whole random games under the kit, whole games over
a fake platform, benches, bot processes), longest first: they are started before the rest, so
that the last tests left to run are short ones rather than a game that keeps one worker busy
while the others have finished. (pytest-xdist's ``loadgroup`` hands out groups of several
tests first, the render-limits runs and the cluster's tests, then single tests in this order.)"""


def _rank(item: pytest.Item) -> int:
    return next(
        (i for i, prefix in enumerate(LONG_FIRST) if item.nodeid.startswith(prefix)),
        len(LONG_FIRST),
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadgroup``), the tests on the session's Redis Cluster run
    on one worker, so that one cluster is started for them rather than one per worker; the
    longest tests (:data:`LONG_FIRST`) go first, the rest in the order collected."""
    for item in items:
        if "redis_cluster" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("redis-cluster"))
    items.sort(key=_rank)  # stable: the order collected within each rank


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


@pytest.fixture
async def redis_store(redis_url: str) -> AsyncIterator[GameStore]:
    """A clean GameStore on the real server only (a module's ``store`` may be just this)."""
    game_store = GameStore.from_url(redis_url)
    await game_store.client.flushdb()
    yield game_store
    await game_store.close()


@pytest.fixture
def clock() -> Clock:
    """A clock the test moves by hand (``clock.now = ...``)."""
    return Clock()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRedisCluster]:
    """A Redis Cluster of 3 masters shared by the session; ``cluster_store`` flushes it per test.

    Its nodes' logs stay in the session's temporary directory."""
    cluster = _started_cluster(LocalRedisCluster(3, 0, tmp_path_factory.mktemp("cluster")))
    yield cluster
    cluster.stop()


@pytest.fixture
async def cluster_store(redis_cluster: LocalRedisCluster) -> AsyncIterator[GameStore]:
    """A GameStore on the session's cluster, emptied first (every master)."""
    game_store = GameStore.from_url(redis_cluster.url, cluster=True)
    await game_store.client.flushdb()
    yield game_store
    await game_store.close()


@pytest.fixture
def failover_cluster(tmp_path: Path) -> Iterator[LocalRedisCluster]:
    """A private cluster of 3 masters with a replica each, for a test to kill nodes in; a replica
    takes over about a second (the node timeout) after its master stops answering."""
    cluster = _started_cluster(LocalRedisCluster(3, 1, tmp_path / "cluster", node_timeout_ms=1000))
    yield cluster
    cluster.stop()
