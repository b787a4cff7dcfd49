"""What every way of running the bot shares: opening the store, saying once if it is embedded."""

from __future__ import annotations

import contextlib
import gc
import logging
import sys

from bot.settings import Settings
from storage import GameStore, StorageUnavailable
from storage.local_server import LocalRedisServer, RedisServerError

__all__ = [
    "EMBEDDED_NOTICE",
    "bench_redis",
    "freeze_startup",
    "open_store",
    "warn_about_policy",
]

log = logging.getLogger(__name__)

EMBEDDED_NOTICE = (
    "No REDIS_URL set: using the embedded in-process store; games will not survive a restart."
)


def open_store(settings: Settings, caveat: str = "") -> GameStore:
    """The store REDIS_URL names (a Redis Cluster with REDIS_CLUSTER=true), or the embedded one
    (announced once on stderr). Connects on first use; see :func:`warn_about_policy`."""
    store = GameStore.from_url(settings.redis_url, cluster=settings.redis_cluster)
    if store.embedded:
        print(f"{EMBEDDED_NOTICE} {caveat}".strip(), file=sys.stderr)
    return store


async def warn_about_policy(store: GameStore) -> None:
    """Warn loudly, on stderr and in the log, when Redis would evict games to make room
    (:meth:`GameStore.check_policy`); say nothing when it would not or will not tell. Once at
    start, after :func:`open_store`, on the event loop the bot runs on."""
    try:
        warning = await store.check_policy()
    except StorageUnavailable as exc:
        log.warning("could not check Redis's maxmemory-policy: %s", exc)
        return
    if warning:
        print(f"WARNING: {warning}", file=sys.stderr)
        log.warning("%s", warning)


def freeze_startup() -> None:
    """Move everything built at start-up (modules, SDK clients, schemas) out of the collector's
    way: a long-running bot otherwise pays full collections of them, seen as 50-110 ms pauses
    that stall every interaction in flight."""
    gc.collect()
    gc.freeze()


async def bench_redis(stack: contextlib.AsyncExitStack, url: str | None) -> str | None:
    """``url``, or a local redis-server started for a bench (stopped with ``stack``); None,
    with a sentence printed, when none can be started."""
    if url:
        return url
    try:
        server = await stack.enter_async_context(LocalRedisServer())
    except RedisServerError as exc:
        print(f"cannot start a local redis-server: {exc}")
        return None
    return server.url
