"""Chores the deadline loop does besides games: the history's sweep, and forget-me jobs.

Both are kept per platform in Redis (``storage.history``: a sorted set by due time, claimed
with a lease like deadlines), so any worker does them and a restart loses none: a community's
sweep comes due when its oldest game is as old as the history keeps (``sweep <community>``),
a person's erasure when it is armed, when it failed part-way, or a minute after a game that
held them ended (``forget <user>``). Every worker looks for due chores at most every
:data:`EVERY_S` seconds of its clock, from :meth:`~bot.commands.authority.Authority.fire_due`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.commands.community.forget import RETRY_S, Forgetter
from bot.commands.community.results import Recorder
from core.registry import all_games
from storage import GameStore, StorageUnavailable
from storage import history as kept

__all__ = ["EVERY_S", "LEASE_S", "Upkeep"]

log = logging.getLogger(__name__)

EVERY_S = 30.0
"""How often a worker looks for due chores: the history leaves within this of its time."""
LEASE_S = 120.0
"""How long a worker holds a chore it does; if it dies, another does it after this."""


class Upkeep:
    """Does a platform's due chores."""

    def __init__(
        self,
        store: GameStore,
        clock: Callable[[], float],
        recorder: Recorder,
        forgetter: Forgetter,
    ) -> None:
        self.store = store
        self.clock = clock
        self.recorder = recorder
        self.forgetter = forgetter
        self._next: dict[str, float] = {}
        self._adopted: set[str] = set()

    async def run(self, platform: str, token: str) -> int:
        """Do the chores of ``platform`` that are due (if this worker has not looked lately):
        how many were done."""
        now = self.clock()
        if now < self._next.get(platform, float("-inf")):
            return 0
        self._next[platform] = now + EVERY_S
        try:
            if platform not in self._adopted:
                await self._adopt(platform, now)
            chores = await kept.claim_chores(self.store, platform, now, LEASE_S, token)
        except StorageUnavailable:
            return 0
        for chore in chores:
            kind, _, what = chore.partition(" ")
            try:
                due = await self._do(platform, kind, what)
            except Exception as error:  # one chore must not stop the others, nor the loop
                log.warning("the chore %s of %s failed (%s); retried", kind, platform, error)
                due = now + RETRY_S
            try:
                await kept.release_chore(self.store, platform, chore, token, due)
            except StorageUnavailable:
                log.warning("could not set the next time of a chore; its lease ends by itself")
        return len(chores)

    async def _adopt(self, platform: str, now: float) -> None:
        """Communities recorded before history was kept on time (once per deployment): each
        gets what the sweep reads, and a sweep due now."""
        games = [g.name for g in all_games()]
        for community in await kept.unadopted(self.store, platform):
            where = kept.Community(platform, community)
            await kept.adopt(self.store, where, games, self.recorder.keep_s)
            await kept.arm_chore(self.store, platform, f"sweep {community}", now)
        await kept.adopted(self.store, platform)
        self._adopted.add(platform)

    async def _do(self, platform: str, kind: str, what: str) -> float | None:
        """Do one chore: when it is due again (None: done)."""
        if kind == "sweep":
            return await self.recorder.sweep(kept.Community(platform, what))
        if kind == "forget":
            return (await self.forgetter.run(platform, what, None)).pending_until
        log.warning("a chore of an unknown kind (%s) was dropped", kind)
        return None
