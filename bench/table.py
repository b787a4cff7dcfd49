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
  replies included (about 1 sustained);
- ``uploads_per_press``: board pictures uploaded (each one a new file on the platform: a
  Discord attachment, a Slack external upload) per human press;
- ``redis_commands_per_press``: the commands the bench's redis-server executed while the game
  was played (from the first press after ``begin`` to the end), counted by the server itself
  through ``MONITOR`` (:mod:`bench.redismeter`: a script is one ``EVALSHA``, each command of a
  pipeline counts), per human press: what a press costs, its load, save and table. The
  deadline firings the bench makes in the deadline loop's place (a claim after each pause,
  whatever it finds: the bot's own loop is slowed to :data:`POLL_S`, its polls paced by the real
  clock alone) are counted apart, as ``deadline_commands_per_press`` on the line before the last:
  they are the loop's polling, paid per poll (every half second a worker), not per press; the
  bench's own reads (the simulated players reading the record, the board's
  distance) go through a connection of its own and do not. A line before the last breaks the
  count down by command (``EVALSHA`` by script), and says which of them the firing cost. With
  ``REDIS_URL`` set, everything that server runs meanwhile counts; a server that refuses
  ``MONITOR`` (managed Redis often does) cannot be measured: the bench says so and stops.

Simulated players press at once (``--think-ms`` to pause), faster than people: posts the
channel limit would exceed are coalesced by the table, so at a person's pace there are more log
posts, never more than the limit. The fakes, the players' pauses and the table's pacing run on a
virtual clock (``testkit.clock.VirtualClock``) that jumps over waits, so a game at a person's
pace (``--think-ms 5000``) is counted in seconds of real time. A timer of the bot's own runs on
that clock too, and a virtual clock jumps to it as soon as it waits: the table's catch-up of a
board picture held back (``bot.table.plan.COALESCE_S``) comes before the next press however
quick the players are. ``--real-clock`` plays on the machine's clock instead, so that presses at
once really come faster than the catch-up (a pause of ``--think-ms`` is then waited out). Before
each press the bench fires
what has fallen due meanwhile (turn notices that waited for their player) through the bot's own
deadline path, as the bot's deadline loop would have during the pause. One line per game, then
the worst of the games, but for ``calls_per_press``: the mean over every press of the three
games (the figure the goal names), then the worst game's::

    channel_posts=<x> thread_posts_per_decision=<x> board_distance_max=<x> dms_per_player=<x>
    calls_per_press=<x> calls_per_press_worst=<x> redis_commands_per_press=<x>
    uploads_per_press=<x>

