"""States stored before the games lost their own phases (issue 38) load and play on.

``tests/fixtures/old_records`` holds mid-game states of each game exactly as the code of
855dd79 stored them (a ``phase`` beside the open decision; The Big Idea's mezzanine decision
called ``turn``), with whom that code waited for and each seat's legal actions. Each loads with
today's code (the state models' migrations, ``GameState.upgrade``), waits for the same seats and
offers the same choices, and a game played on from it ends.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from bot.commands.game.play import load_state
from core.engine import GameLike, GameState
from core.games.bigidea.actions import Pitch
from core.registry import get_game

FIXTURES = Path(__file__).parent / "fixtures" / "old_records"
RENAMED = {("bigidea", "turn"): "mezzanine"}
"""Decisions whose name changed, by game and the name stored."""
MAX_STEPS = 5_000


def _entries() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(FIXTURES.glob("*.json")):
        for entry in json.loads(path.read_text(encoding="utf-8"))["entries"]:
            found.append((path.stem, entry))
    return found


ENTRIES = _entries()


def _game(name: str) -> GameLike:
    game = get_game(name)
    assert game is not None
    return game


def _listed(actions: list[BaseModel]) -> dict[str, Any]:
    """A seat's actions as the fixtures keep them: their count and the SHA-256 of their sorted
    compact JSON."""
    lines = sorted(
        json.dumps(a.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        for a in actions
    )
    return {"count": len(lines), "sha256": hashlib.sha256("\n".join(lines).encode()).hexdigest()}


def _as_listed_then(game: GameLike, state: GameState, seat: int) -> list[BaseModel]:
    """The seat's legal actions as 855dd79 listed them: a pitch (free text) was never listed
    then; every action the engine accepts is now (one pitch stands for them all)."""
    legal = game.legal_actions(state, seat)
    return [a for a in legal if not (game.name == "bigidea" and isinstance(a, Pitch))]


def test_the_fixtures_cover_every_decision_of_every_game() -> None:
    """The fixtures hold a state of every decision each game declares, and a finished one."""
    for name in ("bigidea", "biggiebills", "businessgo"):
        game = _game(name)
        stored = {
            RENAMED.get((name, e["decision"]), e["decision"]) for g, e in ENTRIES if g == name
        }
        assert stored == {*game.flow.decisions, None}, name


@pytest.mark.parametrize(("name", "entry"), ENTRIES, ids=[e["note"] for _, e in ENTRIES])
def test_an_old_record_loads_waits_for_the_same_seats_and_offers_the_same_choices(
    name: str, entry: dict[str, Any]
) -> None:
    game = _game(name)
    stored = json.loads(entry["state"])
    assert "phase" in stored, "a fixture from before the change keeps its phase"
    state = load_state(game, entry["state"])
    assert "phase" not in state.model_dump()
    assert state.deciding == RENAMED.get((name, entry["decision"]), entry["decision"])
    assert game.waiting_for(state) == entry["waiting"]
    for seat in state.seats:
        assert _listed(_as_listed_then(game, state, seat)) == entry["legal"][str(seat)], seat
    # A timer armed before the change still ends the decision it was armed for.
    if state.deadline is not None:
        assert state.deadline.key == stored["deadline"]["key"]


@pytest.mark.parametrize("name", ["bigidea", "biggiebills", "businessgo"])
def test_every_old_record_of_a_game_plays_on_to_its_end(name: str) -> None:
    game = _game(name)
    for _, entry in [e for e in ENTRIES if e[0] == name]:
        state = load_state(game, entry["state"])
        chooser = random.Random(entry["note"])
        for _ in range(MAX_STEPS):
            if state.finished:
                break
            seat = chooser.choice(game.actors(state))
            action = chooser.choice(game.legal_actions(state, seat))
            state = game.apply(state, seat, action, random.Random(chooser.random())).state
        assert state.finished, entry["note"]
        assert game.legal_actions(state, 0) == [] and game.waiting_for(state) == []
