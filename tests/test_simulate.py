"""``boardroom simulate`` against a real redis-server: what it prints for each game variant."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest

from bot.settings import Settings
from bot.simulate import percentile, simulate
from core import registry
from tests.team_game import GAME as RELAY

TWO_WAY_RELAY = replace(
    RELAY, name="relay2", simulation_variants={"solo": [], "pairs-allowed": ["min_team_size=1"]}
)
"""Relay with two simulation variants, to see the simulator run each one."""


@pytest.fixture
def settings(redis_url: str) -> Settings:
    return Settings(REDIS_URL=redis_url)


def last_lines(text: str, prefix: str = "") -> dict[str, str]:
    """The ``k=v`` words of the summary line (the one starting with ``prefix + 'games='``)."""
    line = next(x for x in text.splitlines() if x.startswith(prefix + "games="))
    return dict(word.split("=", 1) for word in line.removeprefix(prefix).split())


async def test_prints_rounds_endings_and_speed(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    status = await simulate(settings, "bigidea", 3, 4, seed=5, options=[])
    out = capsys.readouterr().out
    assert status == 0
    numbers = last_lines(out)
    assert numbers["games"] == "4" and numbers["finished"] == "4"
    assert float(numbers["median_rounds"]) > 0 and float(numbers["games_per_s"]) > 0
    assert "ended: every round played 4" in out


async def test_runs_every_variant_unless_options_are_given(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    game: Any = TWO_WAY_RELAY
    with registry.registered(game):
        assert await simulate(settings, game.name, 3, 2, seed=1, options=[]) == 0
        out = capsys.readouterr().out
        for label in ("solo", "pairs-allowed"):
            assert last_lines(out, f"variant={label} ")["finished"] == "2"
        assert await simulate(settings, game.name, 2, 2, seed=1, options=["min_team_size=1"]) == 0
        out = capsys.readouterr().out
    assert "variant=" not in out and last_lines(out)["finished"] == "2"


async def test_refuses_a_table_the_game_cannot_seat(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await simulate(settings, "bigidea", 9, 1, seed=1, options=[]) == 2
    assert "The Big Idea takes 3-6 players" in capsys.readouterr().err
    assert await simulate(settings, "chess", 2, 1, seed=1, options=[]) == 2
    assert "There is no game called 'chess'; the games are biggiebills, bigidea, businessgo." in (
        capsys.readouterr().err
    )


def test_the_command_lists_the_games_for_an_unknown_one() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bot", "simulate", "--game", "chess"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert result.returncode == 2
    assert "invalid choice: 'chess' (choose from 'biggiebills', 'bigidea', 'businessgo')" in (
        result.stderr
    )


async def test_money_is_printed_as_the_game_writes_it(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    """Busine$$ GO's winners have millions of dollars: `$5,645,000`, never `5.645e+06`; and
    no number simulate prints is in exponent notation."""
    assert await simulate(settings, "businessgo", 2, 3, seed=2, options=["short=yes"]) == 0
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if x.startswith("winners' money:")]
    amounts = r"\$\d{1,3}(?:,\d{3})+"
    assert re.fullmatch(rf"winners' money: median {amounts}, min {amounts}, max {amounts}", line)
    assert not re.search(r"\de[+-]\d", out), out
    assert await simulate(settings, "biggiebills", 3, 1, seed=2, options=[]) == 0
    out = capsys.readouterr().out
    assert re.search(r"winners' money: median \$\d[\d.]*[MB], ", out), out


def test_percentile_is_nearest_rank() -> None:
    assert percentile([5, 1, 4, 2, 3], 0.9) == 5
    assert percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9) == 9
    assert percentile([], 0.5) == 0.0
