"""The engine's side of a game's declaration: what ``Game`` checks as it is declared, and what
``apply`` refuses before any move of the game runs."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Never

import pytest

from core.engine import (
    SYSTEM,
    Deadline,
    Decision,
    Event,
    Flow,
    GameLike,
    GameState,
    IllegalAction,
    OpenDecision,
    Play,
    Plays,
    Rng,
    Seat,
    Timeout,
    open_decision,
)
from core.games.biggiebills import GAME as BIGGIEBILLS
from core.games.biggiebills.actions import ProposeTarget, Skip, Vote
from core.games.bigidea import GAME as BIGIDEA
from core.games.businessgo import GAME as BUSINESSGO
from tests.games.biggiebills_support import act
from tests.games.biggiebills_support import new_game as new_biggiebills
from tests.team_game import GAME, Add, RelayOptions, RelayState, add, add_options, add_problem


def _relay() -> RelayState:
    return GAME.new_game(["Sharks", "Jets"], RelayOptions(), random.Random(1))


def _timeout(state: RelayState, actor: Seat, action: Timeout, rng: Rng) -> list[Event]:
    return []


def _moves(**plays: Play[RelayState, Never]) -> Flow[RelayState, Add | Timeout]:
    return Flow(standing={globals()[kind]: play for kind, play in plays.items()})


ADD = Play(check=add_problem, apply=add, offers=add_options)
TIMEOUT = Play(check=add_problem, apply=_timeout, offers=add_options)


def test_a_move_filed_under_a_type_it_does_not_take_is_refused_as_the_game_is_declared() -> None:
    with pytest.raises(TypeError, match="move for Add takes another action"):
        replace(GAME, flow=_moves(Add=TIMEOUT))


def test_a_move_for_an_action_the_game_does_not_have_is_refused_as_it_is_declared() -> None:
    with pytest.raises(TypeError, match="Deadline is not one of Relay's actions"):
        replace(GAME, flow=_moves(Add=ADD, Deadline=TIMEOUT))
    with pytest.raises(TypeError, match="Timeout is its timeout, not one of its moves"):
        replace(GAME, flow=_moves(Add=ADD, Timeout=TIMEOUT))


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


# --- declared decisions ------------------------------------------------------------------------


def _next_team(state: RelayState, rng: Rng) -> list[Event]:
    """A turn runs out: the next team's turn."""
    state.turn = (state.turn + 1) % len(state.names)
    open_decision(state, "turn")
    return []


def _opens_the_next_turn(state: RelayState, actor: Seat, action: Add, rng: Rng) -> list[Event]:
    events = add(state, actor, action, rng)
    if not state.finished:
        open_decision(state, "turn")
    return events


def _first_turn(names: Sequence[str], options: RelayOptions, rng: Rng) -> RelayState:
    state = GAME.new_state(names, options, rng)
    open_decision(state, "turn")
    return state


def _turns(
    apply: Callable[[RelayState, Seat, Add, Rng], list[Event]],
) -> Flow[RelayState, Add | Timeout]:
    """Relay's turns declared, each ``apply``-ing its additions."""
    plays: Plays[RelayState] = {Add: Play(check=add_problem, apply=apply, offers=add_options)}
    turn = Decision(plays=plays, waits=lambda s: [s.turn], seconds=lambda s: 30, timeout=_next_team)
    return Flow(decisions={"turn": turn})


TURNS = replace(GAME, new_state=_first_turn, flow=_turns(_opens_the_next_turn))
"""Relay with its turns declared: 30 s each, the next team's when one runs out."""


def test_a_decision_the_rules_open_gets_its_declared_deadline_and_whom_it_waits_for() -> None:
    state = TURNS.new_game(["Sharks", "Jets"], RelayOptions(), random.Random(1))
    assert state.decision == OpenDecision(name="turn", opened=0)
    assert state.deadline == Deadline(key="turn@v0", seconds=30)
    assert TURNS.waiting_for(state) == [0]
    after = TURNS.apply(state, 0, Add(amount=1), random.Random(0)).state
    assert after.decision == OpenDecision(name="turn", opened=1)
    assert after.deadline == Deadline(key="turn@v1", seconds=30)  # a timer of its own
    assert after.decision_version == 1 and TURNS.waiting_for(after) == [1]


def test_a_timeout_goes_to_the_open_decisions_declared_timeout() -> None:
    state = TURNS.new_game(["Sharks", "Jets"], RelayOptions(), random.Random(1))
    assert state.deadline is not None
    after = TURNS.apply(state, SYSTEM, Timeout(key=state.deadline.key), random.Random(0)).state
    assert (
        after.turn == 1
        and after.total == 0
        and after.deadline == Deadline(key="turn@v1", seconds=30)
    )
    with pytest.raises(IllegalAction, match="already passed"):  # the old timer ends nothing
        TURNS.apply(after, SYSTEM, Timeout(key=state.deadline.key), random.Random(0))


