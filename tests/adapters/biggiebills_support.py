"""BiggieBills$$$ helpers shared by the Discord and Slack adapter tests: which card names are
secret at a moment of the game, and a late-game moment whose choices have long names."""

from __future__ import annotations

import re

from bot.commands.record import GameRecord
from core.engine import OpenDecision
from core.games.biggiebills.cards import card_name
from core.games.biggiebills.state import Active, BiggieBillsState

__all__ = ["Cards", "late_game", "names_card", "state_of"]


def state_of(record: GameRecord | None) -> BiggieBillsState:
    assert record is not None and record.state_json is not None
    return BiggieBillsState.model_validate_json(record.state_json)


def names_card(text: str, card: str) -> bool:
    """Whether ``text`` names ``card`` ("Challenge Sales Team" does not name "Sales Team")."""
    if card.startswith("Challenge "):
        return card in text
    return re.search(r"(?<!Challenge )" + re.escape(card), text) is not None


class Cards:
    """Card names that play has made public so far, and the ones still secret."""

    def __init__(self) -> None:
        self.public: set[str] = set()

    def update(self, state: BiggieBillsState) -> None:
        """Cards played, completed or discarded were named in the channel by the rules (and the
        Challenge card of a card in play may be played in the open)."""
        seen = {a.card for a in state.active}
        seen |= {c for done in state.completed for c in done}
        seen |= set(state.firsts) | set(state.growth_discard) | set(state.challenge_discard)
        names = {card_name(c) for c in seen}
        self.public |= names | {f"Challenge {n}" for n in names}

    def hand(self, state: BiggieBillsState, seat: int) -> set[str]:
        """The Growth and Challenge cards of ``seat`` that nobody outside it may know of."""
        self.update(state)
        return {card_name(c) for c in state.growth[seat] + state.challenges[seat]} - self.public

    def hidden(self, state: BiggieBillsState) -> set[str]:
        return {name for seat in state.seats for name in self.hand(state, seat)}

    def only(self, state: BiggieBillsState, seat: int, viewer: int) -> set[str]:
        """``seat``'s secret cards that ``viewer``'s team does not hold a copy of itself."""
        mine = {card_name(c) for c in state.growth[viewer] + state.challenges[viewer]}
        return self.hand(state, seat) - mine


def late_game(state: BiggieBillsState, sharks: int, owls: int) -> None:
    """A later cycle, the Sharks on turn: they have reached Stage 4 and hold its longest-named
    cards; the Owls have International Expansion in play as card #36, which the Sharks may
    challenge; the version is that of a channel that has hosted many games."""
    state.order = [sharks, *[s for s in state.order if s != sharks]]
    state.turn_index, state.decision = 0, OpenDecision(name="turn")
    state.plays_left, state.acted, state.pending = 1, False, None
    state.version += 1000
    state.decision_version = state.version
    state.cash[sharks] = 600
    state.completed[sharks] = [
        "vendor_management",
        "product_launch",
        "national_distribution",
        "global_brand",
    ]
    state.growth[sharks] = [
        "strategic_partnership",
        "international_expansion",
        "initial_public_offering",
        "vertical_integration",
        "national_distribution",
        "seed_funding",
    ]
    state.challenges[sharks][0] = "challenge_international_expansion"
    state.active = [Active(id=36, card="international_expansion", owner=owls, cost=160)]
    state.next_active = 37
