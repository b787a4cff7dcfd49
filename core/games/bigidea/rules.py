"""The reducer: set up a game and apply one action in place, or refuse it with a sentence."""

from __future__ import annotations

from collections.abc import Sequence

from core.engine import Audience, Decision, Event, IllegalAction, Moves, Rng, Seat
from core.games.bigidea.actions import (
    PITCH_LIMIT,
    Invest,
    Pass,
    Pick,
    Pitch,
    Point,
    Withdraw,
)
from core.games.bigidea.cards import deck_ids, is_product, product_name
from core.games.bigidea.events import (
    ChitInvested,
    ChitWithdrawn,
    PickChosen,
    Pitched,
    PlayerPassed,
    PointChosen,
    TimedOut,
)
from core.games.bigidea.flow import deal_start, next_turn, resolve_votes, reveal, start_round
from core.games.bigidea.legal import (
    can_pick,
    invest_cost,
    may_pitch,
    on_turn,
    pick_options,
    picking,
    pointing,
)
from core.games.bigidea.state import START_MONEY, BigIdeaOptions, BigIdeaState, Product
from core.games.bigidea.text import (
    card_list,
    join,
    money,
    pick_line,
    plural,
    point_line,
    product_label,
)
from core.text import escape, possessive

__all__ = ["DECISIONS", "MOVES", "new_state"]

_PHASE_NAMES = {
    "pick": "the seed phase",
    "venture": "the venture phase",
    "mezzanine": "the mezzanine phase",
    "over": "the end of the game",
}


def new_state(names: Sequence[str], options: BigIdeaOptions, rng: Rng) -> BigIdeaState:
    """Shuffle, give everyone $10, their chits and three cards, and deal round 1."""
    players = len(names)
    deck = deck_ids(options.safe_for_work)
    rng.shuffle(deck)
    state = BigIdeaState(
        names=list(names),
        options=options,
        rounds=2 * players,
        money=[START_MONEY] * players,
        chits=[options.chits] * players,
        hands=[[] for _ in range(players)],
        deck=deck,
        picks=[None] * players,
    )
    events: list[Event] = []
    deal_start(state, rng, events)
    start_round(state, rng, events)
    return state


def _require_phase(state: BigIdeaState, phase: str, what: str) -> None:
    if state.phase != phase:
        raise IllegalAction(
            f"{what} in {_PHASE_NAMES[phase]}; this is {_PHASE_NAMES[state.phase]}."
        )


def _pick(state: BigIdeaState, seat: Seat, action: Pick, rng: Rng) -> list[Event]:
    _require_phase(state, "pick", "Products are picked")
    opts = state.options
    if not can_pick(state, seat):
        raise IllegalAction("You have too few cards to make a product this round.")
    cards = action.cards
    if not opts.min_pick <= len(cards) <= opts.max_pick:
        wanted = f"one to {opts.max_pick} cards" if opts.larger_products else "exactly two cards"
        raise IllegalAction(f"Pick {wanted}; you picked {len(cards)}.")
    if len(set(cards)) != len(cards):
        raise IllegalAction("Pick each card only once.")
    missing = [cid for cid in cards if cid not in state.hands[seat]]
    if missing:
        raise IllegalAction(f"You do not hold {join([f'“{m}”' for m in missing])}.")
    if state.picks[seat] is not None and set(state.picks[seat] or ()) == set(cards):
        # A double click or a repeated command: say so, and leave the game as it was.
        raise IllegalAction(
            "You have already picked those cards; you may pick others until everyone has picked."
        )
    state.picks[seat] = list(cards)
    events: list[Event] = []
    if not picking(state):
        # The last pick: the reveal says what everyone picked, and a confirmation that it may
        # still change would be out of date before anyone read it.
        reveal(state, rng, events)
        return events
    # That this seat has picked (never what) shows in the board's waiting line alone: a line
    # of the story per pick would only repeat it. The confirmation is the panel's own line.
    mine = list(cards)
    events.append(PickChosen(text=pick_line(mine), audience=Audience.only(seat), cards=mine))
    return events


def _pitch(state: BigIdeaState, seat: Seat, action: Pitch, rng: Rng) -> list[Event]:
    product = state.new_product_of(seat) if state.phase == "venture" else None
    if product is None:
        raise IllegalAction(
            "You can pitch only your own new product, after the reveal and until everyone has "
            "pointed."
        )
    if not may_pitch(state, seat):
        raise IllegalAction(f"You have already pitched your {product_name(product.cards)}.")
    text = " ".join(action.text.split())
    if not text:
        raise IllegalAction("Your pitch is empty.")
    if len(text) > PITCH_LIMIT:
        raise IllegalAction(
            f"Your pitch has {plural(len(text), 'character')}; the limit is {PITCH_LIMIT}."
        )
    product.pitch = text
    # A pitch changes no phase: the pointing ends when everyone has pointed, pitches or not.
    return [
        Pitched(
            text=f"{state.names[seat]} pitches the {product_name(product.cards)}: “{escape(text)}”",
            seat=seat,
            product=product.id,
            pitch=text,
            own=True,
        )
    ]


def _point(state: BigIdeaState, seat: Seat, action: Point, rng: Rng) -> list[Event]:
    _require_phase(state, "venture", "Pointing happens")
    target = action.seat
    if target is not None and target not in state.seats:
        raise IllegalAction(f"There is no player at seat {target}.")
    whom = "nobody" if target is None else state.names[target]
    if seat in state.votes and state.votes[seat] == target:
        raise IllegalAction(
            f"You already point at {whom}; you may change that until everyone has pointed."
        )
    state.votes[seat] = target
    events: list[Event] = []
    if not pointing(state):
        # The last point: the reveal says where everyone points (see _pick).
        resolve_votes(state, rng, events)
        return events
    # That this seat has pointed (never at whom) shows on the pointing prompt alone: a line of
    # the story per point would only repeat it. The confirmation is the panel's own line.
    events.append(PointChosen(text=point_line(whom), audience=Audience.only(seat), seat=target))
    return events


