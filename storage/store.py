"""Versioned game blobs, action logs, deadlines, de-duplication and user indexes in Redis.

Storage knows nothing about game rules: a game is an opaque JSON string plus an integer version.
Every key of one game carries the cluster hash tag ``{<platform>:<channel>}`` so the game hash and
its log stream live in one slot; the Lua scripts below therefore run on Redis Cluster unchanged.
"""

from __future__ import annotations

import asyncio
import base64
import enum
import functools
import hashlib
import json
import logging
import os
import re
import time
import zlib
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import NamedTuple, ParamSpec, Self, TypeVar, cast

import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, NoBackoff

__all__ = [
    "BudgetLimit",
    "GameKey",
    "GameStore",
    "History",
    "Loaded",
    "SaveResult",
    "StorageBusy",
    "StorageFull",
    "StorageRefused",
    "StorageUnavailable",
]

log = logging.getLogger(__name__)

_PREFIX = "boardroom"
# A game's log holds at most this many entries past its latest snapshot (see _SAVE_LUA).
_SNAPSHOT_EVERY = 1000

DEFAULT_TIMEOUT_S = 2.0
"""How long one store call may wait for Redis, whatever it takes inside (see ``GameStore``)."""
# The socket timeouts (connecting, each read and write) are this share of a call's bound, so
# that a read that hangs fails inside redis-py, which then does what a timeout calls for (its
# cluster client marks the layout to be read again, from another node than the one that hung,
# and tries again with what is left of the bound), rather than being cut short by the bound:
# cut short, the cluster client would keep sending to a frozen master after its replica took
# over, call after call.
_SOCKET_SHARE = 0.75
_HEALTH_CHECK_INTERVAL_S = 30
# Tries again after a connection error only: one that fails at once (a connection the server
# closed when it restarted, a refused connect), where the next try, on a fresh connection, works.
# Never after a timeout: a Redis that did not answer within the timeout will not answer the next
# try either, and redis-py nests its tries (a command's tries each reconnect with tries of their
# own, and the health check PING before a command has its own), so retried timeouts multiplied
# one 2 s timeout into 19 s of waiting with Redis frozen.
_RETRIES = 2
_RETRY_ON = (redis.exceptions.ConnectionError,)
# On a cluster each retry first re-reads the cluster's layout (redis-py's RedisCluster); a
# failover takes a few seconds, longer than an interaction can wait, so the store says
# "unavailable" quickly and the next call, after the layout changed, finds the new master.
# (The cluster client retries timeouts too, whatever its Retry says; the store's own bound on
# each call ends those tries.)
_CLUSTER_RETRIES = 2
# redis-py's cluster client opens at most this many connections per node and then fails at once
# (MaxConnectionsError) rather than waiting (it has no blocking pool), so this is far above what
# one worker's bounded in-flight work needs.
_CLUSTER_MAX_CONNECTIONS = 1000
DEFAULT_POOL_SIZE = 64
"""Connections one worker opens to one Redis at most (``BOARDROOM_REDIS_POOL_SIZE``); a call
that finds them all lent waits for one (see :class:`_Pool`)."""
_NO_CONNECTION = "No connection available."
"""What redis-py's blocking pool raises (a ConnectionError) when its wait ends with none free."""
# Bytes that are not UTF-8 in a reply (a record damaged in Redis, or written by hand) are read
# as U+FFFD rather than failing inside redis-py's reply parser: what holds them is then text
# its reader cannot read, which takes the damaged-record path like any other unreadable record.
_ENCODING_ERRORS = "replace"


@dataclass(frozen=True)
class GameKey:
    """Identifies the one game a channel holds: ``platform:channel``."""

    platform: str
    channel: str

    def __post_init__(self) -> None:
        # A ':' in the platform would make parse() split in the wrong place.
        if not self.platform or ":" in self.platform:
            raise ValueError(f"invalid platform {self.platform!r}")
        if not self.channel:
            raise ValueError("channel must not be empty")

    def __str__(self) -> str:
        return f"{self.platform}:{self.channel}"

    @classmethod
    def parse(cls, text: str) -> GameKey:
        """Inverse of ``str()``; the channel part may itself contain ':'."""
        platform, sep, channel = text.partition(":")
        if not sep:
            raise ValueError(f"not a game key: {text!r}")
        return cls(platform, channel)


class SaveResult(enum.IntEnum):
    """What :meth:`GameStore.save` did."""

    WRITTEN = 1
    CONFLICT = 0
    """Someone else saved first: nothing was written; reload and try again."""
    DUPLICATE = -1
    """This delivery's move was saved before (by another worker, or by a lost reply's retry)."""


@dataclass
class History:
    """A game's log: the record saved with its latest snapshot (None: the log is whole since
    ``begin``) and the action lines after it."""

    snapshot: str | None = None
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Loaded:
    """A stored game: its version and the JSON blob exactly as saved."""

    version: int
    data: str


class StorageUnavailable(Exception):
    """Redis could not be reached or did not do what was asked; ``str()`` is a sentence safe to
    show to a player (subclasses say why when it is not a passing outage)."""

    MESSAGE = "Storage is unavailable, try again shortly."

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.MESSAGE)


class StorageFull(StorageUnavailable):
    """Redis refused a write because it reached ``maxmemory`` (with ``noeviction``)."""

    MESSAGE = (
        "The game store is full right now, so nothing was changed; please tell the bot's operator."
    )


class StorageBusy(StorageUnavailable):
    """Every connection to Redis was lent to other calls for as long as this one could wait:
    Redis answers, this worker has more work in flight than its pool (``pool exhausted`` in
    the log and ``boardroom_redis_pool_exhausted_total``)."""

    MESSAGE = "The game store is busy right now, so nothing was changed; please try again."


class StorageRefused(StorageUnavailable):
    """Redis refused a command for a reason only its operator can fix (permissions, a failing
    disk); waiting does not help."""

    MESSAGE = "The game store refused that, so nothing was changed; please tell the bot's operator."


