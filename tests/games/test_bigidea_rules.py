"""Every rule of The Big Idea, phase by phase, with a rigged rng."""

from __future__ import annotations

import copy

import pytest
from pydantic import ValidationError

from core.engine import Event, IllegalAction, OpenDecision
from core.games.bigidea import GAME
from core.games.bigidea.actions import Invest, Pass, Pick, Pitch, Point, Withdraw
from core.games.bigidea.events import CardsDealt, IpoHeld, PlayerPassed, PointsRevealed
from core.games.bigidea.legal import has_pick_option, pick_options
from core.games.bigidea.state import BigIdeaOptions, BigIdeaState, Product
from tests.games.bigidea_support import (
    HANDS,
    NAMES,
    PICKS,
    RiggedRandom,
    act,
    check_books,
    check_public_events,
    in_mezzanine,
    in_venture,
    kinds,
    new_game,
    of_kind,
    of_type,
    own_view,
    pass_until,
    pick_all,
    point_all,
    refused,
    table,
    turn_of,
)

# --- setup ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_setup(players: int) -> None:
    state = new_game(players=players)
    assert state.money == [1000] * players
    assert state.chits == [5] * players
    assert [len(h) for h in state.hands] == [5] * players  # 3 to start + 2 in round 1
    assert len(state.deck) == 54 - 5 * players
    assert (state.round, state.rounds, state.dealer, state.deciding) == (1, 2 * players, 0, "pick")
    assert state.deadline is not None and state.deadline.seconds == 120
    check_books(state)


def test_safe_for_work_game_never_deals_the_marked_cards() -> None:
    state = new_game(players=6, safe_for_work=True)
    in_play = set(state.deck) | {c for h in state.hands for c in h}
    assert len(in_play) == 51
    assert {"erotic", "unholy", "smokes"}.isdisjoint(in_play)
    check_books(state)


def test_four_chits_variant() -> None:
    state = new_game(players=4, four_chits=True)
    assert state.chits == [4] * 4
    check_books(state)


@pytest.mark.parametrize("players", [2, 7])
def test_player_count(players: int) -> None:
    with pytest.raises(ValueError):
        new_game(players=players)
    assert (GAME.min_players, GAME.max_players) == (3, 6)


def test_options_validated() -> None:
    with pytest.raises(ValidationError):
        BigIdeaOptions(pick_seconds=-1)
    with pytest.raises(ValidationError):
        BigIdeaOptions.model_validate({"no_such_option": True})


def test_deal_starts_left_of_dealer_from_shuffled_deck() -> None:
    rng = RiggedRandom(shuffles=[["hat", "cat", "car", "zen", "love", "evil"]])
    state = GAME.new_game(NAMES[:3], BigIdeaOptions(), rng)
    assert rng.shuffle_calls == 1
    assert state.hands[1][:3] == ["hat", "cat", "car"]
    assert state.hands[2][:3] == ["zen", "love", "evil"]


# --- seed phase ------------------------------------------------------------------------------


def test_picks_are_secret_until_everyone_has_picked() -> None:
    state = new_game(HANDS)
    after, events = act(state, 0, Pick(cards=["cat", "frozen"]))
    check_public_events(state, after, events)
    # Nothing public is said: the board's waiting line shows who has yet to pick, never what.
    assert [e for e in events if e.audience.is_public] == []
    assert [e.audience.seat for e in events if not e.audience.is_public] == [0]
    assert GAME.view(after, None).players[0].picked is True
    assert "Waiting for Bob and Cy." in GAME.render_board(after).text
    assert own_view(after, 0).pick == ["cat", "frozen"]
    assert own_view(after, 1).pick is None
    assert "cat" in after.hands[0]  # cards stay in the hand until the reveal
    assert GAME.waiting_for(after) == [1, 2]


def test_pick_may_change_until_all_have_picked() -> None:
    state, _ = act(new_game(HANDS), 0, Pick(cards=["cat", "frozen"]))
    state, events = act(state, 0, Pick(cards=["hat", "gigantic"]))
    assert kinds([e for e in events if e.audience.is_public]) == []
    state, events = pick_all(state, {1: PICKS[1], 2: PICKS[2]})
    assert [p.cards for p in state.products] == [["hat", "gigantic"], ["car", "love"], PICKS[2]]


