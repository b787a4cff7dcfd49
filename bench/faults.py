"""``boardroom bench --faults``: several workers on one Redis (or a cluster), with faults.

The bench starts the Redis under test itself: one ``redis-server`` with an append-only file
fsynced at every write (``--appendonly yes --appendfsync always``), so a restart keeps every
write it acknowledged, or with ``--cluster`` a local cluster of 3 masters with a replica each.
Beside it runs a second, never faulted ``redis-server``: the "platform", holding the work queue
and the answers, as Discord or Slack would hold deliveries.

It then starts ``--workers`` processes (:mod:`bench.faultworker`), each a real
:class:`~bot.commands.authority.Authority` with the real deadline loop and a short poll, serving
deliveries from the queue through :meth:`Authority.press` and :meth:`Authority.command`. Each
worker also delivers every Outbox as the Slack bot does (the production table layer and Slack
primitives) to a fake Slack Web API served by the bench (:class:`~testkit.slack.fake.FakeSlackAPI`,
timing its log by the wall clock): the players' view of the games.

Simulated people play ``--games`` tables (The Big Idea, BiggieBills$$$ and Busine$$ GO in turn,
every deadline set to 2 s). Each reads its game's record from the store under test to know
whom the game waits for, and each such person either ignores the decision (often: so that
deadlines fire) or, after a moment's thought, presses a random choice of what the table shows
them: their own panel (or a private reply of current choices) and the public prompt, as the
workers showed them in the platform Redis (:func:`bench.faultworker.show`, the newest state
version winning), encoded by the codec like a real button. A surface a killed worker never
showed stays old until the next change (or a stale press's reply) shows it anew, as on a real
platform. A
BiggieBills team has two people who may both press. Some deliveries are pushed twice at once (a
platform delivering twice); one without an answer within a few seconds, or answered
"unavailable", is delivered again with the same delivery id (a platform retry).

Meanwhile the bench SIGKILLs a random worker every 2-4 s and starts a replacement. A kill comes
at a random moment, or at one of the moments a random kill almost never hits, which the worker
meets and then SIGKILLs itself: right after it claimed due deadlines (it dies holding their
leases), right after the authority applied one of its presses (saved, never answered), or in
the middle of a delivery, right after the Timeout of a deadline it fired was saved and before
any platform call showed it.
Kills aimed at the leases are spaced (:data:`LEASE_GAP_S`) and kept clear of the Redis restarts,
so that a deadline meets one such crash at most: the lateness then says how fast one crash is
recovered from (two in a row on the same deadlines cost a lease each).
The bench also restarts Redis twice (the single server: SIGTERM, then SIGKILL the next time,
down for a second each time; the cluster: a master is SIGKILLed, its replica takes over, and it
comes back as a replica). After ``--seconds`` the faults stop and no new game begins; the people
go on playing the games under way until each has finished (:data:`FINISH_S` at most), then stop
pressing, and the deadlines run on alone for a settle period (lease + poll + slack) with every
worker alive and Redis up, until the fake Slack has been quiet for a moment.

Then everything is measured from Redis, against what the people did:

- ``actions``: presses a worker answered "applied" (it writes the answer only after
  ``Authority.press`` returned an Outbox with the saved state's version);
- ``lost``: such presses whose action is not in the game's log at the version the worker
  reported (each game is replayed from its log, seed and options; the replay must also end at
  the record's state);
- ``doubled``: extra applications of one delivery: log entries of human moves that no distinct
  delivery accounts for (each entry is matched to a press of the same seat and action whose
  button was current when it was applied), plus deliveries answered "applied" more than once;
- ``deadlines_lost``: games still playing at the end whose deadline is overdue by more than
  lease + poll + slack, or whose record has a deadline that is not in the deadline set at all;
- ``max_deadline_late_s``: the largest time between a deadline's due time and the save that
  ended it (the Timeout, or a move that happened to close the decision first: either way the
  clock had not fired by then), over every deadline the logs show, and for a deadline still
  pending at the end, how overdue it is. Save times are the log's stream ids (Redis's clock at
  the save); due times are those the people saw in the records, or else the time of the save
  that set the deadline plus its seconds (later than the authority's own by the save's duration).
  (The deadline loop delivers each fired Outbox before it fires anew, as in production, so a
  slow delivery makes later deadlines late here too.)
- ``max_visible_late_s``: the same lateness as players saw it: from a deadline's due time to the
  first call in the fake Slack's log showing the save that ended it (choices built at its state
  version or later, or the game's end: :mod:`bench.visible`); for a deadline still pending at
  the end, how overdue it is;
- ``deadlines_unseen``: deadlines whose ending save no call had shown when measured (a delivery
  lost with its worker and never repaired); each counts in ``max_visible_late_s`` as late as the
  measurement;
- ``games_unfinished``: games not finished when measured;
- ``results``, ``results_pending``, ``results_missing``, ``results_doubled``: of the games
  played out, those whose result the community's history holds, those whose result is still in
  the game for its reminder deadline to record, those lost (neither), and people whose rating
  counts more games than the history holds of them (a result recorded twice).

The last line printed is machine-readable (one line, wrapped here)::

    kills=<n> restarts=<n> actions=<n> lost=<n> doubled=<n> deadlines_lost=<n>
    max_deadline_late_s=<x> max_visible_late_s=<x> deadlines_unseen=<n> games_unfinished=<n>
    results=<n> results_pending=<n> results_missing=<n> results_doubled=<n>

The exit status is 0 when lost, doubled, deadlines_lost, deadlines_unseen and games_unfinished
are 0 and both latenesses are at most :data:`MAX_LATE_S` (and every log replays to its record,
no logged move lacks a press, the authority never raised, no worker exited by itself, and
something was played), else 1. The fake Slack's log is written to the work directory
(:data:`SLACK_LOG`), which is kept when the run fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

import redis.asyncio as aioredis
import redis.exceptions

from bench.authority import press_args
from bench.faultworker import PLATFORM, SURFACES
from bench.visible import Sightings
from bot.commands import codec
from bot.commands.community import results
from bot.commands.game.actionlog import decode_action, encode_action
from bot.commands.game.play import action_rng, load_state
from bot.commands.record import GameRecord
from bot.settings import Settings
from bot.simulate import percentile
from core import ui
from core.engine import GameLike, GameState, IllegalAction
from core.registry import get_game
from storage import GameKey, GameStore, StorageUnavailable
from storage import history as kept
from storage.store import _log_key
from testkit.local_server import LocalRedisCluster, LocalRedisServer, RedisServerError
from testkit.slack.fake import FakeSlackAPI
from testkit.slack.players import components_of, texts

__all__ = ["MAX_LATE_S", "Checked", "Sent", "Step", "faultbench", "match_moves"]

log = logging.getLogger(__name__)

MAX_LATE_S = 10.0
"""The goal for the latest deadline."""
POLL_S = 0.2
"""The workers' deadline poll."""
SLACK_S = 2.0
LOG_COPY_S = 0.5
"""How often the bench copies the games' log entries (with their times) while they run."""
"""On top of lease + poll: the time one firing may take on a loaded machine."""
GAMES = ("bigidea", "biggiebills", "businessgo")
OPTIONS = {
    "bigidea": "pick_seconds=2 vote_seconds=2 turn_seconds=2",
    "biggiebills": "turn_seconds=2 block_seconds=2 target=400",
    "businessgo": "short max_rounds=15 turn_seconds=2 compete_seconds=2 auction_seconds=2",
}
AOF = ("--appendonly", "yes", "--appendfsync", "always")
IDLE = 0.35
"""The chance that a person ignores a decision (its deadline then decides)."""
THINK_S = (0.2, 1.5)
TWICE = 0.1
"""The chance that a delivery is pushed twice at once."""
ANSWER_TIMEOUT_S = 3.0
"""A delivery not answered in this time is delivered again (the worker may have died, or be
slow): Slack, for one, retries an event its app has not acknowledged within 3 s."""
DELIVERIES = 12
DELIVER_FOR_S = 40.0
"""Deliveries of one press at most, and for how long, before the person gives up on it."""
PRESSES_PER_DECISION = 4
DOWN_S = 1.0
"""How long the single Redis stays down at a restart."""
KILL_EVERY_S = (2.0, 4.0)
KILLS = ("random", "lease", "ack", "deliver")
"""When a worker is killed: at a random moment, right after it claimed due deadlines, right
after the authority applied one of its presses, or in the middle of a delivery, right after the
Timeout of a deadline it fired was saved and before any platform call showed it (see
:mod:`bench.faultworker`)."""
_DOOMS = {"lease": signal.SIGUSR1, "ack": signal.SIGUSR2, "deliver": signal.SIGHUP}
FINISH_S = 120.0
"""Once the faults stop, how long the games in play may take to finish (no new game begins)."""
QUIET_S = 1.0
QUIET_FOR_S = 3.0
"""Before measuring, the fake Slack must have had no call for QUIET_S, so that the deliveries
under way have landed; games still going on (their deadlines fire) are never quiet: it waits
QUIET_FOR_S at most."""
LEASE_GAP_S = 1.5
"""Kills that orphan deadline leases come at least this many leases apart. Closer, the same
deadlines can be orphaned twice in a row: 2 x lease + poll late (10.8 s with the 5 s lease)."""
DOOM_WAIT_S = 4.0
"""How long a worker asked to die at such a moment may take to meet one (then: SIGKILL)."""
_READY = "faultbench:ready"
TABLE_POLL_S = 0.25
SETUP_S = 30.0
"""How long the tables may take to begin their first games before the faults start."""
DRAIN_S = 45.0
"""How long the people's last presses may take to be answered once the faults stop."""
WORKER_CONCURRENCY = 4
SLACK_LOG = "slack-calls.jsonl"
"""The fake Slack's log, written into the work directory."""
_QUEUE = "faultbench:requests"
_RESULTS = "faultbench:results"


