"""Every rule of BiggieBills$$$, with a rigged rng and tables arranged card by card."""

from __future__ import annotations

from typing import Any

import pytest

from core.engine import SYSTEM, Ending, Timeout
from core.games.biggiebills import GAME
from core.games.biggiebills.actions import (
    Accept,
    Block,
    Challenge,
    Done,
    Exchange,
    PlayGrowth,
    ReturnCards,
    Skip,
)
from core.games.biggiebills.cards import (
    ACQUIRE,
    BLOCK,
    FLEX_12,
    FLEX_34,
    card_name,
    challenge_id,
    growth,
)
from core.games.biggiebills.events import GrowthPlayed
from core.games.biggiebills.state import BiggieBillsOptions, BiggieBillsState
from tests.games.biggiebills_support import (
    STAGES_1_TO_3,
    RiggedRandom,
    act,
    arrange,
    challenge_stands,
    check_cards,
    kinds,
    new_game,
    of_kind,
    of_type,
    play_to,
    public_text,
    ready_to_acquire,
    refused,
    timeout,
)

VM = "vendor_management"
BP = "business_plan"
SF = "seed_funding"
PL = "product_launch"
IPO = "initial_public_offering"
GB = "global_brand"


def vm() -> int:
    return growth(VM).cost


# --- setup -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("teams", "growth_cards", "challenge_cards", "bonus_cards"),
    [(3, 72, 48, 48), (4, 72, 48, 48), (5, 144, 96, 96), (8, 144, 96, 96)],
)
def test_setup_deals_and_copies_by_team_count(
    teams: int, growth_cards: int, challenge_cards: int, bonus_cards: int
) -> None:
    state = new_game(teams)
    assert state.cash == [200] * teams
    assert [len(h) for h in state.growth] == [6] * teams
    assert [len(h) for h in state.challenges] == [4] * teams
    assert state.bonus == [[]] * teams  # bonus cards are earned, never dealt
    assert len(state.growth_deck) + 6 * teams == growth_cards
    assert len(state.challenge_deck) + 4 * teams == challenge_cards
    assert len(state.bonus_deck) == bonus_cards
    assert state.bonus_deck.count(FLEX_12) == state.bonus_deck.count(FLEX_34) == bonus_cards // 4
    assert state.bonus_deck.count(BLOCK) == bonus_cards // 2
    assert state.cycle == 1 and state.industry is None  # no Industry card in the first cycle
    assert state.deciding == "turn" and state.turn_seat == 0
    assert state.deadline is not None and state.deadline.seconds == 180
    check_cards(state)


def test_every_cycle_has_a_fresh_random_order_and_two_turns_per_team() -> None:
    state = new_game(3, orders=[[2, 0, 1]])
    seen = []
    for _ in range(6):
        seen.append(state.turn_seat)
        state = play_to(state, state.turn_seat or 0)
        work = state.model_copy(deep=True)
        work.acted = True
        rng = RiggedRandom(orders=[[1, 2, 0]])
        state, _ = act(work, state.turn_seat or 0, Done(), rng)
    assert seen == [2, 0, 1, 2, 0, 1]
    assert state.cycle == 2 and state.order == [1, 2, 0] and state.turn_seat == 1


# --- growth cards ------------------------------------------------------------------------------


def test_playing_a_growth_card_pays_its_cost_and_draws_a_replacement() -> None:
    state = new_game()
    top = state.growth_deck[0]
    state, events = act(state, 0, PlayGrowth(card=VM))
    assert state.cash[0] == 200 - vm()
    assert VM not in state.growth[0][:5] and state.growth[0][-1] == top
    assert len(state.growth[0]) == 6
    assert [a.card for a in state.active] == [VM]
    assert "Red plays Vendor Management" in public_text(events)
    assert of_type(events, GrowthPlayed)[0].moves == [(0, -1, vm())]
    # one play a turn: the turn passed to Blue
    assert state.turn_seat == 1
    hand = of_kind(events, "hand")
    assert [e.audience.seat for e in hand] == [0]
    check_cards(state)


def test_the_game_starts_in_stage_1_and_a_stage_opens_after_one_below() -> None:
    state = arrange(new_game(), 0, growth=[PL, VM])
    refused(state, 0, PlayGrowth(card=PL), "Stage 2 is not open.*Stage 1")
    opened = arrange(state, 0, completed=[BP])
    after, _ = act(opened, 0, PlayGrowth(card=PL))
    assert after.active[0].card == PL
    # a higher stage never closes a lower one
    back = arrange(state, 0, completed=[BP, PL])
    after, _ = act(back, 0, PlayGrowth(card=VM))
    assert after.active[0].card == VM


