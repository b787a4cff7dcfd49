"""``boardroom bench --frozen``: how long players and ``/healthz`` wait while Redis hangs.

The bench starts its own ``redis-server`` (it must own the process to freeze it) and one worker on
it: the real :class:`~bot.commands.authority.Authority`, its deadline loop and the Slack HTTP
app's ``GET /healthz``. It opens a few tables of The Big Idea waiting on their players (Alice may
pick again and again: a pick phase takes the last pick) and one table that bots and the clock
play.

Then it freezes redis-server with SIGSTOP for ``--seconds`` (20): the kernel still accepts
connections, and nothing answers. The freeze comes as Alice's pick at the first table is saved,
so that move shows the worst case (the save's wait, then the read-back's). For the rest of the
freeze, over and over, a player asks for ``status``, Alice picks at the next table, and a load
balancer asks ``/healthz``; each is timed from the request to its answer. Then SIGCONT: the
bench times the first status answered from the game again and the first deadline fired (the
clock is moved on so that the bots' table is due), delivers again every move that was not
applied (the platform's retry, with the same delivery id), and counts every table's picks in its
log against the moves made: each must be there exactly once.

The last line is machine-readable::

    freeze_s=<x> status_max_s=<x> move_max_s=<x> healthz_max_s=<x> healthz_frozen=<code>
    resumed_s=<x> deadline_resumed_s=<x> lost=<n> doubled=<n>

(one line). With the defaults (``BOARDROOM_REDIS_TIMEOUT_SECONDS`` 2, health 1) the goals are
``status_max_s`` and ``move_max_s`` within 5, ``healthz_max_s`` within 3 and ``healthz_frozen``
503, and 0 lost or doubled.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import ClientSession, ClientTimeout

from bot.adapters.slack.app import SlackAdapter
from bot.adapters.slack.budget import BudgetedWebClient
from bot.adapters.slack.http import HEALTH_PATH, serve_http
from bot.commands import codec
from bot.commands.authority import Authority, Request
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.deadlines import Heartbeat, run_deadlines
from bot.health import health
from bot.settings import Settings
from storage import GameKey, GameStore, SaveResult, StorageUnavailable
from testkit.local_server import LocalRedisServer

__all__ = ["frozen_bench"]

_T = TypeVar("_T")

PLATFORM = "console"
HUMANS = ("alice", "bob", "carol")
WAITING = "pick_seconds=3600 vote_seconds=60 turn_seconds=60"
CLOCKED = "pick_seconds=5 vote_seconds=5 turn_seconds=5"
_PAUSE_S = 0.2
"""Between two rounds of requests while Redis is frozen."""
_RECOVERY_S = 30.0


class _FreezeOnSave(GameStore):
    """The real store; ``freeze`` (when set) runs just before the next save goes out."""

    freeze: Callable[[], None] | None = None

    async def save(self, key: GameKey, data: str, **kwargs: Any) -> SaveResult:
        freeze, self.freeze = self.freeze, None
        if freeze is not None:
            freeze()
        return await super().save(key, data, **kwargs)


def _req(channel: str, user: str, delivery: str | None = None) -> Request:
    return Request(
        platform=PLATFORM, channel=channel, user=user, name=user.title(), delivery=delivery
    )


class _Bench:
    def __init__(self, settings: Settings, server: LocalRedisServer, tables: int) -> None:
        self.store = _FreezeOnSave.from_url(server.url, timeout_s=settings.redis_timeout_seconds)
        self.offset = 0.0
        seeds = random.Random(1)
        self.authority = Authority(
            self.store,
            settings,
            clock=lambda: time.time() + self.offset,
            new_seed=lambda: seeds.getrandbits(63),
        )
        self.tables = [f"waiting-{n}" for n in range(tables)]
        self.picks: dict[str, tuple[str, list[str]]] = {}
        """Each table's pick menu for Alice and three of her cards."""
        self.moves: dict[str, list[str]] = {table: [] for table in self.tables}
        """Each table's deliveries of Alice's picks."""
        self.unapplied: list[tuple[str, str]] = []
        self.fired: list[str] = []
        self.beat = Heartbeat(settings.deadline_poll_seconds)
        self.times: dict[str, list[float]] = {"status": [], "move": [], "healthz": []}
        self.health_codes: set[int] = set()

    async def open(self) -> None:
        for table in [*self.tables, "clocked"]:
            options = CLOCKED if table == "clocked" else WAITING
            host = _req(table, "alice")
            out = await self.authority.command(host, "bigidea", f"start {options}")
            assert out.card is not None, out.deliveries
            if table == "clocked":
                await self.authority.command(host, "bigidea", "addbot 3")
            else:
                for user in HUMANS[1:]:
                    await self.authority.command(_req(table, user), "bigidea", "join")
            out = await self.authority.command(host, "bigidea", "begin")
            assert out.begun, out.deliveries
            if table != "clocked":
                select = out.panels["alice"].selects[0]
                values = [option.value for option in select.options[:3]]
                self.picks[table] = (codec.encode_select("bigidea", select), values)

    async def pick(self, table: str) -> Outbox:
        delivery = f"{table}:pick-{len(self.moves[table])}"
        self.moves[table].append(delivery)
        return await self._deliver(table, delivery)

    async def _deliver(self, table: str, delivery: str) -> Outbox:
        # Each pick differs from the one before it (picking the same again changes nothing).
        custom_id, cards = self.picks[table]
        n = self.moves[table].index(delivery)
        values = cards[:2] if n % 2 == 0 else cards[1:3]
        out = await self.authority.press(_req(table, "alice", delivery), custom_id, values)
        if out.unavailable:
            self.unapplied.append((table, delivery))
        return out

    async def timed(self, what: str, call: Any) -> Any:
        started = time.monotonic()
        result = await call
        self.times[what].append(time.monotonic() - started)
        return result

    async def healthz(self, session: ClientSession, port: int) -> int:
        async with session.get(f"http://127.0.0.1:{port}{HEALTH_PATH}") as answer:
            await answer.read()
            return answer.status

    async def retry_unapplied(self) -> None:
        """The platform delivers again what was answered "unavailable" (the same id)."""
        pending, self.unapplied = self.unapplied, []
        for table, delivery in pending:
            out = await self._deliver(table, delivery)
            if out.unavailable:
                raise RuntimeError(f"{delivery} was still not applied once Redis was back")

    async def count(self) -> tuple[int, int]:
        """(lost, doubled): Alice's picks in each table's log against her moves there."""
        lost = doubled = 0
        for table in self.tables:
            history = await self.store.read_history(GameKey(PLATFORM, table))
            entries = [entry for text in history.lines for entry in json.loads(text)]
            logged = sum(1 for entry in entries if entry[:2] == [0, "pick"])
            made = len(self.moves[table])
            lost += max(0, made - logged)
            doubled += max(0, logged - made)
        return lost, doubled


