"""The game registry: adding a game means adding a folder under core/games and registering it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from core.engine import Game

__all__ = ["all_games", "get_game", "register", "registered"]

_GAMES: dict[str, Game[Any, Any]] = {}

_G = TypeVar("_G", bound=Game[Any, Any])


def register(game: Game[Any, Any]) -> Game[Any, Any]:
    """Make ``game`` available under its command name."""
    _GAMES[game.name] = game
    return game


@contextmanager
def registered(game: _G) -> Iterator[_G]:
    """Make ``game`` available inside a ``with`` block only (tests, tools), then forget it.

    Refuses (ValueError) a name that a game already has, a built-in one included.
    """
    _load_builtin_games()
    if game.name in _GAMES:
        raise ValueError(f"a game called {game.name!r} is registered already")
    _GAMES[game.name] = game
    try:
        yield game
    finally:
        if _GAMES.get(game.name) is game:
            del _GAMES[game.name]


def get_game(name: str) -> Game[Any, Any] | None:
    _load_builtin_games()
    return _GAMES.get(name)


def all_games() -> list[Game[Any, Any]]:
    _load_builtin_games()
    return list(_GAMES.values())


def _load_builtin_games() -> None:
    # Imported lazily so that core.engine stays free of any game.
    import core.games  # noqa: F401
