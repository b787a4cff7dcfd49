"""Deadlines of Busine$$ GO: each timeout makes the least harmful choice, and stale timers
change nothing."""

from __future__ import annotations

from core.engine import SYSTEM, Timeout
from core.games.businessgo import GAME
from core.games.businessgo.actions import AuctionOff, Bid, Join, Pass, Roll
from core.games.businessgo.board import board
from core.games.businessgo.state import BusinessGoState
from tests.games.businessgo_support import (
    act,
    check_books,
    demand,
    land,
    new_game,
    own,
    refused,
    text,
    timeout,
    transfers,
    with_cash,
)


def _debt(players: int = 3) -> BusinessGoState:
    state = own(new_game(players), 0, "japan", "canada", "columbia", international=["japan"])
    state.fees = ["salary"]
    state = with_cash(state, ann=100_000)
    state, _ = land(state, 0, "operating_fees")  # 5 units: $250,000
    assert state.deciding == "debt" and state.cash[0] == -150_000
    return state


def test_a_debt_timeout_downgrades_then_sells_the_cheapest_assets() -> None:
    state, events = timeout(_debt())
    said = text(events)
    assert "Time is up: Ann downgrades and sells to the bank, cheapest first" in said
    assert "covered from the bank" not in said
    assert [t[2] for t in transfers(events)] == ["downgrade", "bank_sale"]
    assert not state.corporations["japan"].international
    assert "columbia" not in state.licences  # the cheapest asset
    columbia = board().countries["columbia"]
    half = (columbia.licence + columbia.start_up) // 2
    assert state.cash[0] == -150_000 + 140_000 + half and state.turn == 1
    check_books(state)


def test_an_auction_timeout_opens_the_bids_and_an_accept_timeout_takes_the_best() -> None:
    state, _ = act(_debt(), 0, AuctionOff(asset="canada"))
    assert state.deadline is not None and state.deadline.seconds == 30
    state, _ = act(state, 2, Bid(amount=100_000))
    state, events = timeout(state)
    assert "Time is up for bids: Bob passes." in text(events)
    nobody, _ = act(_debt(), 0, AuctionOff(asset="canada"))
    _, events = timeout(nobody)
    assert "Time is up for bids: Bob and Cy pass." in text(events).splitlines()
    assert state.deciding == "accept" and state.licences["canada"] == 0
    assert state.deadline is not None and state.deadline.seconds == 60  # the seller's turn clock
    state, events = timeout(state)
    assert "Time is up: Ann takes the best bid." in text(events)
    assert state.licences["canada"] == 2
    assert state.deciding == "debt"  # $50,000 still owed


def test_an_asset_nobody_bids_for_cannot_be_auctioned_again() -> None:
    state, _ = act(_debt(), 0, AuctionOff(asset="canada"))
    state, _ = act(state, 1, Pass())
    state, events = act(state, 2, Pass())
    assert "No bid; nothing is sold." in text(events) and state.licences["canada"] == 0
    assert AuctionOff(asset="canada") not in GAME.legal_actions(state, 0)
    refused(state, 0, AuctionOff(asset="canada"), "Nobody bid for Canada in this debt")


def test_bids_can_only_come_from_the_others_once() -> None:
    state, _ = act(_debt(), 0, AuctionOff(asset="canada"))
    refused(state, 0, Bid(amount=100_000), "your own auction")
    state, _ = act(state, 1, Bid(amount=100_000))
    refused(state, 1, Bid(amount=110_000), "already answered")


def test_a_mail_timeout_removes_the_cheapest_corporation() -> None:
    state = own(new_game(2), 0, "united_states", "columbia")
    state, _ = land(state, 0, "mail")
    assert state.deciding == "mail"
    state, _ = timeout(state)
    assert set(state.corporations) == {"united_states"} and state.turn == 1


def test_a_competition_timeout_keeps_who_joined() -> None:
    state = own(own(own(new_game(3, always_compete=False), 0, "canada"), 1, "germany"), 2, "italy")
    state, _ = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    state, _ = act(state, 2, Join())
    state, events = timeout(state, [2, 2])  # Ann doubles
    assert "too late to join: bob" in text(events).lower()
    assert "Sales competition for luxury cars in Columbia: Ann and Cy." in text(events)


def test_stale_and_player_timeouts_are_refused() -> None:
    state = new_game(2)
    assert state.deadline is not None
    old_key = state.deadline.key
    refused(state, 0, Timeout(key=old_key), "Only the game clock")
    state, _ = act(state, 0, Roll(), [4, 6])  # onto the Casino
    refused(state, SYSTEM, Timeout(key=old_key), "already passed")


def test_no_deadline_when_the_option_is_zero() -> None:
    state = own(
        own(new_game(2, compete_seconds=0, always_compete=False), 0, "canada"), 1, "germany"
    )
    state, _ = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    assert state.deciding == "compete" and state.deadline is None
