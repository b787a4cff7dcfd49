"""The reducer: validate an action, apply it in place on the engine's private copy, and let
the moderator's automatic steps (``flow.py``) run until the next decision."""

from __future__ import annotations

from core.engine import (
    Audience,
    Decision,
    Event,
    Flow,
    Move,
    Play,
    Question,
    Rng,
    Seat,
    open_decision,
)
from core.games.biggiebills.actions import (
    Accept,
    Action,
    Block,
    Challenge,
    Done,
    Exchange,
    PlayGrowth,
    ProposeTarget,
    ReturnCards,
    Skip,
    Vote,
)
from core.games.biggiebills.cards import (
    ACQUIRE,
    BLOCK,
    FLEX_STAGES,
    card_name,
    exchange_price,
    growth,
    is_growth,
    target_percent,
)
from core.games.biggiebills.events import (
    CardsExchanged,
    CardsReturned,
    ChallengeAccepted,
    ChallengeBlocked,
    ChallengePlayed,
    GrowthPlayed,
    HandChanged,
    TargetProposed,
    TargetVoted,
    TurnEnded,
    TurnSkipped,
)
from core.games.biggiebills.flow import (
    BANK,
    auto_returns,
    call_time,
    draw,
    end_turn,
    pay,
    resume,
    return_card,
    settle,
)
from core.games.biggiebills.hand import hand_change
from core.games.biggiebills.legal import (
    accept_options,
    accept_problem,
    answering,
    block_options,
    block_problem,
    blocking,
    challenge_options,
    challenge_problem,
    cost_of,
    done_options,
    done_problem,
    elsewhere,
    exchange_options,
    exchange_problem,
    growth_options,
    growth_problem,
    in_force,
    may_play_on,
    not_challenged,
    not_returning,
    penalty_of,
    propose_options,
    propose_problem,
    propose_shape,
    return_options,
    return_problem,
    returning,
    skip_fine,
    skip_options,
    skip_problem,
    taking_turn,
    to_return,
    turn_problem,
    vote_opened,
    vote_options,
    vote_problem,
)
from core.games.biggiebills.state import (
    CHALLENGE_HAND,
    GROWTH_HAND,
    Active,
    BiggieBillsState,
    Pending,
    TargetVote,
)
from core.games.biggiebills.text import money, plural, possessive

__all__ = ["FLOW", "clock_timeout", "news"]


def news(before: BiggieBillsState, after: BiggieBillsState) -> list[Event]:
    """Every team whose hand an action changed is told privately what came in and what went,
    after the public events; its panel, sent with that news, shows the whole new hand."""
    return [
        HandChanged(
            text=hand_change(before.hand_of(seat), after.hand_of(seat)),
            audience=Audience.only(seat),
            growth=list(after.growth[seat]),
            challenges=list(after.challenges[seat]),
            bonus=list(after.bonus[seat]),
        )
        for seat in after.seats
        if after.hand_of(seat) != before.hand_of(seat) and after.alive[seat]
    ]


def _done(state: BiggieBillsState, seat: Seat, action: Done, rng: Rng) -> list[Event]:
    events: list[Event] = [TurnEnded(text=f"{state.names[seat]} ends its turn.")]
    end_turn(state, rng, events)
    return events


def _answer(state: BiggieBillsState, seat: Seat, action: Block | Accept, rng: Rng) -> list[Event]:
    """The challenged team blocks the pending challenge or accepts it."""
    blocked = isinstance(action, Block)
    events: list[Event] = []
    _resolve(state, blocked, events, "")
    _after(state, rng, events)
    return events


def _after(state: BiggieBillsState, rng: Rng, events: list[Event]) -> None:
    """After a turn action: bankruptcies and the end, then end the turn once nothing is left."""
    if settle(state, events) or state.deciding != "turn":
        return
    seat = state.turn_seat
    assert seat is not None
    if not state.alive[seat]:
        end_turn(state, rng, events)
        return
    # The turn ends by itself only when what everyone can see says nothing can follow, whatever
    # the team holds: no card it could hold is playable, no exchange, no Flexible Challenge it
    # could hold. What it holds stays secret, even from when the turn ends.
    if state.acted and not may_play_on(state, seat):
        end_turn(state, rng, events)


