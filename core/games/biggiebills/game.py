"""BiggieBills$$$ as an engine :class:`~core.engine.Game`: it wires the modules together."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from core import ui as neutral
from core.commands import Command
from core.engine import (
    Ending,
    Event,
    Game,
    Rng,
    Seat,
    Standing,
    Timeout,
    Variant,
)
from core.games.biggiebills import (
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
from core.games.biggiebills.actions import ACTIONS, Action
from core.games.biggiebills.events import CycleBegun
from core.games.biggiebills.state import MAX_CYCLES, BiggieBillsOptions, BiggieBillsState
from core.games.biggiebills.text import join, money, plural
from core.games.biggiebills.view import BiggieBillsView

__all__ = ["BiggieBills"]

MAX_TEAM = 6
"""The document's largest team."""


class BiggieBills(Game[BiggieBillsState, BiggieBillsOptions, Action, BiggieBillsView]):
    """BiggieBills$$$: teams race from Stage 1 to Stage 4 and to a billion dollars."""

    name: ClassVar[str] = "biggiebills"
    title: ClassVar[str] = "BiggieBills$$$"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 8
    state_model = BiggieBillsState
    options_model = BiggieBillsOptions
    actions = ACTIONS
    commands: ClassVar[tuple[Command, ...]] = commands.COMMANDS
    teams: ClassVar[bool] = True
    max_team_size: ClassVar[int | None] = MAX_TEAM
    simulation_variants: ClassVar[dict[str, list[str]]] = {
        "normal": [],
        "target 2000": ["target=2000"],
        "eight cycles": ["cycles=8"],
    }

    def new_game(
        self, names: Sequence[str], options: BiggieBillsOptions, rng: Rng
    ) -> BiggieBillsState:
        if not self.min_players <= len(names) <= self.max_players:
            raise ValueError(f"{self.title} needs {self.min_players}-{self.max_players} teams.")
        return rules.start(names, options, rng)

    def opening_events(self, state: BiggieBillsState) -> list[Event]:
        text = flow.cycle_opening(state) + " No Industry Rules card is in force in the first cycle."
        return [CycleBegun(text=text, cycle=state.cycle, order=state.order)]

    def lobby_problem(
        self, options: BiggieBillsOptions, seat_sizes: list[int], seat_names: list[str]
    ) -> str | None:
        seats = list(zip(seat_names, seat_sizes, strict=True))
        small = [(name, size) for name, size in seats if 0 < size < options.min_team_size]
        if small:
            teams = join([f"{name} has {plural(size, 'person', 'people')}" for name, size in small])
            return (
                f"Every human team needs at least {options.min_team_size} people "
                f"(min_team_size): {teams}. Bot teams are fine."
            )
        large = [(name, size) for name, size in seats if size > MAX_TEAM]
        if large:
            teams = join([f"{name} has {size}" for name, size in large])
            return f"A team has at most {MAX_TEAM} people: {teams}."
        return None

    def decision_key(self, state: BiggieBillsState) -> str:
        # A team agreeing to a proposed target (the vote still open) changes nobody else's
        # choices; every other action is a new decision.
        return str(state.version - state.quiet)

    def waiting_for(self, state: BiggieBillsState) -> list[Seat]:
        # A vote on a new target runs beside the turns: the game does not wait for it.
        return [s for s in state.seats if legal.deciding(state, s)]

    def answering(self, state: BiggieBillsState) -> list[Seat]:
        return [s for s in state.seats if legal.vote_problem(state, s) is None]

    def prompt_version(self, state: BiggieBillsState) -> int:
        # The prompt is the vote: it stands from its proposal until it is settled.
        return state.vote.opened if state.vote is not None else state.decision_version

    def seat_out(self, state: BiggieBillsState, seat: Seat) -> bool:
        # Bankrupt or acquired: the team has left the game.
        return not state.alive[seat]

    def absorbed(self, state: BiggieBillsState) -> dict[Seat, Seat]:
        # With acquired=join an acquired team's people play on for the acquirer.
        if state.options.acquired != "join":
            return {}
        return dict(state.acquired_by)

    def ranking(self, state: BiggieBillsState) -> list[Standing]:
        return flow.ranking(state)

    def recap(self, state: BiggieBillsState) -> list[str]:
        return recap.recap(state)

    def tallies(self, state: BiggieBillsState) -> dict[str, float]:
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

    def score_text(self, score: float) -> str:
        return money(round(score))  # a standing's score is the team's cash, in $ millions

    moves = rules.MOVES

    def timeout(self, state: BiggieBillsState, action: Timeout, rng: Rng) -> list[Event]:
        return rules.timeout(state, action, rng)

    def news(self, before: BiggieBillsState, after: BiggieBillsState) -> list[Event]:
        return rules.news(before, after)

    def secret_variants(self, state: BiggieBillsState, rng: Rng) -> list[Variant[BiggieBillsState]]:
        return secrets.variants(state, rng)

    def ledger(self, state: BiggieBillsState) -> list[int]:
        return list(state.cash)

    def money_text(self, amount: int) -> str:
        return money(amount)

    def inventory(self, state: BiggieBillsState) -> dict[str, int]:
        return secrets.inventory(state)

    def legal_actions(self, state: BiggieBillsState, actor: Seat) -> list[Action]:
        return legal.legal_actions(state, actor)

    def view(self, state: BiggieBillsState, viewer: Seat | None) -> BiggieBillsView:
        return view.view(state, viewer)

    def bot_action(self, view: BiggieBillsView, legal: list[Action], rng: Rng) -> Action:
        return bots.bot_action(view, legal, rng)

    def render_board(self, state: BiggieBillsState, pictured: bool = False) -> neutral.Message:
        return ui.render_board(state, pictured)

    def picture(self, state: BiggieBillsState) -> neutral.Picture:
        return picture.draw(view.view(state, None))

    def render_private(self, state: BiggieBillsState, seat: Seat) -> neutral.Message:
        return ui.render_private(state, seat)

    def render_prompt(self, state: BiggieBillsState) -> neutral.Message | None:
        return ui.render_prompt(state)

    def rules(self, topic: str | None) -> str:
        return rulebook.rules_text(topic)

    def rule_topics(self) -> list[str]:
        return rulebook.topics()

    def parse_text(
        self, state: BiggieBillsState, seat: Seat, word: str, rest: str
    ) -> Action | None:
        return commands.parse_text(state, seat, word, rest)

    def describe_action(self, state: BiggieBillsState, action: Action) -> str:
        return ui.describe_action(state, action)
