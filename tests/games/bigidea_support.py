"""Helpers for The Big Idea tests: a rigged rng, table setup, and the invariant checks."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from core.engine import Event, Seat
from core.games.bigidea import GAME
from core.games.bigidea.actions import Pass, Pick, Point
from core.games.bigidea.cards import catalogue, deck_ids
from core.games.bigidea.events import PicksRevealed
from core.games.bigidea.state import START_MONEY, BigIdeaOptions, BigIdeaState, Product
from core.games.bigidea.view import SeatView
from testkit import rules
from testkit.rules import Referee
from testkit.rules import kinds as kinds
from testkit.rules import of_kind as of_kind
from testkit.rules import of_type as of_type

T = TypeVar("T")

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gil"]


class RiggedRandom(rules.RiggedRandom):
    """The shared rigged rng, whose ``choice`` takes the first element unless told otherwise
    (random picks and random pointing are then predictable)."""

    def __init__(
        self,
        rolls: Iterable[int] = (),
        shuffles: Iterable[Sequence[str]] = (),
        choose: int = 0,
        default_roll: int = 6,
    ) -> None:
        super().__init__(rolls, shuffles=shuffles, choose=choose, default_roll=default_roll)


REFEREE: Referee[BigIdeaState] = Referee(GAME, RiggedRandom)
act = REFEREE.act
refused = REFEREE.refused
timeout = REFEREE.timeout


def turn_of(state: BigIdeaState) -> Seat:
    """The seat whose mezzanine turn it is (there must be one)."""
    assert state.turn_seat is not None, "nobody is on turn"
    return state.turn_seat


def own_view(state: BigIdeaState, seat: Seat) -> SeatView:
    """The part of ``seat``'s view only that seat may see."""
    own = GAME.view(state, seat).own
    assert own is not None, "a seated player's view has its own part"
    return own


def deck_top(hands: Sequence[Sequence[str]], dealer: Seat = 0) -> list[str]:
    """The deck top that deals ``hands`` (5 cards each: 3 at the start, 2 in round 1)."""
    n = len(hands)
    order = [(dealer + 1 + i) % n for i in range(n)]
    return [c for s in order for c in hands[s][:3]] + [c for s in order for c in hands[s][3:5]]


def new_game(
    hands: Sequence[Sequence[str]] | None = None,
    players: int = 3,
    rng: random.Random | None = None,
    **options: Any,
) -> BigIdeaState:
    """A fresh game; with ``hands``, each seat holds exactly those five cards in round 1."""
    n = len(hands) if hands is not None else players
    if rng is None:
        rng = RiggedRandom(shuffles=[deck_top(hands)] if hands is not None else [])
    state = GAME.new_game(NAMES[:n], BigIdeaOptions(**options), rng)
    if hands is not None:
        assert state.hands == [list(h) for h in hands]
    return state


def pick_all(
    state: BigIdeaState, picks: dict[Seat, list[str]], rng: random.Random | None = None
) -> tuple[BigIdeaState, list[Event]]:
    events: list[Event] = []
    for seat, cards in picks.items():
        state, new = act(state, seat, Pick(cards=cards), rng)
        events += new
    return state, events


def point_all(
    state: BigIdeaState, votes: dict[Seat, Seat | None], rng: random.Random | None = None
) -> tuple[BigIdeaState, list[Event]]:
    """Everyone in ``votes`` points, in that order (the last point reveals the pointing)."""
    events: list[Event] = []
    for seat, target in votes.items():
        state, new = act(state, seat, Point(seat=target), rng)
        events += new
    return state, events


def pass_until(
    state: BigIdeaState, stop: Any, rng: random.Random | None = None
) -> tuple[BigIdeaState, list[Event]]:
    """Pass mezzanine turns until ``stop(state)`` is true."""
    events: list[Event] = []
    while not stop(state):
        assert state.deciding == "mezzanine" and state.turn_seat is not None
        state, new = act(state, state.turn_seat, Pass(), rng)
        events += new
    return state, events


# --- invariants ---------------------------------------------------------------------------


def check_books(state: BigIdeaState, payouts_seen: int | None = None) -> None:
    """Money, chits and cards are conserved."""
    n = state.players
    assert all(m >= 0 for m in state.money)
    assert sum(state.money) == n * START_MONEY + state.bank_paid
    if payouts_seen is not None:
        assert state.bank_paid == payouts_seen
    for seat in state.seats:
        on_table = sum(p.chits[seat] for p in state.products)
        assert state.chits[seat] >= 0
        assert state.chits[seat] + on_table == state.options.chits
    places = [c for h in state.hands for c in h]
    places += [c for p in state.products for c in p.cards]
    places += state.deck + state.discard
    assert sorted(places) == sorted(deck_ids(state.options.safe_for_work))
    for seat, pick in enumerate(state.picks):
        if pick is not None:
            assert set(pick) <= set(state.hands[seat])
    ids = [p.id for p in state.products]
    assert len(ids) == len(set(ids))


