"""Turn order, the same way for every game: a rotation round the table, or a fresh random order.

Seats sit clockwise in seat order (seat 0, then 1, ...); "to the left" is the next seat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.engine import Rng, Seat

__all__ = ["after", "fresh_order", "rotation"]


def rotation(first: Seat, seats: int) -> list[Seat]:
    """Every seat once, clockwise from ``first`` (a dealer's deal, a round of bids)."""
    return [(first + i) % seats for i in range(seats)]


def after(current: Seat, seats: int, still_in: Callable[[Seat], bool]) -> Seat | None:
    """The next seat clockwise after ``current`` that is still in (``current`` itself last,
    when it is the only one left), or None when nobody is."""
    for seat in rotation(current + 1, seats):
        if still_in(seat):
            return seat
    return None


def fresh_order(seats: Sequence[Seat], rng: Rng) -> list[Seat]:
    """``seats`` in a new random order (a cycle's order drawn afresh)."""
    order = list(seats)
    rng.shuffle(order)
    return order
