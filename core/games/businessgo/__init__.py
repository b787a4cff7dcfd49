"""Busine$$ GO: importing this package registers the game."""

from __future__ import annotations

from core import registry
from core.games.businessgo.game import BusinessGo

__all__ = ["GAME", "BusinessGo"]

GAME = BusinessGo()
"""The registered instance."""

registry.register(GAME)
