"""The commands a redis-server executes, counted on the server's side (``MONITOR``).

A bench measures what the bot costs Redis by what Redis itself ran, not by what the bot's code
believes it sent: every command a client sent counts once, the commands of a pipeline or a
``MULTI`` each count (``MULTI`` and ``EXEC`` too: the server runs them), and a Lua script counts
once, as its ``EVALSHA`` (the commands it runs inside are Redis's own work, shown by ``MONITOR``
as coming from ``lua``, and left out). ``EVALSHA`` is named by its script where the script is
one of the store's (``EVALSHA:save``), so the breakdown says which script ran how often.

What the bench does itself must not count as the bot's: its reads of the game to decide what
the simulated players press, or to measure the board. Those go through connections that name
themselves :data:`OBSERVER` (:func:`observer_store`); a connection ``MONITOR`` saw name itself
so is left out from then on. The window of a measurement is marked by an ``ECHO`` on such a
connection at its start and at its end, and the end waits until the monitor has read its
marker: every command the server ran in between, and only those, is counted, with no timing.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import secrets
from collections import Counter
from collections.abc import AsyncIterator

import redis.asyncio as aioredis

from storage import GameStore
from storage import store as store_module

__all__ = ["OBSERVER", "CommandMeter", "Counted", "breakdown", "observer_store", "script_names"]

OBSERVER = "boardroom-bench-observer"
"""The client name of the bench's own connections (left out of the count)."""
_MARK = "boardroom-meter"
# The start of a MONITOR line: its time, [db client], the command's name and its first argument
# (an EVALSHA's sha); the rest is not read.
_LINE = re.compile(r'[\d.]+ \[\d+ (?P<client>[^\]]+)\] "(?P<name>[^"]*)"(?: "(?P<first>[^"]*)")?')


_CONTAINERS = frozenset({"CLIENT", "CONFIG", "MEMORY", "OBJECT", "SCRIPT", "XINFO", "FUNCTION"})
"""Commands whose first argument says what they do, named with it (``SCRIPT:EXISTS``)."""


def script_names() -> dict[str, str]:
    """The SHA1 of each of the store's Lua scripts (``_SAVE_LUA`` ...) and a short name
    (``save``), so an ``EVALSHA`` can be told apart by what it runs."""
    names = {}
    for attribute, value in vars(store_module).items():
        if attribute.endswith("_LUA") and isinstance(value, str):
            sha = hashlib.sha1(value.encode()).hexdigest()
            names[sha] = attribute.strip("_").removesuffix("_LUA").lower()
    return names


def observer_store(url: str) -> GameStore:
    """A store on ``url`` whose connections are the bench's own: the meter leaves them out."""
    return GameStore(aioredis.Redis.from_url(url, decode_responses=True, client_name=OBSERVER))


class Counted:
    """The commands counted in one window, by name (``EVALSHA`` by script), and by part of the
    window (:meth:`CommandMeter.part`; ``""``: outside any part)."""

    def __init__(self) -> None:
        self.parts: dict[str, Counter[str]] = {"": Counter()}
        self.current = ""

    @property
    def by_name(self) -> Counter[str]:
        """Every part's commands together."""
        return sum(self.parts.values(), Counter())

    @property
    def total(self) -> int:
        return sum(self.by_name.values())

    def add(self, name: str) -> None:
        self.parts.setdefault(self.current, Counter())[name] += 1


def breakdown(commands: Counter[str]) -> str:
    """``name=count`` for each command, the most frequent first."""
    return " ".join(f"{name}={n}" for name, n in commands.most_common())


