"""Throwaway ``redis-server`` processes on 127.0.0.1 for tests and benchmarks.

:class:`LocalRedisServer` is one server; :class:`LocalRedisCluster` is a Redis Cluster of several
(masters, and replicas that a test can promote by killing their master). Servers keep nothing on
disk (no RDB snapshots, no AOF) and live in a temporary directory unless one is given. Starting
blocks until the servers answer (and a cluster reports ``cluster_state:ok`` on every node); from
async code use ``async with`` (or ``asyncio.to_thread``) so the wait does not stall the event loop.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import redis

__all__ = ["LocalRedisCluster", "LocalRedisServer", "RedisServerError", "free_port"]

_FALLBACK_BINARY = "/usr/bin/redis-server"
_FALLBACK_CLI = "/usr/bin/redis-cli"
_START_TIMEOUT_S = 10.0
_STOP_TIMEOUT_S = 5.0
_POLL_S = 0.02
_CLUSTER_SLOTS = 16384
# A cluster node's bus listens on its port + 10000 (the default the cluster protocol assumes).
_BUS_OFFSET = 10000


class RedisServerError(RuntimeError):
    """redis-server is missing or did not start; the message says which and why."""


# Servers started and not yet stopped: killed when the interpreter exits, should a caller (a test
# run interrupted hard, a crashed bench) never get to stop them.
_started: weakref.WeakSet[LocalRedisServer] = weakref.WeakSet()


@atexit.register
def _kill_leftovers() -> None:
    for server in list(_started):
        server.kill()


def free_port() -> int:
    """A port the kernel just handed out; racy in theory, fine for tests and benchmarks."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _ephemeral_low() -> int:
    try:
        low = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0]
        return int(low)
    except (OSError, ValueError, IndexError):
        return 32768


def _cluster_port(taken: set[int]) -> int:
    """A free port whose bus port (+10000) is free too, both below the kernel's ephemeral range
    (so no client socket the kernel hands out later can take them)."""
    high = min(_ephemeral_low(), 65536) - _BUS_OFFSET - 1
    for _ in range(500):
        port = random.randint(10000, max(10000, high))
        if port in taken or port + _BUS_OFFSET in taken:
            continue
        if _bindable(port) and _bindable(port + _BUS_OFFSET):
            return port
    raise RedisServerError("found no free pair of ports for a cluster node")


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _find_binary(binary: str | None) -> str:
    if binary is not None:
        found = shutil.which(binary)
        if found is None:
            raise RedisServerError(f"redis-server not found at {binary!r}")
        return found
    found = shutil.which("redis-server")
    if found is None and Path(_FALLBACK_BINARY).exists():
        found = _FALLBACK_BINARY
    if found is None:
        raise RedisServerError(
            f"redis-server not found on PATH or at {_FALLBACK_BINARY}; install it "
            "(the project setup does: apt-get install redis-server) or set REDIS_URL"
        )
    return found


def _find_cli(server_binary: str) -> str | None:
    """redis-cli beside the server binary, on PATH, or at its Debian place; None: not there."""
    beside = Path(server_binary).with_name("redis-cli")
    if beside.exists():
        return str(beside)
    found = shutil.which("redis-cli")
    if found is None and Path(_FALLBACK_CLI).exists():
        found = _FALLBACK_CLI
    return found


_Self = TypeVar("_Self", bound="_Started")


class _Started(ABC):
    """``with`` / ``async with`` for what ``start()`` starts and ``stop()`` stops."""

    @abstractmethod
    def start(self: _Self) -> _Self:
        """Start and wait until ready; the result is what ``with`` binds."""

    @abstractmethod
    def stop(self) -> None:
        """Stop everything started."""

    def __enter__(self: _Self) -> _Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self: _Self) -> _Self:
        return await asyncio.to_thread(self.start)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.stop)


