"""The Big Idea as an engine :class:`~core.engine.Game`: it wires the modules together."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from core import ui as neutral
from core.commands import Command
from core.engine import (
    Event,
    Game,
    Rng,
    Seat,
    Standing,
    Timeout,
    Variant,
)
from core.games.bigidea import (
    bots,
    commands,
    flow,
    legal,
    picture,
    recap,
    rulebook,
    rules,
    secrets,
    text,
    ui,
    view,
)
from core.games.bigidea.actions import ACTIONS, Action
from core.games.bigidea.state import BigIdeaOptions, BigIdeaState
from core.games.bigidea.view import BigIdeaView

__all__ = ["BigIdea"]


class BigIdea(Game[BigIdeaState, BigIdeaOptions, Action, BigIdeaView]):
    """The Big Idea (James Ernest, Cheapass Games): invent products, back them, cash in."""

    name: ClassVar[str] = "bigidea"
    title: ClassVar[str] = "The Big Idea"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 6
    state_model = BigIdeaState
    options_model = BigIdeaOptions
    actions = ACTIONS
    commands: ClassVar[tuple[Command, ...]] = commands.COMMANDS

    def new_game(self, names: Sequence[str], options: BigIdeaOptions, rng: Rng) -> BigIdeaState:
        if not self.min_players <= len(names) <= self.max_players:
            raise ValueError(f"{self.title} needs {self.min_players}-{self.max_players} players.")
        return rules.new_state(names, options, rng)

    moves = rules.MOVES

    def timeout(self, state: BigIdeaState, action: Timeout, rng: Rng) -> list[Event]:
        return rules.timeout(state, action, rng)

    def decision_key(self, state: BigIdeaState) -> str:
        # A pick or a vote does not outdate the other players' menus; a new phase, round or
        # mezzanine turn does.
        return f"r{state.round}:{state.phase}:{state.turn if state.phase == 'mezzanine' else 0}"

    def legal_actions(self, state: BigIdeaState, actor: Seat) -> list[Action]:
        return legal.legal_actions(state, actor)

    def secret_variants(self, state: BigIdeaState, rng: Rng) -> list[Variant[BigIdeaState]]:
        return secrets.variants(state, rng)

    def score_text(self, score: float) -> str:
        return text.money(round(score * 100))  # a standing's score is in dollars, money in cents

    def ledger(self, state: BigIdeaState) -> list[int]:
        return list(state.money)

    def money_text(self, amount: int) -> str:
        return text.money(amount)

    def inventory(self, state: BigIdeaState) -> dict[str, int]:
        return secrets.inventory(state)

    def waiting_for(self, state: BigIdeaState) -> list[Seat]:
        # Seats that already picked or pointed may still change their mind, so they have legal
        # actions, but the game is not waiting for them.
        return legal.waiting_for(state)

    def ranking(self, state: BigIdeaState) -> list[Standing]:
        return flow.ranking(state)

    def recap(self, state: BigIdeaState) -> list[str]:
        return recap.recap(state)

    def view(self, state: BigIdeaState, viewer: Seat | None) -> BigIdeaView:
        return view.view(state, viewer)

    def bot_action(self, view: BigIdeaView, legal: list[Action], rng: Rng) -> Action:
        return bots.bot_action(view, legal, rng)

    def render_board(self, state: BigIdeaState, pictured: bool = False) -> neutral.Message:
        return ui.render_board(state, pictured)

    def picture(self, state: BigIdeaState) -> neutral.Picture:
        return picture.draw(view.view(state, None))

    def picture_basis(self, state: BigIdeaState) -> str:
        # Who has picked or pointed is on the prompt: a secret choice redraws no picture.
        return view.view(state, None).model_dump_json(
            exclude={
                "version": True,
                "deadline": True,
                "waiting_for": True,
                "players": {"__all__": {"picked", "voted"}},
            }
        )

    def render_private(self, state: BigIdeaState, seat: Seat) -> neutral.Message:
        return ui.render_private(state, seat)

    def render_prompt(self, state: BigIdeaState) -> neutral.Message | None:
        return ui.render_prompt(state)

    def rules(self, topic: str | None) -> str:
        return rulebook.rules_text(topic)

    def rule_topics(self) -> list[str]:
        return rulebook.topics()

    def parse_text(self, state: BigIdeaState, seat: Seat, word: str, rest: str) -> Action | None:
        return commands.parse_text(state, seat, word, rest)

    def describe_action(self, state: BigIdeaState, action: Action) -> str:
        return ui.describe_action(state, action)
