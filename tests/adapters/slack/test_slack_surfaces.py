"""The table's surfaces on Slack, through the real Bolt app and the strict fake Web API.

The lobby card edited as people join; the game in a thread of the card (or, with ``thread=off``,
in the channel); one board, moved to the bottom once it has scrolled up; panels updated by the
press on them; the public prompt losing its buttons; countdowns and one turn notice at a time;
a restart and a second worker going on with the same messages; Slack's posting pace.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from typing import Any

from bot.commands.game.play import load_state
from bot.table import MOVE_AT
from core.games.bigidea.cards import card
from core.registry import get_game
from testkit.clock import VirtualClock
from testkit.slack.fake import Message
from testkit.slack.loopback import Loopback
from testkit.slack.players import (
    Component,
    SlackTable,
    components_of,
    labelled,
    texts,
    texts_of,
)
from tests.adapters.slack.conftest import (
    CHANNEL,
    assert_only_notices,
    boards,
    header,
    notice_of,
    refs,
    stored,
)
from tests.records import deciding, plain_state

USERS = ["UALICE", "UBOB", "UCAROL"]
QUICK = "pick_seconds=0 vote_seconds=0 turn_seconds=0"
SLOW_VOTE = "pick_seconds=0 vote_seconds=600 turn_seconds=0"
BOARD = "The Big Idea"


async def _lobby(table: SlackTable, options: str) -> None:
    await table.command(USERS[0], f"start {options}")
    for user in USERS[1:]:
        await table.command(user, "join")


async def _begun(loop: Loopback, options: str = SLOW_VOTE, seed: int = 2) -> SlackTable:
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(seed), "bigidea")
    await _lobby(table, options)
    await table.command(USERS[0], "begin")
    return table


def _product(component: Component) -> dict[str, Any]:
    """A pick of one item and one description from the menu's cards (a real product, when
    the hand holds both)."""
    items = [v for v in component.options if card(v).type == 1]
    descriptions = [v for v in component.options if card(v).type == 2]
    chosen = [items[0], descriptions[0]] if items and descriptions else component.options[:2]
    picked = [{"text": {"type": "plain_text", "text": v}, "value": v} for v in chosen]
    return {
        "type": component.kind,
        "action_id": component.action_id,
        "block_id": "b",
        "selected_options": picked,
    }


async def _press(
    loop: Loopback, user: str, component: Component, action: dict[str, Any] | None = None
) -> None:
    body = loop.slack.action_body(
        user,
        component.channel,
        action or {"type": "button", "action_id": component.action_id, "block_id": "b"},
        component.message_ts,
        component.ephemeral,
    )
    assert await loop.slack.post(body) == 200
    await loop.adapter.settled()


def _menu(table: SlackTable, user: str) -> Component:
    """The pick menu on ``user``'s panel."""
    panel = table.players[user].private
    assert panel is not None, f"{user} has no panel"
    (menu,) = [c for c in panel.choices if c.kind == "multi_static_select"]
    return menu


async def _waiting_users(loop: Loopback) -> set[str]:
    """The users the game waits for now."""
    record = await stored(loop)
    assert record is not None and record.state_json is not None
    game = get_game(record.game)
    assert game is not None
    state = load_state(game, record.state_json)
    return {user for seat in game.waiting_for(state) for user in record.seats[seat].users}


async def _to_venture(loop: Loopback, table: SlackTable) -> None:
    """Everyone picks a real product from their DM panel: the venture phase opens."""
    for user in USERS:
        await _press(loop, user, _menu(table, user), _product(_menu(table, user)))
    record = await stored(loop)
    assert record is not None and deciding(record.state or {}) == "venture"


def _thread_messages(loop: Loopback, thread: str, deleted: bool = False) -> list[Message]:
    return loop.api.replies(CHANNEL, thread, deleted)


def _actions(message: Message) -> list[dict[str, Any]]:
    return [b for b in message.blocks if b.get("type") == "actions"]


# --- the card and the thread ---------------------------------------------------------------