(on one line; ``redis_commands_per_press`` and ``uploads_per_press`` are the totals over the
three games divided by their presses).
"""

from __future__ import annotations

import contextlib
import os
import random
import resource
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import redis.exceptions

from bench.redismeter import CommandMeter, breakdown, observer_store
from bot.commands.authority import Authority
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.runtime import picture_drawer
from bot.settings import Settings
from bot.simulate import percentile
from bot.table import Refs
from storage import GameKey, GameStore
from testkit.clock import Clock, RealClock, VirtualClock
from testkit.discord.fake import FakeDiscord, FakeUser
from testkit.discord.sim import Table, running_bot
from testkit.local_server import bench_redis
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable

__all__ = ["GAMES", "Figures", "run_table_bench"]

GAMES = {
    "bigidea": "pick_seconds=0 vote_seconds=0 turn_seconds=0",
    "biggiebills": "turn_seconds=0 block_seconds=0",
    "businessgo": "turn_seconds=0 compete_seconds=0 auction_seconds=0",
}
"""Default options but the deadlines, which would only wait for simulated players."""
DEADLINES = "deadlines"
"""The part of the Redis count spent firing what fell due (see :func:`_fire_due`)."""
POLL_S = 3600.0
"""The bot's own deadline loop: it polls on the real clock, as often on a slow machine as on a
fast one, so its claims would count the machine's speed rather than the presses; the bench
fires what falls due after every pause in its place (:func:`_fire_due`)."""
CHANNEL = 700_000_000_000_009_001
USERS = [
    FakeUser(800_000_000_000_009_000 + i, name)
    for i, name in enumerate(["alice", "bob", "carol", "dave"])
]


BOT_SEATS = 2
"""With ``--bots``: the seats bots play (the others' people press)."""

CALLBACK_GOAL_S = 1.0
"""Every interaction answered within this (Discord allows 3 s; a network adds its own)."""


def _cpu_s() -> float:
    """CPU seconds of this process and of its children, live or ended (the picture process)."""
    usage = time.process_time()
    for child in _children(os.getpid()):
        usage += _process_cpu_s(child)
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage + ended.ru_utime + ended.ru_stime


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    found.append(int(entry))
    return found


def _process_cpu_s(pid: int) -> float:
    """A live process's user and system CPU seconds (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
    uploads: int = 0
    """Board pictures uploaded (each a new file on the platform)."""
    rate: str = "max_posts_per_5s"
    """What ``max_posts_per_5s`` counts (Slack's limit is per second)."""
    commands: Counter[str] = field(default_factory=Counter)
    """Redis commands executed while the game was played, by name."""
    callbacks: list[float] = field(default_factory=list)
    """Discord: seconds from each interaction's dispatch to the bot's callback."""
    refused: int = 0
    """Calls the fake refused (a 4xx, a 429 included: each past a budget or a limit)."""
    over_global: int = 0
    """Discord: calls past the bot's 50 a second."""
    cpu_s: float = 0.0
    """CPU of this process (the bot, the fake platform, the players) and its children (the
    picture process) while the game was played."""
    deadline_commands: Counter[str] = field(default_factory=Counter)
    """Those of them run while the bench fired what was due, in the deadline loop's place."""

    @property
    def redis_per_press(self) -> float:
        """A press's own commands: the deadline loop's polling is counted apart."""
        polled = sum(self.deadline_commands.values())
        return (sum(self.commands.values()) - polled) / max(1, self.presses)

    @property
    def uploads_per_press(self) -> float:
        return self.uploads / max(1, self.presses)

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
            f"{self.rate}={self.max_posts_per_5s} "
            f"uploads_per_press={self.uploads_per_press:.2f} "
            f"redis_commands_per_press={self.redis_per_press:.2f} seconds={self.seconds:.1f}"
            f"{self.callback_figures()} refused={self.refused} "
            f"cpu_ms_per_press={self.cpu_ms_per_press:.1f}"
        )

    @property
    def cpu_ms_per_press(self) -> float:
        return self.cpu_s * 1000 / max(1, self.presses)

    def callback_figures(self) -> str:
        if not self.callbacks:
            return ""
        over = sum(1 for s in self.callbacks if s > CALLBACK_GOAL_S)
        return (
            f" callback_p50_ms={percentile(self.callbacks, 0.5) * 1000:.1f}"
            f" callback_p99_ms={percentile(self.callbacks, 0.99) * 1000:.1f}"
            f" callback_max_ms={max(self.callbacks) * 1000:.1f} callbacks_over_1s={over}"
            f" over_global={self.over_global}"
        )


async def _play_discord(
    redis_url: str,
    game: str,
    seed: int,
    think_s: float,
    meter: CommandMeter,
    clock: Clock,
    bots: str | None = None,
) -> Figures:
    store = GameStore.from_url(redis_url)
    observer = observer_store(redis_url)
    fake = await FakeDiscord(clock=clock).start()
    try:
        await observer.client.flushdb()
        settings = Settings.model_validate(
            {
                "DISCORD_GUILD_IDS": str(fake.guild_id),
                "DISCORD_API_URL": fake.api_url,
                "DISCORD_GATEWAY_URL": fake.gateway_url,
                "BOARDROOM_DEADLINE_POLL_SECONDS": POLL_S,
            }
        )
        seeds = random.Random(seed)
        authority = Authority(
            store, settings, clock=clock.wall, new_seed=lambda: seeds.getrandbits(63)
        )
        started = time.monotonic()
        cpu = 0.0
        drawer = contextlib.ExitStack()
        people = USERS[: len(USERS) - BOT_SEATS] if bots else USERS
        async with running_bot(fake, authority, settings) as client:
            if bots:
                # As a worker runs: pictures drawn, and strong bots searching, in its process.
                pool = drawer.enter_context(picture_drawer(settings))
                client.adapter.table.drawer = pool
                authority.thinker = pool
            table = Table(fake, client, CHANNEL, people, random.Random(seed), game=game)
            table.observer = observer
            await table.open(GAMES[game], bots=(BOT_SEATS, bots) if bots else None)
            if bots:
                await _check_bots(observer, bots)
            first_call = len(fake.calls)
            presses_before = table.presses
            distances = [0]

            async def measure() -> None:
                distances.append(await _below_board(fake, observer, table))

            async def fire() -> None:
                async with meter.part(counted, DEADLINES):
                    await _fire_due(authority, "discord", client.adapter.deliver)
                    # (a bot's move fired now is shown before the next press is chosen)
                    await client.adapter.settled()

            table.before_press = measure
            table.after_think = fire
            first_interaction = len(fake.interactions)
            cpu = -_cpu_s()
            async with meter.window() as counted:
                await table.play(think_s=think_s)
            await client.adapter.settled()
            cpu += _cpu_s()
        drawer.close()
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
        answered = list(fake.interactions.values())[first_interaction:]
        callbacks = [
            i.answered.result() - i.sent_at
            for i in answered
            if i.answered.done() and not i.answered.cancelled()
        ]
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
            uploads=sum(u.filename.startswith("board-") for u in fake.files.values()),
            commands=counted.by_name,
            deadline_commands=counted.parts.get(DEADLINES, Counter()),
            callbacks=callbacks,
            refused=len(fake.refused) + len(fake.rate_limited),
            over_global=fake.over_global,
            cpu_s=cpu,
        )
    finally:
        await fake.close()
        await store.close()
        await observer.close()