def test_reveal_makes_products_with_the_owners_chit() -> None:
    state = new_game(HANDS)
    before = state
    state, events = pick_all(state, PICKS)
    reveal = of_kind(events, "reveal")
    assert len(reveal) == 1 and reveal[0].audience.is_public
    assert "It's like a cat... that's frozen in a block of ice!" in reveal[0].text
    assert [(p.owner, p.cards, p.chits, p.new) for p in state.products] == [
        (0, ["cat", "frozen"], [1, 0, 0], True),
        (1, ["car", "love"], [0, 1, 0], True),
        (2, ["robot", "happy"], [0, 0, 1], True),
    ]
    assert state.chits == [4, 4, 4]
    assert [len(h) for h in state.hands] == [3, 3, 3]
    assert state.deciding == "venture"
    check_books(state)
    check_public_events(before, state, events)


def test_two_cards_of_one_type_are_discarded() -> None:
    state, events = pick_all(
        new_game(HANDS), {0: ["cat", "hat"], 1: ["love", "swiss"], 2: ["robot", "happy"]}
    )
    assert [p.owner for p in state.products] == [2]
    assert set(state.discard) == {"cat", "hat", "love", "swiss"}
    assert "not a product" in of_kind(events, "reveal")[0].text
    check_books(state)


def test_item_first_whatever_the_pick_order() -> None:
    state, _ = pick_all(new_game(HANDS), {0: ["frozen", "cat"], 1: PICKS[1], 2: PICKS[2]})
    assert state.products[0].cards == ["cat", "frozen"]


def test_owner_without_chits_places_none() -> None:
    state = new_game(HANDS)
    state.chits[0] = 0
    state.products = [Product(id=99, owner=0, cards=["beer"], chits=[5, 0, 0], new=False)]
    state.deck.remove("beer")
    state, _ = pick_all(state, PICKS)
    assert state.new_product_of(0) is not None
    assert state.new_product_of(0).chits == [0, 0, 0]  # type: ignore[union-attr]
    check_books(state)


def test_illegal_picks_change_nothing() -> None:
    state = new_game(HANDS)
    refused(state, 0, Pick(cards=["car", "love"]), "do not hold")
    refused(state, 0, Pick(cards=["cat"]), "exactly two")
    refused(state, 0, Pick(cards=["cat", "frozen", "zen"]), "exactly two")
    refused(state, 0, Pick(cards=["cat", "cat"]), "only once")
    refused(state, 7, Pick(cards=["cat", "frozen"]), "seated")
    refused(state, 0, Invest(product=1), "mezzanine")
    refused(state, 0, Point(seat=1), "venture")
    refused(in_venture(), 0, Pick(cards=["hat", "gigantic"]), "seed phase")


# --- pitches -------------------------------------------------------------------------------


def test_pitch_is_public_trimmed_and_changes_no_phase() -> None:
    state = in_venture()
    after, events = act(state, 0, Pitch(text="  Keeps   your\ncat fresh!  "))
    assert kinds(events) == ["pitch"] and events[0].audience.is_public
    assert after.products[0].pitch == "Keeps your cat fresh!"
    assert "Keeps your cat fresh!" in events[0].text
    assert (after.deciding, after.deadline, after.votes) == (state.deciding, state.deadline, {})
    # The pitch is a post of its own; the board only says there is one.
    board = GAME.render_board(after).plain_text()
    assert "Keeps your cat fresh!" not in board and "#1 Ann's frozen cat (new, pitched)" in board


