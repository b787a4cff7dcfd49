"""The moderator's automatic steps: cycles, turns, completions, bonuses, acquisitions, the end.

Each function works in place on the reducer's private copy of the state and appends events.
Money moves through :func:`pay` only, and every event that moves money lists its payments in
its ``moves`` as ``(payer, payee, amount)`` (``-1`` is the bank).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.engine import (
    Deadline,
    Ending,
    Event,
    Move,
    Outcome,
    Rng,
    Seat,
    Standing,
    open_decision,
    rank,
)
from core.games.biggiebills.cards import (
    ACQUIRE,
    all_industry,
    bonus_deck,
    card_name,
    challenge_deck,
    cycle_start_amount,
    growth,
    growth_deck,
    is_growth,
    target_percent,
)
from core.games.biggiebills.events import (
    BonusEarned,
    CycleBegun,
    CycleEnded,
    DeckReshuffled,
    GameOver,
    GrowthCompleted,
    GrowthFailed,
    NoBonusLeft,
    TargetChanged,
    TeamBankrupt,
    TimeCalled,
    TurnBegun,
    VoteLapsed,
)
from core.games.biggiebills.legal import excess, in_force, max_plays, payoff_of
from core.games.biggiebills.state import (
    CHALLENGE_HAND,
    GROWTH_HAND,
    MAX_BONUS_GAME,
    MAX_BONUS_STAGE,
    MAX_CYCLES,
    START_CASH,
    Active,
    BiggieBillsOptions,
    BiggieBillsState,
)
from core.games.biggiebills.text import join, money, possessive
from core.text import plural
from core.turns import fresh_order

__all__ = [
    "BANK",
    "auto_returns",
    "begin_cycle",
    "call_time",
    "cycle_opening",
    "discard_growth",
    "draw",
    "end_turn",
    "new_state",
    "opening_events",
    "pay",
    "ranking",
    "resume",
    "settle",
]

BANK: Seat = -1
"""The payer or payee of money that enters or leaves the game."""
CLOCK_KEY = "clock@v0"
"""The key of the game clock's deadline (``minutes``): one for the whole game."""

Moves = list[Move]


def pay(state: BiggieBillsState, payer: Seat, payee: Seat, amount: int, moves: Moves) -> None:
    """Move ``amount`` $M from ``payer`` to ``payee`` (either may be the bank)."""
    if amount == 0:
        return
    if payer != BANK:
        state.cash[payer] -= amount
    if payee != BANK:
        state.cash[payee] += amount
    moves.append((payer, payee, amount))


# --- cards ---------------------------------------------------------------------------------


def draw(state: BiggieBillsState, kind: str, rng: Rng, events: list[Event]) -> str | None:
    """The top card of the ``growth``, ``challenge`` or ``bonus`` deck; an empty deck is
    refilled from its shuffled discards. None when both are empty."""
    deck: list[str] = getattr(state, f"{kind}_deck")
    discard: list[str] = getattr(state, f"{kind}_discard")
    if not deck:
        if not discard:
            return None
        deck.extend(discard)
        discard.clear()
        rng.shuffle(deck)
        events.append(
            DeckReshuffled(
                text=f"The {kind} discards are shuffled into a new deck of {len(deck)} cards.",
                deck=kind,
                size=len(deck),
            )
        )
    return deck.pop(0)


def discard_growth(state: BiggieBillsState, active: Active) -> None:
    state.active.remove(active)
    state.growth_discard.append(active.card)


# --- setup ---------------------------------------------------------------------------------


def new_state(names: Sequence[str], options: BiggieBillsOptions, rng: Rng) -> BiggieBillsState:
    """Shuffle the decks, give every team $200M, 6 Growth and 4 Challenge cards, start cycle 1."""
    teams = len(names)
    decks = [growth_deck(teams), challenge_deck(teams), bonus_deck(teams)]
    industry_deck = [card.id for card in all_industry()]
    for deck in [*decks, industry_deck]:
        rng.shuffle(deck)
    growth_pile, challenge_pile, bonus_pile = decks
    state = BiggieBillsState(
        names=list(names),
        options=options,
        cash=[START_CASH] * teams,
        alive=[True] * teams,
        out=[None] * teams,
        growth=[[growth_pile.pop(0) for _ in range(GROWTH_HAND)] for _ in range(teams)],
        challenges=[[challenge_pile.pop(0) for _ in range(CHALLENGE_HAND)] for _ in range(teams)],
        bonus=[[] for _ in range(teams)],
        growth_deck=growth_pile,
        challenge_deck=challenge_pile,
        bonus_deck=bonus_pile,
        industry_deck=industry_deck,
        completed=[[] for _ in range(teams)],
        bonus_earned=[[0, 0, 0, 0] for _ in range(teams)],
        challenges_played=[0] * teams,
        target=options.target,
    )
    if options.minutes:
        state.clock = Deadline(key=CLOCK_KEY, seconds=60 * options.minutes)
    begin_cycle(state, rng, [])
    return state