async def test_the_lobby_card_is_edited_as_people_join_not_posted_again(loop: Loopback) -> None:
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(1), "bigidea")
    await table.command("UALICE", f"start {SLOW_VOTE}")
    (card_message,) = loop.api.channel_messages(CHANNEL)
    assert header(card_message) == "The Big Idea: lobby"
    assert [c.label for c in table.visible("UBOB", commands=True)] == [
        "Join",
        "Add a bot",
        "Begin",
    ]

    # Bob presses Join on the card: that very message is updated, by the one call that also
    # answers his press (and his display name is looked up once).
    mark = len(loop.api.received)
    assert await table.press_label("UBOB", "Join", commands=True)
    assert loop.api.tally(mark) == Counter({"response_url": 1, "users.info": 1})
    (update,) = loop.api.called("response_url")
    assert update.args["replace_original"] and (update.channel, update.ts) == (
        CHANNEL,
        card_message.ts,
    )
    # Carol types /bigidea join: the card is edited too.
    mark = len(loop.api.received)
    await table.command("UCAROL", "join")
    assert loop.api.tally(mark) == Counter({"chat.update": 1, "users.info": 1})

    assert loop.api.channel_messages(CHANNEL) == [card_message]
    assert len(card_message.edits) == 2 and not loop.api.called("chat.postEphemeral")
    assert "Players (3/6): ualice, ubob, ucarol." in texts_of(card_message)
    assert loop.api.max_posts_per_s(CHANNEL).posts == 1

    # Alice begins from the card: it becomes the game's summary, and the game its thread.
    assert await table.press_label("UALICE", "Begin", commands=True)
    assert loop.api.channel_messages(CHANNEL) == [card_message]
    assert header(card_message) == "The Big Idea: playing"
    assert (await refs(loop)).thread == card_message.ts
    assert _actions(card_message) == []  # the lobby's buttons are gone
    table.detach()


async def test_a_game_plays_in_the_thread_of_its_card(loop: Loopback) -> None:
    table = await _begun(loop, QUICK)
    (card_message,) = loop.api.channel_messages(CHANNEL)
    thread = card_message.ts
    assert (await refs(loop)).thread == thread
    await table.play(max_presses=40)
    # Every post after the card was a reply in its thread: board, log, prompts, notices.
    posts = loop.api.called("chat.postMessage")
    in_channel = [c for c in posts if c.args["channel"] == CHANNEL and "thread_ts" not in c.args]
    assert [c.ts for c in in_channel] in ([thread], [thread, in_channel[-1].ts])
    replies = _thread_messages(loop, thread, deleted=True)
    assert len(replies) == len([c for c in posts if c.args.get("thread_ts") == thread]) > 5
    assert len(boards(loop.api, CHANNEL, thread, BOARD)) == 1
    assert loop.api.refused == []
    table.detach()


async def test_thread_off_plays_in_the_channel_itself(loop: Loopback) -> None:
    table = await _begun(loop, f"{QUICK} thread=off")
    assert (await refs(loop)).threads_off
    await table.play(max_presses=2_000)
    record = await stored(loop)
    assert record is not None and record.status == "finished"
    posts = loop.api.called("chat.postMessage")
    assert posts and not [c for c in posts if "thread_ts" in c.args]
    card_message, *rest = loop.api.channel_messages(CHANNEL, deleted=True)
    assert header(card_message) == "The Big Idea: final standings"
    assert not _thread_messages(loop, card_message.ts, deleted=True)
    assert any(header(m) == BOARD for m in rest)
    # The board, the story and the prompts are the channel's, one live board among them.
    assert len(boards(loop.api, CHANNEL, None, BOARD)) == 1
    assert loop.api.max_posts_per_s(CHANNEL, card_message.ts).posts == 0
    assert loop.api.refused == []
    table.detach()


async def test_the_board_moves_to_the_bottom_once_messages_pile_up_below_it(
    loop: Loopback,
) -> None:
    table = await _begun(loop)
    await _to_venture(loop, table)
    thread = (await refs(loop)).thread
    assert thread is not None
    record = await stored(loop)
    assert record is not None and record.state is not None
    owners = [USERS[p["owner"]] for p in plain_state(record)["products"] if p["new"]]
    moved = 0
    for number, owner in enumerate(owners * 2, 1):  # each pitch is a post below the board
        before = await refs(loop)
        assert before.board is not None
        await table.command(owner, f"pitch Number {number}, a pitch to remember")
        after = await refs(loop)
        assert after.board is not None
        old = loop.api.message(CHANNEL, before.board.id)
        assert old is not None
        live = [m for m in _thread_messages(loop, thread)]
        if after.board.id == before.board.id:
            assert not old.deleted  # edited in place while it has not scrolled far
            continue
        moved += 1
        # Moved: posted anew at the bottom, the old one deleted, nothing below it now.
        assert old.deleted and live[-1].ts == after.board.id and after.below == []
        below = [m for m in live if float(m.ts) > float(before.board.id)]
        noticed = notice_of(texts_of(live[-1]))
        assert noticed or len(before.below) + len(below) - 1 >= MOVE_AT, (before.below, below)
    assert moved >= 1
    assert len(boards(loop.api, CHANNEL, thread, BOARD)) == 1
    assert loop.api.refused == []
    table.detach()


