"""The action log: compact entries, and replaying a game from its seed and log.

The log holds a game from ``begin`` on (the lobby lives in the record only). One stream entry
per command holds a JSON list of entries ``[who, type, *values]``: ``who`` is the seat (``-1``
for the clock) for game actions, the platform user for ``begin``, ``leave`` and ``end``; the
values are the action's fields in declaration order, so ``[2, "point", null]`` is seat 2 pointing
at nobody. ``begin`` records the seats' names and which are bots, so the log alone (with the
record's seed, options and first version) rebuilds the game.

A consented take-back is logged as ``[user, "undo", version]``: the game went back to the
state it had at ``version`` (:meth:`~core.engine.Game.reopen`), as the entry's own new version
(one past the version before it), so a replay rebuilds it and versions never repeat.

Entries are kept short on purpose: Redis starts a new stream node (about 4.7 KB allocated)
every 100 entries or 4 KB, and a whole game of four players fits in one.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping

from pydantic import BaseModel, JsonValue

from core.engine import GameLike, GameState, Timeout
from storage import History

__all__ = [
    "Entry",
    "action_rng",
    "decode_action",
    "encode_action",
    "line",
    "money_series",
    "replay",
    "replay_history",
    "undo_entry",
]

UNDO = "undo"
"""The type of a take-back's entry."""


def undo_entry(user: str, version: int) -> Entry:
    """The log entry of a take-back by consent, asked by ``user``, to the state of ``version``."""
    return [user, UNDO, version]


def action_rng(seed: int, version: int) -> random.Random:
    """The rng for the action applied at ``version``: the game replays from seed and log."""
    return random.Random(f"{seed}:{version}")


Entry = list[JsonValue]
"""One entry of the log: ``[who, type, *values]``."""


def encode_action(actor: int, action: BaseModel) -> Entry:
    """``[actor, type, *field values]``; the type is the first field of every action model."""
    return [actor, *action.model_dump(mode="json").values()]


def decode_action(game: GameLike, entry: Entry) -> tuple[int, BaseModel]:
    """The inverse of :func:`encode_action` for ``game``'s action union."""
    actor, kind, *values = entry
    if not isinstance(actor, int):
        raise ValueError(f"no seat acts in the log entry {entry!r}")
    model = game.action_model(kind)
    if model is None:
        raise ValueError(f"unknown action type {kind!r} in the log")
    fields = list(model.model_fields)
    return actor, game.parse_action(dict(zip(fields, [kind, *values], strict=True)))


_LINE = json.JSONEncoder(separators=(",", ":"))
"""Built once: ``json.dumps`` with any argument builds an encoder at every call."""


def line(entries: list[Entry]) -> str:
    """One log line for everything a command applied."""
    return _LINE.encode(entries)


Seen = Callable[[GameState], None]
"""Called with the state after the deal (or the snapshot) and after every action replayed."""


def replay(
    game: GameLike,
    seed: int,
    options: Mapping[str, object],
    first_version: int,
    lines: list[str],
    seen: Seen | None = None,
) -> GameState | None:
    """Rebuild a game's state from its log alone; None if the log has no ``begin``."""
    entries = [entry for text in lines for entry in json.loads(text)]
    begins = [i for i, entry in enumerate(entries) if entry[1] == "begin"]
    if not begins:
        return None
    _who, _kind, names, _bots = entries[begins[-1]]
    state = game.setup(names, options, action_rng(seed, first_version))
    state.version = state.decision_version = first_version
    return _replay_entries(game, seed, state, entries[begins[-1] + 1 :], seen)


def _replay_entries(
    game: GameLike, seed: int, state: GameState, entries: list[Entry], seen: Seen | None
) -> GameState:
    """``state`` after the log's ``entries``: its actions, and its take-backs (``undo``), for
    which the states since the first are kept by version."""
    kept: dict[int, GameState] | None = None
    if any(entry[1] == UNDO for entry in entries):
        kept = {state.version: state}
    if seen is not None:
        seen(state)
    for entry in entries:
        if entry[1] == UNDO and kept is not None:
            to = entry[2]
            if not isinstance(to, int) or to not in kept:
                raise ValueError(f"the log takes back to version {to!r}, which it never had")
            state = game.reopen(kept[to], state.version + 1)
        elif not isinstance(entry[0], int):
            continue  # a lobby command during play (leave, end): no game action
        else:
            state = _replayed(game, state, seed, entry)
        if kept is not None:
            kept[state.version] = state
        if seen is not None:
            seen(state)
    return state


def _replayed(game: GameLike, state: GameState, seed: int, entry: Entry) -> GameState:
    """``state`` after the logged action ``entry``. A logged deadline's ``Timeout`` ended the
    deadline pending then, whatever its key: a log written before decisions were declared
    keyed each by the version before the action that opened it (and The Big Idea's turns by
    their number), where the state replayed today keys it by the version it opened in."""
    actor, action = decode_action(game, entry)
    if isinstance(action, Timeout) and state.deadline is not None:
        pending = {d.key for d in (state.deadline, state.clock) if d is not None}
        if action.key not in pending:
            action = Timeout(key=state.deadline.key)
    return game.apply(state, actor, action, action_rng(seed, state.version)).state


def replay_history(
    game: GameLike,
    seed: int,
    options: Mapping[str, object],
    first_version: int,
    history: History,
    seen: Seen | None = None,
) -> GameState | None:
    """Rebuild a game's state from its stored history: from its latest snapshot (the record
    saved then) when the log was long enough to have one, else from ``begin``."""
    if history.snapshot is None:
        return replay(game, seed, options, first_version, history.lines, seen)
    saved = json.loads(history.snapshot)["state_json"]
    state: GameState = game.state_model.model_validate_json(saved)
    entries = [entry for text in history.lines for entry in json.loads(text)]
    return _replay_entries(game, seed, state, entries, seen)


def money_series(
    game: GameLike, seed: int, options: Mapping[str, object], first_version: int, history: History
) -> list[list[int]] | None:
    """Every seat's money (:meth:`~core.engine.Game.ledger`) over the game, rebuilt from its
    stored history: ``series[seat][i]`` after the deal (``i`` 0) and each action replayed;
    None for a game that keeps no ledger or a history without a game."""
    found = money_and_rounds(game, seed, options, first_version, history)
    return None if found is None else found[0]


def money_and_rounds(
    game: GameLike, seed: int, options: Mapping[str, object], first_version: int, history: History
) -> tuple[list[list[int]], list[int]] | None:
    """:func:`money_series`, and the round the game was in at each of its points (empty for a
    game without rounds)."""
    points: list[list[int]] = []
    rounds: list[int] = []

    def seen(state: GameState) -> None:
        money = game.ledger(state)
        if money is not None:
            points.append(money)
            number = game.round_of(state)
            if number is not None:
                rounds.append(number)

    if replay_history(game, seed, options, first_version, history, seen) is None or not points:
        return None
    series = [list(column) for column in zip(*points, strict=True)]
    return series, rounds if len(rounds) == len(points) else []
