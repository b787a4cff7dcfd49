"""Versioned game blobs, action logs, deadlines, de-duplication and user indexes in Redis.

Storage knows nothing about game rules: a game is an opaque JSON string plus an integer version.
Every key of one game carries the cluster hash tag ``{<platform>:<channel>}`` so the game hash and
its log stream live in one slot; the Lua scripts below therefore run on Redis Cluster unchanged.
"""

from __future__ import annotations

import base64
import functools
import zlib
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar, cast

import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

__all__ = ["BoardClaim", "GameKey", "GameStore", "Loaded", "StorageUnavailable"]

_PREFIX = "boardroom"
# Streams are trimmed approximately ("~"), which lets Redis drop whole macro nodes cheaply.
_LOG_MAXLEN = 1000

# Short timeouts: a chat interaction has about three seconds before the platform gives up, so a
# hung Redis must fail fast rather than hold the interaction for redis-py's default 5 s per try.
_SOCKET_TIMEOUT_S = 2.0
_HEALTH_CHECK_INTERVAL_S = 30
_RETRIES = 2


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


@dataclass(frozen=True)
class BoardClaim:
    """Whether a board drawing is the newest (``current``), and the board message's id."""

    current: bool
    ref: str | None


@dataclass(frozen=True)
class Loaded:
    """A stored game: its version and the JSON blob exactly as saved."""

    version: int
    data: str


class StorageUnavailable(Exception):
    """Redis could not be reached; the message is safe to show to a player."""

    MESSAGE = "Storage is unavailable, try again shortly."

    def __init__(self, message: str = MESSAGE) -> None:
        super().__init__(message)


# redis-py wraps socket failures in its own ConnectionError/TimeoutError, but a raw OSError can
# still escape from DNS or connect paths, so all three count as an outage.
_OUTAGES = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)

# decode_responses=True on every client we build, so replies are str, not bytes.
_StreamEntries = list[tuple[str, dict[str, str]]]

_P = ParamSpec("_P")
_T = TypeVar("_T")


def _outage_is_unavailable(
    method: Callable[_P, Awaitable[_T]],
) -> Callable[_P, Coroutine[Any, Any, _T]]:
    """Turn any connection-level failure into StorageUnavailable, keeping the cause chained."""

    @functools.wraps(method)
    async def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return await method(*args, **kwargs)
        except _OUTAGES as exc:
            raise StorageUnavailable() from exc

    return wrapper


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
    if not stored.startswith(_PACKED):
        return stored
    return zlib.decompress(base64.b64decode(stored[len(_PACKED) :])).decode()


def _deadlines_key(platform: str) -> str:
    # One sorted set per platform, so a Discord worker never claims a Slack game's deadline
    # that it could not deliver.
    return f"{_PREFIX}:deadlines:{platform}"


def _game_key(key: GameKey) -> str:
    return f"{_PREFIX}:{{{key}}}:game"


def _log_key(key: GameKey) -> str:
    return f"{_PREFIX}:{{{key}}}:log"


def _board_key(key: GameKey) -> str:
    return f"{_PREFIX}:{{{key}}}:board"


def _dedupe_key(delivery: str) -> str:
    return f"{_PREFIX}:dedupe:{delivery}"


def _user_key(platform: str, user: str) -> str:
    return f"{_PREFIX}:user:{{{platform}:{user}}}:games"


# Compare-and-set of one game. KEYS = game hash, log stream: both carry the same hash tag, so the
# script touches a single slot and is valid on Redis Cluster. ARGV = expected version ('' means
# "only if absent"), new version, data, ttl in ms, and optionally the log entry.
# If a reply is lost and the client retries, the re-run reports a conflict (the version already
# moved) rather than writing twice.
_SAVE_LUA = f"""
if ARGV[1] == '' then
  if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
elseif redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'data', ARGV[3])
if #ARGV >= 5 then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', {_LOG_MAXLEN}, '*', 'a', ARGV[5])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
"""

# Take-and-remove in one script so two workers can never claim the same deadline. One key, so it
# is Cluster-safe too. Caveat: if the reply is lost after the script ran, those deadlines are gone.
# Board drawing order: KEYS[1] = the board hash (ref, v). Claims ARGV[1] if it is newer than the
# version last drawn; always returns the ref so the caller needs no second round trip.
_BOARD_LUA = """
local drawn = tonumber(redis.call('HGET', KEYS[1], 'v') or '-1')
local ref = redis.call('HGET', KEYS[1], 'ref') or ''
if tonumber(ARGV[1]) <= drawn then return {0, ref} end
redis.call('HSET', KEYS[1], 'v', ARGV[1])
return {1, ref}
"""

