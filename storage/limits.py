"""How often one person may have the bot post or upload on their behalf: a sliding window per
person, kept in Redis so that every worker counts the same presses.

One sorted set per person (``boardroom:user:{<platform>:<user>}:limits``, in the slot of their
list of games), its members ``<kind> <token>`` scored by when they were taken; it expires a
window after the last one. A kind is whatever the caller counts (``lobby``, ``share``...): storage
knows none of them.
"""

from __future__ import annotations

from storage.history import _call, _person_key, _script
from storage.store import GameStore

__all__ = ["give_back", "take"]

# KEYS[1] = the person's limits. ARGV = the window's start (older entries go), now, the kind,
# the member (``<kind> <token>``), the most a window holds of that kind, the window in ms.
# Returns -1 when taken (or taken before by this very member: a retried delivery counts once),
# else the time the oldest entry of the kind was taken (the caller adds the window).
_TAKE_LUA = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) then return -1 end
local prefix = ARGV[3] .. ' '
local taken, oldest = 0, nil
local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #all, 2 do
  if string.sub(all[i], 1, #prefix) == prefix then
    taken = taken + 1
    oldest = oldest or all[i + 1]
  end
end
if taken >= tonumber(ARGV[5]) then return oldest end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return -1
"""


async def take(
    store: GameStore,
    platform: str,
    user: str,
    kind: str,
    token: str,
    *,
    most: int,
    window_s: float,
    now: float,
) -> float | None:
    """Count one ``kind`` for ``user`` at ``now`` (as ``token``) if fewer than ``most`` were
    counted in the ``window_s`` before: None, or when they may again (nothing counted)."""
    key = _person_key(platform, user, "limits")
    script = _script(store, _TAKE_LUA)
    args: list[str | float | int] = [
        repr(now - window_s),
        repr(now),
        kind,
        f"{kind} {token}",
        most,
        max(1, round(window_s * 1000)),
    ]
    reply = await _call(store, lambda: script(keys=[key], args=args))
    oldest = float(reply)
    return None if oldest < 0 else oldest + window_s


async def give_back(store: GameStore, platform: str, user: str, kind: str, token: str) -> None:
    """Uncount what :func:`take` counted as ``token`` (it posted nothing in the end)."""
    client = store.client
    key = _person_key(platform, user, "limits")
    await _call(store, lambda: client.zrem(key, f"{kind} {token}"))