def _play(state: BiggieBillsState, seat: Seat, action: PlayGrowth, rng: Rng) -> list[Event]:
    cost = cost_of(state, action.card)
    moves: list[Move] = []
    pay(state, seat, BANK, cost, moves)
    state.growth[seat].remove(action.card)
    card = growth(action.card)
    state.active.append(
        Active(id=state.next_active, card=action.card, owner=seat, cost=cost, target=action.target)
    )
    state.next_active += 1
    state.plays_left -= 1
    state.acted = True
    team = state.names[seat]
    if action.card == ACQUIRE and action.target is not None:
        text = (
            f"{team} plays Acquire a Competitor against {state.names[action.target]} for "
            f"{money(cost)}."
        )
    else:
        text = f"{team} plays {card.name} (Stage {card.stage}) for {money(cost)}."
    if state.turn_index == 2 * len(state.order) - 1:
        # No team has a turn left in this cycle, and no challenge crosses cycles.
        text += " This is the cycle's last turn: it completes as the cycle ends, unchallenged."
    else:
        text += (
            f" It completes at {possessive(team)} next turn or when the cycle ends, unless "
            "challenged."
        )
    events: list[Event] = [
        GrowthPlayed(
            text=text,
            seat=seat,
            card=action.card,
            active=state.next_active - 1,
            target=action.target,
            moves=moves,
        )
    ]
    drawn = draw(state, "growth", rng, events)
    if drawn is not None:
        state.growth[seat].append(drawn)
    _after(state, rng, events)
    return events


def _challenge(state: BiggieBillsState, seat: Seat, action: Challenge, rng: Rng) -> list[Event]:
    active = state.find_active(action.active)
    assert active is not None
    flex = action.card in FLEX_STAGES
    if flex:
        state.bonus[seat].remove(action.card)
        state.bonus_discard.append(action.card)
        state.flex_left -= 1
    else:
        state.challenges[seat].remove(action.card)
        state.challenge_discard.append(action.card)
        state.plays_left -= 1
    state.acted = True
    state.challenges_played[seat] += 1
    penalty = penalty_of(state, active.card)
    state.pending = Pending(active=active.id, challenger=seat, card=action.card, penalty=penalty)
    owner, name = active.owner, card_name(active.card)
    text = (
        f"{state.names[seat]} challenges {possessive(state.names[owner])} {name} "
        f"(#{active.id}) with {card_name(action.card)}."
    )
    events: list[Event] = []
    if not flex:
        drawn = draw(state, "challenge", rng, events)
        if drawn is not None:
            state.challenges[seat].append(drawn)
    # Every challenge opens the reaction window, whatever the challenged team holds: whether
    # it has a Block a Challenge card stays its secret (without one it can only accept).
    open_decision(state, "block")
    wait = state.options.block_seconds
    text += f" {state.names[owner]} may block it with a Block a Challenge card or accept it" + (
        f" within {wait} seconds." if wait else "."
    )
    events.insert(
        0,
        ChallengePlayed(text=text, seat=seat, active=active.id, card=action.card),
    )
    return events


def _resolve(state: BiggieBillsState, blocked: bool, events: list[Event], prefix: str) -> None:
    """Settle the pending challenge: blocked (the challenger pays the blocker) or standing
    (the owner pays the challenger and the card will fail)."""
    pending = state.pending
    assert pending is not None
    active = state.find_active(pending.active)
    assert active is not None
    owner, challenger, penalty = active.owner, pending.challenger, pending.penalty
    name = card_name(active.card)
    moves: list[Move] = []
    if blocked:
        state.bonus[owner].remove(BLOCK)
        state.bonus_discard.append(BLOCK)
        pay(state, challenger, owner, penalty, moves)
        active.blocked.append(challenger)
        if active.card == ACQUIRE:
            active.sealed = True
        text = (
            f"{state.names[owner]} blocks {possessive(state.names[challenger])} challenge with a "
            f"Block a Challenge card: {state.names[challenger]} pays {state.names[owner]} "
            f"{money(penalty)} and {name} stays in play."
        )
        if active.sealed:
            text += " The acquisition cannot be challenged again."
        settled: type[ChallengeBlocked | ChallengeAccepted] = ChallengeBlocked
    else:
        pay(state, owner, challenger, penalty, moves)
        active.challengers.append(challenger)
        text = (
            f"The challenge stands: {state.names[owner]} pays {state.names[challenger]} "
            f"{money(penalty)}, and {name} will not complete (its {money(active.cost)} is lost)."
        )
        settled = ChallengeAccepted
    state.pending = None
    open_decision(state, "turn")
    events.append(settled(text=prefix + text, seat=owner, active=active.id, moves=moves))


