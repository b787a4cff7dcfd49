"""``boardroom bench --adapter slack --hostile``: whole games against a Slack that pushes back.

Plays one whole game of each game (four human seats, deadlines off) through the real Bolt app
over HTTP against the strict fake Slack Web API (:class:`~testkit.slack.loopback.Loopback`, a
real redis-server, the virtual clock), which rations every method per workspace at its tier and
posts at one a second per conversation (as it always does), twice: once so, and once where it
also answers :data:`LIMITED` of the bot's Web API calls with ``429 ratelimited`` at random (with
``Retry-After: 1``). The players are hostile: most presses (:data:`STALE`) are of a random choice
among everything they were ever shown on a message still there (every message with choices in
the channel, its thread, their DMs and their ephemeral messages, as posted and as each edit left
it: a lagging client's screen, a double click), so mostly stale buttons on old messages; the
others press a current choice of theirs, so that the game moves on; when nobody has a current
choice, each asks for their ``hand`` in their DM with the bot.

Then, from the fake's own log, per game:

- ``finished``: the game's record says it is over, and ``seconds``: how long it took on the
  clock (``baseline``: the same without random 429s; ``slower``: their ratio, 2 at most);
- ``dms_per_player``: messages in each player's DM conversation with the bot (posts, and
  ephemeral answers there), the panels their own ``hand`` asked for aside, the most of any
  player (3 at most);
- ``stale_answers``: the most answers saying a button was stale that one person got for one
  version of one message (1 at most: a stale press brings the pressed message up to date, so
  the same stale version is not there to be pressed again; after it the person sees the
  message as it is, which an ephemeral message shows only if the answer replaced it). A
  message can go stale again when the game moves on before its next edit, so
  ``stale_per_message`` (the most for one message, whatever version) is printed as well;
- ``refused``: calls the fake refused (an error other than a 429: Slack would not have done
  what they asked);
- ``rate_limited``: calls answered 429 (the random ones; the bot is expected to wait and retry),
  and ``over_budget``: those of them that were past a budget rather than drawn at random (0: the
  shared budget kept every method within its rate);
- ``dropped``: calls that showed something (posts, edits, ephemeral messages, deletions)
  refused or answered 429 and never followed by the same content: no later accepted call of
  the same method and place with the same text and blocks, and no newer state of the same
  surface (see :func:`dropped`).

One line per game, then (on one line)::

    dms_per_player_max=<x> stale_answers_max=<x> slower_max=<x> dropped=<n> refused=<n>
    unfinished=<n> rate_limited=<n> over_budget=<n>
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections import Counter
from dataclasses import dataclass

from bench.redismeter import observer_store
from bench.table import GAMES, SLACK_CHANNEL, SLACK_USERS, _fire_due
from bot.commands.game.moves import STALE as STALE_ANSWER
from bot.commands.record import GameRecord
from bot.settings import Settings
from storage import GameKey, GameStore
from testkit.clock import VirtualClock
from testkit.local_server import bench_redis
from testkit.slack.fake import Call, FakeSlackAPI
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable, components_of, texts

__all__ = ["LIMITED", "STALE", "Hostile", "dropped", "run_hostile_bench"]

LIMITED = 0.2
"""The share of calls answered 429 at random."""
STALE = 0.7
"""The share of presses made at random over everything visible (mostly stale)."""
MAX_PRESSES = 3000
IDLE_STEPS = 3
"""Rounds in a row with nothing current to press, everyone having asked for their hand, after
which the game counts as stalled."""
_SHOWING = ("chat.postMessage", "chat.update", "chat.postEphemeral", "chat.delete", "response_url")


@dataclass
class Hostile:
    """What one game's run measured."""

    game: str
    finished: bool
    presses: int
    dms: Counter[str]
    dm_kinds: Counter[str]
    """Those DM messages by kind: posts (a panel), private answers (ephemeral there)."""
    refused: int
    rate_limited: int
    over_budget: int
    dropped: list[Call]
    seconds: float
    """The game's length on the clock, from ``begin`` to its end."""
    stale: Counter[tuple[str, str, str, int | None]]
    """Answers saying a button was stale, by person, pressed message and the game version
    the pressed button was drawn at."""
    baseline: float = 0.0
    """The same game's length without random 429s (0: not measured)."""

    @property
    def dms_max(self) -> int:
        return max(self.dms.values(), default=0)

    @property
    def stale_max(self) -> int:
        return max(self.stale.values(), default=0)

    @property
    def stale_per_message(self) -> int:
        per: Counter[tuple[str, str, str]] = Counter()
        for (user, channel, ts, _), told in self.stale.items():
            per[(user, channel, ts)] += told
        return max(per.values(), default=0)

    @property
    def slower(self) -> float:
        return self.seconds / self.baseline if self.baseline else 0.0

    def line(self) -> str:
        dms = " ".join(f"{user}={n}" for user, n in sorted(self.dms.items()))
        return (
            f"{self.game}: finished={'yes' if self.finished else 'no'} presses={self.presses} "
            f"dms_per_player_max={self.dms_max} ({dms or 'none'}; "
            f"{', '.join(f'{n} {kind}' for kind, n in sorted(self.dm_kinds.items())) or 'none'}) "
            f"stale_answers_max={self.stale_max} stale_per_message={self.stale_per_message} "
            f"refused={self.refused} "
            f"rate_limited={self.rate_limited} over_budget={self.over_budget} "
            f"dropped={len(self.dropped)} seconds={self.seconds:.1f} "
            f"baseline={self.baseline:.1f} slower={self.slower:.2f}"
        )