def test_pitch_limits() -> None:
    state = in_venture()
    refused(state, 0, Pitch(text="x" * 201), "limit is 200")
    refused(state, 0, Pitch(text="   "), "empty")
    act(state, 0, Pitch(text="x" * 200))
    pitched, _ = act(state, 0, Pitch(text="once"))
    refused(pitched, 0, Pitch(text="twice"), "already pitched")
    refused(new_game(HANDS), 0, Pitch(text="too early"), "only your own new product")
    refused(in_mezzanine(), 0, Pitch(text="too late"), "until everyone has pointed")
    # Pointing first leaves the pitch open while others still point; the last point closes it.
    pointed, _ = act(state, 0, Point(seat=None))
    act(pointed, 0, Pitch(text="still in time"))
    revealed, _ = point_all(pointed, {1: None, 2: None})
    refused(revealed, 0, Pitch(text="after the reveal"), "until everyone has pointed")
    no_product, _ = pick_all(new_game(HANDS), {0: ["cat", "hat"], 1: PICKS[1], 2: PICKS[2]})
    refused(no_product, 0, Pitch(text="nothing to sell"), "only your own new product")


# --- venture phase -------------------------------------------------------------------------


def test_pointing_is_secret_until_all_have_pointed() -> None:
    state = in_venture()
    after, events = act(state, 0, Point(seat=1))
    check_public_events(state, after, events)
    # Nothing public is said: the pointing prompt shows who has yet to point, never at whom.
    assert [e for e in events if e.audience.is_public] == []
    prompt = GAME.render_prompt(after)
    assert prompt is not None and "Waiting for Bob and Cy to point." in prompt.text
    assert "Waiting for" not in GAME.render_board(after).text  # said once, on the prompt
    view = GAME.view(after, None)
    assert [p.voted for p in view.players] == [True, False, False]
    assert view.own is None and "vote" not in view.model_dump(mode="json")
    assert own_view(after, 0).vote == 1
    assert own_view(after, 1).vote is None and own_view(after, 1).voted is False
    # Ann has pointed (her pitch may still come), so the game waits for the others alone.
    assert GAME.waiting_for(after) == [1, 2]
    # Changing one's mind is private and leaves the public record unchanged.
    after2, events = act(after, 0, Point(seat=2))
    assert [e for e in events if e.audience.is_public] == []
    assert after2.votes == {0: 2}


def test_votes_revealed_at_once_and_chits_placed() -> None:
    state, events = point_all(in_venture(), {0: 1, 1: 1, 2: None})
    reveal = of_type(events, PointsRevealed)
    assert len(reveal) == 1 and reveal[0].audience.is_public
    assert reveal[0].votes == [1, 1, None]
    assert "Ann points at Bob" in reveal[0].text
    bob = state.new_product_of(1)
    assert bob is not None and bob.chits == [1, 1, 0]  # Ann's venture chit + Bob's own
    assert state.chits == [3, 4, 4]  # Bob pointed at himself: no chit
    assert state.deciding == "mezzanine"
    check_books(state)


def test_pointing_at_a_player_without_a_new_product_places_no_chit() -> None:
    state, _ = pick_all(new_game(HANDS), {0: ["cat", "hat"], 1: PICKS[1], 2: PICKS[2]})
    state, events = point_all(state, {0: None, 1: 0, 2: 0})
    assert state.chits == [5, 4, 4]
    assert "no new product" in of_kind(events, "votes")[0].text
    check_books(state)


def test_pointer_without_chits_places_none() -> None:
    state = in_venture()
    state.chits[2] = 0
    state.products.append(Product(id=50, owner=2, cards=["beer"], chits=[0, 0, 4], new=False))
    state.deck.remove("beer")
    check_books(state)
    state, events = point_all(state, {0: None, 1: None, 2: 0})
    assert state.products[0].chits == [1, 0, 0]
    assert "no chit left" in of_kind(events, "votes")[0].text


def test_venture_skipped_without_new_products() -> None:
    state, events = pick_all(
        new_game(HANDS),
        {0: ["cat", "hat"], 1: ["love", "swiss"], 2: ["robot", "clock"]},
    )
    assert "venture" not in kinds(events)
    assert "mezzanine" in kinds(events)
    # Nothing on the table either, so every turn passed by itself and round 2 began.
    assert (state.round, state.deciding) == (2, "pick")


