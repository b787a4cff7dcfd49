"""What each seat may do now, and the prices that decide it.

The reducer in ``rules.py`` validates with the same helpers, so ``legal_actions`` and ``apply``
cannot drift apart.
"""

from __future__ import annotations

from itertools import combinations

from core.engine import Seat
from core.games.bigidea.actions import Action, Invest, Pass, Pick, Point, Withdraw
from core.games.bigidea.state import BigIdeaState, Product

__all__ = [
    "can_pick",
    "chit_payout",
    "invest_cost",
    "legal_actions",
    "may_pitch",
    "mezzanine_options",
    "on_turn",
    "pick_options",
    "picking",
    "point_options",
    "pointing",
    "unit_price",
    "waiting_for",
]


def can_pick(state: BigIdeaState, seat: Seat) -> bool:
    """Whether ``seat`` takes part in this seed phase (a dry deck can leave a hand too small)."""
    return len(state.hands[seat]) >= state.options.min_pick


def pick_options(state: BigIdeaState, seat: Seat) -> list[Pick]:
    """Every pick ``seat`` may make: each set of min..max cards of its hand, in hand order,
    except the pick it already made (picking it again would change nothing)."""
    hand = state.hands[seat]
    opts = state.options
    current = set(state.picks[seat] or ())
    sizes = range(opts.min_pick, min(opts.max_pick, len(hand)) + 1)
    return [
        Pick(cards=list(combo))
        for size in sizes
        for combo in combinations(hand, size)
        if set(combo) != current
    ]


def has_pick_option(state: BigIdeaState, seat: Seat) -> bool:
    """Whether :func:`pick_options` lists anything for ``seat``, without building the list (a
    panel drawn at every move only needs to know; a hand of eight has dozens of picks)."""
    if not can_pick(state, seat):
        return False
    hand = state.hands[seat]
    opts = state.options
    current = set(state.picks[seat] or ())
    sizes = range(opts.min_pick, min(opts.max_pick, len(hand)) + 1)
    return any(set(combo) != current for size in sizes for combo in combinations(hand, size))


def may_pitch(state: BigIdeaState, seat: Seat) -> bool:
    """Whether ``seat`` owns a new product it may still pitch: the pointing is not revealed yet
    (it is as soon as everyone has pointed) and the product has no pitch."""
    product = state.new_product_of(seat) if state.phase == "venture" else None
    return product is not None and product.pitch is None


def point_options(state: BigIdeaState, seat: Seat) -> list[Point]:
    """Everyone and nobody, except where ``seat`` already points."""
    targets: list[Seat | None] = [*state.seats, None]
    if seat in state.votes:
        targets.remove(state.votes[seat])
    return [Point(seat=target) for target in targets]


def unit_price(state: BigIdeaState, product: Product) -> int:
    """Cents paid to a chit's owner for each chit on ``product`` when someone invests."""
    return 50 * len(product.cards) if state.options.larger_products else 100


def invest_cost(state: BigIdeaState, product: Product, seat: Seat) -> list[int]:
    """What ``seat`` pays each seat to invest in ``product`` (its own chits are not counted)."""
    unit = unit_price(state, product)
    return [0 if owner == seat else count * unit for owner, count in enumerate(product.chits)]


def chit_payout(state: BigIdeaState, product: Product, roll: int) -> int:
    """Cents each chit earns when ``product`` floats on ``roll``."""
    if state.options.larger_products:
        return 100 * len(product.cards) * roll
    return 200 * roll


def mezzanine_options(state: BigIdeaState, seat: Seat) -> list[Invest | Withdraw | Pass]:
    """Invest where affordable, withdraw where ``seat`` has a chit, or pass."""
    options: list[Invest | Withdraw | Pass] = []
    if state.chits[seat] > 0:
        options.extend(
            Invest(product=p.id)
            for p in state.products
            if sum(invest_cost(state, p, seat)) <= state.money[seat]
        )
    options.extend(Withdraw(product=p.id) for p in state.products if p.chits[seat] > 0)
    options.append(Pass())
    return options


def legal_actions(state: BigIdeaState, seat: Seat) -> list[Action]:
    """Every action ``seat`` may apply now. Pitches are free text and never listed."""
    if state.finished or seat not in state.seats:
        return []
    if state.phase == "pick":
        return list(pick_options(state, seat)) if can_pick(state, seat) else []
    if state.phase == "venture":
        return list(point_options(state, seat))
    if state.phase == "mezzanine" and state.turn_seat == seat:
        return list(mezzanine_options(state, seat))
    return []


def picking(state: BigIdeaState) -> list[Seat]:
    """Whom the seed phase waits for: every seat that can make a product and has not picked."""
    return [s for s in state.seats if can_pick(state, s) and state.picks[s] is None]


def pointing(state: BigIdeaState) -> list[Seat]:
    """Whom the venture phase waits for: every seat that has not pointed. It does not wait
    for pitches: once everyone has pointed, the last pitch awaited would reveal the pointing
    at once, before anyone could act on it, so no pitch could matter any more."""
    return [s for s in state.seats if s not in state.votes]


def on_turn(state: BigIdeaState) -> list[Seat]:
    """Whom a mezzanine turn waits for: the seat to play."""
    seat = state.turn_seat
    return [] if seat is None else [seat]


def waiting_for(state: BigIdeaState) -> list[Seat]:
    """Seats whose input the game needs before it can move on (in whatever phase)."""
    if state.finished:
        return []
    if state.phase == "pick":
        return picking(state)
    if state.phase == "venture":
        return pointing(state)
    return on_turn(state)
