"""Slack's HTTP mode: the front door of the Bolt app, and a health check, on one aiohttp server.

Anyone on the network can send requests here, so every request is checked before anything parses
its body, in this order, and refused with a short answer and one short log line (its status, the
reason and the remote address: never the body, never an id) at the first check it fails:

1. the body is at most :data:`MAX_BODY` bytes (413), read without buffering more than that
   (Slack's ``ssl_check``, a body of a few bytes, is answered 200 here, as Bolt did);
2. it carries Slack's signature headers, well-formed (401 ``unsigned``), a timestamp within five
   minutes (401 ``stale``) and a signature of these bytes with ``SLACK_SIGNING_SECRET`` (401
   ``bad signature``), checked with slack_sdk's :class:`~slack_sdk.signature.SignatureVerifier`;
3. it is a JSON object or a form, as Slack sends them (400 ``malformed``);
4. it is a request of a kind this app handles with every field it reads of the right type
   (:func:`bot.adapters.slack.payloads.admit`): if not, whoever sent it is told privately that
   nothing was done, where their id and a place to tell them can be read (200), else 400.

Only then does Bolt see it: the checked fields, as JSON (Bolt's own signature check is off,
since this one replaces it; it logged the whole body of every request it refused). Past one line
a reason every :data:`QUIET_S`, refusals are counted and the count logged instead, so a flood of
refused requests cannot fill the disk through the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier

from bot.adapters.slack.app import UNREADABLE, SlackAdapter
from bot.adapters.slack.payloads import (
    FORM_FIELD,
    Admitted,
    Malformed,
    Unhandled,
    admit,
    read_body,
)
from bot.ops import HEALTH_PATH, Health, healthz

__all__ = [
    "EVENTS_PATH",
    "HEALTH_PATH",
    "MAX_BODY",
    "QUIET_S",
    "Health",
    "Refusals",
    "serve_http",
]

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
SHUTDOWN_S = 3.0
"""How long requests in flight may take to finish once the worker stops (Slack wants every
answer within 3 s anyway); aiohttp's default, 60 s, would hold up a stop."""
MAX_BODY = 2 * 1024 * 1024
"""The largest body read (2 MiB). The largest request Slack sends this app is the press of a
button on one of its messages, which carries the message: at most 50 blocks of at most 3,000
characters, about 200 kB form-encoded, and 1.2 MB even if every character were one Slack
escapes (``\\u00e9``, then form-encoded: 8 bytes a character). A modal of Slack's most, 100
blocks of 3,000 characters, is about 320 kB (this app's own form has one field). Nothing Slack
sends comes near 2 MiB; an unsigned request is read no further, and refused."""
MAX_AGE_S = 5 * 60
"""Slack's rule: a request whose timestamp is further than this from now may be a replay."""
QUIET_S = 10.0
"""After one log line for a reason of refusal, the next this long are only counted."""
_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")
_SSL_CHECK = re.compile(rb"(token=[A-Za-z0-9]{0,64}&)?ssl_check=1(&token=[A-Za-z0-9]{0,64})?")
"""Slack's check of the endpoint's certificate (``ssl_check=1`` and a legacy token), answered
200 and nothing else."""
_ADDRESS = re.compile(r"[0-9A-Fa-f.:]{1,45}")
"""An IPv4 or IPv6 address as text: what of ``X-Forwarded-For`` may go into the log."""


class Refusals:
    """The log of refused requests: a line for the first of each reason, then a count.

    A line says the status, the reason and the remote address (with the first address of
    ``X-Forwarded-For``, which a load balancer sets and anyone can forge: it is only logged).
    A reason refused again within :data:`QUIET_S` of its last line is counted; the count is
    logged once that time has passed (:meth:`tick`, every :data:`QUIET_S`) and when the server
    stops (:meth:`flush`).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, quiet_s: float = QUIET_S):
        self.clock = clock
        self.quiet_s = quiet_s
        self._last: dict[str, float] = {}
        self._counted: Counter[str] = Counter()
        self.total: Counter[str] = Counter()
        """Every refusal by reason since the start (tests, and a look from a debugger)."""

    def refused(self, status: int, reason: str, request: web.Request) -> None:
        key = f"{status} {reason}"
        self.total[key] += 1
        now = self.clock()
        last = self._last.get(key)
        if last is not None and now - last < self.quiet_s:
            self._counted[key] += 1
            return
        self._count_line(key, now)
        self._last[key] = now
        log.warning("refused a Slack request from %s: %s", _origin(request), key)

    def tick(self) -> None:
        """Log the counts of reasons whose quiet time has passed."""
        now = self.clock()
        for key in [k for k, last in self._last.items() if now - last >= self.quiet_s]:
            self._count_line(key, now)

    def flush(self) -> None:
        """Log every count not logged yet (the server is stopping)."""
        now = self.clock()
        for key in list(self._counted):
            self._count_line(key, now)

    def _count_line(self, key: str, now: float) -> None:
        counted = self._counted.pop(key, 0)
        if counted:
            since = now - self._last.get(key, now)
            requests = "request" if counted == 1 else "requests"
            log.warning(
                "refused %s more Slack %s in the last %.0f s: %s",
                f"{counted:,}",
                requests,
                since,
                key,
            )
            self._last[key] = now


def _origin(request: web.Request) -> str:
    remote = request.remote or "an unknown address"
    forwarded = request.headers.get("X-Forwarded-For", "").split(",", 1)[0].strip()
    if _ADDRESS.fullmatch(forwarded):
        return f"{remote} (forwarded for {forwarded})"
    return remote


async def _read(request: web.Request) -> bytes | None:
    """The body, or None when it is longer than :data:`MAX_BODY` (read no further than that)."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        return None
    chunks, size = [], 0
    async for chunk in request.content.iter_chunked(64 * 1024):
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


