"""``boardroom bench --adapter discord|slack --table``: how a whole game looks in a channel.

Plays one whole game of each of the three games, four human seats and default options (its
deadlines off, so simulated players set the pace), through the real discord.py client (or the
real Bolt app over HTTP) against the strict fake Discord (or Slack Web API) on 127.0.0.1 and a
real redis-server, and counts what a channel's members would see:

- ``channel_posts``: new messages the bot posted in the channel itself (the card, the result);
- ``thread_posts_per_decision``: new posts in the game's thread per human press;
- ``board_distance_max``: the most messages below the board at any press;
- ``dms_per_player``: new direct messages per player (panels are edited in place);
- ``calls_per_press``: REST (Web API) calls, interaction callbacks and response URL posts
  included, per human press;
- ``max_posts_per_5s``: Discord, the most posts within 5 s in the channel or the thread (its
  limit: 5); ``max_posts_per_s``: Slack, the most posts within a second in the channel, thread
  replies included (about 1 sustained).

Simulated players press at once (``--think-ms`` to pause), faster than people: posts the
channel limit would exceed are coalesced by the table, so at a person's pace there are more log
posts, never more than the limit. The fakes, the players' pauses and the table's pacing run on a
virtual clock (``testkit.clock.VirtualClock``) that jumps over waits, so a game at a person's
pace (``--think-ms 5000``) is counted in seconds of real time. Before each press the bench fires
what has fallen due meanwhile (turn notices that waited for their player) through the bot's own
deadline path, as the bot's deadline loop would have during the pause. One line per game, then
the worst of the games, but for ``calls_per_press``: the mean over every press of the three
games (the figure the goal names), then the worst game's::

    channel_posts=<x> thread_posts_per_decision=<x> board_distance_max=<x> dms_per_player=<x>
    calls_per_press=<x> calls_per_press_worst=<x>

(on one line).
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.commands.authority import Authority
from bot.commands.outbox import Outbox
from bot.runtime import bench_redis
from bot.settings import Settings
from bot.table import Refs
from storage import GameKey, GameStore
from testkit.clock import VirtualClock
from testkit.discord.fake import FakeDiscord, FakeUser
from testkit.discord.sim import Table, running_bot
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable

__all__ = ["GAMES", "Figures", "run_table_bench"]

GAMES = {
    "bigidea": "pick_seconds=0 vote_seconds=0 turn_seconds=0",
    "biggiebills": "turn_seconds=0 block_seconds=0",
    "businessgo": "turn_seconds=0 compete_seconds=0 auction_seconds=0",
}
"""Default options but the deadlines, which would only wait for simulated players."""
CHANNEL = 700_000_000_000_009_001
USERS = [
    FakeUser(800_000_000_000_009_000 + i, name)
    for i, name in enumerate(["alice", "bob", "carol", "dave"])
]


@dataclass
class Figures:
    game: str
    presses: int
    channel_posts: int
    thread_posts: int
    board_distance_max: int
    dms_per_player: float
    calls: int
    max_posts_per_5s: int
    seconds: float
    rate: str = "max_posts_per_5s"
    """What ``max_posts_per_5s`` counts (Slack's limit is per second)."""

    @property
    def per_decision(self) -> float:
        return self.thread_posts / max(1, self.presses)

    @property
    def per_press(self) -> float:
        return self.calls / max(1, self.presses)

    def line(self) -> str:
        return (
            f"{self.game}: presses={self.presses} channel_posts={self.channel_posts} "
            f"thread_posts_per_decision={self.per_decision:.2f} "
            f"board_distance_max={self.board_distance_max} "
            f"dms_per_player={self.dms_per_player:.1f} calls_per_press={self.per_press:.2f} "
            f"{self.rate}={self.max_posts_per_5s} seconds={self.seconds:.1f}"
        )


async def _play_discord(redis_url: str, game: str, seed: int, think_s: float) -> Figures:
    store = GameStore.from_url(redis_url)
    clock = VirtualClock()
    fake = await FakeDiscord(clock=clock).start()
    try:
        await store.client.flushdb()
        settings = Settings.model_validate(
            {
                "DISCORD_GUILD_IDS": str(fake.guild_id),
                "DISCORD_API_URL": fake.api_url,
                "DISCORD_GATEWAY_URL": fake.gateway_url,
                "BOARDROOM_DEADLINE_POLL_SECONDS": 0.05,
            }
        )
        seeds = random.Random(seed)
        authority = Authority(
            store, settings, clock=clock.wall, new_seed=lambda: seeds.getrandbits(63)
        )
        started = time.monotonic()
        async with running_bot(fake, authority, settings) as client:
            table = Table(fake, client, CHANNEL, USERS, random.Random(seed), game=game)
            await table.open(GAMES[game])
            first_call = len(fake.calls)
            presses_before = table.presses
            distances = [0]

            async def measure() -> None:
                distances.append(await _below_board(fake, store, table))

            async def fire() -> None:
                await _fire_due(authority, "discord", client.adapter.deliver)

            table.before_press = measure
            table.after_think = fire
            await table.play(think_s=think_s)
        presses = table.presses - presses_before
        calls = fake.calls[first_call:]
        threads = [t for t in fake.threads.values() if t.parent_id == CHANNEL]
        posts = [c for c in fake.calls if c.method == "POST" and c.path.endswith("/messages")]
        in_channel = sum(c.path == f"/channels/{CHANNEL}/messages" for c in posts)
        in_threads = sum(
            any(c.path == f"/channels/{t.id}/messages" for t in threads) for c in posts
        )
        dm_posts = len(posts) - in_channel - in_threads
        busiest = max(
            [fake.max_posts_per_5s(CHANNEL), *(fake.max_posts_per_5s(t.id) for t in threads)]
        )
        return Figures(
            game=game,
            presses=presses,
            channel_posts=in_channel,
            thread_posts=in_threads if threads else in_channel,
            board_distance_max=max(distances),
            dms_per_player=dm_posts / len(USERS),
            calls=len(calls),
            max_posts_per_5s=busiest,
            seconds=time.monotonic() - started,
        )
    finally:
        await fake.close()
        await store.close()


async def _fire_due(
    authority: Authority, platform: str, deliver: Callable[[Outbox], Awaitable[None]]
) -> None:
    """What fell due during a player's pause, fired and delivered as the deadline loop does."""
    for out in await authority.fire_due(platform):
        await deliver(out)


async def _below_board(fake: FakeDiscord, store: GameStore, table: Table) -> int:
    """Messages below the board in its place now (0 before there is a board)."""
    stored = await store.table_refs(GameKey("discord", str(CHANNEL)))
    if stored is None:
        return 0
    refs = Refs.model_validate_json(stored[1])
    if refs.board is None:
        return 0
    messages = fake.public(int(refs.board.where))
    ids = [m.id for m in messages]
    board = int(refs.board.id)
    return len(ids) - ids.index(board) - 1 if board in ids else 0


SLACK_CHANNEL = "CTABLE1"
SLACK_USERS = ["UALICE", "UBOB", "UCAROL", "UDAVE"]


async def _play_slack(redis_url: str, game: str, seed: int, think_s: float) -> Figures:
    loop = await Loopback.start(redis_url, seed, clock=VirtualClock())
    try:
        await loop.store.client.flushdb()
        started = time.monotonic()
        table = SlackTable.on(loop, SLACK_CHANNEL, SLACK_USERS, random.Random(seed), game)
        await table.command(SLACK_USERS[0], f"start {GAMES[game]}")
        join = "Start a team" if game == "biggiebills" else "Join"
        for user in SLACK_USERS[1:]:
            await table.press_label(user, join, commands=True)
        await table.press_label(SLACK_USERS[0], "Begin", commands=True)
        first_press = table.stats.presses
        first_call = len(table.stats.calls)
        distances = [0]

        async def measure() -> None:
            distances.append(await _below_slack_board(loop))

        async def fire() -> None:
            await _fire_due(loop.authority, "slack", loop.adapter.deliver)

        await table.play(think_s=think_s, after_each=measure, before_each=fire)
        table.detach()
        presses = table.stats.presses - first_press
        top = loop.api.channel_messages(SLACK_CHANNEL, deleted=True)
        card = top[0].ts if top else ""
        replies = loop.api.replies(SLACK_CHANNEL, card, deleted=True) if card else []
        posts = loop.api.called("chat.postMessage")
        dm_posts = sum(str(c.args.get("channel", "")).startswith("D") for c in posts)
        rate = loop.api.max_posts_per_s(SLACK_CHANNEL)
        return Figures(
            game=game,
            presses=presses,
            channel_posts=len(top),
            thread_posts=len(replies),
            board_distance_max=max(distances),
            dms_per_player=dm_posts / len(SLACK_USERS),
            calls=sum(table.stats.calls[first_call:]),
            max_posts_per_5s=rate.peak,
            seconds=time.monotonic() - started,
            rate="max_posts_per_s",
        )
    finally:
        await loop.close()


async def _below_slack_board(loop: Loopback) -> int:
    stored = await loop.store.table_refs(GameKey("slack", SLACK_CHANNEL))
    if stored is None:
        return 0
    refs = Refs.model_validate_json(stored[1])
    if refs.board is None:
        return 0
    if refs.thread is not None and not refs.threads_off:
        messages = loop.api.replies(SLACK_CHANNEL, refs.thread)
    else:
        messages = loop.api.channel_messages(SLACK_CHANNEL)
    ids = [m.ts for m in messages]
    return len(ids) - ids.index(refs.board.id) - 1 if refs.board.id in ids else 0


async def run_table_bench(settings: Settings, adapter: str, seed: int, think_ms: float) -> int:
    """Play a game of each game and print the figures; 0 when all finished."""
    if adapter not in ("discord", "slack"):
        print("--table goes with --adapter discord or --adapter slack")
        return 2
    play = _play_discord if adapter == "discord" else _play_slack
    async with contextlib.AsyncExitStack() as stack:
        url = await bench_redis(stack, settings.redis_url)
        if url is None:
            return 2
        figures = []
        for game in GAMES:
            result = await play(url, game, seed, think_ms / 1000)
            print(result.line(), flush=True)
            figures.append(result)
    mean = sum(f.calls for f in figures) / max(1, sum(f.presses for f in figures))
    print(
        f"channel_posts={max(f.channel_posts for f in figures)} "
        f"thread_posts_per_decision={max(f.per_decision for f in figures):.2f} "
        f"board_distance_max={max(f.board_distance_max for f in figures)} "
        f"dms_per_player={max(f.dms_per_player for f in figures):.1f} "
        f"calls_per_press={mean:.2f} calls_per_press_worst={max(f.per_press for f in figures):.2f}"
    )
    return 0