# --- the platform: the queue and the answers -------------------------------------------------


@dataclass
class Sent:
    """One delivery (a press or a command) and every answer it got."""

    id: str
    channel: str
    game: str
    user: str
    kind: str
    seat: int | None = None
    entry: list[Any] | None = None
    """The press's action as the log writes it (``[seat, type, *values]``), if it parses."""
    version: int | None = None
    """The version the button was built at."""
    text: str = ""
    pushes: int = 0
    answers: list[dict[str, Any]] = field(default_factory=list)
    final: str = "unanswered"

    @property
    def applied(self) -> list[dict[str, Any]]:
        return [a for a in self.answers if a["status"] == "applied"]


class Platform:
    """Pushes deliveries to the workers' queue and collects their answers."""

    def __init__(self, url: str, rng: random.Random) -> None:
        self.client = aioredis.Redis.from_url(url, decode_responses=True, socket_timeout=5.0)
        self.rng = rng
        self.sent: dict[str, Sent] = {}
        self._events: dict[str, asyncio.Event] = {}
        self.twice = 0
        self.redelivered = 0

    async def read_answers(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                popped = await self.client.blpop([_RESULTS], timeout=0.5)
            except (redis.exceptions.RedisError, OSError):
                await asyncio.sleep(0.2)
                continue
            if popped is None:
                continue
            answer = json.loads(popped[1])
            sent = self.sent.get(answer["id"])
            if sent is None:
                continue
            sent.answers.append(answer)
            event = self._events.get(sent.id)
            if event is not None:
                event.set()

    async def _answer(self, sent: Sent, seen: int, timeout: float) -> dict[str, Any] | None:
        loop = asyncio.get_running_loop()
        until = loop.time() + timeout
        event = self._events.setdefault(sent.id, asyncio.Event())
        while len(sent.answers) <= seen:
            left = until - loop.time()
            if left <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), left)
            event.clear()
        return sent.answers[seen]

    async def deliver(self, sent: Sent, payload: dict[str, Any]) -> str:
        """Deliver until a worker gives a final answer; that answer's status."""
        self.sent[sent.id] = sent
        body = json.dumps({"id": sent.id, **payload})
        loop = asyncio.get_running_loop()
        until = loop.time() + DELIVER_FOR_S
        try:
            for attempt in range(DELIVERIES):
                if attempt and loop.time() > until:
                    break
                seen = len(sent.answers)
                copies = 2 if self.rng.random() < TWICE else 1
                self.twice += copies - 1
                self.redelivered += 1 if attempt else 0
                await self.client.rpush(_QUEUE, *([body] * copies))
                sent.pushes += copies
                answer = await self._answer(sent, seen, ANSWER_TIMEOUT_S)
                if answer is None:
                    continue  # a worker died with it, or is stuck: the platform retries
                if answer["status"] in ("unavailable", "error"):
                    await asyncio.sleep(min(2.0, 0.25 * 2**attempt))
                    continue
                sent.final = answer["status"]
                return sent.final
            sent.final = "gave up"
            return sent.final
        finally:
            self._events.pop(sent.id, None)

    async def surfaces(self, channel: str) -> dict[str, ui.Message | None]:
        """What the workers show in ``channel`` now: ``prompt`` and ``panel:<user>``."""
        try:
            fields = cast(dict[str, str], await self.client.hgetall(SURFACES + channel))
        except (redis.exceptions.RedisError, OSError):
            return {}
        return {
            name: ui.Message.model_validate_json(data) if data != "null" else None
            for name, data in fields.items()
            if not name.startswith("v:")
        }

    async def ready(self, worker: str) -> bool:
        """Whether the worker has set up its signal handlers."""
        return bool(await self.client.sismember(_READY, worker))

    async def close(self) -> None:
        await self.client.aclose()


# --- simulated people ------------------------------------------------------------------------


def _choices(message: ui.Message | None) -> list[ui.Button | ui.Select]:
    if message is None:
        return []
    found: list[ui.Button | ui.Select] = [
        b for b in message.all_buttons() if b.action is not None and not b.disabled
    ]
    return found + [s for s in message.selects if s.options]