def test_bad_growth_plays_are_refused_and_change_nothing() -> None:
    state = new_game()
    refused(state, 0, PlayGrowth(card=PL), "does not hold Product Launch")
    refused(state, 0, PlayGrowth(card="nonsense"), "not a Growth card")
    refused(state, 1, PlayGrowth(card=PL), "Red's turn, not yours")
    poor = arrange(state, 0, cash=vm())
    refused(poor, 0, PlayGrowth(card=VM), r"costs \$20M and your team has \$20M")
    done = arrange(state, 0, completed=[VM], growth=[VM, BP])
    refused(done, 0, PlayGrowth(card=VM), "already completed Vendor Management")
    refused(state, 0, PlayGrowth(card=VM, target=1), "Only Acquire a Competitor")
    refused(state, 7, PlayGrowth(card=VM), "seated team")


def test_card_completes_at_the_teams_next_turn_first_completer_gets_more() -> None:
    state = arrange(new_game(), 1, growth=[VM, PL])
    state, _ = act(state, 0, PlayGrowth(card=VM))
    state, _ = act(state, 1, PlayGrowth(card=VM))  # a second copy of the same card
    state = play_to(state, 0)  # turn 5: Red's second turn: its card completes
    assert state.completed[0] == [VM]
    assert state.cash[0] == 200 - vm() + growth(VM).first
    state, _ = act(state, 0, Skip())
    assert state.completed[1] == [VM]
    assert state.cash[1] == 200 - vm() + growth(VM).later
    check_cards(state)


def test_cards_still_active_complete_when_the_cycle_ends() -> None:
    state = new_game()
    while state.turn_index < 7:  # to the last turn of the cycle: Gold's second
        state = play_to(state, state.order[(state.turn_index + 1) % 4])
    assert state.turn_seat == 3
    state = arrange(state, 3, growth=[VM])
    state, events = act(state, 3, PlayGrowth(card=VM))
    assert state.cycle == 2 and state.active == []
    assert state.completed[3] == [VM]
    assert kinds(events).index("complete") < kinds(events).index("cycle_end")


def test_a_team_completes_each_card_once_and_duplicates_are_dead_until_exchanged() -> None:
    state = arrange(new_game(), 0, growth=[VM, VM], completed=[])
    state, _ = act(state, 0, PlayGrowth(card=VM))
    refused(play_to(state, 0), 0, PlayGrowth(card=VM), "already completed")


# --- challenges --------------------------------------------------------------------------------


def red_plays_vm(**options: Any) -> BiggieBillsState:
    """Red has Vendor Management active; Blue holds its Challenge card and is eligible."""
    state = new_game(**options)
    state, _ = act(state, 0, PlayGrowth(card=VM))
    return arrange(state, 1, challenges=[challenge_id(VM)], completed=[BP])


def test_challenge_transfers_the_penalty_and_the_card_fails() -> None:
    state = red_plays_vm()
    red = state.cash[0]
    state, events = challenge_stands(state, 1, Challenge(active=1, card=challenge_id(VM)))
    penalty = growth(VM).penalty
    assert state.cash[0] == red - penalty
    assert state.cash[1] == 200 + penalty
    assert state.active[0].challengers == [1]
    text = public_text(events)
    assert "Blue challenges Red's Vendor Management" in text and "stands" in text
    assert len(state.challenges[1]) == 1  # it drew a replacement
    state = play_to(state, 0)
    assert state.completed[0] == [] and state.active == []
    assert state.cash[0] == red - penalty  # no payoff, the cost stays lost
    # the team may play the card again (it holds no copy now: give it one)
    again = arrange(state, 0, growth=[VM])
    again, _ = act(again, 0, PlayGrowth(card=VM))
    assert again.active[0].card == VM
    check_cards(again)