async def _check_bots(observer: GameStore, level: str) -> None:
    """The lobby seated the bots the bench asked for, of that level (or the bench says so)."""
    _, loaded = await observer.load(GameKey("discord", str(CHANNEL)))
    record = GameRecord.model_validate_json(loaded.data) if loaded else None
    seated = [seat.bot for seat in record.seats if seat.is_bot] if record else []
    if seated != [level] * BOT_SEATS:
        raise RuntimeError(f"the lobby seated bots {seated}, not {BOT_SEATS} of level {level}")


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


async def _play_slack(
    redis_url: str, game: str, seed: int, think_s: float, meter: CommandMeter, clock: Clock
) -> Figures:
    observer = observer_store(redis_url)
    await observer.client.flushdb()
    loop = await Loopback.start(redis_url, seed, clock=clock)
    try:
        started = time.monotonic()
        table = SlackTable.on(loop, SLACK_CHANNEL, SLACK_USERS, random.Random(seed), game)
        table.observer = observer
        await table.command(SLACK_USERS[0], f"start {GAMES[game]}")
        join = "Start a team" if game == "biggiebills" else "Join"
        for user in SLACK_USERS[1:]:
            await table.press_label(user, join, commands=True)
        await table.press_label(SLACK_USERS[0], "Begin", commands=True)
        first_press = table.stats.presses
        first_call = len(table.stats.calls)
        distances = [0]

        async def measure() -> None:
            distances.append(await _below_slack_board(loop, observer))

        async def fire() -> None:
            async with meter.part(counted, DEADLINES):
                await _fire_due(loop.authority, "slack", loop.adapter.deliver)

        cpu = -_cpu_s()
        async with meter.window() as counted:
            await table.play(think_s=think_s, after_each=measure, before_each=fire)
            await loop.adapter.settled()  # the last press's answer, delivered
        cpu += _cpu_s()
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
            uploads=sum(f.filename.startswith("board-") for f in loop.api.files.values()),
            rate="max_posts_per_s",
            commands=counted.by_name,
            deadline_commands=counted.parts.get(DEADLINES, Counter()),
            refused=len(loop.api.refused) + len(loop.api.rate_limited),
            cpu_s=cpu,
        )
    finally:
        await loop.close()
        await observer.close()


