"""What the final card recalls of a game of The Big Idea: a few public lines."""

from __future__ import annotations

from core.games.bigidea.state import BigIdeaState
from core.games.bigidea.text import money
from core.text import plural

__all__ = ["recap"]


def recap(state: BigIdeaState) -> list[str]:
    """How far the game got, what the market paid, and its biggest hit."""
    if state.finished:
        lines = [f"{plural(state.rounds, 'round')}: every player dealt twice."]
    else:
        lines = [f"Ended in round {state.round} of {state.rounds}, in the {state.deciding} phase."]
    invented = plural(state.next_product_id - 1, "product")
    if state.launches:
        lines.append(
            f"{invented} invented; {state.launches:,} went public, paying "
            f"{money(state.bank_paid)} to their backers."
        )
    else:
        lines.append(f"{invented} invented; none went public.")
    best = state.best_launch
    if best is not None:
        lines.append(
            f"Biggest hit: {best.label} in round {best.round}, {money(best.paid)} to its "
            f"{plural(best.chits, 'chit')}."
        )
    return lines