def _normal(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists, ...)."""
    return json.loads(json.dumps(value))


def _logged_as(
    game: GameLike, custom_id: str, values: list[str] | None, seat: int
) -> tuple[int | None, list[Any] | None, int | None]:
    """The seat, log entry and button version of a press, decoded as the authority does."""
    press = codec.decode(custom_id, values)
    if press is None:
        return None, None, None
    actor = press.seat if press.seat is not None else seat
    try:
        action = game.parse_action(press.resolved_action() or {})
    except IllegalAction:
        return actor, None, press.version
    return actor, _normal(encode_action(actor, action)), press.version


class Table:
    """One table: a game after another, each in a new channel, played by simulated people."""

    def __init__(self, bench: FaultBench, index: int) -> None:
        self.bench = bench
        self.index = index
        self.game_name = GAMES[index % len(GAMES)]
        game = get_game(self.game_name)
        assert game is not None
        self.game: GameLike = game
        self.rng = random.Random(f"{bench.seed}:table:{index}")
        self.bot = index % 2 == 1
        team = self.game.teams
        # Slack's forms of ids (the workers deliver to a fake Slack as well).
        self.users = [f"UT{index}X{n}" for n in range(4 if team else 3)]
        self.round = 0
        self.channel = ""
        self._deliveries = 0
        self._busy: set[str] = set()
        self._decided: dict[tuple[int, int, str], bool] = {}
        self._pressed: Counter[tuple[int, int, str]] = Counter()
        self._tasks: set[asyncio.Task[None]] = set()
        self.problems: list[str] = []
        self.opened = asyncio.Event()
        """Set once the first game has begun (or could not)."""

    def _name(self, user: str) -> str:
        return user.upper()

    def _sent(self, channel: str, user: str, kind: str) -> Sent:
        self._deliveries += 1
        return Sent(
            id=f"{channel}:{self._deliveries}",
            channel=channel,
            game=self.game_name,
            user=user,
            kind=kind,
        )

    async def _command(self, user: str, text: str) -> bool:
        sent = self._sent(self.channel, user, "command")
        sent.text = text
        payload = {
            "kind": "command",
            "channel": self.channel,
            "user": user,
            "name": self._name(user),
            "game": self.game_name,
            "text": text,
        }
        status = await self.bench.platform.deliver(sent, payload)
        if status not in ("applied", "duplicate"):
            said = next((a.get("text", "") for a in reversed(sent.answers)), "")
            self.problems.append(f"{self.channel}: `{text}` by {user}: {status} {said}".strip())
            return False
        return True

    async def _open(self) -> bool:
        self.round += 1
        self.channel = f"CT{self.index}G{self.round}"
        self._decided.clear()
        self._pressed.clear()
        self.bench.channels[self.channel] = self.game_name
        self.bench.players[self.channel] = list(self.users)
        host, *others = self.users
        steps = [(host, f"start {OPTIONS[self.game_name]}")]
        steps += [(user, "join") for user in others[:2]]
        if self.game.teams:
            steps.append((others[2], f"join {self._name(host)}"))
        if self.bot:
            steps.append((host, "addbot 1"))
        steps.append((host, "begin"))
        for user, text in steps:
            if not await self._command(user, text):
                return False
        return True

    async def run(self, stop: asyncio.Event, no_new: asyncio.Event) -> None:
        """Play games until ``stop``, beginning no new one once ``no_new`` is set; then wait for
        the presses still on their way."""
        try:
            while not stop.is_set() and not no_new.is_set() and self.round < 50:
                began = await self._open()
                self.opened.set()
                if not began:
                    return
                await self._play(stop)
        finally:
            self.opened.set()
            if self._tasks:
                await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _play(self, stop: asyncio.Event) -> None:
        key = GameKey(PLATFORM, self.channel)
        while not stop.is_set():
            await asyncio.sleep(TABLE_POLL_S)
            try:
                _, loaded = await self.bench.probe.load(key)
            except StorageUnavailable:
                continue
            if loaded is None:
                self.problems.append(f"{self.channel}: the game is gone")
                return
            record = GameRecord.model_validate_json(loaded.data)
            if record.status == "finished":
                self.bench.finished += 1
                return
            if record.state_json is None:
                continue
            state = load_state(self.game, record.state_json)
            if state.deadline is not None and record.deadline_due is not None:
                seen = self.bench.seen_due[self.channel]
                seen.setdefault((state.version, state.deadline.key), record.deadline_due)
            shown = await self.bench.platform.surfaces(self.channel)
            for seat in self.game.waiting_for(state):
                for user in record.seats[seat].users:
                    self._consider(state, seat, user, shown)

    def _consider(
        self, state: GameState, seat: int, user: str, shown: dict[str, ui.Message | None]
    ) -> None:
        if user in self._busy:
            return
        decision = (state.decision_version, seat, user)
        if decision not in self._decided:
            self._decided[decision] = self.rng.random() >= IDLE
        if not self._decided[decision] or self._pressed[decision] >= PRESSES_PER_DECISION:
            return
        choices = _choices(shown.get(f"panel:{user}")) + _choices(shown.get("prompt"))
        if not choices:
            return
        self._pressed[decision] += 1
        self._busy.add(user)
        choice = self.rng.choice(choices)
        task = asyncio.create_task(self._press(self.channel, user, seat, choice))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _press(
        self, channel: str, user: str, seat: int, choice: ui.Button | ui.Select
    ) -> None:
        try:
            await asyncio.sleep(self.rng.uniform(*THINK_S))
            custom_id, values = press_args(self.game_name, choice, self.rng)
            sent = self._sent(channel, user, "press")
            sent.seat, sent.entry, sent.version = _logged_as(self.game, custom_id, values, seat)
            payload = {
                "kind": "press",
                "channel": channel,
                "user": user,
                "name": self._name(user),
                "custom_id": custom_id,
                "values": values,
            }
            await self.bench.platform.deliver(sent, payload)
        finally:
            self._busy.discard(user)


# --- the Redis under test --------------------------------------------------------------------


class SingleRedis:
    """One redis-server with an fsync-always append-only file, restarted in place."""

    def __init__(self, workdir: Path) -> None:
        self.server = LocalRedisServer(workdir=workdir / "redis", args=AOF)
        self.how: list[str] = []

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def cluster(self) -> bool:
        return False

    async def start(self) -> None:
        await asyncio.to_thread(self.server.start)

    async def restart(self, number: int) -> None:
        if number % 2 == 0:
            self.how.append("SIGTERM")
            await asyncio.to_thread(self.server.stop)
        else:
            self.how.append("SIGKILL")
            await asyncio.to_thread(self.server.kill)
        await asyncio.sleep(DOWN_S)
        await asyncio.to_thread(self.server.start)

    def up(self) -> bool:
        return self.server.running

    def stop(self) -> None:
        self.server.stop()


class ClusterRedis:
    """A local cluster of 3 masters with a replica each; a restart is a master's crash, its
    replica taking over, and the crashed node coming back (as a replica)."""

    def __init__(self, workdir: Path, rng: random.Random) -> None:
        self.nodes = LocalRedisCluster(masters=3, replicas=1, workdir=workdir / "cluster")
        self.rng = rng
        self.how: list[str] = []

    @property
    def url(self) -> str:
        return self.nodes.url

    @property
    def cluster(self) -> bool:
        return True

    async def start(self) -> None:
        await asyncio.to_thread(self.nodes.start)

    async def restart(self, number: int) -> None:
        topology = await asyncio.to_thread(self.nodes.topology)
        masters = [node for node, master, slots in topology if master and slots]
        victim = self.rng.choice(masters)
        started = time.monotonic()
        await asyncio.to_thread(self.nodes.kill, victim)
        await asyncio.to_thread(self.nodes.wait_healthy, 60.0)
        took = time.monotonic() - started
        self.how.append(f"master :{victim.port} SIGKILL, replica took over in {took:.1f} s")
        await asyncio.to_thread(victim.start)
        await asyncio.to_thread(self.nodes.wait_healthy, 60.0)

    def up(self) -> bool:
        return len(self.nodes.running) == len(self.nodes.nodes) and bool(self.nodes.nodes)

    def stop(self) -> None:
        self.nodes.stop()


# --- the workers -----------------------------------------------------------------------------


class WorkersFail(RuntimeError):
    """The worker processes exit by themselves, again and again."""


@dataclass
class Worker:
    name: str
    proc: subprocess.Popen[bytes]
    output: IO[bytes]


class Workers:
    def __init__(
        self,
        workdir: Path,
        redis: SingleRedis | ClusterRedis,
        platform_url: str,
        lease: float,
        events: list[tuple[float, str]],
        slack_url: str | None = None,
    ) -> None:
        self.events = events
        self.workdir = workdir
        self.redis = redis
        self.platform_url = platform_url
        self.slack_url = slack_url
        self.lease = lease
        self.alive: list[Worker] = []
        self.started = 0
        self.kills = 0
        self.kinds: Counter[str] = Counter()
        """Kills by moment: ``random``, ``lease`` (after a claim), ``ack`` (before answering),
        ``deliver`` (after saving a Timeout, before showing it)."""
        self.died: list[str] = []
        """Workers that exited by themselves (a deadline loop that ended, a crash)."""

    def spawn(self) -> None:
        self.started += 1
        name = f"w{self.started}"
        command = [
            sys.executable,
            "-m",
            "bench.faultworker",
            "--url",
            self.redis.url,
            "--platform-url",
            self.platform_url,
            "--queue",
            _QUEUE,
            "--results",
            _RESULTS,
            "--ready",
            _READY,
            "--name",
            name,
            "--poll",
            str(POLL_S),
            "--lease",
            str(self.lease),
            "--concurrency",
            str(WORKER_CONCURRENCY),
            "--parent",
            str(os.getpid()),
        ]
        if self.redis.cluster:
            command.append("--cluster")
        if self.slack_url:
            command += ["--slack-url", self.slack_url]
        output = (self.workdir / f"{name}.log").open("ab")
        proc = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        self.alive.append(Worker(name, proc, output))

    async def kill_one(
        self, rng: random.Random, platform: Platform, leases: bool, until: float
    ) -> str:
        """SIGKILL a random worker, at a random moment or (once it is ready) at one it
        chooses: holding deadline leases (only when ``leases``), or with an applied press not
        yet answered, if it meets one before ``until`` (monotonic). Returns the kind of kill."""
        worker = rng.choice(self.alive)
        kind = rng.choice(KILLS if leases else [k for k in KILLS if k != "lease"])
        if kind != "random" and not await platform.ready(worker.name):
            kind = "random"
        if kind != "random":
            worker.proc.send_signal(_DOOMS[kind])
            until = min(until, time.monotonic() + DOOM_WAIT_S)
            while worker.proc.poll() is None and time.monotonic() < until:
                await asyncio.sleep(0.02)
            if worker.proc.poll() is None:
                kind = "random"  # it met no such moment in time
        self.alive.remove(worker)
        with contextlib.suppress(ProcessLookupError):
            worker.proc.send_signal(signal.SIGKILL)
        worker.proc.wait()
        worker.output.close()
        self.kills += 1
        self.kinds[kind] += 1
        moment = {
            "random": "",
            "lease": " holding leases",
            "ack": " before answering",
            "deliver": " before delivering a Timeout",
        }[kind]
        self.events.append((time.time(), f"{worker.name} killed{moment}"))
        self.spawn()
        return kind

    def check(self) -> None:
        """Replace workers that exited by themselves, noting them; raises WorkersFail when
        they keep doing so (the bench cannot run)."""
        for worker in list(self.alive):
            code = worker.proc.poll()
            if code is not None:
                self.died.append(f"{worker.name} exited by itself with status {code}")
                self.alive.remove(worker)
                worker.output.close()
                if len(self.died) > 3 * max(1, len(self.alive) + 1):
                    tail = (self.workdir / f"{worker.name}.log").read_text(errors="replace")
                    raise WorkersFail(f"workers keep exiting; the last one said:\n{tail[-2000:]}")
                self.spawn()

    def stop(self) -> None:
        for worker in self.alive:
            with contextlib.suppress(ProcessLookupError):
                worker.proc.terminate()
        for worker in self.alive:
            try:
                worker.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                worker.proc.kill()
                worker.proc.wait()
            worker.output.close()
        self.alive = []


# --- the run ---------------------------------------------------------------------------------


@dataclass
class Step:
    """One save of a game, as its log shows it."""

    at: float
    pre: int | None
    pre_decision: int | None
    post: int
    first: list[Any]


@dataclass
class Late:
    """How late one deadline was: from its due time to the save that ended it."""

    seconds: float
    channel: str
    key: str
    due: float
    ended: float
    by: str
    version: int = 0
    """The state version that save wrote (what a call must show to show its effect)."""
    finished: bool = False
    """That save ended the game."""


@dataclass
class Seen:
    """How late one deadline was as players saw it: from its due time to the first platform
    call showing the save that ended it (None: no call showed it)."""

    late: Late
    shown: float | None
    seconds: float


@dataclass
class Checked:
    """What the logs and records of every game say."""

    games: int = 0
    agree: int = 0
    human: int = 0
    fired: int = 0
    lost: int = 0
    doubled: int = 0
    unexplained: int = 0
    commands_lost: int = 0
    deadlines_lost: int = 0
    lateness: list[Late] = field(default_factory=list)
    pending_late: float = 0.0
    due_seen: int = 0
    due_estimated: int = 0
    notes: list[str] = field(default_factory=list)
    unfinished: int = 0
    """Games that had not finished when measured (begun or not)."""
    results: int = 0
    """Games played out whose result the community's history holds."""
    results_pending: int = 0
    """Games played out whose result is still in the game, for its reminder to record."""
    results_missing: int = 0
    """Games played out whose result is neither recorded nor pending (lost)."""
    results_doubled: int = 0
    """People whose rating counts more games than the history holds of them."""
    seen: list[Seen] = field(default_factory=list)
    unseen: int = 0
    """Deadlines whose ending save no platform call had shown when measured."""
    in_flight: int = 0
    """Such deadlines ended too recently to tell (their delivery may be under way)."""