# --- panels and prompts ------------------------------------------------------------------------


async def test_panels_are_edited_in_place_the_pressed_one_by_the_press(loop: Loopback) -> None:
    table = await _begun(loop)
    posted = loop.api.called("chat.postMessage")
    dms = {u: [c for c in posted if c.args["channel"] == f"D{u}"] for u in USERS}
    assert all(len(posted) == 1 for posted in dms.values()), dms  # one DM panel each
    # Alice and Bob pick; Carol's pick then opens the venture phase, which changes everyone's
    # panel: Carol's is replaced by her press (its response URL), the others' are edited with
    # chat.update.
    for user in USERS[:2]:
        await _press(loop, user, _menu(table, user), _product(_menu(table, user)))
    menu = _menu(table, "UCAROL")
    mark = len(loop.api.received)
    await _press(loop, "UCAROL", menu, _product(menu))
    calls = loop.api.received[mark:]
    edited = {(c.args["channel"], c.args["ts"]) for c in calls if c.method == "chat.update"}
    replaced = {(c.channel, c.ts) for c in calls if c.method == "response_url"}
    for user in USERS:
        panel = dms[user][0]
        assert (f"D{user}", panel.ts) in (replaced if user == "UCAROL" else edited)
    assert not [c for c in calls if c.method == "chat.postMessage" and c.args["channel"][0] == "D"]
    assert not [c for c in calls if c.method == "conversations.open"]  # cached
    assert all(c.args["replace_original"] for c in loop.api.called("response_url"))
    shown = loop.api.message("DUCAROL", str(dms["UCAROL"][0].ts))
    # Her panel, replaced by her press, offers the venture's choices (and "Pitch it…" when her
    # pick made a product: the hand the deal gives her decides).
    labels = [c.label for c in table.visible("UCAROL", True)]
    assert shown is not None and any(label.startswith("Point at") for label in labels), labels
    table.detach()


async def test_closed_dms_the_hand_comes_ephemerally_and_the_press_replaces_it(
    loop: Loopback,
) -> None:
    loop.api.add_user("UCAROL", display_name="<@UBOB> Carol")
    loop.api.close_dms("UCAROL")
    table = await _begun(loop)
    thread = (await refs(loop)).thread
    assert thread is not None
    # The table says so in the thread, naming Carol without notifying her (or Bob).
    (note,) = [m for m in _thread_messages(loop, thread) if "direct messages" in texts_of(m)]
    assert "<@UBOB> Carol:" in texts_of(note)  # as typed, escaped: not a mention
    assert not [n for n in loop.api.notifications if n.call is note.posted]
    show = labelled(components_of(note.blocks, CHANNEL, note.ts, False, commands=True), "Show")
    mark = len(loop.api.received)
    await _press(loop, "UCAROL", show)
    # Her hand comes through the press's response URL, ephemeral, in the game's thread.
    (hand,) = [c for c in loop.api.called("response_url") if not c.args["replace_original"]]
    assert hand.args["response_type"] == "ephemeral" and hand.args["thread_ts"] == thread
    held = loop.api.message(CHANNEL, str(hand.ts))
    assert held is not None and held.user == "UCAROL" and held.thread_ts == thread
    assert loop.api.tally(mark) == Counter({"response_url": 1})  # her name: cached

    # Carol picks on that ephemeral panel: the press replaces it through its response URL.
    found = components_of(hand.blocks, CHANNEL, str(hand.ts), True)
    (menu,) = [c for c in found if c.kind == "multi_static_select"]
    await _press(loop, "UCAROL", menu, _product(menu))
    replaced = [c for c in loop.api.called("response_url") if c.args.get("replace_original")]
    assert [c.ts for c in replaced][-1:] == [hand.ts]
    message = loop.api.message(CHANNEL, str(hand.ts))
    assert message is not None and "Your pick:" in texts_of(message)
    assert_only_notices(loop.api)
    assert loop.api.refused == [c for c in loop.api.refused if c.method == "conversations.open"]
    table.detach()