# --- cycles and turns ----------------------------------------------------------------------


def cycle_opening(state: BiggieBillsState) -> str:
    """``Business Cycle 2 begins. Order: ...`` for the cycle that has just begun."""
    order = join([state.names[s] for s in state.order])
    return (
        f"Business Cycle {state.cycle} begins. Order: {order} "
        "(each team plays twice in this order)."
    )


def begin_cycle(state: BiggieBillsState, rng: Rng, events: list[Event]) -> None:
    """A new Business Cycle: a fresh random order and, after the first, an Industry card."""
    state.cycle += 1
    order = fresh_order(state.living(), rng)
    state.order = order
    state.turn_index = 0
    state.industry = None
    text = cycle_opening(state)
    moves: Moves = []
    if state.cycle > 1:
        if not state.industry_deck:
            state.industry_deck = [card.id for card in all_industry()]
            rng.shuffle(state.industry_deck)
        state.industry = state.industry_deck.pop(0)
        card = in_force(state)
        assert card is not None
        text += f" Industry Rules: {card.name}. {card.text}"
        amounts = []
        for seat in order:
            amount = cycle_start_amount(card, state.completed[seat], state.challenges_played[seat])
            if amount > 0:
                pay(state, BANK, seat, amount, moves)
                amounts.append(f"{state.names[seat]} receives {money(amount)}")
            elif amount < 0:
                pay(state, seat, BANK, -amount, moves)
                amounts.append(f"{state.names[seat]} pays {money(-amount)}")
        if amounts:
            text += " " + "; ".join(amounts) + "."
    events.append(
        CycleBegun(text=text, cycle=state.cycle, order=order, industry=state.industry, moves=moves)
    )
    if settle(state, events):
        return
    start_turn(state, rng, events)


def start_turn(state: BiggieBillsState, rng: Rng, events: list[Event]) -> None:
    """The next living team's turn: its active cards complete, then it plays."""
    while True:
        if state.turn_index >= 2 * len(state.order):
            _end_cycle(state, rng, events)
            return
        seat = state.order[state.turn_index % len(state.order)]
        if state.alive[seat]:
            break
        state.turn_index += 1
    for active in [a for a in state.active if a.owner == seat]:
        _complete(state, active, rng, events)
    if settle(state, events):
        return
    if state.returns:
        _open_returns(state, "turn")
        return
    _open_turn(state, events)


def _open_turn(state: BiggieBillsState, events: list[Event]) -> None:
    seat = state.turn_seat
    assert seat is not None
    state.plays_left = state.flex_left = max_plays(state)
    state.acted = False
    state.turn_cash = list(state.cash)
    open_decision(state, "turn")
    n = len(state.order)
    plays = " (two-card play)" if state.plays_left == 2 else ""
    events.append(
        TurnBegun(
            text=f"Cycle {state.cycle}, turn {state.turn_index + 1} of {2 * n}: "
            f"{state.names[seat]} to play{plays}.",
            seat=seat,
            cycle=state.cycle,
            turn=state.turn_index,
        )
    )


def end_turn(state: BiggieBillsState, rng: Rng, events: list[Event]) -> None:
    state.turn_index += 1
    state.plays_left = state.flex_left = 0
    state.acted = False
    start_turn(state, rng, events)


def _end_cycle(state: BiggieBillsState, rng: Rng, events: list[Event]) -> None:
    """Every card still active completes (or fails, if challenged) in the order played."""
    for active in list(state.active):
        if active in state.active:
            _complete(state, active, rng, events)
    events.append(CycleEnded(text=f"Business Cycle {state.cycle} ends."))
    if settle(state, events):
        return
    if state.vote is not None:
        events.append(
            VoteLapsed(
                text=f"The vote on a target of {money(state.vote.target)} lapses with the "
                f"cycle: not every team agreed. The target stays {money(state.target)}.",
                target=state.vote.target,
            )
        )
        state.vote = None
    if state.cycle >= min(state.options.cycle_limit, MAX_CYCLES):
        _finish(state, Ending.TIME_LIMIT, events)
        return
    if state.returns:
        _open_returns(state, "cycle")
        return
    begin_cycle(state, rng, events)


