"""A throwaway ``redis-server`` on 127.0.0.1 for tests and benchmarks.

The server keeps nothing on disk (no RDB snapshots, no AOF) and lives in a temporary directory
unless one is given. Starting blocks until the server answers PING; from async code use
``async with`` (or ``asyncio.to_thread``) so the wait does not stall the event loop.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

__all__ = ["LocalRedisServer", "RedisServerError", "free_port"]

_FALLBACK_BINARY = "/usr/bin/redis-server"
_START_TIMEOUT_S = 10.0
_STOP_TIMEOUT_S = 5.0
_POLL_S = 0.02


class RedisServerError(RuntimeError):
    """redis-server is missing or did not start; the message says which and why."""


def free_port() -> int:
    """A port the kernel just handed out; racy in theory, fine for tests and benchmarks."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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


class LocalRedisServer:
    """One ``redis-server`` process without persistence, bound to 127.0.0.1.

    ``port=None`` picks a free port. ``workdir=None`` uses a temporary directory that is removed
    on :meth:`stop`; a given ``workdir`` is kept, with the server's log in it. A stopped server
    can be started again on the same port (with empty data).
    """

    def __init__(
        self,
        port: int | None = None,
        workdir: Path | None = None,
        *,
        binary: str | None = None,
        start_timeout_s: float = _START_TIMEOUT_S,
    ) -> None:
        self.port = port if port is not None else free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._workdir = workdir
        self._binary = binary
        self._start_timeout_s = start_timeout_s
        self._tempdir: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> LocalRedisServer:
        """Start the server and wait until it answers PING; raises RedisServerError."""
        if self._proc is not None:
            raise RedisServerError(f"redis-server on port {self.port} is already started")
        binary = _find_binary(self._binary)
        if self._workdir is not None:
            workdir = self._workdir
            workdir.mkdir(parents=True, exist_ok=True)
        else:
            self._tempdir = workdir = Path(tempfile.mkdtemp(prefix="boardroom-redis-"))
        log = workdir / f"redis-{self.port}.log"
        args = [binary, "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--save", "", "--appendonly", "no", "--dir", str(workdir)]
        with log.open("ab") as out:
            self._proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self._start_timeout_s
        while not _answers_ping(self.port):
            exited = self._proc.poll() is not None
            if exited or time.monotonic() > deadline:
                output = log.read_text(errors="replace")
                self.stop()
                why = "exited" if exited else f"did not answer within {self._start_timeout_s:g}s"
                raise RedisServerError(f"redis-server on port {self.port} {why}:\n{output}")
            time.sleep(_POLL_S)
        return self

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and remove its temporary directory."""
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)
            self._tempdir = None

    def __enter__(self) -> LocalRedisServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> LocalRedisServer:
        return await asyncio.to_thread(self.start)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.stop)

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<LocalRedisServer {self.url} {state}>"
