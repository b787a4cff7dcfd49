"""What a community remembers of its finished games: results, replays, ratings and people.

A *community* is a Discord server, a Slack workspace or the console's one community. Each has
its own keys, all under the cluster hash tag ``{community:<platform>:<community>}``, so every
script below touches one slot and runs unchanged on Redis Cluster:

| key | type | what |
| --- | --- | --- |
| ``:results`` | hash | game id -> the result record (JSON, packed like a game record) |
| ``:replays`` | hash | game id -> what rebuilds the game step by step (JSON, packed) |
| ``:recent`` | sorted set | game id by the time it ended (history, and what the sweep prunes) |
| ``:rev`` | string | rises with every write (a game recorded, swept, a person forgotten) |
| ``:ratings:<game>`` | hash | user -> their rating (JSON: mu, sigma, games, wins, name) |
| ``:board:<game>`` | sorted set | user by their shown rating (the leaderboard) |
| ``:seen:<game>`` | sorted set | user by the end of their last game of it (their rating's age) |
| ``:seen`` | sorted set | user by the end of their last game here (their name's age) |
| ``:played:<user>`` | sorted set | the games a person played, by when they ended |
| ``:people`` | hash | user -> the name they last played under |

A result is written exactly once: the save that ends the game puts it, in the same script, in
the game's own hash (field ``result``, see ``storage.store``); :func:`record` then writes it here
only if its game id is not recorded yet (and only over the ratings it was computed from), and
:func:`clear_pending` removes it from the game. A worker killed between the two leaves the
result pending in the game, where the game's deadline (armed by that same save) finds it.

**Retention.** Every key above expires ``keep`` seconds after the community's last recording
of it (a community that stops playing is forgotten whole), and the *sweep* (:func:`sweep`, a
chore the deadline loop runs when the oldest game comes due) removes, while it plays on, every
game older than that, and the name, list and ratings of each person whose last game (of that
game, for a rating) is older. Chores are kept per platform, like deadlines: a sorted set
``{chores:<platform>}:due`` of ``sweep <community>`` and ``forget <user>`` by due time, claimed
with a lease (the deadlines' own scripts).

A person's keys (``boardroom:user:{<platform>:<user>}:…``, in the slot of their list of games)
are their Home tab mark (that they opened the bot's Home tab lately, in which workspace, and a
digest of the page shown), ``:held`` (games whose record may still name them),
``:communities`` (where their results are kept) and ``:limits`` (``storage.limits``);
``forget-me`` deletes them all.

Storage knows no rules: ratings are computed by the caller, and what a forgotten person's
records become too; this module keeps them.
"""

from __future__ import annotations

import asyncio
import enum
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar, cast

import redis.exceptions
from redis.commands.core import AsyncScript

from storage.store import (
    _ARM_LUA,
    _CLAIM_LUA,
    _PREFIX,
    _RELEASE_LUA,
    GameKey,
    GameStore,
    _as_unavailable,
    _game_key,
    _held_key,
    _log_failure,
    _pack,
    _unpack,
    _user_key,
)

__all__ = [
    "SWEEP_BATCH",
    "Community",
    "Person",
    "RatingRow",
    "Recorded",
    "Rewritten",
    "Seated",
    "adopt",
    "adopted",
    "arm_chore",
    "claim_chores",
    "clear_pending",
    "communities_of",
    "drop_chore",
    "find_person",
    "forget",
    "forget_keys",
    "held_of",
    "home_marks",
    "home_shown",
    "home_updated",
    "leaderboard",
    "noted",
    "pending_result",
    "person",
    "played_all",
    "rating_inputs",
    "recent",
    "record",
    "release_chore",
    "replay_of",
    "results",
    "sweep",
    "sweep_due",
    "ttl_of",
    "unadopted",
]

_T = TypeVar("_T")


@dataclass(frozen=True)
class Community:
    """Where people play together: ``platform`` and the platform's id for the community."""

    platform: str
    community: str

    def key(self, part: str) -> str:
        return f"{_PREFIX}:{{community:{self.platform}:{self.community}}}:{part}"


