"""The invite's permissions against the strict fake, which checks them per route as Discord does:
a whole game needs nothing more than the invite asks for, and each of them is used."""

from __future__ import annotations

import random

import pytest

from bot.adapters.discord.adapter import INVITE_PERMISSIONS, PERMISSIONS
from bot.commands.authority import Authority
from bot.settings import Settings
from testkit.discord.fake import FakeDiscord
from testkit.discord.sim import Table, running_bot
from tests.adapters.discord.conftest import CHANNEL, USERS, thread_of

NO_DEADLINES = "pick_seconds=0 vote_seconds=0 turn_seconds=0"


async def test_a_whole_game_needs_only_what_the_invite_asks_for(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    # The bot's role holds exactly the invite's permissions (the fake's default role also has
    # Read Message History, which the bot must not need).
    fake.bot_permissions = INVITE_PERMISSIONS
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(5))
        await table.open(NO_DEADLINES)
        record = await table.play()
        thread = await thread_of(authority.store)
    assert record is not None and record.status == "finished"
    assert fake.refused == [], [(c.method, c.path, c.reply) for c in fake.refused[:3]]
    assert fake.embeds_dropped == []
    # Played as designed: the card in the channel, the game in its thread.
    assert fake.threads[thread].parent_id == CHANNEL and fake.public(thread)


@pytest.mark.parametrize("missing", sorted(PERMISSIONS))
async def test_every_permission_of_the_invite_is_used(
    fake: FakeDiscord, authority: Authority, settings: Settings, missing: str
) -> None:
    fake.bot_permissions = INVITE_PERMISSIONS
    fake.deny(CHANNEL, missing)
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS[:3], random.Random(5))
        await table.open(NO_DEADLINES)
        record = await table.record()
        rules = await table.slash(USERS[1], "rules", {"topic": "all"})
    # Without it something of the game is refused, loses its embeds, leaves its thread or never
    # starts (the host is told which permission is missing), or the rules page is not attached
    # where it was asked for.
    as_designed = (
        record is not None
        and record.status == "playing"
        and not fake.refused
        and not fake.embeds_dropped
        and any(t.parent_id == CHANNEL for t in fake.threads.values())
        and len(rules.messages) == 1
        and bool(fake.attached(rules.messages[0]))
    )
    assert not as_designed, f"the game played as designed without {missing}"
