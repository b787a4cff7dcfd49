"""Typed moves by form on Slack: a Pitch button opens a modal (views.open); its submission
is the pitch, checked like the typed command."""

from __future__ import annotations

import json
import random
from typing import Any
from urllib.parse import urlencode

from testkit.slack.fake import TEAM
from testkit.slack.loopback import Loopback
from testkit.slack.players import Component, SlackTable, texts_of
from tests.adapters.slack.conftest import CHANNEL, assert_only_notices, refs, stored

USERS = ["UALICE", "UBOB", "UCAROL"]
SLOW_VOTE = "pick_seconds=0 vote_seconds=600 turn_seconds=0"


def _pitch_button(table: SlackTable) -> tuple[str, Component] | None:
    """(user, button) of a Pitch button a player sees now (on their DM panel)."""
    for user in table.players:
        found = [c for c in table.visible(user, commands=True) if c.label == "Pitch it…"]
        if found:
            return user, found[0]
    return None


async def test_the_pitch_button_opens_a_modal_and_its_submission_is_the_pitch(
    loop: Loopback,
) -> None:
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(4), "bigidea")
    await table.command(USERS[0], f"start {SLOW_VOTE}")
    for user in USERS[1:]:
        await table.command(user, "join")
    await table.command(USERS[0], "begin")
    found = None
    for _ in range(100):
        found = _pitch_button(table)
        if found is not None:
            break
        pending = [(p, panel) for p in table.players.values() for panel in p.pending()]
        assert pending, "nobody can act and nobody was offered to pitch"
        player, panel = table.rng.choice(pending)
        if await table.press(player.user, panel.choices[0]):
            panel.answered = True
        else:
            panel.tries += 1
            panel.answered = panel.tries >= 4
    assert found is not None
    user, button = found
    assert button.channel == f"D{user}"  # on the player's DM panel, acting on CHANNEL's game
    before = len(loop.api.called("views.open"))
    body = loop.slack.action_body(
        user, button.channel, button.action(table.rng), button.message_ts, button.ephemeral
    )
    assert await loop.slack.post(body) == 200
    await loop.adapter.settled()
    opened = loop.api.called("views.open")[before:]
    assert len(opened) == 1 and loop.api.refused == []
    view: dict[str, Any] = opened[0].args["view"]
    view = json.loads(view) if isinstance(view, str) else view
    pitch = "<!channel> cold beer, warm heart"
    submission = {
        "type": "view_submission",
        "team": {"id": TEAM},
        "user": {"id": user, "name": user.lower(), "username": user.lower()},
        "api_app_id": "A0BOARD",
        "trigger_id": loop.slack.trigger_id(),
        "view": {
            **view,
            "id": "V0PITCH",
            "state": {
                "values": {"answer": {"answer": {"type": "plain_text_input", "value": pitch}}}
            },
        },
    }
    assert await loop.slack.post(urlencode({"payload": json.dumps(submission)}).encode()) == 200
    await loop.adapter.settled()
    record = await stored(loop)
    assert record is not None and record.state is not None
    assert [p["pitch"] for p in record.state["products"] if p["pitch"]] == [pitch]
    # The pitch is a post of its own in the game's thread, and pings nobody.
    thread = (await refs(loop)).thread
    assert thread is not None
    pitched = [m for m in loop.api.replies(CHANNEL, thread) if "pitches the" in texts_of(m)]
    assert len(pitched) == 1 and "cold beer, warm heart" in texts_of(pitched[0])
    assert not [m for m in loop.api.channel_messages(CHANNEL) if "pitches the" in texts_of(m)]
    assert not loop.api.notified("channel")
    assert_only_notices(loop.api)
    table.detach()