class Recorded(enum.IntEnum):
    WRITTEN = 1
    CONFLICT = 0
    """The ratings changed since they were read: read them again and recompute."""
    DUPLICATE = -1
    """This game was recorded before: nothing was written."""


@dataclass(frozen=True)
class RatingRow:
    user: str
    shown: float
    data: str
    """The rating's JSON as the caller wrote it."""


@dataclass(frozen=True)
class Person:
    name: str | None
    ratings: dict[str, str]
    """game -> the rating's JSON."""
    played: list[str]
    """Game ids, newest first."""


async def _call(store: GameStore, work: Callable[[], Awaitable[_T]]) -> _T:
    """One bounded store call, its errors mapped as every GameStore call maps them."""
    try:
        async with asyncio.timeout(store.timeout_s):
            await store._ready()
            return await work()
    except TimeoutError as exc:
        cause = redis.exceptions.TimeoutError(f"Redis did not answer within {store.timeout_s} s")
        mapped = _as_unavailable(cause)
        assert mapped is not None
        _log_failure(cause, mapped)
        raise mapped from exc
    except (redis.exceptions.RedisError, OSError, AttributeError) as exc:
        mapped = _as_unavailable(exc)
        if mapped is None:
            raise
        _log_failure(exc, mapped)
        raise mapped from exc


# Redis replies come untyped (redis-py types a script's reply, and many commands', as Any): each
# cast below names the shape the script (or command) returns, with decoded responses (str).


def _script(store: GameStore, text: str) -> AsyncScript:
    """The script registered once per store (redis-py loads it on first use, and again after
    a NOSCRIPT)."""
    scripts: dict[str, AsyncScript] = store.__dict__.setdefault("_history_scripts", {})
    script = scripts.get(text)
    if script is None:
        script = scripts[text] = store.client.register_script(text)
    return script


# --- the pending result in the game's own hash --------------------------------------------------


async def pending_result(store: GameStore, key: GameKey) -> str | None:
    """The result the game's final save left to record, if it is still there."""
    client = store.client
    stored = await _call(store, lambda: client.hget(_game_key(key), "result"))
    return _unpack(cast(str, stored)) if stored else None


_CLEAR_LUA = """
local stored = redis.call('HGET', KEYS[1], 'result')
if stored == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'result')
  return 1
end
return 0
"""


async def clear_pending(store: GameStore, key: GameKey, result: str) -> bool:
    """Remove the pending result once it is recorded (only if it is still ``result``: a newer
    game's is never removed)."""
    script = _script(store, _CLEAR_LUA)
    done = await _call(store, lambda: script(keys=[_game_key(key)], args=[_pack(result)]))
    return bool(done)


# KEYS[1] = rev, KEYS[2] = results, KEYS[3] = ratings of the game; ARGV = game id, users...
_INPUTS_LUA = """
local rev = redis.call('GET', KEYS[1]) or '0'
local seen = redis.call('HEXISTS', KEYS[2], ARGV[1])
local out = {rev, seen}
for i = 2, #ARGV do
  out[#out + 1] = redis.call('HGET', KEYS[3], ARGV[i]) or ''
end
return out
"""


async def rating_inputs(
    store: GameStore, where: Community, game: str, game_id: str, users: list[str]
) -> tuple[int, bool, dict[str, str]]:
    """The community's revision, whether ``game_id`` is recorded already, and the stored
    ratings (JSON) of ``users`` in ``game`` (those that have one)."""
    keys = [where.key("rev"), where.key("results"), where.key(f"ratings:{game}")]
    script = _script(store, _INPUTS_LUA)
    # The revision, whether the game is recorded (0 or 1), then one rating ('' none) per user.
    reply = cast(
        list[str | int], await _call(store, lambda: script(keys=keys, args=[game_id, *users]))
    )
    ratings = {user: str(data) for user, data in zip(users, reply[2:], strict=True) if data}
    return int(reply[0]), bool(int(reply[1])), ratings


