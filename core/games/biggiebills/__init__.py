"""BiggieBills$$$: teams race from Stage 1 to Stage 4 and to a billion dollars.

The game as the engine runs it, declared (listed by :func:`core.games.builtin_games`;
importing this package registers nothing)."""

from __future__ import annotations

from core.engine import Game
from core.games.biggiebills import (
    bots,
    commands,
    events,
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
from core.games.biggiebills.actions import ACTIONS, Action
from core.games.biggiebills.state import MAX_TEAM, BiggieBillsOptions, BiggieBillsState
from core.games.biggiebills.view import BiggieBillsView

__all__ = ["GAME"]

GAME: Game[BiggieBillsState, BiggieBillsOptions, Action, BiggieBillsView] = Game(
    name="biggiebills",
    title="BiggieBills$$$",
    min_players=3,
    max_players=8,
    teams=True,
    max_team_size=MAX_TEAM,
    state_model=BiggieBillsState,
    options_model=BiggieBillsOptions,
    actions=ACTIONS,
    new_state=flow.new_state,
    opening_events=flow.opening_events,
    lobby_problem=legal.lobby_problem,
    flow=rules.FLOW,
    clock_timeout=rules.clock_timeout,
    news=rules.news,
    seat_out=legal.seat_out,
    absorbed=legal.absorbed,
    view=view.view,
    bot_action=bots.bot_action,
    sample=secrets.sample,
    worth=secrets.worth,
    ranking=flow.ranking,
    recap=recap.recap,
    tallies=recap.tallies,
    score_text=text.score_text,
    simulation_variants={
        "normal": [],
        "target 2000": ["target=2000"],
        "eight cycles": ["cycles=8"],
    },
    board=ui.render_board,
    render_private=ui.render_private,
    render_prompt=ui.render_prompt,
    draw=picture.draw,
    rules=rulebook.rules_text,
    rule_topics=rulebook.topics,
    commands=commands.COMMANDS,
    describe_action=ui.describe_action,
    secret_variants=secrets.variants,
    ledger=secrets.ledger,
    round_of=lambda state: state.cycle,
    round_word="Business Cycle",
    money_text=text.money,
    inventory=secrets.inventory,
    revealing=(events.DeckReshuffled, events.CycleBegun),
)
"""The built-in instance."""
