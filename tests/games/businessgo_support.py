"""Helpers for the Busine$$ GO tests: a rigged rng, table set-up and the money books."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from core.engine import Event, Seat
from core.games.businessgo import GAME
from core.games.businessgo.board import board
from core.games.businessgo.events import ActionReport
from core.games.businessgo.state import BusinessGoOptions, BusinessGoState, Corporation
from core.games.businessgo.view import AuctionView
from testkit.rules import Referee, public_text
from testkit.rules import RiggedRandom as RiggedRandom

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]
FACE = {p: i + 1 for i, p in enumerate(board().demand_die[0].faces)}
"""The demand-die roll that shows each product (the three dice carry the same faces)."""


REFEREE: Referee[BusinessGoState] = Referee(GAME)
refused = REFEREE.refused


def later_moment(state: BusinessGoState, names: list[str], stored: str) -> BusinessGoState:
    """``state`` as a later moment of the stored game (its JSON ``stored``), with the people's
    ``names`` on its seats: a test rigs a channel's game with it."""
    state.names = list(names)
    state.version = state.decision_version = (
        GAME.state_model.model_validate_json(stored).version + 1
    )
    return state


def auction_view(state: BusinessGoState, viewer: Seat | None) -> AuctionView:
    """The open auction as ``viewer`` sees it (there must be one)."""
    auction = GAME.view(state, viewer).auction
    assert auction is not None, "no auction is open"
    return auction


def demand(*products: str) -> list[int]:
    """The three demand-dice rolls showing ``products``."""
    assert len(products) == 3
    return [FACE[p] for p in products]


def new_game(players: int = 3, **options: Any) -> BusinessGoState:
    """A fresh game where Ann (seat 0) wins the opening roll; card stacks in printed order.

    Options as the lobby takes them (``always_compete=False``: everyone is asked before a
    sales competition)."""
    opening = [6, 6] + [1, 2] * (players - 1)
    state = GAME.new_game(NAMES[:players], BusinessGoOptions(**options), RiggedRandom(opening))
    assert state.turn == 0 and state.deciding == "turn"
    return state


def act(
    state: BusinessGoState, actor: Seat, action: Any, rolls: Iterable[int] = ()
) -> tuple[BusinessGoState, list[Event]]:
    """Apply ``action`` with these dice (then sixes)."""
    return REFEREE.act(state, actor, action, RiggedRandom(rolls))


def timeout(
    state: BusinessGoState, rolls: Iterable[int] = ()
) -> tuple[BusinessGoState, list[Event]]:
    return REFEREE.timeout(state, RiggedRandom(rolls))


text = public_text


def own(
    state: BusinessGoState,
    seat: Seat,
    *countries: str,
    international: Sequence[str] = (),
    chimney: bool = False,
    licence_only: Sequence[str] = (),
) -> BusinessGoState:
    """Give ``seat`` licences and corporations (without paying: a test set-up)."""
    state = state.model_copy(deep=True)
    for cid in countries:
        state.licences[cid] = seat
        state.corporations[cid] = Corporation(
            country=cid,
            owner=seat,
            international=cid in international,
            chimney=chimney or cid in international,
        )
    for cid in licence_only:
        state.licences[cid] = seat
    return state


def services(state: BusinessGoState, seat: Seat, *ids: str) -> BusinessGoState:
    """Give ``seat`` Service Industries (without paying: a test set-up)."""
    state = state.model_copy(deep=True)
    for sid in ids:
        state.services[sid] = seat
    return state


def steps_to(state: BusinessGoState, seat: Seat, space: str) -> tuple[BusinessGoState, list[int]]:
    """Place ``seat`` a clean roll before ``space`` (no Start, Operating Fees or Service Industry
    passed on the way) and return the state and the movement dice that land there."""
    b = board()
    target = b.index_of(space)
    quiet = {"country", "mail", "charity", "ecology", "casino", "boom", "burnout", "travel_agency"}
    # Canada is one space after Start: there, Start is passed (a grant if ``seat`` owns a
    # corporation).
    options = [(steps, extra) for extra in ((), ("start",)) for steps in range(2, 13)]
    for steps, extra in options:
        passed = [(target - k) % len(b.spaces) for k in range(1, steps)]
        if all(
            b.kind(i) in quiet | set(extra)
            or (state.services.get(b.spaces[i], seat + 1) != seat and b.kind(i) == "service")
            for i in passed
        ):
            state = state.model_copy(deep=True)
            state.position[seat] = (target - steps) % len(b.spaces)
            first = min(6, steps - 1)
            return state, [first, steps - first]
    raise AssertionError(f"no clean roll to {space}")


def land(
    state: BusinessGoState, seat: Seat, space: str, rolls: Iterable[int] = ()
) -> tuple[BusinessGoState, list[Event]]:
    """``seat`` (on turn) rolls onto ``space``; ``rolls`` follow the movement dice."""
    assert state.turn == seat and state.deciding == "turn"
    state, dice = steps_to(state, seat, space)
    from core.games.businessgo.actions import Roll

    return act(state, seat, Roll(), [*dice, *rolls])


def with_cash(state: BusinessGoState, **cash: int) -> BusinessGoState:
    state = state.model_copy(deep=True)
    for name, amount in cash.items():
        seat = NAMES.index(name.capitalize())
        # Booked as a bank payment so that the ledger still balances.
        delta = amount - state.cash[seat]
        state.cash[seat] = amount
        if delta > 0:
            state.bank_paid += delta
        else:
            state.bank_received -= delta
    return state


def transfers(events: Sequence[Event]) -> list[list[int | str]]:
    """Every transfer the actions' reports list, each as a list ``[seat, delta, reason]``."""
    return [list(t) for e in events if isinstance(e, ActionReport) for t in e.transfers]


def check_books(state: BusinessGoState, flows: list[int] | None = None) -> None:
    """The bank ledger balances the money in play; with ``flows`` (sums of every event's
    transfers by seat), each seat's cash is exactly its documented payments."""
    start = board().start_cash
    assert sum(state.cash) == start * state.players + state.bank_paid - state.bank_received
    if flows is not None:
        assert state.cash == [start + f for f in flows]
    owners = set(state.licences)
    assert set(state.corporations) <= owners
    for cid, corp in state.corporations.items():
        assert corp.owner == state.licences[cid]
        assert not corp.international or corp.chimney
    for seat in state.seats:
        if state.bankrupt[seat]:
            assert state.cash[seat] == 0
            assert seat not in state.licences.values() and seat not in state.services.values()
