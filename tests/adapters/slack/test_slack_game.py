"""Whole games through the real Bolt app: signed requests in, Web API calls out."""

from __future__ import annotations

import random
from typing import Any

from core.games.bigidea.cards import card
from testkit.slack.fake import Call
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable, texts
from tests.adapters.slack.conftest import CHANNEL, stored

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
    checked = 0
    steps = 0

    async def no_leak() -> None:
        nonlocal checked, steps
        steps += 1
        record = await stored(loop)
        assert record is not None and record.state is not None
        secrets = _secrets(record.state)
        for call in loop.api.calls[checked:]:
            if _public(call):
                shown = texts(call)
                leaked = [s for s in secrets if s in shown]
                assert not leaked, (leaked, shown)
        checked = len(loop.api.calls)

    await no_leak()
    await table.play(max_presses=2_000, after_each=no_leak)
    record = await stored(loop)
    assert record is not None and record.status == "finished", "the game did not end"
    standings = (record.state or {})["outcome"]["standings"]
    assert len(standings) == 4
    summary = (record.state or {})["outcome"]["summary"]
    assert any(summary.split(".")[0] in texts(c) for c in loop.api.calls if _public(c))
    # One live board: posted once when the game began, then edited in place.
    methods = [c.method for c in loop.api.calls]
    assert methods.count("chat.update") >= steps // 2
    ts = {c.args["ts"] for c in loop.api.called("chat.update")}
    assert len(ts) == 1
    # Private panels reached Bob, Carol and Dave by DM, Alice (who began) ephemerally.
    opened = {c.args["users"] for c in loop.api.called("conversations.open")}
    assert opened >= {"UBOB", "UCAROL", "UDAVE"}
    assert any(c.args["user"] == "UALICE" for c in loop.api.called("chat.postEphemeral"))
    table.detach()
