"""The live board and its choices, `hand`, typed commands and the rules page of Busine$$ GO."""

from __future__ import annotations

from typing import Any

import pytest

from bot.commands import codec
from core import ui
from core.commands import find
from core.engine import IllegalAction
from core.games.businessgo import GAME
from core.games.businessgo.actions import (
    Accept,
    AlwaysCompete,
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
from core.games.businessgo.events import Rolled
from tests.games.businessgo_support import (
    act,
    auction_view,
    demand,
    land,
    new_game,
    own,
    refused,
    services,
    with_cash,
)


def _actions(message: ui.Message) -> list[dict[str, Any]]:
    return [b.action for b in message.all_buttons() if b.action is not None]


def test_the_board_has_a_stale_proof_button_per_legal_action_of_the_turn() -> None:
    state = own(new_game(), 0, "japan", chimney=True, licence_only=["canada"])
    shown = GAME.render_board(state)
    legal = GAME.legal_actions(state, 0)
    assert _actions(shown) == [a.model_dump(mode="json") for a in legal]
    assert {a["type"] for a in _actions(shown)} == {"setup", "convert", "roll"}
    # Ann's alone: anyone else who presses one is told whose move it is.
    assert all(b.version == state.version and b.seat == 0 for b in shown.all_buttons())
    labels = [b.label for b in shown.all_buttons()]
    assert "Set up in Canada ($140,000)" in labels
    assert "Convert Japan to International ($280,000)" in labels
    assert "Ann's choices: set up or convert before the roll" in shown.text
    # `hand` shows holdings and where the choices are; no controls of its own.
    panel = GAME.render_private(state, 0)
    assert panel.all_buttons() == [] and panel.selects == []
    assert "You have $750,000." in panel.text and "buttons on the board" in panel.text
    # Someone waiting reads no name that would go stale as the turns pass.
    other = GAME.render_private(state, 1)
    assert other.all_buttons() == [] and "Nothing for you to do now" in other.text


def test_travel_uses_a_menu_for_the_26_countries() -> None:
    state, _ = land(new_game(), 0, "travel_agency")
    panel = GAME.render_board(state)
    assert len(panel.selects) == 2  # 25 + 1 options (Discord's limit is 25 a menu)
    options = [o.value for s in panel.selects for o in s.options]
    assert options == [c.id for c in board().country]
    assert all(s.field == "country" and s.seat == 0 for s in panel.selects)
    assert [b.label for b in panel.all_buttons()] == ["Stay here"]
    # What a menu sends is a one-element list.
    chosen = GAME.parse_action({"type": "travel", "country": ["japan"]})
    assert chosen == Travel(country="japan")


def test_casino_offers_bets_up_to_the_limit_and_cash() -> None:
    state, _ = land(with_cash(new_game(), ann=300_000), 0, "casino")
    panel = GAME.render_board(state)
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
    assert typed.ask and typed.command == "bet"
    bet = find(GAME.commands, "bet")
    assert bet is not None and bet.ask is not None
    assert "bet <amount>" in panel.text
    rich, _ = land(with_cash(new_game(), ann=3_000_000), 0, "casino")
    assert Bet(amount=1_000_000) in GAME.legal_actions(rich, 0)
    assert max(a.amount for a in GAME.legal_actions(rich, 0) if isinstance(a, Bet)) == 1_000_000


def test_join_button_goes_to_the_competitor_who_wants_to_be_asked() -> None:
    state = own(own(new_game(always_compete=False), 0, "canada"), 1, "germany")
    state, _ = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    panel = GAME.render_board(state)
    assert _actions(panel) == [
        Join().model_dump(),
        Pass().model_dump(),
        AlwaysCompete(always=True).model_dump(),
    ]
    assert [b.label for b in panel.all_buttons()] == [
        "Join the competition",
        "Stay out",
        "Always join",
    ]
    assert "Join the sales competition, Bob? You snooze, you lose" in panel.text
    text = GAME.render_private(state, 1).text
    assert "you are asked each time (`/businessgo compete always`" in text
    # Each answers for themselves: the buttons belong to no one seat.
    always = panel.all_buttons()[-1]
    assert always.version == state.version and always.seat is None
    # The standing choice's button fits an id and comes back as the same action.
    ids = codec.MessageIds(GAME.name, "9" * 19)
    press = codec.decode(ids.button(always.model_copy(update={"version": 9_999_999})))
    assert press is not None and GAME.parse_action(press.action) == AlwaysCompete(always=True)
    board_text = GAME.render_board(state).plain_text()
    assert "Ann sells luxury cars to Columbia; joined: nobody yet." in board_text
    assert "Waiting for Bob." in board_text
    assert "you join them all without being asked" in GAME.render_private(new_game(), 1).text


def test_auction_panel_and_board_keep_bids_sealed_then_show_them_to_the_seller() -> None:
    state = own(new_game(3), 0, "japan", "canada", international=["japan"])
    state.fees = ["salary"]
    state = with_cash(state, ann=150_000)
    state, _ = land(state, 0, "operating_fees")
    debt = GAME.render_board(state)
    assert {a["type"] for a in _actions(debt)} == {"downgrade", "sell_bank", "auction"}
    assert "Ann owes $100,000 and must pay it before the game goes on" in debt.text
    state, _ = act(state, 0, AuctionOff(asset="canada"))
    panel = GAME.render_board(state)
    # Every bidder's choices, the same for each (a bid above one's cash is refused).
    assert all(b.seat is None for b in panel.all_buttons())
    assert [b.label for b in panel.all_buttons()] == [
        "Bid $100,000",  # the floor: the bank's price, half the $200,000 it cost
        "Bid $120,000",
        "Bid $140,000",
        "Bid $160,000",
        "Bid $180,000",
        "Bid $200,000",
        "Bid $220,000",
        "Bid $250,000",
        "Pass",
        "Bid an amount…",  # a form: any amount, sealed like the others
    ]
    assert "Sealed bids from Bob and Cy, at least the bank's price $100,000" in panel.text
    assert "Canada Business Licence (Americas): makes luxury cars." in panel.text
    state, _ = act(state, 1, Bid(amount=170_000))
    assert "Your sealed bid: $170,000." in GAME.render_private(state, 1).text
    assert "170,000" not in GAME.render_private(state, 2).text
    for text in (GAME.render_board(state).plain_text(), GAME.view(state, None).model_dump_json()):
        assert "170,000" not in text and "170000" not in text
    assert auction_view(state, 1).your_bid == 170_000
    assert auction_view(state, 2).your_bid is None  # Cy has not bid yet
    state, _ = act(state, 2, Pass())
    seller = GAME.render_board(state)
    assert (
        "The bids for the National Corporation in Canada: Bob $170,000, Cy passed. Ann sells"
        in seller.text
    )
    assert {b.seat for b in seller.all_buttons()} == {0}
    assert [b.label for b in seller.all_buttons()] == [
        "Sell to Bob for $170,000",
        "Sell the National Corporation in Canada to the bank for $100,000",
    ]
    assert _actions(seller)[0] == Accept().model_dump()
    assert (
        "Bob $170,000, Cy passed; the bank pays $100,000." in GAME.render_board(state).plain_text()
    )


def test_a_licence_on_offer_shows_its_card() -> None:
    state, _ = land(new_game(), 0, "united_states", demand("oil", "oil", "oil"))
    panel = GAME.render_board(state)
    us = board().countries["united_states"]
    assert f"Ann may buy the United States Business Licence for ${us.licence:,}." in panel.text
    card = next(line for line in panel.text.split("\n") if line.startswith("United States B"))
    assert card.startswith("United States Business Licence (Americas): makes luxury cars.")
    for amount in (
        us.licence,
        us.start_up,
        us.conversion,
        *us.national_sales,
        *us.international_sales,
    ):
        assert f"${amount:,}" in card
    # The Travel Agency's menu says what each country makes and whether its licence is for sale.
    state = own(new_game(), 1, licence_only=["canada"])
    state, _ = land(state, 0, "travel_agency")
    options = {o.value: o.description for s in GAME.render_board(state).selects for o in s.options}
    assert options["canada"] == "space 1 · luxury cars · licence sold"
    assert options["japan"] == "space 21 · robots · licence for sale, $40,000"


def test_a_service_industry_on_offer_shows_its_fee() -> None:
    state = own(new_game(), 1, "japan", "china")
    state, _ = land(state, 0, "hotel_chain")
    text = GAME.render_board(state).text
    assert "Ann may buy Hotel Chain for $200,000." in text
    assert "the bank pays $25,000 for each corporation of the owner's competitors" in text
    assert "(for Ann now: 2 corporations, $50,000)" in text


def test_the_panel_lists_the_service_industries_owned() -> None:
    state = services(own(new_game(), 1, "japan", "china"), 0, "law_firm", "industrial_engineering")
    text = GAME.render_private(state, 0).text
    assert (
        "Your Service Industries: Law Firm (space 3, $20,000 × 2 = $40,000 a visit), "
        "Industrial Engineering (space 38, $40,000 × 2 = $80,000 a visit)." in text
    )


def test_the_board_is_the_track_in_order_with_owners_and_pieces() -> None:
    state = own(new_game(), 1, "canada", "japan", international=["japan"])
    state = own(state, 2, licence_only=["mexico"])
    state = services(state, 2, "law_firm")
    state.position[2] = board().index_of("casino")
    text = GAME.render_board(state).plain_text()
    lines = text.splitlines()
    track = [line for line in lines if line[:1].isdigit()]
    assert [int(line.split()[0]) for line in track] == list(range(40))  # every space, in order
    assert "0 BUSINE$$ GO Start ◀ Ann, Bob" in lines
    assert "1 Canada · luxury cars [Bob N]" in lines
    assert "3 Law Firm [Cy]" in lines
    assert "4 Mexico · oil [Cy licence]" in lines
    assert "10 Casino ◀ Cy" in lines
    assert "21 Japan · robots [Bob I]" in lines
    assert "16 Operating Fees" in lines and "30 Burnout" in lines
    assert "Canada [Bob N+]" not in text
    assert "▶ Ann: $750,000 · on 0 BUSINE$$ GO Start" in text
    assert "Bob: $750,000 · on 0 BUSINE$$ GO Start · Canada N, Japan I" in text
    assert "Cy: $750,000 · on 10 Casino · Law Firm" in text
    assert "Opening roll" in text
    state.corporations["canada"].chimney = True
    assert "1 Canada · luxury cars [Bob N+]" in GAME.render_board(state).plain_text()


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
    report = public[0]
    assert isinstance(report, Rolled) and report.dice == (1, 1) and report.space == "columbia"


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
        ("compete", "ask", AlwaysCompete(always=False)),
        ("compete", "always", AlwaysCompete(always=True)),
        ("accept", "", Accept()),
        ("pass", "", Pass()),
        ("sell", "luxury cars", Sell(product="cars")),
        ("bank", "law firm", SellToBank(asset="law firm")),
    ],
)
def test_text_commands(word: str, rest: str, action: object) -> None:
    assert find(GAME.commands, word) is not None or word == "stop"
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
    with pytest.raises(IllegalAction, match="`compete always` to join every one"):
        GAME.parse_text(state, 0, "compete", "sometimes")
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