async def _below_slack_board(loop: Loopback, observer: GameStore) -> int:
    stored = await observer.table_refs(GameKey("slack", SLACK_CHANNEL))
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


async def run_table_bench(
    settings: Settings,
    adapter: str,
    seed: int,
    think_ms: float,
    games: tuple[str, ...] = tuple(GAMES),
    real_clock: bool = False,
    bots: str | None = None,
) -> int:
    """Play a game of each of ``games`` and print the figures; 0 when all finished. ``bots``:
    two seats are bots of that level (Discord only)."""
    if adapter not in ("discord", "slack"):
        print("--table goes with --adapter discord or --adapter slack")
        return 2
    if bots and adapter != "discord":
        print("--bots goes with --adapter discord")
        return 2

    async def play(
        url: str, game: str, seed: int, think_s: float, meter: CommandMeter, clock: Clock
    ) -> Figures:
        if adapter == "slack":
            return await _play_slack(url, game, seed, think_s, meter, clock)
        return await _play_discord(url, game, seed, think_s, meter, clock, bots)

    async with contextlib.AsyncExitStack() as stack:
        url = await bench_redis(stack, settings.redis_url)
        if url is None:
            return 2
        # Before any connection of the bench's: the meter sees each one name itself.
        try:
            meter = await stack.enter_async_context(CommandMeter(url))
        except (redis.exceptions.RedisError, OSError) as error:
            print(f"cannot count the Redis commands: MONITOR on {url} failed ({error})")
            return 2
        figures = []
        for game in games:
            clock: Clock = RealClock() if real_clock else VirtualClock()
            result = await play(url, game, seed, think_ms / 1000, meter, clock)
            print(result.line(), flush=True)
            figures.append(result)
    presses = sum(f.presses for f in figures)
    mean = sum(f.calls for f in figures) / max(1, presses)
    commands: Counter[str] = sum((f.commands for f in figures), Counter())
    firing: Counter[str] = sum((f.deadline_commands for f in figures), Counter())
    total = sum(commands.values())
    polled = sum(firing.values())
    print(
        f"redis commands: {total} for {presses} presses: {breakdown(commands)}; "
        f"of which {polled} firing what was due after each pause: "
        f"{breakdown(firing)} (deadline_commands_per_press={polled / max(1, presses):.2f})"
    )
    print(
        f"channel_posts={max(f.channel_posts for f in figures)} "
        f"thread_posts_per_decision={max(f.per_decision for f in figures):.2f} "
        f"board_distance_max={max(f.board_distance_max for f in figures)} "
        f"dms_per_player={max(f.dms_per_player for f in figures):.1f} "
        f"calls_per_press={mean:.2f} calls_per_press_worst={max(f.per_press for f in figures):.2f} "
        f"redis_commands_per_press={(total - polled) / max(1, presses):.2f} "
        f"uploads_per_press={sum(f.uploads for f in figures) / max(1, presses):.2f} "
        f"refused={sum(f.refused for f in figures)} "
        f"cpu_ms_per_press={sum(f.cpu_s for f in figures) * 1000 / max(1, presses):.1f}"
        + _callbacks([s for f in figures for s in f.callbacks], figures)
    )
    return 0


def _callbacks(callbacks: list[float], figures: list[Figures]) -> str:
    """Discord's callback figures over every game (none for Slack, whose requests Bolt
    acknowledges before any work)."""
    if not callbacks:
        return ""
    return (
        f" callback_p99_ms={percentile(callbacks, 0.99) * 1000:.1f}"
        f" callback_max_ms={max(callbacks) * 1000:.1f}"
        f" callbacks_over_1s={sum(1 for s in callbacks if s > CALLBACK_GOAL_S)}"
        f" over_global={sum(f.over_global for f in figures)}"
    )