async def frozen_bench(settings: Settings, seconds: float = 20.0, tables: int = 4) -> int:
    """Freeze a redis-server for ``seconds`` under one worker and print what players waited."""
    workdir = Path(tempfile.mkdtemp(prefix="boardroom-frozen-"))
    async with LocalRedisServer(None, workdir) as server:
        bench = _Bench(settings, server, tables)
        stop = asyncio.Event()

        async def sink(out: Outbox) -> None:
            bench.fired.append(out.channel)

        poll = settings.deadline_poll_seconds
        loop = asyncio.create_task(
            run_deadlines(bench.authority, PLATFORM, sink, poll, stop, bench.beat)
        )
        adapter = SlackAdapter(bench.authority, BudgetedWebClient(token="xoxb-bench"), "bench")
        runner, port = await serve_http(
            adapter, "127.0.0.1", 0, lambda: health(bench.authority, bench.beat)
        )
        try:
            return await _run(bench, server, port, seconds)
        finally:
            stop.set()
            await loop
            await runner.cleanup()
            await bench.store.close()


async def _run(bench: _Bench, server: LocalRedisServer, port: int, seconds: float) -> int:
    await bench.open()
    pid = int((await bench.store.client.info("server"))["process_id"])
    print(f"{len(bench.tables)} tables waiting on their players, 1 played by the clock")
    async with ClientSession(timeout=ClientTimeout(total=60)) as session:
        bench.store.freeze = lambda: os.kill(pid, signal.SIGSTOP)
        frozen_at = time.monotonic()
        try:
            # Alice's pick at the first table is the save sent as Redis freezes.
            await bench.timed("move", bench.pick(bench.tables[0]))
            turn = 1
            while turn == 1 or time.monotonic() - frozen_at < seconds:  # one round at least
                table = bench.tables[turn % len(bench.tables)]
                who = HUMANS[turn % len(HUMANS)]
                asking = _req(table, who, f"status-{turn}")
                await bench.timed("status", bench.authority.command(asking, "bigidea", "status"))
                await bench.timed("move", bench.pick(table))
                code = await bench.timed("healthz", bench.healthz(session, port))
                bench.health_codes.add(code)
                turn += 1
                await asyncio.sleep(_PAUSE_S)
        finally:
            os.kill(pid, signal.SIGCONT)
        thawed_at = time.monotonic()
        freeze_s = thawed_at - frozen_at

        # Back: the first status answered from the game, and the clock's next deadline (due
        # by now after a long freeze; made due now after a short one) fired by the loop.
        bench.fired.clear()
        _, loaded = await _retrying(lambda: bench.store.load(GameKey(PLATFORM, "clocked")))
        assert loaded is not None
        due = GameRecord.model_validate_json(loaded.data).next_due
        assert due is not None
        bench.offset = max(0.0, due - time.time())

        async def answered() -> bool:
            out = await bench.authority.command(_req(bench.tables[0], "bob"), "bigidea", "status")
            return not out.unavailable

        async def fired() -> bool:
            return "clocked" in bench.fired

        resumed_s = await _until(answered, thawed_at, "a status answered")
        deadline_s = await _until(fired, thawed_at, "the deadline fired")
        await bench.retry_unapplied()
        lost, doubled = await bench.count()
        health_after = await bench.healthz(session, port)

    times = {what: max(values) if values else 0.0 for what, values in bench.times.items()}
    frozen_codes = ",".join(str(code) for code in sorted(bench.health_codes))
    print(
        f"frozen {freeze_s:.1f} s: status answered within {times['status']:.2f} s "
        f"({len(bench.times['status'])} asked), a move within {times['move']:.2f} s "
        f"({len(bench.times['move'])} made), /healthz within {times['healthz']:.2f} s "
        f"(answering {frozen_codes})"
    )
    print(
        f"after SIGCONT: status from the game after {resumed_s:.2f} s, a due deadline fired "
        f"after {deadline_s:.2f} s, /healthz {health_after}; "
        f"moves lost {lost}, applied twice {doubled}"
    )
    print(
        f"freeze_s={freeze_s:.1f} status_max_s={times['status']:.2f} "
        f"move_max_s={times['move']:.2f} healthz_max_s={times['healthz']:.2f} "
        f"healthz_frozen={frozen_codes} resumed_s={resumed_s:.2f} "
        f"deadline_resumed_s={deadline_s:.2f} lost={lost} doubled={doubled}"
    )
    return 0 if lost == doubled == 0 and health_after == 200 else 1


async def _retrying(call: Callable[[], Awaitable[_T]]) -> _T:
    """``call()`` once Redis answers it (just after SIGCONT it may still be catching up)."""
    started = time.monotonic()
    while True:
        try:
            return await call()
        except StorageUnavailable:
            if time.monotonic() - started > _RECOVERY_S:
                raise
            await asyncio.sleep(0.01)


async def _until(check: Callable[[], Awaitable[bool]], since: float, what: str) -> float:
    """Seconds from ``since`` until ``check()`` is true (polled); raises after a bound."""
    while not await check():
        if time.monotonic() - since > _RECOVERY_S:
            raise RuntimeError(f"{what}: not within {_RECOVERY_S:g} s")
        await asyncio.sleep(0.01)
    return time.monotonic() - since
