"""Whole games through the real Bolt app: signed requests in, Web API calls out."""

from __future__ import annotations

import random
from typing import Any

from core.games.bigidea.cards import card
from testkit.slack.fake import Call
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable, texts, texts_of
from tests.adapters.slack.conftest import CHANNEL, assert_only_notices, boards, header, refs, stored
from tests.records import plain_state

USERS = ["UALICE", "UBOB", "UCAROL", "UDAVE"]
QUICK = "pick_seconds=0 vote_seconds=0 turn_seconds=0"


def _secrets(state: dict[str, Any]) -> set[str]:
    """The printed text of every card still hidden: in a hand or a pick not yet revealed."""
    hidden = {c for hand in state["hands"] for c in hand}
    hidden |= {c for pick in state["picks"] if pick for c in pick}
    return {card(c).text.strip(".") for c in hidden}


def _public(call: Call) -> bool:
    return call.method in ("chat.postMessage", "chat.update") and call.args["channel"] == CHANNEL


async def test_four_users_play_a_whole_game_and_no_hand_leaks(loop: Loopback) -> None:
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(5), "bigidea")
    await table.command(USERS[0], f"start {QUICK}")
    for user in USERS[1:]:
        await table.command(user, "join")
    await table.command(USERS[0], "begin")
    thread = (await refs(loop)).thread
    assert thread is not None
    checked = 0
    steps = 0
    board_ts: set[str] = set()

    async def no_leak() -> None:
        nonlocal checked, steps
        steps += 1
        # The board's picture held back by the last press is shown first, so that every call
        # is checked against the secrets of its own moment.
        await loop.adapter.table.caught_up()
        record = await stored(loop)
        assert record is not None and record.state is not None
        secrets = _secrets(record.state)
        for call in loop.api.calls[checked:]:
            if _public(call):
                shown = texts(call)
                leaked = [s for s in secrets if s in shown]
                assert not leaked, (leaked, shown)
        checked = len(loop.api.calls)
        # One live board at every moment, in the game's thread.
        live = boards(loop.api, CHANNEL, thread, "The Big Idea")
        assert len(live) == 1, [m.ts for m in live]
        board_ts.add(live[0].ts)

    await no_leak()
    await table.play(max_presses=2_000, after_each=no_leak)
    record = await stored(loop)
    assert record is not None and record.status == "finished", "the game did not end"
    standings = plain_state(record)["outcome"]["standings"]
    assert len(standings) == 4
    summary = plain_state(record)["outcome"]["summary"]
    assert any(summary.split(".")[0] in texts(c) for c in loop.api.calls if _public(c))
    assert_only_notices(loop.api)

    # The channel holds the card (now the final standings) and the result; the rest is in
    # the thread started from the card.
    card_message, result = loop.api.channel_messages(CHANNEL, deleted=True)
    assert card_message.ts == thread and not card_message.deleted
    assert header(card_message) == "The Big Idea: final standings"
    assert len(card_message.edits) >= len(USERS)  # the lobby, edited as people joined
    assert summary.split(".")[0] in texts_of(result)
    # The board was edited in place more often than it was posted (it moves to the bottom
    # to notify someone or once it has scrolled up, and the old one is deleted each time).
    posted = [
        m for m in loop.api.replies(CHANNEL, thread, deleted=True) if header(m) == "The Big Idea"
    ]
    assert {m.ts for m in posted} == board_ts
    assert [m.deleted for m in posted] == [True] * (len(posted) - 1) + [False]
    assert sum(len(m.edits) for m in posted) > len(posted)
    assert steps > 20

    # Every player's panel is one DM, posted once and edited in place.
    opened = {c.args["users"] for c in loop.api.called("conversations.open")}
    assert opened == set(USERS)
    for user in USERS:
        panels = [
            c
            for c in loop.api.called("chat.postMessage")
            if c.args["channel"] == f"D{user}" and texts(c).startswith("*The Big Idea: ")
        ]
        assert len(panels) == 1, [texts(c)[:40] for c in panels]
        shown = loop.api.message(f"D{user}", str(panels[0].ts))
        assert shown is not None and len(shown.edits) > 5
        assert "This game is over" in texts_of(shown) or "Your hand" in texts_of(shown)
    assert loop.api.refused == []
    table.detach()
