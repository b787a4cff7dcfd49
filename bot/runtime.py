"""What every way of running the bot shares: opening the store, saying once if it is embedded."""

from __future__ import annotations

import contextlib
import gc
import sys

from bot.commands.outbox import Outbox
from bot.settings import Settings
from storage import GameKey, GameStore, StorageUnavailable
from storage.local_server import LocalRedisServer, RedisServerError

__all__ = ["EMBEDDED_NOTICE", "bench_redis", "board_to_draw", "freeze_startup", "open_store"]

EMBEDDED_NOTICE = (
    "No REDIS_URL set: using the embedded in-process store; games will not survive a restart."
)


def open_store(settings: Settings, caveat: str = "") -> GameStore:
    """The store REDIS_URL names, or the embedded one (announced once on stderr)."""
    store = GameStore.from_url(settings.redis_url)
    if store.embedded:
        print(f"{EMBEDDED_NOTICE} {caveat}".strip(), file=sys.stderr)
    return store


def freeze_startup() -> None:
    """Move everything built at start-up (modules, SDK clients, schemas) out of the collector's
    way: a long-running bot otherwise pays full collections of them, seen as 50-110 ms pauses
    that stall every interaction in flight."""
    gc.collect()
    gc.freeze()


async def board_to_draw(store: GameStore, platform: str, out: Outbox) -> tuple[bool, str | None]:
    """Whether to draw ``out``'s board, and the message to edit (None: post a new board).

    Not when storage is down (without the message id an edit would become a second board; the
    next action catches up) or when a newer state's board was drawn already.
    """
    try:
        claim = await store.claim_board(GameKey(platform, out.channel), out.version or 0)
    except StorageUnavailable:
        return False, None
    if not claim.current:
        return False, None
    return True, None if out.board_fresh else claim.ref


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
