"""``boardroom bench --adapter slack --workspace``: three busy games in one Slack workspace.

Three games (one of each) in three channels of one workspace, four people each, played at once
at a person's pace (``--think-ms``, 5000 by default) through three HTTP workers of the bot on one
real redis-server (:meth:`~testkit.slack.loopback.Loopback.worker`: each its own Bolt app, Web
API client and table, each request of any game going to one of them at random, as a load
balancer sends them), against the strict fake Slack Web API, which rations every method per
workspace at its tier (no random 429s here). Time is the virtual clock's, shared by the fake, the
bots and the players, so the minutes Slack counts by are kept without being waited out.

From the fake's own log:

- per method, the calls made in the busiest minute (any 60 s) against the tier's minute rate,
  and ``over_budget``: calls the fake answered 429 for being past a budget (0: the workers
  together kept every method within its rate);
- ``board_lag``: for each press, the time until the game's board showed what it led to (the
  board the bot wanted after that press, or a newer one, landed: a post or an edit of the
  board's message, or the pressed board replaced), p50, p99 and the most, in seconds of the
  clock, and ``over_5s``: presses whose board took longer than 5 s.

The last line::

    over_budget=<n> board_lag_p50=<s> board_lag_p99=<s> board_lag_max=<s> over_5s=<n>
    unfinished=<n>
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import defaultdict
from dataclasses import dataclass, field

from bench.redismeter import observer_store
from bench.table import GAMES
from bot.adapters.slack.budget import METHOD_TIERS, POSTS_PER_WORKSPACE, TIERS
from bot.adapters.slack.render import fallback_text
from bot.commands.record import GameRecord
from bot.settings import Settings
from bot.simulate import percentile
from bot.table import Refs
from storage import GameKey, GameStore
from testkit.clock import VirtualClock
from testkit.local_server import bench_redis
from testkit.slack.fake import FakeSlackAPI
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable

__all__ = ["run_workspace_bench"]

WORKERS = 3
LAG_GOAL_S = 5.0
MINUTE_S = 60.0
KEPT = 2500
"""Characters of a board's text compared (a notice's mentions come first, and a post's text is
cut at 3,000)."""


@dataclass
class _Game:
    """One channel's game, and what the bench saw of its board."""

    game: str
    channel: str
    table: SlackTable
    wanted: list[tuple[float, str]] = field(default_factory=list)
    """After each press: when it was sent (the clock), and the text of the board the bot
    wanted then."""


def _board_shown(api: FakeSlackAPI, channel: str) -> list[tuple[float, str]]:
    """Every board text that landed in ``channel`` (its thread included), when: posts and
    edits of the board's message, and the pressed board replaced through a response URL."""
    shown = []
    for call in api.received:
        if call.error is not None or call.ts is None:
            continue
        if call.method not in ("chat.postMessage", "chat.update", "response_url"):
            continue
        if (call.channel or call.args.get("channel")) != channel:
            continue
        shown.append((call.at, str(call.args.get("text", ""))))
    return shown


def _lags(game: _Game, shown: list[tuple[float, str]]) -> list[float]:
    """For each press: the time until a board it or a later press wanted was shown (its text,
    as far as a post's text keeps it: a turn notice names its player first, and the whole is
    cut at Slack's fallback length)."""
    titles = {text.split("\n", 1)[0] for _, text in game.wanted if text}
    boards = [(at, text) for at, text in shown if any(t in text[:200] for t in titles)]
    lags = []
    for index, (sent, _) in enumerate(game.wanted):
        later = {text[:KEPT] for _, text in game.wanted[index:] if text}
        before = [text for at, text in boards if at < sent]
        if before and any(t in before[-1] for t in later):
            lags.append(0.0)  # it shows it already: the press did not change the board
            continue
        landed = [at for at, text in boards if at >= sent and any(t in text for t in later)]
        lags.append(min(landed) - sent if landed else float("inf"))
    return lags


def _busiest_minutes(api: FakeSlackAPI) -> dict[str, int]:
    """Per Web API method, the most calls within any minute (accepted or refused alike)."""
    times: dict[str, list[float]] = defaultdict(list)
    for call in api.received:
        if call.method in ("response_url", "upload_url", "boardroom.handled"):
            continue
        times[call.method].append(call.at)
    busiest = {}
    for method, moments in times.items():
        moments.sort()
        start, most = 0, 0
        for end, at in enumerate(moments):
            while at - moments[start] >= MINUTE_S:
                start += 1
            most = max(most, end - start + 1)
        busiest[method] = most
    return busiest