def _content(call: Call) -> str:
    return json.dumps([call.args.get("text"), call.blocks], sort_keys=True)


def _place(call: Call) -> tuple[str, ...]:
    """Where a call shows what it shows: the message it edits or deletes, or the conversation
    (thread, reader) it posts in."""
    where = str(call.channel or call.args.get("channel") or "")
    if call.method in ("chat.update", "chat.delete"):
        return (where, str(call.args.get("ts") or ""))
    if call.method == "response_url":
        return (str(call.url or ""),)
    thread = str(call.args.get("thread_ts") or "")
    if call.method == "chat.postEphemeral":
        return (where, thread, str(call.args.get("user") or ""))
    return (where, thread)


def _header(call: Call) -> str | None:
    """The message's title (a header block): the surface it is (a board, a panel, a prompt)."""
    for block in call.blocks:
        if block.get("type") == "header":
            return str((block.get("text") or {}).get("text", ""))
    return None


def _versions(call: Call) -> dict[str | None, int]:
    """The newest version of the choices the call carries, by the game's channel (None: the
    conversation's own)."""
    where = str(call.channel or call.args.get("channel") or "")
    newest: dict[str | None, int] = {}
    for component in components_of(call.blocks, where, call.ts or "", False):
        press = component.press
        if press is not None and press.version is not None:
            newest[press.channel] = max(newest.get(press.channel, -1), press.version)
    return newest


def dropped(received: list[Call]) -> list[Call]:
    """The calls that showed something, refused (or answered 429), and never made good.

    A failed call is made good when a later accepted call lands the same content in the same
    place (the same message, or the same conversation, thread and reader), or when a newer
    state of the same surface supersedes it: a later accepted edit or deletion of the message
    it edited; a later accepted call in its conversation carrying the same game's choices at
    its version or a newer one (a prompt, a panel); a later accepted post or edit in its
    conversation with the same title (a board, a panel: the title says which surface it is).
    A line of the story, with neither choices nor a title, is made good only by landing.
    """
    lost = []
    for index, failed in enumerate(received):
        if failed.error is None or failed.method not in _SHOWING:
            continue
        later = (c for c in received[index + 1 :] if c.error is None and c.method in _SHOWING)
        if not any(_makes_good(failed, call) for call in later):
            lost.append(failed)
    return lost


