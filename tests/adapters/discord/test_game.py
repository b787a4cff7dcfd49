"""A whole game of The Big Idea through the real discord.py client and the fake Discord."""

from __future__ import annotations

import random

from bot.commands import codec
from bot.commands.authority import Authority
from bot.settings import Settings
from bot.table import MOVE_AT
from bot.table.plan import PANEL_MOVED
from testkit.discord.fake import FakeDiscord
from testkit.discord.sim import Table, running_bot
from testkit.waiting import attempts
from tests.adapters.discord.conftest import (
    CHANNEL,
    USERS,
    assert_only_notices,
    board_moves,
    boards,
    dm_posts,
    lines,
    live_boards,
    most_below,
    posted,
    thread_of,
    titled,
)
from tests.records import plain_state

FAST = "pick_seconds=0 vote_seconds=0 turn_seconds=0"
BOARD = "The Big Idea"


async def test_four_users_play_to_the_final_standings(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings, pace_window_s=0) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(3))
        await table.open(FAST)
        record = await table.play()
        thread = await thread_of(authority.store)
    assert record is not None and record.status == "finished"
    summary = plain_state(record)["outcome"]["summary"]
    # The channel got two messages for the whole game: the card (the lobby, edited as people
    # joined, now the final standings) and the result. The game played in the card's thread.
    card, result = posted(fake, CHANNEL)
    assert fake.public(CHANNEL) == [card, result]
    assert titled(card, "The Big Idea: final standings") and card.edits >= len(USERS)
    assert fake.threads[thread].message_id == card.id == thread
    assert fake.threads[thread].parent_id == CHANNEL
    assert "Game over" in result.text and summary in result.text
    board = live_boards(fake, thread, BOARD)
    assert len(board) == 1 and "Game over" in board[0].text, [m.text[:40] for m in board]
    assert fake.refused == [], [(c.method, c.path, c.reply) for c in fake.refused[:3]]
    assert_only_notices(fake)


async def test_one_board_moved_to_the_bottom_and_the_story_coalesced(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    # Paced as on Discord (5 posts per 5 s), on the virtual clock that jumps over the waits.
    # (A game whose story scrolls the board up at least once between turn notices: the story
    # says nothing per pick or point, so not every game does.) Each picture at once: a
    # picture held back would be a catch-up edit of the board, and its wait (jumped by the
    # virtual clock) would bring the turn notices' deadlines sooner than the players' pace.
    async with running_bot(fake, authority, settings, coalesce_s=0) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(2))
        await table.open(FAST)
        thread = await thread_of(authority.store)
        for _ in attempts("the game ended", 10_000):  # steps: presses, and waits for deadlines
            record = await table.record()
            if record is None or record.status == "finished":
                break
            assert await table.step() or table.presses > 0
            # One live board at every moment, at most a few messages from the bottom.
            assert len(live_boards(fake, thread, BOARD)) == 1
            assert table.presses < 2_000, "the game did not end"
    # Never more than 5 messages below the board, at any moment of the game.
    assert most_below(fake, thread, BOARD) <= 5
    every = boards(fake, thread, BOARD)
    assert [m.deleted for m in every] == [True] * (len(every) - 1) + [False]
    # Edited in place far more often than posted anew for having scrolled up (a turn notice is
    # a board posted anew too: the notice of each turn, one at a time).
    moves = board_moves(fake, thread, BOARD)
    scrolled = sum(1 for _, notice in moves if not notice)
    assert sum(m.edits for m in every) > 3 * (scrolled + 1), [m.edits for m in every]
    # Each move to the bottom came once MOVE_AT messages were below it, or was a turn notice.
    assert moves and all(below >= MOVE_AT or notice for below, notice in moves), moves
    assert any(not notice for _, notice in moves), "the board never moved for having scrolled"
    # The story is told in a few log posts: many lines each, not a post per action.
    thread_posts = posted(fake, thread)
    told = lines([m for m in thread_posts if not titled(m, BOARD)])
    assert len(thread_posts) * 3 < table.presses, (len(thread_posts), table.presses)
    assert len(told) > 2 * len(thread_posts), (len(told), len(thread_posts))
    # Each player's panel is one DM, edited in place (the press on it updates it).
    for user in USERS:
        dms = dm_posts(fake, user)
        assert 1 <= len(dms) <= 3 and sum(m.edits for m in dms) > 5, [m.edits for m in dms]
    assert fake.updates > table.presses // 2
    assert fake.refused == [], [(c.method, c.path, c.reply) for c in fake.refused[:3]]
    assert_only_notices(fake)


async def test_hand_in_a_dm_lists_the_game_and_its_buttons_act_on_it(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(23))
        await table.open(FAST)
        bob = USERS[1]
        dm_channel = 900_000_000_000_000_001
        before_dms = dm_posts(fake, bob)
        answer = await table.settle(await fake.slash(bob, dm_channel, "hand", "", dm=True))
        # The one panel moves down (posted anew, the old one deleted): no copy of it is added.
        assert [m.text for m in answer.messages] == [PANEL_MOVED]
        assert [m.deleted for m in before_dms] == [True]
        panels = [m for m in dm_posts(fake, bob) if not m.deleted and m.components]
        assert len(panels) == 1, [m.text for m in panels]
        select = next(c for c in panels[0].components if c["custom_id"].startswith("br1|s|"))
        pressed = codec.decode(select["custom_id"])
        assert pressed is not None and pressed.channel == str(CHANNEL)  # names the game's channel
        values = [o["value"] for o in select["options"]][:2]
        before = await table.record()
        await table.click(bob, panels[0], select["custom_id"], values)
        after = await table.record()
        thread = await thread_of(authority.store)
    assert before is not None and before.state is not None
    assert after is not None and after.state is not None
    assert plain_state(before)["picks"][1] is None
    assert sorted(plain_state(after)["picks"][1]) == sorted(values)
    assert "Waiting for alice, carol and dave." in lines(fake.public(thread))  # on the board