def _mezzanine(
    state: BigIdeaState, seat: Seat, action: Invest | Withdraw | Pass, rng: Rng
) -> list[Event]:
    _require_phase(state, "mezzanine", "Chits move")
    turn = state.turn_seat
    if turn != seat:
        raise IllegalAction(f"It is {possessive(state.names[turn or 0])} turn, not yours.")
    name = state.names[seat]
    if isinstance(action, Pass):
        event: Event = PlayerPassed(text=f"{name} passes.", seat=seat)
    else:
        product = _product(state, action.product)
        if isinstance(action, Invest):
            event = _invest(state, seat, product)
        else:
            event = _withdraw(state, seat, product)
    events = [event]
    next_turn(state, rng, events)
    return events


def _product(state: BigIdeaState, product_id: int) -> Product:
    product = state.product(product_id)
    if product is None:
        raise IllegalAction(f"There is no product #{product_id} on the table.")
    return product


def _invest(state: BigIdeaState, seat: Seat, product: Product) -> Event:
    label = product_label(state, product)
    if state.chits[seat] == 0:
        raise IllegalAction("You have no chits left to invest.")
    cost = invest_cost(state, product, seat)
    if sum(cost) > state.money[seat]:
        raise IllegalAction(
            f"You need {money(sum(cost))} to invest in {label}; "
            f"you have {money(state.money[seat])}."
        )
    for owner, amount in enumerate(cost):
        state.money[seat] -= amount
        state.money[owner] += amount
    state.chits[seat] -= 1
    product.chits[seat] += 1
    paid = join([f"{state.names[o]} {money(a)}" for o, a in enumerate(cost) if a > 0])
    return ChitInvested(
        text=f"{state.names[seat]} invests a chit in {label}"
        + (f", paying {paid}." if paid else " for free."),
        seat=seat,
        product=product.id,
        paid=cost,
        moves=[(seat, owner, amount) for owner, amount in enumerate(cost) if amount],
    )


def _withdraw(state: BigIdeaState, seat: Seat, product: Product) -> Event:
    label = product_label(state, product)
    if product.chits[seat] == 0:
        raise IllegalAction(f"You have no chit on {label}.")
    product.chits[seat] -= 1
    state.chits[seat] += 1
    return ChitWithdrawn(
        text=f"{state.names[seat]} takes a chit back from {label}.", seat=seat, product=product.id
    )


def _picks_run_out(state: BigIdeaState, rng: Rng) -> list[Event]:
    """Time is up for picking: a random pick for whoever has not picked, then the reveal."""
    idle = picking(state)
    events: list[Event] = []
    for seat in idle:
        picks = pick_options(state, seat)
        pick = rng.choice([p for p in picks if is_product(p.cards)] or picks)
        state.picks[seat] = list(pick.cards)
        events.append(
            PickChosen(
                text=f"Time is up: a random pick was made for you: {card_list(pick.cards)}.",
                audience=Audience.only(seat),
                cards=list(pick.cards),
            )
        )
    names = join([state.names[s] for s in idle])
    events.append(
        TimedOut(text=f"Time is up: a random pick was made for {names}.", phase="pick", seats=idle)
    )
    reveal(state, rng, events)
    return events


def _pointing_runs_out(state: BigIdeaState, rng: Rng) -> list[Event]:
    """Time is up for pointing: whoever has not pointed points at nobody."""
    idle = pointing(state)
    for seat in idle:
        state.votes[seat] = None
    verb = "points" if len(idle) == 1 else "point"
    text = f"Time is up: {join([state.names[s] for s in idle])} {verb} at nobody."
    events: list[Event] = [TimedOut(text=text, phase="venture", seats=idle)]
    resolve_votes(state, rng, events)
    return events


def _turn_runs_out(state: BigIdeaState, rng: Rng) -> list[Event]:
    """Time is up for a mezzanine turn: the seat to play passes."""
    idle = on_turn(state)
    names = join([state.names[s] for s in idle])
    events: list[Event] = [
        TimedOut(text=f"Time is up: {names} passes.", phase="mezzanine", seats=idle)
    ]
    next_turn(state, rng, events)
    return events


DECISIONS: dict[str, Decision[BigIdeaState]] = {
    "pick": Decision(
        waits=picking, seconds=lambda state: state.options.pick_seconds, timeout=_picks_run_out
    ),
    "venture": Decision(
        waits=pointing, seconds=lambda state: state.options.vote_seconds, timeout=_pointing_runs_out
    ),
    "turn": Decision(
        waits=on_turn, seconds=lambda state: state.options.turn_seconds, timeout=_turn_runs_out
    ),
}
"""The decisions the game waits on: the seed phase's simultaneous pick, the venture phase's
simultaneous pointing and each mezzanine turn, each with its deadline option and what its
passing does."""


MOVES: Moves[BigIdeaState] = {
    Pick: _pick,
    Pitch: _pitch,
    Point: _point,
    Invest: _mezzanine,
    Withdraw: _mezzanine,
    Pass: _mezzanine,
}
"""The moves, by the action each applies (a ``Timeout`` is its decision's, :data:`DECISIONS`)."""