class LogCopy:
    """Each game's log entries, with their stream ids (the times of the saves), copied as the
    games go: the save that ends a game packs its log into one string without them."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self.logs: dict[str, list[tuple[str, dict[str, str]]]] = {}
        """Each channel's entries so far, those of its current game only."""
        self.packed_at: dict[str, float] = {}
        """When each channel's log was first seen packed (its game over)."""

    async def copy(self, key: GameKey) -> None:
        """Copy the entries of ``key``'s log added since the last copy."""
        kept = self.logs.setdefault(key.channel, [])
        start = f"({kept[-1][0]}" if kept else "-"
        try:
            entries = cast(list[Any], await self.store.client.xrange(_log_key(key), min=start))
        except redis.exceptions.ResponseError as error:
            if not str(error).startswith("WRONGTYPE"):
                raise
            self.packed_at.setdefault(key.channel, time.time())  # the game ended: packed
            return
        if key.channel in self.packed_at and entries:  # a new lobby dropped the packed log
            del self.packed_at[key.channel]
            kept.clear()
        for entry_id, fields in entries:
            if "a" in fields and any(item[1] == "begin" for item in json.loads(fields["a"])):
                kept.clear()  # a log is one game's, from its begin on
            kept.append((str(entry_id), dict(fields)))

    async def entries(self, key: GameKey) -> list[Any]:
        """A finished game's log as stream entries: those copied while it ran, then the lines
        the packed log holds beyond them (the last saves), timed when it was seen packed."""
        history = await self.store.read_history(key)
        kept = self.logs.get(key.channel, [])
        at = self.packed_at.get(key.channel, time.time())
        tail_id = f"{int(at * 1000)}-0"
        snapshots = [i for i, (_id, fields) in enumerate(kept) if "s" in fields]
        after = kept[snapshots[-1] + 1 :] if snapshots else kept
        copied = [fields.get("a") for _id, fields in after]
        if history.lines[: len(copied)] == copied:
            return [*kept, *((tail_id, {"a": line}) for line in history.lines[len(copied) :])]
        # A snapshot came after the last copy: the log from it, all timed at the end.
        entries: list[Any] = [(tail_id, {"s": history.snapshot})] if history.snapshot else []
        return entries + [(tail_id, {"a": line}) for line in history.lines]