# --- recording ----------------------------------------------------------------------------------

# KEYS = rev, results, replays, recent, ratings, board, people, seen, seen of the game, then one
# played set per person. ARGV = game id, ended at, record, replay, expected rev, cutoff (a
# person's list drops what ended before), keep (s: every key written expires that long after),
# then per person (in the order of their played keys): user, name, rating JSON ('' unrated),
# shown rating.
_RECORD_LUA = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return -1 end
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[5] then return 0 end
local ended = tonumber(ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[4]) end
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
local function latest(key, user)
  local last = redis.call('ZSCORE', key, user)
  if (not last) or tonumber(last) < ended then redis.call('ZADD', key, ARGV[2], user) end
end
local n = 0
for i = 10, #KEYS do
  local at = 8 + n * 4
  local user, name, rating, shown = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3]
  redis.call('ZADD', KEYS[i], ARGV[2], ARGV[1])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. ARGV[6])
  redis.call('EXPIRE', KEYS[i], ARGV[7])
  if name ~= '' then redis.call('HSET', KEYS[7], user, name) end
  latest(KEYS[8], user)
  if rating ~= '' then
    redis.call('HSET', KEYS[5], user, rating)
    redis.call('ZADD', KEYS[6], shown, user)
    latest(KEYS[9], user)
  end
  n = n + 1
end
redis.call('INCR', KEYS[1])
for i = 1, 9 do redis.call('EXPIRE', KEYS[i], ARGV[7]) end
return 1
"""


@dataclass(frozen=True)
class Seated:
    """One person of a recorded game, with their new rating (None: the game was not rated)."""

    user: str
    name: str
    rating: str | None = None
    shown: float = 0.0


async def record(
    store: GameStore,
    where: Community,
    *,
    game: str,
    game_id: str,
    ended_at: float,
    result: str,
    replay: str,
    people: list[Seated],
    expected_rev: int,
    keep_s: float,
) -> Recorded:
    """Write the result of ``game_id`` (and the ratings computed from revision
    ``expected_rev``) unless it is recorded already. Every key it writes expires ``keep_s``
    after (a community that stops playing keeps nothing longer); what is older goes by
    :func:`sweep`, which the caller schedules (:func:`arm_chore`)."""
    keys = [
        where.key("rev"),
        where.key("results"),
        where.key("replays"),
        where.key("recent"),
        where.key(f"ratings:{game}"),
        where.key(f"board:{game}"),
        where.key("people"),
        where.key("seen"),
        where.key(f"seen:{game}"),
        *(where.key(f"played:{p.user}") for p in people),
    ]
    args: list[str | float | int] = [
        game_id,
        repr(ended_at),
        _pack(result),
        _pack(replay) if replay else "",
        str(expected_rev),
        repr(ended_at - keep_s),
        max(1, math.ceil(keep_s)),
    ]
    for p in people:
        args += [p.user, p.name, p.rating or "", repr(p.shown)]
    script = _script(store, _RECORD_LUA)
    return Recorded(int(await _call(store, lambda: script(keys=keys, args=args))))


# --- the sweep: history leaves on time ----------------------------------------------------------

# KEYS = rev, results, replays, recent, people, seen, then per game ratings, board and seen of
# it, then the played set of each user of ARGV. ARGV = cutoff, number of games, number of ids,
# the ids of old games, then the users (people of the old games, people last seen before the
# cutoff). Everything is checked again here (a game recorded meanwhile keeps its people).
# Returns the end time of the oldest game or person left ('' when nothing is left).
_SWEEP_LUA = """
local cutoff = tonumber(ARGV[1])
local ngames, nids = tonumber(ARGV[2]), tonumber(ARGV[3])
local changed = 0
local function old(key, member)
  local at = redis.call('ZSCORE', key, member)
  return at and tonumber(at) < cutoff
end
for i = 1, nids do
  local id = ARGV[3 + i]
  if old(KEYS[4], id) then
    changed = 1
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], id)
    redis.call('ZREM', KEYS[4], id)
  end
