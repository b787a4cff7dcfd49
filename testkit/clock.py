"""Clocks for the fakes, the simulated players and the table's budgets, in tests and benches.

Everything in a test that measures or waits out time on a platform's terms (the table's
budgets, :class:`~bot.table.budget.Budget`, the fakes' rate windows and acknowledgement windows,
the simulated players' pauses, the authority's deadlines) reads one clock, so that what the bot
does is judged by the same time it keeps:

- :class:`RealClock`: the machine's clocks (the default everywhere, and what the benches use).
- :class:`VirtualClock`: time that runs with the real clock and *jumps* over waits. A
  :meth:`~VirtualClock.sleep` does not wait for real: once the event loop has run what was
  ready, the clock moves on to the end of the earliest sleep and wakes it. So a table waiting
  for Discord's 5-posts-per-5-seconds window costs no real time, while the fake still counts
  those 5 s between the posts (in the clock's time) exactly as it would have.

  Time never runs slower than the real clock (the jumps only add), so every window a fake
  checks is at least as strict as with real time. A :meth:`~VirtualClock.hold` keeps the clock
  from jumping while it is open: the fakes hold it while a request of theirs waits for the
  bot's acknowledgement (a Discord interaction's callback, the HTTP answer to a Slack request),
  so the time the bot takes to acknowledge is real time, plus any waiting on the clock it did
  first, which then runs in real time too. A bot that made a press wait for a rate window
  before acknowledging it is therefore caught late, as on the platform, and one that did not
  is never blamed for a jump made meanwhile by something else.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["Clock", "Hold", "RealClock", "VirtualClock", "held", "pause"]


class Hold:
    """An open :meth:`VirtualClock.hold`: the clock does not jump until it is released."""

    def __init__(self, clock: VirtualClock | None) -> None:
        self._clock = clock

    def release(self) -> None:
        """Let the clock jump again (once; later calls do nothing)."""
        clock, self._clock = self._clock, None
        if clock is not None:
            clock._released()

    @property
    def open(self) -> bool:
        return self._clock is not None

    def __enter__(self) -> Hold:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class RealClock:
    """The machine's clocks: :func:`time.monotonic`, :func:`time.time`, :func:`asyncio.sleep`."""

    def now(self) -> float:
        """Monotonic seconds."""
        return time.monotonic()

    def __call__(self) -> float:
        return self.now()

    def wall(self) -> float:
        """Seconds since the epoch (what the authority schedules deadlines with)."""
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    def hold(self) -> Hold:
        """Nothing to hold: real time never jumps."""
        return Hold(None)


class Clock(Protocol):
    """What the fakes, the simulated players and the table read the time from and wait on
    (:class:`RealClock`, :class:`VirtualClock`); calling it is :meth:`now`."""

    def now(self) -> float: ...

    def __call__(self) -> float: ...

    def wall(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...

    def hold(self) -> Hold: ...


@dataclass(order=True)
class _Sleeper:
    due: float
    order: int
    waker: asyncio.Future[None] = field(compare=False)


class VirtualClock:
    """Real time plus the time jumped over (see the module's docstring).

    ``skipped`` and ``held_s`` say how much time the jumps saved and how long sleeps ran in real
    time because a hold was open (for a test that wants to know; nothing depends on them).
    """

    def __init__(self) -> None:
        self.skipped = 0.0
        """Seconds jumped over in all."""
        self.jumps = 0
        self.held_s = 0.0
        """Seconds of sleeps that ran in real time because a hold was open."""
        self._sleepers: list[_Sleeper] = []
        self._order = itertools.count()
        self._holds = 0
        self._timer: asyncio.TimerHandle | None = None
        self._pending = False
        self._loop: asyncio.AbstractEventLoop | None = None

    def now(self) -> float:
        """Monotonic seconds: the real clock's plus every jump so far."""
        return time.monotonic() + self.skipped

    def __call__(self) -> float:
        return self.now()

    def wall(self) -> float:
        """Seconds since the epoch, moved on by the same jumps (for the authority's clock)."""
        return time.time() + self.skipped

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of this clock's time: at once, by a jump, unless a hold is open."""
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new test's event loop: nothing of the old one is live
            self._loop, self._sleepers, self._timer, self._pending = loop, [], None, False
        sleeper = _Sleeper(self.now() + seconds, next(self._order), loop.create_future())
        heapq.heappush(self._sleepers, sleeper)
        started_held = self._holds > 0
        began = time.monotonic()
        self._schedule()
        try:
            await sleeper.waker
        finally:
            if not sleeper.waker.done():
                sleeper.waker.cancel()  # cancelled: _wake drops it
            if started_held:
                self.held_s += time.monotonic() - began

    def hold(self) -> Hold:
        """Keep the clock from jumping until the returned :class:`Hold` is released."""
        self._holds += 1
        return Hold(self)

    def _released(self) -> None:
        self._holds -= 1
        if self._holds == 0:
            self._schedule()

    def _schedule(self) -> None:
        """Wake the earliest sleeper: by a jump on the loop's next turn when nothing holds the
        clock, else by a real timer at its due time."""
        loop = self._loop
        if loop is None or loop.is_closed() or not self._sleepers:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._holds == 0:
            if not self._pending:
                self._pending = True
                loop.call_soon(self._wake, True)
            return
        delay = max(0.0, self._sleepers[0].due - self.now())
        self._timer = loop.call_later(delay, self._wake, False)

    def _wake(self, jump: bool) -> None:
        if jump:
            self._pending = False
        else:
            self._timer = None
        sleepers = self._sleepers
        while sleepers and sleepers[0].waker.done():
            heapq.heappop(sleepers)  # cancelled
        if not sleepers:
            return
        if jump and self._holds == 0:
            ahead = sleepers[0].due - self.now()
            if ahead > 0:
                self.skipped += ahead
                self.jumps += 1
        now = self.now()
        while sleepers and (sleepers[0].due <= now or sleepers[0].waker.done()):
            waker = heapq.heappop(sleepers).waker
            if not waker.done():
                waker.set_result(None)
        self._schedule()


def held(clock: object) -> Hold:
    """A hold on ``clock`` if it can jump (a :class:`VirtualClock`); a clock that is a bare
    function (a test's hand-moved one, the real one) never jumps by itself."""
    if isinstance(clock, VirtualClock):
        return clock.hold()
    return Hold(None)


async def pause(clock: object, seconds: float) -> None:
    """Wait ``seconds`` on ``clock`` when it can wait (:class:`RealClock`,
    :class:`VirtualClock`); a bare function of time cannot, so the real clock waits."""
    if isinstance(clock, RealClock | VirtualClock):
        await clock.sleep(seconds)
    else:
        await asyncio.sleep(max(0.0, seconds))
