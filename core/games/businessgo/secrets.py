"""What is hidden in Busine$$ GO, declared for the conformance kit.

Hidden: the sealed bids of an open auction (until it closes, an event marked ``reveals``: the
seller then sees them, as does everyone, while choosing between the best bid and the bank) and
the order of the Mail and Operating Fees decks. A variant changes one pending bid, or reorders a
deck below the cards the next action could draw.
"""

from __future__ import annotations

from core.engine import Rng, Seat, Variant
from core.games.businessgo.legal import asset_value
from core.games.businessgo.state import BusinessGoState
from core.text import possessive

__all__ = ["ledger", "sample", "variants", "worth"]

SAFE_TOP = 3
"""Cards at the top of a deck that one action may draw."""


def variants(state: BusinessGoState, rng: Rng) -> list[Variant[BusinessGoState]]:
    out: list[Variant[BusinessGoState]] = []
    auction = state.auction
    if auction is not None and state.deciding == "auction":
        for seat, bid in auction.bids.items():
            other = state.model_copy(deep=True)
            assert other.auction is not None
            other.auction.bids[seat] = bid + rng.choice([10_000, 50_000]) if bid else 20_000
            what = f"{possessive(state.names[seat])} sealed bid"
            out.append(Variant(owner=seat, state=other, what=what))
    other = state.model_copy(deep=True)
    for deck in (other.mail, other.fees):
        rest = deck[SAFE_TOP:]
        rng.shuffle(rest)
        deck[SAFE_TOP:] = rest
    if other != state:
        out.append(Variant(owner=None, state=other, what="the order of the decks"))
    return out


def ledger(state: BusinessGoState) -> list[int]:
    return list(state.cash)


def sample(state: BusinessGoState, seat: Seat, rng: Rng) -> BusinessGoState:
    """A state ``seat`` cannot tell from ``state`` (a strong bot's world): the Mail and
    Operating Fees decks shuffled anew, and the others' sealed bids of an open auction not yet
    made."""
    world = state.model_copy(deep=True)
    for deck in (world.mail, world.fees):
        cards = sorted(deck)
        rng.shuffle(cards)
        deck[:] = cards
    if world.auction is not None and state.deciding == "auction":
        world.auction.bids = {s: bid for s, bid in world.auction.bids.items() if s == seat}
    return world


def worth(state: BusinessGoState) -> list[float]:
    """Each player's cash and what their licences, corporations and Service Industries cost
    (a bankrupt player: nothing), for a strong bot's search."""
    values = [float(cash) for cash in state.cash]
    for asset, owner in [*state.licences.items(), *state.services.items()]:
        values[owner] += asset_value(state, asset)
    return [0.0 if state.bankrupt[seat] else value for seat, value in enumerate(values)]
