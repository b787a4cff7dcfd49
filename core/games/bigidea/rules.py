"""The reducer: set up a game and apply one action in place, or refuse it with a sentence."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from core.engine import Audience, Decision, Event, Flow, Play, Rng, Seat
from core.games.bigidea.actions import Action, Invest, Pass, Pick, Pitch, Point, Withdraw
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
    invest_cost,
    invest_options,
    invest_problem,
    not_on_turn,
    on_turn,
    pass_options,
    pass_problem,
    pick_options,
    pick_problem,
    pick_shape,
    picking,
    pitch_options,
    pitch_problem,
    pitch_shape,
    point_options,
    point_problem,
    pointing,
    withdraw_options,
    withdraw_problem,
)
from core.games.bigidea.state import START_MONEY, BigIdeaOptions, BigIdeaState, Product
from core.games.bigidea.text import card_list, join, money, pick_line, point_line, product_label
from core.text import escape

__all__ = ["FLOW", "new_state"]


def new_state(names: Sequence[str], options: BigIdeaOptions, rng: Rng) -> BigIdeaState:
    """Shuffle, draw the first dealer, give everyone $10, their chits and three cards, and
    deal round 1."""
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
        # The rule sheet does not say who deals first; whoever does, the seats after them
        # play the game's last rounds in the same order every time. Drawn at random, every
        # seat has the same chances (see the rules page, Dealer and seats).
        dealer=rng.choice(range(players)),
    )
    events: list[Event] = []
    deal_start(state, rng, events)
    start_round(state, rng, events)
    return state


def _pick(state: BigIdeaState, seat: Seat, action: Pick, rng: Rng) -> list[Event]:
    state.picks[seat] = list(action.cards)
    events: list[Event] = []
    if not picking(state):
        # The last pick: the reveal says what everyone picked, and a confirmation that it may
        # still change would be out of date before anyone read it.
        reveal(state, rng, events)
        return events
    # That this seat has picked (never what) shows in the board's waiting line alone: a line
    # of the story per pick would only repeat it. The confirmation is the panel's own line.
    mine = list(action.cards)
    events.append(PickChosen(text=pick_line(mine), audience=Audience.only(seat), cards=mine))
    return events


def _pitch(state: BigIdeaState, seat: Seat, action: Pitch, rng: Rng) -> list[Event]:
    product = state.new_product_of(seat)
    assert product is not None  # pitch_problem
    text = " ".join(action.text.split())
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
    target = action.seat
    whom = "nobody" if target is None else state.names[target]
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
    name = state.names[seat]
    if isinstance(action, Pass):
        event: Event = PlayerPassed(text=f"{name} passes.", seat=seat)
    else:
        product = state.product(action.product)
        assert product is not None  # invest_problem, withdraw_problem
        if isinstance(action, Invest):
            event = _invest(state, seat, product)
        else:
            event = _withdraw(state, seat, product)
    events = [event]
    next_turn(state, rng, events)
    return events


def _invest(state: BigIdeaState, seat: Seat, product: Product) -> Event:
    label = product_label(state, product)
    cost = invest_cost(state, product, seat)
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


_PHASE_NAMES = {
    "pick": "the seed phase",
    "venture": "the venture phase",
    "mezzanine": "the mezzanine phase",
}
"""The decisions by the phase of the rule sheet each is."""

_WHAT: dict[type[BaseModel], str] = {Pick: "Products are picked", Point: "Pointing happens"}
"""What a move outside its decision is, by its action type (chits move otherwise)."""


def _misplaced(state: BigIdeaState, seat: Seat, action: Action, where: tuple[str, ...]) -> str:
    """Why a move is refused in a decision that does not take it: the phase it belongs to."""
    if isinstance(action, Pitch):
        return (
            "You can pitch only your own new product, after the reveal and until everyone has "
            "pointed."
        )
    what = _WHAT.get(type(action), "Chits move")
    now = _PHASE_NAMES.get(state.deciding or "", "the end of the game")
    return f"{what} in {_PHASE_NAMES[where[0]]}; this is {now}."


FLOW: Flow[BigIdeaState, Action] = Flow(
    decisions={
        "pick": Decision(
            plays={
                Pick: Play(check=pick_problem, apply=_pick, offers=pick_options, shape=pick_shape),
            },
            waits=picking,
            seconds=lambda state: state.options.pick_seconds,
            timeout=_picks_run_out,
        ),
        "venture": Decision(
            plays={
                Point: Play(check=point_problem, apply=_point, offers=point_options),
                Pitch: Play(
                    check=pitch_problem, apply=_pitch, offers=pitch_options, shape=pitch_shape
                ),
            },
            waits=pointing,
            seconds=lambda state: state.options.vote_seconds,
            timeout=_pointing_runs_out,
        ),
        "mezzanine": Decision(
            plays={
                Invest: Play(check=invest_problem, apply=_mezzanine, offers=invest_options),
                Withdraw: Play(check=withdraw_problem, apply=_mezzanine, offers=withdraw_options),
                Pass: Play(check=pass_problem, apply=_mezzanine, offers=pass_options),
            },
            who=not_on_turn,
            waits=on_turn,
            seconds=lambda state: state.options.turn_seconds,
            timeout=_turn_runs_out,
        ),
    },
    misplaced=_misplaced,
)
"""What may be played when: the seed phase's simultaneous pick, the venture phase's
simultaneous pointing (and the owners' pitches) and each mezzanine turn, each with the moves it
takes, its deadline option and what its passing does."""
