"""How BiggieBills$$$ games end and what they are played for: the time limits (cycles and
minutes of clock time), targets the tables can reach, a target changed by a vote of every team,
the last turn of a cycle, and the words of the end."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.commands.grammar import CommandError, parse_options
from core.engine import SYSTEM, Ending, Timeout
from core.games.biggiebills import GAME
from core.games.biggiebills.actions import (
    Challenge,
    Done,
    PlayGrowth,
    ProposeTarget,
    Skip,
    Vote,
)
from core.games.biggiebills.cards import (
    ACQUIRE,
    all_growth,
    catalogue,
    challenge_id,
    growth,
    target_percent,
)
from core.games.biggiebills.flow import CLOCK_KEY
from core.games.biggiebills.state import (
    DEFAULT_CYCLES,
    MAX_CYCLES,
    MAX_LIMIT,
    MAX_TARGET,
    MIN_TARGET,
    START_CASH,
    BiggieBillsOptions,
    BiggieBillsState,
)
from tests.games.biggiebills_support import (
    act,
    arrange,
    challenge_stands,
    kinds,
    new_game,
    of_kind,
    play_to,
    public_text,
    ready_to_acquire,
    refused,
)

VM = "vendor_management"
BP = "business_plan"
PL = "product_launch"


def pass_turn(state: BiggieBillsState) -> BiggieBillsState:
    """The team on turn ends it for free (arranging a table: its events are not under test)."""
    work = state.model_copy(deep=True)
    work.acted = True
    after, _ = act(work, work.turn_seat or 0, Done())
    return after


def to_last_turn(state: BiggieBillsState) -> BiggieBillsState:
    while state.turn_index < 2 * len(state.order) - 1:
        state = pass_turn(state)
    return state


# --- the time limit in cycles ------------------------------------------------------------------


def test_every_game_has_a_time_limit_and_it_comes_before_the_safety_net() -> None:
    assert BiggieBillsOptions().cycles == DEFAULT_CYCLES == 30
    assert MAX_LIMIT < MAX_CYCLES  # the hidden 60-cycle net can never be reached
    with pytest.raises(CommandError, match="`cycles` takes a whole number from 0 to 50"):
        parse_options(GAME, "cycles=51")
    # 0, the old "no limit" (games saved with it load and play on), asks for the longest limit
    assert BiggieBillsOptions(cycles=0).cycle_limit == MAX_LIMIT
    assert BiggieBillsOptions().cycle_limit == DEFAULT_CYCLES
    state = new_game(3, cycles=2)
    while not state.finished:
        state, _ = act(state, state.turn_seat or 0, Skip())
    assert state.outcome is not None and state.outcome.ended is Ending.TIME_LIMIT
    assert state.cycle == 2 and "time is called after 2 cycles" in state.outcome.summary
    assert GAME.tallies(state)["capped_pct"] == 0.0 and GAME.tallies(state)["time_limit_pct"] == 1


def test_the_winner_on_completed_cards_is_told_so() -> None:
    state = new_game(3, cycles=1)
    state = arrange(state, 0, completed=[BP], cash=300)
    state = arrange(state, 2, completed=[VM, "seed_funding"], cash=300)
    state.industry_deck = ["boom"]
    while not state.finished:
        state = pass_turn(state)
    assert state.outcome is not None and state.outcome.winners == [2]
    assert state.outcome.summary == (
        "Green wins with $300M, as much as Red, on completed Growth cards (2 against 1): time "
        "is called after 1 cycle."
    )
    tied = arrange(new_game(3, cycles=1), 0, completed=[BP], cash=300)
    tied = arrange(tied, 2, completed=[VM], cash=300)
    while not tied.finished:
        tied = pass_turn(tied)
    assert tied.outcome is not None and tied.outcome.winners == [0, 2]
    assert tied.outcome.summary == (
        "Red and Green tie for first with $300M and 1 completed Growth card each: time is "
        "called after 1 cycle."
    )


# --- the time limit in minutes of clock time -------------------------------------------------


def clock_game(**options: Any) -> BiggieBillsState:
    return new_game(minutes=45, **options)


def test_minutes_work_beside_the_turn_deadlines() -> None:
    for words in ("minutes=45", "minutes=45 turn_seconds=0", "minutes=45 block_seconds=0"):
        options = parse_options(GAME, words)
        assert isinstance(options, BiggieBillsOptions) and options.minutes == 45
        assert GAME.lobby_problem(options, [1, 0, 0], ["Red", "Blue", "Green"]) is None
    with pytest.raises(CommandError, match="`minutes` takes a whole number from 0 to 1,440"):
        parse_options(GAME, "minutes=1441")


def test_the_game_clock_is_one_deadline_for_the_whole_game_beside_the_turns() -> None:
    state = clock_game()
    assert state.clock is not None and state.clock.key == CLOCK_KEY
    assert state.clock.seconds == 45 * 60
    assert state.deadline is not None and state.deadline.key != CLOCK_KEY  # the turn's own
    # the clock never changes, so the authority arms it once: 45 minutes after the start
    for _ in range(12):
        state, _ = act(state, state.turn_seat or 0, Skip())
        assert state.clock is not None and state.clock.key == CLOCK_KEY
        assert state.deadline is not None and state.deadline.key.startswith("turn@")
    refused(state, 0, Timeout(key=CLOCK_KEY), "game clock")


def test_when_the_clock_runs_out_the_cycle_ends_and_the_richest_team_wins() -> None:
    state = arrange(clock_game(), 0, growth=[VM])
    state, _ = act(state, 0, PlayGrowth(card=VM))
    state = arrange(state, 2, cash=250)
    state, events = act(state, SYSTEM, Timeout(key=CLOCK_KEY))
    assert "Time is up: 45 minutes have passed, so Business Cycle 1 ends now." in public_text(
        events
    )
    assert state.completed[0] == [VM]  # the card in play completes, as at any cycle's end
    assert kinds(events).index("complete") < kinds(events).index("game_over")
    assert state.outcome is not None and state.outcome.ended is Ending.TIME_LIMIT
    assert state.outcome.winners == [2]
    assert "when time is called after 45 minutes" in state.outcome.summary
    assert GAME.tallies(state)["capped_pct"] == 0.0


def test_a_challenge_waiting_for_its_answer_stands_when_time_is_up() -> None:
    state = clock_game()
    state, _ = act(state, 0, PlayGrowth(card=VM))
    state = arrange(state, 1, challenges=[challenge_id(VM)], completed=[BP])
    state, _ = act(state, 1, Challenge(active=1, card=challenge_id(VM)))
    assert state.deciding == "block"
    red = state.cash[0]
    state, events = act(state, SYSTEM, Timeout(key=CLOCK_KEY))
    assert "Time is up: no block." in public_text(events)
    assert state.cash[0] == red - growth(VM).penalty and state.completed[0] == []
    assert state.finished


# --- targets the tables can reach --------------------------------------------------------------


def test_a_target_outside_the_tables_reach_is_refused_at_start() -> None:
    for words in (f"target={MAX_TARGET + 1}", f"target={MIN_TARGET - 1}", "target=200"):
        with pytest.raises(CommandError, match="`target` takes a whole number from 300 to 10,000"):
            parse_options(GAME, words)
    assert parse_options(GAME, "target=2000") == BiggieBillsOptions(target=2000)


def test_the_default_target_can_be_reached_by_a_team_that_is_never_first() -> None:
    growth_only = START_CASH + sum(g.later - g.cost for g in all_growth())
    assert growth_only >= BiggieBillsOptions().target + 150
    assert all(g.first > g.later for g in all_growth())  # Acquire a Competitor included


def test_every_allowed_target_can_be_reached_by_a_team_never_first() -> None:
    for target in range(MIN_TARGET, MAX_TARGET + 1):
        percent = target_percent(target)
        later = START_CASH + sum((g.later * percent + 50) // 100 - g.cost for g in all_growth())
        assert later >= target + 100, target


@pytest.mark.parametrize(("target", "percent"), [(1000, 100), (1500, 120), (2000, 140)])
def test_payoffs_grow_with_a_target_above_a_billion(target: int, percent: int) -> None:
    """Above $1B every payoff grows by 1% for each $25M of target, so that every allowed
    target can be reached by growth."""
    assert target_percent(target) == percent
    state = arrange(new_game(target=target), 0, growth=[VM])
    state, _ = act(state, 0, PlayGrowth(card=VM))
    state = play_to(state, 0)
    assert state.cash[0] == START_CASH - growth(VM).cost + (growth(VM).first * percent + 50) // 100
    assert target_percent(MAX_TARGET) == 460
    table = catalogue().target
    assert (table.printed, table.step) == (1000, 25)


def test_every_target_allowed_ends_by_a_rule_of_the_page() -> None:
    from testkit.conformance import play_random

    for seed, target in enumerate((MIN_TARGET, 2000, MAX_TARGET)):
        options = BiggieBillsOptions(target=target)
        run = play_random(GAME, 4, options, seed, bots_only=True, generic=False)
        state = run.state
        assert isinstance(state, BiggieBillsState) and state.outcome is not None
        assert state.cycle <= DEFAULT_CYCLES and GAME.tallies(state)["capped_pct"] == 0.0


# --- a new target, agreed by every team --------------------------------------------------------


def proposed(target: int = 2000, **options: Any) -> BiggieBillsState:
    state, events = act(new_game(**options), 0, ProposeTarget(target=target))
    assert "Red proposes a new target of $2B" in public_text(events) or target != 2000
    return state


def test_a_team_proposes_a_target_on_its_turn_without_using_it() -> None:
    state = proposed()
    assert state.vote is not None and state.vote.agreed == [0]
    assert state.turn_seat == 0 and not state.acted and state.plays_left == 1
    assert state.target == 1000  # nothing changes until every team agrees
    assert {GAME.legal_actions(state, s)[-1] for s in (1, 2, 3)} == {Vote(agree=False)}
    # The game waits for Red's turn; the vote runs beside it, answered by the others.
    assert GAME.waiting_for(state) == [0]
    assert GAME.answering(state) == [1, 2, 3] and GAME.actors(state) == [0, 1, 2, 3]
    state, _ = act(state, 0, PlayGrowth(card=VM))  # the turn goes on
    assert state.turn_seat == 1 and GAME.waiting_for(state) == [1]


def test_proposals_that_are_refused() -> None:
    state = new_game()
    refused(state, 1, ProposeTarget(target=2000), "on its own turn")
    refused(state, 0, ProposeTarget(target=1000), "is \\$1B already")
    refused(state, 0, ProposeTarget(target=MAX_TARGET + 1), "from \\$300M to \\$10B")
    rich = arrange(state, 2, cash=700)
    refused(rich, 0, ProposeTarget(target=600), "above every team's cash: Green has \\$700M")
    open_vote = proposed()
    refused(open_vote, 0, ProposeTarget(target=3000), "vote on a target of \\$2B is open")
    state, _ = act(open_vote, 1, Vote(agree=False))
    refused(state, 0, ProposeTarget(target=3000), "proposed a target this cycle already")
    refused(state, 1, Vote(agree=True), "No new target is being voted on")


def test_the_target_changes_when_every_team_still_in_the_game_agrees() -> None:
    state = proposed()
    state, events = act(state, 1, Vote(agree=True))
    assert "Blue agrees to a target of $2B (2 of 4 teams)." in public_text(events)
    refused(state, 1, Vote(agree=True), "agreed to a target of \\$2B already")
    state.alive[3], state.out[3] = False, "bankrupt"  # a team that is out has no say
    state.eliminated = [3]
    state, events = act(state, 2, Vote(agree=True))
    assert "Every team agrees: the target is now $2B (it was $1B)." in public_text(events)
    assert "Payoffs are now 140% of the printed ones." in public_text(events)
    assert state.target == 2000 and state.vote is None and state.options.target == 1000
    assert GAME.view(state, None).target == 2000
    assert "target $2B · payoffs 140%" in GAME.render_board(state).text


def test_one_refusal_or_the_end_of_the_cycle_ends_the_vote() -> None:
    state = proposed()
    state, events = act(state, 2, Vote(agree=False))
    assert "Green refuses a target of $2B: the target stays $1B." in public_text(events)
    assert state.vote is None and state.target == 1000
    lapsed = proposed()
    for seat in (1, 2):
        lapsed, _ = act(lapsed, seat, Vote(agree=True))
    last: list[Any] = []
    while lapsed.cycle == 1:
        work = lapsed.model_copy(deep=True)
        work.acted = True
        lapsed, last = act(work, work.turn_seat or 0, Done())
    assert "The vote on a target of $2B lapses with the cycle" in public_text(last)
    assert lapsed.vote is None and lapsed.target == 1000


def test_a_lower_target_already_reached_when_agreed_ends_the_game() -> None:
    state, _ = act(arrange(new_game(), 1, cash=600), 0, ProposeTarget(target=700))
    state = arrange(state, 1, cash=750)  # Blue grows past it while the vote runs
    for seat in (1, 2):
        state, _ = act(state, seat, Vote(agree=True))
    state, events = act(state, 3, Vote(agree=True))
    assert state.outcome is not None and state.outcome.ended is Ending.TARGET
    assert state.outcome.winners == [1] and "reached the $700M target" in state.outcome.summary
    assert kinds(events)[-2:] == ["target", "game_over"]


def test_agreeing_keeps_the_other_teams_buttons_current() -> None:
    state = proposed()
    version = state.decision_version
    state, _ = act(state, 1, Vote(agree=True))
    assert state.decision_version == version  # Red's turn and Green's vote buttons stand
    state, _ = act(state, 2, Vote(agree=False))
    assert state.decision_version == state.version  # the vote is over: a new decision


def test_the_vote_on_the_prompt_and_typed() -> None:
    state = proposed()
    prompt = GAME.render_prompt(state)
    assert prompt is not None and prompt.title == "A new target of $2B?"
    labels = [b.label for b in prompt.all_buttons()]
    assert labels == ["Agree to the $2B target", "Refuse the $2B target"]
    assert all(b.seat is None for b in prompt.all_buttons())  # each presser votes for their team
    assert "Red proposes a new target of $2B (now $1B)." in prompt.text
    assert "Agreed: Red.\nWaiting for Blue, Green and Gold." in prompt.text
    assert prompt.closed_text is not None and "The vote is over." in prompt.closed_text
    # No team's panel has its buttons; a team still to answer is pointed to it.
    assert not any(isinstance(GAME.parse_action(b.action), Vote) for b in _panel_buttons(state))
    pointer = "agree or refuse on the vote in the game's thread"
    assert pointer in GAME.render_private(state, 1).text
    assert pointer not in GAME.render_private(state, 0).text  # Red proposed it: agreed
    assert "Vote on a new target of $2B" in GAME.render_board(state).text
    # The prompt and its buttons stand while the turns go on, until the vote is settled.
    opened = GAME.prompt_version(state)
    assert opened == state.version and {b.version for b in prompt.all_buttons()} == {opened}
    later, _ = act(state, 0, PlayGrowth(card=VM))
    assert later.decision_version > opened and GAME.prompt_version(later) == opened
    later, _ = act(later, 1, Vote(agree=True))
    after = GAME.render_prompt(later)
    assert after is not None and "Agreed: Red and Blue.\nWaiting for Green and Gold." in after.text
    later, _ = act(later, 2, Vote(agree=False))
    assert GAME.render_prompt(later) is None
    parse = GAME.parse_text
    assert parse(state, 1, "target", "yes") == Vote(agree=True)
    assert parse(state, 1, "target", "no") == Vote(agree=False)
    assert parse(state, 0, "target", "2000") == ProposeTarget(target=2000)
    assert parse(state, 0, "target", "$2.5B") == ProposeTarget(target=2500)
    assert parse(state, 0, "target", "1500m") == ProposeTarget(target=1500)
    from core.engine import IllegalAction

    with pytest.raises(IllegalAction, match="in \\$ millions"):
        parse(state, 0, "target", "lots")


def _panel_buttons(state: BiggieBillsState) -> list[Any]:
    return [b for s in state.seats for b in GAME.render_private(state, s).all_buttons()]


# --- the last turn of a cycle ------------------------------------------------------------------


def test_a_card_played_on_the_cycles_last_turn_completes_at_once_unchallenged() -> None:
    """The document: active cards complete when the cycle ends, and no challenge crosses
    cycles. So the last turn's card is safe; the random order of each cycle shares that luck."""
    state = to_last_turn(new_game())
    seat = state.turn_seat or 0
    state = arrange(state, seat, growth=[VM])
    state, events = act(state, seat, PlayGrowth(card=VM))
    play = of_kind(events, "play")[0]
    assert "This is the cycle's last turn: it completes as the cycle ends, unchallenged." in (
        play.text
    )
    assert state.cycle == 2 and state.completed[seat] == [VM] and state.active == []


