"""The built-in games, listed explicitly: importing a game registers nothing.

Adding a game is a folder under ``core/games`` and a line in :func:`builtin_games`.
"""

from __future__ import annotations

from core.engine import GameLike, erase

__all__ = ["builtin_games"]


def builtin_games() -> list[GameLike]:
    """Every game that ships with the bot, in the order help and menus list them."""
    from core.games.biggiebills import GAME as BIGGIEBILLS
    from core.games.bigidea import GAME as BIGIDEA
    from core.games.businessgo import GAME as BUSINESSGO

    return [erase(BIGGIEBILLS), erase(BIGIDEA), erase(BUSINESSGO)]
