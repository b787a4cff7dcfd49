"""The platforms' budgets shared by every worker (bot/table/budget.py) on a real redis-server:
a sliding window per limit, taken from all of a call's limits or none, priorities holding the
last calls back, a 429 spending a limit for everyone, and deferrable calls that never wait."""

from __future__ import annotations

import pytest

from bot.table.budget import Budget, Call, Deferred, Limit, Priority, calling, current
from storage import GameStore
from testkit.clock import VirtualClock


@pytest.fixture
def store(redis_store: GameStore) -> GameStore:
    return redis_store


UPDATE = Limit("chat.update", 5, 6.3)
POSTS = Limit("post:C1", 1, 1.05)


async def test_two_workers_together_stay_within_a_limit(store: GameStore) -> None:
    clock = VirtualClock()
    one, two = Budget(store, "slack:w", clock), Budget(store, "slack:w", clock)
    started = clock.now()
    taken: list[float] = []
    for n in range(12):
        await (one if n % 2 else two).take([UPDATE])
        taken.append(clock.now() - started)
    # Within any 6.3 s, at most 5 calls, whichever worker took them (as the bench measures
    # them: a few ms after each was taken).
    for first, at in enumerate(taken):
        assert sum(1 for other in taken[first:] if other - at < UPDATE.window_s - 0.02) <= 5
    assert taken[4] < 0.1 and taken[5] >= UPDATE.window_s - 0.01
    other = Budget(store, "slack:another-workspace", clock)
    before = clock.now()
    await other.take([UPDATE])  # another app or workspace: a budget of its own
    assert clock.now() - before < 0.1


async def test_a_call_takes_from_all_its_limits_or_from_none(store: GameStore) -> None:
    clock = VirtualClock()
    budget = Budget(store, "slack:w", clock)
    await budget.take([POSTS])
    wait = await budget._try([POSTS, UPDATE], Priority.BOARD)
    assert 0 < wait <= POSTS.window_s
    for _ in range(5):  # the refused call took nothing from chat.update
        assert await budget._try([UPDATE], Priority.BOARD) == 0


async def test_lower_priorities_leave_the_last_calls_to_the_board(store: GameStore) -> None:
    clock = VirtualClock()
    budget = Budget(store, "slack:w", clock)
    assert UPDATE.held(Priority.PANEL) == 3 and UPDATE.held(Priority.WAITED) == 2
    assert UPDATE.held(Priority.BOARD) == 0
    for _ in range(2):
        assert await budget._try([UPDATE], Priority.PANEL) == 0
    assert await budget._try([UPDATE], Priority.PANEL) > 0  # three are left, for the others
    assert await budget._try([UPDATE], Priority.WAITED) == 0
    assert await budget._try([UPDATE], Priority.WAITED) > 0
    for _ in range(2):
        assert await budget._try([UPDATE], Priority.BOARD) == 0
    assert await budget._try([UPDATE], Priority.BOARD) > 0


async def test_only_a_call_that_can_be_deferred_leaves_room_to_others(store: GameStore) -> None:
    """A post of the story waits its turn rather than for the board's share: it would hold up
    its whole delivery."""
    clock = VirtualClock()
    budget = Budget(store, "slack:w", clock)
    for _ in range(4):
        await budget.take([UPDATE], Call(Priority.LOG))
    before = clock.now()
    await budget.take([UPDATE], Call(Priority.LOG))  # the fifth: no waiting for a share
    assert clock.now() - before < 0.05
    with pytest.raises(Deferred):
        await budget.take([UPDATE], Call(Priority.PANEL, deferrable=True))


async def test_a_deferrable_call_never_waits_and_says_for_how_long(store: GameStore) -> None:
    clock = VirtualClock()
    budget = Budget(store, "slack:w", clock)
    for _ in range(5):
        await budget.take([UPDATE], Call(Priority.BOARD, deferrable=True))
    before = clock.now()
    with pytest.raises(Deferred) as deferred:
        await budget.take([UPDATE], Call(Priority.BOARD, deferrable=True))
    assert clock.now() == pytest.approx(before, abs=0.05)
    assert 0 < deferred.value.wait <= UPDATE.window_s and budget.deferred == 1
    with calling(Call(Priority.PANEL, surface="panel:U1")):
        assert current() == Call(Priority.PANEL, surface="panel:U1")
    assert current() == Call()


async def test_a_429_spends_the_limit_for_every_worker_until_retry_after(
    store: GameStore,
) -> None:
    clock = VirtualClock()
    one, two = Budget(store, "slack:w", clock), Budget(store, "slack:w", clock)
    await one.spent(UPDATE, 4.0)
    wait = await two._try([UPDATE], Priority.BOARD)
    assert 3.9 < wait <= 4.0
    await clock.sleep(4.0)
    assert await two._try([UPDATE], Priority.BOARD) == 0
