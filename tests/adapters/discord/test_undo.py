"""Whole games of every game through the real discord.py client and the strict fake Discord,
with a move taken back: asked, refused once, then approved by everyone; the game then plays
to its end from the game taken back (its log, take-back and all, replays to the result)."""

from __future__ import annotations

import json
import random

import pytest

from bot.adapters.discord.commands import MORE, split_words
from bot.commands.authority import Authority
from bot.commands.game.actionlog import replay
from bot.commands.record import GameRecord
from bot.settings import Settings
from core.engine import GameState
from core.registry import get_game
from testkit.discord.fake import FakeDiscord, FakeMessage
from testkit.discord.sim import Table, running_bot
from tests.adapters.discord.conftest import CHANNEL, USERS, lines, posted, thread_of
from tests.records import as_played, plain_state

GAMES = [
    ("bigidea", "pick_seconds=0 vote_seconds=0 turn_seconds=0"),
    ("biggiebills", "turn_seconds=0 block_seconds=0"),
    (
        "businessgo",
        "short turn_seconds=0 compete_seconds=0 auction_seconds=0 auto_moves=no always_compete=no",
    ),
]


def undo_word(game: str) -> str:
    """``undo``, or ``more undo`` where Discord shows it in the game's ``more`` group."""
    found = get_game(game)
    assert found is not None
    top, _ = split_words(found)
    return "undo" if "undo" in [c.word for c in top] else f"{MORE} undo"


def request_board(table: Table) -> FakeMessage:
    for message in table.public():
        labels = [c.get("label") for c in message.components]
        if "Approve" in labels and "Refuse" in labels:
            return message
    raise AssertionError("no board asks to take a move back")


def button(message: FakeMessage, label: str) -> str:
    return str(next(c["custom_id"] for c in message.components if c.get("label") == label))


async def state_at(table: Table, record: GameRecord, version: int) -> GameState:
    game = get_game(record.game)
    assert game is not None
    history = await table.client.adapter.authority.store.read_history(table.key)
    found: list[GameState] = []

    def seen(state: GameState) -> None:
        if state.version == version:
            found[:] = [state]

    replay(game, record.seed, record.options, record.first_version, history.lines, seen)
    assert found, f"the log never had version {version}"
    return found[0]


@pytest.mark.parametrize(("game", "options"), GAMES, ids=[g for g, _ in GAMES])
async def test_a_whole_game_with_a_move_taken_back_after_one_refusal(
    fake: FakeDiscord, authority: Authority, settings: Settings, game: str, options: str
) -> None:
    users = USERS[:3]
    async with running_bot(fake, authority, settings, pace_window_s=0) as client:
        table = Table(fake, client, CHANNEL, users, random.Random(8), game)
        await table.open(options)
        for _ in range(2_000):
            record = await table.record()
            assert record is not None and record.status == "playing", "no move to take back"
            if record.undo_points:
                break
            assert await table.step()
        assert record is not None
        point = record.undo_points[-1]
        asker = next(u for u in users if str(u.id) == point.user)
        others = [u for u in users if u is not asker]
        expected = await state_at(table, record, point.before)
        now = plain_state(record)

        asked = await table.slash(asker, undo_word(game))
        assert asked.messages and asked.messages[0].audience == "ephemeral"
        board = request_board(table)
        assert f"{asker.name} asks to take back" in board.text
        await table.click(others[0], board, button(board, "Refuse"))
        record = await table.record()
        assert record is not None and record.undo_request is None
        assert plain_state(record) == now, "a refusal changes nothing"

        await table.slash(asker, undo_word(game))
        for other in others:
            board = request_board(table)
            await table.click(other, board, button(board, "Approve"))
        record = await table.record()
        assert record is not None and record.state_json is not None
        found = get_game(game)
        assert found is not None
        back = found.state_model.model_validate_json(record.state_json)
        assert as_played(back) == as_played(expected), "the game is as it was before the move"

        thread = await thread_of(authority.store)
        shown = lines(posted(fake, thread)) + lines(fake.public(thread))
        refused = f"{others[0].name} refused {asker.name}'s request to take back a move."
        assert any(refused in line for line in shown), shown[-10:]
        assert any(f"{asker.name} took back their last move" in line for line in shown)

        final = await table.play()
    assert final is not None and final.status == "finished"
    history = await authority.store.read_history(table.key)
    entries = [entry for text in history.lines for entry in json.loads(text)]
    assert [e[1] for e in entries].count("undo") == 1
    rebuilt = replay(found, final.seed, final.options, final.first_version, history.lines)
    assert final.state_json is not None
    stored = found.state_model.model_validate_json(final.state_json)
    assert rebuilt is not None and rebuilt.model_dump() == stored.model_dump()
    summary = plain_state(final)["outcome"]["summary"]
    assert any(summary.split(".")[0] in m.text for m in fake.public(CHANNEL))
    assert fake.refused == [], [(c.method, c.path, c.reply) for c in fake.refused[:3]]
