"""The Big Idea: importing this package registers the game."""

from __future__ import annotations

from core import registry
from core.games.bigidea.game import BigIdea

__all__ = ["GAME", "BigIdea"]

GAME = BigIdea()
"""The registered instance."""

registry.register(GAME)
