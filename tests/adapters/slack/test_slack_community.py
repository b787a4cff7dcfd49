"""`/boardroom` and Rematch through the real Bolt app against the strict fake Slack."""

from __future__ import annotations

import random

from storage import history as kept
from testkit.slack.fake import TEAM
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable, texts
from tests.adapters.slack.conftest import CHANNEL, stored

USERS = ["UALICE", "UBOB", "UCAROL"]
QUICK = "pick_seconds=0 vote_seconds=0 turn_seconds=0"


def _private_to(loop: Loopback, user: str, since: int) -> list[str]:
    """What ``user`` alone was shown after call ``since``: ephemeral posts and private updates."""
    return [
        texts(call)
        for call in loop.api.calls[since:]
        if call.method in ("chat.postEphemeral", "response_url")
        and call.args.get("user", user) == user
    ]


async def test_boardroom_answers_privately_shares_a_leaderboard_and_rematch_invites(
    loop: Loopback,
) -> None:
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(3), "bigidea")
    await table.command(USERS[0], f"start {QUICK}")
    for user in USERS[1:]:
        await table.command(user, "join")
    await table.command(USERS[0], "begin")
    await table.play(max_presses=2_000)
    finished = await stored(loop)
    assert finished is not None and finished.status == "finished"
    assert finished.community == TEAM  # the workspace is the community
    rows = await kept.leaderboard(
        loop.adapter.authority.store, kept.Community("slack", TEAM), "bigidea", 10
    )
    assert {row.user for row in rows} == set(USERS)

    community = SlackTable.on(loop, CHANNEL, USERS, random.Random(3), "boardroom")
    since = len(loop.api.calls)
    await community.command(USERS[1], "leaderboard bigidea")
    answers = _private_to(loop, USERS[1], since)
    assert answers and "The Big Idea: leaderboard" in answers[-1] and "1 game" in answers[-1]
    public_before = [c for c in loop.api.calls if c.method == "chat.postMessage"]
    assert await community.press_label(USERS[1], "Show to the channel", commands=True)
    shown = [c for c in loop.api.calls if c.method == "chat.postMessage"][len(public_before) :]
    assert [c.args["channel"] for c in shown] == [CHANNEL]
    assert "The Big Idea: leaderboard" in texts(shown[0])

    since = len(loop.api.calls)
    await community.command(USERS[2], f"stats <@{USERS[0]}>")
    assert any("1 game" in text for text in _private_to(loop, USERS[2], since))

    assert await table.press_label(USERS[2], "Rematch", commands=True)
    lobby = await stored(loop)
    assert lobby is not None and lobby.status == "lobby" and lobby.host == USERS[2]
    assert lobby.humans == [USERS[2]]  # the others are invited: each joins with a press
    assert [i.user for i in lobby.invited] == [u for u in finished.humans if u != USERS[2]]