_RE = redis.exceptions
# Outages: the server (or, on a cluster, a node or the slot's master) cannot be reached or cannot
# serve right now, and the same call works again once it can. redis-py wraps socket failures in
# its own ConnectionError/TimeoutError (loading, too many connections and failed authentication
# are ConnectionErrors too), but a raw OSError can still escape from DNS or connect paths.
# Cluster: ClusterError covers CLUSTERDOWN, MASTERDOWN and "TTL exhausted" (too many
# redirections); MOVED/ASK/TRYAGAIN escape when redirections outlast redis-py's retries (a
# resharding or failover in progress); READONLY is a master that just became a replica;
# RedisClusterException is the client failing to learn the layout ("cannot be connected", a slot
# not covered). redis-py's cluster client re-reads the layout on its next call after each of these,
# so recovery needs nothing from us.
_OUTAGES: tuple[type[BaseException], ...] = (
    _RE.ConnectionError,
    _RE.TimeoutError,
    OSError,
    _RE.InvalidResponse,
    _RE.ClusterError,
    _RE.AskError,
    _RE.TryAgainError,
    _RE.ReadOnlyError,
    _RE.RedisClusterException,
)
# Never an outage: keys of one call in different slots is a bug in this module, which waiting would
# not fix and a test must see.
_BUGS: tuple[type[BaseException], ...] = (
    _RE.ClusterCrossSlotError,
    _RE.CrossSlotTransactionError,
    _RE.InvalidPipelineStack,
)
# Other command errors, by the code the reply starts with. "ERR" (bad arguments, an unknown
# command, a failing script), WRONGTYPE, NOSCRIPT and codes not listed are left as they are: they
# are bugs or a server too old for a command, not a state of the server, and must show in logs
# and tests rather than pass for an outage. (redis-py keeps the code in the text of codes it has
# no class for, and drops it, "ERR" included, from the others, whose class then says it.)
_FULL_CODES = frozenset({"OOM"})
_BUSY_CODES = frozenset({"BUSY", "NOREPLICAS", "LOADING", "READONLY", "MASTERDOWN", "CLUSTERDOWN"})
_REFUSED_CODES = frozenset({"MISCONF", "NOPERM", "NOAUTH", "WRONGPASS"})
# redis-py prefixes an error inside a pipeline with the command, and Redis < 7 wraps an error of a
# command inside a script: "Error running script (call to f_..): @user_script:5: -OOM ...".
_PIPELINE_PREFIX = re.compile(r"^Command # \d+ \(.*?\) of pipeline caused error: \(?['\"]?", re.S)
_SCRIPT_INNER = re.compile(r"Error running script .*?@user_script: ?\d+: -([A-Z]+) ", re.S)
# Redis 7 reports an ACL refusal inside a script as a plain ERR with this text.
_SCRIPT_ACL = "The user executing the script can't run this command"


def _error_code(exc: _RE.ResponseError) -> str:
    text = _PIPELINE_PREFIX.sub("", str(exc.args[0]) if exc.args else "")
    inner = _SCRIPT_INNER.search(text)
    if inner:
        return inner.group(1)
    if text.startswith(_SCRIPT_ACL):
        return "NOPERM"
    return text.split(" ", 1)[0]


_REDIS_PY = os.path.dirname(redis.exceptions.__file__) + os.sep


def _raised_in_redis_py(exc: BaseException) -> bool:
    """Whether the innermost frame of ``exc`` is redis-py's own code."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename.startswith(_REDIS_PY)


def _as_unavailable(exc: BaseException) -> StorageUnavailable | None:
    """The StorageUnavailable that ``exc`` from redis-py means, or None to let it through."""
    if isinstance(exc, AttributeError):
        # redis-py's cluster client (8.1) can drop a connection that another task is opening
        # when commands race its (re)initialization ("'NoneType' object has no attribute
        # 'writelines'"); ``_ready`` avoids most of it, and the next call is fine: an outage.
        return StorageUnavailable() if _raised_in_redis_py(exc) else None
    if isinstance(exc, _BUGS):
        return None
    if isinstance(exc, _RE.MaxConnectionsError) or (
        type(exc) is _RE.ConnectionError and str(exc) == _NO_CONNECTION
    ):
        return StorageBusy()
    if isinstance(exc, _RE.OutOfMemoryError):
        return StorageFull()
    if isinstance(exc, (_RE.NoPermissionError, _RE.AuthenticationError, _RE.AuthorizationError)):
        return StorageRefused()
    if isinstance(exc, _OUTAGES):
        return StorageUnavailable()
    if isinstance(exc, _RE.ResponseError):
        code = _error_code(exc)
        if code in _FULL_CODES:
            return StorageFull()
        if code in _REFUSED_CODES:
            return StorageRefused()
        if code in _BUSY_CODES:
            return StorageUnavailable()
    return None


def _is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` is a passing outage (not a refusal, not a bug)."""
    return type(_as_unavailable(exc)) is StorageUnavailable


# One log line per kind of failure at most this often: an outage fails every call for seconds.
_LOG_EVERY_S = 10.0
_logged: dict[str, float] = {}


def _log_failure(
    exc: BaseException, mapped: StorageUnavailable, store: GameStore | None = None
) -> None:
    kind = f"{type(mapped).__name__}:{type(exc).__name__}"
    now = time.monotonic()
    if now - _logged.get(kind, -_LOG_EVERY_S) < _LOG_EVERY_S:
        return
    _logged[kind] = now
    if isinstance(mapped, StorageBusy):
        pool = store.pool_use() if store is not None else None
        lent = f"{pool[0]} of {pool[1]} connections lent, {pool[2]} calls waiting" if pool else ""
        log.warning("storage: Redis connection pool exhausted (%s)", lent or exc)
        return
    log.warning("storage: %s (%s: %s)", type(mapped).__name__, type(exc).__name__, exc)


_OUTCOMES: dict[type[StorageUnavailable], str] = {
    StorageBusy: "exhausted",
    StorageFull: "full",
    StorageRefused: "refused",
}
"""How a failed call is counted (:attr:`GameStore.observe`); any other failure: unavailable."""


# decode_responses=True on every client we build, so replies are str, not bytes.
_StreamEntries = list[tuple[str, dict[str, str]]]

_P = ParamSpec("_P")
_T = TypeVar("_T")


def _storage_call(
    method: Callable[_P, Awaitable[_T]], *, bounded: bool
) -> Callable[_P, Coroutine[object, object, _T]]:
    """Turn outages, cluster failovers and refusals by the server (out of memory, permissions)
    into StorageUnavailable or a subclass, keeping the cause chained (see ``_as_unavailable``);
    a warning is logged (at most every few seconds per kind) for the operator.

    ``bounded``: the whole call, redis-py's retries, reconnects and health-check PINGs and a
    cluster's layout reads included, ends within the store's ``timeout_s``; a call still waiting
    then is an outage. The socket timeout alone bounds one read, not what redis-py and its
    cluster client make of it."""

    name = method.__name__

    @functools.wraps(method)
    async def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        store = args[0] if args and isinstance(args[0], GameStore) else None
        limit = store.timeout_s if bounded and store is not None else None
        bound = asyncio.timeout(limit)
        started = time.perf_counter()
        outcome = "error"
        try:
            async with bound:
                if bounded and store is not None:
                    await store._ready()
                result = await method(*args, **kwargs)
            outcome = "ok"
            return result
        except (_RE.RedisError, _RE.RedisClusterException, OSError, AttributeError) as exc:
            cause: BaseException = exc
            if bound.expired():  # whatever redis-py was doing then was cut short by the bound
                cause = _RE.TimeoutError(f"Redis did not answer within {limit} s")
            mapped = _as_unavailable(cause)
            if mapped is None:
                raise
            outcome = _OUTCOMES.get(type(mapped), "unavailable")
            _log_failure(cause, mapped, store)
            raise mapped from cause
        finally:
            if store is not None and store.observe is not None:
                store.observe(name, outcome, time.perf_counter() - started)

    return wrapper


def _outage_is_unavailable(
    method: Callable[_P, Awaitable[_T]],
) -> Callable[_P, Coroutine[object, object, _T]]:
    """A store call: errors mapped as ``_storage_call`` says, and bounded by ``timeout_s``."""
    return _storage_call(method, bounded=True)


def _outage_is_unavailable_unbounded(
    method: Callable[_P, Awaitable[_T]],
) -> Callable[_P, Coroutine[object, object, _T]]:
    """A store call whose errors are mapped, but which bounds its own steps, and connects first
    only if it must: closing (which must not connect), or asking every node of a cluster in turn
    (where one that does not answer is skipped)."""
    return _storage_call(method, bounded=False)


