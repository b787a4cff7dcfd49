"""What every way of running the bot shares, built in one place (:class:`Runtime`): the store
(said once if it is embedded), the authority, the picture process, the bound on in-flight work,
the deadline loop, ``/healthz`` and ``/metrics``; and starting and stopping on a platform (one
sentence when starting fails, a prompt stop on SIGINT or SIGTERM whatever the start is waiting
for). A platform's start-up (``bot/adapters/*/cli.py``, the console) adds only its SDK's client
and adapter (whose table and desk the runtime binds) and its connection."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import errno
import functools
import gc
import logging
import multiprocessing
import os
import random
import secrets
import signal
import socket
import ssl
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from types import TracebackType
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from bot import children, metrics
from bot.settings import Settings
from bot.slots import Slots
from storage import GameStore, StorageUnavailable

if TYPE_CHECKING:  # (the authority imports the games: the console's start need not wait on it)
    from aiohttp import web

    from bot.deadlines import Sink
    from bot.desk import Desk
    from bot.health import Report
    from bot.table import Table

__all__ = [
    "EMBEDDED_NOTICE",
    "STOP_GRACE_S",
    "DropRecords",
    "FirstFailure",
    "NoAnswer",
    "PictureDrawer",
    "Runtime",
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
P = ParamSpec("P")

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
        pool_size=settings.redis_pool_size,
    )
    store.observe = metrics.redis_call
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


class PictureDrawer(concurrent.futures.Executor):
    """The worker's picture process: a :class:`~concurrent.futures.ProcessPoolExecutor` of
    :data:`PICTURE_PROCESSES` (started with ``spawn``: a clean interpreter, nothing of the
    worker's threads or sockets) that

    - ends with the worker however the worker ends, SIGKILL included
      (:func:`bot.children.die_with_parent`; multiprocessing's resource tracker then ends too);
    - is started again when it breaks (its process killed, or dead of a drawing): the pool is
      rebuilt, counted (``boardroom_picture_pool_rebuilds_total``, :attr:`rebuilds`) and logged,
      and each drawing it lost is tried once more on the new one;
    - times each drawing where it runs and what waited for it, and counts the queue
      (``boardroom_picture_render_seconds``, ``..._wait_seconds``, ``boardroom_picture_queue``).

    Any callable may be submitted (the table's drawings; a strong bot's search), as to any
    executor; its arguments and result are pickled."""

    def __init__(self, processes: int = PICTURE_PROCESSES) -> None:
        self.processes = processes
        self.rebuilds = 0
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._closed = False
        self._pool = self._new_pool()

    def _new_pool(self) -> concurrent.futures.ProcessPoolExecutor:
        return concurrent.futures.ProcessPoolExecutor(
            self.processes,
            mp_context=self._context,
            initializer=children.die_with_parent,
            initargs=(os.getpid(),),
        )

    def submit(
        self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> concurrent.futures.Future[T]:
        outer: concurrent.futures.Future[T] = concurrent.futures.Future()

        def send(
            pool: concurrent.futures.ProcessPoolExecutor,
        ) -> concurrent.futures.Future[tuple[float, T]]:
            timed: functools.partial[tuple[float, T]] = functools.partial(
                children.timed, fn, *args, **kwargs
            )
            return pool.submit(timed)

        self._send(outer, send, False)
        return outer

    def _send(
        self,
        outer: concurrent.futures.Future[T],
        send: Callable[
            [concurrent.futures.ProcessPoolExecutor], concurrent.futures.Future[tuple[float, T]]
        ],
        retried: bool,
    ) -> None:
        asked = time.perf_counter()
        with self._lock:
            pool = self._pool
        try:
            inner = send(pool)
        except BrokenProcessPool:
            pool = self._rebuilt(pool)
            try:
                inner = send(pool)
            except Exception as error:
                _settle_future(outer, error=error)
                return
        except Exception as error:  # (a closed drawer: the worker is stopping)
            _settle_future(outer, error=error)
            return
        metrics.PICTURE_QUEUE.inc()

        def done(future: concurrent.futures.Future[tuple[float, T]]) -> None:
            metrics.PICTURE_QUEUE.dec()
            if future.cancelled():
                outer.cancel()
                return
            error = future.exception()
            if isinstance(error, BrokenProcessPool) and not self._closed:
                self._rebuilt(pool)
                if not retried:
                    self._send(outer, send, True)
                    return
            if error is not None:
                _settle_future(outer, error=error)
                return
            render_s, result = future.result()
            metrics.picture_rendered(render_s, time.perf_counter() - asked)
            _settle_future(outer, result=(result,))

        inner.add_done_callback(done)

    def _rebuilt(
        self, broken: concurrent.futures.ProcessPoolExecutor
    ) -> concurrent.futures.ProcessPoolExecutor:
        """The pool to use instead of ``broken`` (the same one if another caller rebuilt it)."""
        with self._lock:
            if self._pool is broken and not self._closed:
                broken.shutdown(wait=False, cancel_futures=True)
                self._pool = self._new_pool()
                self.rebuilds += 1
                metrics.picture_rebuilt()
                log.warning(
                    "the picture process died; started a new one (%d so far)", self.rebuilds
                )
            return self._pool

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closed = True
            pool = self._pool
        pool.shutdown(wait=wait, cancel_futures=cancel_futures)


async def _until(event: asyncio.Event) -> None:
    await event.wait()


def _settle_future(
    future: concurrent.futures.Future[T],
    *,
    result: tuple[T] | None = None,
    error: BaseException | None = None,
) -> None:
    """Set ``future``'s result (``result[0]``) or ``error``, unless it was cancelled meanwhile."""
    with contextlib.suppress(concurrent.futures.InvalidStateError):
        if error is not None:
            future.set_exception(error)
        elif result is not None:
            future.set_result(result[0])


@contextlib.contextmanager
def picture_drawer(settings: Settings) -> Iterator[PictureDrawer | None]:
    """Where a platform worker draws its board pictures: a :class:`PictureDrawer`, so that
    drawing, which holds the GIL for most of its 20 ms, takes none of the event loop's time;
    None (a worker thread) with pictures off. Stopped with the worker.

    Its process starts at the first drawing, or at :func:`warm_drawer`, which the workers call
    once the platform has taken the bot's token: a start that fails starts no process."""
    if not settings.pictures:
        yield None
        return
    drawer = PictureDrawer()
    try:
        yield drawer
    finally:
        drawer.shutdown(wait=False, cancel_futures=True)


def warm_drawer(drawer: concurrent.futures.Executor | None) -> None:
    """Start :func:`picture_drawer`'s process and load what drawing needs in it now, not at
    the first board (None: pictures off, nothing to start)."""
    if drawer is None:
        return
    from bot.commands.game.play import warm_pictures

    drawer.submit(warm_pictures)


# --- one running bot ----------------------------------------------------------------------------


class Runtime:
    """One running bot, the same for every platform: the store, the authority, the picture
    process, the bound on in-flight work, the deadline loop, and ``/healthz`` with ``/metrics``
    on ``BOARDROOM_METRICS_PORT``. Used as ``async with Runtime(...) as runtime:``; leaving it
    stops, each step within :data:`STOP_GRACE_S`, what it started.

    A start-up builds its platform's adapter on :attr:`authority`, hands its table and desk to
    :meth:`bind`, serves (:meth:`serve_ops`) and connects, then runs the deadline loop
    (:meth:`start_deadlines`) until :meth:`until_stopped`.
    """

    def __init__(
        self,
        settings: Settings,
        platform: str,
        stop: asyncio.Event,
        *,
        caveat: str = "",
        clock: Callable[[], float] | None = None,
        new_seed: Callable[[], int] | None = None,
        picture_process: bool = True,
    ) -> None:
        from bot.commands.authority import Authority
        from bot.deadlines import Heartbeat

        self.settings = settings
        self.platform = platform
        self.stop = stop
        self.store = open_store(settings, caveat)
        if new_seed is None:
            seeds = random.Random(secrets.randbits(64))
            new_seed = lambda: seeds.getrandbits(63)  # noqa: E731
        self.authority = Authority(
            self.store, settings, clock=clock or time.time, new_seed=new_seed
        )
        self.heartbeat = Heartbeat(settings.deadline_poll_seconds)
        self.slots = Slots(settings.max_inflight)
        self.drawer: PictureDrawer | None = None
        """The picture process (None: pictures off, or ``picture_process`` False: drawn in a
        thread)."""
        self._picture_process = picture_process
        self.ops_port: int | None = None
        """Where ``/healthz`` and ``/metrics`` are served (None: not served)."""
        self._exits = contextlib.ExitStack()
        self._ops: web.AppRunner | None = None
        self._deadlines: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Runtime:
        metrics.watch_pool(self.store)
        if self._picture_process:
            self.drawer = self._exits.enter_context(picture_drawer(self.settings))
        try:
            await step(warn_about_policy(self.store), self.stop)
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop.set()
        if self._deadlines is not None:
            await settle(self._deadlines, "stopping the deadline loop")
        if self._ops is not None:
            await settle(self._ops.cleanup(), "closing the health and metrics port")
        self._exits.close()
        metrics.watch_pool(None)
        await settle(self.store.close(), "closing the store")

    def bind(self, table: Table, desk: Desk) -> None:
        """The platform's table draws in the picture process, where the authority's strong bots
        search too; its desk works within the bound on in-flight work."""
        table.drawer = self.drawer
        desk.slots = self.slots
        # A strong bot searches in the same process pool, off the event loop.
        self.authority.thinker = self.drawer

    async def health(self) -> tuple[bool, Report]:
        """What ``/healthz`` says (see :func:`bot.health.health`)."""
        from bot.health import health

        return await health(self.authority, self.heartbeat, self.drawer)

    async def serve_ops(self) -> None:
        """Serve ``/healthz`` and ``/metrics`` on ``BOARDROOM_METRICS_HOST``:``_PORT`` (nothing
        when no port is set); :class:`StartFailed` when the address cannot be listened on."""
        port = self.settings.metrics_port
        if port is None:
            return
        from bot.ops import serve_ops

        host = self.settings.metrics_host
        try:
            self._ops, self.ops_port = await serve_ops(host, port, self.health)
        except OSError as error:
            raise StartFailed(
                f"Cannot serve /healthz and /metrics on {host} port {port}: {unreachable(error)} "
                "(BOARDROOM_METRICS_HOST and BOARDROOM_METRICS_PORT set the address)."
            ) from None
        log.info("health and metrics: http://%s:%s/healthz and /metrics", host, self.ops_port)

    def start_deadlines(self, deliver: Sink) -> asyncio.Task[None]:
        """Run the deadline loop (its heartbeat is the health check's) until stopped."""
        from bot.deadlines import run_deadlines

        self._deadlines = asyncio.create_task(
            run_deadlines(
                self.authority,
                self.platform,
                deliver,
                self.settings.deadline_poll_seconds,
                self.stop,
                self.heartbeat,
            )
        )
        return self._deadlines

    async def until_stopped(self, connection: asyncio.Future[None] | None = None) -> int:
        """Wait until SIGINT or SIGTERM (0), the deadline loop ends by itself (``LOOP_DIED``:
        a worker whose clock cannot run exits so that its supervisor starts a fresh one) or
        ``connection`` (the platform's) ends, which raises what it raised (None: returned 0)."""
        from bot.deadlines import LOOP_DIED

        assert self._deadlines is not None, "start_deadlines first"
        stopping = asyncio.ensure_future(_until(self.stop))
        waited: set[asyncio.Future[None]] = {stopping, self._deadlines}
        if connection is not None:
            waited.add(connection)
        try:
            await asyncio.wait(waited, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
        if self.stop.is_set():
            return 0
        if self._deadlines.done():
            error = None if self._deadlines.cancelled() else self._deadlines.exception()
            log.critical("the deadline loop ended (%r); exiting so a supervisor restarts", error)
            self.stop.set()
            return LOOP_DIED
        assert connection is not None
        self.stop.set()
        connection.result()
        return 0
