"""The Big Idea: the game's instance (listed by :func:`core.games.builtin_games`; importing this
package registers nothing)."""

from __future__ import annotations

from core.games.bigidea.game import BigIdea

__all__ = ["GAME", "BigIdea"]

GAME = BigIdea()
"""The built-in instance."""