def _exchange(state: BiggieBillsState, seat: Seat, action: Exchange, rng: Rng) -> list[Event]:
    price = exchange_price(in_force(state))
    moves: list[Move] = []
    pay(state, seat, BANK, price, moves)
    events: list[Event] = []
    kinds = []
    for card in action.cards:
        kind = "growth" if is_growth(card) else "challenge"
        kinds.append("Growth" if kind == "growth" else "Challenge")
        hand = state.growth[seat] if kind == "growth" else state.challenges[seat]
        drawn = draw(state, kind, rng, events)
        hand.remove(card)
        if drawn is not None:
            hand.append(drawn)
        # The returned card goes under its deck, after the draw, so it is not drawn back.
        deck = state.growth_deck if kind == "growth" else state.challenge_deck
        deck.append(card)
    state.plays_left = 0
    state.acted = True
    what = " and ".join(sorted(kinds))
    events.insert(
        0,
        CardsExchanged(
            text=f"{state.names[seat]} exchanges two cards ({what}) for {money(price)}.",
            seat=seat,
            moves=moves,
        ),
    )
    _after(state, rng, events)
    return events


def _skip(
    state: BiggieBillsState, seat: Seat, action: Skip, rng: Rng, prefix: str = ""
) -> list[Event]:
    amount = skip_fine(state)
    moves: list[Move] = []
    pay(state, seat, BANK, amount, moves)
    events: list[Event] = [
        TurnSkipped(
            text=f"{prefix}{state.names[seat]} skips its turn and pays a {money(amount)} fine.",
            seat=seat,
            moves=moves,
        )
    ]
    state.acted = True
    state.plays_left = state.flex_left = 0
    if settle(state, events):
        return events
    end_turn(state, rng, events)
    return events


def _return(state: BiggieBillsState, seat: Seat, action: ReturnCards, rng: Rng) -> list[Event]:
    cards = action.cards
    for card in cards:
        return_card(state, seat, card)
    # Which cards went back stays secret: the channel hears how many.
    count = plural(len(cards), "card")
    more = (
        f"; {to_return(state, seat)} still to return"
        if seat in state.returns
        else f" and keeps {GROWTH_HAND} Growth and {CHALLENGE_HAND} Challenge cards"
    )
    events: list[Event] = [
        CardsReturned(
            text=f"{state.names[seat]} returns {count} to the moderator{more}.",
            seat=seat,
            count=len(cards),
        )
    ]
    if not state.returns:
        resume(state, rng, events)
    return events


def _propose(state: BiggieBillsState, seat: Seat, action: ProposeTarget, rng: Rng) -> list[Event]:
    target = action.target
    state.vote = TargetVote(target=target, proposer=seat, agreed=[seat], opened=state.version + 1)
    state.proposed[seat] = state.cycle
    others = len(state.living()) - 1
    text = (
        f"{state.names[seat]} proposes a new target of {money(target)} (now "
        f"{money(state.target)}). It takes effect when the other {others} teams agree; one "
        "refusal, or the end of this cycle, ends the vote."
    )
    grown = target_percent(target)
    if grown != target_percent(state.target):
        text += f" With it, payoffs would be {grown}% of the printed ones."
    return [TargetProposed(text=text, seat=seat, target=target)]


