"""The Big Idea (James Ernest, Cheapass Games): invent products, back them, cash in.

The game as the engine runs it, declared (listed by :func:`core.games.builtin_games`;
importing this package registers nothing)."""

from __future__ import annotations

from core.engine import Game
from core.games.bigidea import (
    bots,
    commands,
    events,
    flow,
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

__all__ = ["GAME"]

GAME: Game[BigIdeaState, BigIdeaOptions, Action, BigIdeaView] = Game(
    name="bigidea",
    title="The Big Idea",
    min_players=3,
    max_players=6,
    state_model=BigIdeaState,
    options_model=BigIdeaOptions,
    actions=ACTIONS,
    new_state=rules.new_state,
    flow=rules.FLOW,
    view=view.view,
    bot_action=bots.bot_action,
    sample=secrets.sample,
    ranking=flow.ranking,
    recap=recap.recap,
    score_text=text.score_text,
    board=ui.render_board,
    render_private=ui.render_private,
    render_prompt=ui.render_prompt,
    draw=picture.draw,
    # Who has picked or pointed is on the prompt: a secret choice redraws no picture.
    undrawn={
        "version": True,
        "deadline": True,
        "waiting_for": True,
        "players": {"__all__": {"picked", "voted"}},
    },
    rules=rulebook.rules_text,
    rule_topics=rulebook.topics,
    commands=commands.COMMANDS,
    describe_action=ui.describe_action,
    secret_variants=secrets.variants,
    ledger=secrets.ledger,
    round_of=lambda state: state.round,
    money_text=text.money,
    inventory=secrets.inventory,
    revealing=(events.DeckReshuffled, events.CardsDealt),
)
"""The built-in instance."""
