"""Signatures, Slack's redeliveries and the presses the authority must refuse, over real HTTP."""

from __future__ import annotations

import random
import time

from bot.adapters.slack.app import NOT_IN_CHANNEL
from bot.commands.authority import STALE
from core.games.bigidea.cards import card
from testkit.slack.loopback import Loopback
from testkit.slack.players import Component, SlackTable, texts
from tests.adapters.slack.conftest import CHANNEL, boards, refs, stored, told_privately
from tests.records import deciding

USERS = ["UALICE", "UBOB", "UCAROL"]


def _updated_for(loop: Loopback, user: str, since: int) -> list[str]:
    """Private messages of ``user`` edited since ``since`` (their DM panel, an ephemeral one),
    as they read now."""
    edited = []
    for call in loop.api.calls[since:]:
        if call.method not in ("chat.update", "response_url") or call.ts is None:
            continue
        message = loop.api.message(str(call.channel), call.ts)
        if message is not None and (message.channel == f"D{user}" or message.user == user):
            edited.append(message.text)
    return edited


def _ephemeral_to(loop: Loopback, user: str, since: int) -> list[str]:
    """What ``user`` was told privately since call ``since`` (see :func:`told_privately`)."""
    return told_privately(loop.api, user, since)


async def _begun(loop: Loopback) -> SlackTable:
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(2), "bigidea")
    await table.command(USERS[0], "start")
    for user in USERS[1:]:
        await table.command(user, "join")
    await table.command(USERS[0], "begin")
    return table


def _product(component: Component) -> dict[str, object]:
    """A pick action of one item and one description from the menu's cards."""
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


async def _press(loop: Loopback, user: str, component: Component, action: dict[str, object]) -> int:
    body = loop.slack.action_body(
        user, component.channel, action, component.message_ts, component.ephemeral
    )
    status = await loop.slack.post(body)
    await loop.adapter.settled()
    return status


async def test_forged_and_stale_signatures_are_refused(loop: Loopback) -> None:
    body = loop.slack.slash_body("/bigidea", "start", "UALICE", CHANNEL)
    assert await loop.slack.post(body, secret="not-the-secret") == 401
    assert await loop.slack.post(body, timestamp=int(time.time()) - 5 * 60 - 10) == 401
    await loop.adapter.settled()
    assert await stored(loop) is None
    assert [c.method for c in loop.api.calls] == []
    assert await loop.slack.post(body) == 200  # the same body, rightly signed, is served
    await loop.adapter.settled()
    assert await stored(loop) is not None


async def test_a_retried_slash_command_applies_once(loop: Loopback) -> None:
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(1), "bigidea")
    await table.command("UALICE", "start")
    join = loop.slack.slash_body("/bigidea", "join", "UBOB", CHANNEL)
    assert await loop.slack.post(join) == 200
    await loop.adapter.settled()
    posts = len(loop.api.called("chat.postMessage"))
    for retry in (1, 2):
        assert await loop.slack.post(join, retry=retry) == 200
        await loop.adapter.settled()
    record = await stored(loop)
    assert record is not None
    assert [s.users[0] for s in record.seats] == ["UALICE", "UBOB"]
    assert len(loop.api.called("chat.postMessage")) == posts  # the retries said nothing
    table.detach()