def test_first_challenger_must_be_eligible_later_challengers_are_exempt() -> None:
    state = red_plays_vm()
    state = arrange(state, 1, completed=[])
    refused(
        state,
        1,
        Challenge(active=1, card=challenge_id(VM)),
        "first to challenge Vendor Management.*completed a Stage 1",
    )
    eligible = arrange(state, 1, completed=[BP])
    state, _ = challenge_stands(eligible, 1, Challenge(active=1, card=challenge_id(VM)))
    state = arrange(state, 2, challenges=[challenge_id(VM)], completed=[])
    state, _ = challenge_stands(state, 2, Challenge(active=1, card=challenge_id(VM)))
    assert state.active[0].challengers == [1, 2]
    assert state.cash[2] == 200 + growth(VM).penalty


def test_bad_challenges_are_refused() -> None:
    state = red_plays_vm()
    refused(state, 1, Challenge(active=9, card=challenge_id(VM)), "no active Growth card #9")
    refused(state, 1, Challenge(active=1, card=challenge_id(BP)), "does not hold")
    wrong = arrange(state, 1, challenges=[challenge_id(BP)])
    refused(wrong, 1, Challenge(active=1, card=challenge_id(BP)), "does not match")
    refused(state, 1, Challenge(active=1, card=FLEX_12), "does not hold a Flexible")
    refused(state, 2, Challenge(active=1, card=challenge_id(VM)), "Blue's turn")


def test_a_team_cannot_challenge_its_own_card_or_twice() -> None:
    state = new_game()
    state = arrange(state, 0, challenges=[challenge_id(VM), challenge_id(VM)], completed=[BP])
    state = arrange(state, 0, growth=[VM, SF])
    # Red plays, then gets an extra play via a two-card Industry card to try its own card
    state.industry = "fast_track"
    state.plays_left = 2
    state, _ = act(state, 0, PlayGrowth(card=VM))
    refused(state, 0, Challenge(active=1, card=challenge_id(VM)), "its own Growth card")


def test_no_challenges_across_cycles() -> None:
    state = play_to(new_game(), 0)
    while state.turn_index < 7:
        state = play_to(state, state.order[(state.turn_index + 1) % 4])
    seat = state.turn_seat or 0
    state = arrange(state, seat, growth=[VM])
    state, _ = act(state, seat, PlayGrowth(card=VM))
    assert state.cycle == 2 and state.active == []
    other = state.turn_seat or 0
    state = arrange(state, other, challenges=[challenge_id(VM)], completed=[BP])
    refused(state, other, Challenge(active=1, card=challenge_id(VM)), "no active Growth card")


# --- block a challenge -------------------------------------------------------------------------


def test_block_window_waits_only_for_the_challenged_team() -> None:
    state = red_plays_vm(block_seconds=45)
    state = arrange(state, 0, bonus=[BLOCK])
    state, events = act(state, 1, Challenge(active=1, card=challenge_id(VM)))
    assert state.deciding == "block"
    assert GAME.waiting_for(state) == [0]
    assert set(GAME.legal_actions(state, 0)) == {Block(), Accept()}
    assert state.deadline is not None and state.deadline.seconds == 45
    assert "Red may block" in public_text(events)
    refused(state, 2, Block(), "Only Red, the challenged team")
    refused(state, 1, Accept(), "Only Red")
    refused(state, 1, PlayGrowth(card=PL), "Waiting for Red to block")


def test_the_window_opens_the_same_way_for_a_team_without_a_block() -> None:
    """Whether the challenged team holds a Block stays secret: the channel sees the same
    window, text and deadline; the team's own panel offers only Accept."""
    seen = []
    for bonus in ([BLOCK], [FLEX_34]):
        state = red_plays_vm(block_seconds=45)
        state = arrange(state, 0, bonus=bonus)
        state, events = act(state, 1, Challenge(active=1, card=challenge_id(VM)))
        assert state.deciding == "block" and GAME.waiting_for(state) == [0]
        seen.append((public_text(events), state.deadline, GAME.render_board(state)))
        if BLOCK not in bonus:
            assert GAME.legal_actions(state, 0) == [Accept()]
            assert "holds no Block" in GAME.render_private(state, 0).text
    assert seen[0] == seen[1]


def test_the_turn_flow_does_not_tell_whether_a_flexible_challenge_is_held() -> None:
    """After its last regular play a team that might hold a usable Flexible Challenge (it has
    Bonus cards and a card on the board could be one's target) is waited for, whatever its
    Bonus cards are; it ends the turn with Done. A team with no Bonus card moves on at once."""
    after = []
    for bonus in ([FLEX_12], [BLOCK]):
        state = red_plays_vm()
        state = arrange(state, 1, bonus=bonus, growth=[PL], completed=[BP])
        state = play_to(state, 1)
        state, events = act(state, 1, PlayGrowth(card=PL))
        after.append((state.turn_seat, public_text(events), GAME.waiting_for(state)))
    assert after[0] == after[1] and after[0][0] == 1
    bare = arrange(red_plays_vm(), 1, bonus=[], growth=[PL], completed=[BP])
    bare = play_to(bare, 1)
    bare, _ = act(bare, 1, PlayGrowth(card=PL))
    assert bare.turn_seat != 1


