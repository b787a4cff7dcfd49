"""Whole games through the real discord.py on the strict fake: hostile names, rate limits,
missing permissions. Discord refuses nothing, nobody is notified, nothing is lost."""

from __future__ import annotations

import logging
import random

import pytest

from bot.commands.authority import Authority
from bot.settings import Settings
from testkit.discord.fake import FakeDiscord, FakeUser
from testkit.discord.sim import Table, running_bot
from tests.adapters.discord.conftest import CHANNEL, USERS

HOSTILE = [
    FakeUser(USERS[0].id, "@everyone <@999999999999999999>"),
    FakeUser(USERS[1].id, "<@&123456789012345678> **BUY**"),
    FakeUser(USERS[2].id, "@here __x__ ~~y~~ `z` <#1> |s|"),
    USERS[3],
]
GAMES = [
    ("bigidea", "pick_seconds=0 vote_seconds=0 turn_seconds=0"),
    ("biggiebills", "turn_seconds=0 block_seconds=0"),
    ("businessgo", "short turn_seconds=0 compete_seconds=0 auction_seconds=0"),
]


@pytest.mark.parametrize(("game", "options"), GAMES)
async def test_a_whole_game_with_hostile_names_under_rate_limits(
    fake: FakeDiscord,
    authority: Authority,
    settings: Settings,
    caplog: pytest.LogCaptureFixture,
    game: str,
    options: str,
) -> None:
    fake.rate_limit(0.2, seed=5)
    caplog.set_level(logging.WARNING, logger="bot")
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, HOSTILE, random.Random(17), game)
        await table.open(options)
        record = await table.play()
    assert record is not None and record.status == "finished"
    assert fake.rate_limited, "the fake never answered 429: the test would prove nothing"
    assert fake.refused == [], [(c.method, c.path, c.reply) for c in fake.refused[:3]]
    assert fake.notifications == []
    failed = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert failed == [], failed[:3]  # every 429 was waited out and retried: nothing dropped
    shown = "\n".join(m.content for m in fake.public(CHANNEL))
    assert "@everyone" not in shown and "<@999999999999999999>" not in shown
    assert "<@&123456789012345678>" not in shown


async def test_start_without_send_messages_names_the_permission_and_starts_nothing(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    fake.deny(CHANNEL, "send_messages", "embed_links")
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(3))
        answer = await table.slash(USERS[0], "start")
        record = await table.record()
    text = answer.messages[-1].text
    assert "Send Messages and Embed Links permission" in text, text
    assert answer.messages[-1].audience == "ephemeral"
    assert record is None
    assert fake.public(CHANNEL) == []


async def test_a_post_refused_mid_game_is_told_to_the_presser_and_the_move_stands(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(3))
        await table.slash(USERS[0], "start")
        for user in USERS[1:3]:
            await table.slash(user, "join")
        fake.deny(CHANNEL, "send_messages")  # an admin takes the permission away
        # The answer itself is the interaction's response (no permission needed); the board,
        # a channel post of its own, is refused with 403 / 50013.
        answer = await table.slash(USERS[0], "begin")
        record = await table.record()
    assert record is not None and record.status == "playing"
    assert [c.code for c in fake.refused] == [50013]
    told = [m.text for m in answer.messages if m.audience == "ephemeral"]
    assert any("That was done" in t and "Send Messages" in t for t in told), told
    assert not any("went wrong" in t for t in told)