class CommandMeter:
    """A ``MONITOR`` connection to one redis-server, counting commands in windows.

    Start it (``async with CommandMeter(url) as meter``) before any connection the bench opens
    itself, so that it sees each of them name itself; then ``async with meter.window() as
    counted`` around what is measured.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.scripts = script_names()
        self._monitor = aioredis.Redis.from_url(url, single_connection_client=True)
        self._marker = aioredis.Redis.from_url(url, client_name=OBSERVER)
        self._excluded: set[str] = set()
        self._counting: Counted | None = None
        self._pending: Counted | None = None
        self._switches: dict[str, str] = {}
        """Part markers sent, and the part each switches the count to."""
        self._begin: str | None = None
        self._end: str | None = None
        self._seen_end = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> CommandMeter:
        try:
            await self._monitor.ping()  # connects
            connection = self._monitor.connection
            assert connection is not None
            await connection.send_command("MONITOR")
            await connection.read_response()  # OK, or raises (a server that refuses MONITOR)
            self._reader = asyncio.create_task(self._read())
            await self._marker.ping()  # names the marker connection before anything is counted
            await self._await_marker("ready")
        except BaseException:
            await self.__aexit__()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        with contextlib.suppress(Exception):
            await self._monitor.aclose()
        with contextlib.suppress(Exception):
            await self._marker.aclose()

    @contextlib.asynccontextmanager
    async def window(self) -> AsyncIterator[Counted]:
        """Count every command the server runs from now until the block ends."""
        counted = Counted()
        token = secrets.token_hex(6)
        self._begin, self._end = f"{_MARK}:{token}:begin", f"{_MARK}:{token}:end"
        self._pending = counted
        self._seen_end.clear()
        await self._marker.echo(self._begin)
        try:
            yield counted
        finally:
            await self._marker.echo(self._end)
            await self._wait_seen()
            self._begin = self._end = None

    @contextlib.asynccontextmanager
    async def part(self, counted: Counted, name: str) -> AsyncIterator[None]:
        """Count what the server runs during the block into ``counted``'s part ``name``.

        The markers are ordered with every other client's commands by the server itself (an
        ``ECHO`` has run when its reply arrives), so nothing needs to wait for the monitor.
        """
        token = secrets.token_hex(6)
        begin, end = f"{_MARK}:{token}:part", f"{_MARK}:{token}:whole"
        self._switches[begin], self._switches[end] = name, ""
        await self._marker.echo(begin)
        try:
            yield
        finally:
            await self._marker.echo(end)

    async def _await_marker(self, what: str) -> None:
        """Send a marker and wait until the monitor has read it (the connections before it are
        then known)."""
        self._end = f"{_MARK}:{secrets.token_hex(6)}:{what}"
        self._seen_end.clear()
        await self._marker.echo(self._end)
        await self._wait_seen()
        self._end = None

    async def _wait_seen(self) -> None:
        """Until the monitor read the end marker (raises what stopped the monitor, if it did)."""
        assert self._reader is not None
        seen = asyncio.ensure_future(self._seen_end.wait())
        try:
            await asyncio.wait({seen, self._reader}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            seen.cancel()
        if not self._seen_end.is_set():
            self._reader.result()  # raises what ended it
            raise RuntimeError("the MONITOR connection ended")

    async def _read(self) -> None:
        connection = self._monitor.connection
        assert connection is not None
        while True:
            line = await connection.read_response()
            text = line.decode(errors="replace") if isinstance(line, bytes) else str(line)
            self._see(text)

    def _see(self, line: str) -> None:
        found = _LINE.match(line)
        if found is None:
            return
        client, name = found["client"], found["name"].upper()
        first = found["first"] or ""
        if name == "ECHO" and first.startswith(_MARK):
            part = self._switches.pop(first, None)
            if part is not None and self._counting is not None:
                self._counting.current = part
            elif first == self._begin:
                self._counting = self._pending
            elif first == self._end:
                self._counting = None
                self._seen_end.set()
            return
        if client == "lua" or client in self._excluded:
            return
        if name in ("CLIENT", "HELLO") and f'"{OBSERVER}"' in line and "SETNAME" in line.upper():
            self._excluded.add(client)  # one of the bench's own connections, from now on
            return
        if self._counting is None:
            return
        if name == "EVALSHA":
            name = f"EVALSHA:{self.scripts.get(first, first[:8])}"
        elif name in _CONTAINERS:
            name = f"{name}:{first.upper()}"
        self._counting.add(name)
