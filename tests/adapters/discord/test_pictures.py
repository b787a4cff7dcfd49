"""Boards with their pictures on the strict fake, through the real discord.py: the picture is
the board message's attachment (with its alt text as the description), replaced only when it
changed, and a whole game stays within one upload per press."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from bot.commands.authority import Authority
from bot.settings import Settings
from testkit.discord.fake import FakeDiscord
from testkit.discord.sim import Table, running_bot
from tests.adapters.discord.conftest import CHANNEL, USERS, live_boards, posted, thread_of

GAMES = {
    "bigidea": ("The Big Idea", "pick_seconds=0 vote_seconds=0 turn_seconds=0"),
    "businessgo": (
        "Busine$$ GO",
        "short turn_seconds=0 compete_seconds=0 auction_seconds=0 auto_moves=no always_compete=no",
    ),
}


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_a_whole_game_shows_its_board_as_an_attached_picture(
    fake: FakeDiscord, authority: Authority, settings: Settings, game: str
) -> None:
    title, options = GAMES[game]
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS[:3], random.Random(4), game=game)
        await table.open(options)
        record = await table.play()
        thread = await thread_of(authority.store)
    assert record is not None and record.status == "finished"
    assert fake.refused == [], [(c.method, c.path, c.reply) for c in fake.refused[:3]]
    (board,) = live_boards(fake, thread, title)
    ((attachment, data),) = fake.attached(board)
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and 600 <= image.width <= 2400
    assert attachment["filename"].startswith("board-") and attachment["description"]
    assert title.split()[-1] in attachment["description"]
    uploads = [u for u in fake.files.values() if u.filename.startswith("board-")]
    sizes = sorted(len(u.data) for u in uploads)
    assert len({u.data for u in uploads}) >= 3  # the picture changed over the game
    assert sizes[len(sizes) // 2] <= 200 * 1024 and sizes[-1] <= 512 * 1024
    assert len(uploads) <= table.presses  # at most one upload a press
    # Each upload was a new picture (an unchanged one is not sent again with an edit).
    assert len({u.data for u in uploads}) >= len(uploads) * 0.9
    assert len(posted(fake, CHANNEL)) <= 2  # the card and the result
    # The card, the one message the channel keeps, carries the money chart.
    card = posted(fake, CHANNEL)[0]
    ((chart, chart_data),) = fake.attached(card)
    assert chart["filename"].startswith("money-") and chart["description"]
    assert Image.open(io.BytesIO(chart_data)).format == "PNG"


async def test_pictures_off_leaves_the_board_as_text(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    title, options = GAMES["bigidea"]
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS[:3], random.Random(4))
        await table.open(f"pictures=off {options}")
        for _ in range(5):
            assert await table.step()
        thread = await thread_of(authority.store)
    (board,) = live_boards(fake, thread, title)
    assert fake.attached(board) == []
    assert not [u for u in fake.files.values() if u.filename.startswith("board-")]
    assert fake.refused == []