class _Refused(Exception):
    """A request refused at the door, with its status and the reason logged."""

    def __init__(self, status: int, reason: str) -> None:
        self.status = status
        self.reason = reason


class FrontDoor:
    """The handler of :data:`EVENTS_PATH`: the checks of this module's docstring, then Bolt."""

    def __init__(self, adapter: SlackAdapter, signing_secret: str, refusals: Refusals) -> None:
        self.adapter = adapter
        self.verifier = SignatureVerifier(signing_secret)
        self.refusals = refusals

    async def handle(self, request: web.Request) -> web.StreamResponse:
        try:
            return await self._answer(request)
        except _Refused as refused:
            self.refusals.refused(refused.status, refused.reason, request)
            error = refused.reason.split(" (", 1)[0]
            return web.json_response({"error": error}, status=refused.status)

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        body = await _read(request)
        if body is None:
            raise _Refused(413, f"body over {MAX_BODY:,} bytes")
        if _SSL_CHECK.fullmatch(body):
            return web.Response(status=200)  # as Bolt did, before the signature: it may have none
        text = self._signed(request, body)
        try:
            parsed = read_body(text, request.content_type)
        except Malformed as why:
            raise _Refused(400, f"malformed ({why})") from None
        read = admit(parsed)
        if isinstance(read, Admitted):
            bolt = AsyncBoltRequest(
                body=json.dumps(read.body), headers={"content-type": "application/json"}
            )
            return await to_aiohttp_response(await self.adapter.app.async_dispatch(bolt))
        if isinstance(read, Unhandled):
            if read.kind == "ssl_check":
                return web.Response(status=200)
            raise _Refused(404, f"not handled ({read.kind})")
        told = f"unreadable {read.kind} (the sender was told)"
        if read.form:  # said under the form's field; the form stays open
            self.refusals.refused(200, told, request)
            errors = {"response_action": "errors", "errors": {FORM_FIELD: UNREADABLE}}
            return web.json_response(errors)
        if self.adapter.tell_unreadable(read):
            self.refusals.refused(200, told, request)
            return web.Response(status=200)
        raise _Refused(400, f"unreadable {read.kind}")

    def _signed(self, request: web.Request, body: bytes) -> str:
        """``body`` as text if Slack signed it, else :class:`_Refused` (401) saying why not."""
        timestamp = request.headers.get("X-Slack-Request-Timestamp", "")
        signature = request.headers.get("X-Slack-Signature", "")
        if not _TIMESTAMP.fullmatch(timestamp) or not _SIGNATURE.fullmatch(signature):
            raise _Refused(401, "unsigned")
        if abs(self.verifier.clock.now() - int(timestamp)) > MAX_AGE_S:
            raise _Refused(401, "stale")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:  # Slack signs UTF-8 text: these bytes are not its
            raise _Refused(401, "bad signature") from None
        if not self.verifier.is_valid(text, timestamp, signature):
            raise _Refused(401, "bad signature")
        return text


async def serve_http(
    adapter: SlackAdapter,
    host: str,
    port: int,
    health: Health | None = None,
    refusals: Refusals | None = None,
) -> tuple[web.AppRunner, int]:
    """Serve the Bolt app's Events and Interactivity endpoint on ``host`` (port 0: a free one)
    behind its front door and, with ``health``, ``GET /healthz`` (200 when healthy, else 503;
    the body says what is wrong). ``refusals`` logs refused requests (a new one by default).

    Returns the runner (to clean up) and the port.
    """
    secret = adapter.signing_secret
    if not secret:
        raise ValueError("HTTP mode needs the signing secret (SLACK_SIGNING_SECRET)")
    refused = refusals or Refusals()
    # The front door reads the body itself, never more than MAX_BODY (client_max_size bounds
    # only aiohttp's own reading of it).
    app = web.Application(client_max_size=MAX_BODY)
    app.router.add_post(EVENTS_PATH, FrontDoor(adapter, secret, refused).handle)
    if health is not None:
        app.router.add_get(HEALTH_PATH, healthz(health))

    async def counting(_app: web.Application) -> AsyncIterator[None]:
        async def tick() -> None:
            while True:
                await asyncio.sleep(refused.quiet_s)
                refused.tick()

        ticking = asyncio.create_task(tick())
        yield
        ticking.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ticking
        refused.flush()

    app.cleanup_ctx.append(counting)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_S)
    await runner.setup()
    # Port 0: the system picks a free one, read back from the listening socket.
    await web.TCPSite(runner, host, port).start()
    bound = runner.addresses[0][1] if port == 0 else port
    return runner, int(bound)
