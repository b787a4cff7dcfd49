"""Relay: the smallest team game, so the authority's team seats can be tested on their own.

Teams take turns adding 1 or 2 to a shared total; each team also holds a secret number that only
its members may see (a private event after each of its moves, and its private panel). The first
team to take the total to 10 or more wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal

from pydantic import BaseModel

from core import ui
from core.engine import (
    ActionSet,
    Audience,
    Ending,
    Event,
    Game,
    GameOptions,
    GameState,
    IllegalAction,
    Outcome,
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


class Relay(Game[RelayState, RelayOptions, Action, RelayView]):
    name: ClassVar[str] = "relay"
    title: ClassVar[str] = "Relay"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    teams: ClassVar[bool] = True
    state_model = RelayState
    options_model = RelayOptions
    actions = ActionSet(Action)

    def new_game(self, names: Sequence[str], options: RelayOptions, rng: Rng) -> RelayState:
        secrets = [rng.randrange(1000, 10000) for _ in names]
        return RelayState(names=list(names), secrets=secrets)

    def lobby_problem(
        self, options: RelayOptions, seat_sizes: list[int], seat_names: list[str]
    ) -> str | None:
        small = [size for size in seat_sizes if 0 < size < options.min_team_size]
        if small:
            return f"Every team needs at least {options.min_team_size} people."
        return None

    def _apply(self, state: RelayState, actor: Seat, action: Action, rng: Rng) -> list[Event]:
        if not isinstance(action, Add) or action.amount not in (1, 2):
            raise IllegalAction("You can add 1 or 2.")
        if actor != state.turn:
            raise IllegalAction(f"It's {state.names[state.turn]}'s turn.")
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

    def secret_variants(self, state: RelayState, rng: Rng) -> list[Variant[RelayState]]:
        variants: list[Variant[RelayState]] = []
        for seat in state.seats:
            other = state.model_copy(deep=True)
            other.secrets[seat] += rng.randrange(1, 100)
            variants.append(Variant(owner=seat, state=other, what=f"seat {seat}'s secret"))
        return variants

    def legal_actions(self, state: RelayState, actor: Seat) -> list[Action]:
        if state.finished or actor != state.turn:
            return []
        return [Add(amount=1), Add(amount=2)]

    def view(self, state: RelayState, viewer: Seat | None) -> RelayView:
        secret = state.secrets[viewer] if viewer is not None else None
        return RelayView(total=state.total, turn=state.turn, secret=secret)

    def bot_action(self, view: RelayView, legal: list[Action], rng: Rng) -> Action:
        return legal[-1]

    def render_board(self, state: RelayState, pictured: bool = False) -> ui.Message:
        return ui.Message(title="Relay", text=f"Total {state.total}.")

    def render_private(self, state: RelayState, seat: Seat) -> ui.Message:
        buttons = [
            ui.Button(
                label=f"Add {a.amount}", action=a.model_dump(), version=state.version, seat=seat
            )
            for a in self.legal_actions(state, seat)
            if isinstance(a, Add)
        ]
        return ui.Message(
            text=f"Secret {state.secrets[seat]}.", buttons=[buttons] if buttons else []
        )

    def render_prompt(self, state: RelayState) -> ui.Message | None:
        return None

    def rules(self, topic: str | None) -> str:
        return "Add 1 or 2; reach 10 to win."

    def describe_action(self, state: RelayState, action: Action) -> str:
        return f"add {action.amount}" if isinstance(action, Add) else "time out"


GAME = Relay()
