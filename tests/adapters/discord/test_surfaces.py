"""The table's surfaces on the strict fake, through the real discord.py: the card, the thread,
the board (edited, moved, re-posted as the turn notice), the prompt, the DM panels, countdowns,
restarts and two bot processes at one table.

Each test plays only as far as it needs: the table paces posts at 5 per 5 s per channel.
"""

from __future__ import annotations

import asyncio
import random
import re

from bot.commands.authority import Authority
from bot.settings import Settings
from bot.table import NO_THREAD
from storage import GameStore
from testkit.clock import VirtualClock
from testkit.discord.fake import OLD_MESSAGE_S, FakeDiscord, FakeMessage, FakeUser, Interaction
from testkit.discord.sim import Table, running_bot
from testkit.waiting import attempts, until
from tests.adapters.discord.conftest import (
    CHANNEL,
    USERS,
    assert_only_notices,
    boards,
    dm_posts,
    lines,
    live_boards,
    most_below,
    posted,
    refs,
    thread_of,
    titled,
)
from tests.records import deciding, plain_state

FAST = "pick_seconds=0 vote_seconds=0 turn_seconds=0"
BOARD = "The Big Idea"
GO = "businessgo"
GO_FAST = "short turn_seconds=0 compete_seconds=0 auction_seconds=0 auto_moves=no always_compete=no"
COUNTDOWN = re.compile(r"<t:(\d+):R>")


# --- helpers -------------------------------------------------------------------------------------


def _calls(fake: FakeDiscord, since: int, method: str, place: int) -> list[str]:
    """Paths of the successful ``method`` calls on messages of ``place`` since ``since``."""
    prefix = f"/channels/{place}/messages"
    return [
        c.path
        for c in fake.calls[since:]
        if c.method == method and c.path.startswith(prefix) and c.status < 300
    ]


