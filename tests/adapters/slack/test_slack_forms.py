"""Typed moves by form on Slack: a Pitch button opens a modal (views.open); its submission
is the pitch, checked like the typed command."""

from __future__ import annotations

import json
import random
from typing import Any
from urllib.parse import urlencode

from core.games.businessgo.actions import AuctionOff
from core.games.businessgo.state import BusinessGoState
from testkit.slack.fake import TEAM
from testkit.slack.loopback import Loopback
from testkit.slack.players import Component, SlackTable, texts, texts_of
from tests.adapters.slack.conftest import (
    CHANNEL,
    assert_only_notices,
    refs,
    save_state,
    stored,
)
from tests.games import businessgo_support as go
from tests.records import plain_state

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
    assert [p["pitch"] for p in plain_state(record)["products"] if p["pitch"]] == [pitch]
    # The pitch is a post of its own in the game's thread, and pings nobody.
    thread = (await refs(loop)).thread
    assert thread is not None
    pitched = [m for m in loop.api.replies(CHANNEL, thread) if "pitches the" in texts_of(m)]
    assert len(pitched) == 1 and "cold beer, warm heart" in texts_of(pitched[0])
    assert not [m for m in loop.api.channel_messages(CHANNEL) if "pitches the" in texts_of(m)]
    assert not loop.api.notified("channel")
    assert_only_notices(loop.api)
    table.detach()


# --- Busine$$ GO: a bet and a sealed bid, each an amount of one's own -------------------------


async def _rigged(loop: Loopback, table: SlackTable, state: BusinessGoState) -> None:
    """The channel's game goes on from ``state`` (the people's names on its seats), a later
    moment of it, and its board shows it (``status`` brings the board up to date)."""
    record = await stored(loop)
    assert record is not None and record.state_json is not None
    state = go.later_moment(state, [seat.name for seat in record.seats], record.state_json)
    await save_state(loop, record, state)
    await table.command(USERS[0], "status")


async def _answer_form(
    loop: Loopback, table: SlackTable, user: str, label: str, answer: str
) -> None:
    """``user`` presses ``label`` on the board and submits ``answer`` in the modal."""
    board = (await refs(loop)).board
    assert board is not None
    (button,) = [c for c in table.visible(user, commands=True) if c.label == label][:1]
    assert button.message_ts == board.id and not button.ephemeral
    before = len(loop.api.called("views.open"))
    body = loop.slack.action_body(
        user, button.channel, button.action(table.rng), button.message_ts, button.ephemeral
    )
    assert await loop.slack.post(body) == 200
    await loop.adapter.settled()
    (opened,) = loop.api.called("views.open")[before:]
    view: dict[str, Any] = opened.args["view"]
    view = json.loads(view) if isinstance(view, str) else view
    submission = {
        "type": "view_submission",
        "team": {"id": TEAM},
        "user": {"id": user, "name": user.lower(), "username": user.lower()},
        "api_app_id": "A0BOARD",
        "trigger_id": loop.slack.trigger_id(),
        "view": {
            **view,
            "id": f"V0AMOUNT{before}",  # each opened view has an id of its own
            "state": {
                "values": {"answer": {"answer": {"type": "plain_text_input", "value": answer}}}
            },
        },
    }
    assert await loop.slack.post(urlencode({"payload": json.dumps(submission)}).encode()) == 200
    await loop.adapter.settled()
    assert loop.api.refused == []


async def test_a_bet_and_a_sealed_bid_through_their_forms(loop: Loopback) -> None:
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(4), "businessgo")
    await table.command(USERS[0], "start turn_seconds=0 compete_seconds=0 auction_seconds=600")
    for user in USERS[1:]:
        await table.command(user, "join")
    await table.command(USERS[0], "begin")
    thread = (await refs(loop)).thread
    assert thread is not None

    # Alice lands on the Casino with $300,000 and bets an amount of her own.
    state, _ = go.land(go.with_cash(go.new_game(), ann=300_000), 0, "casino")
    await _rigged(loop, table, state)
    await _answer_form(loop, table, "UALICE", "Bet an amount…", "120k")
    told = " ".join(texts_of(m) for m in loop.api.replies(CHANNEL, thread))
    assert "bets $120,000" in told

    # Alice, in debt, auctions Canada: Bob seals a bid of his own through the form.
    state = go.own(go.new_game(3), 0, "japan", "canada", international=["japan"])
    state.fees = ["salary"]
    state, _ = go.land(go.with_cash(state, ann=150_000), 0, "operating_fees")
    state, _ = go.act(state, 0, AuctionOff(asset="canada"))
    await _rigged(loop, table, state)
    since = len(loop.api.calls)
    await _answer_form(loop, table, "UBOB", "Bid an amount…", "170k")
    # Bob alone is told his bid's amount (ephemeral, in the game's thread).
    (note,) = [c for c in loop.api.calls[since:] if "sealed bid:" in texts(c)]
    assert note.method == "chat.postEphemeral" and note.args.get("user") == "UBOB"
    assert "Your sealed bid: $170,000." in texts(note)
    record = await stored(loop)
    assert record is not None and record.state is not None
    assert plain_state(record)["auction"]["bids"] == {"1": 170_000}
    shown = [texts_of(m) for m in loop.api.replies(CHANNEL, thread)]
    shown += [texts_of(m) for m in loop.api.channel_messages(CHANNEL)]
    assert not [t for t in shown if "170,000" in t or "170000" in t]  # sealed
    assert_only_notices(loop.api)
    table.detach()