def test_a_challenged_card_is_discarded() -> None:
    state, _ = act(new_game(), 0, PlayGrowth(card=VM))
    state = arrange(state, 1, challenges=[challenge_id(VM)], completed=[BP])
    state, _ = challenge_stands(state, 1, Challenge(active=1, card=challenge_id(VM)))
    state, events = act(play_to(state, 3), 3, Skip())
    failed = of_kind(events, "failed")[0]
    assert failed.text == (
        "Red's Vendor Management was challenged: the card is discarded with no payoff and its "
        "$20M is lost."
    )
    assert VM in state.growth_discard


def test_acquire_a_competitor_pays_its_first_completer_more() -> None:
    card = growth(ACQUIRE)
    assert card.first > card.later
    state, _ = act(ready_to_acquire(), 0, PlayGrowth(card=ACQUIRE, target=1))
    state = play_to(state, 0)
    assert state.cash[0] == 400 - card.cost + card.first + 500 // 4
    assert ACQUIRE in state.firsts


def test_a_vote_gives_nothing_hidden_away() -> None:
    """While a vote runs, and as it goes on, what the channel sees is the same whatever any
    team holds: a vote asks nothing hidden."""
    from testkit.conformance import public_face

    state = proposed()
    rng = random.Random(3)
    variants = GAME.secret_variants(state, rng)
    assert variants
    for variant in variants:
        assert public_face(GAME, variant.state) == public_face(GAME, state)
        for seat, agree in ((1, True), (2, False)):
            mine, theirs = (
                act(state, seat, Vote(agree=agree)),
                act(variant.state, seat, Vote(agree=agree)),
            )
            assert public_text(mine[1]) == public_text(theirs[1])
            assert public_face(GAME, mine[0]) == public_face(GAME, theirs[0])