def _name_re(name: str) -> re.Pattern[str]:
    # A name must stand alone: "car" is not in "cards", "cat" is not in "mexi-cat"'s prefix.
    return re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w-])")


_SIGNS = {c.id: (c.text.strip(".!"), c.name, _name_re(c.name)) for c in catalogue().values()}


def _strings(value: Any) -> list[str]:
    """Every string value (never a key) inside nested dicts and lists."""
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return out


def leaks(hidden: Iterable[str], texts: Iterable[str], values: Iterable[Any] = ()) -> list[str]:
    """Hidden cards that show in ``texts`` (by sentence or name) or ``values`` (by id)."""
    hidden = set(hidden)
    if not hidden:
        return []
    strings = _strings(list(values))
    found = [f"{s!r} is a hidden card id" for s in strings if s in hidden]
    # One blob searched by plain substring first is far quicker than a regex per text.
    blob = "\n".join([*texts, *strings])
    for cid in hidden:
        sentence, name, name_re = _SIGNS[cid]
        if sentence in blob:
            found.append(f"{cid}: {sentence!r}")
        if name in blob and (match := name_re.search(blob)):
            found.append(f"{cid}: {blob[max(0, match.start() - 60) : match.end() + 60]!r}")
    return found


def hand_cards(state: BigIdeaState) -> set[str]:
    return {c for h in state.hands for c in h}


def check_public_surfaces(state: BigIdeaState) -> None:
    """No card in a hand (pending picks included) in the public view, board or prompt."""
    hidden = hand_cards(state)
    public = GAME.view(state, None).model_dump(mode="json")
    json.dumps(public)
    assert "hand" not in public and "pick" not in public and "vote" not in public
    board = GAME.render_board(state)
    prompt = GAME.render_prompt(state)
    texts = [board.plain_text()]
    values: list[Any] = [public]
    for message in [board] + ([prompt] if prompt else []):
        texts.append(message.plain_text())
        texts += [b.label for b in message.all_buttons()]
        values += [b.action for b in message.all_buttons()]
    assert not leaks(hidden, texts, values)


def payload(event: Event) -> dict[str, object]:
    """What an event carries beyond its text and its audience: the fields of its class."""
    return event.model_dump(exclude=set(Event.model_fields))


def check_public_events(before: BigIdeaState, after: BigIdeaState, events: Sequence[Event]) -> None:
    """Public events of one transition show no card that is secret after it.

    A card is secret when it sits in a hand after the transition, unless it was already public
    before (on the table or in the discards) or was revealed by this transition.
    """
    revealed = {
        c for e in events if isinstance(e, PicksRevealed) for pick in e.picks if pick for c in pick
    }
    public_before = {c for p in before.products for c in p.cards} | set(before.discard)
    hidden = hand_cards(after) - public_before - revealed
    public = [e for e in events if e.audience.is_public]
    assert not leaks(hidden, [e.text for e in public], [payload(e) for e in public])
    # Where anyone points stays secret until every finger is up.
    if after.deciding == "venture":
        for e in public:
            assert "points at" not in e.text, e.text


def all_card_ids() -> list[str]:
    return list(catalogue())


# --- standard tables ---------------------------------------------------------------------

HANDS = [
    ["cat", "frozen", "hat", "gigantic", "zen"],
    ["car", "love", "chair", "swiss", "evil"],
    ["robot", "happy", "clock", "simple", "radio"],
]
PICKS = {0: ["cat", "frozen"], 1: ["car", "love"], 2: ["robot", "happy"]}


def in_venture() -> BigIdeaState:
    state, _ = pick_all(new_game(HANDS), PICKS)
    assert state.deciding == "venture"
    return state


def in_mezzanine() -> BigIdeaState:
    state, _ = point_all(in_venture(), {0: None, 1: None, 2: None})
    assert state.deciding == "mezzanine"
    return state


def table(state: BigIdeaState, *products: tuple[int, list[str], list[int]]) -> BigIdeaState:
    """Replace the table with ``products`` (owner, cards, chits by seat), keeping the books."""
    state = state.model_copy(deep=True)
    for p in state.products:
        state.discard.extend(p.cards)
        for seat, count in enumerate(p.chits):
            state.chits[seat] += count
    state.products = []
    for owner, cards, chits in products:
        for cid in cards:
            for pile in [state.deck, state.discard, *state.hands]:
                if cid in pile:
                    pile.remove(cid)
        state.products.append(
            Product(id=state.next_product_id, owner=owner, cards=cards, chits=chits, new=False)
        )
        state.next_product_id += 1
        for seat, count in enumerate(chits):
            state.chits[seat] -= count
    check_books(state)
    return state
