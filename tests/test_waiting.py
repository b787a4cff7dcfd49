"""The bounded waits of the tests (testkit/waiting.py) end, and say what never happened."""

from __future__ import annotations

import asyncio

import pytest

from testkit.waiting import attempts, until, until_sync


async def test_until_returns_once_the_condition_holds() -> None:
    seen: list[int] = []

    async def grows() -> bool:
        seen.append(1)
        return len(seen) >= 3

    await until(grows, "three looks", within_s=5, every_s=0)
    assert len(seen) == 3


async def test_until_fails_naming_what_never_happened() -> None:
    with pytest.raises(AssertionError, match=r"not within 0.05 s: the bot answered"):
        await until(lambda: False, "the bot answered", within_s=0.05)


async def test_until_lets_the_check_assert_what_must_not_happen() -> None:
    done = asyncio.get_running_loop().create_future()
    done.set_result(None)

    def waiting() -> bool:
        assert not done.done(), "finished too early"
        return False

    with pytest.raises(AssertionError, match="finished too early"):
        await until(waiting, "never")


def test_until_sync_fails_naming_what_never_happened() -> None:
    with pytest.raises(AssertionError, match=r"not within 0.05 s: the prompt redrawn"):
        until_sync(lambda: False, "the prompt redrawn", within_s=0.05, every_s=0.01)
    until_sync(lambda: True, "at once")


def test_attempts_fail_only_a_loop_that_runs_out() -> None:
    for tried in attempts("the third try", 5):
        if tried == 2:
            break
    else:
        raise AssertionError("attempts ended a loop that broke out")
    with pytest.raises(AssertionError, match=r"not within 4 tries: the game ended"):
        for _ in attempts("the game ended", 4):
            pass