def test_vote_for_no_such_seat_is_illegal() -> None:
    state = in_venture()
    refused(state, 0, Point(seat=3), "no player at seat 3")
    refused(state, 0, Point(seat=-1), "no player")


# --- mezzanine -----------------------------------------------------------------------------


def test_turns_run_clockwise_from_the_dealer() -> None:
    state = in_mezzanine()
    order = []
    while state.deciding == "mezzanine":
        order.append(state.turn_seat)
        assert GAME.waiting_for(state) == [state.turn_seat]
        state, _ = act(state, turn_of(state), Pass())
    assert order == [0, 1, 2]


def test_out_of_turn_is_illegal() -> None:
    state = in_mezzanine()
    refused(state, 1, Pass(), "Ann's turn")
    refused(state, 2, Invest(product=1), "Ann's turn")


def test_invest_pays_each_other_chit_owner() -> None:
    state = table(in_mezzanine(), (1, ["car", "love"], [1, 2, 1]))
    pid = state.products[0].id
    after, events = act(state, 0, Invest(product=pid))
    # Ann's own chit is free; Bob gets $2 for his two chits, Cy $1.
    assert after.money == [1000 - 300, 1200, 1100]
    assert after.products[0].chits == [2, 2, 1]
    assert after.chits[0] == state.chits[0] - 1
    assert events[0].kind == "invest" and "paying Bob $2 and Cy $1" in events[0].text
    check_books(after)


def test_invest_without_chits_or_money_is_illegal() -> None:
    state = table(in_mezzanine(), (1, ["car", "love"], [0, 2, 1]))
    pid = state.products[0].id
    poor = state.model_copy(deep=True)
    poor.money = [200, 1400, 1400]
    msg = refused(poor, 0, Invest(product=pid))
    assert msg == "You need $3 to invest in Bob's love car; you have $2."
    assert Invest(product=pid) not in GAME.legal_actions(poor, 0)
    broke = table(in_mezzanine(), (1, ["car", "love"], [5, 0, 0]))
    refused(broke, 0, Invest(product=broke.products[0].id), "no chits left")
    refused(state, 0, Invest(product=999), "no product #999")


def test_withdraw() -> None:
    state = table(in_mezzanine(), (1, ["car", "love"], [2, 1, 0]), (2, ["robot"], [0, 0, 1]))
    first, second = (p.id for p in state.products)
    after, events = act(state, 0, Withdraw(product=first))
    assert after.products[0].chits == [1, 1, 0]
    assert after.chits[0] == state.chits[0] + 1
    assert after.money == state.money  # no refund
    assert events[0].kind == "withdraw"
    refused(state, 0, Withdraw(product=second), "no chit on Cy's robot")
    refused(state, 0, Withdraw(product=999), "no product")
    check_books(after)


def test_seat_that_can_only_pass_is_passed_automatically() -> None:
    # Bob has chits but cannot afford Ann's product, and has no chit on the table to withdraw.
    state = table(in_mezzanine(), (0, ["cat", "frozen"], [3, 0, 0]))
    state.money = [1800, 200, 1000]
    assert GAME.legal_actions(state, 1) == []  # not his turn yet
    after, events = act(state, 0, Pass())
    assert [(e.seat, e.auto) for e in of_type(events, PlayerPassed)] == [(0, False), (1, True)]
    assert after.turn_seat == 2 and GAME.waiting_for(after) == [2]
    # With nothing on the table, nobody can do anything but pass.
    empty = table(in_mezzanine())
    after, events = act(empty, 0, Pass())
    assert after.deciding == "pick" and after.round == 2
    assert [e.seat for e in of_type(events, PlayerPassed) if e.auto] == [1, 2]


# --- IPO -----------------------------------------------------------------------------------


def ipo(state: BigIdeaState, rng: RiggedRandom) -> tuple[BigIdeaState, list[Event]]:
    """Pass the remaining mezzanine turns; the last pass runs the IPO."""
    return pass_until(state, lambda s: s.deciding != "mezzanine", rng)


