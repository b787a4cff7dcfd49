"""What may be played is decided in one place: each game's declared decisions (issue 38).

- Property tests (hypothesis) over random games of each game: at any state reached, for any
  seat, every action the engine lists (legal actions, standing choices) is accepted, and every
  action it accepts is listed, tried with listed actions changed in one field, actions listed at
  other moments and actions of every type (``testkit.conformance.agree``).
- The games keep no phase of their own: no state field, no phase helper, no phase read off a
  state, no waiting list of their own (the engine derives it from the open decision).
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import SYSTEM, GameLike, GameState, Timeout, erase
from core.registry import all_games
from testkit import conformance
from tests.team_game import GAME as RELAY

ROOT = Path(__file__).resolve().parent.parent
GAMES: list[GameLike] = [*all_games(), erase(RELAY)]


def _reached(game: GameLike, seed: int, steps: int) -> GameState:
    """A random game of ``game`` after ``steps`` actions (legal ones, now and then a deadline
    passing), its seats and options drawn by ``seed``."""
    counts = conformance.players_range(game)
    sets = conformance.option_sets(game)
    chooser = random.Random(seed)
    names = [f"P{i}" for i in range(counts[seed % len(counts)])]
    state = game.setup(names, sets[seed % len(sets)], random.Random(seed))
    for _ in range(steps):
        if state.finished:
            break
        rng = random.Random(chooser.random())
        if state.deadline is not None and chooser.random() < 0.05:
            state = game.apply(state, SYSTEM, Timeout(key=state.deadline.key), rng).state
            continue
        seat = chooser.choice(game.actors(state))
        state = game.apply(state, seat, chooser.choice(game.legal_actions(state, seat)), rng).state
    return state


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
@settings(max_examples=40)
@given(
    seed=st.integers(0, 100_000),
    steps=st.integers(0, 400),
    changes=st.integers(0, 2**32),
    data=st.data(),
)
def test_the_engine_accepts_exactly_what_it_lists(
    game: GameLike, seed: int, steps: int, changes: int, data: st.DataObject
) -> None:
    state = _reached(game, seed, steps)
    seat = data.draw(st.sampled_from(list(state.seats)), label="seat")
    offers = conformance.Offers()
    for other in state.seats:
        offers.add([*game.legal_actions(state, other), *game.standing_choices(state, other)])
    rng = random.Random(changes)
    legal = game.legal_actions(state, seat)
    tries = [conformance.changed(action, offers, rng) for action in legal]  # one field each
    tries += [conformance.made_up(game, offers, rng) for _ in range(8)]
    tries += offers.actions  # every seat's choices, made by this one
    conformance.agree(game, state, seat, [t for t in tries if t is not None])


def test_a_changed_field_makes_a_listed_action_illegal_and_it_is_refused() -> None:
    """The property test's tries are not all accepted: a listed action with one field changed
    is refused with a sentence (the engine does not accept what it does not list)."""
    game = next(g for g in GAMES if g.name == "bigidea")
    state = _reached(game, 1, 0)
    seat = game.waiting_for(state)[0]
    offers = conformance.Offers()
    legal = game.legal_actions(state, seat)
    offers.add(legal)
    rng = random.Random(3)
    tries = [conformance.changed(action, offers, rng) for action in legal]
    changed = [t for t in tries if t is not None and t not in legal]
    assert changed
    assert conformance.agree(game, state, seat, changed) < len(changed)


# --- no phase of their own ------------------------------------------------------------------

VIEWS = {"public", "view"}
"""Names a game's presentation gives its views, which show the open decision as ``phase``."""


def _a_view(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in VIEWS


def phase_of_their_own(source: str) -> list[str]:
    """Where ``source`` (a game's module) keeps a phase beside the engine's decisions: a
    function, class or field named for a phase, a phase read or set on anything but a view, or
    a waiting list of its own."""
    found = []
    for node in ast.walk(ast.parse(source)):
        name = getattr(node, "name", None)
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and "phase" in str(name).lower():
            found.append(f"line {node.lineno}: {name}")
        if isinstance(node, ast.FunctionDef) and node.name == "waiting_for":
            found.append(f"line {node.lineno}: its own waiting_for")
        if isinstance(node, ast.Attribute) and node.attr == "phase" and not _a_view(node.value):
            found.append(f"line {node.lineno}: .phase")
    return found


def test_the_games_keep_no_phase_of_their_own() -> None:
    """The open decision (``state.decision``, declared in the game's flow) is the only phase:
    no game's state has a phase field, and no module of a game names a phase helper, reads a
    phase off a state or lists whom it waits for itself."""
    for game in all_games():
        fields = game.state_model.model_fields
        assert not [f for f in fields if "phase" in f], f"{game.name} keeps a phase field"
    problems = []
    for path in sorted((ROOT / "core" / "games").rglob("*.py")):
        for where in phase_of_their_own(path.read_text(encoding="utf-8")):
            problems.append(f"{path.relative_to(ROOT)} {where}")
    assert problems == []
    # The check can fail: a game written as they were before issue 38 is caught.
    planted = (
        "def _require_phase(state, phase, what):\n"
        "    if state.phase != phase:\n"
        "        raise IllegalAction(what)\n"
        "def waiting_for(state):\n"
        "    return []\n"
        "def start(state):\n"
        "    state.phase = 'pick'\n"
    )
    assert len(phase_of_their_own(planted)) == 4
