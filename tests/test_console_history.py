"""The issue's acceptance check, in the console on a real redis-server: one process plays a
game of The Big Idea of three people to the end (deadlines playing it out); a second process
(a restart) answers `/boardroom`, and a press on Rematch opens a lobby seating its presser that
invites the others."""

from __future__ import annotations

import re
from pathlib import Path

from storage import GameStore
from tests.test_console import run_script

PEOPLE = ["alice", "bob", "carol"]


def _private(records: list[dict[str, object]], user: str) -> list[str]:
    return [
        str(r["text"])
        for r in records
        if r["audience"] in {"ephemeral", "dm"} and r.get("user") == user
    ]


def test_a_game_played_in_one_process_is_remembered_by_the_next(
    tmp_path: Path, redis_url: str, redis_store: GameStore
) -> None:
    # (redis_store: the server starts empty.)
    first = tmp_path / "first"
    first.mkdir()
    lines = [
        "alice: /bigidea start pick_seconds=30 vote_seconds=20 turn_seconds=10",
        "bob: /bigidea join",
        "carol: /bigidea join",
        "alice: /bigidea begin",
        *(["wait 60"] * 40),  # nobody plays: the deadlines play the game out
    ]
    _, records = run_script(first, lines, "--seed", "4", redis_url=redis_url)
    assert any(str(r["text"]).startswith("**The Big Idea: final standings") for r in records)

    second = tmp_path / "second"
    second.mkdir()
    lines = [
        "bob: /boardroom leaderboard bigidea",
        "carol: /boardroom stats alice",
        "alice: /boardroom history",
        "bob: /bigidea status",
        "bob: click Rematch",
    ]
    _, records = run_script(second, lines, redis_url=redis_url)
    board = _private(records, "bob")[0]
    assert board.startswith("**The Big Idea: leaderboard**")
    ranked = re.findall(r"^\d+\. (\w+) · (\d+) · 1 game", board, re.M)
    assert sorted(name for name, _ in ranked) == PEOPLE, board
    stats = _private(records, "carol")[0]
    assert "Stats: alice" in stats and "The Big Idea: rating" in stats and "· 1 game ·" in stats
    history = _private(records, "alice")[0]
    assert history.startswith("**Recent games**") and "The Big Idea" in history
    assert all(name in history for name in PEOPLE)
    lobby = [r for r in records if str(r["text"]).startswith("**The Big Idea: lobby**")]
    assert lobby and "Players (1/6): bob." in str(lobby[-1]["text"])
    assert "Invited to play again: alice and carol" in str(lobby[-1]["text"])
    assert "bob asked for a rematch" in str(lobby[-1]["text"])
