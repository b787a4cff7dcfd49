"""The game registry: the built-in games (:func:`core.games.builtin_games`), and games a test or a
tool adds for a while (:func:`registered`). Nothing registers itself by being imported."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

from pydantic import BaseModel

from core.engine import Game, GameLike, GameOptions, GameState, View, erase
from core.games import builtin_games

__all__ = ["all_games", "get_game", "registered"]

_GAMES: dict[str, GameLike] = {}

_S = TypeVar("_S", bound=GameState)
_O = TypeVar("_O", bound=GameOptions)
_A = TypeVar("_A", bound=BaseModel)
_V = TypeVar("_V", bound=View)


@contextmanager
def registered(game: Game[_S, _O, _A, _V]) -> Iterator[GameLike]:
    """Make ``game`` available inside a ``with`` block only (tests, tools), then forget it;
    yields it as the registry hands it out.

    Refuses (ValueError) a name that a game already has, a built-in one included.
    """
    _load_builtin_games()
    if game.name in _GAMES:
        raise ValueError(f"a game called {game.name!r} is registered already")
    kept = _GAMES[game.name] = erase(game)
    try:
        yield kept
    finally:
        if _GAMES.get(game.name) is kept:
            del _GAMES[game.name]


def get_game(name: str) -> GameLike | None:
    _load_builtin_games()
    return _GAMES.get(name)


def all_games() -> list[GameLike]:
    _load_builtin_games()
    return list(_GAMES.values())


def _load_builtin_games() -> None:
    """The built-in games, listed once (on first use: building them reads their data files)."""
    global _loaded
    if not _loaded:
        _loaded = True
        for game in builtin_games():
            _GAMES.setdefault(game.name, game)


_loaded = False
