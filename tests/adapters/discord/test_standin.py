"""A seat kept warm, over the strict fake Discord and the real discord.py client: a player who
misses two deadlines in a row is stood in for by a bot of the normal level; their `hand` takes
the seat back at once and tells them privately what was played; the channel is told once each
way (as over Slack: tests/adapters/slack/test_slack_standin.py)."""

from __future__ import annotations

import json
import random

from bot.commands.authority import Authority
from bot.settings import Settings
from core.registry import get_game
from testkit.clock import VirtualClock
from testkit.discord.fake import FakeDiscord
from testkit.discord.sim import Table, running_bot
from testkit.waiting import until
from tests.adapters.discord.conftest import CHANNEL, USERS, posted, refs, thread_of

ALICE, BOB = USERS[0], USERS[1]
MISSED = "missed 2 deadlines in a row"


async def test_a_bot_stands_in_after_two_missed_deadlines_until_the_player_is_back(
    fake: FakeDiscord, authority: Authority, settings: Settings, clock: VirtualClock
) -> None:
    game = get_game("bigidea")
    assert game is not None
    async with running_bot(fake, authority, settings, pace_window_s=0) as client:
        both = Table(fake, client, CHANNEL, [ALICE, BOB], random.Random(3), "bigidea")
        await both.open("pick_seconds=30 vote_seconds=30 turn_seconds=30", bots=(1, "normal"))
        bob = Table(fake, client, CHANNEL, [BOB], random.Random(4), "bigidea")

        async def on() -> None:
            """Bob plays whatever he is asked; else the clock runs to the next deadline."""
            if await bob.step():
                return
            record = await both.record()
            assert record is not None and record.status == "playing"
            version = (record.state or {}).get("version")
            await clock.sleep(31)  # (a deadline passes: long ones, so that no real time does)

            async def moved() -> bool:
                now = await both.record()
                return now is not None and (now.state or {}).get("version") != version

            await until(moved, "the deadline moved the game on", every_s=0.05)

        # Alice never answers.
        for _ in range(60):
            record = await both.record()
            assert record is not None and record.status == "playing"
            if record.seats[0].away:
                break
            await on()
        record = await both.record()
        assert record is not None and record.seats[0].away, "Alice's seat was never stood in for"
        assert record.seats[0].bot == "normal" and record.seats[1].bot is None
        state = game.state_model.model_validate_json(record.state_json or "")
        assert 0 not in game.waiting_for(state), "the game still waits for Alice"
        thread = await thread_of(authority.store)

        def told(text: str, since: int = 0) -> tuple[int, int]:
            """Messages posted with ``text`` and messages edited to show it (the board's
            "Latest" lines), from the fake's log of the bot's calls since ``since``."""
            public = (f"/channels/{CHANNEL}/messages", f"/channels/{thread}/messages")
            calls = [c for c in fake.calls[since:] if c.path.startswith(public)]
            has = [c for c in calls if c.status == 200 and text in json.dumps(c.body)]
            sent = sum(c.method == "POST" for c in has)
            return sent, len(has) - sent

        await client.adapter.table.caught_up()
        sent, shown = told(MISSED)
        # (Or still among the story's lines waiting for their post, which the board's Latest
        # showed while they were the newest.)
        shown_refs = await refs(authority.store, CHANNEL)
        waiting = sum(MISSED in line for line in shown_refs.pending)
        # (Or in the board's newest state, an edit the budget deferred.)
        waiting += sum(MISSED in m.text for m in shown_refs.wanted.values())
        assert sent <= 1 and sent + shown + waiting >= 1, "the channel is told of the stand-in"
        # Bob plays on until the bot has made a move for Alice.
        for _ in range(30):
            record = await both.record()
            assert record is not None and record.status == "playing"
            if record.seats[0].played_for:
                break
            await on()
        record = await both.record()
        assert record is not None
        played = list(record.seats[0].played_for)
        assert played, "the bot standing in made no move for Alice"

        # Alice asks for her hand: the seat is hers again, and she hears what was played.
        since = len(fake.calls)
        answer = await both.slash(ALICE, "hand")
        await client.adapter.table.caught_up()
        back = await both.record()
        assert back is not None and not back.seats[0].away and back.seats[0].bot is None
        assert back.seats[0].missed == 0 and back.seats[0].played_for == []
        private = [m.text for m in answer.messages if m.audience == "ephemeral"]
        private += [m.text for m in fake.private(ALICE)]
        told_back = [t for t in private if "You have your seat back" in t]
        assert told_back and "While you were away the bot played for you" in told_back[0]
        assert played[-1] in told_back[0]
        assert not any("You have your seat back" in m.text for m in posted(fake, thread))
        sent, shown = told("is back", since)
        waiting = sum("is back" in line for line in (await refs(authority.store, CHANNEL)).pending)
        assert sent + shown + waiting >= 1, "the channel is told that Alice is back"

        # Asking again changes nothing and tells nobody anything new (the game goes on).
        again = await both.slash(ALICE, "hand")
        await client.adapter.table.caught_up()
        assert not any("You have your seat back" in m.text for m in again.messages)
        assert told("is back", since)[0] <= 1, "the channel is told once that Alice is back"
        assert told("You have your seat back")[0] == 0, "what was played for her is hers alone"
    assert fake.refused == [], [(c.method, c.path, c.reply) for c in fake.refused[:3]]
