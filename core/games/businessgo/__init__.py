"""Busine$$ GO: the game's instance (listed by :func:`core.games.builtin_games`; importing this
package registers nothing)."""

from __future__ import annotations

from core.games.businessgo.game import BusinessGo

__all__ = ["GAME", "BusinessGo"]

GAME = BusinessGo()
"""The built-in instance."""
