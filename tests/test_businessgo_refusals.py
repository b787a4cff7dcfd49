"""Busine$$ GO's refusals and debt sentences through the authority (a real redis-server): a
channel's game is rigged to a later moment, then people type and press as they would."""

from __future__ import annotations

import random

import pytest

from bot.commands import codec
from bot.commands.authority import Authority, Request
from bot.commands.outbox import Outbox
from bot.settings import Settings
from core.games.businessgo import GAME
from core.games.businessgo.actions import AuctionOff, SellToBank
from core.games.businessgo.state import BusinessGoState
from storage import GameKey, GameStore
from tests.authority_support import Clock, public_text, save_state, stored_record
from tests.games import businessgo_support as go


@pytest.fixture
def store(redis_store: GameStore) -> GameStore:
    """These tests run on a real redis-server only."""
    return redis_store


CHANNEL = "go-table"
KEY = GameKey("console", CHANNEL)
PEOPLE = ["alice", "bob", "carol"]
OPTIONS = {"turn_seconds": 0, "auto_moves": False}
"""The table's options, which a rigged state carries (no move is made for anyone)."""


@pytest.fixture
def authority(store: GameStore) -> Authority:
    seeds = random.Random(5)
    return Authority(store, Settings(), clock=Clock(), new_seed=lambda: seeds.getrandbits(63))


def req(user: str) -> Request:
    return Request(platform="console", channel=CHANNEL, user=user, name=user.title())


def said_to(out: Outbox, user: str) -> str:
    """What ``user`` alone was told."""
    return "\n".join(d.message.text for d in out.deliveries if d.user == user)


async def table(authority: Authority, store: GameStore, state: BusinessGoState) -> None:
    """Alice, Bob and Carol play; their game goes on from ``state`` (Ann is Alice's seat)."""
    await authority.command(req("alice"), "businessgo", "start turn_seconds=0 auto_moves=no")
    for user in PEOPLE[1:]:
        await authority.command(req(user), "businessgo", "join")
    await authority.command(req("alice"), "businessgo", "begin")
    record = await stored_record(store, KEY)
    assert record.state_json is not None
    names = [seat.name for seat in record.seats]
    await save_state(store, KEY, record, go.later_moment(state, names, record.state_json))


async def refused(authority: Authority, store: GameStore, user: str, text: str) -> str:
    """``user`` types ``/businessgo <text>``: refused privately, nothing changed or shown."""
    before = await stored_record(store, KEY)
    out = await authority.command(req(user), "businessgo", text)
    assert not out.public and out.board is None, public_text(out)
    assert all(d.user == user for d in out.deliveries)
    assert await stored_record(store, KEY) == before
    return said_to(out, user)


async def test_setup_of_an_unknown_country_after_rolling_says_the_name_is_unknown(
    authority: Authority, store: GameStore
) -> None:
    # Alice (with the Japan licence) has rolled onto Canada, whose licence she may buy.
    state = go.own(go.new_game(3, **OPTIONS), 0, licence_only=["japan"])
    state, _ = go.land(state, 0, "canada", go.demand("oil", "oil", "oil"))
    await table(authority, store, state)

    told = await refused(authority, store, "alice", "setup Atlantis")
    assert told.startswith("There is no country called “Atlantis”")
    assert "`/businessgo status`" in told  # where the names are
    told = await refused(authority, store, "alice", "setup japan")
    assert told == (
        "You have rolled already: you can set up a corporation only before the roll, on your "
        "next turn. Now it is your choice: buy the Canada Business Licence or not."
    )
    told = await refused(authority, store, "alice", "roll")
    assert told.startswith("You have rolled already this turn. Now it is your choice: buy")
    told = await refused(authority, store, "alice", "bet 20k")
    assert told.startswith("You can bet only when you land on the Casino. Now it is your choice")
    told = await refused(authority, store, "alice", "travel Atlantis")
    assert told.startswith("There is no country called “Atlantis”")
    told = await refused(authority, store, "alice", "bank Atlantis")
    assert told.startswith("There is no country or Service Industry called “Atlantis”")
    assert "`/businessgo hand`" in told
    assert await refused(authority, store, "bob", "setup japan") == "It is Alice's turn, not yours."