def test_the_rules_page_shows_every_card_as_the_board_prints_it() -> None:
    page = GAME.rules("all")
    b = board()
    for c in b.country:
        row = (
            f"| {c.name} | {c.continent} | {b.products[c.product].name} | ${c.licence:,} | "
            f"${c.start_up:,} | ${c.conversion:,} | "
            + " / ".join(f"${a:,}" for a in c.national_sales)
            + " | "
            + " / ".join(f"${a:,}" for a in c.international_sales)
            + " |"
        )
        assert row in page, row
    for s in b.service:
        assert f"| {s.name} | ${s.price:,} | ${s.fee_per_corporation:,} |" in page
    for card in b.fee_card:
        if card.kind == "per_unit":
            assert f"| {card.name} | ${card.amount:,} a unit |" in page
    for mail in b.mail_card:
        assert mail.text in page


def test_the_rules_page_has_the_numbers_for_2_4_and_5_players_and_the_rulings() -> None:
    page = GAME.rules("simulation")
    for players in ("2 players", "4 players", "5 players"):
        assert players in page
    for needle in ("raised_cash_pct", "bankrupt_pct", "human_decisions_per_game", "median"):
        assert needle in page
    rulings = GAME.rules("rulings")
    for needle in ("closed", "Service Industry", "Boom", "immediately"):
        assert needle in rulings