# Game records are JSON of a few KB that compresses about 2.5 to 1; compressing them keeps a game
# well under its memory budget for the price of tens of microseconds. The client decodes replies
# as text, so the compressed bytes travel as base64 behind a marker no JSON document starts with.
_PACKED = "z:"
_PACK_ABOVE = 512


def _pack(data: str) -> str:
    if len(data) <= _PACK_ABOVE:
        return data
    # A small window and memory level: zlib's defaults set up ~256 KB of tables per call, which
    # costs five times more than compressing a few KB with a 2 KB window (same size out).
    packer = zlib.compressobj(1, zlib.DEFLATED, 11, 4)
    packed = packer.compress(data.encode()) + packer.flush()
    return _PACKED + base64.b64encode(packed).decode("ascii")


def _unpack(stored: str) -> str:
    """The record as it was saved; a packed one that no longer unpacks (damaged in Redis, or
    written by hand) comes back as stored, for the authority to find it unreadable."""
    if not stored.startswith(_PACKED):
        return stored
    try:
        return zlib.decompress(base64.b64decode(stored[len(_PACKED) :], validate=True)).decode()
    except (ValueError, zlib.error):  # binascii.Error and UnicodeDecodeError are ValueErrors
        return stored


def _options(socket_timeout: float) -> dict[str, float | bool | str | Retry]:
    """The options of every connection to one Redis (the pool's and the health probe's)."""
    return {
        "decode_responses": True,
        "encoding_errors": _ENCODING_ERRORS,
        "health_check_interval": _HEALTH_CHECK_INTERVAL_S,
        "socket_connect_timeout": socket_timeout,
        "socket_timeout": socket_timeout,
        "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), _RETRIES, _RETRY_ON),
    }


_LOG_PACKED = -2
"""What the save script returns for a line added to a log packed already (see _SAVE_LUA)."""


def _pack_history(history: History) -> str:
    """A game's whole log as the one string a finished game keeps: the snapshot (if any) and the
    lines, as JSON, packed like a record (a finished game's log of some 130 lines is about 3 KB of
    JSON and 1 KB packed, where its stream held at least 4.7 KB)."""
    return _pack(json.dumps({"snapshot": history.snapshot, "lines": history.lines}))


def _unpack_history(packed: str) -> History:
    """The inverse of :func:`_pack_history`. A log damaged in Redis reads as empty (the record
    alone still shows the game; a replay then finds no ``begin``)."""
    try:
        kept = json.loads(_unpack(packed))
        return History(snapshot=kept["snapshot"], lines=list(kept["lines"]))
    except (ValueError, KeyError, TypeError):
        log.warning("a packed game log could not be read")
        return History()


def _probe_key() -> str:
    # Never written (see GameStore.probe).
    return f"{_PREFIX}:health-probe"


def _deadlines_key(platform: str) -> str:
    # One sorted set per platform, so a Discord worker never claims a Slack game's deadline
    # that it could not deliver. Its lease hash shares its hash tag (one slot, one script).
    return f"{_PREFIX}:{{deadlines:{platform}}}:due"


def _leases_key(platform: str) -> str:
    return f"{_PREFIX}:{{deadlines:{platform}}}:lease"


def _game_key(key: GameKey) -> str:
    return f"{_PREFIX}:{{{key}}}:game"


def _log_key(key: GameKey) -> str:
    return f"{_PREFIX}:{{{key}}}:log"


def _table_key(key: GameKey) -> str:
    # A hash: ``rev`` (rises by one per write) and ``data`` (the table layer's JSON). (Before
    # the refs had a revision they were a string under ``:table``, which simply expires.)
    return f"{_PREFIX}:{{{key}}}:refs"


def _damaged_key(key: GameKey, part: str) -> str:
    # A record no one could read, and its log, kept aside for the operator for a while.
    return f"{_PREFIX}:{{{key}}}:damaged:{part}"


def _dedupe_key(key: GameKey, delivery: str) -> str:
    # In the game's slot, so the save script records the delivery with the move it made.
    return f"{_PREFIX}:{{{key}}}:dedupe:{delivery}"


def _budget_key(scope: str, name: str, bucket: bool = False) -> str:
    # Every limit of one scope (an app in a workspace, a bot) shares its hash tag: a call that
    # draws on several of them (Discord's route and its global limit) is one script on one slot.
    # The limit's name is hashed: it may name a conversation (a person's DM), which no key of
    # the store should carry past that person's forget-me. A token bucket's key is a string
    # where a sliding log's is a sorted set: the two never share a key.
    hashed = hashlib.sha256(name.encode()).hexdigest()[:20]
    return f"{_PREFIX}:{{budget:{scope}}}:{hashed}{':b' if bucket else ''}"


def _user_key(platform: str, user: str) -> str:
    return f"{_PREFIX}:user:{{{platform}:{user}}}:games"


def _held_key(platform: str, user: str) -> str:
    # The games a person no longer sits in (they left, or it ended) whose record may still
    # name them: what ``/boardroom forget-me`` finds them by. In the slot of their list.
    return f"{_PREFIX}:user:{{{platform}:{user}}}:held"


# Compare-and-set of one game. KEYS = game hash, log stream and (optionally) the delivery's
# de-duplication key: all carry the game's hash tag, so the script touches a single slot and is
# valid on Redis Cluster. ARGV = expected version ('' means "only if absent"), new version, data,
# ttl in ms, the log entry ('' for none), the de-duplication ttl in s, the log length at which
# a snapshot replaces the log, '1' when the save starts a new game (the channel's previous
# log, another game's story with its players' words and ids, is dropped first), the game's
# whole log packed ('' for none) when the save ends the game (see _pack_history), and the
# result of a game this save ends ('' for none): kept in the game's hash (field ``result``)
# until the community's history has it (storage/history.py), so it is written once, with
# the game's end.
# Returns 1 (written), 0 (version conflict) or -1 (this delivery was saved before). If a reply is
# lost and the client retries, the re-run reports 0 or -1 rather than writing twice. -2: nothing
# was written because the log is packed already (the game ended) and the save adds a line to it:
# the store packs it again with the line and retries (see GameStore.save).
# The log keeps every action of a game: when it reaches ARGV[7] entries, the record just written
# (which holds the state after them all) goes in as a snapshot and the entries before it are
# trimmed, so a game of any length replays from its snapshot and stays bounded in size. While
# the game runs the log is a stream (an append costs the same however long the game); the save
# that ends it replaces the stream with one string, the same history packed, since a stream
# costs at least one 4 KB node of Redis memory however short it is, and a finished game is kept
# for hours.
_SAVE_LUA = """
if #KEYS >= 3 and redis.call('EXISTS', KEYS[3]) == 1 then return -1 end
if ARGV[1] == '' then
  if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
elseif redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then
  return 0
end
if ARGV[5] ~= '' and ARGV[8] ~= '1' and ARGV[9] == ''
    and redis.call('TYPE', KEYS[2])['ok'] == 'string' then
  return -2
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'data', ARGV[3])
if ARGV[10] and ARGV[10] ~= '' then redis.call('HSET', KEYS[1], 'result', ARGV[10]) end
if ARGV[8] == '1' then redis.call('DEL', KEYS[2]) end
if ARGV[9] ~= '' then
  redis.call('SET', KEYS[2], ARGV[9])
elseif ARGV[5] ~= '' then
  if redis.call('XLEN', KEYS[2]) >= tonumber(ARGV[7]) then
    local id = redis.call('XADD', KEYS[2], '*', 's', ARGV[3])
    redis.call('XTRIM', KEYS[2], 'MINID', id)
  else
    redis.call('XADD', KEYS[2], '*', 'a', ARGV[5])
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
if #KEYS >= 3 then redis.call('SET', KEYS[3], '1', 'EX', ARGV[6]) end
return 1
"""

