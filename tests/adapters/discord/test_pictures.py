"""Boards with their pictures on the strict fake, through the real discord.py: the picture is
the board message's attachment (with its alt text as the description), replaced only when it
changed, and a whole game stays within one upload per press."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from bot.commands.authority import Authority
from bot.commands.guards import game_of, running_state
from bot.commands.record import GameRecord
from bot.settings import Settings
from core import ui
from testkit.discord.fake import FakeDiscord
from testkit.discord.sim import Table, running_bot
from tests.adapters.biggiebills_support import Cards, names_card, state_of
from tests.adapters.discord.conftest import CHANNEL, USERS, live_boards, posted, thread_of

THINK_S = 1.0
"""Seconds between a player's presses (half to one and a half of it)."""
GAMES = {
    "biggiebills": ("BiggieBills$$$", "turn_seconds=0 block_seconds=0"),
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
        await table.open(options)  # (BiggieBills$$$: each joins a team of their own)
        # At a person's pace (a second between presses), which the coalescing is made for:
        # the virtual clock jumps only during those pauses, never to the table's own wait.
        record = await table.play(think_s=THINK_S, pauses_only=True)
        await client.adapter.table.caught_up()
        thread = await thread_of(authority.store)
    assert record is not None and record.status == "finished"
    assert fake.refused == [], [(c.method, c.path, c.reply) for c in fake.refused[:3]]
    (board,) = live_boards(fake, thread, title)
    ((attachment, data),) = fake.attached(board)
    # None is lost at the end: the final board carries the final state's picture.
    final = _final_picture(record)
    assert data == final.data and attachment["description"] == final.alt
    if game == "biggiebills":  # a team's cards in hand are named nowhere public
        secret = Cards().hidden(state_of(record))
        shown = [board.text, attachment["description"]]
        assert not [c for c in secret for text in shown if names_card(text, c)]
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and 600 <= image.width <= 2400
    assert attachment["filename"].startswith("board-") and attachment["description"]
    assert title.split()[-1] in attachment["description"]
    uploads = [u for u in fake.files.values() if u.filename.startswith("board-")]
    sizes = sorted(len(u.data) for u in uploads)
    assert len({u.data for u in uploads}) >= 3  # the picture changed over the game
    assert sizes[len(sizes) // 2] <= 200 * 1024 and sizes[-1] <= 512 * 1024
    # At most one upload a press (the mean): a picture that changes within COALESCE_S of the
    # last waits, and the newest one wins; a board posted anew (a turn notice) uploads its own.
    assert len(uploads) <= table.presses, (len(uploads), table.presses)
    # Each upload was a new picture (an unchanged one is not sent again with an edit).
    assert len({u.data for u in uploads}) >= len(uploads) * 0.9
    assert len(posted(fake, CHANNEL)) <= 2  # the card and the result
    # The card, the one message the channel keeps, carries the money chart.
    card = posted(fake, CHANNEL)[0]
    ((chart, chart_data),) = fake.attached(card)
    assert chart["filename"].startswith("money-") and chart["description"]
    assert Image.open(io.BytesIO(chart_data)).format == "PNG"


def _final_picture(record: GameRecord) -> ui.Picture:
    """The picture of the game's final state, drawn from its public view as the bot draws it."""
    picture = game_of(record).picture(running_state(record))
    assert picture is not None
    return picture


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