def test_block_makes_the_challenger_pay_and_the_card_stays() -> None:
    state = arrange(red_plays_vm(), 0, bonus=[BLOCK])
    state, _ = act(state, 1, Challenge(active=1, card=challenge_id(VM)))
    red = state.cash[0]
    state, events = act(state, 0, Block())
    penalty = growth(VM).penalty
    assert state.cash[0] == red + penalty and state.cash[1] == 200 - penalty
    assert state.bonus[0] == [] and state.active[0].blocked == [1]
    assert not state.active[0].challenged
    assert "Red blocks Blue's challenge" in public_text(events)
    assert state.deciding == "turn" and state.turn_seat == 2  # Blue's one play was used
    state = play_to(state, 0)
    assert state.completed[0] == [VM]


@pytest.mark.parametrize("how", ["accept", "timeout"])
def test_accept_or_timeout_lets_the_challenge_stand(how: str) -> None:
    state = arrange(red_plays_vm(), 0, bonus=[BLOCK])
    state, _ = act(state, 1, Challenge(active=1, card=challenge_id(VM)))
    state, _ = act(state, 0, Accept()) if how == "accept" else timeout(state)
    assert state.active[0].challengers == [1]
    assert state.bonus[0] == [BLOCK]
    assert state.cash[1] == 200 + growth(VM).penalty


def test_block_when_not_challenged_is_refused() -> None:
    state = arrange(new_game(), 0, bonus=[BLOCK])
    refused(state, 0, Block(), "No challenge is waiting")
    refused(state, 0, Accept(), "No challenge is waiting")


# --- exchange, skip, done, time ----------------------------------------------------------------


def test_exchange_two_cards_for_5m_is_the_whole_turn() -> None:
    state = new_game()
    deck_top = state.growth_deck[0]
    state, events = act(state, 0, Exchange(cards=[VM, challenge_id(VM)]))
    assert state.cash[0] == 195
    assert len(state.growth[0]) == 6 and len(state.challenges[0]) == 4
    assert deck_top in state.growth[0] and state.growth_deck[-1] == VM
    assert state.challenge_deck[-1] == challenge_id(VM)
    assert "Vendor Management" not in public_text(events)  # returned cards stay secret
    assert state.turn_seat == 1
    check_cards(state)


def test_exchange_refusals() -> None:
    state = new_game()
    refused(state, 0, Exchange(cards=[VM]), "exactly two")
    refused(state, 0, Exchange(cards=[VM, VM]), "two copies of Vendor Management")
    refused(state, 0, Exchange(cards=[PL, VM]), "does not hold Product Launch")
    refused(arrange(state, 0, cash=5), 0, Exchange(cards=[VM, BP]), r"costs \$5M")


def test_skip_costs_the_fine_and_timeout_skips() -> None:
    state, events = act(new_game(), 0, Skip())
    assert state.cash[0] == 190 and "skips its turn and pays a $10M fine" in public_text(events)
    state, events = timeout(state)
    assert state.cash[1] == 190 and state.turn_seat == 2
    assert "Time is up" in public_text(events)


def test_timeout_after_acting_ends_the_turn_without_a_fine() -> None:
    state = arrange(new_game(), 0, bonus=[FLEX_12], completed=[BP])
    state = play_to(state, 1)
    state = arrange(state, 1, growth=[VM])  # Red has nothing active: give Blue a target
    state, _ = act(state, 1, PlayGrowth(card=VM))
    state = play_to(state, 0)
    assert state.active  # Blue's card is still active at Red's second turn
    state, _ = challenge_stands(state, 0, Challenge(active=state.active[0].id, card=FLEX_12))
    assert state.turn_seat == 0 and state.acted
    cash = state.cash[0]
    state, _ = timeout(state)
    assert state.cash[0] == cash and state.turn_seat != 0


