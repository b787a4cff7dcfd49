"""The conformance kit over every registered game and the team game of the tests.

A game gets these checks by being registered; what it declares (secret variants, a ledger,
an inventory) decides how deep they go. See ``testkit/conformance.py``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from core import registry
from core.engine import Game
from core.games.bigidea.game import BigIdea
from core.registry import all_games
from testkit import conformance
from tests.team_game import GAME as RELAY

GAMES: list[Game[Any, Any]] = [*all_games(), RELAY]
SEEDS = range(4)


def _declares_secrets(game: Game[Any, Any]) -> bool:
    return type(game).secret_variants is not Game.secret_variants


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_game_keeps_the_engine_contract(game: Game[Any, Any], seed: int) -> None:
    """One seed a test, so that the seeds of a long game run on every core."""
    bot_seeds = 1 if seed < 2 else 0  # two bot-only games a game, over the seeds
    runs = conformance.check_game(game, range(seed, seed + 1), bot_seeds=bot_seeds)
    assert all(run.state.finished for run in runs)
    assert sum(run.refused for run in runs) > 0, "no refusal was tried"
    if _declares_secrets(game):
        assert sum(run.variants for run in runs) > 0, "no hidden variant was compared"
        assert sum(run.transitions for run in runs) > 0, "no secret was compared through a move"
        if game.picture(runs[0].state) is not None:
            assert sum(run.pictures for run in runs) > 0, "no board picture was compared"


class _Copy(BigIdea):
    name: ClassVar[str] = "bigideacopy"
    title: ClassVar[str] = "The Big Idea (copy)"


def test_a_registered_copy_gets_every_check_with_no_test_written() -> None:
    with registry.registered(_Copy()) as copy:
        assert copy in all_games()
        runs = conformance.check_game(copy, range(1))
    assert runs[0].state.finished and runs[0].variants > 0
