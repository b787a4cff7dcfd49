"""The action log replayed: what a game's log rebuilds, logs written by earlier versions too."""

from __future__ import annotations

import json
import random
from typing import Any

from bot.commands.game.actionlog import encode_action, line, replay
from bot.commands.game.play import advance, start_state
from core.engine import SYSTEM, GameLike, Seat, Timeout, erase
from core.games.biggiebills import GAME as BIGGIEBILLS
from core.games.bigidea import GAME as BIGIDEA
from core.games.businessgo import GAME as BUSINESSGO


def _played(game: GameLike, seed: int) -> tuple[list[str], Any, dict[str, Any]]:
    """A game of people only, a third of whose decisions end by their deadline: its log lines
    as the authority writes them, the state it ends in, and its options."""
    names, bots = ["A", "B", "C"], [False] * 3
    options = game.options_model().model_dump(mode="json")
    result = start_state(game, names, bots, options, seed, 1)
    begun: list[list[Any]] = [["host", "begin", names, bots], *result.log]
    lines = [line(begun)]
    chooser, state = random.Random(seed), result.state
    while not state.finished:
        if state.deadline is not None and chooser.random() < 0.3:
            actor: Seat = SYSTEM
            action: Any = Timeout(key=state.deadline.key)
        else:
            actor = chooser.choice(game.actors(state))
            action = chooser.choice(list(game.legal_actions(state, actor)))
        step = advance(game, state, seed, bots, actor, action)
        assert step.log[0] == encode_action(actor, action)
        lines.append(line(step.log))
        state = step.state
    return lines, state, options


def _keyed_as_before(text: str) -> str:
    """A log line with its timeouts keyed as logs were before decisions were declared: by the
    version before the action that opened the decision (a turn by its number in The Big
    Idea); the game clock's key never changed."""
    entries = json.loads(text)
    for entry in entries:
        if entry[0] == SYSTEM and entry[1] == "timeout" and not entry[2].startswith("clock"):
            name, _, version = entry[2].partition("@v")
            entry[2] = f"{'turn2' if name == 'turn' else name}@v{int(version) - 1}"
    return json.dumps(entries, separators=(",", ":"))


def test_a_log_written_before_decisions_were_declared_still_replays() -> None:
    """A finished game's replay (``/boardroom replay``, the final card's money chart) reads
    logs kept for days: one whose timeouts carry the keys of before still rebuilds the game."""
    for game in (erase(BIGIDEA), erase(BIGGIEBILLS), erase(BUSINESSGO)):
        lines, state, options = _played(game, 5)
        old = [_keyed_as_before(text) for text in lines]
        assert old != lines, f"{game.name}: no timeout was logged"
        for log in (lines, old):
            rebuilt = replay(game, 5, options, 1, log)
            assert rebuilt is not None and rebuilt.model_dump() == state.model_dump(), game.name