def _rate(method: str) -> str:
    tier = METHOD_TIERS.get(method)
    if tier is not None:
        return f"tier {tier}: {TIERS[tier][0]:g}/min"
    if method == "chat.postMessage":
        return f"1/s a conversation, {POSTS_PER_WORKSPACE[0]:g}/min in all"
    return "not rationed"


async def _board_text(observer: GameStore, channel: str) -> str:
    stored = await observer.table_refs(GameKey("slack", channel))
    if stored is None or not stored[1]:
        return ""
    refs = Refs.model_validate_json(stored[1])
    return fallback_text(refs.board_message) if refs.board_message is not None else ""


async def _finished(observer: GameStore, channel: str) -> bool:
    _, loaded = await observer.load(GameKey("slack", channel))
    return loaded is not None and GameRecord.model_validate_json(loaded.data).status == "finished"


async def run_workspace_bench(settings: Settings, seed: int, think_ms: float) -> int:
    """Play the three games at once and print the figures; 0 when every game finished, no call
    was past a budget and every board showed its press within 5 s."""
    async with contextlib.AsyncExitStack() as stack:
        url = await bench_redis(stack, settings.redis_url)
        if url is None:
            return 2
        observer = observer_store(url)
        stack.push_async_callback(observer.close)
        await observer.client.flushdb()
        clock = VirtualClock()
        loop = await Loopback.start(url, seed, clock=clock)
        stack.push_async_callback(loop.close)
        workers = [(loop.slack, loop.adapter)]
        for _ in range(WORKERS - 1):
            other = await loop.worker()
            workers.append((other.slack, other.adapter))
        api = loop.api
        games = []
        for number, game in enumerate(GAMES):
            channel = f"CWORK{number}"
            users = [f"UW{number}P{n}" for n in range(4)]
            table = SlackTable.on(loop, channel, users, random.Random(f"{seed}:{game}"), game)
            table.spread(workers)
            table.observer = observer
            table.settle_deferred = False  # people press when they are ready, not when all is
            games.append(_Game(game, channel, table))

        async def play(entry: _Game) -> None:
            table = entry.table
            host, *others = table.players
            await table.command(host, f"start {GAMES[entry.game]}")
            join = "Start a team" if entry.game == "biggiebills" else "Join"
            for user in others:
                await table.press_label(user, join, commands=True)
            await table.press_label(host, "Begin", commands=True)

            async def after() -> None:
                board = await _board_text(observer, entry.channel)
                entry.wanted.append((table.last_sent_at, board))

            # The clock jumps only while everyone thinks: what a press sets off (a post waiting
            # for its turn, a deferred edit) runs in the time it takes.
            await table.play(think_s=think_ms / 1000, after_each=after, pauses_only=True)

        await asyncio.gather(*(play(entry) for entry in games))
        for _, adapter in workers:
            await adapter.settled()
            await adapter.table.caught_up()
        unfinished = 0
        all_lags: list[float] = []
        for entry in games:
            lags = _lags(entry, _board_shown(api, entry.channel))
            finished = await _finished(observer, entry.channel)
            unfinished += not finished
            all_lags += lags
            worst = max(lags, default=0.0)
            print(
                f"{entry.game}: finished={'yes' if finished else 'no'} "
                f"presses={len(entry.wanted)} board_lag_p99={percentile(lags, 0.99):.2f} "
                f"board_lag_max={worst:.2f}",
                flush=True,
            )
            entry.table.detach()
        busiest = _busiest_minutes(api)
        for method in sorted(busiest):
            print(f"  {method}: busiest minute {busiest[method]} calls ({_rate(method)})")
        over_5 = sum(1 for lag in all_lags if lag > LAG_GOAL_S)
        print(
            f"over_budget={api.over_budget} board_lag_p50={percentile(all_lags, 0.5):.2f} "
            f"board_lag_p99={percentile(all_lags, 0.99):.2f} "
            f"board_lag_max={max(all_lags, default=0.0):.2f} over_5s={over_5} "
            f"unfinished={unfinished}"
        )
        good = api.over_budget == 0 and over_5 == 0 and unfinished == 0
        return 0 if good else 1
