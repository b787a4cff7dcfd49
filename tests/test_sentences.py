"""Sentences a player reads in the pictures' alt text and the games' results, each played
through the engine and compared whole (issue 37's list)."""

from __future__ import annotations

import random

import pytest

from bot.commands.game.play import start_state
from core import registry
from core.engine import UNKNOWN_ACTION, GameLike, GameState, IllegalAction
from core.games.biggiebills import GAME as BB
from core.games.biggiebills import picture as bb_picture
from core.games.biggiebills.state import BiggieBillsState
from core.games.bigidea import GAME as BI
from core.games.bigidea import picture as bi_picture
from core.games.bigidea.state import BigIdeaState
from core.games.businessgo.state import BusinessGoState
from core.games.businessgo.text import money
from core.text import plural


def _bots(
    name: str, names: list[str], until: object, seed: int = 3, **options: object
) -> tuple[GameLike, GameState]:
    """Bots play ``name`` until ``until(state)`` holds (or the game ends)."""
    game = registry.get_game(name)
    assert game is not None
    state = start_state(game, names, [False] * len(names), options, seed, 1).state
    rng = random.Random(seed)
    for step in range(5000):
        if state.finished or until(state):  # type: ignore[operator]
            break
        seat = rng.choice(game.actors(state))
        action = game.bot_choice(state, seat, game.legal_actions(state, seat), rng)
        state = game.apply(state, seat, action, random.Random(step)).state
    return game, state


def test_the_big_idea_rows_say_1_chit_and_1_card() -> None:
    def one_chit(state: GameState) -> bool:
        return isinstance(state, BigIdeaState) and 1 in state.chits

    _game, state = _bots("bigidea", ["Ann", "Bo", "Cy"], one_chit)
    assert isinstance(state, BigIdeaState) and 1 in state.chits
    seat = state.chits.index(1)
    canvas = bi_picture.layout(BI.view(state, None))
    cards = plural(len(state.hands[seat]), "card")
    row = f"1 chit left · {cards}" + (" · dealer" if seat == state.dealer else "")
    assert row in [shown for shown, _runs in canvas.drawn]
    assert "1 chits" not in bi_picture.draw(BI.view(state, None)).alt


def test_the_big_idea_alt_text_at_the_end_has_one_full_stop_after_the_result() -> None:
    _game, state = _bots("bigidea", ["Ann", "Bo", "Cy"], lambda _state: False)
    assert isinstance(state, BigIdeaState) and state.outcome is not None
    alt = bi_picture.draw(BI.view(state, None)).alt
    summary = state.outcome.summary
    assert summary.endswith(".") and ".." not in alt
    assert alt.startswith(f"The Big Idea, round {state.round} of ") and f", {summary} " in alt


def test_the_biggiebills_alt_text_counts_growth_cards_completed() -> None:
    def completed(state: GameState) -> bool:
        return isinstance(state, BiggieBillsState) and any(
            len(done) == 1 for done in state.completed
        )

    _game, state = _bots("biggiebills", ["Red", "Blue", "Green"], completed)
    assert isinstance(state, BiggieBillsState)
    public = BB.view(state, None)
    alt = bb_picture.draw(public).alt
    for team in public.teams:
        if team.alive:
            done = plural(sum(team.stages), "Growth card")
            assert f"{team.name} {team.cash_text} with {done} completed" in alt
    assert "1 Growth card completed" in alt and "growth stages" not in alt


def test_the_busine_go_result_at_the_round_cap_is_one_sentence() -> None:
    _game, state = _bots("businessgo", ["Ann", "Bob"], lambda _state: False, max_rounds=1)
    assert isinstance(state, BusinessGoState)
    assert state.outcome is not None
    first = state.outcome.standings[0]
    assert state.outcome.summary == (
        f"{first.name} wins with {money(state.cash[first.seat])}, the richest after 1 round."
    )


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        (
            "bigidea",
            {"type": "invest", "product": "abc"},
            "That invest can't be read: its product “abc” is not a whole number.",
        ),
        (
            "businessgo",
            {"type": "bet", "amount": "lots"},
            "That bet can't be read: its amount “lots” is not a whole number.",
        ),
        ("bigidea", {"type": "frobnicate"}, UNKNOWN_ACTION),
    ],
)
def test_a_malformed_field_is_named_in_the_refusal(
    name: str, data: dict[str, object], said: str
) -> None:
    """A press whose action carries a field the game cannot read (a crafted button, a stale
    client) is refused with a sentence naming that field and what was given."""
    game, state = _bots(name, ["Ann", "Bo", "Cy"], lambda _state: True)
    with pytest.raises(IllegalAction) as refused:
        game.apply(state, 0, game.parse_action(data), random.Random(1))
    assert str(refused.value) == said
