"""The game registry: adding a game means adding a folder under core/games and registering it."""

from __future__ import annotations

from typing import Any

from core.engine import Game

__all__ = ["all_games", "get_game", "register"]

_GAMES: dict[str, Game[Any, Any]] = {}


def register(game: Game[Any, Any]) -> Game[Any, Any]:
    """Make ``game`` available under its command name."""
    _GAMES[game.name] = game
    return game


def get_game(name: str) -> Game[Any, Any] | None:
    _load_builtin_games()
    return _GAMES.get(name)


def all_games() -> list[Game[Any, Any]]:
    _load_builtin_games()
    return list(_GAMES.values())


def _load_builtin_games() -> None:
    # Imported lazily so that core.engine stays free of any game.
    import core.games  # noqa: F401