def _vote(state: BiggieBillsState, seat: Seat, action: Vote, rng: Rng) -> list[Event]:
    agree = action.agree
    vote = state.vote
    assert vote is not None
    team, target = state.names[seat], money(vote.target)
    if not agree:
        state.vote = None
        text = f"{team} refuses a target of {target}: the target stays {money(state.target)}."
        return [TargetVoted(text=text, seat=seat, agree=False)]
    vote.agreed.append(seat)
    living = state.living()
    agreed = sum(1 for s in living if s in vote.agreed)
    events: list[Event] = [
        TargetVoted(
            text=f"{team} agrees to a target of {target} ({agreed} of {len(living)} teams).",
            seat=seat,
            agree=True,
        )
    ]
    settle(state, events)
    return events


def clock_timeout(state: BiggieBillsState, rng: Rng) -> list[Event]:
    """The game clock (``minutes``) calls time. A challenge waiting for its answer stands."""
    events: list[Event] = []
    if state.deciding == "block":
        _resolve(state, False, events, "Time is up: no block. ")
    call_time(state, events, rng)
    return events


def _block_runs_out(state: BiggieBillsState, rng: Rng) -> list[Event]:
    """The block window closes unanswered: the challenge stands."""
    events: list[Event] = []
    _resolve(state, False, events, "Time is up: no block. ")
    _after(state, rng, events)
    return events


def _returns_run_out(state: BiggieBillsState, rng: Rng) -> list[Event]:
    """The team returning an acquisition's extra cards runs out: the moderator returns them."""
    seat = state.returns[0]
    for card in auto_returns(state, seat):
        return_card(state, seat, card)
    events: list[Event] = [
        CardsReturned(
            text=f"Time is up: the moderator returns {possessive(state.names[seat])} extra cards.",
            seat=seat,
        )
    ]
    resume(state, rng, events)
    return events


def _turn_runs_out(state: BiggieBillsState, rng: Rng) -> list[Event]:
    """A turn runs out: skipped if the team has not acted, else ended."""
    turn = state.turn_seat
    assert turn is not None
    if not state.acted:
        return _skip(state, turn, Skip(), rng, "Time is up: ")
    events: list[Event] = [
        TurnEnded(text=f"Time is up: {possessive(state.names[turn])} turn ends.")
    ]
    end_turn(state, rng, events)
    return events


FLOW: Flow[BiggieBillsState, Action] = Flow(
    decisions={
        "turn": Decision(
            plays={
                PlayGrowth: Play(check=growth_problem, apply=_play, offers=growth_options),
                Challenge: Play(
                    check=challenge_problem, apply=_challenge, offers=challenge_options
                ),
                Exchange: Play(check=exchange_problem, apply=_exchange, offers=exchange_options),
                Skip: Play(check=skip_problem, apply=_skip, offers=skip_options),
                Done: Play(check=done_problem, apply=_done, offers=done_options),
                ProposeTarget: Play(
                    check=propose_problem,
                    apply=_propose,
                    offers=propose_options,
                    shape=propose_shape,
                    anyone=True,
                ),
            },
            who=turn_problem,
            waits=taking_turn,
            seconds=lambda state: state.options.turn_seconds,
            timeout=_turn_runs_out,
            each_action=True,
        ),
        "block": Decision(
            plays={
                Block: Play(check=block_problem, apply=_answer, offers=block_options),
                Accept: Play(check=accept_problem, apply=_answer, offers=accept_options),
            },
            who=not_challenged,
            waits=blocking,
            seconds=lambda state: state.options.block_seconds,
            timeout=_block_runs_out,
            each_action=True,
        ),
        "returns": Decision(
            plays={ReturnCards: Play(check=return_problem, apply=_return, offers=return_options)},
            who=not_returning,
            waits=returning,
            seconds=lambda state: state.options.turn_seconds,
            timeout=_returns_run_out,
            each_action=True,
        ),
    },
    # A vote on a new target runs beside the turns; a team agreeing to it (the vote still
    # open) changes nobody else's choices, and every other action is a new decision.
    question=Question(
        seats=answering,
        opened=vote_opened,
        plays={Vote: Play(check=vote_problem, apply=_vote, offers=vote_options)},
    ),
    misplaced=elsewhere,
)
"""What may be played when: a team's turn, the block window of a challenge and the returns
after an acquisition, each with the moves it takes, its deadline option and what its passing
does, and the vote on a new target beside them. Every action is a new decision point in each: a
play changes the team's hand and what it may do next."""
