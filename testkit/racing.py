"""A game store that loses races and replies on purpose, so tests run what the authority does then.

:class:`RacingStore` wraps the real :class:`storage.GameStore` (the embedded one is enough) and
injects trouble into the saves made through it, each for a number of saves or for every one:

- a **competing write** (:meth:`RacingStore.compete`): between the load of a game and its save,
  someone else saves that game first, so the save meets a compare-and-set conflict. The
  competitor is any coroutine writing through the real store: by default :func:`bump` (the
  stored record saved again, one version up), or a second authority making a real move;
- a **lost reply** (:meth:`RacingStore.lose_replies`): the save is written, then its reply is
  lost. Either the connection fails (``"error"``: StorageUnavailable, chained to redis-py's
  ConnectionError as the real store raises it), or the client sends the same save again, as
  redis-py's retry does, and answers what that second run says (``"retry"``: a conflict, or
  ``DUPLICATE`` when the save carries a delivery id).

Production code never imports this module.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

import redis.exceptions

from storage import GameKey, GameStore, Loaded, SaveResult, StorageUnavailable

__all__ = ["Competitor", "RacingStore", "bump"]

Competitor = Callable[[GameStore, GameKey], Awaitable[None]]
"""Writes to the game ``key`` through the real store, as another worker or player would."""


async def bump(store: GameStore, key: GameKey, ttl_s: int = 3600) -> None:
    """The plainest competing write: the stored record saved again, one version up."""
    _, loaded = await store.load(key)
    if loaded is None:
        raise AssertionError(f"nothing stored under {key} to compete with")
    result = await store.save(
        key, loaded.data, expected=loaded.version, version=loaded.version + 1, ttl_s=ttl_s
    )
    if result is not SaveResult.WRITTEN:
        raise AssertionError(f"the competing write was not written: {result!r}")


class RacingStore(GameStore):
    """The real store ``inner``, with competing writes and lost replies injected into saves.

    Everything but :meth:`load_table` (which :meth:`load` reads through) and :meth:`save` is the
    real store's own (the same client).
    """

    def __init__(self, inner: GameStore) -> None:
        super().__init__(inner.client, embedded=inner.embedded, timeout_s=inner.timeout_s)
        self.inner = inner
        """The real store: competitors write through it, so they are never raced themselves."""
        self._competitor: Competitor = bump
        self._competitions: int | None = 0
        self._lost: int | None = 0
        self._how: Literal["error", "retry"] = "error"
        self._loaded: set[GameKey] = set()
        self.answers: list[SaveResult] = []
        """What the real store answered to each save made through this one, in order (a save
        sent again after a lost reply answers twice)."""
        self.competed = 0
        """How many competing writes were made."""

    def compete(self, times: int | None = 1, competitor: Competitor = bump) -> None:
        """Before each of the next ``times`` saves of a game loaded through this store (None:
        every one), let ``competitor`` write to that game first."""
        self._competitor = competitor
        self._competitions = times

    def lose_replies(self, times: int | None = 1, how: Literal["error", "retry"] = "error") -> None:
        """Lose the reply of each of the next ``times`` saves (None: every one) after the real
        store ran it: ``"error"`` raises StorageUnavailable, ``"retry"`` sends it again."""
        self._lost = times
        self._how = how

    async def load_table(
        self, key: GameKey, dedupe: str | None = None
    ) -> tuple[bool, Loaded | None, tuple[int, str] | None]:
        found = await self.inner.load_table(key, dedupe=dedupe)
        self._loaded.add(key)
        return found

    async def save(self, key: GameKey, data: str, **kwargs: Any) -> SaveResult:
        if key in self._loaded and _take(self._competitions):
            self._competitions = _less(self._competitions)
            self.competed += 1
            await self._competitor(self.inner, key)
        self._loaded.discard(key)
        answer = await self.inner.save(key, data, **kwargs)
        self.answers.append(answer)
        if not _take(self._lost):
            return answer
        self._lost = _less(self._lost)
        if self._how == "retry":
            again = await self.inner.save(key, data, **kwargs)
            self.answers.append(again)
            return again
        raise StorageUnavailable() from redis.exceptions.ConnectionError("the reply was lost")


def _take(left: int | None) -> bool:
    return left is None or left > 0


def _less(left: int | None) -> int | None:
    return None if left is None else left - 1
