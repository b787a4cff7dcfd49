"""What the final card recalls of a game of BiggieBills$$$: a few public lines."""

from __future__ import annotations

from core.engine import Ending
from core.games.biggiebills.state import MAX_CYCLES, BiggieBillsState
from core.games.biggiebills.text import money
from core.text import join, plural

__all__ = ["recap", "tallies"]


def recap(state: BiggieBillsState) -> list[str]:
    """How far the game got, the target (and whether the teams changed it), the challenges."""
    target = money(state.target)
    if state.target != state.options.target:
        target += f" (agreed during play; it began at {money(state.options.target)})"
    if state.finished:
        lines = [f"{plural(state.cycle, 'Business Cycle')}, racing to {target}."]
    else:
        lines = [f"Ended in Business Cycle {state.cycle}, racing to {target}."]
    played = sum(state.challenges_played)
    if played:
        most = max(state.challenges_played)
        leaders = [state.names[s] for s in state.seats if state.challenges_played[s] == most]
        lines.append(
            f"{plural(played, 'Challenge')} played, the most by {join(leaders[:3])}"
            f"{' and others' if len(leaders) > 3 else ''} ({most:,})."
        )
    else:
        lines.append("Nobody played a Challenge.")
    return lines


def tallies(state: BiggieBillsState) -> dict[str, float]:
    """What ``boardroom simulate`` averages: how often teams go early, how games end."""
    ended = state.outcome.ended if state.outcome else None
    timed = ended is Ending.TIME_LIMIT
    return {
        "eliminated_before_cycle5_pct": float(any(c < 5 for c in state.out_cycle.values())),
        "won_by_target_pct": float(ended in (Ending.TARGET, Ending.TARGET_TOGETHER)),
        "time_limit_pct": float(timed),
        # the hidden safety net: the documented time limit always comes first
        "capped_pct": float(timed and not state.time_called and state.cycle >= MAX_CYCLES),
        "acquisitions": float(len(state.acquired_by)),
        "bankruptcies": float(sum(1 for why in state.out if why == "bankrupt")),
    }
