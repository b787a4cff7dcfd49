"""A whole game of The Big Idea through the real discord.py client and the fake Discord."""

from __future__ import annotations

import random

from bot.commands import codec
from bot.commands.authority import Authority
from bot.settings import Settings
from testkit.discord.fake import FakeDiscord
from testkit.discord.sim import Table, running_bot
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


async def test_one_board_edited_in_place_and_one_post_per_action(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(21))
        await table.open(FAST)
        lobby_posts = len(fake.public(CHANNEL))
        await table.play()
    public = fake.public(CHANNEL)
    boards = [m for m in public if m.text.startswith("The Big Idea") and "Round" in m.text]
    assert len(boards) == 1, [m.text[:40] for m in boards]
    assert boards[0].edits > table.presses // 2  # edited in place as the game moved on
    new_posts = len(public) - lobby_posts
    assert new_posts <= table.presses + 1  # at most one post per action (+ the board itself)


async def test_hand_in_a_dm_lists_the_game_and_its_buttons_act_on_it(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(23))
        await table.open(FAST)
        bob = USERS[1]
        dm_channel = 900_000_000_000_000_001
        answer = await table.settle(await fake.slash(bob, dm_channel, "hand", "", dm=True))
        panels = [m for m in answer.messages if m.components]
        assert panels, [m.text for m in answer.messages]
        select = next(c for c in panels[0].components if c["custom_id"].startswith("br1|s|"))
        pressed = codec.decode(select["custom_id"])
        assert pressed is not None and pressed.channel == str(CHANNEL)  # names the game's channel
        values = [o["value"] for o in select["options"]][:2]
        before = await table.record()
        await table.click(bob, panels[0], select["custom_id"], values)
        after = await table.record()
    assert before is not None and before.state is not None
    assert after is not None and after.state is not None
    assert before.state["picks"][1] is None
    assert sorted(after.state["picks"][1]) == sorted(values)
    assert any(m.text == "bob has picked." for m in fake.public(CHANNEL))
