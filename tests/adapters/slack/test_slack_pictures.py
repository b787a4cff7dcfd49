"""Boards with their pictures on the strict fake Slack, through the real Bolt app: each new
picture is uploaded through the external flow (without being shared anywhere) and shown in
the board by an image block naming the file (``slack_file``), with its alt text; an unchanged
picture is not uploaded again."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from bot.commands.guards import game_of, running_state
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable
from tests.adapters.biggiebills_support import Cards, names_card, state_of
from tests.adapters.slack.conftest import CHANNEL, boards, refs, stored

USERS = ["UALICE", "UBOB", "UCAROL"]
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
async def test_a_whole_game_shows_its_board_with_an_uploaded_picture(
    loop: Loopback, game: str
) -> None:
    title, options = GAMES[game]
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(3), game)
    await table.command(USERS[0], f"start {options}")
    for user in USERS[1:]:
        await table.command(user, "join")  # (BiggieBills$$$: a team of their own)
    await table.command(USERS[0], "begin")
    # At a person's pace (a second between presses), which the coalescing is made for: the
    # virtual clock jumps only during those pauses, never to the table's own wait.
    await table.play(max_presses=2_000, think_s=THINK_S, pauses_only=True)
    await loop.adapter.settled()
    await loop.adapter.table.caught_up()
    record = await stored(loop)
    assert record is not None and record.status == "finished"
    api = loop.api
    assert api.refused == [], [(c.method, c.error) for c in api.refused[:3]]
    thread = (await refs(loop)).thread
    (board,) = boards(api, CHANNEL, thread, title)
    (image,) = [b for b in board.blocks if b["type"] == "image"]
    uploaded = api.files[image["slack_file"]["id"]]
    assert uploaded.completed and uploaded.data is not None
    # None is lost at the end: the final board shows the final state's picture.
    final = game_of(record).picture(running_state(record))
    assert final is not None and uploaded.data == final.data and image["alt_text"] == final.alt
    if game == "biggiebills":  # a team's cards in hand are named nowhere public
        secret = Cards().hidden(state_of(record))
        shown = [board.text, image["alt_text"]]
        assert not [c for c in secret for text in shown if names_card(text, c)]
    assert image["alt_text"] and title.split()[-1] in image["alt_text"]
    assert uploaded.alt_txt == image["alt_text"]
    decoded = Image.open(io.BytesIO(uploaded.data))
    assert decoded.format == "PNG" and 600 <= decoded.width <= 2400
    pictures = [f for f in api.files.values() if f.filename.startswith("board-")]
    assert all(f.completed and not f.shares for f in pictures)  # never posted as a file
    assert len({f.data for f in pictures}) == len(pictures) >= 3  # each upload a new picture
    sizes = sorted(len(f.data or b"") for f in pictures)
    assert sizes[len(sizes) // 2] <= 200 * 1024 and sizes[-1] <= 512 * 1024
    # At most one upload a press (the mean): a picture that changes within COALESCE_S of the
    # last waits, and the newest one wins.
    assert len(pictures) <= table.stats.presses, (len(pictures), table.stats.presses)
    assert len(api.channel_messages(CHANNEL, deleted=True)) <= 2  # the card and the result
    # The card, the one message the channel keeps, carries the money chart.
    card = api.channel_messages(CHANNEL)[0]
    (chart,) = [b for b in card.blocks if b["type"] == "image"]
    charted = api.files[chart["slack_file"]["id"]]
    assert charted.filename.startswith("money-") and charted.completed and not charted.shares
    assert chart["alt_text"] == charted.alt_txt