def call_time(state: BiggieBillsState, events: list[Event], rng: Rng) -> None:
    """The game clock (``minutes``) has run out: the cycle ends at once, its active cards
    complete (or fail) as at any cycle's end, and the richest team wins."""
    state.time_called = True
    events.append(
        TimeCalled(
            text=f"Time is up: {state.options.minutes} minutes have passed, so Business Cycle "
            f"{state.cycle} ends now.",
            cycle=state.cycle,
        )
    )
    for active in list(state.active):
        if active in state.active:
            _complete(state, active, rng, events)
    state.returns = []
    events.append(CycleEnded(text=f"Business Cycle {state.cycle} ends."))
    if not settle(state, events):
        _finish(state, Ending.TIME_LIMIT, events)


def _open_returns(state: BiggieBillsState, then: str) -> None:
    state.resume = "turn" if then == "turn" else "cycle"
    open_decision(state, "returns")


def resume(state: BiggieBillsState, rng: Rng, events: list[Event]) -> None:
    """Continue after the returns of an acquisition are done."""
    if state.returns:
        open_decision(state, "returns")
        return
    if state.resume == "cycle":
        begin_cycle(state, rng, events)
    else:
        _open_turn(state, events)


# --- completion, bonuses, acquisitions ---------------------------------------------------------


def _complete(state: BiggieBillsState, active: Active, rng: Rng, events: list[Event]) -> None:
    seat, name = active.owner, card_name(active.card)
    team = state.names[seat]
    if active.challenged:
        discard_growth(state, active)
        events.append(
            GrowthFailed(
                text=f"{possessive(team)} {name} was challenged: the card is discarded with no "
                f"payoff and its {money(active.cost)} is lost.",
                seat=seat,
                card=active.card,
                active=active.id,
            )
        )
        return
    state.active.remove(active)
    amount = payoff_of(state, active.card)
    first = active.card not in state.firsts
    if first:
        state.firsts.append(active.card)
    state.completed[seat].append(active.card)
    moves: Moves = []
    pay(state, BANK, seat, amount, moves)
    how = "first to complete it" if first else "a later completion"
    text = f"{team} completes {name} ({how}) and collects {money(amount)}."
    acquires = active.card == ACQUIRE and active.target is not None and state.alive[active.target]
    acquired = None
    if active.card == ACQUIRE:
        taken, acquired = _acquire(state, active, moves)
        text += " " + taken
    # An acquisition hands the acquired team's cards to the acquirer: its hand is disclosed.
    events.append(
        GrowthCompleted(
            text=text,
            seat=seat,
            card=active.card,
            active=active.id,
            first=first,
            moves=moves,
            acquired=acquired,
            reveals=acquires,
        )
    )
    _earn_bonus(state, seat, growth(active.card).stage, rng, events)


def _acquire(state: BiggieBillsState, active: Active, moves: Moves) -> tuple[str, Seat | None]:
    """The takeover of an Acquire a Competitor that completes: what it says, and whom it
    acquired (None when its target has already left the game)."""
    seat, target = active.owner, active.target
    if target is None or not state.alive[target]:
        return "There is no one left to acquire: the payoff alone is paid.", None
    cash = state.cash[target]
    share = max(0, cash) // 4
    pay(state, target, seat, share, moves)
    pay(state, target, BANK, cash - share, moves)
    state.growth[seat] += state.growth[target]
    state.challenges[seat] += state.challenges[target]
    state.bonus[seat] += state.bonus[target]
    state.growth[target], state.challenges[target], state.bonus[target] = [], [], []
    for other in [a for a in state.active if a.owner == target]:
        discard_growth(state, other)
    _eliminate(state, target, f"acquired by {state.names[seat]}")
    state.acquired_by[target] = seat
    if any(excess(state, seat)):
        state.returns.append(seat)
    return (
        f"{state.names[seat]} acquires {state.names[target]}: {money(share)} (25% of its "
        f"{money(cash)}) and all its cards. {state.names[target]} is out of the game."
    ), target


