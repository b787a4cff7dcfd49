"""The automatic steps between player decisions: dealing, reveals, the IPO, rounds, the end.

Each function works in place on the reducer's private copy of the state and appends events.
"""

from __future__ import annotations

from core.engine import Audience, Ending, Event, Outcome, Rng, Seat, Standing, open_decision, rank
from core.games.bigidea.cards import card, is_product, product_name, product_sentence
from core.games.bigidea.events import (
    CardsDealt,
    DeckEmpty,
    DeckReshuffled,
    GameOver,
    IpoHeld,
    MezzanineOpened,
    PicksRevealed,
    PlayerPassed,
    PointsRevealed,
    ProductDiscarded,
    RoundBegun,
    VentureOpened,
)
from core.games.bigidea.legal import can_pick, chit_payout, may_move_chits
from core.games.bigidea.state import DEAL_CARDS, START_CARDS, BigIdeaState, Launch, Product
from core.games.bigidea.text import card_list, join, money, plural, product_label
from core.turns import rotation

__all__ = [
    "deal_start",
    "next_turn",
    "ranking",
    "resolve_votes",
    "reveal",
    "start_round",
    "table_order",
]


def table_order(state: BigIdeaState, first: Seat) -> list[Seat]:
    """Every seat clockwise (to the left), starting at ``first``."""
    return rotation(first % state.players, state.players)


BANK: Seat = -1
"""The payer of IPO returns in an event's ``moves`` (``(payer, payee, cents)``)."""


def _draw(state: BigIdeaState, rng: Rng, count: int, events: list[Event]) -> list[str]:
    drawn: list[str] = []
    for _ in range(count):
        if not state.deck:
            if not state.discard:
                break
            state.deck, state.discard = state.discard, []
            rng.shuffle(state.deck)
            events.append(
                DeckReshuffled(
                    text=(
                        "The discards are shuffled into a new deck of "
                        f"{plural(len(state.deck), 'card')}."
                    ),
                    deck_size=len(state.deck),
                )
            )
        drawn.append(state.deck.pop(0))
    return drawn


def _deal(state: BigIdeaState, rng: Rng, count: int, events: list[Event]) -> None:
    # Dealt like real cards: to the dealer's left first, the dealer last.
    short: list[str] = []
    for seat in table_order(state, state.dealer + 1):
        cards = _draw(state, rng, count, events)
        state.hands[seat].extend(cards)
        if len(cards) < count:
            short.append(state.names[seat])
        if cards:
            events.append(
                CardsDealt(
                    text=f"You receive {card_list(cards)}.",
                    audience=Audience.only(seat),
                    cards=cards,
                )
            )
    if short:
        events.append(
            DeckEmpty(
                text=f"The deck and discards are empty: {join(short)} got fewer cards.",
                short=short,
            )
        )


def deal_start(state: BigIdeaState, rng: Rng, events: list[Event]) -> None:
    """The opening hands of three cards."""
    _deal(state, rng, START_CARDS, events)


def start_round(state: BigIdeaState, rng: Rng, events: list[Event]) -> None:
    """The dealer deals two cards each, then the seed phase opens."""
    dealer = state.names[state.dealer]
    events.append(
        RoundBegun(
            text=(
                f"Round {state.round} of {state.rounds}: {dealer} deals {DEAL_CARDS} cards "
                "to each player. Pick the cards of your new product."
            ),
            round=state.round,
            dealer=state.dealer,
        )
    )
    _deal(state, rng, DEAL_CARDS, events)
    state.picks = [None] * state.players
    state.votes = {}
    if any(can_pick(state, seat) for seat in state.seats):
        open_decision(state, "pick")
    else:
        reveal(state, rng, events)


def reveal(state: BigIdeaState, rng: Rng, events: list[Event]) -> None:
    """Turn every pick face up at once; make products, discard the rest."""
    lines: list[str] = []
    made: list[int] = []
    for seat in table_order(state, state.dealer):
        picked = state.picks[seat]
        if picked is None:
            continue
        name = state.names[seat]
        for cid in picked:
            state.hands[seat].remove(cid)
        if not is_product(picked):
            state.discard.extend(picked)
            lines.append(f"{name} reveals {card_list(picked)}: not a product, discarded.")
            continue
        items = [cid for cid in picked if card(cid).is_item]
        product = Product(
            id=state.next_product_id,
            owner=seat,
            cards=items + [cid for cid in picked if not card(cid).is_item],
            chits=[0] * state.players,
        )
        state.next_product_id += 1
        state.products.append(product)
        made.append(product.id)
        pname, sentence = product_name(product.cards), product_sentence(product.cards)
        line = f"{name} reveals the {pname}: {sentence}"
        if state.chits[seat] > 0:
            state.chits[seat] -= 1
            product.chits[seat] += 1
            line += f" {name} puts a chit on it."
        else:
            line += f" {name} has no chit left to put on it."
        lines.append(line)
    events.append(
        PicksRevealed(
            text="Everyone reveals at once.\n" + "\n".join(lines) if lines else "Nobody picked.",
            picks=list(state.picks),
            products=made,
            reveals=True,
        )
    )
    state.picks = [None] * state.players
    if made:
        state.votes = {}
        open_decision(state, "venture")
        events.append(
            VentureOpened(
                text=(
                    "Venture phase: everyone points in secret at a player whose new product "
                    "gets their chit, or at nobody; owners may pitch until everyone has pointed."
                ),
            )
        )
    else:
        _start_mezzanine(state, rng, events)


