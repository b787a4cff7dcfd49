"""The end-of-game chart: every seat's money over the game, rebuilt from the log."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from bot.commands.community import finalcard
from bot.commands.game.actionlog import line, money_and_rounds, money_series
from bot.commands.game.play import advance, start_state
from bot.commands.record import GameRecord, SeatInfo
from core import registry
from core.engine import GameLike, GameState
from storage import History

GAMES = ["biggiebills", "bigidea", "businessgo"]


def _logged_game(
    game: GameLike, seed: int
) -> tuple[list[str], list[tuple[int, list[int] | None]], GameState]:
    """A whole game of four people played through the authority's own steps: its log lines,
    and after each command the number of actions logged so far and every seat's money then,
    as it was played."""
    names = ["Ann", "Bo", "Cy", "Di"]
    bots = [False] * 4
    result = start_state(game, names, bots, {}, seed, 1)
    lines = [line([["host", "begin", [*names], [*bots]], *result.log])]
    state = result.state
    logged = len(result.log)
    played = [(logged, game.ledger(state))]
    chooser = random.Random(seed)
    for _ in range(3000):
        if state.finished:
            break
        seat = chooser.choice(game.actors(state))
        action = game.bot_choice(state, seat, game.legal_actions(state, seat), chooser)
        step = advance(game, state, seed, bots, seat, action)
        lines.append(line(step.log))
        state = step.state
        logged += len(step.log)
        played.append((logged, game.ledger(state)))
    assert state.finished
    return lines, played, state


@pytest.mark.parametrize("name", GAMES)
def test_the_charts_series_are_the_money_the_log_replays(name: str) -> None:
    game = registry.get_game(name)
    assert game is not None
    lines, played, state = _logged_game(game, seed=3)
    series = money_series(game, 3, {}, 1, History(lines=lines))
    assert series is not None
    # A point after the deal and after every action logged (a command may log several: the
    # moves the game makes by itself), equal to the money as it was played.
    assert all(len(column) == played[-1][0] + 1 for column in series)
    for count, money in played:
        assert [column[count] for column in series] == money
    assert [column[-1] for column in series] == game.ledger(state)
    assert len({tuple(column) for column in series}) > 1  # the money moved over the game

    record = GameRecord.model_validate(
        {
            "game": name,
            "host": "u0",
            "host_name": "Ann",
            "seed": 3,
            "seats": [SeatInfo(name=n).model_dump() for n in ["Ann", "Bo", "Cy", "Di"]],
            "status": "finished",
            "state_json": state.model_dump_json(),
            "first_version": 1,
            "created_at": 0.0,
            "updated_at": 0.0,
        }
    )
    found = money_and_rounds(game, 3, {}, 1, History(lines=lines))
    assert found is not None and found[0] == series
    rounds = found[1]
    assert len(rounds) == len(series[0]) and rounds == sorted(rounds) and rounds[-1] > 1
    chart = finalcard.money_chart(game, record, state, series, rounds)
    again = finalcard.money_chart(game, record, state, series, rounds)
    assert chart.data == again.data
    image = Image.open(io.BytesIO(chart.data))
    assert image.format == "PNG" and 1000 <= image.width <= 1600
    for person in ["Ann", "Bo", "Cy", "Di"]:
        assert person in chart.alt
    assert game.money_text(series[0][-1]) in chart.alt
    assert f"over the game's {rounds[-1] - rounds[0] + 1} {game.round_word}s." in chart.alt
    # What the table draws for the final card, from the log alone (in the worker's picture
    # process): the same chart, its file named as the card's money.
    drawn = finalcard.chart_of(name, record.model_dump_json(), None, lines)
    assert drawn is not None and drawn.data == chart.data and drawn.alt == chart.alt
    assert drawn.file().name.startswith("money-")
    card = finalcard.with_chart(
        finalcard.final_card(game, record, state, 0.0), History(lines=lines)
    )
    assert card.picture is None and card.files == []  # drawn by the table, just before it goes
    assert card.picture_key is not None and card.picture_key.startswith("chart:")
    other = finalcard.with_chart(card, History(lines=lines[:-1]))
    assert other.picture_key != card.picture_key  # named by the log it is drawn from


def test_a_game_without_a_begin_has_no_series() -> None:
    game = registry.get_game("bigidea")
    assert game is not None
    assert money_series(game, 1, {}, 1, History(lines=[])) is None