async def test_someone_elses_button_double_click_and_stale_button(loop: Loopback) -> None:
    table = await _begun(loop)
    alice = table.players["UALICE"].private
    bob = table.players["UBOB"].private
    assert alice is not None and bob is not None
    bob_menu = bob.choices[0]
    assert bob_menu.channel == "DUBOB"  # Bob's panel came by DM, its menu acting on CHANNEL

    # Alice presses Bob's menu (as if forwarded to her): refused, privately, nothing changes.
    before = await stored(loop)
    since = len(loop.api.calls)
    await _press(loop, "UALICE", bob_menu, _product(bob_menu))
    said = _ephemeral_to(loop, "UALICE", since)
    assert any("belongs to" in text for text in said), said
    assert await stored(loop) == before

    # A double click: the first click updates the pressed panel in place (its response URL
    # replaces that very message); the second click of the same choice changes nothing more.
    alice_menu = alice.choices[0]
    assert alice_menu.channel == "DUALICE"
    action = _product(alice_menu)
    since = len(loop.api.calls)
    await _press(loop, "UALICE", alice_menu, action)
    pressed = [
        c
        for c in loop.api.calls[since:]
        if c.method == "response_url" and c.args.get("replace_original") and c.channel == "DUALICE"
    ]
    assert [c.ts for c in pressed] == [alice_menu.message_ts]
    assert "Your pick:" in texts(pressed[0])
    first = await stored(loop)
    since = len(loop.api.calls)
    await _press(loop, "UALICE", alice_menu, action)
    again = _ephemeral_to(loop, "UALICE", since) + _updated_for(loop, "UALICE", since)
    assert again, "the second click is answered privately too"
    # ... in the pressed panel itself (through the press's response URL): the panel as it is,
    # the refusal at its head; no message is added to the DM.
    calls = loop.api.calls[since:]
    answers = [c for c in calls if c.method == "response_url"]
    assert [(c.channel, c.ts, c.args["replace_original"]) for c in answers] == [
        ("DUALICE", alice_menu.message_ts, True)
    ]
    assert texts(answers[0]).split("\n")[1].startswith("You have already picked those cards")
    assert not [c for c in calls if c.method == "chat.postMessage"]
    assert not [c for c in calls if c.method == "chat.postMessage"], "no new DM message"
    assert not [
        c
        for c in loop.api.calls[since:]
        if c.args.get("channel") == CHANNEL and (c.method != "chat.postEphemeral")
    ], "the second click changed nothing public"
    second = await stored(loop)
    assert first is not None and second is not None and first.state is not None
    assert (second.state or {})["picks"] == first.state["picks"]
    assert deciding(second.state or {}) == deciding(first.state)

    # The very same payload delivered twice (Slack redelivery) is applied once, silently.
    body = loop.slack.action_body("UBOB", bob_menu.channel, _product(bob_menu), "1.0", False)
    await loop.slack.post(body)
    await loop.adapter.settled()
    once = await stored(loop)
    since = len(loop.api.calls)
    await loop.slack.post(body)
    await loop.adapter.settled()
    assert loop.api.calls[since:] == []
    assert await stored(loop) == once

    # Carol picks; the phase moves on; Alice's old menu is now stale.
    carol = table.players["UCAROL"].private
    assert carol is not None
    await _press(loop, "UCAROL", carol.choices[0], _product(carol.choices[0]))
    moved = await stored(loop)
    assert moved is not None and moved.state is not None and deciding(moved.state) != "pick"
    since = len(loop.api.calls)
    await _press(loop, "UALICE", alice_menu, action)
    # The pressed panel is brought up to date and says why at its head: one message in her
    # DM rather than a panel and an ephemeral answer beside it.
    healed = _updated_for(loop, "UALICE", since)
    assert healed and healed[0].split("\n")[1].startswith(STALE), healed  # under its title
    assert not any(STALE in t for t in _ephemeral_to(loop, "UALICE", since))
    assert await stored(loop) == moved
    table.detach()


async def test_hand_in_a_dm_answers_there_with_buttons_for_the_game(loop: Loopback) -> None:
    table = await _begun(loop)
    since = len(loop.api.calls)
    body = loop.slack.slash_body("/bigidea", "hand", "UALICE", "DUALICE")
    assert await loop.slack.post(body) == 200
    await loop.adapter.settled()
    dms = [
        c
        for c in loop.api.calls[since:]
        if c.method == "chat.postMessage" and c.args["channel"] == "DUALICE"
    ]
    assert dms and not loop.api.called("chat.postEphemeral")[len(USERS) :]
    assert f"|{CHANNEL}|" in str(dms[0].blocks)
    table.detach()


async def test_empty_or_unknown_text_gets_help(loop: Loopback) -> None:
    for text in ("", "frobnicate"):
        since = len(loop.api.calls)
        assert await loop.slack.post(loop.slack.slash_body("/bigidea", text, "U1", CHANNEL)) == 200
        await loop.adapter.settled()
        said = _ephemeral_to(loop, "U1", since)
        assert any("/bigidea start" in t for t in said), said


async def test_fallbacks_when_slack_refuses_a_call(loop: Loopback) -> None:
    """No ephemeral in the channel: the private answer comes through the command's response
    URL, where it was asked. Board deleted: a new board is posted."""
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(3), "bigidea")
    loop.api.fail["chat.postEphemeral"] = "channel_not_found"
    since = len(loop.api.calls)
    await table.command("UALICE", "status")  # answered privately: no game here yet
    said = _ephemeral_to(loop, "UALICE", since)
    assert any("No game here" in t for t in said), said
    del loop.api.fail["chat.postEphemeral"]
    await _begun_with(table)
    old = (await refs(loop)).board
    assert old is not None
    loop.api.fail["chat.update"] = "message_not_found"
    await table.command("UBOB", "leave")  # a public change: the board must be refreshed
    new = (await refs(loop)).board
    assert new is not None and new.id != old.id
    posted = {c.ts for c in loop.api.called("chat.postMessage")}
    assert new.id in posted
    del loop.api.fail["chat.update"]
    table.detach()