def resolve_votes(state: BigIdeaState, rng: Rng, events: list[Event]) -> None:
    """Show every pointing finger at once and place the chits."""
    lines: list[str] = []
    for seat in table_order(state, state.dealer):
        target = state.votes.get(seat)
        name = state.names[seat]
        if target is None:
            lines.append(f"{name} points at nobody.")
            continue
        product = state.new_product_of(target)
        line = f"{name} points at {'themself' if target == seat else state.names[target]}"
        if target == seat:
            line += ": no chit."
        elif product is None:
            line += ", who has no new product: no chit."
        elif state.chits[seat] == 0:
            line += " but has no chit left."
        else:
            state.chits[seat] -= 1
            product.chits[seat] += 1
            line += f" and puts a chit on {product_label(state, product)}."
        lines.append(line)
    votes = [state.votes.get(seat) for seat in state.seats]
    state.votes = {}
    events.append(
        PointsRevealed(
            text="Everyone points at once.\n" + "\n".join(lines), votes=votes, reveals=True
        )
    )
    _start_mezzanine(state, rng, events)


def _start_mezzanine(state: BigIdeaState, rng: Rng, events: list[Event]) -> None:
    state.turn = 0
    open_decision(state, "mezzanine")
    events.append(
        MezzanineOpened(
            text=(
                f"Mezzanine phase, from {state.names[state.dealer]} clockwise: invest a chit, "
                "withdraw one of yours, or pass."
            ),
        )
    )
    _settle_turn(state, rng, events)


def next_turn(state: BigIdeaState, rng: Rng, events: list[Event]) -> None:
    """The mezzanine moves to the next player, or to the IPO after the last."""
    state.turn += 1
    _settle_turn(state, rng, events)


def _settle_turn(state: BigIdeaState, rng: Rng, events: list[Event]) -> None:
    # A seat whose only choice is to pass is not kept waiting on the clock.
    while (seat := state.turn_seat) is not None and state.turn < state.players:
        if may_move_chits(state, seat):
            open_decision(state, "mezzanine")
            return
        events.append(
            PlayerPassed(
                text=f"{state.names[seat]} has no chit to move and passes.", seat=seat, auto=True
            )
        )
        state.turn += 1
    _ipo(state, rng, events)


def _ipo(state: BigIdeaState, rng: Rng, events: list[Event]) -> None:
    for product in [p for p in state.products if p.total_chits == 0]:
        state.products.remove(product)
        state.discard.extend(product.cards)
        events.append(
            ProductDiscarded(
                text=f"{product_label(state, product)} has no chits and is discarded.",
                product=product.id,
                cards=product.cards,
            )
        )
    for product in sorted(state.products, key=lambda p: p.id):
        roll = rng.randint(1, 6)
        chits = product.total_chits
        label = product_label(state, product)
        backed = plural(chits, "chit")
        payouts = [0] * state.players
        if roll <= chits:
            each = chit_payout(state, product, roll)
            for owner, count in enumerate(product.chits):
                payouts[owner] = count * each
                state.money[owner] += count * each
                state.chits[owner] += count
            state.bank_paid += sum(payouts)
            state.launches += 1
            best = state.best_launch
            if best is None or sum(payouts) > best.paid:
                state.best_launch = Launch(
                    label=label, round=state.round, chits=chits, paid=sum(payouts)
                )
            state.products.remove(product)
            state.discard.extend(product.cards)
            paid = join([f"{state.names[s]} {money(v)}" for s, v in enumerate(payouts) if v > 0])
            text = (
                f"IPO of {label} ({backed}): rolled {roll}, a success! "
                f"Each chit returns with {money(each)}: {paid}."
            )
        else:
            text = (
                f"IPO of {label} ({plural(chits, 'chit')}): rolled {roll}, no offering; it stays."
            )
        events.append(
            IpoHeld(
                text=text,
                product=product.id,
                cards=product.cards,
                roll=roll,
                chits=chits,
                success=roll <= chits,
                payouts=payouts,
                moves=[(BANK, s, v) for s, v in enumerate(payouts) if v],
            )
        )
    for product in state.products:
        product.new = False
    _end_round(state, rng, events)


def _end_round(state: BigIdeaState, rng: Rng, events: list[Event]) -> None:
    if state.round >= state.rounds:
        _finish(state, events)
        return
    state.round += 1
    state.dealer = (state.dealer + 1) % state.players
    start_round(state, rng, events)


def ranking(state: BigIdeaState) -> list[Standing]:
    """The players by money, as the standings show them (the final ones at the end)."""
    return rank(
        state.names,
        state.seats,
        lambda s: state.money[s],
        lambda s: state.money[s] / 100,
    )


def _finish(state: BigIdeaState, events: list[Event]) -> None:
    standings = ranking(state)
    top = [st.name for st in standings if st.rank == 1]
    best = money(state.money[standings[0].seat])
    if len(top) == 1:
        summary = f"{top[0]} wins with {best}."
    else:
        summary = f"{join(top)} tie for first with {best}."
    table = "\n".join(
        f"{st.rank}. {st.name} {money(state.money[st.seat])}"
        + (" (tied)" if sum(1 for o in standings if o.rank == st.rank) > 1 else "")
        for st in standings
    )
    state.outcome = Outcome(
        standings=standings, summary=summary, rounds=state.round, ended=Ending.ALL_ROUNDS
    )
    events.append(
        GameOver(
            text=f"Game over: every player has dealt twice. {summary}\n{table}",
            standings=standings,
        )
    )
