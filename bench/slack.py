"""``boardroom bench --adapter slack``: latency through the real Bolt app at many concurrent games.

The bot runs in its own process, as in production: the real Bolt app served over HTTP on
127.0.0.1 by :func:`~testkit.slack.loopback.serve_http`, a real redis-server, and the Web API
client pointed at a fake Slack (:mod:`testkit.slack.fake`). This process plays Slack: the fake
Web API and, per game, four simulated users (:class:`~testkit.slack.players.SlackTable`)
sending signed slash commands and ``block_actions`` payloads. Keeping the two apart means the bot
is not charged for Slack's own work.

The host opens each game with ``/bigidea start``; the others join, and the host begins, with the
buttons of the lobby card; then everyone plays from what the table shows them: their DM panel,
the prompt in the game's thread.

Two latencies are measured for every request. Request-to-response: from sending it to Bolt's HTTP
answer, the acknowledgement Slack waits for (3 s at most); this is the last line. The whole
answer: from sending it to the moment every Web API call of its answer (the pressed panel
updated, the board edited, posts in the thread, other players' panels) has been accepted, which
the bot reports by calling the fake's ``boardroom.handled``; it is printed before. It includes
the table's pacing of posts at Slack's one a second per channel. Players press at a player's pace
(``THINK_S`` on average between a game's presses), so the figures are the bot's response times,
not the length of a queue of every game pressing at once. Also printed: the Web API calls each
press cost, and the messages a game left in its channel and in its thread.

The last line printed is machine-readable: ``p50_ms=<x> p99_ms=<x>``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import time

from aiohttp import ClientSession, TCPConnector

from bot.adapters.slack.app import SlackAdapter
from bot.adapters.slack.budget import BudgetedWebClient
from bot.adapters.slack.http import EVENTS_PATH, serve_http
from bot.commands.authority import Authority
from bot.commands.record import GameRecord
from bot.desk import Interaction as Asked
from bot.runtime import freeze_startup
from bot.settings import Settings
from bot.simulate import percentile
from storage import GameKey, GameStore
from testkit.local_server import bench_redis, free_port
from testkit.slack.fake import HANDLED, FakeSlackAPI, SignedClient
from testkit.slack.players import SlackTable

__all__ = ["run_bench"]

GAME = "bigidea"
PLAYERS = 4
THINK_S = 1.0
"""A press per game per second on average: faster than people play (a round of The Big Idea
is about a dozen choices in a minute), the same pace as the other benches."""
DEADLINES_OFF = "pick_seconds=0 vote_seconds=0 turn_seconds=0"
SECRET = "bench-signing-secret"
READY_TIMEOUT_S = 30.0
READY = "boardroom-slack-bench-ready"


# --- the bot's process -------------------------------------------------------------------------


async def _bot(redis_url: str, api_url: str, port: int, seed: int) -> None:
    store = GameStore.from_url(redis_url)
    seeds = random.Random(seed)
    authority = Authority(store, Settings(), new_seed=lambda: seeds.getrandbits(63))
    session = ClientSession(connector=TCPConnector(limit=0))
    client = BudgetedWebClient(token="xoxb-bench", base_url=api_url, session=session)
    adapter = SlackAdapter(authority, client, SECRET)
    pending: set[asyncio.Task[object]] = set()

    class Reporter:
        """Tells the fake Slack each request the bot's front desk has answered."""

        def handled(self, asked: Asked) -> None:
            call = client.api_call(HANDLED, json={"user": asked.request.user})
            task = asyncio.ensure_future(call)
            pending.add(task)
            task.add_done_callback(pending.discard)

    adapter.desk.observers.append(Reporter())
    await serve_http(adapter, "127.0.0.1", port)
    freeze_startup()  # as `boardroom slack` does
    print(READY, flush=True)
    await asyncio.Event().wait()  # until the bench terminates this process


async def _stop(bot: asyncio.subprocess.Process) -> None:
    if bot.returncode is None:
        bot.terminate()
    await bot.wait()


# --- the Slack side ----------------------------------------------------------------------------


async def _play(
    api: FakeSlackAPI, slack: SignedClient, store: GameStore, index: int, rng: random.Random
) -> tuple[SlackTable, bool]:
    channel = f"CBENCH{index}"
    users = [f"U{index}X{seat}" for seat in range(PLAYERS)]
    table = SlackTable(api, slack, channel, users, rng, GAME)
    # Commands come at a player's pace too; the first wait also spreads the games' starts.
    await asyncio.sleep(rng.uniform(0.5, 1.5) * THINK_S)
    await table.command(users[0], f"start {DEADLINES_OFF}")
    for user, label in [*((u, "Join") for u in users[1:]), (users[0], "Begin")]:
        await asyncio.sleep(rng.uniform(0.5, 1.5) * THINK_S)
        await table.press_label(user, label, commands=True)
    await table.play(think_s=THINK_S)
    _, loaded = await store.load(GameKey("slack", channel))
    record = GameRecord.model_validate_json(loaded.data) if loaded else None
    table.detach()
    return table, record is not None and record.status == "finished"


