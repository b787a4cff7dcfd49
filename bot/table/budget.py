"""The platforms' budgets: every rationed call is taken from one budget shared by every worker.

Slack rations each Web API method per app per workspace (``chat.update`` about 50 a minute for the
whole workspace) and posting per conversation; Discord rations each route (5 messages per 5 s in
a channel) and a bot's calls in all (50 a second). An adapter names the :class:`Limit` s a call
draws on (its method, its conversation, the global limit); :class:`Budget` takes one call from
each of them in the store (:meth:`~storage.GameStore.take_budget`, one script for all of a
call's limits), so that several workers on one Redis together stay within the platform's rates,
and the embedded store keeps the same budgets in process. A limit is kept as the platform keeps
it: Slack's tiers as token buckets (a burst, then one call back every so often), Discord's
routes as windows (a sliding log, within its fixed windows).

Who goes first when the budget is short is a matter of :class:`Priority`. What the table can
show later (an edit of a surface it keeps) does not wait at all: each limit keeps its last calls
for the higher priorities (:data:`HELD_SHARE`), and past its share such a call raises
:class:`Deferred`; the table shows that surface's newest state once the budget has room again
(:mod:`bot.table.deliver`), so under a steady load the board and the prompt go first, then the
panel of whoever the game waits for, other panels. A call that cannot be deferred (a post, a
deletion) books its place: the store gives it the first moment every limit it draws on has
room and keeps that place for it while it waits, so waiting calls go first come, first served,
in the order their deliveries make them (the story before the prompt, the board at the bottom),
one script each, and no later call, of this worker or another, takes the place it waits for.
The presser's own answer goes through the interaction's own channel (Discord's callback and
webhook, Slack's ``response_url``), which neither platform rations this way, so it never waits
here.

The table says what each call is through :func:`calling`; the adapter's client asks
:meth:`Budget.take` with :func:`current` before each call it makes.
"""

from __future__ import annotations

import contextlib
import contextvars
import enum
import itertools
import logging
import secrets
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bot import metrics
from bot.table.clock import Clock, MonotonicClock
from storage import BudgetLimit, GameStore, StorageUnavailable

__all__ = [
    "HELD_SHARE",
    "Budget",
    "Call",
    "Deferred",
    "Limit",
    "Priority",
    "calling",
    "current",
]

log = logging.getLogger(__name__)


class Priority(enum.IntEnum):
    """Who goes first when a budget is short (lower first)."""

    ANSWER = 0
    """The requester's own answer, where it must use a rationed method (an ephemeral reply
    past the interaction's own channel), and what answering needs (a display name)."""
    BOARD = 1
    """The board, the prompt, the game's card, its thread and result."""
    WAITED = 2
    """The panel of whoever the game waits for, and their turn notice."""
    PANEL = 3
    """Other panels, notes to others, people's pages (Slack's Home tab)."""
    LOG = 4
    """The story of the game (log posts, players' own posts)."""


HELD_SHARE: dict[Priority, float] = {
    Priority.ANSWER: 0.0,
    Priority.BOARD: 0.0,
    Priority.WAITED: 0.4,
    Priority.PANEL: 0.6,
    Priority.LOG: 0.8,
}
"""The share of each limit's calls a priority may not use (left for those before it)."""
SWEEP_EVERY = 1000
"""Looks at the calls taken after which the limits of quiet conversations are forgotten."""
SWEEP_S = 60.0
"""Or seconds, at the first look after them (a worker that went quiet forgets them then)."""


@dataclass(frozen=True)
class Limit:
    """At most ``calls`` within any ``window_s`` seconds (a sliding window: within a platform's
    fixed windows of the same rate), or, a ``bucket``, a token bucket of ``calls`` tokens, one
    back every ``window_s / calls`` seconds (as Slack's tiers are kept)."""

    name: str
    calls: int
    window_s: float
    bucket: bool = False

    def held(self, priority: Priority) -> int:
        """Calls of this limit left to priorities before ``priority`` (never all of them)."""
        return min(self.calls - 1, int(self.calls * HELD_SHARE[priority]))

    def asked(self, priority: Priority) -> BudgetLimit:
        """This limit as the store takes from it, for a call of ``priority``."""
        return BudgetLimit(self.name, self.calls, self.window_s, self.held(priority), self.bucket)


@dataclass(frozen=True)
class Call:
    """What the call being made is, for its budget: its priority, and whether it may be
    deferred (the table shows that surface later) rather than wait."""

    priority: Priority = Priority.BOARD
    deferrable: bool = False
    surface: str = ""
    """What it shows (``board``, ``panel:<user>``...), for the log."""


_ANY_CALL = Call()
"""A call the table said nothing of (a tool's, a person's page)."""
_CALL: contextvars.ContextVar[Call | None] = contextvars.ContextVar("boardroom_call", default=None)


