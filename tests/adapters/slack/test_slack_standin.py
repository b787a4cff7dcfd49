"""A seat kept warm, over the strict Slack fake: a player who misses two deadlines in a row is
stood in for by a bot; their next action takes the seat back; the others are told once."""

from __future__ import annotations

import asyncio
import contextlib
import random

from bot.deadlines import run_deadlines
from core.registry import get_game
from testkit.clock import VirtualClock
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable, texts
from testkit.waiting import until
from tests.adapters.slack.conftest import CHANNEL, refs, stored

ALICE, BOB = "UALICE", "UBOB"


async def test_a_bot_stands_in_after_two_missed_deadlines_until_the_player_is_back(
    loop: Loopback, clock: VirtualClock
) -> None:
    game = get_game("bigidea")
    assert game is not None
    table = SlackTable.on(loop, CHANNEL, [ALICE, BOB], random.Random(3), "bigidea")
    await table.command(ALICE, "start pick_seconds=30 vote_seconds=30 turn_seconds=30")
    await table.command(BOB, "join")
    await table.command(ALICE, "addbot")
    await table.command(ALICE, "begin")
    stop = asyncio.Event()
    runner = asyncio.create_task(
        run_deadlines(loop.authority, "slack", loop.adapter.deliver, 0.05, stop)
    )
    try:
        # Bob plays whatever he is asked; Alice never answers, and the clock runs.
        for _ in range(40):
            record = await stored(loop)
            assert record is not None and record.status == "playing"
            if record.seats[0].away:
                break
            state = game.state_model.model_validate_json(record.state_json or "")
            if 1 in game.waiting_for(state) and table.players[BOB].pending():
                panel = table.players[BOB].pending()[0]
                await table.press(BOB, panel.choices[0])
                continue
            version = state.version
            await clock.sleep(31)  # (a deadline passes: long ones, so that no real time does)

            async def moved(version: int = version) -> bool:
                now = await stored(loop)
                return now is not None and (now.state or {}).get("version") != version

            await until(moved, "the deadline moved the game on", every_s=0.05)
        await loop.adapter.settled()
        record = await stored(loop)
        assert record is not None and record.seats[0].away, "Alice's seat was never stood in for"
        assert record.seats[0].bot == "normal" and record.seats[1].bot is None
        # The bot plays Alice's seat now: the game never waits for her.
        state = game.state_model.model_validate_json(record.state_json or "")
        assert 0 not in game.waiting_for(state)
        missed = "missed 2 deadlines in a row"
        posted = [texts(c) for c in loop.api.calls if c.method == "chat.postMessage"]
        edited = [texts(c) for c in loop.api.calls if c.method == "chat.update"]
        # The channel is told once: one post of the story, or the board's latest lines until
        # the story's next post carries it (never two posts).
        assert sum(missed in t for t in posted) <= 1
        # (Or still among the story's lines waiting for their post, which the board's Latest
        # shows while they are the newest.)
        shown = await refs(loop)
        waiting = [line for line in shown.pending if missed in line]
        # (Or in the board's newest state, an edit the budget deferred: shown once it has room.)
        waiting += [slot for slot, m in shown.wanted.items() if missed in m.text]
        assert any(missed in t for t in posted + edited) or waiting
        # Bob plays on until the bot has made a move for Alice.
        for _ in range(20):
            record = await stored(loop)
            assert record is not None
            if record.seats[0].played_for or not table.players[BOB].pending():
                break
            await table.press(BOB, table.players[BOB].pending()[0].choices[0])
        played = list(record.seats[0].played_for)
        assert played, "the bot standing in made no move for Alice"
        # Alice asks for her hand: the seat is hers again at once, and she hears what was played.
        calls = len(loop.api.calls)
        await table.command(ALICE, "hand")
        await loop.adapter.settled()
        back = await stored(loop)
        assert back is not None and not back.seats[0].away and back.seats[0].bot is None
        assert back.seats[0].missed == 0 and back.seats[0].played_for == []
        await clock.sleep(5)  # (a post the channel's budget deferred; the game goes on)
        await loop.adapter.settled()
        after = loop.api.calls[calls:]
        private = [texts(c) for c in after if c.method in ("chat.postEphemeral", "response_url")]
        told_back = [t for t in private if "You have your seat back" in t]
        assert told_back and "While you were away the bot played for you" in told_back[0]
        assert played[-1] in told_back[0]
        mine = ("chat.postEphemeral", "response_url")
        public = [(c.method, texts(c)) for c in after if c.method not in mine]
        assert sum("is back" in t for m, t in public if m == "chat.postMessage") <= 1, public
        assert any("is back" in t for _m, t in public), public
        assert not any("You have your seat back" in t for _m, t in public)
        # Asking again changes nothing and tells nobody anything new.
        calls = len(loop.api.calls)
        await table.command(ALICE, "hand")
        await loop.adapter.settled()
        again = [texts(c) for c in loop.api.calls[calls:]]
        assert not any("is back" in t or "seat back" in t for t in again)
    finally:
        stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await runner
        table.detach()