def _earn_bonus(
    state: BiggieBillsState, seat: Seat, stage: int, rng: Rng, events: list[Event]
) -> None:
    """Three completions in a stage earn a Bonus card, a fourth another (2 a stage, 8 a game)."""
    count = sum(1 for c in state.completed[seat] if growth(c).stage == stage)
    earned = state.bonus_earned[seat]
    if count not in (3, 4) or earned[stage - 1] >= MAX_BONUS_STAGE:
        return
    if sum(earned) >= MAX_BONUS_GAME:
        return
    card = draw(state, "bonus", rng, events)
    team = state.names[seat]
    if card is None:
        events.append(
            NoBonusLeft(
                text=f"{team} has earned a Bonus card, but none are left.", seat=seat, stage=stage
            )
        )
        return
    earned[stage - 1] += 1
    state.bonus[seat].append(card)
    events.append(
        BonusEarned(
            text=f"{team} earns a Bonus card for completing {count} Stage {stage} cards.",
            seat=seat,
            stage=stage,
        )
    )


# --- leaving and the end -------------------------------------------------------------------


def _eliminate(state: BiggieBillsState, seat: Seat, why: str) -> None:
    state.alive[seat] = False
    state.out[seat] = why
    state.eliminated.append(seat)
    state.out_cycle[seat] = state.cycle
    if seat in state.returns:
        state.returns.remove(seat)


def _bankrupt(state: BiggieBillsState, seat: Seat) -> None:
    # The hand goes back to the moderator (the discards, reshuffled when a deck runs dry).
    state.growth_discard += state.growth[seat]
    state.challenge_discard += state.challenges[seat]
    state.bonus_discard += state.bonus[seat]
    state.growth[seat], state.challenges[seat], state.bonus[seat] = [], [], []
    for active in [a for a in state.active if a.owner == seat]:
        discard_growth(state, active)
    _eliminate(state, seat, "bankrupt")


def settle(state: BiggieBillsState, events: list[Event]) -> bool:
    """Bankruptcies, then the ways the game ends. True when the game is over."""
    if state.finished:
        return True
    broke = [s for s in state.living() if state.cash[s] <= 0]
    for seat in broke:
        _bankrupt(state, seat)
        events.append(
            TeamBankrupt(
                text=f"{state.names[seat]} is bankrupt with {money(state.cash[seat])} and leaves "
                "the game.",
                seat=seat,
            )
        )
    living = state.living()
    if not living:
        _finish(state, Ending.EVERYONE_BANKRUPT, events, final=broke)
        return True
    if len(living) == 1:
        _finish(state, Ending.LAST_STANDING, events)
        return True
    if state.vote is not None and set(living) <= set(state.vote.agreed):
        _change_target(state, events)
    rich = [s for s in living if state.cash[s] >= state.target]
    if len(rich) == 1:
        _finish(state, Ending.TARGET, events)
        return True
    if rich:
        _finish(state, Ending.TARGET_TOGETHER, events)
        return True
    return False


def _change_target(state: BiggieBillsState, events: list[Event]) -> None:
    """Every team still in the game has agreed: the proposed target is the target now."""
    assert state.vote is not None
    old, new = state.target, state.vote.target
    state.target, state.vote = new, None
    grown = target_percent(new)
    pays = f" Payoffs are now {grown}% of the printed ones." if grown != target_percent(old) else ""
    events.append(
        TargetChanged(
            text=f"Every team agrees: the target is now {money(new)} (it was {money(old)}).{pays}",
            target=new,
            was=old,
        )
    )


_StandingKey = Callable[[Seat], tuple[int, int, int, int]]


def _standing_key(state: BiggieBillsState, last: list[Seat]) -> _StandingKey:
    """Teams still in (with ``last``, those that went bankrupt in the final turn) by money,
    then completed Growth cards; below them the teams that left, the last to leave first."""

    def key(seat: Seat) -> tuple[int, int, int, int]:
        if state.alive[seat] or seat in last:
            return (1, 0, state.cash[seat], len(state.completed[seat]))
        return (0, state.eliminated.index(seat), 0, 0)

    return key


def ranking(state: BiggieBillsState, final: list[Seat] | None = None) -> list[Standing]:
    """The teams as the standings show them (the final ones at the end; ``final``: teams
    that went bankrupt in the turn that ended the game rank among those still in)."""

    def note(seat: Seat) -> str:
        growth = plural(len(state.completed[seat]), "Growth card")
        out = state.out[seat]
        return f"{growth}, {out}" if out else growth

    return rank(
        state.names,
        state.seats,
        _standing_key(state, final or []),
        lambda s: float(state.cash[s]),
        note=note,
    )


