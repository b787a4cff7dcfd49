"""Property tests: random legal play never crashes, always ends, keeps the books and the cards,
and shows no hand card in public."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine import SYSTEM, Event, IllegalAction, Timeout
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
    all_challenges,
    all_growth,
    cycle_start_amount,
    exchange_price,
    fine,
    growth,
    industry,
    percent_of,
)
from core.games.biggiebills.state import MAX_CYCLES, BiggieBillsOptions, BiggieBillsState
from tests.games.biggiebills_support import (
    NAMES,
    check_cards,
    hidden_identities,
    leaks,
    made_public,
)

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

options = st.builds(
    BiggieBillsOptions,
    target=st.sampled_from([400, 1000]),
    cycles=st.sampled_from([0, 3, 8]),
    turn_seconds=st.sampled_from([0, 180]),
    block_seconds=st.sampled_from([0, 60]),
)

_cards = st.sampled_from(
    [g.id for g in all_growth()] + [c.id for c in all_challenges()] + ["flex_12", "block", "x"]
)
garbage = st.one_of(
    st.builds(PlayGrowth, card=_cards, target=st.none() | st.integers(-1, 9)),
    st.builds(Challenge, active=st.integers(-1, 30), card=_cards),
    st.builds(Exchange, cards=st.lists(_cards, max_size=3)),
    st.builds(Skip),
    st.builds(Done),
    st.builds(Block),
    st.builds(Accept),
    st.builds(ReturnCards, cards=st.lists(_cards, max_size=7)),
    st.builds(Timeout, key=st.sampled_from(["", "x"])),
    st.dictionaries(
        st.sampled_from(["type", "card", "active"]), st.integers() | st.text(max_size=4)
    ),
)

# How much each kind of payment may be, given the state before the action that made it.
_BANK = -1


class Table:
    """One game under test: applies actions and checks every invariant after each."""

    def __init__(self, teams: int, opts: BiggieBillsOptions, seed: int) -> None:
        self.seed = seed
        self.state: BiggieBillsState = GAME.new_game(
            NAMES[:teams], [False] * teams, opts, random.Random(seed)
        )
        self.public: set[str] = set()
        self.check(self.state, self.state, [])

    def rng(self) -> random.Random:
        return random.Random(f"{self.seed}:{self.state.version}")

    def apply(self, actor: int, action: Any) -> None:
        before = self.state
        transition = GAME.apply(before, actor, action, self.rng())
        self.state = transition.state
        self.check(before, self.state, transition.events)

    def try_garbage(self, actor: int, action: Any) -> None:
        before = self.state.model_dump()
        try:
            self.apply(actor, action)
        except IllegalAction:
            assert self.state.model_dump() == before

    def check(self, before: BiggieBillsState, after: BiggieBillsState, events: list[Event]) -> None:
        check_cards(after)
        self.check_money(before, after, events)
        self.check_secrets(before, after, events)
        json.dumps([e.model_dump(mode="json") for e in events])
        assert BiggieBillsState.model_validate_json(after.model_dump_json()) == after
        for seat in GAME.waiting_for(after):
            assert GAME.legal_actions(after, seat)
            json.dumps(GAME.view(after, seat))
            GAME.render_private(after, seat)
        if not after.finished:
            assert GAME.waiting_for(after), "a running game must wait for someone"
            assert after.cycle <= MAX_CYCLES

    def check_money(
        self, before: BiggieBillsState, after: BiggieBillsState, events: list[Event]
    ) -> None:
        """Cash changes only by the payments the events list, and each is a documented one."""
        delta = [0] * before.teams
        for event in events:
            for payer, payee, amount in event.data.get("moves", []):
                assert amount > 0 or event.kind == "complete"
                if payer != _BANK:
                    delta[payer] -= amount
                if payee != _BANK:
                    delta[payee] += amount
                self.check_payment(before, after, event, payer, payee, amount)
        assert [a - b for a, b in zip(after.cash, before.cash, strict=True)] == delta

    def check_payment(
        self,
        before: BiggieBillsState,
        after: BiggieBillsState,
        event: Event,
        payer: int,
        payee: int,
        amount: int,
    ) -> None:
        card = industry(before.industry) if before.industry else None
        if event.kind == "play":
            g = growth(event.data["card"])
            assert (payer, payee) == (event.data["seat"], _BANK)
            assert amount == percent_of(card, "cost", g.stage, g.cost)
        elif event.kind == "skip":
            assert payee == _BANK and amount == fine(card)
        elif event.kind == "exchange":
            assert payee == _BANK and amount == exchange_price(card)
        elif event.kind in ("challenge", "accept", "block"):
            g = growth(next(a.card for a in before.active if a.id == event.data["active"]))
            assert amount == percent_of(card, "penalty", g.stage, g.penalty)
        elif event.kind == "complete":
            g = growth(event.data["card"])
            if payer == _BANK:
                assert payee == event.data["seat"]
                # cards completing at a cycle's end are paid under that cycle's Industry card
                assert amount in {
                    percent_of(card, "payoff", g.stage, b) for b in (g.first, g.later)
                }
            else:
                assert g.id == ACQUIRE and payer == event.data["acquired"]
        elif event.kind == "cycle":
            new = industry(event.data["industry"])
            seat = payee if payer == _BANK else payer
            # completions at the end of the old cycle happen before the new card is drawn
            expected = cycle_start_amount(new, after.completed[seat], after.challenges_played[seat])
            assert (amount if payee == seat else -amount) == expected
        else:
            raise AssertionError(f"undocumented payment in {event.kind}: {event.text}")

    def check_secrets(
        self, before: BiggieBillsState, after: BiggieBillsState, events: list[Event]
    ) -> None:
        self.public |= made_public(before) | made_public(after)
        self.public |= {e.data["card"] for e in events if e.kind in ("play", "complete")}
        hidden = hidden_identities(after, self.public)
        public_events = [e for e in events if e.audience.is_public]
        texts = [e.text for e in public_events]
        texts.append(json.dumps([e.data for e in public_events]))
        view = GAME.view(after, None)
        assert "hand" not in view
        texts.append(json.dumps(view))
        board = GAME.render_board(after)
        texts.append(board.plain_text())
        assert GAME.render_prompt(after) is None
        assert not leaks(hidden, texts)


@SETTINGS
@given(
    teams=st.integers(min_value=3, max_value=8),
    opts=options,
    seed=st.integers(min_value=0, max_value=2**32),
    moves=st.integers(min_value=0, max_value=2**32),
    junk=st.lists(st.tuples(st.integers(min_value=-2, max_value=8), garbage), max_size=20),
)
def test_random_play_ends_and_keeps_every_invariant(
    teams: int, opts: BiggieBillsOptions, seed: int, moves: int, junk: list[tuple[int, Any]]
) -> None:
    table = Table(teams, opts, seed)
    chooser = random.Random(moves)
    for _ in range(20_000):
        state = table.state
        if state.finished:
            break
        roll = chooser.random()
        if junk and roll < 0.05:
            table.try_garbage(*junk.pop())
            continue
        if state.deadline is not None and roll > 0.97:
            table.apply(SYSTEM, Timeout(key=state.deadline.key))
            continue
        seat = chooser.choice(GAME.waiting_for(state))
        legal = GAME.legal_actions(state, seat)
        if roll > 0.5:
            action = GAME.bot_action(GAME.view(state, seat), legal, chooser)
            assert action in legal
        else:
            action = chooser.choice(legal)
        table.apply(seat, action)
    outcome = table.state.outcome
    assert outcome is not None, "the game did not end"
    assert outcome.ended in {
        "reached the target",
        "reached the target together",
        "last team standing",
        "time limit",
        "everyone bankrupt",
    }
    assert outcome.rounds == table.state.cycle
    assert outcome.standings[0].rank == 1
    assert all(GAME.legal_actions(table.state, s) == [] for s in table.state.seats)


@settings(max_examples=10, deadline=None)
@given(teams=st.integers(min_value=3, max_value=8), seed=st.integers(0, 2**32))
def test_legal_actions_agree_with_apply(teams: int, seed: int) -> None:
    """Every listed action applies, and a sample of unlisted ones is refused."""
    table = Table(teams, BiggieBillsOptions(), seed)
    chooser = random.Random(seed)
    for _ in range(60):
        state = table.state
        if state.finished:
            break
        seat = GAME.waiting_for(state)[0]
        legal = GAME.legal_actions(state, seat)
        for action in chooser.sample(legal, min(4, len(legal))):
            GAME.apply(state, seat, action, table.rng())
        for other in state.seats:
            if other not in GAME.waiting_for(state):
                for action in (Skip(), Done(), Block(), Accept()):
                    try:
                        GAME.apply(state, other, action, table.rng())
                    except IllegalAction:
                        continue
                    raise AssertionError(f"{action} by a team not waited for applied")
        table.apply(seat, GAME.bot_action(GAME.view(state, seat), legal, chooser))
