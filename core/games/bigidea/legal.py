"""What each seat may do now, and the prices that decide it: each move's check (why an action
is refused, as a sentence) and its offers (the actions a seat might make).

The game's declaration (``rules.FLOW``) files each check and its offers under the decision that
accepts the move; the engine refuses with the check's sentence and lists as legal the offers the
check passes, so ``legal_actions`` and ``apply`` cannot drift apart.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

from core.engine import Seat
from core.games.bigidea.actions import PITCH_LIMIT, Invest, Pass, Pick, Pitch, Point, Withdraw
from core.games.bigidea.cards import product_name
from core.games.bigidea.state import BigIdeaState, Product
from core.games.bigidea.text import join, money, plural, product_label
from core.text import possessive

__all__ = [
    "can_pick",
    "chit_payout",
    "has_pick_option",
    "invest_cost",
    "invest_options",
    "invest_problem",
    "may_move_chits",
    "may_pitch",
    "mezzanine_options",
    "not_on_turn",
    "on_turn",
    "pass_options",
    "pass_problem",
    "pick_options",
    "pick_problem",
    "pick_shape",
    "picking",
    "pitch_options",
    "pitch_problem",
    "pitch_shape",
    "point_options",
    "point_problem",
    "pointing",
    "unit_price",
    "withdraw_options",
    "withdraw_problem",
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


def pick_problem(state: BigIdeaState, seat: Seat, action: Pick) -> str | None:
    """Why ``seat`` may not pick ``action.cards`` in this seed phase, or None."""
    opts = state.options
    if not can_pick(state, seat):
        return "You have too few cards to make a product this round."
    cards = action.cards
    if not opts.min_pick <= len(cards) <= opts.max_pick:
        wanted = f"one to {opts.max_pick} cards" if opts.larger_products else "exactly two cards"
        return f"Pick {wanted}; you picked {len(cards)}."
    if len(set(cards)) != len(cards):
        return "Pick each card only once."
    missing = [cid for cid in cards if cid not in state.hands[seat]]
    if missing:
        return f"You do not hold {join([f'“{m}”' for m in missing])}."
    if state.picks[seat] is not None and set(state.picks[seat] or ()) == set(cards):
        # A double click or a repeated command: say so, and leave the game as it was.
        return "You have already picked those cards; you may pick others until everyone has picked."
    return None


def pick_shape(action: Pick) -> object:
    """A pick is its cards, in whatever order they were named (:func:`pick_options` lists
    each set once; the product puts its item first, the descriptions as picked)."""
    return frozenset(action.cards)


def may_pitch(state: BigIdeaState, seat: Seat) -> bool:
    """Whether ``seat`` owns a new product it may still pitch: the pointing is not revealed yet
    (it is as soon as everyone has pointed) and the product has no pitch."""
    product = state.new_product_of(seat) if state.deciding == "venture" else None
    return product is not None and product.pitch is None


def pitch_problem(state: BigIdeaState, seat: Seat, action: Pitch) -> str | None:
    """Why ``seat`` may not make this pitch in the venture phase, or None."""
    product = state.new_product_of(seat)
    if product is None:
        return (
            "You can pitch only your own new product, after the reveal and until everyone has "
            "pointed."
        )
    if product.pitch is not None:
        return f"You have already pitched your {product_name(product.cards)}."
    text = " ".join(action.text.split())
    if not text:
        return "Your pitch is empty."
    if len(text) > PITCH_LIMIT:
        return f"Your pitch has {plural(len(text), 'character')}; the limit is {PITCH_LIMIT}."
    return None


def pitch_options(state: BigIdeaState, seat: Seat) -> list[Pitch]:
    """A pitch is the owner's own words, any of them: one stands for all (its name, said
    plainly). Bots have no words for a pitch and never make one."""
    product = state.new_product_of(seat)
    if product is None:
        return []
    return [Pitch(text=f"The {product_name(product.cards)}.")]


def pitch_shape(action: Pitch) -> object:
    """Every pitch is one choice: what it says is the owner's to type."""
    return "pitch"