class FaultBench:
    def __init__(
        self,
        settings: Settings,
        games: int,
        workers: int,
        cluster: bool,
        seconds: float,
        seed: int,
        restarts: int,
        finish_s: float = FINISH_S,
    ) -> None:
        self.settings = settings
        self.finish_s = finish_s
        self.games = games
        self.workers_n = workers
        self.cluster = cluster
        self.seconds = seconds
        self.seed = seed
        self.restarts_n = restarts
        self.lease = settings.deadline_lease_seconds
        self.rng = random.Random(f"{seed}:faults")
        self.channels: dict[str, str] = {}
        self.players: dict[str, list[str]] = {}
        """Each game's people, by channel."""
        self.seen_due: defaultdict[str, dict[tuple[int, str], float]] = defaultdict(dict)
        self.finished = 0
        self.restarts = 0
        self.started = time.monotonic()
        self.started_wall = time.time() - (time.monotonic() - self.started)
        self.events: list[tuple[float, str]] = []
        """The faults, by wall-clock time, for the report on the latest deadline."""
        self.last_line = ""
        """The machine-readable line, once measured (printed last, by :func:`faultbench`)."""
        # Set in run():
        self.platform: Platform
        self.probe: GameStore
        self.log_copy: LogCopy
        self.workers: Workers
        self.slack: FakeSlackAPI
        self.redis: SingleRedis | ClusterRedis

    def _elapsed(self, wall: float) -> str:
        """A wall-clock time as the progress lines show it (seconds since the start)."""
        return f"{wall - self.started_wall:.1f}s"

    def _say(self, text: str) -> None:
        print(f"[{time.monotonic() - self.started:5.1f}s] {text}", flush=True)

    async def run(self, workdir: Path) -> int:
        platform_server = LocalRedisServer(workdir=workdir / "platform")
        self.redis = (
            ClusterRedis(workdir, random.Random(f"{self.seed}:cluster"))
            if self.cluster
            else SingleRedis(workdir)
        )
        stack = contextlib.ExitStack()
        with stack:
            await asyncio.to_thread(platform_server.start)
            stack.callback(platform_server.stop)
            await self.redis.start()
            stack.callback(self.redis.stop)
            what = (
                "a cluster of 3 masters and 3 replicas"
                if self.cluster
                else "one redis-server, appendonly with fsync always"
            )
            self._say(f"redis under test: {what} at {self.redis.url}")
            self.platform = Platform(platform_server.url, random.Random(f"{self.seed}:platform"))
            self.probe = GameStore.from_url(self.redis.url, cluster=self.cluster)
            self.log_copy = LogCopy(self.probe)
            # The players' platform: its log's times are the wall clock's, as the due times.
            self.slack = FakeSlackAPI(clock=time.time)
            slack_url = await self.slack.start()
            self.workers = Workers(
                workdir, self.redis, platform_server.url, self.lease, self.events, slack_url
            )
            stack.callback(self.workers.stop)
            try:
                return await self._run()
            finally:
                await self.platform.close()
                with contextlib.suppress(Exception):
                    await self.probe.close()
                self.workers.stop()  # before the fake Slack they call goes
                await self.slack.close()
                _write_calls(workdir / SLACK_LOG, self.slack)
        return 1  # pragma: no cover (mypy: the ExitStack could swallow an exception)

    async def _run(self) -> int:
        for _ in range(self.workers_n):
            self.workers.spawn()
        self._say(
            f"{self.workers_n} workers (lease {self.lease:g} s, poll {POLL_S:g} s); "
            f"{self.games} tables of {', '.join(GAMES)}"
        )
        reading = asyncio.Event()
        reader = asyncio.create_task(self.platform.read_answers(reading))
        copied = asyncio.Event()
        copying = asyncio.create_task(self._keep_logs(copied))
        stop_play = asyncio.Event()
        no_new = asyncio.Event()
        tables = [Table(self, index) for index in range(self.games)]
        playing = [asyncio.create_task(t.run(stop_play, no_new)) for t in tables]
        try:
            opening = asyncio.gather(*(table.opened.wait() for table in tables))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(opening, SETUP_S)
            self._say(f"{sum(t.round for t in tables)} games begun")
            await self._chaos(tables)
            no_new.set()
            self._say(
                f"faults stopped; the games in play go on to their end (at most "
                f"{self.finish_s:g} s), no new one begins"
            )
            if self.finish_s > 0:
                _done, going = await asyncio.wait(playing, timeout=self.finish_s)
                self._say(f"{len(playing) - len(going)}/{len(playing)} tables done")
            stop_play.set()
            settle = self.lease + POLL_S + SLACK_S
            self._say(
                f"the people stop; the deadlines run alone for {settle:.1f} s (lease + poll + "
                "slack) while the last presses are answered"
            )
            settling = asyncio.create_task(asyncio.sleep(settle))
            _done, late = await asyncio.wait(playing, timeout=DRAIN_S)
            for task in late:
                task.cancel()
            await settling
            await self._quiet()
            self.workers.check()
            copied.set()
            await copying
            checked = await self._check()
            self._visible(checked)
        finally:
            reading.set()
            copied.set()
            for task in playing:
                task.cancel()
            await asyncio.gather(reader, copying, *playing, return_exceptions=True)
        return self._report(tables, checked)

    async def _chaos(self, tables: list[Table]) -> None:
        started = time.monotonic()
        until = started + self.seconds
        self._say(f"playing with faults for {self.seconds:g} s")

        planned = [
            started + self.seconds * (number + 1) / (self.restarts_n + 1)
            for number in range(self.restarts_n)
        ]
        restarting = asyncio.Event()
        # A deadline meets one crash of the worker holding its lease at most: a kill meant to
        # orphan leases waits until the last one's orphans have fired, and keeps clear of the
        # Redis restarts (two such faults in a row cost a lease each: see LEASE_GAP_S).
        last_lease = -LEASE_GAP_S * self.lease

        def leases_allowed(now: float) -> bool:
            if restarting.is_set() or now - last_lease < LEASE_GAP_S * self.lease:
                return False
            return all(not at - self.lease - 2.0 <= now <= at + 2.0 for at in planned)

        async def kills() -> None:
            nonlocal last_lease
            next_kill = time.monotonic() + self.rng.uniform(1.0, 2.0)
            while time.monotonic() < until:
                await asyncio.sleep(0.1)
                self.workers.check()
                now = time.monotonic()
                if now >= next_kill:
                    kind = await self.workers.kill_one(
                        self.rng, self.platform, leases_allowed(now), until
                    )
                    if kind == "lease":
                        last_lease = time.monotonic()
                    next_kill = time.monotonic() + self.rng.uniform(*KILL_EVERY_S)

        async def restarts() -> None:
            for number, at in enumerate(planned):
                await asyncio.sleep(max(0.0, at - time.monotonic()))
                self._say(f"restarting redis ({number + 1}/{self.restarts_n})")
                self.events.append((time.time(), "redis stopped"))
                restarting.set()
                try:
                    await self.redis.restart(number)
                finally:
                    restarting.clear()
                self.events.append((time.time(), "redis back"))
                self.restarts += 1
                self._say(f"redis is back ({self.redis.how[-1]})")

        async def progress() -> None:
            while time.monotonic() < until:
                await asyncio.sleep(min(5.0, max(0.0, until - time.monotonic())))
                sent = self.platform.sent.values()
                acked = sum(1 for s in sent if s.kind == "press" and s.applied)
                presses = sum(1 for s in sent if s.kind == "press")
                self._say(
                    f"kills={self.workers.kills} restarts={self.restarts} presses={presses} "
                    f"applied={acked} games={len(self.channels)} "
                    f"workers={len(self.workers.alive)} redis={'up' if self.redis.up() else 'down'}"
                )

        await asyncio.gather(kills(), restarts(), progress())

    # --- measuring ---------------------------------------------------------------------------

    async def _quiet(self) -> None:
        """Until the fake Slack has had no call for QUIET_S (at most QUIET_FOR_S)."""
        until = time.monotonic() + QUIET_FOR_S
        while time.monotonic() < until:
            last = self.slack.received[-1].at if self.slack.received else 0.0
            if time.time() - last >= QUIET_S:
                return
            await asyncio.sleep(0.1)

    def _visible(self, checked: Checked) -> None:
        """Each deadline's lateness as players saw it (see :mod:`bench.visible`)."""
        sightings = Sightings(self.slack.calls)
        now = time.time()
        for entry in checked.lateness:
            if entry.by == "a move" and entry.ended < entry.due:
                continue  # a move closed the decision in time: nothing was late
            players = self.players.get(entry.channel, [])
            shown = sightings.first(
                entry.channel, entry.version, entry.finished, players, entry.ended - 1.0
            )
            if shown is None:
                if now - entry.ended <= SLACK_S:
                    checked.in_flight += 1
                    continue
                checked.unseen += 1
                checked.notes.append(
                    f"{entry.channel}: no platform call showed the end of {entry.key!r} "
                    f"(version {entry.version}, by {entry.by})"
                )
            seconds = max(0.0, (shown if shown is not None else now) - entry.due)
            checked.seen.append(Seen(entry, shown, seconds))

    async def _keep_logs(self, stop: asyncio.Event) -> None:
        """Copy each game's log as the games go (see :class:`LogCopy`)."""
        while not stop.is_set():
            for channel in list(self.channels):
                with contextlib.suppress(StorageUnavailable, redis.exceptions.RedisError, OSError):
                    await self.log_copy.copy(GameKey(PLATFORM, channel))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), LOG_COPY_S)

    async def _retrying(self, key: GameKey) -> tuple[GameRecord | None, list[Any]]:
        for _ in range(100):
            try:
                _, loaded = await self.probe.load(key)
                try:
                    entries = cast(list[Any], await self.probe.client.xrange(_log_key(key)))
                except redis.exceptions.ResponseError as error:
                    if not str(error).startswith("WRONGTYPE"):
                        raise
                    entries = await self.log_copy.entries(key)
            except (StorageUnavailable, redis.exceptions.RedisError, OSError):
                await asyncio.sleep(0.2)
                continue
            record = GameRecord.model_validate_json(loaded.data) if loaded else None
            return record, entries
        raise StorageUnavailable()

    async def _check(self) -> Checked:
        checked = Checked()
        now = time.time()
        by_channel: defaultdict[str, list[Sent]] = defaultdict(list)
        for sent in self.platform.sent.values():
            by_channel[sent.channel].append(sent)
        for channel, name in self.channels.items():
            game = get_game(name)
            assert game is not None
            key = GameKey(PLATFORM, channel)
            record, entries = await self._retrying(key)
            mine = by_channel[channel]
            if record is None:
                # Every answer "applied" in this channel is lost (matched against no log).
                if any(s.applied for s in mine if s.kind == "command"):
                    checked.commands_lost += 1
                    checked.notes.append(f"{channel}: the game is gone from Redis")
                checked.unfinished += 1
                match_moves([], mine, checked, channel)
                continue
            steps: list[Step] = []
            if record.status != "finished":
                checked.unfinished += 1
            if record.status != "lobby":
                checked.games += 1
                steps, state, instances = self._replay(game, record, entries, channel, checked)
                if state is not None and record.state_json is not None:
                    if load_state(game, record.state_json) == state:
                        checked.agree += 1
                    else:
                        checked.notes.append(f"{channel}: the log does not replay to the record")
                checked.lateness += instances
            match_moves(steps, mine, checked, channel)
            if record.status == "playing" and record.deadline_due is not None:
                overdue = now - record.deadline_due
                checked.pending_late = max(checked.pending_late, overdue)
                if overdue > self.lease + POLL_S + SLACK_S:
                    checked.deadlines_lost += 1
                    checked.notes.append(f"{channel}: its deadline is {overdue:.1f} s overdue")
                elif await self._unscheduled(key):
                    checked.deadlines_lost += 1
                    checked.notes.append(f"{channel}: its deadline is not in the deadline set")
            if record.status == "finished":
                await self._check_result(key, record, checked)
        return checked

    async def _check_result(self, key: GameKey, record: GameRecord, checked: Checked) -> None:
        """A game played out is in its community's history exactly once (or still pending,
        for its reminder), and its people's ratings count it once."""
        game = get_game(record.game)
        if game is None or record.state_json is None:
            return
        if load_state(game, record.state_json).outcome is None:
            return  # ended early by its host: not recorded
        where = kept.Community(key.platform, results.community_of(record))
        gid = results.game_id(key, record.first_version)
        found = await kept.results(self.probe, where, [gid])
        if gid not in found:
            if await kept.pending_result(self.probe, key) is not None:
                checked.results_pending += 1
            else:
                checked.results_missing += 1
                checked.notes.append(f"{key.channel}: its result was never recorded")
            return
        checked.results += 1
        recorded = results.GameResult.model_validate_json(found[gid])
        ids = await kept.recent(self.probe, where, 0.0, 10_000)
        everything = await kept.results(self.probe, where, ids)
        for person in recorded.people:
            who = await kept.person(self.probe, where, person.user, [record.game], 0.0, 10_000)
            if record.game not in who.ratings:
                continue
            rating = results.Rating.model_validate_json(who.ratings[record.game])
            rated = sum(
                1
                for text in everything.values()
                if (other := results.GameResult.model_validate_json(text)).rated
                and other.game == record.game
                and person.user in [p.user for p in other.people]
            )
            if rating.games > rated:
                checked.results_doubled += 1
                checked.notes.append(f"{key.channel}: {person.user} rated {rating.games} times")

    async def _unscheduled(self, key: GameKey) -> bool:
        for _ in range(50):
            try:
                return await self.probe.deadline_of(key) is None
            except StorageUnavailable:
                await asyncio.sleep(0.2)
        return False

    def _replay(
        self,
        game: GameLike,
        record: GameRecord,
        entries: list[Any],
        channel: str,
        checked: Checked,
    ) -> tuple[list[Step], GameState | None, list[Late]]:
        """Each save of the game from its log, with the lateness of every deadline that ended."""
        steps: list[Step] = []
        late: list[Late] = []
        state: GameState | None = None
        pending: tuple[str, float, float, int] | None = None
        """The deadline set and not yet ended: its key, seconds, when and at what version."""
        seen = self.seen_due[channel]

        def due_of(key: str, seconds: float, at: float, low: int, high: int) -> float:
            """The due time the people saw in a record while the deadline was pending, or else
            the time of the save that set it plus its seconds."""
            for version in range(low, high + 1):
                if (version, key) in seen:
                    checked.due_seen += 1
                    return seen[(version, key)]
            checked.due_estimated += 1
            return at + seconds

        for entry_id, fields in entries:
            at = int(str(entry_id).split("-", 1)[0]) / 1000
            if "s" in fields:  # a snapshot: the entries before it are gone
                snapshot = GameRecord.model_validate_json(fields["s"])
                if snapshot.state_json is not None:
                    state = load_state(game, snapshot.state_json)
                checked.notes.append(f"{channel}: replayed from a snapshot")
                pending = None
                continue
            line = json.loads(fields["a"])
            before = state
            for item in line:
                if item[1] == "begin" and isinstance(item[0], str):
                    _who, _kind, names, _bots = item
                    rng = action_rng(record.seed, record.first_version)
                    state = game.setup(names, record.options, rng)
                    state.version = state.decision_version = record.first_version
                elif isinstance(item[0], int) and state is not None:
                    actor, action = decode_action(game, item)
                    rng = action_rng(record.seed, state.version)
                    state = game.apply(state, actor, action, rng).state
            if state is None:
                continue
            first = line[0] if line else []
            steps.append(
                Step(
                    at=at,
                    pre=before.version if before is not None else None,
                    pre_decision=before.decision_version if before is not None else None,
                    post=state.version,
                    first=first,
                )
            )
            if first[:2] == [-1, "timeout"]:
                checked.fired += 1
            # Whether this save set or ended the deadline, as Authority._commit decides it.
            ended = any(item[1] == "end" for item in line if isinstance(item[0], str))
            after = None if state.finished or ended else state.deadline
            was = before.deadline if before is not None else None
            changed = was is None or after is None or was.key != after.key
            if pending is not None and changed:
                key, seconds, set_at, low = pending
                high = before.version if before is not None else low
                due = due_of(key, seconds, set_at, low, high)
                by = "its Timeout" if first == [-1, "timeout", key] else "a move"
                late.append(
                    Late(
                        max(0.0, at - due),
                        channel,
                        key,
                        due,
                        at,
                        by,
                        state.version,
                        state.finished,
                    )
                )
                pending = None
            if after is not None and changed:
                pending = (after.key, float(after.seconds), at, state.version)
        return steps, state, late

    # --- the report --------------------------------------------------------------------------

    def _report(self, tables: list[Table], checked: Checked) -> int:
        sent = list(self.platform.sent.values())
        presses = [s for s in sent if s.kind == "press"]
        finals = Counter(s.final for s in presses)
        answers = Counter(a["status"] for s in sent for a in s.answers)
        actions = sum(1 for s in presses if s.applied)
        kills, restarts = self.workers.kills, self.restarts
        how = ", ".join(self.redis.how) or "none"
        late = [entry.seconds for entry in checked.lateness]
        worst = max([*late, checked.pending_late, 0.0])
        kinds = self.workers.kinds
        print(
            f"faults: {kills} workers SIGKILLed and replaced ({kinds['random']} at a random "
            f"moment, {kinds['lease']} holding deadline leases, {kinds['ack']} after applying a "
            f"press, before answering it, {kinds['deliver']} after saving a Timeout, before "
            f"delivering it), {restarts} Redis restarts ({how})"
        )
        for line in self.workers.died:
            print(f"  {line}")
        print(
            f"deliveries: {len(presses)} presses and {len(sent) - len(presses)} commands; "
            f"{self.platform.twice} pushed twice at once, {self.platform.redelivered} delivered "
            f"again after no answer or 'unavailable'"
        )
        print(
            "answers: "
            + ", ".join(f"{status} {n}" for status, n in sorted(answers.items()))
            + "; presses ended "
            + ", ".join(f"{status} {n}" for status, n in sorted(finals.items()))
        )
        print(
            f"logs: {checked.games} games ({self.finished} finished, {checked.unfinished} not), "
            f"{checked.human} human moves, {checked.fired} deadline firings; "
            f"{checked.agree}/{checked.games} replay to their record"
        )
        if late:
            p50, p99 = percentile(late, 0.5), percentile(late, 0.99)
            print(
                f"deadlines: {len(late)} ended, lateness p50 {p50:.2f} s, p99 {p99:.2f} s, "
                f"max {max(late):.2f} s; still pending at most {checked.pending_late:.2f} s "
                f"overdue (due times: {checked.due_seen} seen in records, "
                f"{checked.due_estimated} from the save that set them)"
            )
            latest = max(checked.lateness, key=lambda entry: entry.seconds)
            if latest.seconds > 1.0:
                t = self._elapsed
                print(
                    f"  the latest: {latest.channel} {latest.key!r}, due at {t(latest.due)}, "
                    f"ended by {latest.by} at {t(latest.ended)}; meanwhile: "
                    + (
                        "; ".join(
                            f"{t(when)} {what}"
                            for when, what in self.events
                            if latest.due - 1.0 <= when <= latest.ended
                        )
                        or "no fault"
                    )
                )
        visible = self._report_visible(checked)
        errors = [a for s in sent for a in s.answers if a["status"] == "error"]
        for answer in errors[:3]:
            print(f"  the authority raised on {answer['id']}: {answer.get('text', '')}")
        problems = [p for t in tables for p in t.problems]
        for note in [*problems, *checked.notes][:20]:
            print(f"  {note}")
        if checked.unexplained or checked.commands_lost:
            print(
                f"also: {checked.unexplained} logged moves match no press, "
                f"{checked.commands_lost} begun games have no begin in their log"
            )
        ok = (
            checked.lost == 0
            and checked.doubled == 0
            and checked.deadlines_lost == 0
            and checked.unexplained == 0
            and checked.commands_lost == 0
            and checked.agree == checked.games
            and worst <= MAX_LATE_S
            and visible <= MAX_LATE_S
            and checked.unseen == 0
            and checked.unfinished == 0
            and checked.results_missing == 0
            and checked.results_doubled == 0
            and actions > 0
            and not errors
            and not self.workers.died
        )
        self.last_line = (
            f"kills={kills} restarts={restarts} actions={actions} lost={checked.lost} "
            f"doubled={checked.doubled} deadlines_lost={checked.deadlines_lost} "
            f"max_deadline_late_s={worst:.2f} max_visible_late_s={visible:.2f} "
            f"deadlines_unseen={checked.unseen} games_unfinished={checked.unfinished} "
            f"results={checked.results} results_pending={checked.results_pending} "
            f"results_missing={checked.results_missing} "
            f"results_doubled={checked.results_doubled}"
        )
        return 0 if ok else 1

    def _report_visible(self, checked: Checked) -> float:
        """Print the lateness as players saw it; returns its worst (a deadline still pending
        at the end, shown by nothing, counts as overdue as it is)."""
        seen = [entry.seconds for entry in checked.seen]
        worst = max([*seen, checked.pending_late, 0.0])
        calls = len(self.slack.calls)
        refused = len(self.slack.refused) + len(self.slack.rate_limited)
        if seen:
            p50, p99 = percentile(seen, 0.5), percentile(seen, 0.99)
            print(
                f"as players saw it (the fake Slack's log: {calls} calls accepted, {refused} "
                f"refused): {len(seen)} deadlines, lateness p50 {p50:.2f} s, p99 {p99:.2f} s, "
                f"max {max(seen):.2f} s; {checked.unseen} never shown, {checked.in_flight} "
                "ended too recently to tell"
            )
            latest = max(checked.seen, key=lambda entry: entry.seconds)
            if latest.seconds > 1.0:
                t, late = self._elapsed, latest.late
                shown = t(latest.shown) if latest.shown is not None else "never"
                print(
                    f"  the latest seen: {late.channel} {late.key!r}, due at {t(late.due)}, "
                    f"saved by {late.by} at {t(late.ended)} (version {late.version}), shown at "
                    f"{shown}; meanwhile: "
                    + (
                        "; ".join(
                            f"{t(when)} {what}"
                            for when, what in self.events
                            if late.due - 1.0 <= when <= (latest.shown or time.time())
                        )
                        or "no fault"
                    )
                )
        return worst


