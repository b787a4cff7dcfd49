"""BiggieBills$$$: the game's instance (listed by :func:`core.games.builtin_games`; importing this
package registers nothing)."""

from __future__ import annotations

from core.games.biggiebills.game import BiggieBills

__all__ = ["GAME", "BiggieBills"]

GAME = BiggieBills()
"""The built-in instance."""