async def test_a_bid_below_the_floor_or_from_someone_short_of_it_says_the_floor(
    authority: Authority, store: GameStore
) -> None:
    # Alice is in debt and auctions her National Corporation in Canada: the bank pays
    # $100,000, the smallest bid. Carol has $60,000, so the auction does not ask her.
    state = go.own(go.new_game(3, **OPTIONS), 0, "japan", "canada", international=["japan"])
    state.fees = ["salary"]
    state = go.with_cash(state, ann=150_000, cy=60_000)
    state, _ = go.land(state, 0, "operating_fees")
    state, _ = go.act(state, 0, AuctionOff(asset="canada"))
    assert state.auction is not None and state.auction.eligible == [1]
    await table(authority, store, state)

    told = await refused(authority, store, "bob", "bid 50k")
    assert told == (
        "Your bid of $50,000 is below the smallest bid, the bank's price of $100,000: below it "
        "Alice would sell to the bank."
    )
    # Carol presses a bid on the board (its buttons are for everyone asked): told why not.
    before = await stored_record(store, KEY)
    board = GAME.render_board(BusinessGoState.model_validate_json(before.state_json or ""))
    bid = next(b for b in board.all_buttons() if b.action and b.action["type"] == "bid")
    out = await authority.press(req("carol"), codec.encode_button("businessgo", bid))
    assert said_to(out, "carol") == (
        "You cannot bid: the smallest bid is the bank's price, $100,000, and you have $60,000."
    )
    assert not out.public and await stored_record(store, KEY) == before
    told = await refused(authority, store, "carol", "bid 100k")
    assert "the smallest bid is the bank's price, $100,000, and you have $60,000" in told
    assert await refused(authority, store, "alice", "bid 200k") == (
        "You cannot bid in your own auction."
    )


async def test_the_debt_line_offers_only_what_is_possible(
    authority: Authority, store: GameStore
) -> None:
    # Alice owes money and has National Corporations only: no downgrade. Bob can pay the
    # bank's price for Italy ($70,000), not for Canada ($100,000); Carol for neither.
    state = go.own(go.new_game(3, **OPTIONS), 0, "canada", "italy")
    state.fees = ["salary"]
    state = go.with_cash(state, ann=0, bob=80_000, cy=20_000)
    state, _ = go.land(state, 0, "operating_fees")
    assert state.deciding == "debt" and state.cash[0] < -70_000
    await table(authority, store, state)
    shown = await authority.command(req("alice"), "businessgo", "status")
    assert shown.board is not None
    assert (
        "must pay it before the game goes on: auction to the other players or sell to the "
        "bank for half." in shown.board.text
    )
    assert "downgrade" not in shown.board.text.lower()

    told = await refused(authority, store, "alice", "downgrade canada")
    assert told == (
        "You own no International Corporation in Canada; you can auction to the other players "
        "or sell to the bank for half."
    )
    # Selling Italy leaves her in debt; what the table reads offers what is left.
    out = await authority.command(req("alice"), "businessgo", "bank italy")
    public = public_text(out)
    assert "sells the National Corporation in Italy to the bank" in public
    assert "must pay it now: sell to the bank for half." in public, public
    assert out.board is not None and "downgrade" not in out.board.text.lower()
    assert "on: sell to the bank for half." in out.board.text
    labels = [b.label for b in out.board.all_buttons()]
    assert labels == [GAME.describe_action(state, SellToBank(asset="canada"))]
    told = await refused(authority, store, "alice", "auction canada")
    assert told == (
        "Nobody else can pay the bank's price for Canada ($100,000) now; you can sell to the "
        "bank for half."
    )