def test_skip_and_done_refusals_and_stale_timeouts() -> None:
    state = new_game()
    refused(state, 0, Done(), "has not acted yet")
    refused(state, 0, Timeout(key=state.deadline.key if state.deadline else ""), "game clock")
    refused(state, SYSTEM, Timeout(key="old"), "already passed")
    refused(state, 0, ReturnCards(cards=[VM]), "No team is returning")
    refused(state, 0, {"type": "fly"}, "not an action")


# --- bonus cards -------------------------------------------------------------------------------


def test_flexible_challenge_is_played_in_addition_to_a_regular_play() -> None:
    state = red_plays_vm()
    state = arrange(state, 1, bonus=[FLEX_12], growth=[VM], completed=[BP])
    state, events = challenge_stands(state, 1, Challenge(active=1, card=FLEX_12))
    assert state.turn_seat == 1 and state.flex_left == 0 and state.plays_left == 1
    assert "Flexible Challenge (stages 1-2)" in public_text(events)
    state, _ = act(state, 1, PlayGrowth(card=VM))
    assert state.turn_seat == 2
    assert state.bonus_discard == [FLEX_12]


def test_flexible_challenge_covers_only_its_stages() -> None:
    state = red_plays_vm()
    state = arrange(state, 1, bonus=[FLEX_34], completed=[BP])
    refused(state, 1, Challenge(active=1, card=FLEX_34), "cannot challenge a Stage 1 card")


def test_two_card_play_when_the_industry_card_allows() -> None:
    state = arrange(new_game(), 0, growth=[VM, BP, SF])
    state.industry = "fast_track"
    state.plays_left = state.flex_left = 2
    state, _ = act(state, 0, PlayGrowth(card=VM))
    assert state.turn_seat == 0 and state.plays_left == 1
    assert Done() in GAME.legal_actions(state, 0) and Skip() not in GAME.legal_actions(state, 0)
    state, _ = act(state, 0, PlayGrowth(card=BP))
    assert state.turn_seat == 1 and [a.card for a in state.active] == [VM, BP]
    refused(arrange(new_game(), 0, growth=[VM]), 1, Done(), "Red's turn")


def test_bonus_cards_are_earned_for_three_and_four_completions_in_a_stage() -> None:
    state = arrange(new_game(), 0, completed=[BP, SF], growth=[VM, "office_lease"])
    state, _ = act(state, 0, PlayGrowth(card=VM))
    state = play_to(state, 0)
    assert state.bonus[0] == ["flex_12"] and state.bonus_earned[0] == [1, 0, 0, 0]
    state, _ = act(state, 0, PlayGrowth(card="office_lease"))
    state = play_to(state, 0)
    assert len(state.bonus[0]) == 2 and state.bonus_earned[0] == [2, 0, 0, 0]
    fifth = arrange(state, 0, growth=["brand_identity"])
    fifth, _ = act(fifth, 0, PlayGrowth(card="brand_identity"))
    fifth = play_to(fifth, 0)
    assert len(fifth.bonus[0]) == 2  # at most two a stage
    check_cards(fifth)


def test_at_most_eight_bonus_cards_a_game() -> None:
    state = arrange(new_game(), 0, completed=[PL, "sales_team"], growth=["supply_chain"])
    state = arrange(state, 0, completed=[*state.completed[0], BP])
    state.bonus_earned[0] = [2, 2, 2, 2]
    state, _ = act(state, 0, PlayGrowth(card="supply_chain"))
    state = play_to(state, 0)
    assert state.bonus[0] == []


# --- acquisition -------------------------------------------------------------------------------


def test_acquire_needs_the_conditions() -> None:
    refused(ready_to_acquire(), 0, PlayGrowth(card=ACQUIRE), "Name the team")
    refused(ready_to_acquire(), 0, PlayGrowth(card=ACQUIRE, target=0), "another team")
    poor = ready_to_acquire(cash=374, target_cash=500)
    refused(poor, 0, PlayGrowth(card=ACQUIRE, target=1), "75%")
    state = arrange(ready_to_acquire(), 0, completed=[VM, "patent_portfolio"])
    refused(state, 0, PlayGrowth(card=ACQUIRE, target=1), "completed 1 of stage 1")
    state = arrange(ready_to_acquire(), 0, completed=[VM, BP, SF, PL, "sales_team"])
    refused(state, 0, PlayGrowth(card=ACQUIRE, target=1), "Stage 4 is not open")
    ok, _ = act(ready_to_acquire(cash=375, target_cash=500), 0, PlayGrowth(card=ACQUIRE, target=1))
    assert ok.active[0].target == 1