async def test_a_press_on_an_ephemeral_panel_sends_no_second_copy(loop: Loopback) -> None:
    loop.api.close_dms("UCAROL")
    table = await _begun(loop)
    await table.command("UCAROL", "hand")
    (hand,) = [c for c in loop.api.called("response_url") if not c.args["replace_original"]]
    (menu,) = [
        c
        for c in components_of(hand.blocks, CHANNEL, str(hand.ts), True)
        if c.kind == "multi_static_select"
    ]
    mark = len(loop.api.received)
    await _press(loop, "UCAROL", menu, _product(menu))
    copies = [
        c
        for c in loop.api.received[mark:]
        if c.method in ("chat.postEphemeral", "response_url") and "Your pick:" in texts(c)
    ]
    assert [c.method for c in copies] == ["response_url"]
    table.detach()


async def test_the_public_prompt_loses_its_buttons_when_its_decision_is_over(
    loop: Loopback,
) -> None:
    table = await _begun(loop)
    await _to_venture(loop, table)
    thread = (await refs(loop)).thread
    assert thread is not None
    (prompt,) = [m for m in _thread_messages(loop, thread) if header(m) == "Venture phase"]
    assert _actions(prompt)
    for number, user in enumerate(USERS):
        found = components_of(prompt.blocks, CHANNEL, prompt.ts, False)
        nobody = labelled(found, "Point at nobody")
        mark = len(loop.api.received)
        await _press(loop, user, nobody)
        # Each vote updates the prompt in place ("waiting for ..."): the pressed message,
        # replaced through the press's response URL.
        assert any(
            c.method == "response_url" and c.args["replace_original"] and c.ts == prompt.ts
            for c in loop.api.received[mark:]
        )
        if number < len(USERS) - 1:
            assert _actions(prompt), "the decision is still open"
    record = await stored(loop)
    assert record is not None and deciding(record.state or {}) != "venture"
    assert not prompt.deleted and _actions(prompt) == []  # still there, its buttons gone
    assert "Point in secret" in texts_of(prompt)
    table.detach()


# --- deadlines and notices -------------------------------------------------------------------


async def test_countdowns_and_one_turn_notice_at_a_time(loop: Loopback) -> None:
    table = await _begun(loop, "pick_seconds=300 vote_seconds=300 turn_seconds=300")
    thread = (await refs(loop)).thread
    assert thread is not None
    record = await stored(loop)
    assert record is not None and record.deadline_due is not None
    countdown = f"<!date^{int(record.deadline_due)}^{{date_short_pretty}} at {{time_secs}}|"
    board = boards(loop.api, CHANNEL, thread, BOARD)[0]
    assert countdown in str(board.blocks)
    for user in USERS:
        (panel,) = [m for m in loop.api.messages.values() if m.channel == f"D{user}"]
        assert countdown in str(panel.blocks), user

    seen: list[str] = []
    for _ in range(12):
        # One notice at a time: one live message in the thread names anyone, and only users
        # the game waits for.
        mentioning = [m for m in _thread_messages(loop, thread) if "<@U" in m.text]
        assert len(mentioning) <= 1, [m.text[:60] for m in mentioning]
        for message in mentioning:
            named = set(notice_of(message.text))
            assert named and named <= await _waiting_users(loop) | set(seen), named
        pending = [(p, panel) for p in table.players.values() for panel in p.pending()]
        if not pending:
            break
        player, waiting = table.rng.choice(pending)
        mark = len(loop.api.notifications)
        await table.press(player.user, table.rng.choice(waiting.choices))
        fresh = [n.target for n in loop.api.notifications[mark:]]
        assert player.user not in fresh, "the presser was notified of their own move"
        assert set(fresh) <= await _waiting_users(loop)
        seen = fresh
    notices = [m for m in _thread_messages(loop, thread, deleted=True) if notice_of(m.text)]
    assert len(notices) >= 2
    assert all(m.deleted for m in notices[:-1])  # each replaced by the next, never two
    assert_only_notices(loop.api)
    table.detach()


# --- restarts, workers, pace -------------------------------------------------------------------


