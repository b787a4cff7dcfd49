"""What a worker counts, for Prometheus (``GET /metrics`` on ``BOARDROOM_METRICS_PORT``).

Every metric is named ``boardroom_*`` and defined here, once; the layers that see what happens
call the small functions below (one line where it happens), and :mod:`bot.ops` serves them with
``/healthz``. Labels are kept to a few values each (a platform, a kind of request, an outcome, an
API method with ids taken out): never a channel, a user or anything a player typed, which would
make a series per person.

The platform-call budget (the table layer) records its waits with :func:`budget_wait`; every
HTTP call to a platform is counted below it, at the HTTP client (:func:`http_trace`), 429s
included, so the budget must not count calls itself.

docs/operating.md lists every metric with a sample scrape and what to alert on.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from types import SimpleNamespace

import aiohttp
from prometheus_client import REGISTRY as DEFAULT_REGISTRY
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from yarl import URL

from storage import GameStore

__all__ = [
    "REGISTRY",
    "Context",
    "budget_deferred",
    "budget_wait",
    "context",
    "deadline_late",
    "game_state",
    "http_trace",
    "in_context",
    "outcome",
    "picture_rebuilt",
    "picture_rendered",
    "platform_call",
    "rate_limited",
    "redis_call",
    "refusal",
    "replay_rebuilt",
    "request_done",
    "scrape",
    "watch_pool",
]

disable_created_metrics()  # type: ignore[no-untyped-call]  # (*_created series: noise here)

REGISTRY: CollectorRegistry = DEFAULT_REGISTRY
"""Where every metric lives: prometheus_client's default registry, which also holds the
process's own (``process_cpu_seconds_total``, ``process_resident_memory_bytes``, open fds)."""

