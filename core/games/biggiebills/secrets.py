"""What is hidden in BiggieBills$$$, declared for the conformance kit.

Hidden: every team's hand (Growth, Challenge and Bonus cards; only their counts are public) and
the order of the face-down decks. A variant swaps one hidden card with one from under a deck,
or reorders a deck below the cards the next action could draw, so card counts stay the same.
"""

from __future__ import annotations

from collections import Counter

from core.engine import Rng, Seat, Variant
from core.games.biggiebills.state import BiggieBillsState
from core.games.biggiebills.text import possessive

__all__ = ["inventory", "ledger", "sample", "variants", "worth"]

SAFE_TOP = 4
"""Cards at the top of a deck that one action may draw (an exchange draws two; completions
draw Bonus cards): variants leave them where they are."""

_HANDS = (("growth", "growth_deck"), ("challenges", "challenge_deck"), ("bonus", "bonus_deck"))
_DISCARDS = {
    "growth_deck": "growth_discard",
    "challenge_deck": "challenge_discard",
    "bonus_deck": "bonus_discard",
}


def variants(state: BiggieBillsState, rng: Rng) -> list[Variant[BiggieBillsState]]:
    out: list[Variant[BiggieBillsState]] = []
    for seat in state.living():
        for hand_name, deck_name in _HANDS:
            hand: list[str] = getattr(state, hand_name)[seat]
            deck: list[str] = getattr(state, deck_name)
            if not hand or len(deck) <= SAFE_TOP:
                continue
            i = rng.randrange(len(hand))
            choices = [j for j in range(SAFE_TOP, len(deck)) if deck[j] != hand[i]]
            if not choices:
                continue
            j = rng.choice(choices)
            other = state.model_copy(deep=True)
            other_hand: list[str] = getattr(other, hand_name)[seat]
            other_deck: list[str] = getattr(other, deck_name)
            other_hand[i], other_deck[j] = other_deck[j], other_hand[i]
            whose = possessive(state.names[seat])
            what = f"a {hand_name} card in {whose} hand ({hand[i]} for {deck[j]})"
            out.append(Variant(owner=seat, state=other, what=what))
    other = state.model_copy(deep=True)
    for _hand, deck_name in _HANDS:
        deck = getattr(other, deck_name)
        rest = deck[SAFE_TOP:]
        rng.shuffle(rest)
        deck[SAFE_TOP:] = rest
    rest = other.industry_deck[1:]
    rng.shuffle(rest)
    other.industry_deck[1:] = rest
    if other != state:
        out.append(Variant(owner=None, state=other, what="the order of the decks"))
    return out


def inventory(state: BiggieBillsState) -> dict[str, int]:
    """Every card in exactly one place: hands, decks, discards, the board or completed."""
    cards: Counter[str] = Counter()
    for hands in (state.growth, state.challenges, state.bonus, state.completed):
        for hand in hands:
            cards.update(hand)
    for pile in (
        state.growth_deck,
        state.growth_discard,
        state.challenge_deck,
        state.challenge_discard,
        state.bonus_deck,
        state.bonus_discard,
    ):
        cards.update(pile)
    cards.update(a.card for a in state.active)
    return dict(cards)


def ledger(state: BiggieBillsState) -> list[int]:
    return list(state.cash)


def sample(state: BiggieBillsState, seat: Seat, rng: Rng) -> BiggieBillsState:
    """A state ``seat`` cannot tell from ``state`` (a strong bot's world): of each kind of
    card, those it cannot see (the other teams' hands, the face-down deck, the discards) dealt
    anew into the same places in the same numbers, and the Industry Rules deck shuffled."""
    world = state.model_copy(deep=True)
    others = [s for s in range(len(state.names)) if s != seat]
    for hand_name, deck_name in _HANDS:
        discard_name = _DISCARDS[deck_name]
        hands: list[list[str]] = getattr(state, hand_name)
        places: list[list[str]] = [getattr(state, deck_name), getattr(state, discard_name)]
        places += [hands[s] for s in others]
        unseen = sorted(card for place in places for card in place)
        rng.shuffle(unseen)
        dealt: list[list[str]] = []
        for place in places:
            dealt.append(unseen[: len(place)])
            unseen = unseen[len(place) :]
        setattr(world, deck_name, dealt[0])
        setattr(world, discard_name, dealt[1])
        world_hands: list[list[str]] = getattr(world, hand_name)
        for other, cards in zip(others, dealt[2:], strict=True):
            world_hands[other] = cards
    industry = sorted(world.industry_deck)
    rng.shuffle(industry)
    world.industry_deck = industry
    return world


def worth(state: BiggieBillsState) -> list[float]:
    """Each team's cash and what it paid for its Growth cards in play that no challenge has
    failed yet, as the board shows them (a team out of the game: nothing), for a strong bot's
    search: a card in play is worth its cost until it completes (counting its payoff instead
    made the search play cards the normal bot knows to be too risky)."""
    values = [float(cash) for cash in state.cash]
    for active in state.active:
        if not active.challengers:
            values[active.owner] += active.cost
    return [value if state.alive[seat] else 0.0 for seat, value in enumerate(values)]