def test_acquiring_needs_three_completed_cards_in_each_of_stages_1_to_3() -> None:
    """Table decision: a stage counts as completed with three of its cards (the document's
    own milestone, the one that earns a Bonus card); one card of stage 3 opens stage 4."""
    two_of_stage_2 = [c for c in STAGES_1_TO_3 if c != "supply_chain"]
    state = arrange(ready_to_acquire(), 0, completed=two_of_stage_2)
    refused(
        state,
        0,
        PlayGrowth(card=ACQUIRE, target=1),
        r"completed stages 1, 2 and 3 \(3 Growth cards of each\); it has completed 2 of stage 2",
    )
    after, _ = act(state, 0, PlayGrowth(card=GB))  # stage 4 itself is open with one card
    assert after.active[0].card == GB
    ok, _ = act(ready_to_acquire(), 0, PlayGrowth(card=ACQUIRE, target=1))
    assert ok.active[0].card == ACQUIRE


def test_successful_acquisition_pays_takes_the_cards_and_lets_the_acquirer_choose() -> None:
    state = ready_to_acquire()
    state, events = act(state, 0, PlayGrowth(card=ACQUIRE, target=1))
    assert "against Blue" in public_text(events)
    state = arrange(state, 1, bonus=[FLEX_34])
    state = play_to(state, 0)
    assert state.deciding == "returns" and GAME.waiting_for(state) == [0]
    assert not state.alive[1] and state.out[1] == "acquired by Red"
    paid = growth(ACQUIRE).first + 500 // 4
    assert state.cash[0] == 400 - growth(ACQUIRE).cost + paid
    assert len(state.growth[0]) == 12 and len(state.challenges[0]) == 8
    assert state.bonus[0] == [FLEX_34]  # bonus cards are all kept
    legal = GAME.legal_actions(state, 0)
    # Every way to give back the 6 extra Growth cards, or the 4 extra Challenge cards, at once.
    assert legal and all(isinstance(a, ReturnCards) for a in legal)
    assert {len(a.cards) for a in legal if isinstance(a, ReturnCards)} == {6, 4}
    refused(state, 2, ReturnCards(cards=[PL]), "Only Red returns")
    panel = GAME.render_private(state, 0)  # two menus: the press of each returns a whole kind
    assert not panel.buttons
    assert [(m.placeholder, m.min_values, m.max_values, len(m.options)) for m in panel.selects] == [
        ("Return 6 Growth cards", 6, 6, 12),
        ("Return 4 Challenge cards", 4, 4, 8),
    ]
    growth_hand = list(state.growth[0])
    refused(state, 0, ReturnCards(cards=growth_hand[:5]), "Return exactly 6 Growth cards and 4")
    refused(state, 0, ReturnCards(cards=["office_lease"] * 13), "does not hold")
    state, events = act(state, 0, ReturnCards(cards=growth_hand[:6]))
    assert "Red returns 6 cards to the moderator; 4 Challenge cards still to return." in (
        public_text(events)
    )
    assert state.deciding == "returns" and len(state.growth[0]) == 6
    assert not any(card_name(c) in public_text(events) for c in growth_hand)  # which stays secret
    state, events = act(state, 0, ReturnCards(cards=list(state.challenges[0][:4])))
    assert "keeps 6 Growth and 4 Challenge cards" in public_text(events)
    assert len(state.growth[0]) == 6 and len(state.challenges[0]) == 4
    assert state.deciding == "turn" and state.turn_seat == 0
    assert 1 not in state.order[state.turn_index :] or not state.alive[1]
    check_cards(state)


def test_acquisition_can_be_challenged_and_a_block_seals_it() -> None:
    state, _ = act(ready_to_acquire(), 0, PlayGrowth(card=ACQUIRE, target=1))
    state = arrange(state, 0, bonus=[BLOCK])
    card = challenge_id(ACQUIRE)
    state = arrange(state, 1, challenges=[card], completed=[IPO])
    state, _ = act(state, 1, Challenge(active=1, card=card))
    state, events = act(state, 0, Block())
    assert state.active[0].sealed and "cannot be challenged again" in public_text(events)
    state = arrange(play_to(state, 2), 2, challenges=[card], completed=[IPO])
    refused(state, 2, Challenge(active=1, card=card), "cannot be challenged again")