def _dm_panel(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    """``user``'s one DM panel for the game."""
    dms = dm_posts(fake, user)
    assert len(dms) == 1, f"{user.name} has {len(dms)} DM panels"
    return dms[0]


async def _pick(table: Table, user: FakeUser) -> Interaction:
    """``user`` picks two cards on their DM panel (The Big Idea's seed phase): an item and a
    description when they hold both, which make a product."""
    panel = _dm_panel(table.fake, user)
    select = next(c for c in panel.components if c["type"] == 3)
    options = select["options"]
    items = [o["value"] for o in options if str(o.get("description")).startswith("It's like")]
    others = [o["value"] for o in options if o["value"] not in items]
    values = [items[0], others[0]] if items and others else [o["value"] for o in options][:2]
    return await table.click(user, panel, select["custom_id"], values)


async def _phase(table: Table) -> str:
    record = await table.record()
    assert record is not None and record.state is not None
    return str(deciding(record.state))


# --- the card and where the game plays -----------------------------------------------------------


async def test_the_lobby_card_is_edited_as_people_join_by_slash_and_by_button(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    alice, bob, carol = USERS[:3]
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(1))
        await table.slash(alice, "start")
        (card,) = posted(fake, CHANNEL)
        assert "bob" not in card.text

        since = len(fake.calls)
        await table.slash(bob, "join")  # by slash: the card is edited (PATCH)
        assert _calls(fake, since, "PATCH", CHANNEL) == [f"/channels/{CHANNEL}/messages/{card.id}"]
        assert card.edits == 1 and "bob" in card.text

        join = next(c for c in card.components if c["custom_id"].endswith("|join"))
        since = len(fake.calls)
        pressed = await table.click(carol, card, join["custom_id"])  # by button: UPDATE_MESSAGE
        assert pressed.callback is not None and pressed.callback["type"] == 7
        assert pressed.original is card and card.edits == 2 and "carol" in card.text
        assert _calls(fake, since, "PATCH", CHANNEL) == []  # the update was the answer itself

        # Never a second lobby post: the card is the channel's one message.
        assert posted(fake, CHANNEL) == [card] == fake.public(CHANNEL)
        assert fake.refused == []


async def test_a_game_in_a_thread_leaves_the_card_and_the_result_in_the_channel(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS[:3], random.Random(2))
        await table.open(FAST)
        for user in USERS[:3]:
            await _pick(table, user)
        for _ in range(6):
            assert await table.step()
        await table.slash(USERS[0], "end")
        record = await table.record()
        thread = await thread_of(authority.store)
    assert record is not None and record.status == "finished"
    card, result = posted(fake, CHANNEL)  # two messages for the whole game, none deleted
    assert fake.public(CHANNEL) == [card, result]
    assert fake.threads[thread].message_id == card.id and fake.threads[thread].parent_id == CHANNEL
    assert titled(card, "The Big Idea: ended early") and "alice" in result.text
    # Everything else went to the thread: the board, the story, the prompts.
    assert len(live_boards(fake, thread, BOARD)) == 1
    assert "alice began the game. Good luck!" in lines(fake.public(thread))
    assert fake.refused == []


async def test_thread_off_plays_in_the_channel(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS[:3], random.Random(3))
        await table.open(f"thread=off {FAST}")
        board = live_boards(fake, CHANNEL, BOARD)
        assert len(board) == 1
        edits = board[0].edits
        await _pick(table, USERS[1])
        stored = await refs(authority.store)
    assert fake.threads == {}
    assert not [c for c in fake.calls if c.path.endswith("/threads")]  # not even tried
    assert stored.threads_off and stored.thread is None
    card = posted(fake, CHANNEL)[0]
    assert titled(card, "The Big Idea: playing")
    assert live_boards(fake, CHANNEL, BOARD) == board and board[0].edits > edits
    assert "Waiting for alice and carol." in lines(board)
    assert NO_THREAD not in lines(fake.public(CHANNEL))  # thread=off was asked for: no excuse
    assert fake.refused == []


async def test_without_create_public_threads_the_game_plays_in_the_channel_and_says_so_once(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    fake.deny(CHANNEL, "create_public_threads")
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS[:3], random.Random(4))
        await table.open(FAST)
        for user in USERS[:3]:
            await _pick(table, user)
        for _ in range(4):
            assert await table.step()
    assert fake.threads == {}
    # Discord refused the thread once (the bot tried at begin), and nothing else.
    assert [(c.method, c.code) for c in fake.refused] == [("POST", 50013)]
    assert fake.refused[0].path.endswith("/threads")
    notes = [m for m in posted(fake, CHANNEL) if m.text == NO_THREAD]
    assert len(notes) == 1 and not notes[0].deleted
    assert len(live_boards(fake, CHANNEL, BOARD)) == 1
    assert "Everyone reveals at once." in lines(fake.public(CHANNEL))


# --- the board ---------------------------------------------------------------------------------


async def test_notes_at_the_deal_go_above_the_board_which_stays_at_the_bottom(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    # Three players with closed DMs (not the host, who begins): a note for each in the thread,
    # posted before the board is drawn, so the board starts at the bottom.
    for user in USERS[1:]:
        fake.closed_dms.add(user.id)
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(5))
        await table.open(FAST)
        thread = await thread_of(authority.store)
        (first,) = boards(fake, thread, BOARD)
        assert fake.public(thread)[-1] is first
        notes = [m for m in fake.public(thread) if "direct messages" in m.text]
        assert len(notes) == 3
        await _pick(table, USERS[0])  # the board changes (whom it waits for) in place
        (board,) = live_boards(fake, thread, BOARD)
    assert board is first and board.edits >= 1
    assert "Waiting for bob, carol and dave." in lines([board])
    # Discord refused only the first DM to each of the three (then the table knew).
    assert sorted(c.code or 0 for c in fake.refused) == [50007] * 3


async def test_never_more_than_5_messages_below_the_board(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    """Eight teams, seven of them with closed DMs: seven notes at once.

    The notes go before the board is drawn, and the board moves once 5 are below it even when
    the channel is busy."""
    users = [FakeUser(810_000_000_000_000_000 + i, f"player{i}") for i in range(8)]
    for user in users[1:]:
        fake.closed_dms.add(user.id)
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, users, random.Random(6), "biggiebills")
        await table.slash(users[0], "start", {"options": "turn_seconds=0 block_seconds=0"})
        for index, user in enumerate(users):
            await table.slash(user, "join", {"team": f"Team {index}"})
        await table.slash(users[0], "begin")
        thread = await thread_of(authority.store)
    notes = [m for m in fake.public(thread) if "direct messages" in m.text]
    assert len(notes) == 7, [m.text[:40] for m in fake.public(thread)]
    assert len(live_boards(fake, thread, "BiggieBills$$$")) == 1
    most = most_below(fake, thread, "BiggieBills$$$")
    assert most <= 5, f"{most} messages below the board: it should have moved to the bottom"
    # Every interaction was answered in time, even one whose posts waited for the limit.
    late = [(i.id, i.kind) for i in fake.interactions.values() if i.late or not i.resolved]
    assert late == [], late


async def test_a_countdown_shows_while_a_deadline_runs(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS[:3], random.Random(7))
        began = authority.clock()  # the clock deadlines are set by (the test's virtual one)
        await table.open("pick_seconds=60 vote_seconds=0 turn_seconds=0")
        thread = await thread_of(authority.store)
        (board,) = live_boards(fake, thread, BOARD)
        due = [int(n) for n in COUNTDOWN.findall(board.text)]
        assert len(due) == 1 and began + 55 <= due[0] <= authority.clock() + 65, (due, began)
        for user in USERS[:3]:  # each waited-for panel shows the same countdown
            assert COUNTDOWN.findall(_dm_panel(fake, user).text) == [str(due[0])]
        for user in USERS[:3]:
            await _pick(table, user)
        assert await _phase(table) == "venture"  # vote_seconds=0: no deadline now
        (board,) = live_boards(fake, thread, BOARD)
    assert not COUNTDOWN.findall(board.text), board.text
    assert "Venture phase" in board.text


# --- prompts and panels --------------------------------------------------------------------------


async def test_a_press_updates_its_panel_and_other_panels_are_edited_in_their_dms(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    users = USERS[:3]
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, users, random.Random(8))
        await table.open(FAST)
        panels = {user.name: _dm_panel(fake, user) for user in users}
        dms = {user.name: fake.dm_channel(user) for user in users}
        since = len(fake.calls)
        for user in users[:-1]:
            edits = panels[user.name].edits
            pressed = await _pick(table, user)
            assert pressed.callback is not None and pressed.callback["type"] == 7
            assert pressed.original is panels[user.name] and panels[user.name].edits == edits + 1
            assert "Your pick:" in panels[user.name].text
        # The last pick ends the seed phase: every panel changes. The presser's is updated by
        # the press; the others' are edited where they are (a PATCH in their DM).
        last = users[-1]
        mark = len(fake.calls)
        pressed = await _pick(table, last)
        assert await _phase(table) != "pick"
        assert pressed.callback is not None and pressed.callback["type"] == 7
        for user in users[:-1]:
            edited = _calls(fake, mark, "PATCH", dms[user.name] or 0)
            assert edited == [f"/channels/{dms[user.name]}/messages/{panels[user.name].id}"]
        assert not _calls(fake, mark, "PATCH", dms[last.name] or 0)
        # No new DM for anyone since the deal.
        assert all(not _calls(fake, since, "POST", dm or 0) for dm in dms.values())
        assert all(dm_posts(fake, user) == [panels[user.name]] for user in users)


async def test_the_big_idea_prompt_loses_its_buttons_once_its_decision_is_over(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS[:3], random.Random(9))
        await table.open(FAST)
        thread = await thread_of(authority.store)
        prompt = None
        for _ in range(200):
            prompts = [m for m in fake.public(thread) if m.components and not titled(m, BOARD)]
            if prompts:
                prompt = prompts[-1]
                break
            assert await table.step()
        assert prompt is not None, "no public prompt was ever posted"
        assert any(c["type"] == 2 for c in prompt.components)
        decision = (await refs(authority.store)).prompt_id
        for _ in attempts("the decision of the first prompt ended", 1_000):
            if (await refs(authority.store)).prompt_id != decision:
                break
            assert await table.step()
    # The decision is over: its prompt stays where it was, edited, without its buttons.
    assert not prompt.deleted and prompt.components == []
    assert prompt.text.startswith(prompt.snapshot()["embeds"][0]["title"])
    # Closed, it no longer reads as waiting for anyone.
    assert "Waiting for" not in prompt.text and "Pointing is over" in prompt.text
    assert fake.refused == []


# --- turn notices --------------------------------------------------------------------------------


async def test_the_turn_notice_rides_on_the_board_and_pings_only_the_player_waited_for(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    users = USERS[:3]
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, users, random.Random(10), GO)
        await table.open(GO_FAST)
        thread = await thread_of(authority.store)
        noticed = 0
        for _ in range(30):
            fresh = fake.notifications[noticed:]
            noticed = len(fake.notifications)
            if fresh:
                # One new notice, for the user on turn, on the live board.
                record = await table.record()
                assert record is not None and record.state is not None
                assert deciding(record.state) == "turn"
                (note,) = fresh
                assert note.target == users[plain_state(record)["turn"]].id
                (board,) = live_boards(fake, thread, "Busine$$ GO")
                assert note.message_id == board.id and note.channel_id == thread
                assert board.created["allowed_mentions"] == {"users": [note.target], "parse": []}
            assert_only_notices(fake)  # the earlier notice is gone: one at a time
            assert await table.step()
    assert noticed >= 3, "too few turn notices to tell anything"
    notices = [fake.message(n.message_id) for n in fake.notifications]
    assert all(m.deleted for m in notices[:-1])


async def test_a_turn_notice_waits_for_its_player_on_the_deadline_loop(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    """With the default ``nudge_seconds`` a turn that passes to someone pings nobody at once;
    after that long without a move the deadline loop moves the board down, naming them."""
    waiting = settings.model_copy(update={"nudge_seconds": 30.0})
    seeds = random.Random(5)
    authority = Authority(
        authority.store, waiting, clock=authority.clock, new_seed=lambda: seeds.getrandbits(63)
    )
    users = USERS[:3]
    async with running_bot(fake, authority, waiting) as client:
        table = Table(fake, client, CHANNEL, users, random.Random(10), GO)
        await table.open(GO_FAST)
        thread = await thread_of(authority.store)
        record = await table.record()
        for _ in range(40):
            record = await table.record()
            assert record is not None
            if record.nudge:
                break
            assert await table.step()
        assert record is not None and record.nudge and fake.notifications == []
        (nudged,) = record.nudge
        await fake.clock.sleep(31)  # nobody moves: the clock jumps past the notice's time
        # The notice is the board posted anew; the old one is deleted right after it.
        await until(
            lambda: bool(fake.notifications) and len(live_boards(fake, thread, "Busine$$ GO")) == 1,
            "the turn notice was posted as the one live board",
        )
        (note,) = fake.notifications
        assert str(note.target) == nudged
        (board,) = live_boards(fake, thread, "Busine$$ GO")
        assert note.message_id == board.id and note.channel_id == thread
        assert board.created["allowed_mentions"] == {"users": [note.target], "parse": []}
        after = await table.record()
        assert after is not None and after.nudge == [] and after.state == record.state
    assert_only_notices(fake)


# --- restarts and two processes ------------------------------------------------------------------


async def test_a_restarted_bot_keeps_editing_the_same_board(
    fake: FakeDiscord, authority: Authority, settings: Settings, redis_url: str
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(11))
        await table.open(FAST)
        await _pick(table, USERS[1])
        thread = await thread_of(authority.store)
        (board,) = live_boards(fake, thread, BOARD)
        card = posted(fake, CHANNEL)[0]
    # A new process: a new client and authority on the same Redis, with nothing in memory.
    fresh = Authority(GameStore.from_url(redis_url), settings, clock=authority.clock)
    try:
        async with running_bot(fake, fresh, settings) as client:
            table.reconnect(client)
            since, edits = len(fake.calls), board.edits
            pressed = await _pick(table, USERS[2])
    finally:
        await fresh.store.close()
    # The same board, edited (its ref came from Redis); no new board, nothing else re-posted.
    assert pressed.callback is not None and pressed.callback["type"] == 7
    assert _calls(fake, since, "PATCH", thread) == [f"/channels/{thread}/messages/{board.id}"]
    assert _calls(fake, since, "POST", thread) == [] and _calls(fake, since, "POST", CHANNEL) == []
    assert board.edits == edits + 1 and "Waiting for alice and dave." in lines([board])
    assert live_boards(fake, thread, BOARD) == [board] and posted(fake, CHANNEL) == [card]
    assert all(len(dm_posts(fake, user)) == 1 for user in USERS)


async def test_two_bot_processes_delivering_at_once_never_leave_two_boards(
    fake: FakeDiscord, authority: Authority, settings: Settings, redis_url: str, clock: VirtualClock
) -> None:
    users = USERS
    other = Authority(GameStore.from_url(redis_url), settings, clock=authority.clock)
    try:
        async with (
            running_bot(fake, authority, settings) as first,
            running_bot(fake, other, settings) as second,
        ):
            assert fake.gateways == 2
            table = Table(fake, second, CHANNEL, users, random.Random(12))
            await table.open(FAST)
            thread = await thread_of(authority.store)
            (board,) = live_boards(fake, thread, BOARD)
            # A moderator deletes the board; two players pick at the same moment, each press
            # handled by another process: each finds the board gone, only one may post anew.
            fake.delete_message(board.id)
            # Held, with Discord's latency: the two processes' deliveries overlap (on the
            # jumping clock one would be over before the other began).
            hold = clock.hold()
            fake.latency_s = 0.05
            presses = []
            for user, gateway in ((users[1], 0), (users[2], 1)):
                panel = _dm_panel(fake, user)
                select = next(c for c in panel.components if c["type"] == 3)
                values = [o["value"] for o in select["options"]][:2]
                presses.append(
                    await fake.click(user, panel, select["custom_id"], values, gateway=gateway)
                )
            await asyncio.gather(
                Table(fake, first, CHANNEL, users, random.Random(0)).settle(presses[0]),
                table.settle(presses[1]),
            )
            fake.latency_s = 0.0
            hold.release()
            record = await table.record()
    finally:
        await other.store.close()
    assert record is not None and record.state is not None
    assert (
        plain_state(record)["picks"][1] is not None and plain_state(record)["picks"][2] is not None
    )
    live = live_boards(fake, thread, BOARD)
    assert len(live) == 1, [m.id for m in live]
    assert len(boards(fake, thread, BOARD)) == 2  # the deleted one and one new
    assert "Waiting for alice and dave." in lines(live)
    # Each press is answered in place: an update of its panel (7), or, when the other process's
    # newer delivery had already brought that panel up to date, a quiet deferred update (6).
    assert all(p.callback is not None and p.callback["type"] in (6, 7) for p in presses)
    for user in users[1:3]:
        panel = _dm_panel(fake, user)
        assert panel.edits >= 1 and any(line.startswith("Your pick:") for line in lines([panel]))


# --- Discord's cap on edits of old messages ----------------------------------------------------


async def test_a_board_past_discords_cap_on_old_edits_is_posted_anew_once(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    """Discord answers 429 / 30046 for edits of a message over an hour old past its cap: the
    board (and a DM panel) is posted anew at the bottom, the old copy deleted, the game goes
    on; the new message takes edits again."""
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(21))
        await table.open(FAST)
        thread = await thread_of(authority.store)
        (old,) = live_boards(fake, thread, BOARD)
        old_panel = _dm_panel(fake, USERS[1])
        await fake.clock.sleep(OLD_MESSAGE_S + 1)  # the virtual clock jumps an hour
        fake.limit_old_edits(0)  # no more edits of messages over an hour old

        pressed = await _pick(table, USERS[1])
        assert pressed.callback is not None and pressed.callback["type"] == 7
        (board,) = live_boards(fake, thread, BOARD)
        assert board.id != old.id and fake.message(old.id).deleted
        assert boards(fake, thread, BOARD) == [old, board]  # posted anew once
        (waiting,) = [line for line in lines([board]) if line.startswith("Waiting for")]
        assert "alice" in waiting and "bob" not in waiting  # the press was applied
        assert {c.code for c in fake.rate_limited} == {30046}

        since, edits = len(fake.calls), board.edits
        await _pick(table, USERS[2])  # the new board is young: edited in place again
        assert _calls(fake, since, "POST", thread) == []
        assert live_boards(fake, thread, BOARD) == [board] and board.edits == edits + 1
        record = await table.record()
        assert record is not None and record.state is not None
        assert (
            plain_state(record)["picks"][1] is not None
            and plain_state(record)["picks"][2] is not None
        )
    # The panel pressed was edited through the interaction (not capped): still the one panel.
    assert _dm_panel(fake, USERS[1]).id == old_panel.id
    assert_only_notices(fake)