def current() -> Call:
    """What the call about to be made is (as the table said with :func:`calling`)."""
    return _CALL.get() or _ANY_CALL


@contextlib.contextmanager
def calling(call: Call) -> Iterator[None]:
    """Every platform call made within is ``call`` for its budget."""
    token = _CALL.set(call)
    try:
        yield
    finally:
        _CALL.reset(token)


class Deferred(Exception):
    """The budget has no room for a deferrable call now: the table shows it later. ``wait``:
    seconds until it has."""

    def __init__(self, wait: float) -> None:
        super().__init__(f"no room in the platform's budget for {wait:.2f} s")
        self.wait = wait


class Budget:
    """One platform app's budgets (``scope``: the app in one workspace, or one bot), in the
    store, on a clock that tests move (its unix time is what every worker's calls are logged
    at)."""

    def __init__(self, store: GameStore, scope: str, clock: Clock | None = None) -> None:
        self.store = store
        self.scope = scope
        self.clock: Clock = clock or MonotonicClock()
        self._token = secrets.token_hex(4)
        self._members = itertools.count()
        self.waited_s = 0.0
        """Seconds calls of this process waited for room, in all."""
        self.deferred = 0
        """Calls of this process deferred for want of room."""
        self._recent: dict[str, deque[float]] = {}
        """When this process last took each limit's calls (for :meth:`room`, an estimate)."""
        self._windows: dict[str, float] = {}
        self._looks = 0
        self._swept = 0.0

    async def take(self, limits: Sequence[Limit], call: Call | None = None) -> None:
        """Take one call from each of ``limits``: at once when they have room, else booking the
        first place they have and waiting for it, or raising :class:`Deferred` for a deferrable
        ``call`` (nothing taken). A store that cannot be
        reached does not stop the call (the platform's own limits still stand)."""
        call = call or current()
        # Only a call that can be deferred leaves a limit's last calls to those before it: one
        # that waits (a post, a deletion) would hold up its whole delivery, and with it the
        # next press of its channel, while the others went on. Those go first come, first
        # served, in the order their deliveries make them.
        priority = call.priority if call.deferrable else Priority.ANSWER
        bucket = limits[0].name.partition(":")[0] if limits else ""
        platform = self.scope.partition(":")[0]
        wait = await self._try(limits, priority, book=not call.deferrable)
        if wait <= 0:
            return
        if call.deferrable:
            self.deferred += 1
            metrics.budget_deferred(platform, bucket)
            raise Deferred(wait)
        # Booked: the place is this call's at the end of the wait.
        self.waited_s += wait
        metrics.budget_wait(platform, bucket, wait)
        await self.clock.sleep(wait)

    async def _try(self, limits: Sequence[Limit], priority: Priority, book: bool) -> float:
        if not limits:
            return 0.0
        member = f"{self._token}:{next(self._members)}"
        now = self.clock.wall()
        asked = [limit.asked(priority) for limit in limits]
        try:
            wait = await self.store.take_budget(self.scope, asked, now, member, book=book)
        except StorageUnavailable:
            log.warning("the call budget could not be read; calling anyway")
            return 0.0
        if wait <= 0 or book:
            for limit in limits:
                self._seen(limit).append(now + max(0.0, wait))
        return wait

    async def spent(self, limit: Limit, retry_after: float) -> None:
        """The platform answered 429 for ``limit``: nobody takes from it for ``retry_after``."""
        member = f"{self._token}:{next(self._members)}:spent"
        now = self.clock.wall()
        asked = limit.asked(Priority.ANSWER)
        with contextlib.suppress(StorageUnavailable):
            await self.store.spend_budget(self.scope, asked, now, now + retry_after, member)

    def room(self, limit: Limit) -> int:
        """About how many calls ``limit`` takes now without waiting, as far as this process's
        own calls tell (for decisions that only prefer not to wait: whether the log can wait)."""
        recent = self._seen(limit)
        return max(0, limit.calls - len(recent))

    def _seen(self, limit: Limit) -> deque[float]:
        now = self.clock.wall()
        self._looks += 1
        if self._looks % SWEEP_EVERY == 0 or now - self._swept > SWEEP_S:
            self._sweep(now)
        recent = self._recent.get(limit.name)
        if recent is None:
            recent = self._recent[limit.name] = deque()
            self._windows[limit.name] = limit.window_s
        while recent and now - recent[0] >= limit.window_s:
            recent.popleft()
        return recent

    def _sweep(self, now: float) -> None:
        """Forget the limits with no call within their window (a quiet conversation's)."""
        self._swept = now
        for name in [
            n for n, r in self._recent.items() if not r or now - r[-1] >= self._windows[n]
        ]:
            del self._recent[name], self._windows[name]

    def limits_known(self) -> int:
        """Limits this process keeps calls of (a quiet conversation's go)."""
        self._sweep(self.clock.wall())
        return len(self._recent)