end
local oldest = {}
local function first(key)
  local top = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if top[2] then oldest[#oldest + 1] = tonumber(top[2]) end
end
for g = 0, ngames - 1 do
  local ratings, board, seen = KEYS[7 + g * 3], KEYS[8 + g * 3], KEYS[9 + g * 3]
  local stale = redis.call('ZRANGEBYSCORE', seen, '-inf', '(' .. ARGV[1], 'LIMIT', 0, 100)
  for i = 1, #stale do
    changed = 1
    redis.call('HDEL', ratings, stale[i])
    redis.call('ZREM', board, stale[i])
    redis.call('ZREM', seen, stale[i])
  end
  first(seen)
end
local base = 6 + ngames * 3
for j = 1, #KEYS - base do
  local user, played = ARGV[3 + nids + j], KEYS[base + j]
  changed = changed + redis.call('ZREMRANGEBYSCORE', played, '-inf', '(' .. ARGV[1])
  local last = redis.call('ZSCORE', KEYS[6], user)
  if (not last) or tonumber(last) < cutoff then
    changed = 1
    redis.call('HDEL', KEYS[5], user)
    redis.call('ZREM', KEYS[6], user)
    redis.call('DEL', played)
  end
end
if changed > 0 then redis.call('INCR', KEYS[1]) end
first(KEYS[4])
first(KEYS[6])
if #oldest == 0 then return '' end
return tostring(math.min(unpack(oldest)))
"""


SWEEP_BATCH = 100
"""Games (and people last seen) one sweep removes at most: a full batch means more are due."""


async def sweep_due(
    store: GameStore, where: Community, cutoff: float
) -> tuple[list[str], list[str], dict[str, str]]:
    """What a sweep at ``cutoff`` removes: the ids of up to :data:`SWEEP_BATCH` games that
    ended before it, of as many people last seen before it, and those games' results (whose
    people the caller names to :func:`sweep`, which takes the old games off their lists)."""
    client = store.client
    pipe = client.pipeline(transaction=False)
    pipe.zrangebyscore(where.key("recent"), "-inf", f"({cutoff!r}", start=0, num=SWEEP_BATCH)
    pipe.zrangebyscore(where.key("seen"), "-inf", f"({cutoff!r}", start=0, num=SWEEP_BATCH)
    ids, stale = cast(tuple[list[str], list[str]], await _call(store, pipe.execute))
    found = await results(store, where, [str(i) for i in ids])
    return [str(i) for i in ids], [str(u) for u in stale], found


async def sweep(
    store: GameStore,
    where: Community,
    games: list[str],
    cutoff: float,
    ids: list[str],
    users: list[str],
) -> float | None:
    """Remove the games ``ids`` that ended before ``cutoff`` (result, replay, their place in
    the lists of ``users``), and of ``users`` those last seen before it (name, list); of each
    of ``games``, the ratings of people whose last game of it ended before it. Each is checked
    again in the script (a game recorded meanwhile keeps its people). Returns when the oldest
    game or person left ended (None: nothing is left)."""
    keys = [
        where.key("rev"),
        where.key("results"),
        where.key("replays"),
        where.key("recent"),
        where.key("people"),
        where.key("seen"),
    ]
    for game in games:
        keys += [
            where.key(f"ratings:{game}"),
            where.key(f"board:{game}"),
            where.key(f"seen:{game}"),
        ]
    keys += [where.key(f"played:{user}") for user in users]
    args: list[str | int] = [repr(cutoff), len(games), len(ids), *ids, *users]
    script = _script(store, _SWEEP_LUA)
    left = str(await _call(store, lambda: script(keys=keys, args=args)))
    return float(left) if left else None


# --- reading ------------------------------------------------------------------------------------


async def leaderboard(store: GameStore, where: Community, game: str, top: int) -> list[RatingRow]:
    """The ``top`` best rated people of ``game``, best first (one round trip)."""
    board, ratings = where.key(f"board:{game}"), where.key(f"ratings:{game}")
    script = _script(store, _BOARD_LUA)
    # (user, score, rating JSON) three at a time.
    reply = cast(list[str], await _call(store, lambda: script(keys=[board, ratings], args=[top])))
    rows = []
    for i in range(0, len(reply), 3):
        rows.append(RatingRow(str(reply[i]), float(reply[i + 1]), str(reply[i + 2])))
    return rows


_BOARD_LUA = """
local top = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #top, 2 do
  out[#out + 1] = top[i]
  out[#out + 1] = top[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], top[i]) or '{}'
end
return out
"""

# KEYS = people, played, then ratings of each game; ARGV = user, cutoff, how many games
_PERSON_LUA = """
local out = {redis.call('HGET', KEYS[1], ARGV[1]) or ''}
out[2] = redis.call('ZREVRANGEBYSCORE', KEYS[2], '+inf', ARGV[2], 'LIMIT', 0, ARGV[3])
for i = 3, #KEYS do
  out[#out + 1] = redis.call('HGET', KEYS[i], ARGV[1]) or ''
end
return out
"""


async def person(
    store: GameStore, where: Community, user: str, games: list[str], since: float, count: int
) -> Person:
    """A person's name, ratings (by game) and their ``count`` latest games since ``since``."""
    keys = [
        where.key("people"),
        where.key(f"played:{user}"),
        *(where.key(f"ratings:{g}") for g in games),
    ]
    script = _script(store, _PERSON_LUA)
    args: list[str | int] = [user, repr(since), count]
    # The name ('' none), the person's game ids, then one rating ('' none) per game.
    reply = cast(list[str | list[str]], await _call(store, lambda: script(keys=keys, args=args)))
    ratings = {g: str(r) for g, r in zip(games, reply[2:], strict=True) if r}
    return Person(name=str(reply[0]) or None, ratings=ratings, played=[str(i) for i in reply[1]])


async def find_person(store: GameStore, where: Community, wanted: str) -> str | None:
    """The user whose id is ``wanted``, or whose name is (ignoring case), if any."""
    client = store.client
    people = cast(dict[str, str], await _call(store, lambda: client.hgetall(where.key("people"))))
    if wanted in people:
        return wanted
    folded = wanted.casefold()
    return next((user for user, name in people.items() if name.casefold() == folded), None)


async def recent(store: GameStore, where: Community, since: float, count: int) -> list[str]:
    """The ids of the community's ``count`` latest games that ended since ``since``."""
    client = store.client
    ids = await _call(
        store,
        lambda: client.zrevrangebyscore(where.key("recent"), "+inf", since, start=0, num=count),
    )
    return [str(i) for i in ids]


async def results(store: GameStore, where: Community, ids: list[str]) -> dict[str, str]:
    """The stored result records of ``ids`` (those still kept)."""
    if not ids:
        return {}
    client = store.client
    found = cast(
        list[str | None], await _call(store, lambda: client.hmget(where.key("results"), ids))
    )
    return {i: _unpack(str(r)) for i, r in zip(ids, found, strict=True) if r}


async def replay_of(store: GameStore, where: Community, game_id: str) -> tuple[str, str] | None:
    """The result record and the replay of ``game_id``, if both are still kept."""
    client = store.client
    pipe = client.pipeline(transaction=False)
    pipe.hget(where.key("results"), game_id)
    pipe.hget(where.key("replays"), game_id)
    found = cast(list[str | None], await _call(store, pipe.execute))
    if not found[0] or not found[1]:
        return None
    return _unpack(str(found[0])), _unpack(str(found[1]))


# --- communities recorded before retention: adopted once -------------------------------------


def _adopted_key(platform: str) -> str:
    return f"{_PREFIX}:{{chores:{platform}}}:adopted"


async def unadopted(store: GameStore, platform: str) -> list[str]:
    """The communities of ``platform`` with a history to adopt (see :func:`adopt`); none once
    :func:`adopted` said they all were (workers starting at once may both adopt: it is done
    so that twice changes nothing)."""
    client = store.client
    if await _call(store, lambda: client.exists(_adopted_key(platform))):
        return []
    prefix = f"{_PREFIX}:{{community:{platform}:"
    found: list[str] = []

    async def scan() -> None:
        async for key in client.scan_iter(match=f"{prefix}*}}:recent", count=1000):
            found.append(str(key)[len(prefix) :].removesuffix("}:recent"))

    await _call(store, scan)
    return sorted(set(found))


async def adopted(store: GameStore, platform: str) -> None:
    """Every community of ``platform`` recorded before retention has been adopted."""
    client = store.client
    await _call(store, lambda: client.set(_adopted_key(platform), "1"))


async def adopt(store: GameStore, where: Community, games: list[str], keep_s: float) -> None:
    """A community recorded before retention was kept: each person gets the time of their
    last game there (from their list; none left: long ago) and of each game's, and every key
    a TTL, so that the sweep and the expiry treat it as any other."""
    client = store.client
    ttl = max(1, math.ceil(keep_s))
    people = cast(dict[str, str], await _call(store, lambda: client.hgetall(where.key("people"))))

    async def last_games() -> list[list[tuple[str, float]]]:
        pipe = client.pipeline(transaction=False)
        for user in people:
            pipe.zrevrange(where.key(f"played:{user}"), 0, 0, withscores=True)
        for game in games:
            pipe.hkeys(where.key(f"ratings:{game}"))
        return cast(list[list[tuple[str, float]]], await pipe.execute())

    found = await _call(store, last_games)
    last = {
        user: float(top[0][1]) if top else 0.0 for user, top in zip(people, found, strict=False)
    }
    rated = cast(list[list[str]], found[len(people) :])

    async def write() -> None:
        pipe = client.pipeline(transaction=False)
        if last:
            pipe.zadd(where.key("seen"), last, nx=True)
        for game, users in zip(games, rated, strict=True):
            if users:
                pipe.zadd(where.key(f"seen:{game}"), {u: last.get(u, 0.0) for u in users}, nx=True)
        keys = ["rev", "results", "replays", "recent", "people", "seen"]
        for game in games:
            keys += [f"ratings:{game}", f"board:{game}", f"seen:{game}"]
        for part in keys:
            pipe.expire(where.key(part), ttl, nx=True)
        await pipe.execute()

    await _call(store, write)


# --- forgetting ---------------------------------------------------------------------------------


async def played_all(
    store: GameStore, where: Community, user: str
) -> tuple[int, dict[str, tuple[str | None, str | None]]]:
    """The revision, and every kept game of ``user`` with its result and replay (for forget)."""
    client = store.client
    pipe = client.pipeline(transaction=False)
    pipe.get(where.key("rev"))
    pipe.zrange(where.key(f"played:{user}"), 0, -1)
    rev, ids = cast(tuple[str | None, list[str]], await _call(store, pipe.execute))
    found: dict[str, tuple[str | None, str | None]] = {}
    if ids:
        pipe = client.pipeline(transaction=False)
        pipe.hmget(where.key("results"), ids)
        pipe.hmget(where.key("replays"), ids)
        records, replays = cast(
            tuple[list[str | None], list[str | None]], await _call(store, pipe.execute)
        )
        for game_id, rec, rep in zip(ids, records, replays, strict=True):
            found[str(game_id)] = (
                _unpack(str(rec)) if rec else None,
                _unpack(str(rep)) if rep else None,
            )
    return int(rev or 0), found


# KEYS = rev, results, replays, people, played, seen, then ratings, board and seen of each game.
# ARGV = expected rev, user, then per game id: id, record ('' keep it), replay ('' keep it),
# '1' to delete the replay (it could not be kept without the person).
_FORGET_LUA = """
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 0 end
for i = 3, #ARGV, 4 do
  if ARGV[i + 1] ~= '' then redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
  if ARGV[i + 3] == '1' then
    redis.call('HDEL', KEYS[3], ARGV[i])
  elseif ARGV[i + 2] ~= '' then
    redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 2])
  end
end
redis.call('HDEL', KEYS[4], ARGV[2])
redis.call('DEL', KEYS[5])
redis.call('ZREM', KEYS[6], ARGV[2])
for k = 7, #KEYS, 3 do
  redis.call('HDEL', KEYS[k], ARGV[2])
  redis.call('ZREM', KEYS[k + 1], ARGV[2])
  redis.call('ZREM', KEYS[k + 2], ARGV[2])
end
redis.call('INCR', KEYS[1])
return 1
"""

Rewritten = tuple[str | None, str | None, bool]
"""A game's result and replay without the person (None: unchanged), and whether its replay
goes (it could not be kept without them)."""


async def forget(
    store: GameStore,
    where: Community,
    user: str,
    games: list[str],
    expected_rev: int,
    rewritten: dict[str, Rewritten],
) -> bool:
    """Delete ``user``'s ratings, name and list of games, and store their games' results and
    replays as ``rewritten``, in one script; False when the community changed since
    ``expected_rev`` was read (read again and retry)."""
    keys = [
        where.key("rev"),
        where.key("results"),
        where.key("replays"),
        where.key("people"),
        where.key(f"played:{user}"),
        where.key("seen"),
    ]
    for game in games:
        keys += [
            where.key(f"ratings:{game}"),
            where.key(f"board:{game}"),
            where.key(f"seen:{game}"),
        ]
    args: list[str] = [str(expected_rev), user]
    for game_id, (rec, rep, drop) in rewritten.items():
        args += [game_id, _pack(rec) if rec else "", _pack(rep) if rep else "", "1" if drop else ""]
    script = _script(store, _FORGET_LUA)
    return bool(await _call(store, lambda: script(keys=keys, args=args)))


# --- a person's own keys ------------------------------------------------------------------------


def _person_key(platform: str, user: str, part: str) -> str:
    """One of a person's keys, in the slot of their list of games."""
    return f"{_PREFIX}:user:{{{platform}:{user}}}:{part}"


async def held_of(store: GameStore, platform: str, user: str) -> list[GameKey]:
    """The games that may still name ``user`` though they no longer sit in them (see
    :meth:`~storage.store.GameStore.index_user`)."""
    client = store.client
    members = cast(set[str], await _call(store, lambda: client.smembers(_held_key(platform, user))))
    return sorted((GameKey.parse(m) for m in members), key=str)


async def noted(
    store: GameStore, where: Community, users: list[str], keep_s: float, sweep_at: float
) -> None:
    """Before a result of ``where`` is written: it goes on each of ``users``'s list of the
    communities keeping their results (what ``forget-me`` reads, wherever it is asked), which
    expires ``keep_s`` after; and the community's sweep is due no later than ``sweep_at``. One
    round trip (a pipeline; on a cluster, one per node)."""
    client = store.client
    ttl = max(1, math.ceil(keep_s))
    due, _leases = _chores(where.platform)

    async def write() -> None:
        pipe = client.pipeline(transaction=False)
        for user in users:
            pipe.sadd(_person_key(where.platform, user, "communities"), where.community)
            pipe.expire(_person_key(where.platform, user, "communities"), ttl)
        pipe.zadd(due, {f"sweep {where.community}": sweep_at}, lt=True)
        await pipe.execute()

    await _call(store, write)


async def communities_of(store: GameStore, platform: str, user: str) -> list[str]:
    """The communities where ``user`` has results kept (see :func:`note_community`)."""
    client = store.client
    key = _person_key(platform, user, "communities")
    return sorted(cast(set[str], await _call(store, lambda: client.smembers(key))))


async def forget_keys(
    store: GameStore, platform: str, user: str, *, keep_games: bool, keep_held: bool
) -> None:
    """Delete the person's own keys: their Home tab mark, their communities and limits, and
    unless kept, their list of games (``keep_games``: they still play) and of the games that
    held them (``keep_held``: one is still to be erased). All in one slot."""
    client = store.client
    keys = [
        _home_key(platform, user),
        _person_key(platform, user, "communities"),
        _person_key(platform, user, "limits"),
    ]
    if not keep_games:
        keys.append(_user_key(platform, user))
    if not keep_held:
        keys.append(_held_key(platform, user))
    await _call(store, lambda: client.delete(*keys))


# --- chores: the sweep and forget-me, due at a time, claimed with a lease -----------------------


def _chores(platform: str) -> list[str]:
    return [f"{_PREFIX}:{{chores:{platform}}}:due", f"{_PREFIX}:{{chores:{platform}}}:lease"]


async def arm_chore(store: GameStore, platform: str, chore: str, due: float) -> None:
    """Make sure ``chore`` is done no later than ``due`` (an earlier time stands)."""
    script = _script(store, _ARM_LUA)
    args = [chore, repr(due), ""]
    await _call(store, lambda: script(keys=_chores(platform), args=args))


async def claim_chores(
    store: GameStore, platform: str, now: float, lease_s: float, token: str, limit: int = 20
) -> list[str]:
    """Take up to ``limit`` chores due by ``now``, each for ``lease_s`` (as deadlines are)."""
    script = _script(store, _CLAIM_LUA)
    args: list[str | float | int] = [now, limit, now + lease_s, token]
    return [str(c) for c in await _call(store, lambda: script(keys=_chores(platform), args=args))]


async def release_chore(
    store: GameStore, platform: str, chore: str, token: str, due: float | None
) -> None:
    """End the claim ``token`` of ``chore``, due again at ``due`` (None: it is done)."""
    script = _script(store, _RELEASE_LUA)
    args = [chore, token, "" if due is None else repr(due)]
    await _call(store, lambda: script(keys=_chores(platform), args=args))


async def drop_chore(store: GameStore, platform: str, chore: str) -> None:
    """``chore`` is done (by whoever held it, or nobody)."""
    client = store.client
    due, leases = _chores(platform)

    async def drop() -> None:
        pipe = client.pipeline(transaction=False)
        pipe.zrem(due, chore)
        pipe.hdel(leases, chore)
        await pipe.execute()

    await _call(store, drop)


# --- a person's home page -----------------------------------------------------------------------


def _home_key(platform: str, user: str) -> str:
    """That the person opened their home page lately: ``<community> <digest of what it shows>``
    (in the slot of their list of games)."""
    return f"{_PREFIX}:user:{{{platform}:{user}}}:home"


async def home_shown(
    store: GameStore, platform: str, user: str, community: str, digest: str, ttl_s: int
) -> None:
    """The person opened their home page (in ``community``) and it shows ``digest``: their
    page is kept up to date for ``ttl_s``."""
    client = store.client
    mark = f"{community} {digest}"
    await _call(store, lambda: client.set(_home_key(platform, user), mark, ex=ttl_s))


async def home_marks(
    store: GameStore, platform: str, users: list[str]
) -> dict[str, tuple[str, str]]:
    """Of ``users``, those who opened their home page lately: user -> (community, digest of
    what it shows). One round trip (per node, on a cluster)."""
    if not users:
        return {}
    client = store.client

    async def read() -> list[str | None]:
        pipe = client.pipeline(transaction=False)
        for user in users:
            pipe.get(_home_key(platform, user))
        return cast(list[str | None], await pipe.execute())

    found = await _call(store, read)
    marks = {}
    for user, mark in zip(users, found, strict=True):
        if mark:
            community, _, digest = str(mark).partition(" ")
            marks[user] = (community, digest)
    return marks


async def home_updated(
    store: GameStore, platform: str, user: str, community: str, digest: str
) -> None:
    """The person's home page now shows ``digest``: kept only while their mark stands (a mark
    expired, or deleted by ``forget-me``, is not made again), with its time left."""
    client = store.client
    mark = f"{community} {digest}"
    await _call(store, lambda: client.set(_home_key(platform, user), mark, xx=True, keepttl=True))


async def ttl_of(store: GameStore, key: GameKey) -> int:
    """Seconds the game's record has left (0 when it has no expiry or is gone)."""
    client = store.client
    left = int(await _call(store, lambda: client.ttl(_game_key(key))))
    return max(0, left)