# Set a damaged record aside (KEYS = game hash, log, table refs, damaged record, damaged log;
# ARGV = the version found, the tombstone record, the game's ttl in ms, the kept copy's ttl in
# ms). Only the worker that read exactly that version moves it, so it is done (and logged) once;
# the game's key then holds the tombstone, a finished record that frees the channel.
_QUARANTINE_LUA = """
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[4], redis.call('HGET', KEYS[1], 'data') or '', 'PX', ARGV[4])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('RENAME', KEYS[2], KEYS[5])
  redis.call('PEXPIRE', KEYS[5], ARGV[4])
end
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[1], 'v', tostring(tonumber(ARGV[1]) + 1), 'data', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""

# The table's refs, written only over the revision the writer read (KEYS[1] = the refs hash;
# ARGV = that revision, 0 for none, the data and the ttl in ms). Returns the new revision, or -1
# when another delivery wrote first.
_REFS_LUA = """
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if rev ~= tonumber(ARGV[1]) then return -1 end
redis.call('HSET', KEYS[1], 'rev', rev + 1, 'data', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return rev + 1
"""

# Deadlines. KEYS[1] = the platform's sorted set (game -> due time), KEYS[2] = its leases
# (game -> token of the worker firing it); one hash tag, so one slot. The rule that keeps every
# deadline: an entry is never later than the due time of the saved game, and never absent while
# the game has one; firing early is harmless (a Timeout for a decision not yet due, or no longer
# pending, changes nothing and re-arms the real time).
#
# Claim: take due games by pushing each entry to ARGV[3] (now + lease) under a token, instead of
# removing it. A worker that dies mid-fire leaves the entry, which is due again when the lease ends.
_CLAIM_LUA = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for i = 1, #due do
  redis.call('ZADD', KEYS[1], ARGV[3], due[i])
  redis.call('HSET', KEYS[2], due[i], ARGV[4])
end
return due
"""

# Arm (ARGV = game, due, token or ''), sent with every save of a game that has a deadline, before
# the save itself: only ever moves the entry earlier, and ends any lease so its holder cannot later
# overwrite it with what it read before this save. The lease holder's own save (token equal) sets
# the time exactly: nobody else wrote in between, or the lease would be gone.
_ARM_LUA = """
local cur = redis.call('ZSCORE', KEYS[1], ARGV[1])
if ARGV[3] ~= '' and redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[3] then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
elseif (not cur) or tonumber(ARGV[2]) < tonumber(cur) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
end
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""

# A save that arms its deadline, on one Redis (not a cluster, where the deadlines live in another
# slot): the save script and the arming script in one script and one round trip. KEYS =
# deadlines, leases, then the save's keys; ARGV = the arming's three, then the save's. The save
# runs first: Redis checks a script's first write against maxmemory and lets the rest through,
# so the first write must be one a full Redis refuses (the arming's can be a mere HDEL).
_SAVE_ARMED_LUA = (
    "local function save()\n"
    + re.sub(r"KEYS\[(\d)\]", lambda m: f"KEYS[{int(m.group(1)) + 2}]", _SAVE_LUA)
    .replace("#KEYS >= 3", "#KEYS >= 5")
    .replace("ARGV[", "ARGV[3+")
    .strip()
    + "\nend\nlocal written = save()\n"
    + _ARM_LUA.replace("return 1", "return written").strip()
)

# Load what a delivery needs in one round trip: whether its delivery id was handled already
# (KEYS[3], when given), the game (KEYS[1]) and the table's refs (KEYS[2]).
_LOAD_LUA = """
local seen = 0
if #KEYS >= 3 then seen = redis.call('EXISTS', KEYS[3]) end
local game = redis.call('HMGET', KEYS[1], 'v', 'data')
local refs = redis.call('HMGET', KEYS[2], 'rev', 'data')
return {seen, game[1] or false, game[2] or false, refs[1] or false, refs[2] or false}
"""
_LOAD_RO_LUA = "#!lua flags=no-writes\n" + _LOAD_LUA.lstrip()
"""The same, declared read-only (Redis 7): a full Redis refuses every script that may write,
and a delivery must still read its game there (the player is then told the store is full)."""

# Release (ARGV = game, token, due or ''): the lease holder found nothing to fire; put the entry at
# the game's real due time or remove it, unless someone armed the game since (the lease is gone).
_RELEASE_LUA = """
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
"""

# Budgets of platform calls, shared by every worker (see GameStore.take_budget). KEYS = one key
# per limit, all under one hash tag: a sliding log is a sorted set of the calls taken within its
# window (score: when, booked calls in the future included); a token bucket is a string, its
# theoretical arrival time (GCRA: the bucket is full when that time is past). ARGV = now, this
# call's member, whether it books (1) or only takes a place free now (0), then per key its kind
# ('b' or 'w'), limit, window (s) and the calls of its limit held back for calls of a higher
# priority. It finds the first moment every limit has room (never before a place already
# booked in a log, so bookings stay in order and within every window); it takes a place in
# every limit at that moment when it is now, or when booking, and in none otherwise. Returns
# the seconds until that moment (as text: Lua numbers become integers).
_BUDGET_LUA = """
local now = tonumber(ARGV[1])
local book = ARGV[3] == '1'
local at = now
local kinds = {}
for i = 1, #KEYS do
  local base = 4 * i
  local kind = ARGV[base]
  local limit = tonumber(ARGV[base + 1])
  local window = tonumber(ARGV[base + 2])
  local held = tonumber(ARGV[base + 3])
  kinds[i] = {kind, limit, window}
  if kind == 'b' then
    local every = window / limit
    local tat = tonumber(redis.call('GET', KEYS[i]) or now)
    if tat < now then tat = now end
    local free = tat - (limit - 1 - held) * every
    if free > at then at = free end
  else
    local room = limit - held
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
    local used = redis.call('ZCARD', KEYS[i])
    if used > 0 then
      local last = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
      local latest = tonumber(last[2])
      if latest > at then at = latest end
    end
    if used >= room then
      local freed = redis.call('ZRANGE', KEYS[i], used - room, used - room, 'WITHSCORES')
      local free = tonumber(freed[2]) + window
      if free > at then at = free end
    end
  end
end
if at > now and not book then return tostring(at - now) end
for i = 1, #KEYS do
  local kind, limit, window = kinds[i][1], kinds[i][2], kinds[i][3]
  if kind == 'b' then
    local every = window / limit
    local tat = tonumber(redis.call('GET', KEYS[i]) or now)
    if tat < at then tat = at end
    tat = tat + every
    redis.call('SET', KEYS[i], tostring(tat), 'PX', math.ceil((tat - now) * 1000) + 1000)
  else
    redis.call('ZADD', KEYS[i], at, ARGV[2])
    redis.call('PEXPIRE', KEYS[i], math.ceil((at - now + window) * 1000) + 1000)
  end
end
return tostring(at - now)
"""

# A limit the platform says is spent (a 429): nobody takes from it before ARGV[2]. KEYS[1] = the
# limit's key; ARGV = now, until, its kind ('b' or 'w'), limit, window (s), a member prefix. A
# log is filled with calls taken at until minus its window; a bucket is emptied until then.
_BUDGET_SPENT_LUA = """
local now = tonumber(ARGV[1])
local until_at = tonumber(ARGV[2])
local limit = tonumber(ARGV[4])
local window = tonumber(ARGV[5])
if ARGV[3] == 'b' then
  local tat = tonumber(redis.call('GET', KEYS[1]) or now)
  local empty = until_at + (limit - 1) * window / limit
  if empty > tat then tat = empty end
  redis.call('SET', KEYS[1], tostring(tat), 'PX', math.ceil((tat - now) * 1000) + 1000)
  return 1
end
for i = 1, limit do
  redis.call('ZADD', KEYS[1], until_at - window, ARGV[6] .. ':' .. i)
end
redis.call('PEXPIRE', KEYS[1], math.ceil((until_at - now) * 1000) + 1000)
return 1
"""


class BudgetLimit(NamedTuple):
    """One limit a platform call draws on, as the store keeps it (see GameStore.take_budget)."""

    name: str
    calls: int
    """At most this many calls..."""
    window_s: float
    """...within any this many seconds (a bucket: this many at once, one back every
    ``window_s / calls`` seconds)."""
    held: int
    """The last calls of the limit left to calls of a higher priority."""
    bucket: bool = False
    """A token bucket (Slack's tiers) rather than a sliding log (Discord's windows)."""


StoreClient = aioredis.Redis | RedisCluster
"""What a store runs on: one Redis (or the embedded one), or a Redis Cluster."""

Observer = Callable[[str, str, float], None]
"""Told of every store call: its name, how it ended (``ok``, ``unavailable``, ``exhausted``,
``full``, ``refused``, ``error``) and its seconds (the bot's metrics; storage knows none)."""


class _Pool(aioredis.BlockingConnectionPool):
    """redis-py's blocking pool: at most ``max_connections`` connections, and a call that finds
    them all lent waits for one (up to ``timeout``, a share of the call's own bound, so that
    running out is told as itself: :class:`StorageBusy`) where the default pool fails at once.
    It counts the calls waiting, for the metrics and the health check."""

    waiting = 0

    async def get_connection(  # type: ignore[override]  # (redis-py's deprecated arguments)
        self, *args: str, **options: str
    ) -> aioredis.connection.AbstractConnection:
        self.waiting += 1
        try:
            connection = super().get_connection(*args, **options)  # type: ignore[no-untyped-call]
            return await connection  # type: ignore[no-any-return]
        finally:
            self.waiting -= 1

    def lent(self) -> int:
        return len(self._in_use_connections)


class GameStore:
    """The narrow storage interface the authority uses; one instance per process.

    Runs unchanged on one Redis and on Redis Cluster: every call touches the keys of one slot (a
    game's keys share its hash tag; the deadlines of a platform and a user's list are one key
    each), so each script and pipeline goes to one node. Where two slots meet in one call (a save
    that arms its deadline) the cluster path says what it does instead.
    """

    def __init__(
        self,
        client: StoreClient,
        *,
        embedded: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        prober: aioredis.Redis | None = None,
    ) -> None:
        self._client = client
        self._prober = prober or client
        """What :meth:`probe` asks: on one Redis a connection of its own, outside the pool, so
        that a worker whose pool is all lent is told from a Redis that does not answer."""
        self.observe: Observer | None = None
        """Told of every call (see :data:`Observer`); the runtime sets it."""
        self.embedded = embedded
        self.timeout_s = timeout_s
        """The longest one call waits for Redis before it raises StorageUnavailable: a hung
        Redis (one that accepts connections and answers nothing) costs a player this, once."""
        self.cluster = isinstance(client, RedisCluster)
        """Whether the store runs on Redis Cluster."""
        self._save_script = client.register_script(_SAVE_LUA)
        self._claim_script = client.register_script(_CLAIM_LUA)
        self._arm_script = client.register_script(_ARM_LUA)
        self._save_armed_script = client.register_script(_SAVE_ARMED_LUA)
        # (The embedded store, and a Redis before 7, take no script flags: the plain one.)
        self._load_script = client.register_script(_LOAD_LUA if embedded else _LOAD_RO_LUA)
        self._release_script = client.register_script(_RELEASE_LUA)
        self.snapshot_every = _SNAPSHOT_EVERY
        """Log entries after which a snapshot replaces them (tests make it small)."""
        self._refs_script = client.register_script(_REFS_LUA)
        self._quarantine_script = client.register_script(_QUARANTINE_LUA)
        self._budget_script = client.register_script(_BUDGET_LUA)
        self._budget_spent_script = client.register_script(_BUDGET_SPENT_LUA)
        # Some servers (the embedded one, locked-down managed Redis) refuse MEMORY USAGE.
        self._memory_command = True

    @classmethod
    def from_url(
        cls,
        url: str | None,
        cluster: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        pool_size: int = DEFAULT_POOL_SIZE,
    ) -> Self:
        """A store on ``url``, or on an embedded in-process Redis when ``url`` is empty.

        ``cluster``: ``url`` names any node of a Redis Cluster (``redis://host:port``, database
        0), from which the client discovers the others; it keeps following the cluster's layout
        through failovers and resharding. Nothing is connected until the first call.
        ``timeout_s``: the bound on each whole call (see :attr:`timeout_s`); the socket
        timeouts are three quarters of it.
        ``pool_size``: the most connections to one Redis; a call finding them all lent waits
        for one up to three quarters of its bound (:class:`_Pool`), then says the store is busy
        (:class:`StorageBusy`). (A cluster's client has no blocking pool: see
        ``_CLUSTER_MAX_CONNECTIONS``.)
        """
        socket_timeout = timeout_s * _SOCKET_SHARE
        if not url:
            import fakeredis  # only the embedded mode needs it

            # A private FakeServer: stores built separately must not share state.
            fake = fakeredis.FakeAsyncRedis(
                server=fakeredis.FakeServer(),
                decode_responses=True,
                encoding_errors=_ENCODING_ERRORS,
            )
            return cls(fake, embedded=True, timeout_s=timeout_s)
        if cluster:
            # The Retry only sets how many times a command is tried again (re-reading the layout
            # first) after a connection error, a timeout, CLUSTERDOWN or an uncovered slot:
            # redis-py's cluster client waits 0.25 s after CLUSTERDOWN and not otherwise, and
            # opens node connections without retries of their own. Other options keep redis-py's
            # defaults: reinitialize_steps=5 (MOVED replies patch the slot map, every fifth
            # re-reads it whole), require_full_coverage (a layout with unserved slots is an
            # outage) and dynamic_startup_nodes (every node found is a place to re-read the
            # layout from, so losing the node in the URL loses nothing).
            cluster_client = RedisCluster.from_url(
                url,
                decode_responses=True,
                health_check_interval=_HEALTH_CHECK_INTERVAL_S,
                socket_connect_timeout=socket_timeout,
                socket_timeout=socket_timeout,
                retry=Retry(NoBackoff(), _CLUSTER_RETRIES),
                max_connections=_CLUSTER_MAX_CONNECTIONS,
                encoding_errors=_ENCODING_ERRORS,
            )
            return cls(cluster_client, timeout_s=timeout_s)
        pool = _Pool.from_url(
            url, max_connections=pool_size, timeout=socket_timeout, **_options(socket_timeout)
        )
        client = aioredis.Redis(connection_pool=pool)
        # (Two: a load balancer's and a supervisor's checks may come at once.)
        alone = _Pool.from_url(
            url, max_connections=2, timeout=socket_timeout, **_options(socket_timeout)
        )
        prober = aioredis.Redis(connection_pool=alone)
        return cls(client, timeout_s=timeout_s, prober=prober)

    def pool_use(self) -> tuple[int, int, int] | None:
        """The pool's connections lent now, its size and the calls waiting for one (None: a
        cluster or the embedded store, which have no blocking pool)."""
        pool = self._client.connection_pool if isinstance(self._client, aioredis.Redis) else None
        if not isinstance(pool, _Pool):
            return None
        return pool.lent(), pool.max_connections, pool.waiting

    def saturated(self) -> bool:
        """Whether every connection of the pool is lent and calls wait for one."""
        use = self.pool_use()
        return use is not None and use[0] >= use[1] and use[2] > 0

    async def _ready(self) -> None:
        """On a cluster, learn its layout (once, or again after redis-py dropped it) before any
        command. redis-py (8.1) resolves a command's node before it initializes, and commands
        issued together on an uninitialized client race each other's connections; its
        ``initialize()`` is a no-op once done and lets concurrent callers wait for one another."""
        if isinstance(self._client, RedisCluster):
            await self._client.initialize()

    @property
    def client(self) -> StoreClient:
        """The underlying client, for tests and admin tools; the authority should not need it."""
        return self._client

    @_outage_is_unavailable_unbounded
    async def close(self) -> None:
        await self._client.aclose()
        if self._prober is not self._client:
            await self._prober.aclose()

    @_outage_is_unavailable
    async def ping(self) -> None:
        await self._prober.ping()

    @_outage_is_unavailable
    async def _write_probe(self) -> None:
        # SET ... XX on a key that never exists writes nothing, but Redis checks that it could
        # write first: a full Redis (noeviction) refuses it with OOM as it refuses every move.
        await self._prober.set(_probe_key(), "", xx=True)

    async def probe(self, timeout_s: float) -> str:
        """What Redis can do for players now, found within ``timeout_s`` (health checks):

        - ``"ok"``: it answers and accepts writes;
        - ``"full"``: it answers reads but refuses writes (``maxmemory`` reached, ``noeviction``);
        - ``"read-only"``: it answers reads but refuses writes for another reason its operator
          must fix (a failing disk: MISCONF; an ACL that forbids writing);
        - ``"refused"``: it refuses even a PING (authentication);
        - ``"unreachable"``: no answer within ``timeout_s``, or no connection.

        In the first three, players still get answers (status, hands, refusals that say why).
        """
        try:
            async with asyncio.timeout(min(timeout_s, self.timeout_s)):
                try:
                    await self._write_probe()
                    return "ok"
                except StorageFull:
                    return "full"
                except StorageRefused:
                    pass
                try:
                    await self.ping()
                    return "read-only"
                except StorageRefused:
                    return "refused"
        except (StorageUnavailable, TimeoutError):
            return "unreachable"

    @_outage_is_unavailable_unbounded
    async def check_policy(self) -> str | None:
        """A warning for the operator when Redis may evict keys once it is full (its
        ``maxmemory-policy`` is not ``noeviction``, on any node of a cluster), else None.

        An evicting Redis silently deletes games (and the deadlines and lists that go with them)
        to make room; with ``noeviction`` it refuses writes instead, which players are told
        (StorageFull). None as well when the server refuses CONFIG (managed services often do).
        """
        if self.embedded:
            return None  # the embedded store has no memory limit
        try:
            policies = await self._memory_policies()
        except redis.exceptions.ResponseError as exc:
            if _is_outage(exc):
                raise
            return None  # CONFIG refused: renamed, not allowed by ACL, not offered
        evicting = sorted({policy for policy in policies if policy != "noeviction"})
        if not evicting:
            return None
        return (
            f"Redis is set to evict keys when it runs out of memory (maxmemory-policy "
            f"{', '.join(evicting)}): it would silently delete games in progress. Set "
            "maxmemory-policy to noeviction, so that a full Redis refuses new writes instead "
            "and players are told the game store is full."
        )

    async def _memory_policies(self) -> list[str]:
        if not isinstance(self._client, RedisCluster):
            async with asyncio.timeout(self.timeout_s):
                reply = await self._client.config_get("maxmemory-policy")
            return [str(value) for value in reply.values()]
        # Every node, replicas too: a replica becomes a master in a failover. A node that does
        # not answer (within the timeout, each) is left out, unless none does.
        async with asyncio.timeout(self.timeout_s):
            await self._client.initialize()
        policies, down = [], None
        for node in self._client.get_nodes():
            try:
                async with asyncio.timeout(self.timeout_s):
                    reply = await self._client.config_get("maxmemory-policy", target_nodes=node)
            except _OUTAGES as exc:
                down = exc
                continue
            policies += [str(value) for value in reply.values()]
        if not policies and down is not None:
            raise down
        return policies

    @_outage_is_unavailable
    async def load(self, key: GameKey, dedupe: str | None = None) -> tuple[bool, Loaded | None]:
        """Read the game and whether the delivery ``dedupe`` (when given) was handled already,
        in one round trip (see :meth:`load_table` for the table's refs with them).

        Returns ``(fresh, loaded)``: ``fresh`` is False when ``dedupe`` was handled before. A
        delivery counts as handled once its move is saved (``save(..., dedupe=...)``) or its
        answer given (:meth:`mark_handled`), so a retry after a failure is applied.
        """
        fresh, loaded, _refs = await self.load_table(key, dedupe)
        return fresh, loaded

    @_outage_is_unavailable
    async def load_table(
        self, key: GameKey, dedupe: str | None = None
    ) -> tuple[bool, Loaded | None, tuple[int, str] | None]:
        """As :meth:`load`, and the table's refs as :meth:`table_refs` reads them: all that one
        delivery reads, in one script."""
        keys = [_game_key(key), _table_key(key)]
        if dedupe is not None:
            keys.append(_dedupe_key(key, dedupe))
        try:
            seen, version, data, rev, refs = await self._load_script(keys=keys, args=[])
        except redis.exceptions.ResponseError as error:
            if "near '#'" not in str(error):
                raise
            self._load_script = self._client.register_script(_LOAD_LUA)  # a Redis before 7
            seen, version, data, rev, refs = await self._load_script(keys=keys, args=[])
        fresh = not int(seen)
        loaded = Loaded(int(version), _unpack(data)) if version and data else None
        table = (int(rev), _unpack(refs)) if rev and refs else None
        return fresh, loaded, table

    @_outage_is_unavailable
    async def mark_handled(self, key: GameKey, dedupe: str, ttl_s: int) -> bool:
        """Record that the delivery ``dedupe`` was answered without a save (a refusal, a
        status); False when another worker recorded it first (answer it once only)."""
        return bool(await self._client.set(_dedupe_key(key, dedupe), "1", nx=True, ex=ttl_s))

    @_outage_is_unavailable
    async def first_seen(self, platform: str, delivery: str, ttl_s: int) -> bool:
        """Whether ``delivery``, the platform's id of something that belongs to no game (a
        Slack event's ``event_id``), is seen now for the first time by any worker; it is
        remembered for ``ttl_s``."""
        key = f"{_PREFIX}:seen:{{{platform}:{delivery}}}"
        return bool(await self._client.set(key, "1", nx=True, ex=ttl_s))

    @_outage_is_unavailable
    async def save(
        self,
        key: GameKey,
        data: str,
        *,
        expected: int | None,
        version: int,
        log: str | None = None,
        ttl_s: int,
        due: float | None = None,
        lease: str | None = None,
        dedupe: str | None = None,
        dedupe_ttl_s: int = 600,
        fresh_log: bool = False,
        final: bool = False,
        result: str | None = None,
        pack: bool = True,
        history: History | None = None,
    ) -> SaveResult:
        """Write ``data`` at ``version`` if the stored version is ``expected`` (None: absent).

        Appends ``log`` to the game's stream and refreshes both keys' TTL. On a version conflict
        (``CONFLICT``), or when the delivery ``dedupe`` was saved before (``DUPLICATE``), nothing
        is written; ``WRITTEN`` also records ``dedupe`` as handled. ``due``: the saved game's
        deadline, armed just before the write in the same script (see ``_ARM_LUA``; on a cluster
        in a round trip of its own, first), so that no save can leave its deadline unscheduled;
        ``lease``: the token of the claim being fired.
        ``fresh_log``: the save begins a new game in the channel, whose log starts empty.
        ``final``: the save ends the game: its log (read first, one more round trip, once a
        game) is kept packed from now on, ``log`` included (:meth:`read_history` reads both).
        Whoever saved in between made the version differ, so nothing is written then.
        ``result``: the save ends the game, whose result the community's history is to record
        (kept in the game's hash until it is: see :mod:`storage.history`).
        ``pack``: store ``data`` compressed (a record kept for long, a finished game's); a game
        being played is saved at every move and read at the next, where compressing and
        decompressing would cost more than its bytes are worth.
        ``history``: a finished game's whole log, rewritten (``forget-me``), stored packed in
        place of the one kept (``log`` and ``final`` are then ignored).
        """
        args: list[str | int] = [
            "" if expected is None else str(expected),
            str(version),
            _pack(data) if pack else data,
            ttl_s * 1000,
            log or "",
            dedupe_ttl_s,
            self.snapshot_every,
            "1" if fresh_log or history is not None else "",
            _pack_history(history)
            if history is not None
            else await self._packed_history(key, log)
            if final and not fresh_log
            else "",
            _pack(result) if result else "",
        ]
        if history is not None:
            args[4] = ""  # (the rewritten log is the whole of it)
        written = await self._save_once(key, args, due, lease, dedupe)
        if written == _LOG_PACKED:  # a line for a log packed already: pack it again with it
            args[8] = await self._packed_history(key, log)
            written = await self._save_once(key, args, due, lease, dedupe)
        return SaveResult(written)

    async def _packed_history(self, key: GameKey, log: str | None) -> str:
        history = await self._read_history(key)
        if log:
            history.lines.append(log)
        return _pack_history(history)

    async def _save_once(
        self,
        key: GameKey,
        args: list[str | int],
        due: float | None,
        lease: str | None,
        dedupe: str | None,
    ) -> int:
        keys = [_game_key(key), _log_key(key)]
        if dedupe is not None:
            keys.append(_dedupe_key(key, dedupe))
        if due is None:
            return int(await self._save_script(keys=keys, args=args))
        if self.cluster:
            # The deadlines and the game are in different slots, so on a cluster usually on
            # different nodes: redis-py's cluster pipeline would send both scripts at once, in no
            # order and with no NOSCRIPT reload. Arm first, then save (one more round trip): if
            # arming fails nothing is saved, and a save that then fails or conflicts leaves only
            # an early deadline, which is harmless.
            await self._arm(self._client, key, due, lease)
            return int(await self._save_script(keys=keys, args=args))
        # One Redis: the arming and the save in one script (one round trip, and no pipeline of
        # scripts, which redis-py precedes with a SCRIPT EXISTS of its own).
        armed_keys = [_deadlines_key(key.platform), _leases_key(key.platform), *keys]
        armed_args: list[str | int] = [str(key), repr(due), lease or "", *args]
        return int(await self._save_armed_script(keys=armed_keys, args=armed_args))

    async def _arm(self, client: StoreClient, key: GameKey, due: float, lease: str | None) -> None:
        keys = [_deadlines_key(key.platform), _leases_key(key.platform)]
        args = [str(key), repr(due), lease or ""]
        await self._arm_script(keys=keys, args=args, client=client)

    @_outage_is_unavailable
    async def quarantine(
        self, key: GameKey, version: int, tombstone: str, ttl_s: int, keep_s: int
    ) -> bool:
        """Set aside the unreadable record stored at ``version`` (and its log) for ``keep_s``
        seconds, under keys the operator can read (``...:damaged:record``, ``...:damaged:log``),
        and store ``tombstone`` in its place; the game's table refs go. False when the record
        changed meanwhile (another worker set it aside first)."""
        keys = [
            _game_key(key),
            _log_key(key),
            _table_key(key),
            _damaged_key(key, "record"),
            _damaged_key(key, "log"),
        ]
        args: list[str | int] = [str(version), _pack(tombstone), ttl_s * 1000, keep_s * 1000]
        return bool(await self._quarantine_script(keys=keys, args=args))

    @_outage_is_unavailable
    async def delete(self, key: GameKey) -> None:
        await self._client.delete(_game_key(key), _log_key(key), _table_key(key))

    @_outage_is_unavailable
    async def table_refs(self, key: GameKey) -> tuple[int, str] | None:
        """What the table layer last showed for the channel's game: its revision and JSON, or
        None when nothing was shown."""
        rev, data = cast(
            list[str | None], await self._client.hmget(_table_key(key), ["rev", "data"])
        )
        if rev is None or data is None:
            return None
        return int(rev), _unpack(data)

    @_outage_is_unavailable
    async def set_table_refs(
        self, key: GameKey, data: str, ttl_s: int, expected: int
    ) -> int | None:
        """Write the refs if their stored revision is still ``expected`` (0: there are none):
        the new revision, or None when another delivery wrote first."""
        args: list[str | int] = [expected, _pack(data), max(1, ttl_s) * 1000]
        rev = int(await self._refs_script(keys=[_table_key(key)], args=args))
        return None if rev < 0 else rev

    @_outage_is_unavailable
    async def read_log(self, key: GameKey) -> list[str]:
        """The log's action lines (those after its latest snapshot)."""
        return (await self.read_history(key)).lines

    @_outage_is_unavailable
    async def read_history(self, key: GameKey) -> History:
        """The game's latest snapshot (the record as saved then), if any, and the action lines
        logged after it: together they replay the game however long it ran."""
        return await self._read_history(key)

    async def _read_history(self, key: GameKey) -> History:
        try:
            entries = cast(_StreamEntries, await self._client.xrange(_log_key(key)))
        except redis.exceptions.ResponseError as error:
            if not str(error).startswith("WRONGTYPE"):
                raise
            # The game ended: its log is one string, packed (see _SAVE_LUA).
            packed = cast(str | None, await self._client.get(_log_key(key)))
            return _unpack_history(packed) if packed is not None else History()
        history = History()
        for _id, fields in entries:
            if "s" in fields:
                history = History(snapshot=_unpack(fields["s"]))
            else:
                history.lines.append(fields["a"])
        return history

    @_outage_is_unavailable
    async def arm(self, key: GameKey, due: float) -> None:
        """Make sure the game's deadline fires no later than ``due`` (a unix timestamp)."""
        await self._arm(self._client, key, due, None)

    @_outage_is_unavailable
    async def claim_due(
        self, platform: str, now: float, lease_s: float, token: str, limit: int = 100
    ) -> list[GameKey]:
        """Take up to ``limit`` of the platform's games whose deadline is <= ``now``.

        Each stays claimed by ``token`` for ``lease_s`` seconds: the caller fires it, and its save
        (``save(..., lease=token)``) or :meth:`release` sets the next time. If the caller dies,
        the deadline is due again when the lease ends and another worker fires it.
        """
        if limit <= 0:
            return []
        keys = [_deadlines_key(platform), _leases_key(platform)]
        members = await self._claim_script(keys=keys, args=[now, limit, now + lease_s, token])
        return [GameKey.parse(m) for m in cast(list[str], members)]

    @_outage_is_unavailable
    async def adopt_legacy_deadlines(self, platform: str) -> int:
        """Move deadlines kept under the key used before leases (``boardroom:deadlines:<p>``)
        into today's set, so games running across the upgrade keep their clocks. Idempotent
        (arming only moves an entry earlier); returns how many were moved."""
        legacy = f"{_PREFIX}:deadlines:{platform}"
        entries = cast(
            list[tuple[str, float]], await self._client.zrange(legacy, 0, -1, withscores=True)
        )
        for member, due in entries:
            await self.arm(GameKey.parse(member), due)
        if entries:
            await self._client.delete(legacy)
        return len(entries)

    @_outage_is_unavailable
    async def release(self, key: GameKey, token: str, due: float | None) -> bool:
        """End the claim ``token`` of the game's deadline, which is next at ``due`` (None: it
        has none). False when the game was armed since (its entry is already right)."""
        keys = [_deadlines_key(key.platform), _leases_key(key.platform)]
        args = [str(key), token, "" if due is None else repr(due)]
        return bool(await self._release_script(keys=keys, args=args))

    @_outage_is_unavailable
    async def deadline_of(self, key: GameKey) -> float | None:
        """When the game's deadline entry fires next (tests and tools)."""
        score = await self._client.zscore(_deadlines_key(key.platform), str(key))
        return None if score is None else float(score)

    @_outage_is_unavailable
    async def index_user(
        self, platform: str, user: str, key: GameKey, present: bool, ttl_s: int
    ) -> None:
        """Add the game to (or take it off) the user's list; the list expires ``ttl_s`` after
        its last change, so it never outlives the games in it. A game taken off goes on the
        list of games that may still name them (a finished game is kept a while, a game they
        left keeps their leaving in its log), which expires likewise: ``forget-me`` reads it."""
        pipe = self._client.pipeline(transaction=False)
        if present:
            pipe.sadd(_user_key(platform, user), str(key))
        else:
            pipe.srem(_user_key(platform, user), str(key))
            pipe.sadd(_held_key(platform, user), str(key))
            pipe.expire(_held_key(platform, user), ttl_s)
        pipe.expire(_user_key(platform, user), ttl_s)
        await pipe.execute()

    @_outage_is_unavailable
    async def games_of(self, platform: str, user: str) -> list[GameKey]:
        members = cast(set[str], await self._client.smembers(_user_key(platform, user)))
        return sorted((GameKey.parse(m) for m in members), key=str)

    @_outage_is_unavailable
    async def memory_usage(self, key: GameKey) -> int:
        """Bytes held by the game's hash and log (0 when nothing is stored)."""
        game, log = _game_key(key), _log_key(key)
        if self._memory_command:
            pipe = self._client.pipeline(transaction=False)
            # SAMPLES 0 measures every element; the log is capped, so this stays bounded.
            pipe.memory_usage(game, samples=0)
            pipe.memory_usage(log, samples=0)
            try:
                sizes = await pipe.execute()
            except redis.exceptions.ResponseError as exc:
                if _is_outage(exc):
                    raise  # CLUSTERDOWN and the like: a passing state, not a refused command
                self._memory_command = False
            else:
                return sum(int(size or 0) for size in sizes)
        # Fallback estimate: the payload bytes, which is what a quota cares about.
        data = cast(str | None, await self._client.hget(game, "data"))
        history = await self._read_history(key)
        total = len(data.encode()) if data is not None else 0
        total += len((history.snapshot or "").encode())
        return total + sum(len(line.encode()) for line in history.lines)

    @_outage_is_unavailable
    async def memory_by_key(
        self, key: GameKey, deliveries: list[str] | tuple[str, ...] = ()
    ) -> dict[str, tuple[int, int]]:
        """What the game holds in Redis by kind of key, as ``(keys, bytes)`` by ``MEMORY USAGE``:
        ``record`` (the game hash), ``log`` (its action log), ``refs`` (the table's refs) and
        ``dedupe`` (those of the delivery ids ``deliveries`` still stored). For benches and
        operators; the server must allow ``MEMORY USAGE``."""
        named = {
            "record": [_game_key(key)],
            "log": [_log_key(key)],
            "refs": [_table_key(key)],
            "dedupe": [_dedupe_key(key, delivery) for delivery in deliveries],
        }
        pipe = self._client.pipeline(transaction=False)
        for keys in named.values():
            for name in keys:
                pipe.memory_usage(name, samples=0)
        sizes = iter(await pipe.execute())
        found: dict[str, tuple[int, int]] = {}
        for part, keys in named.items():
            held = [int(size) for size in (next(sizes) for _ in keys) if size is not None]
            found[part] = (len(held), sum(held))
        return found

    @_outage_is_unavailable
    async def take_budget(
        self,
        scope: str,
        limits: list[BudgetLimit],
        now: float,
        member: str,
        book: bool = False,
    ) -> float:
        """Take one call from each of ``limits`` of ``scope`` (a platform's app in one workspace,
        or one bot), shared by every worker, at the first moment all of them have room. When
        that is now, or when ``book``, the place is taken (booked in the future: the caller
        waits the seconds returned, and no later caller takes that place); otherwise nothing is
        taken. Returns the seconds until that moment (0: now). ``now`` is the caller's clock
        (unix seconds); ``member`` is unique to this call."""
        if not limits:
            return 0.0
        keys = [_budget_key(scope, limit.name, limit.bucket) for limit in limits]
        args: list[str | int | float] = [repr(now), member, int(book)]
        for limit in limits:
            kind = "b" if limit.bucket else "w"
            args += [kind, limit.calls, repr(limit.window_s), limit.held]
        return float(await self._budget_script(keys=keys, args=args))

    @_outage_is_unavailable
    async def spend_budget(
        self, scope: str, limit: BudgetLimit, now: float, until: float, member: str
    ) -> None:
        """The platform refused a call of ``limit`` until ``until`` (unix seconds): no worker
        takes from it before then."""
        kind = "b" if limit.bucket else "w"
        args: list[str | int | float] = [
            repr(now),
            repr(until),
            kind,
            limit.calls,
            repr(limit.window_s),
            member,
        ]
        key = _budget_key(scope, limit.name, limit.bucket)
        await self._budget_spent_script(keys=[key], args=args)