def test_the_end_closes_the_decision_and_takes_its_deadline() -> None:
    state = TURNS.new_game(["Sharks", "Jets"], RelayOptions(), random.Random(1))
    while not state.finished:
        state = TURNS.apply(state, state.turn, Add(amount=2), random.Random(0)).state
    assert state.decision is None and state.deadline is None
    assert TURNS.waiting_for(state) == [] and state.decision_version == state.version


def test_only_opening_a_decision_outdates_buttons_unless_each_action_does() -> None:
    """A move that opens nothing (here: adding without passing the turn) is no new decision
    point, unless the open decision is declared ``each_action``."""

    def keeps_the_turn(state: RelayState, actor: Seat, action: Add, rng: Rng) -> list[Event]:
        state.total += action.amount
        return []

    simultaneous = replace(TURNS, flow=_turns(keeps_the_turn))
    state = simultaneous.new_game(["Sharks", "Jets"], RelayOptions(), random.Random(1))
    after = simultaneous.apply(state, 0, Add(amount=1), random.Random(0)).state
    assert after.decision_version == 0 and after.deadline == state.deadline
    declared = simultaneous.flow.decisions["turn"]
    flow = replace(simultaneous.flow, decisions={"turn": replace(declared, each_action=True)})
    each = replace(simultaneous, flow=flow)
    after = each.apply(state, 0, Add(amount=1), random.Random(0)).state
    assert after.decision_version == 1 and after.deadline == state.deadline  # the clock runs on


def test_a_decision_the_game_does_not_declare_cannot_be_opened() -> None:
    def opens_nonsense(state: RelayState, actor: Seat, action: Add, rng: Rng) -> list[Event]:
        open_decision(state, "nonesuch")
        return []

    odd = replace(TURNS, flow=_turns(opens_nonsense))
    state = odd.new_game(["Sharks", "Jets"], RelayOptions(), random.Random(1))
    with pytest.raises(TypeError, match="opened 'nonesuch', which it does not declare"):
        odd.apply(state, 0, Add(amount=1), random.Random(0))


def test_a_turn_opened_by_the_first_action_gets_a_timer_of_its_own() -> None:
    """Deadline keys carried the version before the action that declared them, so a decision
    of the same name opened by the very first action had the set-up's key, and the authority
    never restarted its timer: the next team played on what was left of the first team's."""
    state = new_biggiebills()
    assert state.deadline is not None and state.deadline.key == "turn@v0"
    assert state.turn_seat is not None
    skipped, _ = act(state, state.turn_seat, Skip())
    assert skipped.deadline is not None and skipped.deadline.key == "turn@v1"


@pytest.mark.parametrize(
    ("game", "phase", "name"),
    [
        (BIGIDEA, "mezzanine", "mezzanine"),
        (BIGIDEA, "venture", "venture"),
        (BIGGIEBILLS, "block", "block"),
        (BUSINESSGO, "licence", "licence"),
    ],
)
def test_a_state_stored_before_decisions_were_declared_loads_with_its_own(
    game: GameLike, phase: str, name: str
) -> None:
    """A record of a game in play stored before decisions were declared names no decision:
    its phase says which is open, its deadline stands, and that deadline's timeout is the
    decision's (Busine$$ GO's window and decision counters are ignored)."""
    state = _reached(game, phase)
    assert state.deadline is not None
    old = state.model_dump(mode="json")
    del old["decision"]
    old["phase"] = phase
    old["deadline"]["key"] = "turn2@v57" if name == "turn" else f"{name}@v57"
    old |= {"window": 3, "decisions": 9}
    loaded = game.state_model.model_validate(old)
    assert loaded.decision == OpenDecision(name=name, opened=state.decision_version)
    assert game.waiting_for(game.at(loaded).state) == game.waiting_for(state)
    key = old["deadline"]["key"]
    timed_out = game.apply(loaded, SYSTEM, Timeout(key=key), random.Random(0))
    assert timed_out.state.version == loaded.version + 1


def _reached(game: GameLike, phase: str) -> GameState:
    """A random game of ``game`` played until it is in ``phase``."""
    chooser = random.Random(3)
    state = game.setup(["A", "B", "C"], {}, random.Random(3))
    while state.deciding != phase:
        assert not state.finished, f"{game.name} never reached {phase}"
        seat = chooser.choice(game.actors(state))
        action = chooser.choice(game.legal_actions(state, seat))
        state = game.apply(state, seat, action, random.Random(state.version)).state
    return state


def test_a_decision_is_named_so_that_its_deadline_key_reads_back() -> None:
    with pytest.raises(TypeError, match="needs a name without '@'"):
        flow = replace(TURNS.flow, decisions={"turn@2": TURNS.flow.decisions["turn"]})
        replace(TURNS, flow=flow)


def test_a_game_that_declares_no_decisions_waits_for_whoever_may_act() -> None:
    """Relay declares none: it waits for the seats with legal actions, has no deadline, and
    every action is a new decision point."""
    state = _relay()
    assert state.decision is None and state.deadline is None and GAME.waiting_for(state) == [0]
    after = GAME.apply(state, 0, Add(amount=1), random.Random(0)).state
    assert after.decision_version == after.version == 1 and GAME.waiting_for(after) == [1]
