"""The live board, the private panels, typed commands and the rules page of Busine$$ GO."""

from __future__ import annotations

from typing import Any

import pytest

from core import ui
from core.engine import IllegalAction
from core.games.businessgo import GAME
from core.games.businessgo.actions import (
    AuctionOff,
    Bet,
    Bid,
    Convert,
    Join,
    Pass,
    Roll,
    Sell,
    SellToBank,
    Setup,
    Travel,
)
from core.games.businessgo.board import board
from tests.games.businessgo_support import (
    act,
    auction_view,
    demand,
    land,
    new_game,
    own,
    refused,
    with_cash,
)


def _actions(message: ui.Message) -> list[dict[str, Any]]:
    return [b.action for b in message.all_buttons() if b.action is not None]


def test_turn_panel_has_a_stale_proof_button_per_legal_action() -> None:
    state = own(new_game(), 0, "japan", chimney=True, licence_only=["canada"])
    panel = GAME.render_private(state, 0)
    legal = GAME.legal_actions(state, 0)
    assert _actions(panel) == [a.model_dump(mode="json") for a in legal]
    assert {a["type"] for a in _actions(panel)} == {"setup", "convert", "roll"}
    assert all(b.version == state.version and b.seat == 0 for b in panel.all_buttons())
    labels = [b.label for b in panel.all_buttons()]
    assert "Set up in Canada ($140,000)" in labels
    assert "Convert Japan to International ($280,000)" in labels
    assert "You have $750,000." in panel.text
    # Someone waiting sees no buttons, only whom the game waits for.
    other = GAME.render_private(state, 1)
    assert other.all_buttons() == [] and "Waiting for Ann" in other.text


def test_travel_panel_uses_a_menu_for_the_26_countries() -> None:
    state, _ = land(new_game(), 0, "travel_agency")
    panel = GAME.render_private(state, 0)
    assert len(panel.selects) == 2  # 25 + 1 options (Discord's limit is 25 a menu)
    options = [o.value for s in panel.selects for o in s.options]
    assert options == [c.id for c in board().country]
    assert all(s.field == "country" and s.seat == 0 for s in panel.selects)
    assert [b.label for b in panel.all_buttons()] == ["Stay here"]
    # What a menu sends is a one-element list.
    chosen = GAME.parse_action({"type": "travel", "country": ["japan"]})
    assert chosen == Travel(country="japan")


def test_casino_panel_offers_bets_up_to_the_limit_and_cash() -> None:
    state, _ = land(with_cash(new_game(), ann=300_000), 0, "casino")
    panel = GAME.render_private(state, 0)
    assert [b.label for b in panel.all_buttons()] == [
        "Bet $10,000",
        "Bet $50,000",
        "Bet $100,000",
        "Bet $250,000",
        "Bet $300,000",
        "Stop betting",
        "Bet an amount…",
    ]
    typed = panel.all_buttons()[-1]
    assert typed.ask and typed.command == "bet" and "bet" in GAME.forms
    assert "bet <amount>" in panel.text
    rich, _ = land(with_cash(new_game(), ann=3_000_000), 0, "casino")
    assert Bet(amount=1_000_000) in GAME.legal_actions(rich, 0)
    assert max(a.amount for a in GAME.legal_actions(rich, 0) if isinstance(a, Bet)) == 1_000_000


def test_join_button_goes_to_the_competitor() -> None:
    state = own(own(new_game(), 0, "canada"), 1, "germany")
    state, _ = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    panel = GAME.render_private(state, 1)
    assert _actions(panel) == [Join().model_dump(), Pass().model_dump()]
    assert [b.label for b in panel.all_buttons()] == ["Join the competition", "Stay out"]
    assert "You snooze, you lose" in panel.text
    board_text = GAME.render_board(state).plain_text()
    assert "Ann sells luxury cars to Columbia; joined: nobody yet." in board_text
    assert "Waiting for Bob." in board_text