def test_rule_sheet_example_four_chits_roll_two_pays_four_per_chit() -> None:
    state = table(in_mezzanine(), (1, ["car", "love"], [1, 2, 1]))
    rng = RiggedRandom(rolls=[2])
    after, events = ipo(state, rng)
    (event,) = of_type(events, IpoHeld)
    assert (event.product, event.cards, event.roll, event.chits, event.success) == (
        state.products[0].id,
        ["car", "love"],
        2,
        4,
        True,
    )
    assert event.payouts == [400, 800, 400]
    assert event.moves == [(-1, 0, 400), (-1, 1, 800), (-1, 2, 400)]  # from the bank
    assert after.money == [1400, 1800, 1400]
    assert after.chits == [5, 5, 5]
    assert after.products == []
    assert {"car", "love"} <= set(after.discard)
    assert after.bank_paid == 1600
    assert "rolled 2" in event.text
    check_books(after)


def test_failed_offering_stays_and_becomes_old() -> None:
    state = in_mezzanine()
    rng = RiggedRandom(rolls=[5, 2, 1])
    after, events = ipo(state, rng)
    rolls = of_type(events, IpoHeld)
    assert [e.roll for e in rolls] == [5, 2, 1]
    assert [e.success for e in rolls] == [False, False, True]
    assert [p.cards for p in after.products] == [["cat", "frozen"], ["car", "love"]]
    assert all(not p.new for p in after.products)
    assert after.money == [1000, 1000, 1200]  # Cy's single chit floated on a 1: $2
    check_books(after)


def test_products_without_chits_are_discarded_before_rolling() -> None:
    state = table(in_mezzanine(), (0, ["car", "love"], [0, 0, 0]), (1, ["robot"], [0, 1, 0]))
    rng = RiggedRandom(rolls=[6])
    after, events = ipo(state, rng)
    assert kinds(events).index("ipo_discard") < kinds(events).index("ipo")
    assert len(rng.randint_calls) == 1 and rng.randint_calls[0] == (1, 6)
    assert [p.cards for p in after.products] == [["robot"]]
    assert {"car", "love"} <= set(after.discard)


def test_older_products_roll_first() -> None:
    state = in_mezzanine()
    # An older product listed last: the IPO goes by age, not by list position.
    state.products.append(Product(id=0, owner=2, cards=["beer"], chits=[0, 0, 1], new=False))
    state.deck.remove("beer")
    state.chits[2] -= 1
    check_books(state)
    _, events = ipo(state, RiggedRandom(rolls=[1, 6, 6, 6]))
    rolls = of_type(events, IpoHeld)
    assert [e.product for e in rolls] == [0, 1, 2, 3]
    assert [e.success for e in rolls] == [True, False, False, False]


def test_larger_products_variant_prices_and_payouts() -> None:
    hands = [
        ["cat", "frozen", "gigantic", "zen", "hat"],
        ["car", "love", "chair", "swiss", "evil"],
        ["robot", "happy", "clock", "simple", "radio"],
    ]
    state = new_game(hands, larger_products=True)
    refused(state, 0, Pick(cards=[]), "one to 4")
    refused(state, 0, Pick(cards=["cat", "frozen", "gigantic", "zen", "hat"]), "one to 4")
    state, _ = pick_all(
        state,
        {0: ["cat", "frozen", "gigantic", "zen"], 1: ["car"], 2: ["robot", "clock", "happy"]},
    )
    assert [p.cards for p in state.products] == [["cat", "frozen", "gigantic", "zen"], ["car"]]
    assert set(state.discard) == {"robot", "clock", "happy"}  # two items: no product
    assert (
        GAME.render_board(state).plain_text().count("It's like a high-performance luxury car!") == 1
    )
    state, _ = point_all(state, {0: None, 1: 0, 2: 0})
    cat = state.products[0]
    assert cat.chits == [1, 1, 1]
    # Mezzanine: the dealer (Ann) passes, Bob invests in Ann's 4-card product:
    # $0.50 x 4 cards = $2 per chit already on it, his own not counted.
    state, _ = act(state, 0, Pass())
    state, events = act(state, 1, Invest(product=cat.id))
    assert state.money == [1200, 600, 1200]
    assert "$2" in events[0].text
    state, events = act(state, 2, Invest(product=cat.id), RiggedRandom(rolls=[3, 6]))
    # Cy pays $2 x 3 other chits; then the IPO runs: 5 chits, roll 3, $1 x 4 cards x 3 = $12.
    (floated,) = [e for e in of_type(events, IpoHeld) if e.success]
    assert floated.payouts == [1200, 2400, 2400]
    assert state.money == [1400 + 1200, 1000 + 2400, 600 + 2400]
    check_books(state)