class LocalRedisServer(_Started):
    """One ``redis-server`` process without persistence, bound to 127.0.0.1.

    ``port=None`` picks a free port. ``workdir=None`` uses a temporary directory that is removed
    on :meth:`stop`; a given ``workdir`` is kept, with the server's log in it. ``args`` are more
    configuration directives (``["--maxmemory", "2mb"]``). A stopped (or killed) server can be
    started again on the same port (with empty data).
    """

    def __init__(
        self,
        port: int | None = None,
        workdir: Path | None = None,
        *,
        binary: str | None = None,
        start_timeout_s: float = _START_TIMEOUT_S,
        args: Sequence[str] = (),
    ) -> None:
        self.port = port if port is not None else free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._workdir = workdir
        self._binary = binary
        self._start_timeout_s = start_timeout_s
        self._args = list(args)
        self._tempdir: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: Path | None = None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> LocalRedisServer:
        """Start the server and wait until it answers PING; raises RedisServerError."""
        self.launch()
        self.wait_ready()
        return self

    def launch(self) -> None:
        """Start the process without waiting for it (see :meth:`wait_ready`)."""
        if self._proc is not None:
            raise RedisServerError(f"redis-server on port {self.port} is already started")
        binary = _find_binary(self._binary)
        if self._workdir is not None:
            workdir = self._workdir
            workdir.mkdir(parents=True, exist_ok=True)
        elif self._tempdir is not None:  # started again after kill()
            workdir = self._tempdir
        else:
            self._tempdir = workdir = Path(tempfile.mkdtemp(prefix="boardroom-redis-"))
        self._log = log = workdir / f"redis-{self.port}.log"
        args = [binary, "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--save", "", "--appendonly", "no", "--dir", str(workdir), *self._args]
        with log.open("ab") as out:
            self._proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        _started.add(self)

    def wait_ready(self) -> None:
        """Wait until the launched server answers PING; stops it and raises if it never does."""
        proc = self._proc
        if proc is None:
            raise RedisServerError(f"redis-server on port {self.port} was not started")
        deadline = time.monotonic() + self._start_timeout_s
        while not _answers_ping(self.port):
            exited = proc.poll() is not None
            if exited or time.monotonic() > deadline:
                output = self.output()
                self.stop()
                why = "exited" if exited else f"did not answer within {self._start_timeout_s:g}s"
                raise RedisServerError(f"redis-server on port {self.port} {why}:\n{output}")
            time.sleep(_POLL_S)

    def output(self) -> str:
        """What the server wrote to its log so far."""
        if self._log is None or not self._log.exists():
            return ""
        return self._log.read_text(errors="replace")

    def kill(self) -> None:
        """End the process at once with SIGKILL, as a crash would (its directory stays)."""
        proc, self._proc = self._proc, None
        _started.discard(self)
        if proc is not None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGKILL)
            proc.wait()

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and remove its temporary directory."""
        self.terminate()
        self.wait_stopped()

    def terminate(self) -> None:
        """Ask the process to exit (SIGTERM) without waiting; :meth:`wait_stopped` finishes."""
        if self._proc is not None and self._proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self._proc.terminate()

    def wait_stopped(self, timeout_s: float = _STOP_TIMEOUT_S) -> None:
        """Wait for the process to exit (SIGKILL after ``timeout_s``) and clean up."""
        proc, self._proc = self._proc, None
        _started.discard(self)
        if proc is not None:
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)
            self._tempdir = None

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<LocalRedisServer {self.url} {state}>"


class _Node:
    """One line of CLUSTER NODES: who a node is, its role, health and slots."""

    def __init__(self, line: str) -> None:
        fields = line.split()
        self.id = fields[0]
        # "127.0.0.1:7000@17000" (Redis 4+), possibly with ",hostname" (7+).
        self.port = int(fields[1].split("@")[0].split(",")[0].rsplit(":", 1)[1])
        flags = set(fields[2].split(","))
        self.master = "master" in flags
        self.healthy = not flags & {"fail", "fail?", "handshake", "noaddr"}
        self.master_id = fields[3] if fields[3] != "-" else None
        self.slots = 0
        for part in fields[8:]:
            if part.startswith("["):  # a slot being migrated or imported
                continue
            low, _, high = part.partition("-")
            self.slots += int(high or low) - int(low) + 1


class LocalRedisCluster(_Started):
    """A Redis Cluster of ``masters`` masters with ``replicas`` replicas each, on 127.0.0.1.

    Every node is a :class:`LocalRedisServer` started with ``--cluster-enabled yes`` in one
    directory (``workdir``, or a temporary one removed on :meth:`stop`). The cluster is formed
    with ``redis-cli --cluster create`` when redis-cli is installed, or else with CLUSTER
    ADDSLOTS, MEET and REPLICATE sent by redis-py (``use_cli=False`` forces that). A replica
    promotes itself ``node_timeout_ms`` or so after its master stops answering, so
    :meth:`kill` then :meth:`wait_healthy` is a failover. :attr:`url` names one node: a cluster
    client discovers the others from it.
    """

    def __init__(
        self,
        masters: int = 3,
        replicas: int = 0,
        workdir: Path | None = None,
        *,
        binary: str | None = None,
        node_timeout_ms: int = 2000,
        start_timeout_s: float = 30.0,
        use_cli: bool | None = None,
    ) -> None:
        if masters < 1 or replicas < 0:
            raise ValueError("a cluster needs at least one master and no negative replicas")
        self.masters = masters
        self.replicas = replicas
        self.node_timeout_ms = node_timeout_ms
        self._workdir = workdir
        self._binary = binary
        self._start_timeout_s = start_timeout_s
        self._use_cli = use_cli
        self._tempdir: Path | None = None
        self.nodes: list[LocalRedisServer] = []
        """Every node, masters first (as formed; a failover changes who is master)."""

    @property
    def url(self) -> str:
        """The URL of a running node (the first one formed, while it runs)."""
        for node in self.nodes:
            if node.running:
                return node.url
        raise RedisServerError("no node of the cluster is running")

    @property
    def running(self) -> list[LocalRedisServer]:
        return [node for node in self.nodes if node.running]

    def start(self) -> LocalRedisCluster:
        """Start every node, form the cluster and wait until it is healthy."""
        if self.nodes:
            raise RedisServerError("the cluster is already started")
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        binary = _find_binary(self._binary)
        if self._workdir is not None:
            workdir = self._workdir
            workdir.mkdir(parents=True, exist_ok=True)
        else:
            self._tempdir = workdir = Path(tempfile.mkdtemp(prefix="boardroom-cluster-"))
        taken: set[int] = set()
        for _ in range(self.masters * (1 + self.replicas)):
            port = _cluster_port(taken)
            taken |= {port, port + _BUS_OFFSET}
            args = [
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                f"nodes-{port}.conf",
                "--cluster-node-timeout",
                str(self.node_timeout_ms),
                # A replica may always take over, however long since it heard from its master.
                "--cluster-replica-validity-factor",
                "0",
                # Replicas stay with the master they were given.
                "--cluster-allow-replica-migration",
                "no",
                # A master sends its first sync to a new replica at once instead of waiting
                # 5 s for more replicas to join the transfer.
                "--repl-diskless-sync-delay",
                "0",
            ]
            self.nodes.append(LocalRedisServer(port, workdir, binary=binary, args=args))
        for node in self.nodes:
            node.launch()  # all at once: each takes a moment to come up
        for node in self.nodes:
            node.wait_ready()
        cli = _find_cli(binary) if self._use_cli is not False else None
        if self._use_cli and cli is None:
            raise RedisServerError("redis-cli not found")
        if cli is not None:
            self._create_with_cli(cli)
        else:
            self._create_with_commands()
        self.wait_healthy(self._start_timeout_s)

    def _create_with_cli(self, cli: str) -> None:
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        command = [cli, "--cluster", "create", *addresses]
        command += ["--cluster-replicas", str(self.replicas), "--cluster-yes"]
        try:
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=self._start_timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise RedisServerError(
                f"redis-cli --cluster create timed out:\n{exc.stdout!r}"
            ) from exc
        if done.returncode != 0:
            raise RedisServerError(
                f"redis-cli --cluster create failed ({done.returncode}):\n"
                f"{done.stdout}{done.stderr}"
            )

    def _create_with_commands(self) -> None:
        clients = [redis.Redis(port=node.port, socket_timeout=5.0) for node in self.nodes]
        try:
            # Distinct config epochs up front, as redis-cli does, so no collision needs resolving.
            for epoch, client in enumerate(clients, 1):
                _call(client, "CLUSTER", "SET-CONFIG-EPOCH", epoch)
            share = _CLUSTER_SLOTS // self.masters
            for index, client in enumerate(clients[: self.masters]):
                low = index * share
                high = _CLUSTER_SLOTS - 1 if index == self.masters - 1 else low + share - 1
                _call(client, "CLUSTER", "ADDSLOTS", *range(low, high + 1))
            for client in clients[1:]:
                _call(client, "CLUSTER", "MEET", "127.0.0.1", self.nodes[0].port)
            ids = [str(_call(client, "CLUSTER", "MYID"), "ascii") for client in clients]
            deadline = time.monotonic() + self._start_timeout_s
            while not all(self._knows(client, ids) for client in clients):
                if time.monotonic() > deadline:
                    raise RedisServerError("the cluster nodes did not all meet")
                time.sleep(_POLL_S)
            for index, client in enumerate(clients[self.masters :]):
                _call(client, "CLUSTER", "REPLICATE", ids[index % self.masters])
        finally:
            for client in clients:
                client.close()

    @staticmethod
    def _knows(client: redis.Redis, ids: list[str]) -> bool:
        nodes = [_Node(line) for line in _cluster_nodes(client)]
        known = {node.id for node in nodes if node.healthy}
        return known >= set(ids)

    def topology(self) -> list[tuple[LocalRedisServer, bool, int]]:
        """Each running node with whether it is a master and how many slots it serves, as the
        first running node sees it."""
        client = redis.Redis(port=self.running[0].port, socket_timeout=5.0)
        try:
            by_port = {node.port: node for node in self.nodes}
            return [
                (by_port[n.port], n.master, n.slots)
                for n in map(_Node, _cluster_nodes(client))
                if n.port in by_port and by_port[n.port].running
            ]
        finally:
            client.close()

    def master_of(self, key: str) -> LocalRedisServer:
        """The node serving ``key``'s slot now."""
        from redis.crc import key_slot

        slot = key_slot(key.encode())
        client = redis.Redis(port=self.running[0].port, socket_timeout=5.0)
        try:
            for low, high, master, *_replicas in _call(client, "CLUSTER", "SLOTS"):
                if low <= slot <= high:
                    port = int(master[1])
                    return next(node for node in self.nodes if node.port == port)
        finally:
            client.close()
        raise RedisServerError(f"no node serves slot {slot}")

    def replicas_of(self, master: LocalRedisServer) -> list[LocalRedisServer]:
        """The running replicas of ``master`` now."""
        client = redis.Redis(port=master.port, socket_timeout=5.0)
        try:
            nodes = [_Node(line) for line in _cluster_nodes(client)]
        finally:
            client.close()
        ids = {node.port: node.id for node in nodes}
        by_port = {node.port: node for node in self.nodes}
        return [
            by_port[node.port]
            for node in nodes
            if node.master_id == ids.get(master.port) and by_port.get(node.port) is not None
        ]

    def kill(self, node: LocalRedisServer) -> None:
        """Crash ``node`` (SIGKILL); a replica of it takes over after the node timeout."""
        node.kill()

    def healthy(self) -> bool:
        """Whether every running node says ``cluster_state:ok``, all agree which running master
        serves each slot, every slot is served, and every running replica is in sync."""
        running = {node.port for node in self.running}
        views = []
        for port in sorted(running):
            client = redis.Redis(port=port, socket_timeout=1.0)
            try:
                info = _call(client, "CLUSTER", "INFO")
                text = info.decode() if isinstance(info, bytes) else str(info)
                if "cluster_state:ok" not in text:
                    return False
                nodes = [_Node(line) for line in _cluster_nodes(client)]
                serving = sorted((n.port, n.slots) for n in nodes if n.master and n.slots)
                if sum(slots for _port, slots in serving) != _CLUSTER_SLOTS:
                    return False
                if any(p not in running for p, _slots in serving):
                    return False
                if any(n.port in running and not n.healthy for n in nodes):
                    return False
                me = next(n for n in nodes if n.port == port)
                if not me.master:
                    replication = client.info("replication")
                    if replication.get("master_link_status") != "up":
                        return False
                views.append(serving)
            except redis.RedisError:
                return False
            finally:
                client.close()
        return bool(views) and all(view == views[0] for view in views)

    def wait_healthy(self, timeout_s: float = 30.0) -> None:
        """Block until :meth:`healthy` (e.g. after a kill, once a replica took over)."""
        deadline = time.monotonic() + timeout_s
        while not self.healthy():
            if time.monotonic() > deadline:
                logs = "\n".join(f"--- node {n.port}\n{n.output()[-2000:]}" for n in self.nodes)
                raise RedisServerError(f"the cluster was not healthy within {timeout_s:g}s\n{logs}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop every node (all at once) and remove the temporary directory."""
        nodes, self.nodes = self.nodes, []
        for node in nodes:
            node.terminate()
        for node in nodes:
            node.wait_stopped()
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)
            self._tempdir = None

    def __repr__(self) -> str:
        return (
            f"<LocalRedisCluster {self.masters} masters x {self.replicas} replicas, "
            f"{len(self.running)} of {len(self.nodes)} nodes running>"
        )


def _call(client: redis.Redis, *args: Any) -> Any:
    """One command through redis-py's sync client (whose execute_command is untyped)."""
    return client.execute_command(*args)  # type: ignore[no-untyped-call]


def _cluster_nodes(client: redis.Redis) -> list[str]:
    """CLUSTER NODES as lines, as the server wrote them."""
    # "CLUSTER", "NODES" as two words: redis-py only parses replies of "CLUSTER NODES".
    raw = _call(client, "CLUSTER", "NODES")
    text = raw.decode() if isinstance(raw, bytes) else str(raw)
    return [line for line in text.splitlines() if line.strip()]


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