def test_auction_panel_and_board_keep_bids_sealed() -> None:
    state = own(new_game(3), 0, "japan", "canada", international=["japan"])
    state.fees = ["salary"]
    state = with_cash(state, ann=150_000)
    state, _ = land(state, 0, "operating_fees")
    debt = GAME.render_private(state, 0)
    assert {a["type"] for a in _actions(debt)} == {"downgrade", "sell_bank", "auction"}
    assert "You owe $100,000" in debt.text
    state, _ = act(state, 0, AuctionOff(asset="canada"))
    panel = GAME.render_private(state, 1)
    assert [b.label for b in panel.all_buttons()] == [
        "Bid $50,000",
        "Bid $100,000",
        "Bid $150,000",
        "Bid $200,000",
        "Bid $250,000",
        "Pass",
        "Bid an amount…",  # a form: any amount, sealed like the others
    ]
    state, _ = act(state, 1, Bid(amount=170_000))
    for text in (GAME.render_board(state).plain_text(), GAME.view(state, None).model_dump_json()):
        assert "170,000" not in text and "170000" not in text
    assert auction_view(state, 1).your_bid == 170_000
    assert auction_view(state, 2).your_bid is None  # Cy has not bid yet


def test_board_shows_positions_owners_cash_and_corporations() -> None:
    state = own(new_game(), 1, "canada", "japan", international=["japan"])
    state = own(state, 2, licence_only=["mexico"])
    text = GAME.render_board(state).plain_text()
    assert "Canada [Bob N+]" not in text and "Canada [Bob N]" in text
    assert "Japan [Bob I]" in text and "Mexico [Cy licence]" in text
    assert "▶ Ann: $750,000 · on BUSINE$$ GO Start" in text
    assert "Bob: $750,000 · on BUSINE$$ GO Start · Canada N, Japan I" in text
    assert "Opening roll" in text


def test_one_public_message_per_move_with_dice_space_and_result() -> None:
    state = own(new_game(), 0, "canada")
    state, events = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    public = [e for e in events if e.audience.is_public]
    assert len(public) == 1
    assert public[0].text.splitlines() == [
        "Ann rolls 1+1 = 2.",
        "Ann lands on Columbia (Americas, licence unsold). Product Demand: luxury cars, oil, oil.",
        "Ann sells luxury cars to Columbia (1 corporation): $110,000.",
    ]
    assert public[0].data["dice"] == [1, 1] and public[0].data["space"] == "columbia"


@pytest.mark.parametrize(
    ("word", "rest", "action"),
    [
        ("roll", "", Roll()),
        ("setup", "Canada", Setup(country="Canada")),
        ("convert", "japan", Convert(country="japan")),
        ("bet", "250k", Bet(amount=250_000)),
        ("bet", "$1,000,000", Bet(amount=1_000_000)),
        ("bid", "120000", Bid(amount=120_000)),
        ("travel", "united states", Travel(country="united states")),
        ("compete", "", Join()),
        ("pass", "", Pass()),
        ("sell", "luxury cars", Sell(product="cars")),
        ("bank", "law firm", SellToBank(asset="law firm")),
    ],
)
def test_text_commands(word: str, rest: str, action: object) -> None:
    assert word in GAME.text_commands or word == "stop"
    assert GAME.parse_text(new_game(), 0, word, rest) == action


def test_typed_names_are_understood_by_the_rules() -> None:
    state = own(new_game(), 0, licence_only=["united_states"])
    state, _ = act(state, 0, GAME.parse_text(state, 0, "setup", "United States"))
    assert "united_states" in state.corporations


def test_bad_typed_input_gets_a_sentence() -> None:
    state = new_game()
    with pytest.raises(IllegalAction, match="amount in dollars"):
        GAME.parse_text(state, 0, "bet", "lots")
    with pytest.raises(IllegalAction, match="no product called “tea”"):
        GAME.parse_text(state, 0, "sell", "tea")
    assert GAME.parse_text(state, 0, "setup", "") is None
    refused(state, 0, Setup(country="Atlantis"), "no country called “Atlantis”")


def test_every_legal_action_has_a_label() -> None:
    state = own(new_game(), 0, "japan", chimney=True, licence_only=["canada"])
    for action in GAME.legal_actions(state, 0):
        assert GAME.describe_action(state, action)


def test_rules_page_has_topics_and_every_table() -> None:
    overview = GAME.rules(None)
    assert "Topics" in overview or "topic" in overview
    page = GAME.rules("all")
    for needle in ("$750,000", "$650,000", "41 and more", "Canada", "Travel Agency", "simulate"):
        assert needle in page
    for topic in GAME.rule_topics():
        assert "There is no rules topic" not in GAME.rules(topic)
