"""Deadlines: declared per phase instance, their defaults, and refused timeouts."""

from __future__ import annotations

from core.engine import SYSTEM, Timeout
from core.games.bigidea import GAME
from core.games.bigidea.actions import Pass, Pick, Pitch, Point
from core.games.bigidea.cards import is_product
from core.games.bigidea.events import PointsRevealed, TimedOut
from tests.games.bigidea_support import (
    HANDS,
    PICKS,
    RiggedRandom,
    act,
    check_books,
    in_mezzanine,
    in_venture,
    kinds,
    new_game,
    of_kind,
    of_type,
    pick_all,
    point_all,
    refused,
    timeout,
    turn_of,
)


def test_every_decision_declares_a_deadline_with_its_own_key() -> None:
    state = new_game(HANDS)
    keys = []
    assert state.deadline is not None and state.deadline.seconds == 120
    keys.append(state.deadline.key)
    state, _ = pick_all(state, PICKS)
    assert state.deadline is not None and state.deadline.seconds == 60
    keys.append(state.deadline.key)
    state, _ = point_all(state, {0: None, 1: None, 2: None})
    while state.deciding == "mezzanine":
        assert state.deadline is not None and state.deadline.seconds == 90
        keys.append(state.deadline.key)
        state, _ = act(state, turn_of(state), Pass())
    assert state.deadline is not None
    keys.append(state.deadline.key)  # round 2's seed phase
    assert len(keys) == len(set(keys)) == 6


def test_pitch_and_changed_votes_keep_the_deadline() -> None:
    state = in_venture()
    key = state.deadline
    state, _ = act(state, 0, Pitch(text="Cool"))
    state, _ = act(state, 0, Point(seat=1))
    state, _ = act(state, 0, Point(seat=2))
    assert state.deadline == key


def test_zero_seconds_means_no_deadline() -> None:
    state = new_game(HANDS, pick_seconds=0, vote_seconds=0, turn_seconds=0)
    assert state.deadline is None
    state, _ = pick_all(state, PICKS)
    assert state.deciding == "venture" and state.deadline is None
    state, _ = point_all(state, {0: None, 1: None, 2: None})
    assert state.deciding == "mezzanine" and state.deadline is None
    refused(state, SYSTEM, Timeout(key="anything"), "already passed")


def test_pick_timeout_picks_at_random_for_idle_seats() -> None:
    state, _ = act(new_game(HANDS), 0, Pick(cards=["hat", "gigantic"]))
    rng = RiggedRandom(choose=1)
    state, events = timeout(state, rng)
    # Ann keeps her pick; Bob and Cy get the second of their product-making picks.
    picks = [p for p in GAME.legal_actions(new_game(HANDS), 1) if isinstance(p, Pick)]
    bob = [p.cards for p in picks if is_product(p.cards)][1]
    assert [p.cards for p in state.products][:2] == [["hat", "gigantic"], bob]
    assert state.deciding == "venture"
    notes = of_kind(events, "your_pick")
    assert [e.audience.seat for e in notes] == [1, 2]
    (public,) = of_type(events, TimedOut)
    assert public.audience.is_public and public.seats == [1, 2]
    assert "Bob and Cy" in public.text
    check_books(state)


def test_pick_timeout_falls_back_to_any_pick_when_no_product_is_possible() -> None:
    hands = [list(HANDS[0]), ["car", "chair", "clock", "radio", "robot"], list(HANDS[2])]
    hands[2] = ["love", "swiss", "evil", "happy", "simple"]
    state = new_game(hands)
    state, events = timeout(state)
    assert "reveal" in kinds(events)
    assert {"car", "chair", "love", "swiss"} <= set(state.discard)


def test_venture_timeout_points_idle_seats_at_nobody() -> None:
    state, _ = act(in_venture(), 2, Point(seat=0))
    state, events = timeout(state)
    assert of_type(events, PointsRevealed)[0].votes == [None, None, 0]
    assert state.products[0].chits == [1, 0, 1]
    assert state.deciding == "mezzanine"


def test_mezzanine_timeout_passes_for_the_seat_to_play() -> None:
    state = in_mezzanine()
    state, events = timeout(state)
    assert kinds(events)[0] == "timeout" and "Ann passes" in events[0].text
    assert state.turn_seat == 1
    assert state.money == [1000] * 3


def test_stale_or_foreign_timeouts_are_refused() -> None:
    state = new_game(HANDS)
    assert state.deadline is not None
    old = state.deadline.key
    refused(state, 0, Timeout(key=old), "game clock")
    refused(state, SYSTEM, Timeout(key="bigidea:r9:pick:v0"), "already passed")
    state, _ = pick_all(state, PICKS)
    refused(state, SYSTEM, Timeout(key=old), "already passed")
    refused(state, SYSTEM, Pass(), "seated")


def test_whole_game_by_timeouts_ends() -> None:
    state = new_game(players=5)
    steps = 0
    while not state.finished:
        state, _ = timeout(state, RiggedRandom(default_roll=3))
        check_books(state)
        steps += 1
        assert steps < 5 * 2 * 7
    assert state.round == 10


def test_decision_version_moves_only_when_a_new_decision_opens() -> None:
    state = new_game(HANDS)
    assert state.decision_version == state.version == 0
    state, _ = act(state, 0, Pick(cards=["cat", "frozen"]))
    state, _ = act(state, 0, Pick(cards=["hat", "gigantic"]))
    assert state.decision_version == 0  # picking is not a new decision for the others
    state, _ = pick_all(state, {1: PICKS[1], 2: PICKS[2]})
    assert state.deciding == "venture" and state.decision_version == state.version
    opened = state.version
    state, _ = act(state, 0, Pitch(text="Cool"))
    state, _ = act(state, 1, Point(seat=0))
    state, _ = act(state, 1, Point(seat=2))
    assert state.decision_version == opened
    state, _ = point_all(state, {0: None, 2: None})
    assert state.deciding == "mezzanine" and state.decision_version == state.version
    state, _ = act(state, 0, Pass())
    assert state.decision_version == state.version  # Bob's turn is a new decision