def test_a_challenged_acquisition_fails() -> None:
    state, _ = act(ready_to_acquire(), 0, PlayGrowth(card=ACQUIRE, target=1))
    card = challenge_id(ACQUIRE)
    state = arrange(state, 1, challenges=[card], completed=[IPO])
    state, _ = challenge_stands(state, 1, Challenge(active=1, card=card))
    state = play_to(state, 0)
    assert state.alive[1] and state.deciding == "turn"


def test_returns_timeout_keeps_the_best_cards() -> None:
    state, _ = act(ready_to_acquire(), 0, PlayGrowth(card=ACQUIRE, target=1))
    state = play_to(state, 0)
    assert state.deciding == "returns"
    state, _ = timeout(state)
    assert len(state.growth[0]) == 6 and len(state.challenges[0]) == 4
    assert state.deciding == "turn"


# --- money, bankruptcy, the end ----------------------------------------------------------------


def test_bankruptcy_at_zero_takes_a_team_out() -> None:
    state = red_plays_vm()
    state = arrange(state, 0, cash=growth(VM).penalty)
    state, events = challenge_stands(state, 1, Challenge(active=1, card=challenge_id(VM)))
    assert not state.alive[0] and state.out[0] == "bankrupt"
    assert "Red is bankrupt" in public_text(events)
    assert state.growth[0] == [] and state.active == []
    check_cards(state)


def test_reaching_the_target_wins() -> None:
    state = arrange(new_game(target=300), 0, cash=290)
    state = arrange(state, 0, growth=[VM])
    state, _ = act(state, 0, PlayGrowth(card=VM))
    state = play_to(state, 0)
    assert state.outcome is not None
    assert state.outcome.winners == [0] and state.outcome.ended == "reached the target"
    assert state.outcome.rounds == 1
    assert GAME.legal_actions(state, 1) == []


def test_two_teams_at_the_target_together_most_money_then_most_cards() -> None:
    state = new_game(target=500)
    state = arrange(state, 0, cash=495, completed=[BP])
    state = arrange(state, 1, cash=495, completed=[SF, "office_lease"])
    # at the end of the cycle the next Industry card pays $5M per completed card to everyone
    state.industry_deck = ["dividend_season"]
    while state.cycle == 1:
        turn = state.turn_seat or 0
        state = state.model_copy(deep=True)
        state.acted = True
        state, _ = act(state, turn, Done())
    assert state.outcome is not None
    assert state.outcome.ended == "reached the target together"
    assert state.outcome.winners == [1]  # $505M against $500M
    assert state.cash[:2] == [500, 505]


def test_last_team_standing_wins() -> None:
    state = red_plays_vm()
    state = arrange(state, 0, cash=growth(VM).penalty)
    state.alive[2] = state.alive[3] = False  # already out
    state.out[2] = state.out[3] = "bankrupt"
    state.eliminated = [2, 3]
    state, _ = challenge_stands(state, 1, Challenge(active=1, card=challenge_id(VM)))
    assert state.outcome is not None and state.outcome.ended is Ending.LAST_STANDING
    assert state.outcome.winners == [1]


def test_time_limit_most_money_then_most_completed_cards() -> None:
    state = new_game(3, cycles=1)
    state = arrange(state, 0, completed=[BP])
    state = arrange(state, 2, completed=[VM, SF])
    while not state.finished:
        state, _ = act(state, state.turn_seat or 0, Skip())
    assert state.outcome is not None
    assert state.outcome.ended == "time limit" and state.outcome.rounds == 1
    assert state.outcome.winners == [2]
    assert [s.rank for s in state.outcome.standings] == [1, 2, 3]


# --- industry rules ----------------------------------------------------------------------------


def in_cycle_two(card: str, **options: Any) -> BiggieBillsState:
    state = new_game(**options)
    state.industry_deck = [card]
    while state.cycle == 1:
        turn = state.turn_seat or 0
        state = state.model_copy(deep=True)
        state.acted = True
        state, _ = act(state, turn, Done())
    assert state.industry == card
    return state


def test_an_industry_card_is_drawn_every_cycle_but_the_first() -> None:
    state = new_game()
    state.industry_deck = ["boom"]
    while state.cycle == 1:
        state = state.model_copy(deep=True)
        state.acted = True
        state, events = act(state, state.turn_seat or 0, Done())
    assert state.industry == "boom"
    assert "Industry Rules: Economic Boom" in public_text(events)
    while state.cycle == 2:
        state = state.model_copy(deep=True)
        state.acted = True
        state, events = act(state, state.turn_seat or 0, Done())
    assert state.industry is not None and len(state.industry_deck) == 23  # refilled


