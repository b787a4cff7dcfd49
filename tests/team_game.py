"""Relay: the smallest team game, so the authority's team seats can be tested on their own.

Teams take turns adding 1 or 2 to a shared total; each team also holds a secret number that only
its members may see (a private event after each of its moves, and its private panel). The first
team to take the total to 10 or more wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from core import ui
from core.engine import (
    ActionSet,
    Audience,
    Ending,
    Event,
    Flow,
    Game,
    GameOptions,
    GameState,
    Outcome,
    Play,
    Rng,
    Seat,
    Timeout,
    Variant,
    View,
    rank,
)

TARGET = 10


class Add(BaseModel):
    type: Literal["add"] = "add"
    amount: int


class Added(Event):
    """A team adds to the total."""

    kind: Literal["add"] = "add"


class SecretChanged(Event):
    """A team's secret number changed (told to that team only)."""

    kind: Literal["secret"] = "secret"


class RelayOptions(GameOptions):
    min_team_size: int = 1
    """The fewest people a human team may have."""


class RelayState(GameState):
    total: int = 0
    turn: int = 0
    secrets: list[int]


class RelayView(View):
    total: int
    turn: int
    secret: int | None = None


Action = Add | Timeout


def new_game(names: Sequence[str], options: RelayOptions, rng: Rng) -> RelayState:
    secrets = [rng.randrange(1000, 10000) for _ in names]
    return RelayState(names=list(names), secrets=secrets)


def lobby_problem(options: RelayOptions, sizes: list[int], names: list[str]) -> str | None:
    if any(0 < size < options.min_team_size for size in sizes):
        return f"Every team needs at least {options.min_team_size} people."
    return None


def add_problem(state: RelayState, actor: Seat, action: Add) -> str | None:
    if action.amount not in (1, 2):
        return "You can add 1 or 2."
    if actor != state.turn:
        return f"It's {state.names[state.turn]}'s turn."
    return None


def add_options(state: RelayState, actor: Seat) -> list[Add]:
    return [Add(amount=1), Add(amount=2)]


def add(state: RelayState, actor: Seat, action: Add, rng: Rng) -> list[Event]:
    state.total += action.amount
    state.secrets[actor] += 1
    events: list[Event] = [
        Added(text=f"{state.names[actor]} adds {action.amount}: {state.total}."),
        SecretChanged(
            text=f"Your secret is now {state.secrets[actor]}.", audience=Audience.only(actor)
        ),
    ]
    if state.total >= TARGET:

        def won(seat: Seat) -> float:
            return 1.0 if seat == actor else 0.0

        state.outcome = Outcome(
            standings=rank(state.names, state.seats, won, won),
            summary=f"{state.names[actor]} wins.",
            ended=Ending.TARGET,
        )
    else:
        state.turn = (state.turn + 1) % len(state.names)
    return events


def secret_variants(state: RelayState, rng: Rng) -> list[Variant[RelayState]]:
    variants: list[Variant[RelayState]] = []
    for seat in state.seats:
        other = state.model_copy(deep=True)
        other.secrets[seat] += rng.randrange(1, 100)
        variants.append(Variant(owner=seat, state=other, what=f"seat {seat}'s secret"))
    return variants


FLOW: Flow[RelayState, Action] = Flow(
    standing={Add: Play(check=add_problem, apply=add, offers=add_options)}
)
"""No decisions: the team on turn adds, and the game waits for whoever may."""


def view(state: RelayState, viewer: Seat | None) -> RelayView:
    secret = state.secrets[viewer] if viewer is not None else None
    return RelayView(total=state.total, turn=state.turn, secret=secret)


def render_private(state: RelayState, seat: Seat) -> ui.Message:
    buttons = [
        ui.Button(label=f"Add {a.amount}", action=a.model_dump(), version=state.version, seat=seat)
        for a in FLOW.legal_actions(state, seat)
        if isinstance(a, Add)
    ]
    return ui.Message(text=f"Secret {state.secrets[seat]}.", buttons=[buttons] if buttons else [])


def describe_action(state: RelayState, action: Action) -> str:
    return f"add {action.amount}" if isinstance(action, Add) else "time out"


GAME: Game[RelayState, RelayOptions, Action, RelayView] = Game(
    name="relay",
    title="Relay",
    min_players=2,
    max_players=4,
    teams=True,
    state_model=RelayState,
    options_model=RelayOptions,
    actions=ActionSet(Action),
    new_state=new_game,
    lobby_problem=lobby_problem,
    flow=FLOW,
    view=view,
    bot_action=lambda view, legal, rng: legal[-1],
    board=lambda state, public, pictured=False: ui.Message(
        title="Relay", text=f"Total {state.total}."
    ),
    render_private=render_private,
    rules=lambda topic: "Add 1 or 2; reach 10 to win.",
    describe_action=describe_action,
    secret_variants=secret_variants,
)
