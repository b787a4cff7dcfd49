"""One worker process of ``boardroom bench --faults``: a real Authority serving a work queue.

The fault bench (:mod:`bench.faults`) starts several of these with
``python -m bench.faultworker ...``. Each is what a production bot process is, minus the platform
SDK: one :class:`~storage.GameStore` on the Redis (or Redis Cluster) under test, one
:class:`~bot.commands.authority.Authority`, the real deadline loop
(:func:`~bot.deadlines.run_deadlines`) and a few tasks taking deliveries off a list in
a separate "platform" Redis (BLPOP, which the bench never faults) and handing each to
:meth:`Authority.press` or :meth:`Authority.command`, exactly as an adapter would.

After the authority returns, the worker shows the Outbox's surfaces as a platform would hold
them (:func:`show`: each user's private panel, a private reply that carries choices, the public
prompt) in a hash per channel in the platform Redis, where the simulated people find their
choices; then it pushes an answer (the delivery id, what the Outbox says: applied with its
state version, duplicate, unavailable or only answered) to a results list. The Outboxes of the
deadlines it fires are shown the same way. An answer is only ever written after the authority
returned, so "applied" means the authority reported the move saved. A worker killed mid-way
leaves its deliveries unanswered; the bench then delivers them again with the same id, as a
platform retries.

With ``--slack-url``, every Outbox is also delivered as the Slack bot delivers it: through the
production table layer and Slack primitives (:class:`~bot.adapters.slack.app.SlackAdapter`'s
``deliver``) to the bench's fake Slack Web API, whose log of calls says when players saw what.
The deadline loop's sink delivers each fired Outbox there before the next (as ``boardroom
slack``'s does); a press's Outbox is delivered by a task of its own once it is answered (as
the Bolt app acknowledges first and works after).

Besides plain SIGKILLs at random moments, the bench can ask a worker to die (SIGKILL itself) at
the moments a random kill almost never hits: SIGUSR1, right after its next claim of due
deadlines (it dies holding their leases, before firing them); SIGUSR2, right after its next
press that the authority applied, before answering it (the move is saved, the platform hears
nothing and delivers it again); SIGHUP, in the middle of a delivery: right after the authority
saved the Timeout of a deadline it fired, before any platform call shows it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions
from aiohttp import ClientSession

from bot.adapters.slack.app import SlackAdapter, SlackAnswer
from bot.adapters.slack.budget import BudgetedWebClient
from bot.commands.authority import Authority, Request
from bot.commands.outbox import Outbox
from bot.deadlines import run_deadlines, until_stopped
from bot.settings import Settings
from core import ui
from storage import GameKey, GameStore

__all__ = ["PLATFORM", "SURFACES", "DoomedStore", "answer_of", "main", "show", "surfaces_of"]

log = logging.getLogger("boardroom.faultworker")

PLATFORM = "fault"
"""The platform name of every game the fault bench plays (its own deadline set)."""
_BLPOP_S = 1
"""How long one BLPOP waits: below the client's socket timeout, and short so a stop is quick."""
_ANSWER_FOR_S = 30.0
"""How long a worker keeps trying to hand in one answer when the platform Redis is away."""
SURFACES = "faultbench:surfaces:"
"""The platform Redis hash of a channel's surfaces (``SURFACES + channel``): ``prompt`` and
``panel:<user>``, each a message as JSON (``null``: nothing shown), beside ``v:<field>``, the
state version it shows."""
_SURFACES_TTL_S = 3600

# Write surfaces, each only if it is not older than what is shown (KEYS[1] = the channel's
# hash; ARGV = its TTL, then field, version, JSON, field, version, JSON, ...): deliveries of
# one channel run on several workers at once, and an older Outbox never replaces what a newer
# one showed.
_SHOW_LUA = """
for i = 2, #ARGV, 3 do
  local shown = redis.call('HGET', KEYS[1], 'v:' .. ARGV[i])
  if not shown or tonumber(shown) <= tonumber(ARGV[i + 1]) then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2], 'v:' .. ARGV[i], ARGV[i + 1])
  end
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
"""


