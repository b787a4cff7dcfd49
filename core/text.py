"""Small text helpers every game's sentences use."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["join"]


def join(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]
