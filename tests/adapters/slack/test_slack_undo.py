"""Whole games of every game through the real Bolt app and the strict fake Slack, with a move
taken back: asked, refused once, then approved by everyone; the game then plays to its end
from the game taken back (its log, take-back and all, replays to the result)."""

from __future__ import annotations

import json
import random

import pytest

from bot.commands.game.actionlog import replay
from core.engine import GameState
from core.registry import get_game
from storage import GameKey
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable, texts
from tests.adapters.slack.conftest import CHANNEL, stored
from tests.records import as_played, plain_state

USERS = ["UALICE", "UBOB", "UCAROL"]
GAMES = [
    ("bigidea", "pick_seconds=0 vote_seconds=0 turn_seconds=0"),
    ("biggiebills", "turn_seconds=0 block_seconds=0"),
    (
        "businessgo",
        "short turn_seconds=0 compete_seconds=0 auction_seconds=0 auto_moves=no always_compete=no",
    ),
]


@pytest.mark.parametrize(("name", "options"), GAMES, ids=[g for g, _ in GAMES])
async def test_a_whole_game_with_a_move_taken_back_after_one_refusal(
    loop: Loopback, name: str, options: str
) -> None:
    game = get_game(name)
    assert game is not None
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(6), name)
    await table.command(USERS[0], f"start {options}")
    for user in USERS[1:]:
        await table.command(user, "join")
    await table.command(USERS[0], "begin")
    for _ in range(2_000):
        record = await stored(loop)
        assert record is not None and record.status == "playing", "no move to take back"
        if record.undo_points:
            break
        assert await table.step()
    assert record is not None
    point = record.undo_points[-1]
    asker, others = point.user, [u for u in USERS if u != point.user]
    history = await loop.store.read_history(GameKey("slack", CHANNEL))
    found: list[GameState] = []

    def seen(state: GameState) -> None:
        if state.version == point.before:
            found[:] = [state]

    replay(game, record.seed, record.options, record.first_version, history.lines, seen)
    assert found
    now = plain_state(record)

    await table.command(asker, "undo")
    await loop.adapter.table.flushed()
    assert await table.press_label(others[0], "Refuse", commands=True)
    record = await stored(loop)
    assert record is not None and record.undo_request is None
    assert plain_state(record) == now, "a refusal changes nothing"
    await table.command(asker, "undo")
    for other in others:
        await loop.adapter.table.flushed()
        assert await table.press_label(other, "Approve", commands=True)
    record = await stored(loop)
    assert record is not None and record.state_json is not None
    back = game.state_model.model_validate_json(record.state_json)
    assert as_played(back) == as_played(found[0]), "the game is as it was before the move"
    shown = "\n".join(texts(call) for call in loop.api.calls)
    assert "refused" in shown and "request to take back a move" in shown
    assert "took back their last move" in shown

    await table.play(max_presses=3_000)
    final = await stored(loop)
    assert final is not None and final.status == "finished", "the game did not end"
    history = await loop.store.read_history(GameKey("slack", CHANNEL))
    entries = [entry for text in history.lines for entry in json.loads(text)]
    assert [e[1] for e in entries].count("undo") == 1
    rebuilt = replay(game, final.seed, final.options, final.first_version, history.lines)
    assert final.state_json is not None
    stored_state = game.state_model.model_validate_json(final.state_json)
    assert rebuilt is not None and rebuilt.model_dump() == stored_state.model_dump()
    summary = plain_state(final)["outcome"]["summary"]
    assert summary.split(".")[0] in shown or any(
        summary.split(".")[0] in texts(call) for call in loop.api.calls
    )