async def test_a_board_edit_that_fails_otherwise_never_posts_a_second_board(
    loop: Loopback,
) -> None:
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(3), "bigidea")
    await _begun_with(table)
    thread = (await refs(loop)).thread
    board = (await refs(loop)).board
    assert board is not None and thread is not None
    assert [m.ts for m in boards(loop.api, CHANNEL, thread, "The Big Idea")] == [board.id]
    posted = len(loop.api.called("chat.postMessage"))
    loop.api.fail["chat.update"] = "internal_error"  # the board is still there
    await table.command("UBOB", "leave")
    assert len(loop.api.refused) > 0, "the board edit was tried (and refused)"
    after = (await refs(loop)).board
    assert after is not None and after.id == board.id
    assert any("ubob left" in line for line in (await refs(loop)).pending)  # told on the board
    posts = loop.api.called("chat.postMessage")[posted:]
    assert not [c for c in posts if texts(c).startswith("*The Big Idea*")]  # no second board
    assert [m.ts for m in boards(loop.api, CHANNEL, thread, "The Big Idea")] == [board.id]
    del loop.api.fail["chat.update"]
    # A moderator deletes the board: the next change posts a new one and edits that.
    loop.api.delete(CHANNEL, board.id)
    await table.command("UCAROL", "leave")
    new = (await refs(loop)).board
    assert new is not None and new.id != board.id
    assert [m.ts for m in boards(loop.api, CHANNEL, thread, "The Big Idea")] == [new.id]
    table.detach()


async def _begun_with(table: SlackTable) -> None:
    await table.command(USERS[0], "start")
    for user in USERS[1:]:
        await table.command(user, "join")
    await table.command(USERS[0], "begin")


async def test_typed_text_is_unescaped_and_mentions_name_players(loop: Loopback) -> None:
    """Slack sends `R&D` as `R&amp;D`, and with should_escape a mention as `<@UBOB|bob>`."""
    for user, text in (
        ("UALICE", "start"),
        ("UBOB", "join R&amp;D"),
        ("UALICE", "move <@UBOB|bob> to Labs &amp; Co"),
    ):
        body = loop.slack.slash_body("/biggiebills", text, user, CHANNEL)
        assert await loop.slack.post(body) == 200
        await loop.adapter.settled()
    record = await stored(loop)
    assert record is not None
    assert [(seat.name, seat.users) for seat in record.seats] == [
        ("ualice", ["UALICE"]),
        ("Labs & Co", ["UBOB"]),
    ]


async def test_a_channel_the_bot_is_not_in_is_explained_where_it_was_asked(
    loop: Loopback,
) -> None:
    """The bot may post nothing there, not even an ephemeral: the command's response URL
    answers privately, in that channel (no DM)."""
    loop.api.not_in(CHANNEL)
    body = loop.slack.slash_body("/bigidea", "start", "UALICE", CHANNEL)
    assert await loop.slack.post(body) == 200
    await loop.adapter.settled()
    assert [c.error for c in loop.api.refused] == ["not_in_channel"]  # (the game's card)
    assert not loop.api.called("chat.postMessage")  # no DM
    said = _ephemeral_to(loop, "UALICE", 0)
    assert said == [NOT_IN_CHANNEL], said


async def test_a_deleted_card_takes_the_game_out_of_its_thread(loop: Loopback) -> None:
    """A moderator deletes the card, and with it the thread's parent: Slack refuses replies
    there (thread_not_found), so the game goes on in the channel, one board still."""
    table = await _begun(loop)
    before = await refs(loop)
    assert before.thread is not None and before.card is not None
    loop.api.delete(CHANNEL, before.card.id)
    await table.play(max_presses=12)
    refused = [(c.method, c.error) for c in loop.api.refused]
    # Slack said so once: the bot remembers the thread is gone.
    assert refused.count(("chat.postMessage", "thread_not_found")) == 1, refused
    gone = {("chat.postMessage", "thread_not_found"), ("chat.update", "message_not_found")}
    assert set(refused) <= gone
    retried = [c for c in loop.api.called("chat.postMessage") if "thread_ts" not in c.args]
    assert len(retried) >= 2  # the card, then what the thread refused
    live = [
        m
        for m in loop.api.channel_messages(CHANNEL) + loop.api.replies(CHANNEL, before.thread)
        if m.blocks and m.blocks[0].get("text", {}).get("text") == "The Big Idea"
    ]
    assert len(live) == 1
    table.detach()