_FAST = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Buckets (seconds) for what a player waits on: an answer, a platform call, a drawing."""
_REDIS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_LATE = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)

REQUESTS = Counter(
    "boardroom_requests",
    "Requests handled (commands, presses, forms; deadlines fired), by what became of them.",
    ["platform", "kind", "outcome"],
)
REFUSALS = Counter(
    "boardroom_refusals",
    "Requests refused with a sentence to the player, by the kind of refusal.",
    ["platform", "reason"],
)
ANSWER_SECONDS = Histogram(
    "boardroom_answer_seconds",
    "From a request's arrival at the desk to its last answer (acknowledgement included).",
    ["platform", "kind"],
    buckets=_FAST,
)
PLATFORM_CALLS = Counter(
    "boardroom_platform_calls",
    "HTTP calls to a platform's API, by method (ids left out) and status (0: no answer).",
    ["platform", "method", "status"],
)
PLATFORM_SECONDS = Histogram(
    "boardroom_platform_call_seconds",
    "How long one HTTP call to a platform took, by platform.",
    ["platform"],
    buckets=_FAST,
)
RATE_LIMITED = Counter(
    "boardroom_platform_rate_limited",
    "Calls a platform refused with 429 (each try counts).",
    ["platform", "method"],
)
BUDGET_WAITS = Counter(
    "boardroom_platform_budget_waits",
    "Calls that waited for the shared platform budget before being sent.",
    ["platform", "bucket"],
)
BUDGET_DEFERRED = Counter(
    "boardroom_platform_budget_deferred",
    "Edits deferred for want of room in the shared platform budget (shown later, coalesced).",
    ["platform", "bucket"],
)
BUDGET_WAIT_SECONDS = Histogram(
    "boardroom_platform_budget_wait_seconds",
    "How long a call waited for the shared platform budget.",
    ["platform"],
    buckets=_FAST,
)
DEADLINE_LATE = Histogram(
    "boardroom_deadline_lateness_seconds",
    "From a deadline's due time to the moment its Timeout was applied.",
    ["platform"],
    buckets=_LATE,
)
GAMES = Counter(
    "boardroom_games",
    "Games entering a state (lobby: opened; playing: begun; finished: over).",
    ["platform", "game", "state"],
)
REDIS_SECONDS = Histogram(
    "boardroom_redis_call_seconds",
    "One store call (its Redis round trips, waiting for a connection included), by outcome.",
    ["call", "outcome"],
    buckets=_REDIS,
)
REDIS_POOL_IN_USE = Gauge(
    "boardroom_redis_pool_in_use", "Redis connections lent out now (single server)."
)
REDIS_POOL_SIZE = Gauge("boardroom_redis_pool_size", "The most Redis connections the pool opens.")
REDIS_POOL_WAITING = Gauge(
    "boardroom_redis_pool_waiting", "Store calls waiting now for a free Redis connection."
)
REDIS_POOL_EXHAUSTED = Counter(
    "boardroom_redis_pool_exhausted",
    "Store calls that found no free Redis connection within their timeout.",
)
INFLIGHT = Gauge(
    "boardroom_inflight_requests", "Requests being worked on now (at most the worker's bound)."
)
QUEUED = Gauge("boardroom_queued_requests", "Requests acknowledged and waiting for a free slot.")
PICTURE_SECONDS = Histogram(
    "boardroom_picture_render_seconds",
    "Drawing one picture in the picture process.",
    buckets=_FAST,
)
BOT_THINK_SECONDS = Histogram(
    "boardroom_bot_think_cpu_seconds",
    "CPU seconds of one strong bot's search, in the worker's process pool.",
    buckets=_FAST,
)
PICTURE_WAIT_SECONDS = Histogram(
    "boardroom_picture_wait_seconds",
    "From asking for a picture to having it (the queue and the drawing).",
    buckets=_FAST,
)
PICTURE_QUEUE = Gauge("boardroom_picture_queue", "Pictures asked for and not drawn yet.")
PICTURE_REBUILDS = Counter(
    "boardroom_picture_pool_rebuilds",
    "Times the picture process was found dead and started again.",
)
REPLAY_REBUILDS = Counter(
    "boardroom_replay_rebuilds", "Finished games rebuilt from their log for a replay."
)
REPLAY_SECONDS = Histogram(
    "boardroom_replay_rebuild_seconds", "Rebuilding one finished game for a replay.", buckets=_FAST
)


# --- the request being handled ---------------------------------------------------------------


@dataclass(frozen=True)
class Context:
    """What the logs and the metrics know of the request being handled (never its text)."""

    platform: str = ""
    kind: str = "deadline"
    """command, press, form; ``deadline`` for what the clock fired."""
    channel: str = ""
    game: str = ""
    delivery: str = ""


_NONE = Context()
_CONTEXT: contextvars.ContextVar[Context | None] = contextvars.ContextVar(
    "boardroom_request", default=None
)


def context() -> Context:
    """The request the running task works for (tasks it starts inherit it)."""
    return _CONTEXT.get() or _NONE


@contextlib.contextmanager
def in_context(**fields: str) -> Iterator[Context]:
    """Work for one request: logs (JSON lines) and metrics carry ``fields`` until the end."""
    now = replace(context(), **fields)
    token = _CONTEXT.set(now)
    try:
        yield now
    finally:
        _CONTEXT.reset(token)


# --- what the layers record -------------------------------------------------------------------


def outcome(platform: str, what: str) -> None:
    """A request (or a fired deadline) of the running context ended as ``what``: applied,
    unchanged, refused, stale, duplicate, unavailable, busy, damaged or failed."""
    REQUESTS.labels(platform, context().kind, what).inc()


def refusal(platform: str, error: BaseException) -> None:
    """A request was refused with a sentence; the reason is the kind of refusal."""
    REFUSALS.labels(platform, type(error).__name__).inc()
    outcome(platform, "refused")


def request_done(platform: str, kind: str, seconds: float) -> None:
    ANSWER_SECONDS.labels(platform, kind).observe(seconds)


def deadline_late(platform: str, seconds: float) -> None:
    DEADLINE_LATE.labels(platform).observe(max(0.0, seconds))


def game_state(platform: str, game: str, state: str) -> None:
    GAMES.labels(platform, game or "none", state).inc()


def redis_call(call: str, what: str, seconds: float) -> None:
    """One store call ended as ``what`` (ok, unavailable, full, refused, exhausted, error)."""
    REDIS_SECONDS.labels(call, what).observe(seconds)
    if what == "exhausted":
        REDIS_POOL_EXHAUSTED.inc()


def platform_call(platform: str, method: str, status: int, seconds: float) -> None:
    """One HTTP call to a platform (``status`` 0: it got no answer). :func:`http_trace` calls
    this for every call of the runtimes' HTTP clients."""
    PLATFORM_CALLS.labels(platform, method, str(status)).inc()
    PLATFORM_SECONDS.labels(platform).observe(seconds)
    if status == 429:
        RATE_LIMITED.labels(platform, method).inc()


