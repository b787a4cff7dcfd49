"""The engine's side of a game's declaration: what ``Game`` checks as it is declared, and what
``apply`` refuses before any move of the game runs."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from core.engine import SYSTEM, Deadline, Event, IllegalAction, Rng, Seat, Timeout
from core.games.biggiebills import GAME as BIGGIEBILLS
from core.games.biggiebills.actions import ProposeTarget, Skip, Vote
from tests.games.biggiebills_support import act
from tests.games.biggiebills_support import new_game as new_biggiebills
from tests.team_game import GAME, Add, RelayOptions, RelayState


def _relay() -> RelayState:
    return GAME.new_game(["Sharks", "Jets"], RelayOptions(), random.Random(1))


def _timeout(state: RelayState, actor: Seat, action: Timeout, rng: Rng) -> list[Event]:
    return []


def test_a_move_filed_under_a_type_it_does_not_take_is_refused_as_the_game_is_declared() -> None:
    with pytest.raises(TypeError, match="move for Add takes another action"):
        replace(GAME, moves={Add: _timeout})


def test_a_move_for_an_action_the_game_does_not_have_is_refused_as_it_is_declared() -> None:
    with pytest.raises(TypeError, match="Deadline is not one of Relay's actions"):
        replace(GAME, moves={Add: GAME.moves[Add], Deadline: _timeout})
    with pytest.raises(TypeError, match="Timeout is its timeout, not one of its moves"):
        replace(GAME, moves={Add: GAME.moves[Add], Timeout: _timeout})


def test_the_engine_refuses_an_unseated_actor_and_an_action_it_cannot_read() -> None:
    state = _relay()
    for actor in (SYSTEM, 2):
        with pytest.raises(IllegalAction, match=r"^Only a seated team can do that\.$"):
            GAME.apply(state, actor, Add(amount=1), random.Random(0))
    with pytest.raises(IllegalAction, match=r"^That is not an action this game knows\.$"):
        GAME.apply(state, 0, {"type": "subtract", "amount": 1}, random.Random(0))
    assert state == _relay()


def test_a_dict_is_read_as_its_action_and_dispatched_by_type() -> None:
    after = GAME.apply(_relay(), 0, {"type": "add", "amount": 2}, random.Random(0)).state
    assert (after.total, after.turn, after.version) == (2, 1, 1)


def test_a_timeout_is_checked_before_a_game_without_deadlines_refuses_it() -> None:
    state = _relay()
    with pytest.raises(IllegalAction, match="Only the game clock"):
        GAME.apply(state, 0, Timeout(key="turn@v0"), random.Random(0))
    with pytest.raises(IllegalAction, match="already passed"):
        GAME.apply(state, SYSTEM, Timeout(key="turn@v0"), random.Random(0))


def test_new_game_counts_the_seats() -> None:
    with pytest.raises(ValueError, match=r"^Relay needs 2-4 teams\.$"):
        GAME.new_game(["Sharks"], RelayOptions(), random.Random(1))


def test_an_answer_that_leaves_the_question_open_outdates_no_buttons() -> None:
    """BiggieBills' vote on a new target is its ``question``: a team agreeing while others have
    still to answer opens no new decision; the proposal, a refusal and a turn's move do."""
    proposed, _ = act(new_biggiebills(), 0, ProposeTarget(target=2000))
    assert proposed.decision_version == proposed.version
    assert BIGGIEBILLS.prompt_version(proposed) == proposed.version
    assert BIGGIEBILLS.answering(proposed) == [1, 2, 3]
    agreed, _ = act(proposed, 1, Vote(agree=True))
    assert agreed.decision_version == proposed.version
    assert BIGGIEBILLS.prompt_version(agreed) == proposed.version
    assert BIGGIEBILLS.answering(agreed) == [2, 3]
    refused, _ = act(agreed, 2, Vote(agree=False))
    assert refused.vote is None and refused.decision_version == refused.version
    assert BIGGIEBILLS.answering(refused) == []
    assert BIGGIEBILLS.prompt_version(refused) == refused.version
    moved, _ = act(agreed, 0, Skip())
    assert moved.decision_version == moved.version
