"""What every way of running the bot shares: opening the store, saying once if it is embedded,
and starting and stopping on a platform (one sentence when starting fails, a prompt stop on
SIGINT or SIGTERM whatever the start is waiting for)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import errno
import gc
import logging
import multiprocessing
import signal
import socket
import ssl
import sys
from collections.abc import Awaitable, Iterator
from types import TracebackType
from typing import TypeVar

from bot.settings import Settings
from storage import GameStore, StorageUnavailable

__all__ = [
    "EMBEDDED_NOTICE",
    "STOP_GRACE_S",
    "DropRecords",
    "FirstFailure",
    "NoAnswer",
    "StartFailed",
    "Stopped",
    "freeze_startup",
    "open_store",
    "settle",
    "step",
    "stop_on_signals",
    "unreachable",
    "warn_about_policy",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

STOP_GRACE_S = 5.0
"""The longest one step of stopping may take (closing the platform's connection, the deadline
loop, the store): a stop ends the process within seconds even when the network swallows the
goodbye."""

EMBEDDED_NOTICE = (
    "No REDIS_URL set: using the embedded in-process store; games will not survive a restart."
)


def open_store(settings: Settings, caveat: str = "") -> GameStore:
    """The store REDIS_URL names (a Redis Cluster with REDIS_CLUSTER=true), or the embedded one
    (announced once on stderr). Connects on first use; see :func:`warn_about_policy`."""
    store = GameStore.from_url(
        settings.redis_url,
        cluster=settings.redis_cluster,
        timeout_s=settings.redis_timeout_seconds,
    )
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


GC_THRESHOLDS = (50_000, 20, 20)
"""The cyclic garbage collector's thresholds once the bot has started (Python's: 700, 10, 10).
A press allocates thousands of short-lived objects that reference counting frees, so with
Python's thresholds the collector ran several young collections a press and a full one every
few seconds, each a pause of every answer in flight: 100 games at a player's pace, runs of
each taken in turn, p99 9.3-9.95 ms with Python's, 7.8-8.6 ms with these. What is cyclic
garbage waits for up to 50,000 allocations, which is little memory."""


def freeze_startup() -> None:
    """Move everything built at start-up (modules, SDK clients, schemas) out of the collector's
    way: a long-running bot otherwise pays full collections of them, seen as 50-110 ms pauses
    that stall every interaction in flight. From then on the collector runs less often
    (:data:`GC_THRESHOLDS`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


# --- starting and stopping on a platform ----------------------------------------------------------


class StartFailed(Exception):
    """Starting cannot go on. ``str(self)`` is the one sentence the operator reads; ``status`` the
    exit status: 2 when a setting must change (a token refused), 1 when the platform could not
    be reached (a supervisor may well try again)."""

    def __init__(self, sentence: str, status: int = 1) -> None:
        super().__init__(sentence)
        self.status = status


class Stopped(Exception):
    """SIGINT or SIGTERM arrived while a step of starting was waiting."""


class NoAnswer(Exception):
    """A step of starting waited its whole timeout."""


def stop_on_signals() -> asyncio.Event:
    """An event that SIGINT and SIGTERM set, on the running loop.

    The runtimes wait on it, and every step of starting waits on it too (:func:`step`): without
    it SIGTERM kills the process mid-write, and SIGINT raises KeyboardInterrupt wherever the loop
    is, or nowhere at all while a library's retry loop holds the start (slack_sdk's)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    return stop


async def step(work: Awaitable[T], stop: asyncio.Event, timeout: float | None = None) -> T:
    """``work``'s result (or what it raises), unless ``stop`` is set first (:class:`Stopped`) or
    ``timeout`` seconds pass (:class:`NoAnswer`). ``work`` runs as a task of its own, so that it
    can be cancelled wherever it waits; it is given :data:`STOP_GRACE_S` to unwind."""
    task = asyncio.ensure_future(work)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        done, _ = await asyncio.wait(
            {task, stopping}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        stopping.cancel()
        if not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=STOP_GRACE_S)
        _reap(task)
    if task in done:
        return task.result()
    if stop.is_set():
        raise Stopped
    raise NoAnswer


def _reap(task: asyncio.Future[T]) -> None:
    # A task cancelled on its way out may still have failed: take its exception, so asyncio does
    # not log "exception was never retrieved" with a traceback at exit.
    if task.done() and not task.cancelled():
        task.exception()


async def settle(work: Awaitable[object], what: str) -> None:
    """Await one step of stopping for at most :data:`STOP_GRACE_S`; if it fails or takes longer,
    say so in one log line and go on stopping."""
    try:
        await asyncio.wait_for(work, STOP_GRACE_S)
    except TimeoutError:
        log.warning("%s took over %g s; stopping without it", what, STOP_GRACE_S)
    except Exception as exc:  # stopping goes on whatever one step did
        log.warning("%s failed: %s", what, unreachable(exc) or repr(exc))


def unreachable(error: BaseException) -> str | None:
    """Why a connection failed, in a few words ("connection refused"), or None when ``error`` is
    not a failure of the network."""
    # An aiohttp error exists only once aiohttp is imported (by a platform's SDK): the console,
    # which has none, does not pay for importing it here.
    if "aiohttp" in sys.modules:
        import aiohttp

        if isinstance(error, aiohttp.ClientConnectorDNSError):
            return "its host name did not resolve"
        if isinstance(error, aiohttp.ClientSSLError):
            return f"the TLS handshake failed ({error})"
        if isinstance(error, aiohttp.ClientConnectorError):
            error = error.os_error  # the socket's own error says why
        elif isinstance(error, aiohttp.ServerDisconnectedError):
            return "it closed the connection without answering"
        elif isinstance(error, aiohttp.WSServerHandshakeError):
            return f"it answered {error.status} {error.message} instead of opening a websocket"
        elif isinstance(error, aiohttp.ClientError) and not isinstance(error, OSError):
            return str(error) or type(error).__name__
    if isinstance(error, socket.gaierror):
        return "its host name did not resolve"
    if isinstance(error, ssl.SSLError):
        return f"the TLS handshake failed ({error})"
    if isinstance(error, TimeoutError):
        return "no answer in time"
    if isinstance(error, OSError):
        if error.errno == errno.ECONNREFUSED:
            return "connection refused"
        words = error.strerror or str(error) or type(error).__name__
        return words[:1].lower() + words[1:]
    return None


class DropRecords(logging.Filter):
    """Drops the records of the logger it is added to whose message starts with one of
    ``prefixes``: a library's warning about something this bot does not use, and only that."""

    def __init__(self, *prefixes: str) -> None:
        super().__init__()
        self.prefixes = prefixes

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(self.prefixes)


class FirstFailure(logging.Filter):
    """While starting, a library's "failed to connect; retrying" record ends the start instead.

    discord.py retries a shard's first connection, and slack_sdk its Socket Mode connection,
    forever, logging a traceback each time. Within ``with FirstFailure(logger, prefix)``, the
    first such record of ``logger`` is not logged: its exception becomes :attr:`failed`'s
    result, which the start waits on beside the connection, and says in a sentence.
    """

    def __init__(self, logger: logging.Logger, prefix: str) -> None:
        super().__init__()
        self.logger = logger
        self.prefix = prefix
        self.failed: asyncio.Future[BaseException] = asyncio.get_running_loop().create_future()

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(self.prefix):
            return True
        error = record.exc_info[1] if record.exc_info else None
        if not self.failed.done():
            self.failed.set_result(error or RuntimeError(record.getMessage()))
        return False

    def __enter__(self) -> FirstFailure:
        self.logger.addFilter(self)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.logger.removeFilter(self)
        self.failed.cancel()


PICTURE_PROCESSES = 1
"""Processes a worker draws its board pictures in (see :func:`picture_drawer`)."""


@contextlib.contextmanager
def picture_drawer(settings: Settings) -> Iterator[concurrent.futures.Executor | None]:
    """Where a platform worker draws its board pictures: a process of its own (started with
    ``spawn``: a clean interpreter, nothing of the worker's threads or sockets), so that drawing,
    which holds the GIL for most of its 20 ms, takes none of the event loop's time; None (a
    worker thread) with pictures off. Stopped with the worker.

    Its process starts at the first drawing, or at :func:`warm_drawer`, which the workers call
    once the platform has taken the bot's token: a start that fails starts no process."""
    if not settings.pictures:
        yield None
        return
    context = multiprocessing.get_context("spawn")
    pool = concurrent.futures.ProcessPoolExecutor(PICTURE_PROCESSES, mp_context=context)
    try:
        yield pool
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def warm_drawer(drawer: concurrent.futures.Executor | None) -> None:
    """Start :func:`picture_drawer`'s process and load what drawing needs in it now, not at
    the first board (None: pictures off, nothing to start)."""
    if drawer is None:
        return
    from bot.commands.play import warm_pictures

    drawer.submit(warm_pictures)
