"""Busine$$ GO: buy licences, set up corporations, sell products around the world.

The game as the engine runs it, declared (listed by :func:`core.games.builtin_games`;
importing this package registers nothing)."""

from __future__ import annotations

from core.engine import Game
from core.games.businessgo import (
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
from core.games.businessgo.actions import ACTIONS, Action
from core.games.businessgo.state import BusinessGoOptions, BusinessGoState
from core.games.businessgo.view import BusinessGoView

__all__ = ["GAME"]

GAME: Game[BusinessGoState, BusinessGoOptions, Action, BusinessGoView] = Game(
    name="businessgo",
    title="Busine$$ GO",
    min_players=2,
    max_players=5,
    state_model=BusinessGoState,
    options_model=BusinessGoOptions,
    actions=ACTIONS,
    new_state=rules.new_state,
    opening_events=events.opening_events,
    flow=rules.FLOW,
    automatic=rules.automatic,
    seat_out=legal.seat_out,
    view=view.view,
    bot_action=bots.bot_action,
    sample=secrets.sample,
    worth=secrets.worth,
    ranking=flow.ranking,
    recap=recap.recap,
    tallies=recap.tallies,
    score_text=text.score_text,
    simulation_variants={"normal": [], "short": ["short=yes"]},
    choices_on_board=True,
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
    round_of=lambda state: state.round,
    money_text=text.money,
    payments=events.payments,
    revealing=(events.Rolled, events.OpeningRolled),
)
"""The built-in instance."""
