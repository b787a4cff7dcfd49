"""Busine$$ GO as an engine :class:`~core.engine.Game`: it wires the modules together."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from core import ui as neutral
from core.commands import Command
from core.engine import (
    Event,
    Game,
    Move,
    Rng,
    Seat,
    Standing,
    Timeout,
    Variant,
)
from core.games.businessgo import (
    bots,
    commands,
    flow,
    legal,
    picture,
    recap,
    rulebook,
    rules,
    secrets,
    ui,
    view,
)
from core.games.businessgo.actions import ACTIONS, Action
from core.games.businessgo.events import ActionReport, OpeningRolled
from core.games.businessgo.state import BusinessGoOptions, BusinessGoState
from core.games.businessgo.text import money
from core.games.businessgo.view import BusinessGoView

__all__ = ["BusinessGo"]


class BusinessGo(Game[BusinessGoState, BusinessGoOptions, Action, BusinessGoView]):
    """Busine$$ GO: buy licences, set up corporations, sell products around the world."""

    name: ClassVar[str] = "businessgo"
    title: ClassVar[str] = "Busine$$ GO"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 5
    state_model = BusinessGoState
    options_model = BusinessGoOptions
    actions = ACTIONS
    commands: ClassVar[tuple[Command, ...]] = commands.COMMANDS
    choices_on_board: ClassVar[bool] = True
    simulation_variants: ClassVar[dict[str, list[str]]] = {
        "normal": [],
        "short": ["short=yes"],
    }

    def opening_events(self, state: BusinessGoState) -> list[Event]:
        return [OpeningRolled(text=state.opening)] if state.opening else []

    def new_game(
        self, names: Sequence[str], options: BusinessGoOptions, rng: Rng
    ) -> BusinessGoState:
        if not self.min_players <= len(names) <= self.max_players:
            raise ValueError(f"{self.title} needs {self.min_players}-{self.max_players} players.")
        return rules.new_state(names, options, rng)

    moves = rules.MOVES

    def timeout(self, state: BusinessGoState, action: Timeout, rng: Rng) -> list[Event]:
        return rules.timeout(state, action, rng)

    def decision_key(self, state: BusinessGoState) -> str:
        # In a sales competition or an auction one player's answer does not outdate the
        # others' buttons; every other decision point is numbered as it opens, so that a
        # standing choice made meanwhile (always compete) outdates nobody's buttons.
        if state.phase in ("compete", "auction"):
            return f"{state.phase}:{state.window}"
        return f"{state.phase}:{state.decisions}"

    def ranking(self, state: BusinessGoState) -> list[Standing]:
        return flow.ranking(state)

    def recap(self, state: BusinessGoState) -> list[str]:
        return recap.recap(state)

    def automatic(self, state: BusinessGoState) -> tuple[Seat, Action] | None:
        return legal.automatic(state)

    def tallies(self, state: BusinessGoState) -> dict[str, float]:
        asked = state.asked or [0] * state.players
        return {
            "raised_cash_pct": float(any(state.debts)),
            "bankrupt_pct": float(any(state.bankrupt)),
            # What one person at the table is asked in a game: neither the moves made for
            # them (the only legal move, joining competitions) nor standing choices.
            "human_decisions_per_game": sum(asked) / state.players,
        }

    def score_text(self, score: float) -> str:
        return money(round(score))  # a standing's score is the seat's cash, in dollars

    def seat_out(self, state: BusinessGoState, seat: Seat) -> bool:
        # A bankrupt player has left the game; their turns are skipped.
        return state.bankrupt[seat]

    def secret_variants(self, state: BusinessGoState, rng: Rng) -> list[Variant[BusinessGoState]]:
        return secrets.variants(state, rng)

    def ledger(self, state: BusinessGoState) -> list[int]:
        return list(state.cash)

    def money_text(self, amount: int) -> str:
        return money(amount)

    def payments(self, event: Event) -> list[Move]:
        # An action's report lists ``(seat, delta, reason)``: positive is paid by the bank.
        if not isinstance(event, ActionReport):
            return []
        return [
            (-1, seat, delta) if delta > 0 else (seat, -1, -delta)
            for seat, delta, _reason in event.transfers
        ]

    def legal_actions(self, state: BusinessGoState, actor: Seat) -> list[Action]:
        return legal.legal_actions(state, actor)

    def waiting_for(self, state: BusinessGoState) -> list[Seat]:
        return legal.waiting_for(state)

    def view(self, state: BusinessGoState, viewer: Seat | None) -> BusinessGoView:
        return view.view(state, viewer)

    def bot_action(self, view: BusinessGoView, legal: list[Action], rng: Rng) -> Action:
        return bots.bot_action(view, legal, rng)

    def render_board(self, state: BusinessGoState, pictured: bool = False) -> neutral.Message:
        return ui.render_board(state, pictured)

    def picture(self, state: BusinessGoState) -> neutral.Picture:
        return picture.draw(view.view(state, None))

    def render_private(self, state: BusinessGoState, seat: Seat) -> neutral.Message:
        return ui.render_private(state, seat)

    def render_prompt(self, state: BusinessGoState) -> neutral.Message | None:
        return ui.render_prompt(state)

    def rules(self, topic: str | None) -> str:
        return rulebook.rules_text(topic)

    def rule_topics(self) -> list[str]:
        return rulebook.topics()

    def parse_text(self, state: BusinessGoState, seat: Seat, word: str, rest: str) -> Action | None:
        return commands.parse_text(state, seat, word, rest)

    def describe_action(self, state: BusinessGoState, action: Action) -> str:
        return ui.describe_action(state, action)