class DoomedStore(GameStore):
    """The production store, which can kill its process right after a claim of due deadlines
    (``doom == "lease"``), as a crash at the worst moment for the deadline leases would.
    (``doom`` is also where the worker reads its other moments: ``"ack"``, ``"deliver"``.)"""

    doom: str | None = None

    async def claim_due(
        self, platform: str, now: float, lease_s: float, token: str, limit: int = 100
    ) -> list[GameKey]:
        due = await super().claim_due(platform, now, lease_s, token, limit)
        if due and self.doom == "lease":
            _die()
        return due


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def answer_of(out: Outbox) -> dict[str, Any]:
    """What the Outbox says happened: ``applied`` (with the saved state version, or a lobby
    post), ``duplicate``, ``unavailable`` or ``answered`` (a refusal or a stale press)."""
    if out.duplicate:
        return {"status": "duplicate"}
    if out.unavailable:
        return {"status": "unavailable", "text": _first_text(out)}
    if out.version is not None or out.public:
        return {"status": "applied", "version": out.version}
    return {"status": "answered", "text": _first_text(out)}


def _version(message: ui.Message | None, fallback: int | None) -> int:
    """The state version a surface shows: the Outbox's, or else that of its components (a
    private reply of current choices is not a save, but its buttons name their version)."""
    if fallback is not None:
        return fallback
    if message is None:
        return -1
    versions = [b.version for b in message.all_buttons() if b.version is not None]
    versions += [s.version for s in message.selects]
    return max(versions, default=-1)


def surfaces_of(out: Outbox) -> list[tuple[str, int, ui.Message | None]]:
    """The surfaces ``out`` changes that a person can press on, as (field, version, message):
    the public prompt (set or cleared whenever the board is drawn), every panel shown, and each
    private reply that carries choices (a stale press is answered with the current ones)."""
    shown: list[tuple[str, int, ui.Message | None]] = []
    if out.duplicate or out.unavailable:
        return shown
    if out.board is not None:
        shown.append(("prompt", _version(out.prompt, out.version), out.prompt))
    for user, panel in out.panels.items():
        shown.append((f"panel:{user}", _version(panel, out.version), panel))
    for delivery in out.deliveries:
        message = delivery.message
        if delivery.user is not None and (message.all_buttons() or message.selects):
            shown.append((f"panel:{delivery.user}", _version(message, out.version), message))
    return shown


async def show(platform: aioredis.Redis, out: Outbox) -> None:
    """Show ``out``'s surfaces in the platform Redis (retried while it is away)."""
    shown = surfaces_of(out)
    if not shown:
        return
    args: list[str | int] = [_SURFACES_TTL_S]
    for name, version, message in shown:
        args += [name, version, message.model_dump_json() if message is not None else "null"]
    script = platform.register_script(_SHOW_LUA)
    until = time.monotonic() + _ANSWER_FOR_S
    while time.monotonic() < until:
        try:
            await script(keys=[SURFACES + out.channel], args=args)
            return
        except (redis.exceptions.RedisError, OSError):
            await asyncio.sleep(0.2)


def _first_text(out: Outbox) -> str:
    return out.deliveries[0].message.text[:120] if out.deliveries else ""


async def _handle(
    authority: Authority, item: dict[str, Any]
) -> tuple[dict[str, Any], Outbox | None]:
    req = Request(
        platform=PLATFORM,
        channel=item["channel"],
        user=item["user"],
        name=item["name"],
        delivery=item["id"],
    )
    try:
        if item["kind"] == "press":
            out = await authority.press(req, item["custom_id"], item.get("values"))
        else:
            out = await authority.command(req, item["game"], item["text"])
    except Exception as exc:  # the production code raised: the bench reports it
        log.exception("delivery %s raised", item["id"])
        return {"status": "error", "text": f"{type(exc).__name__}: {exc}"[:300]}, None
    return answer_of(out), out


class Slack:
    """Delivers Outboxes to the fake Slack as the Slack bot does (:class:`SlackAdapter`)."""

    def __init__(self, authority: Authority, url: str) -> None:
        self.session = ClientSession()
        client = BudgetedWebClient(token="xoxb-faultbench", base_url=url, session=self.session)
        self.adapter = SlackAdapter(authority, client, None)
        self._tasks: set[asyncio.Task[None]] = set()

    async def deliver(self, out: Outbox, requester: str | None = None) -> None:
        try:
            if requester is None:
                await self.adapter.deliver(out)
            else:  # a press, answered to its presser (the front desk's part of it)
                answer = SlackAnswer(self.adapter.platform, requester, out.channel)
                await self.adapter.table.deliver(out, answer)
        except Exception:  # as the adapter's own request handling: logged, the worker goes on
            log.exception("delivering to Slack in %s failed", out.channel)

    def deliver_later(self, out: Outbox, requester: str) -> None:
        task = asyncio.create_task(self.deliver(out, requester))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.session.close()


