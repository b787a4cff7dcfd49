"""Typed moves by form on Slack: a Pitch button opens a modal (views.open); its submission
is the pitch, checked like the typed command."""

from __future__ import annotations

import json
import random
from typing import Any
from urllib.parse import urlencode

from testkit.slack.fake import TEAM
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable, texts
from tests.adapters.slack.conftest import CHANNEL, stored

USERS = ["UALICE", "UBOB", "UCAROL"]
SLOW_VOTE = "pick_seconds=0 vote_seconds=600 turn_seconds=0"


def _pitch_button(loop: Loopback) -> tuple[str, str, str, bool] | None:
    """(user, channel, action id, ephemeral) of the newest Pitch button anyone was shown."""
    for call in reversed(loop.api.calls):
        if call.method not in ("chat.postEphemeral", "chat.postMessage"):
            continue
        for block in call.blocks:
            for element in block.get("elements", []) if block.get("type") == "actions" else []:
                if element.get("text", {}).get("text") == "Pitch it…":
                    channel = str(call.args["channel"])
                    # An ephemeral names its reader; a DM's channel is D<user> in the fake.
                    user = str(call.args.get("user") or channel[1:])
                    ephemeral = call.method == "chat.postEphemeral"
                    return user, channel, element["action_id"], ephemeral
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
        found = _pitch_button(loop)
        if found is not None:
            break
        pending = [(p, panel) for p in table.players.values() for panel in p.pending()]
        assert pending, "nobody can act and nobody was offered to pitch"
        player, panel = pending[0]
        if await table.press(player.user, panel.choices[0]):
            panel.answered = True
        else:
            panel.tries += 1
            panel.answered = panel.tries >= 4
    assert found is not None
    user, channel, action_id, ephemeral = found
    before = len(loop.api.called("views.open"))
    body = loop.slack.action_body(
        user, channel, {"type": "button", "action_id": action_id, "block_id": "b"}, "1.0", ephemeral
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
    said = "\n".join(texts(c) for c in loop.api.called("chat.postMessage"))
    assert "pitches the" in said and loop.api.notifications == []
    table.detach()