def _write_calls(path: Path, slack: FakeSlackAPI) -> None:
    """The fake Slack's log, one call a line (kept with the workers' logs, to look into a
    lateness): when, what, where, the versions its choices carry, and any refusal."""
    with path.open("w") as out:
        for call in slack.received:
            where = str(call.channel or call.args.get("channel") or "")
            found = components_of(call.blocks, where, call.ts or "", False)
            versions = sorted(
                {c.press.version for c in found if c.press and c.press.version is not None}
            )
            games = sorted({c.press.channel for c in found if c.press and c.press.channel})
            line = {
                "at": round(call.at, 3),
                "method": call.method,
                "channel": where,
                "ts": call.ts,
                "thread_ts": call.args.get("thread_ts"),
                "versions": versions,
                "games": games,
                "error": call.error,
                "text": texts(call)[:160],
            }
            out.write(json.dumps(line) + "\n")


def match_moves(steps: list[Step], sent: list[Sent], checked: Checked, channel: str) -> None:
    """Check one game's log against the deliveries of its channel, adding to ``checked``.

    Every press answered "applied" must be in the log: at the state version the worker
    reported, the same seat and action (else it is lost). Every human move of the log must be
    accounted for by a press of its own: one answered applied at that version, or else one of
    the same seat and action whose button was current then (``decision_version <= button
    version <= version``), each press explaining one move at most (matched greedily, oldest
    button first). A move only explained by a press that already explains another is that
    press applied twice (doubled); one no press explains at all is unexplained.
    """
    presses = [s for s in sent if s.kind == "press"]
    by_post = {step.post: step for step in steps}
    bound: set[int] = set()
    uses: Counter[str] = Counter()
    doubled = 0
    for press in presses:
        applied = press.applied
        for answer in applied:
            step = by_post.get(answer["version"]) if answer.get("version") is not None else None
            if step is None or step.first != press.entry or id(step) in bound:
                continue
            bound.add(id(step))
            uses[press.id] += 1
        if applied and not uses[press.id]:
            checked.lost += 1
            versions = [a.get("version") for a in applied]
            checked.notes.append(
                f"{channel}: {press.id} {press.entry} was answered applied (version "
                f"{versions}) but the log has no such move"
            )
    begun = any(step.pre is None for step in steps)
    for command in sent:
        if command.kind == "command" and command.text == "begin" and command.applied and not begun:
            checked.commands_lost += 1
            checked.notes.append(f"{channel}: `begin` was answered applied but is not in the log")
    for step in steps:
        if step.pre is None or step.pre_decision is None or not step.first:
            continue
        actor = step.first[0]
        if not isinstance(actor, int) or actor < 0:
            continue  # the clock, or a lobby command during play
        checked.human += 1
        if id(step) in bound:
            continue
        low, high = step.pre_decision, step.pre
        candidates = [
            press
            for press in presses
            if press.entry == step.first
            and press.version is not None
            and low <= press.version <= high
        ]
        free = sorted((p for p in candidates if not uses[p.id]), key=lambda p: p.version or 0)
        if free:
            uses[free[0].id] += 1
        elif candidates:
            doubled += 1
            checked.notes.append(
                f"{channel}: the move {step.first} at version {step.pre} repeats "
                f"{candidates[0].id}, already applied"
            )
        else:
            checked.unexplained += 1
            checked.notes.append(
                f"{channel}: the move {step.first} at version {step.pre} matches no press"
            )
    twice = sum(len(p.applied) - 1 for p in presses if len(p.applied) > 1)
    if twice > doubled:
        checked.notes.append(f"{channel}: {twice} presses were answered applied more than once")
    checked.doubled += max(doubled, twice)