async def _consume(
    authority: Authority,
    store: DoomedStore,
    platform: aioredis.Redis,
    queue: str,
    results: str,
    name: str,
    stop: asyncio.Event,
    slack: Slack | None = None,
) -> None:
    while not stop.is_set():
        try:
            popped = await platform.blpop([queue], timeout=_BLPOP_S)
        except (redis.exceptions.RedisError, OSError):
            await asyncio.sleep(0.2)
            continue
        if popped is None:
            continue
        item = json.loads(popped[1])
        answer, out = await _handle(authority, item)
        if store.doom == "ack" and item["kind"] == "press" and answer["status"] == "applied":
            _die()
        if out is not None:
            await show(platform, out)
        answer |= {"id": item["id"], "worker": name, "at": time.time()}
        until = time.monotonic() + _ANSWER_FOR_S
        while time.monotonic() < until:
            try:
                await platform.rpush(results, json.dumps(answer))
                break
            except (redis.exceptions.RedisError, OSError):
                await asyncio.sleep(0.2)
        if slack is not None and out is not None:
            slack.deliver_later(out, item["user"])


async def _orphaned(parent: int, stop: asyncio.Event) -> None:
    """Stop when the bench that started us is gone (we were re-parented)."""
    while not stop.is_set():
        if os.getppid() != parent:
            stop.set()
            return
        await asyncio.sleep(0.5)


async def serve(args: argparse.Namespace) -> int:
    settings = Settings(
        REDIS_URL=args.url,
        REDIS_CLUSTER=args.cluster,
        BOARDROOM_DEADLINE_POLL_SECONDS=args.poll,
        BOARDROOM_DEADLINE_LEASE_SECONDS=args.lease,
    )
    store = DoomedStore.from_url(args.url, cluster=args.cluster)
    assert isinstance(store, DoomedStore)  # from_url builds ``cls``
    authority = Authority(store, settings)
    platform = aioredis.Redis.from_url(
        args.platform_url, decode_responses=True, socket_timeout=_BLPOP_S + 4
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGUSR1, setattr, store, "doom", "lease")
    loop.add_signal_handler(signal.SIGUSR2, setattr, store, "doom", "ack")
    loop.add_signal_handler(signal.SIGHUP, setattr, store, "doom", "deliver")
    slack = Slack(authority, args.slack_url) if args.slack_url else None
    fired = 0

    async def sink(out: Outbox) -> None:
        nonlocal fired
        if store.doom == "deliver":
            _die()  # the Timeout is saved; no platform call has shown it
        fired += 1
        await show(platform, out)
        if slack is not None:
            await slack.deliver(out)

    deadlines = asyncio.create_task(
        run_deadlines(authority, PLATFORM, sink, settings.deadline_poll_seconds, stop)
    )
    helpers = [
        asyncio.create_task(
            _consume(authority, store, platform, args.queue, args.results, args.name, stop, slack)
        )
        for _ in range(args.concurrency)
    ]
    helpers.append(asyncio.create_task(_orphaned(args.parent, stop)))
    with contextlib.suppress(redis.exceptions.RedisError, OSError):
        await platform.sadd(args.ready, args.name)
    try:
        code = await until_stopped(stop, deadlines)
    finally:
        stop.set()
        for task in [deadlines, *helpers]:
            task.cancel()
        await asyncio.gather(deadlines, *helpers, return_exceptions=True)
        if slack is not None:
            with contextlib.suppress(Exception):
                await slack.close()
        with contextlib.suppress(Exception):
            await store.close()
        with contextlib.suppress(Exception):
            await platform.aclose()
    log.warning("worker %s stops (%d deadline outboxes delivered)", args.name, fired)
    return code


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.faultworker")
    parser.add_argument("--url", required=True, help="the Redis (or a cluster node) under test")
    parser.add_argument("--cluster", action="store_true")
    parser.add_argument("--platform-url", required=True, help="the Redis holding the queue")
    parser.add_argument("--queue", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--ready", required=True, help="a set to join once ready")
    parser.add_argument("--name", required=True)
    parser.add_argument("--poll", type=float, default=0.2)
    parser.add_argument("--lease", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--parent", type=int, default=os.getppid())
    parser.add_argument(
        "--slack-url", default=None, help="a (fake) Slack Web API to deliver every Outbox to"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING,
        format=f"%(asctime)s {args.name} %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    return asyncio.run(serve(args))


if __name__ == "__main__":
    raise SystemExit(main())
