"""The virtual clock the adapter tests keep time by (``testkit.clock``), and the table's pacer on
it: waits are jumped over, never shortened in the clock's own time, and not while held."""

from __future__ import annotations

import asyncio
import time

from bot.table.budget import Budget, Limit
from storage import GameStore
from testkit.clock import RealClock, VirtualClock, held, pause


async def test_a_sleep_jumps_and_the_clock_counts_the_whole_of_it() -> None:
    clock = VirtualClock()
    began, real = clock.now(), time.monotonic()
    await clock.sleep(3600)
    assert clock.now() - began >= 3600
    assert time.monotonic() - real < 60  # an hour of the clock, not of the machine
    assert clock.skipped > 3590 and clock.jumps == 1
    assert clock.wall() - time.time() >= 3590  # the wall clock moves on with it


async def test_sleepers_wake_in_the_order_they_are_due_each_at_its_time() -> None:
    clock = VirtualClock()
    start = clock.now()
    woke: list[tuple[str, float]] = []

    async def sleeper(name: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append((name, clock.now() - start))

    await asyncio.gather(sleeper("late", 5.0), sleeper("soon", 1.0), sleeper("mid", 2.5))
    assert [name for name, _ in woke] == ["soon", "mid", "late"]
    for (_, at), wanted in zip(woke, (1.0, 2.5, 5.0), strict=True):
        assert at >= wanted  # never woken before its time, in the clock's time
    assert woke[-1][1] < 5.0 + 30  # and the jumps did not pile up (5 s, not 8.5 s and more)


async def test_a_cancelled_sleep_wakes_nobody_else_early() -> None:
    clock = VirtualClock()
    start = clock.now()
    doomed = asyncio.create_task(clock.sleep(1.0))
    await asyncio.sleep(0)
    doomed.cancel()
    await clock.sleep(2.0)
    assert doomed.cancelled()
    assert clock.now() - start >= 2.0


async def test_while_held_the_clock_runs_in_real_time_only() -> None:
    clock = VirtualClock()
    hold = held(clock)
    sleeping = asyncio.create_task(clock.sleep(0.2))
    await asyncio.sleep(0.05)
    assert not sleeping.done() and clock.skipped == 0  # no jump while something is held
    await sleeping  # real time took it there
    assert clock.skipped == 0 and clock.held_s >= 0.15
    hold.release()
    hold.release()  # once only
    await clock.sleep(10)
    assert clock.skipped > 9  # released: it jumps again


async def test_releasing_the_hold_lets_a_waiting_sleeper_jump() -> None:
    clock = VirtualClock()
    with held(clock):
        sleeping = asyncio.create_task(clock.sleep(600))
        await asyncio.sleep(0.01)
        assert not sleeping.done()
    await asyncio.wait_for(sleeping, 30)
    assert clock.skipped > 590


async def test_other_clocks_never_jump_and_pause_falls_back_to_real_time() -> None:
    real = RealClock()
    assert not held(real).open and not held(time.monotonic).open
    assert abs(real() - time.monotonic()) < 1 and abs(real.wall() - time.time()) < 1
    began = time.monotonic()
    await pause(lambda: 0.0, 0.01)  # a bare function of time: the real clock waits
    await pause(real, 0.01)
    assert time.monotonic() - began >= 0.02


async def test_the_budget_keeps_its_window_in_the_clocks_time() -> None:
    """Discord's 5 posts per 5 s: 12 posts take at least two whole windows of the clock, and no
    5 s of it hold more than 5, though no real time is spent waiting (the embedded store keeps
    the budget in process)."""
    clock = VirtualClock()
    budget = Budget(GameStore.from_url(None), "discord:test", clock)
    posts, other = Limit("messages:C1", 5, 5.0), Limit("messages:C2", 5, 5.0)
    sent: list[float] = []
    began = time.monotonic()
    for _ in range(12):
        await budget.take([posts])
        sent.append(clock.now())
    assert sent[-1] - sent[0] >= 10.0 - 0.05
    assert all(
        later - earlier >= 5.0 - 0.05 for earlier, later in zip(sent, sent[5:], strict=False)
    )
    assert time.monotonic() - began < 5.0
    assert budget.room(other) == 5 and budget.room(posts) < 5
