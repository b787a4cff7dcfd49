"""Helpers every game's rule tests share: a rigged rng, and act / refuse / time out.

Each game's ``tests/games/<game>_support.py`` binds these to its game; they are written once.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, MutableSequence, Sequence
from typing import Any, Generic, TypeVar

import pytest

from core.engine import SYSTEM, Event, Game, GameState, IllegalAction, Seat, Timeout

__all__ = ["Referee", "RiggedRandom", "kinds", "of_kind", "of_type", "public_text"]

S = TypeVar("S", bound=GameState)
T = TypeVar("T")
E = TypeVar("E", bound=Event)


class RiggedRandom(random.Random):
    """A ``random.Random`` whose dice, shuffles and choices the test decides.

    ``randint`` returns ``rolls`` in order, then ``default_roll``. A shuffle of seats (a list of
    ints) takes the next of ``orders``; a shuffle of cards moves the next list of ``shuffles``
    to the front; any other shuffle keeps the order. ``choice`` returns the element at
    ``choose`` when it is set.
    """

    def __init__(
        self,
        rolls: Iterable[int] = (),
        *,
        default_roll: int = 6,
        orders: Iterable[Sequence[int]] = (),
        shuffles: Iterable[Sequence[str]] = (),
        choose: int | None = None,
    ) -> None:
        super().__init__(0)
        self.rolls = list(rolls)
        self.default_roll = default_roll
        self.orders = [list(o) for o in orders]
        self.shuffles = [list(s) for s in shuffles]
        self.choose = choose
        self.randint_calls: list[tuple[int, int]] = []
        self.shuffle_calls = 0

    def randint(self, a: int, b: int) -> int:
        self.randint_calls.append((a, b))
        roll = self.rolls.pop(0) if self.rolls else self.default_roll
        assert a <= roll <= b, f"a rigged roll of {roll} for randint({a}, {b})"
        return roll

    def shuffle(self, x: MutableSequence[Any]) -> None:
        self.shuffle_calls += 1
        if x and self.orders and all(isinstance(v, int) for v in x):
            wanted = self.orders.pop(0)
            assert sorted(wanted) == sorted(x), (wanted, x)
            x[:] = wanted
        elif x and self.shuffles and all(isinstance(v, str) for v in x):
            front = self.shuffles.pop(0)
            assert all(c in x for c in front), "rigged cards must be in the shuffled pile"
            x[:] = front + [c for c in x if c not in front]

    # typeshed types the argument with a private protocol; a Sequence is what tests pass.
    def choice(self, seq: Sequence[T]) -> T:  # type: ignore[override]
        if self.choose is None:
            return super().choice(seq)
        return seq[self.choose % len(seq)]


class Referee(Generic[S]):
    """Applies actions of one game for its rule tests, checking what every action must keep."""

    def __init__(
        self, game: Game[S, Any, Any, Any], rng: Callable[[], random.Random] = RiggedRandom
    ) -> None:
        self.game = game
        self.rng = rng
        """The rng of an action given none (the game's rigged rng)."""

    def act(
        self, state: S, actor: Seat, action: Any, rng: random.Random | None = None
    ) -> tuple[S, list[Event]]:
        """Apply ``action``: the version rises by one and the old state is untouched."""
        before = state.model_dump()
        transition = self.game.apply(state, actor, action, rng or self.rng())
        assert transition.state.version == state.version + 1
        assert state.model_dump() == before, "apply changed its input state"
        after: S = transition.state
        return after, transition.events

    def refused(self, state: S, actor: Seat, action: Any, match: str | None = None) -> str:
        """Assert ``action`` is an IllegalAction that leaves ``state`` exactly as it was."""
        before = state.model_dump()
        with pytest.raises(IllegalAction, match=match) as info:
            self.game.apply(state, actor, action, self.rng())
        assert state.model_dump() == before
        return str(info.value)

    def timeout(self, state: S, rng: random.Random | None = None) -> tuple[S, list[Event]]:
        """The pending deadline passes."""
        assert state.deadline is not None, "no deadline is pending"
        return self.act(state, SYSTEM, Timeout(key=state.deadline.key), rng)


def kinds(events: Sequence[Event]) -> list[str]:
    return [e.kind for e in events]


def of_kind(events: Sequence[Event], kind: str) -> list[Event]:
    return [e for e in events if e.kind == kind]


def of_type(events: Sequence[Event], cls: type[E]) -> list[E]:
    """The events of one class (one kind), typed: their fields can be read."""
    return [e for e in events if isinstance(e, cls)]


def public_text(events: Sequence[Event]) -> str:
    return "\n".join(e.text for e in events if e.audience.is_public)
