"""Small readers of what the authority returned and stored, shared by its tests."""

from __future__ import annotations

from typing import Any

from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from core.engine import GameState
from storage import GameKey, GameStore
from storage.store import _unpack


class Clock:
    """A clock the tests move by hand (``clock.now = ...``)."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def public_text(out: Outbox) -> str:
    """Everything everyone sees: the card, the log, posts, the prompt, the result, the board."""
    shown = [*out.public, *([out.board] if out.board is not None else [])]
    return "\n".join(m.text for m in shown)


async def stored_record(store: GameStore, key: GameKey) -> GameRecord:
    """The channel's game record as saved."""
    _, loaded = await store.load(key)
    assert loaded is not None
    return GameRecord.model_validate_json(loaded.data)


def roster(rec: GameRecord) -> dict[str, list[str]]:
    """Each seat's name and the users in it."""
    return {seat.name: seat.users for seat in rec.seats}


async def save_state(store: GameStore, key: GameKey, record: GameRecord, state: GameState) -> None:
    """Write ``state`` into the channel's record (as a later moment of the same game)."""
    _, loaded = await store.load(key)
    assert loaded is not None
    record.state_json = state.model_dump_json()
    saved = await store.save(
        key,
        record.model_dump_json(),
        expected=loaded.version,
        version=loaded.version + 1,
        ttl_s=3600,
    )
    assert saved


async def everything(store: GameStore) -> list[tuple[str, str]]:
    """Every key of the store with everything it holds, unpacked, as text."""
    client: Any = store.client
    found = []
    async for key in client.scan_iter(match="*", count=1000):
        kind = await client.type(key)
        if kind == "string":
            value: Any = await client.get(key)
        elif kind == "hash":
            value = await client.hgetall(key)
        elif kind == "zset":
            value = await client.zrange(key, 0, -1, withscores=True)
        elif kind == "set":
            value = sorted(await client.smembers(key))
        elif kind == "stream":
            value = await client.xrange(key)
        else:
            value = await client.lrange(key, 0, -1)
        found.append((str(key), _deep_text(value)))
    return found


def _deep_text(value: Any) -> str:
    if isinstance(value, str):
        return _unpack(value)
    if isinstance(value, dict):
        return " ".join(f"{_deep_text(k)} {_deep_text(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return " ".join(_deep_text(v) for v in value)
    return str(value)