def test_larger_products_pick_list_is_complete() -> None:
    state = new_game(HANDS, larger_products=True)
    picks = GAME.legal_actions(state, 0)
    # 5 + 10 + 10 + 5 sets of one to four cards from a hand of five.
    assert len(picks) == 30
    assert len({tuple(p.cards) for p in picks if isinstance(p, Pick)}) == 30


# --- rounds and the end --------------------------------------------------------------------


def play_round(state: BigIdeaState, rng: RiggedRandom | None = None) -> BigIdeaState:
    """Everyone picks their first two cards, points at nobody (no pitch) and passes."""
    rng = rng or RiggedRandom()
    for seat in list(GAME.waiting_for(state)):
        state, _ = act(state, seat, GAME.legal_actions(state, seat)[0], rng)
    while state.deciding == "venture":
        state, _ = act(state, GAME.waiting_for(state)[0], Point(seat=None), rng)
    while state.deciding == "mezzanine":
        state, _ = act(state, turn_of(state), Pass(), rng)
    return state


def test_dealer_rotates_and_game_ends_after_everyone_dealt_twice() -> None:
    state = new_game(players=4)
    dealers = []
    while not state.finished:
        dealers.append(state.dealer)
        state = play_round(state, RiggedRandom(default_roll=1))
        check_books(state)
        if not state.finished:
            assert [len(h) for h in state.hands] == [5] * 4  # 3 kept + 2 dealt
    assert dealers == [0, 1, 2, 3, 0, 1, 2, 3]
    assert state.finished and state.deadline is None and state.round == 8
    assert state.outcome is not None and state.outcome.rounds == 8
    refused(state, 0, Pass(), "over")
    assert GAME.legal_actions(state, 0) == [] and GAME.waiting_for(state) == []


def test_new_round_deals_two_cards_privately() -> None:
    state = in_mezzanine()
    state, events = pass_until(state, lambda s: s.deciding != "mezzanine")
    assert state.round == 2 and state.dealer == 1 and state.deciding == "pick"
    dealt = of_type(events, CardsDealt)
    assert [e.audience.seat for e in dealt] == [2, 0, 1]  # left of the dealer first
    assert all(len(e.cards) == 2 for e in dealt)
    assert [len(h) for h in state.hands] == [5, 5, 5]
    (round_event,) = of_kind(events, "round")
    assert "Round 2 of 6: Bob deals" in round_event.text


def test_reshuffle_discards_when_the_deck_runs_out() -> None:
    state = in_mezzanine()
    top, rest = state.deck[0], state.deck[1:]
    state.deck, state.discard = [top], state.discard + rest
    rng = RiggedRandom(shuffles=[[rest[-1]]])
    state, events = pass_until(state, lambda s: s.deciding != "mezzanine", rng)
    assert "reshuffle" in kinds(events) and of_kind(events, "reshuffle")[0].audience.is_public
    assert rng.shuffle_calls == 1
    cy = of_type(events, CardsDealt)[0]
    assert cy.audience.seat == 2 and cy.cards == [top, rest[-1]]
    check_books(state)