def point_options(state: BigIdeaState, seat: Seat) -> list[Point]:
    """Everyone and nobody, except where ``seat`` already points."""
    targets: list[Seat | None] = [*state.seats, None]
    if seat in state.votes:
        targets.remove(state.votes[seat])
    return [Point(seat=target) for target in targets]


def point_problem(state: BigIdeaState, seat: Seat, action: Point) -> str | None:
    """Why ``seat`` may not point at ``action.seat`` in the venture phase, or None."""
    target = action.seat
    if target is not None and target not in state.seats:
        return f"There is no player at seat {target}."
    if seat in state.votes and state.votes[seat] == target:
        whom = "nobody" if target is None else state.names[target]
        return f"You already point at {whom}; you may change that until everyone has pointed."
    return None


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


def not_on_turn(state: BigIdeaState, seat: Seat) -> str | None:
    """Why ``seat`` may not move chits now: it is another seat's mezzanine turn."""
    turn = state.turn_seat
    if turn != seat:
        return f"It is {possessive(state.names[turn or 0])} turn, not yours."
    return None


def _product_problem(state: BigIdeaState, product_id: int) -> str | None:
    if state.product(product_id) is None:
        return f"There is no product #{product_id} on the table."
    return None


def invest_problem(state: BigIdeaState, seat: Seat, action: Invest) -> str | None:
    """Why ``seat`` may not invest a chit in product ``action.product`` on its turn, or None."""
    product = state.product(action.product)
    if product is None:
        return _product_problem(state, action.product)
    if state.chits[seat] == 0:
        return "You have no chits left to invest."
    cost = invest_cost(state, product, seat)
    if sum(cost) > state.money[seat]:
        return (
            f"You need {money(sum(cost))} to invest in {product_label(state, product)}; "
            f"you have {money(state.money[seat])}."
        )
    return None


def invest_options(state: BigIdeaState, seat: Seat) -> list[Invest]:
    return [_invest(p.id) for p in state.products]


def withdraw_problem(state: BigIdeaState, seat: Seat, action: Withdraw) -> str | None:
    """Why ``seat`` may not take a chit back from product ``action.product``, or None."""
    product = state.product(action.product)
    if product is None:
        return _product_problem(state, action.product)
    if product.chits[seat] == 0:
        return f"You have no chit on {product_label(state, product)}."
    return None


def withdraw_options(state: BigIdeaState, seat: Seat) -> list[Withdraw]:
    return [_withdraw(p.id) for p in state.products]


@cache
def _invest(product: int) -> Invest:
    # Made once a product (actions are frozen: one object may be offered to every seat).
    return Invest(product=product)


@cache
def _withdraw(product: int) -> Withdraw:
    return Withdraw(product=product)


def pass_problem(state: BigIdeaState, seat: Seat, action: Pass) -> str | None:
    """Passing is always allowed on one's turn."""
    return None


def pass_options(state: BigIdeaState, seat: Seat) -> list[Pass]:
    return [_PASS]


_PASS = Pass()
"""Offered to every seat on its turn (actions are frozen: one object will do)."""


def mezzanine_options(state: BigIdeaState, seat: Seat) -> list[Invest | Withdraw | Pass]:
    """What ``seat`` may do on its mezzanine turn: invest where affordable, withdraw where it
    has a chit, or pass (the same offers and checks as the declared moves)."""
    invests = [a for a in invest_options(state, seat) if invest_problem(state, seat, a) is None]
    withdraws = [
        a for a in withdraw_options(state, seat) if withdraw_problem(state, seat, a) is None
    ]
    return [*invests, *withdraws, _PASS]


def may_move_chits(state: BigIdeaState, seat: Seat) -> bool:
    """Whether ``seat`` may do more than pass on its mezzanine turn (:func:`mezzanine_options`
    lists more than a pass), found without listing them all."""
    return any(invest_problem(state, seat, a) is None for a in invest_options(state, seat)) or any(
        withdraw_problem(state, seat, a) is None for a in withdraw_options(state, seat)
    )


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
