"""A whole game of The Big Idea through the real discord.py client and the fake Discord."""

from __future__ import annotations

import random

from bot.adapters.discord.fake import FakeDiscord
from bot.adapters.discord.sim import Table, running_bot
from bot.commands.authority import Authority
from bot.settings import Settings
from tests.adapters.discord.conftest import CHANNEL, USERS

FAST = "pick_seconds=0 vote_seconds=0 turn_seconds=0"


async def test_four_users_play_to_the_final_standings(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(3))
        await table.open(FAST)
        record = await table.play()
    assert record.status == "finished"
    board = fake.public(CHANNEL)
    assert any("Game over" in m.text for m in board), [m.text for m in board][-3:]
