"""BiggieBills$$$: importing this package registers the game."""

from __future__ import annotations

from core import registry
from core.games.biggiebills.game import BiggieBills

__all__ = ["GAME", "BiggieBills"]

GAME = BiggieBills()
"""The registered instance."""

registry.register(GAME)