_CLAIM_LUA = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for i = 1, #due do redis.call('ZREM', KEYS[1], due[i]) end
return due
"""


class GameStore:
    """The narrow storage interface the authority uses; one instance per process."""

    def __init__(self, client: aioredis.Redis, *, embedded: bool = False) -> None:
        self._client = client
        self.embedded = embedded
        self._save_script = client.register_script(_SAVE_LUA)
        self._claim_script = client.register_script(_CLAIM_LUA)
        self._board_script = client.register_script(_BOARD_LUA)
        # Some servers (the embedded one, locked-down managed Redis) refuse MEMORY USAGE.
        self._memory_command = True

    @classmethod
    def from_url(cls, url: str | None) -> GameStore:
        """A store on ``url``, or on an embedded in-process Redis when ``url`` is empty."""
        if not url:
            import fakeredis  # only the embedded mode needs it

            # A private FakeServer: stores built separately must not share state.
            fake = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer(), decode_responses=True)
            return cls(fake, embedded=True)
        client = aioredis.Redis.from_url(
            url,
            decode_responses=True,
            health_check_interval=_HEALTH_CHECK_INTERVAL_S,
            socket_connect_timeout=_SOCKET_TIMEOUT_S,
            socket_timeout=_SOCKET_TIMEOUT_S,
            retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), _RETRIES),
        )
        return cls(client)

    @property
    def client(self) -> aioredis.Redis:
        """The underlying client, for tests and admin tools; the authority should not need it."""
        return self._client

    @_outage_is_unavailable
    async def close(self) -> None:
        await self._client.aclose()

    @_outage_is_unavailable
    async def ping(self) -> None:
        await self._client.ping()

    @_outage_is_unavailable
    async def load(
        self, key: GameKey, dedupe: str | None = None, dedupe_ttl: int = 600
    ) -> tuple[bool, Loaded | None]:
        """Claim the delivery id (when given) and read the game, in one round trip.

        Returns ``(fresh, loaded)``: ``fresh`` is False when ``dedupe`` was seen before.
        """
        pipe = self._client.pipeline(transaction=False)
        if dedupe is not None:
            pipe.set(_dedupe_key(dedupe), 1, nx=True, ex=dedupe_ttl)
        pipe.hmget(_game_key(key), ["v", "data"])
        replies = await pipe.execute()
        fresh = bool(replies[0]) if dedupe is not None else True
        version, data = replies[-1]
        if version is None or data is None:
            return fresh, None
        return fresh, Loaded(int(version), _unpack(data))

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
    ) -> bool:
        """Write ``data`` at ``version`` if the stored version is ``expected`` (None: absent).

        Appends ``log`` to the game's stream and refreshes both keys' TTL. Returns False on a
        version conflict, in which case nothing was written.
        """
        args: list[str | int] = [
            "" if expected is None else str(expected),
            str(version),
            _pack(data),
            ttl_s * 1000,
        ]
        if log is not None:
            args.append(log)
        written = await self._save_script(keys=[_game_key(key), _log_key(key)], args=args)
        return bool(written)

    @_outage_is_unavailable
    async def delete(self, key: GameKey) -> None:
        await self._client.delete(_game_key(key), _log_key(key), _board_key(key))

    @_outage_is_unavailable
    async def board_ref(self, key: GameKey) -> str | None:
        """The platform's id of the channel's live board message, as an adapter stored it."""
        return cast(str | None, await self._client.hget(_board_key(key), "ref"))

    @_outage_is_unavailable
    async def set_board_ref(self, key: GameKey, ref: str, ttl_s: int) -> None:
        pipe = self._client.pipeline(transaction=True)
        pipe.hset(_board_key(key), "ref", ref)
        pipe.expire(_board_key(key), ttl_s)
        await pipe.execute()

    @_outage_is_unavailable
    async def claim_board(self, key: GameKey, version: int) -> BoardClaim:
        """May the board of game state ``version`` be drawn? Only if no newer one was.

        Two workers (or two deliveries in one) can finish in any order; the board must end up
        showing the newest state, so an older drawing is skipped. One round trip, which also
        returns the board message's id.
        """
        reply = await self._board_script(keys=[_board_key(key)], args=[version])
        current, ref = cast(list[Any], reply)
        return BoardClaim(bool(current), ref or None)

    @_outage_is_unavailable
    async def read_log(self, key: GameKey) -> list[str]:
        entries = cast(_StreamEntries, await self._client.xrange(_log_key(key)))
        return [fields["a"] for _id, fields in entries]

    @_outage_is_unavailable
    async def schedule(self, key: GameKey, due: float | None) -> None:
        """Set (or with None, clear) the game's next deadline as a unix timestamp."""
        if due is None:
            await self._client.zrem(_deadlines_key(key.platform), str(key))
        else:
            await self._client.zadd(_deadlines_key(key.platform), {str(key): due})

    @_outage_is_unavailable
    async def claim_due(self, platform: str, now: float, limit: int = 100) -> list[GameKey]:
        """Take up to ``limit`` of the platform's games whose deadline is <= ``now``.

        A claimed deadline is removed; the caller fires it and schedules the next one.
        """
        if limit <= 0:
            return []
        members = await self._claim_script(keys=[_deadlines_key(platform)], args=[now, limit])
        return [GameKey.parse(m) for m in cast(list[str], members)]

    @_outage_is_unavailable
    async def index_user(self, platform: str, user: str, key: GameKey, present: bool) -> None:
        if present:
            await self._client.sadd(_user_key(platform, user), str(key))
        else:
            await self._client.srem(_user_key(platform, user), str(key))

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
            except redis.exceptions.ResponseError:
                self._memory_command = False
            else:
                return sum(int(size or 0) for size in sizes)
        # Fallback estimate: the payload bytes, which is what a quota cares about.
        pipe = self._client.pipeline(transaction=False)
        pipe.hget(game, "data")
        pipe.xrange(log)
        replies = await pipe.execute()
        data = cast(str | None, replies[0])
        entries = cast(_StreamEntries, replies[1])
        total = len(data.encode()) if data is not None else 0
        return total + sum(len(fields["a"].encode()) for _id, fields in entries)