async def faultbench(
    settings: Settings,
    games: int = 20,
    workers: int = 3,
    cluster: bool = False,
    seconds: float = 30.0,
    seed: int = 1,
    restarts: int = 2,
    workdir: Path | None = None,
    finish_s: float = FINISH_S,
) -> int:
    """Run the fault bench; 0 when the goals hold, 1 when not, 2 when it cannot run.

    ``workdir``: where the servers' data and every process's log go (kept); by default a
    temporary directory, removed when the run meets its goals. ``finish_s``: how long the games
    in play may take to finish once the faults stop.
    """
    if games < 1 or workers < 1 or seconds <= 0 or restarts < 0 or finish_s < 0:
        print("need games >= 1, workers >= 1, seconds > 0, restarts >= 0 and finish_s >= 0")
        return 2
    if settings.redis_url:
        print("REDIS_URL is ignored: the fault bench restarts Redis, so it starts its own")
    keep = workdir is not None
    where = workdir if workdir is not None else Path(tempfile.mkdtemp(prefix="boardroom-faults-"))
    where.mkdir(parents=True, exist_ok=True)
    bench = FaultBench(settings, games, workers, cluster, seconds, seed, restarts, finish_s)
    # The bench's own reads ride out the outages it causes: no warning per outage.
    quiet = logging.getLogger("storage")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    code = 2
    try:
        code = await bench.run(where)
    except RedisServerError as exc:
        print(f"cannot start redis-server: {exc}")
    except WorkersFail as exc:
        print(f"cannot run: {exc}")
    finally:
        quiet.setLevel(level)
        if code == 0 and not keep:
            shutil.rmtree(where, ignore_errors=True)
        else:
            print(f"the logs of the workers and servers are in {where}")
        if bench.last_line:
            print(bench.last_line, flush=True)
    return code