def test_dry_deck_deals_fewer_cards_and_small_hands_sit_out() -> None:
    state = in_mezzanine()
    spare = state.deck + state.discard + state.hands[2][1:]
    state.hands[2] = state.hands[2][:1]
    state.deck, state.discard = [], []
    state.products.append(Product(id=50, owner=0, cards=spare, chits=[1, 0, 0], new=False))
    state.chits[0] -= 1
    check_books(state)
    state, events = pass_until(state, lambda s: s.deciding != "mezzanine", RiggedRandom())
    assert "deck_empty" in kinds(events)
    assert [len(h) for h in state.hands] == [3, 3, 1]
    assert GAME.legal_actions(state, 2) == []
    assert GAME.waiting_for(state) == [0, 1]
    assert GAME.view(state, None).players[2].can_pick is False
    refused(state, 2, Pick(cards=state.hands[2] * 2), "too few cards")
    check_books(state)


def test_standings_rank_by_money_with_shared_ranks() -> None:
    state = new_game(players=4)
    state.round = state.rounds
    state = table(state)
    state.decision = OpenDecision(name="mezzanine")
    state.turn = state.players - 1
    state.money = [1500, 2000, 1500, 1000]
    state.bank_paid = 2000
    state, events = act(state, turn_of(state), Pass())
    assert state.outcome is not None
    ranks = [(s.name, s.rank, s.score) for s in state.outcome.standings]
    assert ranks == [("Bob", 1, 20.0), ("Ann", 2, 15.0), ("Cy", 2, 15.0), ("Dee", 4, 10.0)]
    assert state.outcome.summary == "Bob wins with $20."
    text = of_kind(events, "game_over")[0].text
    assert "2. Ann $15 (tied)" in text and "2. Cy $15 (tied)" in text


def test_tied_leaders_share_the_win() -> None:
    state = table(new_game(players=3))
    state.round, state.decision, state.turn = state.rounds, OpenDecision(name="mezzanine"), 2
    state.money = [1250, 1250, 500]
    state, _ = act(state, turn_of(state), Pass())
    assert state.outcome is not None
    assert state.outcome.winners == [0, 1]
    assert state.outcome.summary == "Ann and Bob tie for first with $12.50."


def test_chits_do_not_count_at_the_end() -> None:
    state = new_game(players=3)
    state.round = state.rounds
    state = table(state, (0, ["cat", "frozen"], [5, 0, 0]))
    state.decision = OpenDecision(name="mezzanine")
    state.turn = 2
    state, _ = act(state, 2, Pass(), RiggedRandom(rolls=[6]))
    assert state.outcome is not None
    assert [s.score for s in state.outcome.standings] == [10.0, 10.0, 10.0]


def test_illegal_actor_and_garbage() -> None:
    state = new_game(HANDS)
    refused(state, 0, {"type": "bogus"}, "not an action")
    refused(state, 0, {"type": "pick", "cards": "cat"}, "^That pick can't be read: its cards")
    refused(state, 0, "pass", "not an action")
    with pytest.raises(IllegalAction):
        GAME.parse_action({"type": "point", "seat": "x"})
    assert GAME.parse_action({"type": "point", "seat": None}) == Point(seat=None)
    after, _ = act(state, 0, {"type": "pick", "cards": ["cat", "frozen"]})
    assert after.picks[0] == ["cat", "frozen"]


def test_state_copies_are_deep_and_faithful() -> None:
    state = in_venture()
    state.votes = {0: 1, 2: None}
    twin = copy.deepcopy(state)
    assert twin == state and twin is not state
    twin.hands[0].append("beer")
    twin.products[0].chits[1] = 3
    twin.votes[1] = 0
    assert "beer" not in state.hands[0]
    assert state.products[0].chits[1] == 0 and 1 not in state.votes


def test_a_hand_of_exactly_one_pick_already_made_has_no_pick_left() -> None:
    # Two cards left, the least a pick takes, and the seat picked them both: nothing to change.
    state = new_game(HANDS)
    state.hands[0] = state.hands[0][:2]
    state.picks[0] = list(state.hands[0])
    assert has_pick_option(state, 0) is False and pick_options(state, 0) == []
    assert not GAME.render_private(state, 0).selects
    state.picks[0] = None
    assert has_pick_option(state, 0) is True
    assert len(GAME.render_private(state, 0).selects) == 1
