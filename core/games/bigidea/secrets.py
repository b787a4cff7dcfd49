"""What is hidden in The Big Idea, declared for the conformance kit.

Hidden: every hand, the order of the deck, the pending secret picks of the seed phase and the
pending pointing of the venture phase (until everyone reveals at once, an event marked
``reveals``). A variant swaps a card of one hand (one not in its pending pick) with one from
under the deck, changes one seat's pending pick or pointing, or reorders the deck below the
cards the next deal could take.
"""

from __future__ import annotations

from collections import Counter

from core.engine import Rng, Seat, Variant
from core.games.bigidea.legal import pick_options
from core.games.bigidea.state import DEAL_CARDS, BigIdeaState
from core.text import possessive

__all__ = ["inventory", "ledger", "sample", "variants"]


def _safe_top(state: BigIdeaState) -> int:
    """Cards one action may draw: a new round deals two to everyone."""
    return DEAL_CARDS * state.players


def variants(state: BigIdeaState, rng: Rng) -> list[Variant[BigIdeaState]]:
    out: list[Variant[BigIdeaState]] = []
    top = _safe_top(state)
    for seat in state.seats:
        name = state.names[seat]
        picked = set(state.picks[seat] or ())
        free = [i for i, card in enumerate(state.hands[seat]) if card not in picked]
        under = [j for j in range(top, len(state.deck))]
        if free and under:
            i, j = rng.choice(free), rng.choice(under)
            other = state.model_copy(deep=True)
            other.hands[seat][i], other.deck[j] = other.deck[j], other.hands[seat][i]
            out.append(Variant(owner=seat, state=other, what=f"a card in {possessive(name)} hand"))
        if state.deciding == "pick" and state.picks[seat] is not None:
            options = pick_options(state, seat)
            if options:
                other = state.model_copy(deep=True)
                other.picks[seat] = list(rng.choice(options).cards)
                out.append(Variant(owner=seat, state=other, what=f"{possessive(name)} secret pick"))
        if state.deciding == "venture" and seat in state.votes:
            targets = [t for t in [*state.seats, None] if t != state.votes[seat]]
            other = state.model_copy(deep=True)
            other.votes[seat] = rng.choice(targets)
            out.append(Variant(owner=seat, state=other, what=f"where {name} points"))
    if len(state.deck) > top + 1:
        other = state.model_copy(deep=True)
        rest = other.deck[top:]
        rng.shuffle(rest)
        other.deck[top:] = rest
        if other != state:
            out.append(Variant(owner=None, state=other, what="the order of the deck"))
    return out


def inventory(state: BigIdeaState) -> dict[str, int]:
    """Every card in exactly one place: a hand, the deck, the discards or a product."""
    cards: Counter[str] = Counter(state.deck)
    cards.update(state.discard)
    for hand in state.hands:
        cards.update(hand)
    for product in state.products:
        cards.update(product.cards)
    return dict(cards)


def ledger(state: BigIdeaState) -> list[int]:
    return list(state.money)


def sample(state: BigIdeaState, seat: Seat, rng: Rng) -> BigIdeaState:
    """A state ``seat`` cannot tell from ``state`` (a strong bot's world): every card it
    cannot see (the others' hands, the deck, the discards) dealt anew into the same places in
    the same numbers, and the others' pending secret picks and pointing not yet made."""
    world = state.model_copy(deep=True)
    others = [s for s in state.seats if s != seat]
    unseen = sorted([*state.deck, *state.discard, *(c for s in others for c in state.hands[s])])
    rng.shuffle(unseen)
    world.deck, unseen = unseen[: len(state.deck)], unseen[len(state.deck) :]
    world.discard, unseen = unseen[: len(state.discard)], unseen[len(state.discard) :]
    for other in others:
        size = len(state.hands[other])
        world.hands[other], unseen = unseen[:size], unseen[size:]
        world.picks[other] = None
        world.votes.pop(other, None)
    return world