def rate_limited(platform: str, method: str) -> None:
    """A 429 seen somewhere other than the HTTP client (a platform SDK's own retry)."""
    RATE_LIMITED.labels(platform, method).inc()


def budget_wait(platform: str, bucket: str, seconds: float) -> None:
    """A call waited ``seconds`` for the shared budget ``bucket`` (a Slack method's tier, a
    Discord route or the global limit) before it was sent. For the budget layer to call."""
    BUDGET_WAITS.labels(platform, bucket).inc()
    BUDGET_WAIT_SECONDS.labels(platform).observe(seconds)


def budget_deferred(platform: str, bucket: str) -> None:
    """An edit the shared budget had no room for was deferred (the table shows that surface's
    newest state once it has). For the budget layer to call."""
    BUDGET_DEFERRED.labels(platform, bucket).inc()


def picture_rendered(render_s: float, waited_s: float) -> None:
    PICTURE_SECONDS.observe(render_s)
    PICTURE_WAIT_SECONDS.observe(waited_s)


def bot_thought(cpu_s: float) -> None:
    """A strong bot searched one decision in the process pool for ``cpu_s`` CPU seconds."""
    BOT_THINK_SECONDS.observe(cpu_s)


def picture_rebuilt() -> None:
    PICTURE_REBUILDS.inc()


def replay_rebuilt(seconds: float) -> None:
    """A finished game was rebuilt from its log for a replay (the replays call this)."""
    REPLAY_REBUILDS.inc()
    REPLAY_SECONDS.observe(seconds)


def watch_pool(store: GameStore | None) -> None:
    """Read the pool gauges from ``store``'s Redis pool at each scrape (None: stop)."""

    def use(part: int) -> Callable[[], float]:
        def read() -> float:
            found = store.pool_use() if store is not None else None
            return float(found[part]) if found is not None else 0.0

        return read

    REDIS_POOL_IN_USE.set_function(use(0))
    REDIS_POOL_SIZE.set_function(use(1))
    REDIS_POOL_WAITING.set_function(use(2))


def scrape() -> bytes:
    """The text Prometheus reads (``GET /metrics``)."""
    return generate_latest(REGISTRY)


# --- platform calls, counted at the HTTP client ----------------------------------------------

_ID = re.compile(r"^[0-9]+$")
_TOKENED = {"interactions", "webhooks"}
"""Discord path segments followed by an id and then a token (which must not become a label)."""


def method_of(platform: str, http_method: str, url: URL) -> str:
    """A call's method as a label: Slack's API method (``chat.postMessage``), ``response_url``
    or ``file_upload``; Discord's route with ids and tokens as ``{id}`` and ``{token}``."""
    path = url.path
    if platform == "slack":
        if "/api/" in path:
            return path.rsplit("/api/", 1)[1].strip("/") or "unknown"
        return "file_upload" if "upload" in path else "response_url"
    parts = [part for part in path.split("/") if part]
    if parts[:1] == ["api"]:
        parts = parts[2:] if len(parts) > 1 and parts[1].startswith("v") else parts[1:]
    shown: list[str] = []
    for index, part in enumerate(parts):
        after_tokened = index >= 2 and parts[index - 2] in _TOKENED
        shown.append("{id}" if _ID.match(part) else "{token}" if after_tokened else part)
    return f"{http_method} /{'/'.join(shown)}"


def http_trace(
    platform: str, clock: Callable[[], float] = time.perf_counter
) -> aiohttp.TraceConfig:
    """An aiohttp trace that counts every call of the session it is given to as a call to
    ``platform`` (:func:`platform_call`): the runtimes give it to discord.py's and slack_sdk's
    sessions, so every call is counted wherever in the bot it is made."""
    trace = aiohttp.TraceConfig()

    async def started(
        _session: aiohttp.ClientSession,
        context: SimpleNamespace,
        _params: aiohttp.TraceRequestStartParams,
    ) -> None:
        context.boardroom_started = clock()

    async def ended(
        _session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        seconds = clock() - getattr(context, "boardroom_started", clock())
        method = method_of(platform, params.method, params.url)
        platform_call(platform, method, params.response.status, seconds)

    async def failed(
        _session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestExceptionParams,
    ) -> None:
        seconds = clock() - getattr(context, "boardroom_started", clock())
        platform_call(platform, method_of(platform, params.method, params.url), 0, seconds)

    trace.on_request_start.append(started)
    trace.on_request_end.append(ended)
    trace.on_request_exception.append(failed)
    trace.freeze()
    return trace