def _makes_good(failed: Call, later: Call) -> bool:
    """Whether the accepted call ``later`` lands ``failed``'s content or supersedes it."""
    same_place = _place(later) == _place(failed)
    if later.method == failed.method and same_place:
        # The same message edited (or deleted) again, or the same content landed.
        edited = failed.method in ("chat.update", "chat.delete")
        return edited or _content(later) == _content(failed)
    if failed.method == "chat.update" and later.method == "chat.delete" and same_place:
        return True
    if _where(later) != _where(failed):
        return False
    newer = _versions(later)
    if any(newer.get(game, -1) >= version for game, version in _versions(failed).items()):
        return True
    header = _header(failed)
    return header is not None and later.method != "chat.delete" and _header(later) == header


def _where(call: Call) -> str:
    return str(call.channel or call.args.get("channel") or "")


def _in_dm(call: Call) -> str | None:
    """The player whose DM conversation an accepted call put a message in (a post, an
    ephemeral answer there), if any."""
    if call.error is not None:
        return None
    where = _where(call)
    if not where.startswith("D"):
        return None
    showing = call.method in ("chat.postMessage", "chat.postEphemeral")
    answering = call.method == "response_url" and not call.args.get("replace_original")
    return where[1:] if showing or answering else None


def _stale_answer(call: Call, user: str) -> bool:
    """Whether ``call`` told ``user`` privately that a button was stale."""
    if call.error is not None or STALE_ANSWER not in texts(call):
        return False
    if call.method == "response_url":
        return True  # (each press has a response URL of its own)
    private = call.method == "chat.postEphemeral" and call.args.get("user") == user
    return private or (call.method == "chat.postMessage" and _where(call) == f"D{user}")


async def _finished(observer: GameStore) -> bool:
    _, loaded = await observer.load(GameKey("slack", SLACK_CHANNEL))
    return loaded is not None and GameRecord.model_validate_json(loaded.data).status == "finished"


async def _play(redis_url: str, game: str, seed: int, limited: float) -> Hostile:
    observer = observer_store(redis_url)
    await observer.client.flushdb()
    clock = VirtualClock()
    loop = await Loopback.start(redis_url, seed, clock=clock)
    api: FakeSlackAPI = loop.api
    rng = random.Random(f"{seed}:{game}:hostile")
    asked: set[int] = set()
    """Indexes of the calls that answered a player's own ``hand`` in their DM."""
    stale: Counter[tuple[str, str, str, int | None]] = Counter()
    try:
        table = SlackTable.on(loop, SLACK_CHANNEL, SLACK_USERS, random.Random(seed), game)
        table.observer = observer
        table.settle_deferred = False  # hostile players press on at once
        # The lobby in peace; the pushing back starts with the game.
        await table.command(SLACK_USERS[0], f"start {GAMES[game]}")
        join = "Start a team" if game == "biggiebills" else "Join"
        for user in SLACK_USERS[1:]:
            await table.press_label(user, join, commands=True)
        await table.press_label(SLACK_USERS[0], "Begin", commands=True)
        started = clock.now()
        api.rate_limit(limited, seed=rng.getrandbits(32), retry_after=1)
        presses, idle = 0, 0

        refreshed: dict[str, set[tuple[str, str]]] = {u: set() for u in SLACK_USERS}
        """Per person, the messages their screen has caught up with: after a stale press on
        one, it shows the message as it is and follows its edits (an ephemeral message only
        if the answer replaced it)."""

        def count_stale(first: int) -> None:
            """The stale answers the newest press got (calls from ``first`` on)."""
            pressed = table.last_pressed
            if pressed is None:
                return
            user, channel, ts = pressed
            told = sum(_stale_answer(c, user) for c in api.received[first:])
            if not told:
                return
            stale[(*pressed, table.last_version)] += told
            # From now on the person's screen shows the message as it is: Slack shows every
            # edit of a message (a closed prompt, a panel edited since), but an ephemeral one
            # changes only when the answer to a press on it replaces it.
            message = api.message(channel, ts)
            updated = any(
                c.error is None and c.method == "response_url" and c.ts == ts
                for c in api.received[first:]
            )
            if message is not None and (updated or not message.ephemeral):
                refreshed[user].add((channel, ts))

        while presses < MAX_PRESSES and not await _finished(observer):
            await _fire_due(loop.authority, "slack", loop.adapter.deliver)
            first = len(api.received)
            if rng.random() < STALE:
                user = rng.choice(SLACK_USERS)
                seen = table.ever_shown(user, refreshed[user])
                if seen:
                    await table.press(user, rng.choice(seen))
                    presses += 1
                    count_stale(first)
                continue
            if await table.step():
                presses, idle = presses + 1, 0
                count_stale(first)
                continue
            idle += 1
            if idle > IDLE_STEPS:
                break  # nothing current to press, even after asking for hands: stalled
            for user in SLACK_USERS:
                first = len(api.received)
                await table.command(user, "hand", dm=True)
                asked.update(range(first, len(api.received)))
        await loop.adapter.settled()
        await loop.adapter.table.caught_up()
        seconds = clock.now() - started
        table.detach()
        calls = api.received  # the whole game, the lobby's calls included
        dms: Counter[str] = Counter()
        kinds: Counter[str] = Counter()
        for index, call in enumerate(calls):
            player = _in_dm(call)
            if player is not None and index not in asked:
                dms[player] += 1
                kinds["posts" if call.method == "chat.postMessage" else "private answers"] += 1
        limited_calls = [c for c in calls if c.error == "ratelimited"]
        return Hostile(
            game=game,
            finished=await _finished(observer),
            presses=presses,
            dms=dms,
            dm_kinds=kinds,
            refused=sum(1 for c in calls if c.error is not None and c.error != "ratelimited"),
            rate_limited=len(limited_calls),
            over_budget=api.over_budget,
            dropped=dropped(calls),
            seconds=seconds,
            stale=stale,
        )
    finally:
        await loop.close()
        await observer.close()


