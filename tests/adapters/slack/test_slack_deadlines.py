"""A deadline fired by the runner reaches Slack like any answer: posts, DMs, the board."""

from __future__ import annotations

import asyncio
import contextlib
import random

from bot.deadlines import run_deadlines
from testkit.clock import VirtualClock
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable, texts
from testkit.waiting import until
from tests.adapters.slack.conftest import CHANNEL, stored
from tests.records import deciding

USERS = ["UALICE", "UBOB", "UCAROL"]


async def test_an_idle_table_moves_on_when_time_is_up(loop: Loopback, clock: VirtualClock) -> None:
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(3), "bigidea")
    await table.command(USERS[0], "start pick_seconds=1 vote_seconds=0 turn_seconds=0")
    for user in USERS[1:]:
        await table.command(user, "join")
    await table.command(USERS[0], "begin")
    before = await stored(loop)
    assert before is not None and deciding(before.state or {}) == "pick"
    calls = len(loop.api.calls)

    stop = asyncio.Event()
    runner = asyncio.create_task(
        run_deadlines(loop.authority, "slack", loop.adapter.deliver, 0.05, stop)
    )
    try:
        await clock.sleep(1.0)  # nobody picks: once the second has passed the clock picks

        async def picked() -> bool:
            record = await stored(loop)
            return record is not None and deciding(record.state or {}) != "pick"

        await until(picked, "the runner ended the pick phase", every_s=0.05)  # it looks as often
        await loop.adapter.settled()
    finally:
        stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await runner
    record = await stored(loop)
    assert record is not None and deciding(record.state or {}) != "pick"
    posted = [c for c in loop.api.calls[calls:] if c.method == "chat.postMessage"]
    assert any("Time is up" in texts(c) for c in posted), [texts(c)[:80] for c in posted]
    assert any(c.method == "chat.update" for c in loop.api.calls[calls:])  # the board moved on


async def test_a_turn_notice_waits_for_its_player_then_pings_only_them(
    redis_url: str, clock: VirtualClock
) -> None:
    """With the default ``nudge_seconds`` a turn that passes to someone mentions nobody at
    once; after that long without a move the runner moves the board down, naming them."""
    loop = await Loopback.start(redis_url, seed=5, clock=clock)  # the default settings
    await loop.store.client.flushdb()
    stop = asyncio.Event()
    runner = asyncio.create_task(
        run_deadlines(loop.authority, "slack", loop.adapter.deliver, 0.05, stop)
    )
    try:
        table = SlackTable.on(loop, CHANNEL, USERS, random.Random(4), "businessgo")
        options = "turn_seconds=0 compete_seconds=0 auction_seconds=0 auto_moves=no"
        await table.command(USERS[0], f"start {options} always_compete=no")
        for user in USERS[1:]:
            await table.command(user, "join")
        await table.command(USERS[0], "begin")
        record = await stored(loop)
        for _ in range(40):
            record = await stored(loop)
            if record is not None and record.nudge:
                break
            pending = [(p, panel) for p in table.players.values() for panel in p.pending()]
            player, panel = table.rng.choice(pending)
            await table.press(player.user, table.rng.choice(panel.choices))
        assert record is not None and record.nudge
        assert loop.api.notified() == []  # nobody yet: they may be playing along
        (waited,) = record.nudge
        await clock.sleep(31)  # nobody moves
        await until(lambda: bool(loop.api.notified()), "the turn notice pinged", every_s=0.05)
        await loop.adapter.settled()
        assert loop.api.notified() == [waited]
        after = await stored(loop)
        assert after is not None and after.nudge == [] and after.state == record.state
        table.detach()
    finally:
        stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await runner
        await loop.close()
