"""The platforms' budgets shared by every worker (bot/table/budget.py), on a real redis-server
and on the embedded store: a sliding window or a token bucket per limit, taken from all of a
call's limits or none, priorities holding the last calls back, a 429 spending a limit for
everyone, deferrable calls that never wait, and waiting calls that book their places in turn."""

from __future__ import annotations

import pytest

from bot.adapters.slack.budget import limits_of
from bot.table.budget import Budget, Call, Deferred, Limit, Priority, calling, current
from storage import GameStore
from testkit.ratelimits import TokenBucket


class VirtualClock:
    """Time that moves only when a call waits (no real time leaks in between two calls, so
    the windows and buckets are checked to the millisecond on a busy machine)."""

    def __init__(self) -> None:
        self.at = 1000.0

    def now(self) -> float:
        return self.at

    def wall(self) -> float:
        return self.at

    async def sleep(self, seconds: float) -> None:
        self.at += max(0.0, seconds)


UPDATE = Limit("chat.update", 5, 6.3)
POSTS = Limit("post:C1", 1, 1.05)
TIER = Limit("chat.update", 5, 6.3, bucket=True)
"""Five at once, then one back every 1.26 s."""


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
    wait = await budget._try([POSTS, UPDATE], Priority.BOARD, book=False)
    assert 0 < wait <= POSTS.window_s
    for _ in range(5):  # the refused call took nothing from chat.update
        assert await budget._try([UPDATE], Priority.BOARD, book=False) == 0


async def test_lower_priorities_leave_the_last_calls_to_the_board(store: GameStore) -> None:
    clock = VirtualClock()
    budget = Budget(store, "slack:w", clock)
    assert UPDATE.held(Priority.PANEL) == 3 and UPDATE.held(Priority.WAITED) == 2
    assert UPDATE.held(Priority.BOARD) == 0
    for _ in range(2):
        assert await budget._try([UPDATE], Priority.PANEL, book=False) == 0
    # Three are left, for the others.
    assert await budget._try([UPDATE], Priority.PANEL, book=False) > 0
    assert await budget._try([UPDATE], Priority.WAITED, book=False) == 0
    assert await budget._try([UPDATE], Priority.WAITED, book=False) > 0
    for _ in range(2):
        assert await budget._try([UPDATE], Priority.BOARD, book=False) == 0
    assert await budget._try([UPDATE], Priority.BOARD, book=False) > 0


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


@pytest.mark.parametrize("limit", [UPDATE, TIER], ids=["window", "bucket"])
async def test_a_429_spends_a_bucket_or_a_window_alike(store: GameStore, limit: Limit) -> None:
    clock = VirtualClock()
    one, two = Budget(store, "slack:w", clock), Budget(store, "slack:w", clock)
    await one.spent(limit, 4.0)
    assert 3.9 < await two._try([limit], Priority.BOARD, book=False) <= 4.0
    await clock.sleep(4.0)
    assert await two._try([limit], Priority.BOARD, book=False) == 0


async def test_a_bucket_refills_one_call_at_a_time_after_its_burst(store: GameStore) -> None:
    """Slack's tiers are token buckets: after the burst, a call every window/calls seconds
    (where a sliding log of the same rate would give nothing until the window had passed and
    then the whole burst again). Every call the budget allows, the fake's bucket allows too."""
    clock = VirtualClock()
    budget = Budget(store, "slack:w", clock)
    # Slack's rate, which the bot's limits keep 5 % inside (MARGIN).
    slack = TokenBucket(per_minute=60.0 * TIER.calls / TIER.window_s * 1.05, burst=TIER.calls)
    started = clock.now()
    taken = []
    for _ in range(8):
        await budget.take([TIER], Call(Priority.BOARD))
        taken.append(round(clock.now() - started, 2))
        assert slack.take(clock.now()) == 0
    every = TIER.window_s / TIER.calls
    assert taken[:5] == [0.0] * 5
    assert taken[5:] == pytest.approx([every, 2 * every, 3 * every], abs=0.02)


async def test_a_bucket_keeps_its_last_tokens_for_the_board(store: GameStore) -> None:
    clock = VirtualClock()
    budget = Budget(store, "slack:w", clock)
    assert TIER.held(Priority.PANEL) == 3
    for _ in range(2):
        assert await budget._try([TIER], Priority.PANEL, book=False) == 0
    wait = await budget._try([TIER], Priority.PANEL, book=False)
    assert wait == pytest.approx(TIER.window_s / TIER.calls, abs=0.01)
    for _ in range(3):
        assert await budget._try([TIER], Priority.BOARD, book=False) == 0
    assert await budget._try([TIER], Priority.BOARD, book=False) > 0


@pytest.mark.parametrize("limit", [POSTS, TIER], ids=["window", "bucket"])
async def test_waiting_calls_book_their_places_in_turn(store: GameStore, limit: Limit) -> None:
    """Ten posts asked at once by two workers: each books the next free place in one script and
    waits for it, so they go in the order asked, within the limit, none asked twice; a
    deferrable call finds every place booked and is deferred rather than jump the queue."""
    clock = VirtualClock()
    one, two = Budget(store, "slack:w", clock), Budget(store, "slack:w", clock)
    now = clock.wall()
    waits = [
        await (one if n % 2 else two)._try([limit], Priority.BOARD, book=True) for n in range(10)
    ]
    assert waits == sorted(waits) and len(set(waits)) >= 10 - limit.calls + 1
    every = limit.window_s / limit.calls
    assert waits[-1] == pytest.approx((10 - limit.calls) * every, abs=0.02)
    with pytest.raises(Deferred):
        await one.take([limit], Call(Priority.BOARD, deferrable=True))
    scripts = []
    store.observe = lambda name, how, seconds: scripts.append(name)
    await two.take([limit], Call(Priority.LOG))
    assert clock.wall() - now == pytest.approx(waits[-1] + every, abs=0.02)
    assert scripts.count("take_budget") == 1


async def test_slack_tiers_are_buckets_and_posts_windows() -> None:
    update = limits_of("chat.update", {})
    post = limits_of("chat.postMessage", {"channel": "C1"})
    assert [limit.bucket for limit in update] == [True]
    assert [limit.bucket for limit in post] == [False, True]  # the conversation's, the workspace's
