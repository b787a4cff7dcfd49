"""Sentences that read right with the names a table picks, through the authority: a name ending
in s takes a bare apostrophe ("Sharks' turn") in all three games, counts agree with their noun,
the lobby names the team that is too small, and the `challenge` help says what `flex` is for.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from bot.commands.authority import Authority, Request
from bot.commands.outbox import Outbox
from bot.settings import Settings
from core.engine import OpenDecision
from core.games.biggiebills.state import BiggieBillsState
from core.games.bigidea.cards import card, product_name
from core.games.bigidea.state import BigIdeaState, Product
from core.games.businessgo.state import BusinessGoState
from storage import GameKey, GameStore
from tests.authority_support import Clock, public_text, save_state, stored_record
from tests.games.biggiebills_support import arrange
from tests.games.biggiebills_table import free, in_play, panel_of, say, table


@pytest.fixture
async def store() -> AsyncIterator[GameStore]:
    store = GameStore.from_url(None)  # the embedded store
    yield store
    await store.close()


@pytest.fixture
def authority(store: GameStore) -> Authority:
    seeds = random.Random(23)
    return Authority(store, Settings(), clock=Clock(), new_seed=lambda: seeds.getrandbits(63))


def private(out: Outbox, user: str) -> str:
    shown = [d.message for d in out.deliveries if d.user == user]
    shown += [out.panels[user]] if user in out.panels else []
    return "\n".join(m.text for m in shown)


# --- BiggieBills$$$ ----------------------------------------------------------------------------


def sharks_in_play(state: BiggieBillsState, sharks: int, owls: int) -> BiggieBillsState:
    """The Sharks have Vendor Management in play and it is the Owls' turn; the Owls hold its
    Challenge card and have completed a Stage 1 card, so they may challenge it."""
    state = in_play(state, sharks, "vendor_management")
    free(state, owls, ["challenge_vendor_management"])
    hand = ["challenge_vendor_management", *state.challenges[owls][:3]]
    if hand.count("challenge_vendor_management") > 1:
        hand = ["challenge_vendor_management", *state.challenge_deck[:3]]
        free(state, owls, hand)
    state = arrange(state, owls, challenges=hand, completed=["business_plan"])
    state.turn_index = 1  # the Owls play second in the order
    state.turn_cash = list(state.cash)
    return state


async def test_a_team_whose_name_ends_in_s_is_never_sharkss(
    authority: Authority, store: GameStore
) -> None:
    await table(authority, store, "sharks", sharks_in_play)
    early = await say(authority, "alice", "sharks", "skip")
    assert "It is Owls' turn, not yours." in private(early, "alice")
    panel = panel_of(await say(authority, "carol", "sharks", "hand"), "carol")
    assert "Your turn: 1 Growth/Challenge play left." in panel.text  # not "1 ... play(s)"
    assert "▶ playable now: Sharks' #" in panel.text

    challenged = await say(authority, "carol", "sharks", "challenge Sharks Vendor Management")
    said = public_text(challenged)
    assert "Owls challenges Sharks' Vendor Management (#" in said
    assert "Waiting for Sharks to block or accept Owls' challenge." in said
    accepted = await say(authority, "alice", "sharks", "accept")
    assert "The challenge stands: Sharks pays Owls $8M" in public_text(accepted)
    assert "s's" not in said + public_text(accepted) + panel.text


async def test_the_challenge_help_says_what_flex_does_and_that_a_block_is_not_played_so(
    authority: Authority, store: GameStore
) -> None:
    await table(authority, store, "help", sharks_in_play)
    wrong = await say(authority, "carol", "help", "challenge the lot")
    assert private(wrong, "carol") == (
        "Write `challenge <team> <card>`, e.g. `challenge Sharks Vendor Management`, to "
        "challenge that team's active Growth card with your Challenge card of it; end with "
        "`flex` (`challenge Sharks Vendor Management flex`) to use a Flexible Challenge of its "
        "stage instead. A Block a Challenge is not played this way: it answers a challenge to "
        "your own card (`block`)."
    )
    help_text = private(await say(authority, "carol", "help", "help"), "carol")
    assert "challenge <team> <card> [flex]" in help_text and "via `flex`" not in help_text


async def test_the_lobby_names_the_team_too_small_to_begin(authority: Authority) -> None:
    def req(user: str) -> Request:
        return Request(platform="console", channel="lobby", user=user, name=user.title())

    for user, words in [
        ("alice", "start min_team_size=3"),
        ("alice", "join Sharks"),
        ("bob", "join Sharks"),
        ("dave", "join Sharks"),
        ("carol", "join Owls"),
        ("erin", "join Whales"),
        ("frank", "join Whales"),
        ("alice", "addbot"),
    ]:
        await authority.command(req(user), "biggiebills", words)
    refused = await authority.command(req("alice"), "biggiebills", "begin")
    assert private(refused, "alice") == (
        "Every human team needs at least 3 people (min_team_size): Owls has 1 person and "
        "Whales has 2 people. Bot teams are fine."
    )
    assert not refused.public


# --- The Big Idea and Busine$$ GO: players named James, Jess and Lois --------------------------


def request(user: str, channel: str) -> Request:
    return Request(platform="console", channel=channel, user=user, name=user.title())


async def seated(authority: Authority, game: str, channel: str) -> None:
    await authority.command(request("jess", channel), game, "start turn_seconds=0")
    for user in ("james", "lois"):
        await authority.command(request(user, channel), game, "join")
    await authority.command(request("jess", channel), game, "begin")


async def test_the_big_idea_says_jess_turn_and_jess_product(
    authority: Authority, store: GameStore
) -> None:
    await seated(authority, "bigidea", "idea")
    key = GameKey("console", "idea")
    record = await stored_record(store, key)
    assert record.state_json is not None
    state = BigIdeaState.model_validate_json(record.state_json)
    jess = [seat.name for seat in record.seats].index("Jess")
    # The mezzanine of round 1, Jess dealing, with a product of hers on the table (its cards
    # taken from the deck, so every card is still in one place).
    cards = [next(c for c in state.deck if card(c).type == kind) for kind in (1, 2)]
    for taken in cards:
        state.deck.remove(taken)
    state.products.append(Product(id=1, owner=jess, cards=cards, chits=[0, 0, 0]))
    state.next_product_id = 2
    state.decision, state.dealer, state.turn = OpenDecision(name="mezzanine"), jess, 0
    state.picks = [None] * state.players
    state.version += 1
    state.decision_version = state.version
    await save_state(store, key, record, state)
    early = await authority.command(request("lois", "idea"), "bigidea", "pass")
    assert "It is Jess' turn, not yours." in private(early, "lois")
    passed = await authority.command(request("jess", "idea"), "bigidea", "pass")
    assert "Jess passes." in passed.log
    assert passed.board is not None
    assert f"#1 Jess' {product_name(cards)}" in passed.board.text


async def test_business_go_says_whose_turn_it_is_with_a_bare_apostrophe(
    authority: Authority, store: GameStore
) -> None:
    await seated(authority, "businessgo", "go")
    record = await stored_record(store, GameKey("console", "go"))
    assert record.state_json is not None
    state = BusinessGoState.model_validate_json(record.state_json)
    on_turn = record.seats[state.turn].name
    other = next(seat.users[0] for seat in record.seats if seat.name != on_turn)
    early = await authority.command(request(other, "go"), "businessgo", "roll")
    assert f"It is {on_turn}' turn, not yours." in private(early, other)
