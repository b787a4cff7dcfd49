"""``boardroom bench --adapter slack --hostile``: whole games against a Slack that pushes back.

Plays one whole game of each game (four human seats, deadlines off) through the real Bolt app
over HTTP against the strict fake Slack Web API (:class:`~testkit.slack.loopback.Loopback`, a
real redis-server, the virtual clock), where:

- the fake answers :data:`LIMITED` of the bot's calls with ``429 ratelimited`` at random (with
  ``Retry-After: 1``), and refuses a post into a conversation past one a second
  (:meth:`~testkit.slack.fake.FakeSlackAPI.post_limit`, thread replies counting against their
  channel);
- the players are hostile: most presses (:data:`STALE`) are of a random choice among
  everything they were ever shown on a message still there (every message with choices in the
  channel, its thread, their DMs and their ephemeral messages, as posted and as each edit left
  it: a lagging client's screen, a double click), so mostly stale buttons on old messages; the
  others press a current choice of theirs, so that the game moves on.

Then, from the fake's own log, per game:

- ``finished``: the game's record says it is over;
- ``dms_per_player``: new messages in each player's DM conversation (``chat.postMessage``
  there), the most of any player;
- ``refused``: calls the fake refused (an error other than a 429: Slack would not have done
  what they asked);
- ``rate_limited``: calls answered 429 (the bot is expected to wait and retry);
- ``dropped``: calls that showed something (posts, edits, ephemeral messages, deletions)
  refused or answered 429 and never followed by the same content: no later accepted call of
  the same method and place with the same text and blocks, and no newer state of the same
  surface (see :func:`dropped`).

One line per game, then (on one line)::

    dms_per_player_max=<x> dropped=<n> refused=<n> unfinished=<n> rate_limited=<n>
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
from bot.commands.record import GameRecord
from bot.settings import Settings
from storage import GameKey, GameStore
from testkit.clock import VirtualClock
from testkit.local_server import bench_redis
from testkit.slack.fake import Call, FakeSlackAPI
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable, components_of

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
    refused: int
    rate_limited: int
    dropped: list[Call]
    seconds: float

    @property
    def dms_max(self) -> int:
        return max(self.dms.values(), default=0)

    def line(self) -> str:
        dms = " ".join(f"{user}={n}" for user, n in sorted(self.dms.items()))
        return (
            f"{self.game}: finished={'yes' if self.finished else 'no'} presses={self.presses} "
            f"dms_per_player_max={self.dms_max} ({dms or 'none'}) refused={self.refused} "
            f"rate_limited={self.rate_limited} dropped={len(self.dropped)} "
            f"seconds={self.seconds:.1f}"
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


async def _finished(observer: GameStore) -> bool:
    _, loaded = await observer.load(GameKey("slack", SLACK_CHANNEL))
    return loaded is not None and GameRecord.model_validate_json(loaded.data).status == "finished"


async def _play(redis_url: str, game: str, seed: int) -> Hostile:
    observer = observer_store(redis_url)
    await observer.client.flushdb()
    loop = await Loopback.start(redis_url, seed, clock=VirtualClock())
    api: FakeSlackAPI = loop.api
    rng = random.Random(f"{seed}:{game}:hostile")
    try:
        started = time.monotonic()
        table = SlackTable.on(loop, SLACK_CHANNEL, SLACK_USERS, random.Random(seed), game)
        table.observer = observer
        # The lobby in peace; the pushing back starts with the game.
        await table.command(SLACK_USERS[0], f"start {GAMES[game]}")
        join = "Start a team" if game == "biggiebills" else "Join"
        for user in SLACK_USERS[1:]:
            await table.press_label(user, join, commands=True)
        await table.press_label(SLACK_USERS[0], "Begin", commands=True)
        api.rate_limit(LIMITED, seed=rng.getrandbits(32), retry_after=1)
        api.post_limit()
        presses, idle = 0, 0
        while presses < MAX_PRESSES and not await _finished(observer):
            await _fire_due(loop.authority, "slack", loop.adapter.deliver)
            if rng.random() < STALE:
                user = rng.choice(SLACK_USERS)
                seen = table.ever_shown(user)
                if seen:
                    await table.press(user, rng.choice(seen))
                    presses += 1
                continue
            if await table.step():
                presses, idle = presses + 1, 0
                continue
            idle += 1
            if idle > IDLE_STEPS:
                break  # nothing current to press, even after asking for hands: stalled
            for user in SLACK_USERS:
                await table.command(user, "hand")
        await loop.adapter.settled()
        table.detach()
        calls = api.received  # the whole game, the lobby's calls included
        dms: Counter[str] = Counter()
        for call in calls:
            where = str(call.channel or call.args.get("channel") or "")
            if call.method == "chat.postMessage" and call.error is None and where.startswith("D"):
                dms[where[1:]] += 1
        return Hostile(
            game=game,
            finished=await _finished(observer),
            presses=presses,
            dms=dms,
            refused=sum(1 for c in calls if c.error is not None and c.error != "ratelimited"),
            rate_limited=sum(1 for c in calls if c.error == "ratelimited"),
            dropped=dropped(calls),
            seconds=time.monotonic() - started,
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
    """Play a game of each of ``games`` against the hostile Slack and print the figures; 0
    when every game finished, with nothing dropped or refused and at most 3 DMs a player."""
    async with contextlib.AsyncExitStack() as stack:
        url = await bench_redis(stack, settings.redis_url)
        if url is None:
            return 2
        results: list[Hostile] = []
        for game in games:
            result = await _play(url, game, seed)
            print(result.line(), flush=True)
            for call in result.dropped[:3]:
                print(f"  dropped: {_example(call)}")
            results.append(result)
    lost = sum(len(r.dropped) for r in results)
    refused = sum(r.refused for r in results)
    unfinished = sum(1 for r in results if not r.finished)
    most = max((r.dms_max for r in results), default=0)
    limited = sum(r.rate_limited for r in results)
    print(
        f"dms_per_player_max={most} dropped={lost} refused={refused} unfinished={unfinished} "
        f"rate_limited={limited}"
    )
    return 0 if (lost, refused, unfinished) == (0, 0, 0) and most <= 3 else 1
