"""What the final card recalls of a game of Busine$$ GO: a few public lines."""

from __future__ import annotations

from core.games.businessgo.state import BusinessGoState
from core.games.businessgo.text import money, plural

__all__ = ["recap", "tallies"]


def recap(state: BusinessGoState) -> list[str]:
    """How far the game got, the goal, and the bank's books."""
    goal = money(state.options.goal)
    if state.finished:
        lines = [f"{plural(state.round, 'round')} around the board, racing to {goal}."]
    else:
        lines = [f"Ended in round {state.round}, racing to {goal}."]
    lines.append(
        f"The bank paid out {money(state.bank_paid)} and took in {money(state.bank_received)}."
    )
    closed = len(state.closed)
    if closed:
        lines.append(f"{plural(closed, 'corporation')} went bankrupt by Mail card.")
    return lines


def tallies(state: BusinessGoState) -> dict[str, float]:
    """What ``boardroom simulate`` averages: debts, bankruptcies, how much a player is asked."""
    asked = state.asked or [0] * state.players
    return {
        "raised_cash_pct": float(any(state.debts)),
        "bankrupt_pct": float(any(state.bankrupt)),
        # What one person at the table is asked in a game: neither the moves made for
        # them (the only legal move, joining competitions) nor standing choices.
        "human_decisions_per_game": sum(asked) / state.players,
    }