def _finish(
    state: BiggieBillsState, ended: Ending, events: list[Event], final: list[Seat] | None = None
) -> None:
    key = _standing_key(state, final or [])
    standings = ranking(state, final)
    top = [st.seat for st in standings if st.rank == 1]
    best = money(state.cash[top[0]])
    target = money(state.target)
    if state.time_called:
        called = f"when time is called after {state.options.minutes} minutes"
    else:
        called = f"when time is called after {state.cycle} cycle{'s' if state.cycle != 1 else ''}"
    why = {
        Ending.TARGET: f"reached the {target} target",
        Ending.TARGET_TOGETHER: f"reached the {target} target in the same turn as another "
        "team and has the most money",
        Ending.LAST_STANDING: "is the last team standing",
        Ending.TIME_LIMIT: f"has the most money {called}",
        Ending.EVERYONE_BANKRUPT: "went bankrupt last with the most money",
    }[ended]
    if len(top) == 1:
        tie = _by_cards(state, standings, key)
        if tie is None:
            summary = f"{state.names[top[0]]} wins with {best}: it {why}."
        else:
            second, won, lost = tie
            tied = {
                Ending.TARGET_TOGETHER: f"both reached the {target} target in the same turn",
                Ending.TIME_LIMIT: called.removeprefix("when "),
                Ending.EVERYONE_BANKRUPT: "both went bankrupt last",
            }.get(ended, f"it {why}")
            summary = (
                f"{state.names[top[0]]} wins with {best}, as much as {state.names[second]}, on "
                f"completed Growth cards ({won} against {lost}): {tied}."
            )
    else:
        done = len(state.completed[top[0]])
        together = {
            Ending.TARGET_TOGETHER: f"they reached the {target} target in the same turn",
            Ending.TIME_LIMIT: called.removeprefix("when "),
            Ending.EVERYONE_BANKRUPT: "they went bankrupt last",
        }.get(ended, "")
        summary = (
            f"{join([state.names[s] for s in top])} tie for first with {best} and {done} "
            f"completed Growth card{'s' if done != 1 else ''} each"
        )
        summary += f": {together}." if together else "."
    lines = [
        f"{st.rank}. {st.name} {money(state.cash[st.seat])}"
        + (f" ({state.out[st.seat]})" if state.out[st.seat] else "")
        for st in standings
    ]
    state.pending = None
    state.outcome = Outcome(standings=standings, summary=summary, rounds=state.cycle, ended=ended)
    events.append(
        GameOver(
            text=f"Game over. {summary}\n" + "\n".join(lines), ended=ended, standings=standings
        )
    )


def _by_cards(
    state: BiggieBillsState,
    standings: list[Standing],
    key: Callable[[Seat], tuple[int, int, int, int]],
) -> tuple[Seat, int, int] | None:
    """When the winner has only as much money as the runner-up and wins on completed Growth
    cards: the runner-up and both counts of completed cards (else None)."""
    if len(standings) < 2:
        return None
    first, second = standings[0].seat, standings[1].seat
    a, b = key(first), key(second)
    if a[:3] != b[:3] or a == b:
        return None
    return second, a[3], b[3]


def auto_returns(state: BiggieBillsState, seat: Seat) -> list[str]:
    """The cards the moderator returns for a team whose time ran out: cards it cannot use
    first (completed, duplicates), then the lowest payoffs and stages."""
    extra_growth, extra_challenge = excess(state, seat)
    done = set(state.completed[seat])

    def growth_rank(index_card: tuple[int, str]) -> tuple[int, int, int]:
        index, card = index_card
        dup = state.growth[seat].index(card) != index
        return (0 if card in done or dup else 1, growth(card).first, -index)

    def challenge_rank(index_card: tuple[int, str]) -> tuple[int, int, int]:
        index, card = index_card
        dup = state.challenges[seat].index(card) != index
        stage = growth(card.removeprefix("challenge_")).stage
        return (0 if dup else 1, stage, -index)

    worst_growth = sorted(enumerate(state.growth[seat]), key=growth_rank)[:extra_growth]
    worst_challenge = sorted(enumerate(state.challenges[seat]), key=challenge_rank)[
        :extra_challenge
    ]
    return [c for _, c in worst_growth] + [c for _, c in worst_challenge]


def return_card(state: BiggieBillsState, seat: Seat, card: str) -> None:
    """Put one card back at the bottom of its deck."""
    if is_growth(card):
        state.growth[seat].remove(card)
        state.growth_deck.append(card)
    else:
        state.challenges[seat].remove(card)
        state.challenge_deck.append(card)
    if not any(excess(state, seat)):
        state.returns.remove(seat)


def opening_events(state: BiggieBillsState) -> list[Event]:
    text = cycle_opening(state) + " No Industry Rules card is in force in the first cycle."
    return [CycleBegun(text=text, cycle=state.cycle, order=state.order)]
