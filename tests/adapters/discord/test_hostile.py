"""Whole games through the real discord.py on the strict fake: hostile names, rate limits,
missing permissions. Discord refuses nothing, nobody is notified but by a turn notice, nothing
is lost."""

from __future__ import annotations

import logging
import random

import pytest

from bot.commands.authority import Authority
from bot.settings import Settings
from testkit.discord.fake import FakeDiscord, FakeUser
from testkit.discord.sim import Table, running_bot
from tests.adapters.discord.conftest import (
    CHANNEL,
    USERS,
    assert_only_notices,
    posted,
    thread_of,
)

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
    # The table keeps Discord's own pace (5 posts per 5 s per channel) on the test's virtual
    # clock, which jumps over the waits; the fake counts the posts by the same clock.
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, HOSTILE, random.Random(17), game)
        await table.open(options)
        record = await table.play()
        thread = await thread_of(authority.store)
    assert record is not None and record.status == "finished"
    assert fake.rate_limited, "the fake never answered 429: the test would prove nothing"
    assert fake.refused == [], [(c.method, c.path, c.reply) for c in fake.refused[:3]]
    # The names are shown but notify nobody: the only pings are the turn notices, each of
    # exactly the one user the game waits for.
    assert fake.notifications, "no turn notice: the test would prove nothing about them"
    assert_only_notices(fake)
    failed = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert failed == [], failed[:3]  # every 429 was waited out and retried: nothing dropped
    messages = [*posted(fake, CHANNEL), *posted(fake, thread)]
    # The names are shown, their @ defused (a zero-width space after it).
    assert len(messages) > 5 and any("@\u200b" in m.text for m in messages)
    for message in messages:  # every message as posted and as it is now (or was when deleted)
        for shown in (message.content, str(message.created.get("content") or "")):
            assert "@everyone" not in shown and "@here" not in shown, shown[:200]
            assert "<@999999999999999999>" not in shown and "<@&123456789012345678>" not in shown
    for place in (CHANNEL, thread):
        assert fake.max_posts_per_5s(place) <= 5  # the table kept its pace


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


@pytest.mark.parametrize(
    ("options", "denied", "named"),
    [
        # In the channel (thread=off): the board is a channel post.
        ("thread=off", "send_messages", "Send Messages"),
        # In a thread: starting it needs Create Public Threads (still there), the board in it
        # Send Messages in Threads, a permission of its own.
        ("", "send_messages_in_threads", "Send Messages in Threads"),
    ],
)
async def test_a_post_refused_mid_game_is_told_to_the_presser_and_the_move_stands(
    fake: FakeDiscord,
    authority: Authority,
    settings: Settings,
    options: str,
    denied: str,
    named: str,
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(3))
        await table.slash(USERS[0], "start", {"options": options} if options else None)
        for user in USERS[1:3]:
            await table.slash(user, "join")
        fake.deny(CHANNEL, denied)  # an admin takes the permission away
        # The answer itself is the interaction's response (no permission needed); the board,
        # a post of its own, is refused with 403 / 50013.
        answer = await table.slash(USERS[0], "begin")
        record = await table.record()
    assert record is not None and record.status == "playing"
    assert [c.code for c in fake.refused] == [50013]
    assert fake.refused[0].method == "POST" and fake.refused[0].path.endswith("/messages")
    told = [m.text for m in answer.messages if m.audience == "ephemeral"]
    assert any("That was done" in t for t in told), told
    assert not any("went wrong" in t for t in told)
    # An admin must be able to act on what the presser is told: the permission that is missing.
    # (The thread case fails today: bot/adapters/discord/adapter.py names the REQUIRED channel
    # permissions, which the bot has, and never Send Messages in Threads.)
    assert any(f"missing the {named} permission" in t for t in told), (named, told)