def test_industry_cost_payoff_and_penalty_percentages() -> None:
    state = in_cycle_two("cheap_credit")
    seat = state.turn_seat or 0
    state = arrange(state, seat, growth=[VM])
    cash = state.cash[seat]
    state, _ = act(state, seat, PlayGrowth(card=VM))
    assert state.cash[seat] == cash - 15  # 75% of 20
    boom = in_cycle_two("boom")
    seat = boom.turn_seat or 0
    boom = arrange(boom, seat, growth=[VM])
    boom, _ = act(boom, seat, PlayGrowth(card=VM))
    boom = play_to(boom, seat)
    assert boom.completed[seat] == [VM]
    assert (
        boom.cash[seat] == 200 - 20 + (growth(VM).first * 125 + 50) // 100
    )  # the first payoff, 125%
    wave = in_cycle_two("litigation_wave")
    first = wave.turn_seat or 0
    second = wave.order[1]
    wave = arrange(wave, first, growth=[VM])
    wave, _ = act(wave, first, PlayGrowth(card=VM))
    wave = arrange(wave, second, challenges=[challenge_id(VM)], completed=[BP])
    wave, _ = challenge_stands(
        wave, second, Challenge(active=wave.active[0].id, card=challenge_id(VM))
    )
    assert wave.cash[second] == 200 + 2 * growth(VM).penalty


def test_industry_fines_exchange_prices_and_freeze() -> None:
    tax = in_cycle_two("idle_tax")
    seat = tax.turn_seat or 0
    after, _ = act(tax, seat, Skip())
    assert after.cash[seat] == 170
    hand = tax.growth[seat][:2]
    after, _ = act(tax, seat, Exchange(cards=hand))
    assert after.cash[seat] == 185
    free = in_cycle_two("open_market")
    seat = free.turn_seat or 0
    after, _ = act(free, seat, Skip())
    assert after.cash[seat] == 200
    frozen = in_cycle_two("regulatory_freeze")
    first, second = frozen.order[0], frozen.order[1]
    frozen = arrange(frozen, first, growth=[VM])
    frozen, _ = act(frozen, first, PlayGrowth(card=VM))
    frozen = arrange(frozen, second, challenges=[challenge_id(VM)], completed=[BP])
    refused(frozen, second, Challenge(active=1, card=challenge_id(VM)), "no challenges")


def test_industry_rewards_and_charges_based_on_past_actions() -> None:
    state = new_game()
    state = arrange(state, 0, completed=[VM, BP, IPO])
    state.challenges_played = [0, 3, 0, 0]
    state.industry_deck = ["windfall_tax", "compliance_audit"]
    while state.cycle == 1:
        state = state.model_copy(deep=True)
        state.acted = True
        state, _ = act(state, state.turn_seat or 0, Done())
    assert state.industry == "windfall_tax"
    assert state.cash[0] == 175  # -25 per completed stage 4 card
    while state.cycle == 2:
        state = state.model_copy(deep=True)
        state.acted = True
        state, _ = act(state, state.turn_seat or 0, Done())
    assert state.industry == "compliance_audit"
    assert state.cash[1] == 170  # -10 per challenge played


# --- options and lobby -------------------------------------------------------------------------


def test_options_and_lobby_team_sizes() -> None:
    opts = BiggieBillsOptions()
    assert (opts.target, opts.cycles, opts.turn_seconds, opts.block_seconds) == (1000, 30, 180, 60)
    assert opts.minutes == 0
    names = ["Red", "Blue", "Green", "Gold"]
    assert GAME.lobby_problem(opts, [1, 0, 0, 2], names) is None
    three = BiggieBillsOptions(min_team_size=3)
    problem = GAME.lobby_problem(three, [3, 2, 0], names[:3])
    assert problem is not None and "at least 3" in problem and "Blue has 2 people" in problem
    assert GAME.lobby_problem(three, [3, 0, 0, 4], names) is None
    problem = GAME.lobby_problem(opts, [7, 1, 1], names[:3])
    assert problem == "A team has at most 6 people: Red has 7."
    assert GAME.teams is True
    state = new_game(turn_seconds=0)
    assert state.deadline is None