def _messages(api: FakeSlackAPI, channels: list[str]) -> str:
    """Messages per game in its channel and in its thread (posted in all, still there)."""
    top = [api.channel_messages(c, deleted=True) for c in channels]
    threads = [
        api.replies(c, m[0].ts, deleted=True) if m else []
        for c, m in zip(channels, top, strict=True)
    ]
    live = [len([m for m in replies if not m.deleted]) for replies in threads]
    games = max(len(channels), 1)
    return (
        f"messages per game: {sum(len(m) for m in top) / games:.1f} in the channel, "
        f"{sum(len(r) for r in threads) / games:.1f} posted in the thread "
        f"({sum(live) / games:.1f} still there at the end)"
    )


async def run_bench(settings: Settings, games: int, seed: int) -> int:
    """Play ``games`` games at once; 0 when all finished, 1 otherwise, 2 on bad input."""
    if games < 1:
        print("need games >= 1")
        return 2
    async with contextlib.AsyncExitStack() as stack:
        url = await bench_redis(stack, settings.redis_url)
        if url is None:
            return 2
        api = FakeSlackAPI()
        api_url = await api.start()
        stack.push_async_callback(api.close)
        port = free_port()
        # A plain child interpreter, not multiprocessing: `python -m bot` has no __main__ guard
        # for a spawned process to import safely.
        bot = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            __name__,
            url,
            api_url,
            str(port),
            str(seed),
            stdout=asyncio.subprocess.PIPE,
        )
        stack.push_async_callback(_stop, bot)
        assert bot.stdout is not None
        try:
            line = await asyncio.wait_for(bot.stdout.readline(), READY_TIMEOUT_S)
        except TimeoutError:
            line = b""
        if line.decode().strip() != READY:
            print("the bot process did not start")
            return 2
        session = await stack.enter_async_context(ClientSession(connector=TCPConnector(limit=0)))
        slack = SignedClient(f"http://127.0.0.1:{port}{EVENTS_PATH}", SECRET, session)
        store = GameStore.from_url(url)
        stack.push_async_callback(store.close)
        print(f"bench slack: {games} concurrent games of {PLAYERS} players, seed {seed}")
        print(
            f"redis: {'REDIS_URL' if settings.redis_url else url}; the bot in its own process, "
            f"Bolt over HTTP on 127.0.0.1:{port}; presses every {THINK_S:g} s per game on average"
        )
        rng = random.Random(seed)
        started = time.perf_counter()
        results = await asyncio.gather(
            *(_play(api, slack, store, i, random.Random(rng.getrandbits(64))) for i in range(games))
        )
        wall = time.perf_counter() - started
        latencies = sorted(s for table, _ in results for s in table.stats.latencies)
        acks = sorted(s for table, _ in results for s in table.stats.acks)
        finished = sum(1 for _, done in results if done)
        requests = len(latencies)
        calls = sum(api.tally().values())
        print(f"games finished: {finished}/{games} in {wall:.1f}s; {requests} requests")
        print(f"Web API calls: {calls} ({calls / max(requests, 1):.1f} per request)")
        per_press = sorted(float(n) for table, _ in results for n in table.stats.calls)
        if per_press:
            print(
                f"Web API calls per press: mean {sum(per_press) / len(per_press):.1f}, "
                f"p50 {percentile(per_press, 0.5):.0f}, max {per_press[-1]:.0f}"
            )
        print(_messages(api, [table.channel for table, _ in results]))
        refused = [(c.method, c.error) for c in api.refused]
        if refused:
            print(f"refused by Slack: {len(refused)}, e.g. {refused[:3]}")
        print(
            f"whole answer (request sent to every Web API call of its answer accepted): "
            f"p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
            f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms"
        )
        # The last line is request-to-response: the HTTP answer Slack waits for (its 3 s).
        p50 = percentile(acks, 0.5) * 1000
        p99 = percentile(acks, 0.99) * 1000
        print(f"p50_ms={p50:.2f} p99_ms={p99:.2f}")
        return 0 if finished == games else 1
    return 2  # pragma: no cover (mypy: the exit stack could swallow an exception)


if __name__ == "__main__":
    # The bot's process: python -m bench.slack <redis url> <api url> <port> <seed>
    _redis, _api, _port, _seed = sys.argv[1:5]
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_bot(_redis, _api, int(_port), int(_seed)))