def _example(call: Call) -> str:
    where = str(call.channel or call.args.get("channel") or "")
    said = str(call.args.get("text") or "")[:60].replace("\n", " ")
    return f"{call.method} {where} ({call.error}): {said!r}"


async def run_hostile_bench(
    settings: Settings, seed: int, games: tuple[str, ...] = tuple(GAMES)
) -> int:
    """Play a game of each of ``games`` against the hostile Slack (and without its random 429s,
    for the time it takes) and print the figures; 0 when every game finished within twice
    that time, with nothing dropped or refused, no call past a budget, at most 3 DMs a player
    and one stale answer per person and message."""
    async with contextlib.AsyncExitStack() as stack:
        url = await bench_redis(stack, settings.redis_url)
        if url is None:
            return 2
        results: list[Hostile] = []
        for game in games:
            began = time.monotonic()
            calm = await _play(url, game, seed, 0.0)
            result = await _play(url, game, seed, LIMITED)
            result.baseline = calm.seconds if calm.finished else 0.0
            print(f"{result.line()} (real {time.monotonic() - began:.0f} s)", flush=True)
            for call in result.dropped[:3]:
                print(f"  dropped: {_example(call)}")
            results.append(result)
    lost = sum(len(r.dropped) for r in results)
    refused = sum(r.refused for r in results)
    unfinished = sum(1 for r in results if not r.finished)
    most = max((r.dms_max for r in results), default=0)
    stale = max((r.stale_max for r in results), default=0)
    slower = max((r.slower for r in results), default=0.0)
    limited = sum(r.rate_limited for r in results)
    over = sum(r.over_budget for r in results)
    print(
        f"dms_per_player_max={most} stale_answers_max={stale} slower_max={slower:.2f} "
        f"dropped={lost} refused={refused} unfinished={unfinished} rate_limited={limited} "
        f"over_budget={over}"
    )
    good = (lost, refused, unfinished, over) == (0, 0, 0, 0)
    return 0 if good and most <= 3 and stale <= 1 and 0 < slower <= 2 else 1