async def test_a_restarted_bot_goes_on_editing_the_same_messages(loop: Loopback) -> None:
    table = await _begun(loop)
    before = await refs(loop)
    assert before.board is not None and before.card is not None
    bob_panel = before.panels["UBOB"]
    adapter = await loop.restart()
    assert adapter is not table.adapter
    table.reattach(adapter)
    mark = len(loop.api.received)
    await _press(loop, "UBOB", _menu(table, "UBOB"), _product(_menu(table, "UBOB")))
    calls = loop.api.received[mark:]
    edited = [(c.args["channel"], c.args["ts"]) for c in calls if c.method == "chat.update"]
    replaced = [(c.channel, c.ts) for c in calls if c.method == "response_url"]
    # The new bot knows the messages from Redis: Bob's panel (the pressed message, replaced
    # through the press's response URL) and the board, edited in place.
    assert (bob_panel.where, bob_panel.id) in replaced
    assert (CHANNEL, before.board.id) in edited
    assert not [c for c in calls if c.method == "chat.postMessage"]
    after = await refs(loop)
    assert after.board is not None and before.board is not None
    assert after.board == before.board.model_copy(update={"digest": after.board.digest})
    assert len(boards(loop.api, CHANNEL, before.thread, BOARD)) == 1
    table.detach()


async def test_two_workers_delivering_at_once_never_leave_two_boards(
    loop: Loopback, clock: VirtualClock
) -> None:
    table = await _begun(loop)
    other = await loop.worker()
    thread = (await refs(loop)).thread
    assert thread is not None
    loop.api.latency_s = 0.05  # as slow as Slack: the two deliveries overlap

    async def at_once(presses: list[tuple[Any, str, Component, dict[str, Any]]]) -> None:
        bodies = [
            (slack, slack.action_body(user, c.channel, action, c.message_ts, c.ephemeral))
            for slack, user, c, action in presses
        ]
        # Held: Slack's latency takes real time, so the two workers' deliveries overlap (on
        # the jumping clock one would be over before the other began).
        with clock.hold():
            statuses = await asyncio.gather(*(slack.post(body) for slack, body in bodies))
            assert statuses == [200] * len(bodies)
            await asyncio.gather(loop.adapter.settled(), other.adapter.settled())

    # A moderator deletes the board; then Alice (on one worker) and Bob (on the other) pick at
    # once: each delivery finds the board gone, and only one may post the new one.
    board = (await refs(loop)).board
    assert board is not None
    loop.api.delete(CHANNEL, board.id)
    alice, bob = _menu(table, "UALICE"), _menu(table, "UBOB")
    await at_once(
        [
            (loop.slack, "UALICE", alice, _product(alice)),
            (other.slack, "UBOB", bob, _product(bob)),
        ]
    )
    live = boards(loop.api, CHANNEL, thread, BOARD)
    now = (await refs(loop)).board
    assert now is not None and [m.ts for m in live] == [now.id] and now.id != board.id
    # Then both workers go on at once, a round of votes (all on the one prompt).
    carol = _menu(table, "UCAROL")
    await at_once([(other.slack, "UCAROL", carol, _product(carol))])
    (prompt,) = [m for m in _thread_messages(loop, thread) if header(m) == "Venture phase"]
    nobody = labelled(components_of(prompt.blocks, CHANNEL, prompt.ts, False), "Point at nobody")
    button = {"type": "button", "action_id": nobody.action_id, "block_id": "b"}
    await at_once(
        [
            (loop.slack, "UALICE", nobody, button),
            (other.slack, "UBOB", nobody, button),
            (loop.slack, "UCAROL", nobody, button),
        ]
    )
    assert len(boards(loop.api, CHANNEL, thread, BOARD)) == 1
    record = await stored(loop)
    assert record is not None and deciding(record.state or {}) != "venture"  # all three voted
    # Slack refused only edits of the deleted board (each worker tried it once, at most).
    refused = [(c.method, c.args.get("ts"), c.error) for c in loop.api.refused]
    assert set(refused) == {("chat.update", board.id, "message_not_found")}
    assert len(refused) <= 2
    table.detach()


async def test_posts_keep_to_slacks_pace_of_one_a_second(
    redis_url: str, clock: VirtualClock
) -> None:
    # The table's real pace (Slack's second), kept on the virtual clock that jumps over the
    # waits; the fake measures the posts by the same clock.
    loop = await Loopback.start(redis_url, seed=3, clock=clock)
    await loop.store.client.flushdb()
    try:
        table = await _begun(loop)
        await _to_venture(loop, table)  # a burst: log, prompt and board in the thread at once
        thread = (await refs(loop)).thread
        assert thread is not None
        rate = loop.api.max_posts_per_s(CHANNEL, thread)
        assert rate.posts >= 3 and rate.peak == 1, rate
        assert loop.api.max_posts_per_s(CHANNEL, top_level=True).peak == 1
        table.detach()
    finally:
        await loop.close()
