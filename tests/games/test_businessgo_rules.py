"""Every rule of Busine$$ GO with a rigged rng, the rulebook's worked examples included."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.engine import Event
from core.games.businessgo import GAME
from core.games.businessgo.actions import (
    AuctionOff,
    Bet,
    Bid,
    Buy,
    Convert,
    Downgrade,
    Join,
    Pass,
    Remove,
    Roll,
    Sell,
    SellToBank,
    Setup,
    Travel,
)
from core.games.businessgo.board import board
from core.games.businessgo.state import BusinessGoOptions, BusinessGoState
from tests.games.businessgo_support import (
    NAMES,
    RiggedRandom,
    act,
    auction_view,
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

# --- setting up ----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_gives_750_000_and_everyone_starts_on_start(players: int) -> None:
    state = new_game(players)
    assert state.cash == [750_000] * players
    assert state.position == [0] * players
    assert board().space_name(0) == "BUSINE$$ GO Start"
    check_books(state)


@pytest.mark.parametrize("players", [1, 6])
def test_two_to_five_players(players: int) -> None:
    with pytest.raises(ValueError):
        GAME.new_game(
            NAMES[:players] + ["X"] * (players - 5),
            BusinessGoOptions(),
            RiggedRandom([6, 6] + [1, 1] * players),
        )
    assert (GAME.min_players, GAME.max_players) == (2, 5)


def test_highest_opening_roll_starts_and_ties_roll_again() -> None:
    # Ann 3, Bob 10, Cy 10: Bob and Cy roll again, 4 against 8: Cy starts.
    rng = RiggedRandom([1, 2, 5, 5, 4, 6, 2, 2, 3, 5])
    state = GAME.new_game(NAMES[:3], BusinessGoOptions(), rng)
    assert state.turn == state.starter == 2
    assert "Cy starts" in state.opening and "tie" in state.opening


def test_the_board_keeps_every_printed_number() -> None:
    b = board()
    assert len(b.country) == 26 and len(b.spaces) == 40
    canada, japan = b.countries["canada"], b.countries["japan"]
    assert (canada.licence, canada.start_up, canada.product) == (60_000, 140_000, "cars")
    assert canada.national_sales[:2] == (110_000, 330_000)
    assert (japan.product, japan.national_sales[0], japan.conversion) == (
        "robots",
        100_000,
        280_000,
    )
    americas = [c.name for c in b.country if c.continent == "Americas"]
    assert americas == ["Canada", "United States", "Mexico", "Brazil", "Columbia", "Ecuador"]
    assert {s.name for s in b.service} == {
        "Law Firm",
        "Hotel Chain",
        "Import-Export",
        "International Transport",
        "Industrial Engineering",
    }
    assert [list(row) for row in b.salary_table] == [
        [1, 100_000],
        [4, 250_000],
        [6, 400_000],
        [8, 550_000],
        [10, 650_000],
        [13, 700_000],
        [15, 750_000],
        [18, 800_000],
        [22, 850_000],
        [26, 1_050_000],
        [33, 1_150_000],
        [41, 1_250_000],
    ]
    assert (b.salary(3), b.salary(4), b.salary(40), b.salary(41), b.salary(99)) == (
        100_000,
        250_000,
        1_150_000,
        1_250_000,
        1_250_000,
    )
    assert (b.start_cash, b.pass_start, b.land_start, b.casino_limit) == (
        750_000,
        100_000,
        200_000,
        1_000_000,
    )


def test_pieces_share_a_space() -> None:
    state = new_game(2)
    state, _ = land(state, 0, "casino")
    state, _ = act(state, 0, Pass())
    state, _ = land(state, 1, "casino")
    assert state.position[0] == state.position[1] == board().index_of("casino")


# --- licences and corporations -------------------------------------------------------------


def test_buy_a_licence_when_landing_on_an_unsold_country() -> None:
    state = new_game()
    state, events = land(state, 0, "canada", demand("oil", "oil", "oil"))
    assert state.phase == "licence"
    assert "Product Demand: oil, oil, oil" in text(events)
    state, events = act(state, 0, Buy())
    assert state.licences == {"canada": 0}
    assert state.cash[0] == 750_000 - 60_000
    assert transfers(events) == [[0, -60_000, "licence"]]
    assert state.turn == 1 and state.phase == "turn"
    check_books(state)


def test_buying_without_money_is_refused() -> None:
    state = new_game()
    state, _ = land(state, 0, "canada", demand("oil", "oil", "oil"))
    state = with_cash(state, ann=59_999)
    message = refused(state, 0, Buy())
    assert message == "The Canada Business Licence costs $60,000; you have $59,999."


def test_a_country_whose_licence_is_owned_offers_nothing_to_buy() -> None:
    state = own(new_game(), 1, licence_only=["canada"])
    state, events = land(state, 0, "canada", demand("oil", "oil", "oil"))
    assert "licence held by Bob" in text(events)
    assert state.turn == 1


def test_set_up_a_national_corporation_before_rolling() -> None:
    state = own(new_game(), 0, licence_only=["canada"])
    assert Setup(country="canada") in GAME.legal_actions(state, 0)
    state, events = act(state, 0, Setup(country="canada"))
    assert state.corporations["canada"].owner == 0
    assert state.cash[0] == 750_000 - 140_000
    assert "sets up a National Corporation in Canada (luxury cars) for $140,000" in text(events)
    assert state.phase == "turn" and state.turn == 0  # may set up more, then roll


def test_a_second_corporation_on_a_country_is_refused() -> None:
    state = own(new_game(), 0, "canada")
    refused(state, 0, Setup(country="canada"), "already a corporation in Canada")
    assert Setup(country="canada") not in GAME.legal_actions(state, 0)


def test_setting_up_without_the_licence_is_refused() -> None:
    refused(new_game(), 0, Setup(country="canada"), "You need the Canada Business Licence")


def test_setting_up_after_rolling_is_refused() -> None:
    state = own(new_game(), 0, licence_only=["japan"])
    state, _ = land(state, 0, "canada", demand("oil", "oil", "oil"))
    assert state.phase == "licence" and state.turn == 0
    message = refused(state, 0, Setup(country="japan"))
    assert (
        message
        == "You cannot set up a corporation after rolling the dice; wait for your next turn."
    )


def test_setting_up_without_money_is_refused() -> None:
    state = with_cash(own(new_game(), 0, licence_only=["canada"]), ann=100_000)
    refused(state, 0, Setup(country="canada"), "costs \\$140,000; you have \\$100,000")


def test_converting_needs_a_sale_first() -> None:
    state = own(new_game(), 0, "japan")
    message = refused(state, 0, Convert(country="japan"))
    assert "has not made a sale yet (no white chimney)" in message
    assert Convert(country="japan") not in GAME.legal_actions(state, 0)


def test_convert_after_a_sale_costs_the_conversion() -> None:
    state = own(new_game(), 0, "japan", chimney=True)
    state, events = act(state, 0, Convert(country="japan"))
    assert state.corporations["japan"].international
    assert state.cash[0] == 750_000 - 280_000
    assert transfers(events) == [[0, -280_000, "conversion"]]


def test_converting_after_rolling_is_refused() -> None:
    state = own(new_game(), 0, "japan", chimney=True)
    state, _ = land(state, 0, "mexico", demand("fashion", "fashion", "fashion"))
    assert state.phase == "licence"
    refused(state, 0, Convert(country="japan"), "after rolling the dice")


# --- selling -------------------------------------------------------------------------------


def test_canada_sells_luxury_cars_to_columbia_for_110_000() -> None:
    state = own(new_game(), 0, "canada")
    state, events = land(state, 0, "columbia", demand("cars", "coffee", "oil"))
    assert state.cash[0] == 750_000 + 110_000
    assert state.corporations["canada"].chimney  # the white chimney
    assert "Ann sells luxury cars to Columbia (1 corporation): $110,000." in text(events)
    assert transfers(events) == [[0, 110_000, "sale"]]


def test_two_car_corporations_and_robots_sold_once() -> None:
    # One luxury car and two robots: $330,000 with two national car corporations, and the
    # robots only once: $100,000 from Japan.
    state = own(new_game(), 0, "canada", "united_states", "japan")
    state, events = land(state, 0, "columbia", demand("cars", "robots", "robots"))
    assert [t[1] for t in transfers(events)] == [330_000, 100_000]
    assert state.cash[0] == 750_000 + 430_000
    assert all(c.chimney for c in state.corporations.values())


def test_three_or_more_corporations_use_the_third_column() -> None:
    state = own(new_game(), 0, "canada", "united_states", "germany", "italy")
    state, events = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    assert transfers(events) == [[0, board().countries["canada"].national_sales[2], "sale"]]


def test_international_rate_when_international() -> None:
    state = own(new_game(), 0, "japan", international=["japan"])
    state, events = land(state, 0, "columbia", demand("robots", "oil", "oil"))
    assert transfers(events) == [[0, board().countries["japan"].international_sales[0], "sale"]]


def test_a_licence_alone_sells_nothing() -> None:
    state = own(new_game(), 0, licence_only=["canada"])
    state, events = land(state, 0, "columbia", demand("cars", "cars", "cars"))
    assert transfers(events) == []
    assert "makes none of these products: no sale" in text(events)


def test_sell_before_buying_the_licence() -> None:
    state = with_cash(own(new_game(), 0, "canada"), ann=10_000)
    state, events = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    assert state.phase == "licence"  # $120,000 now: the $40,000 licence is affordable
    assert transfers(events) == [[0, 110_000, "sale"]]
    state, _ = act(state, 0, Buy())
    assert state.licences["columbia"] == 0 and state.cash[0] == 80_000


def test_nobody_else_sells_when_you_do_not_make_the_product() -> None:
    state = own(new_game(), 1, "canada")
    state, events = land(state, 0, "columbia", demand("cars", "cars", "oil"))
    assert transfers(events) == []
    assert state.phase == "licence" and state.cash[1] == 750_000


# --- sales competitions --------------------------------------------------------------------


def _competition() -> tuple[BusinessGoState, list[Event]]:
    state = own(own(new_game(), 0, "canada"), 1, "germany")
    state, events = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    return state, events


def test_announcing_a_sale_opens_a_competition_window() -> None:
    state, events = _competition()
    assert state.phase == "compete"
    assert GAME.waiting_for(state) == [1]
    assert GAME.legal_actions(state, 1) == [Join(), Pass()]
    assert GAME.legal_actions(state, 2) == [] and GAME.legal_actions(state, 0) == []
    assert state.deadline is not None and state.deadline.seconds == 20
    assert "Bob may join the sales competition" in text(events)


def test_even_beats_odd_and_the_winner_collects_at_its_own_rate() -> None:
    state, _ = _competition()
    state, events = act(state, 1, Join(), [3, 5, 2, 3])  # Ann 8, Bob 5: Ann wins
    assert "Ann 3+5=8, Bob 2+3=5 out: Ann wins" in text(events)
    assert transfers(events) == [[0, 110_000, "sale"]]
    assert state.phase == "licence" and state.turn == 0


def test_doubles_win_at_once() -> None:
    state, _ = _competition()
    state, events = act(state, 1, Join(), [2, 3, 4, 4])  # Ann odd, Bob doubles
    germany = board().countries["germany"]
    assert transfers(events) == [[1, germany.national_sales[0], "sale"]]
    assert state.corporations["germany"].chimney and not state.corporations["canada"].chimney


def test_all_odd_rolls_again_and_even_pairs_roll_again() -> None:
    state, _ = _competition()
    # All odd, then both even, then Ann even and Bob odd.
    state, events = act(state, 1, Join(), [1, 2, 2, 3, 2, 4, 1, 3, 3, 3 + 2, 1, 2])
    said = text(events)
    assert "all odd, roll again" in said
    assert said.count("Competition roll") == 3
    assert transfers(events)[0][0] == 0


def test_a_closed_window_leaves_the_late_out() -> None:
    state, _ = _competition()
    state, events = timeout(state)
    assert "you snooze, you lose" in text(events)
    assert transfers(events) == [[0, 110_000, "sale"]]


def test_staying_out_of_a_competition() -> None:
    state, _ = _competition()
    state, events = act(state, 1, Pass())
    assert transfers(events) == [[0, 110_000, "sale"]]


def test_joining_without_the_product_is_refused() -> None:
    state = own(own(own(new_game(), 0, "canada"), 1, "germany"), 2, "japan")
    state, _ = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    assert refused(state, 2, Join()) == "You own no corporation that can sell luxury cars here."


def test_one_join_keeps_the_others_buttons_current() -> None:
    state = own(own(own(new_game(), 0, "canada"), 1, "germany"), 2, "italy")
    state, _ = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    opened = state.decision_version
    state, _ = act(state, 1, Join())
    assert state.phase == "compete" and state.decision_version == opened
    assert GAME.waiting_for(state) == [2]
    refused(state, 1, Join(), "already answered")


def test_burnt_out_players_cannot_compete() -> None:
    state = own(own(new_game(), 0, "canada"), 1, "germany")
    state.burnout[1] = 2
    state, events = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    assert transfers(events) == [[0, 110_000, "sale"]]


# --- spaces --------------------------------------------------------------------------------


def test_boom_up_to_three_different_sales_without_demand_dice() -> None:
    state = own(new_game(), 0, "canada", "japan", "china", "mexico")
    state, _ = land(state, 0, "boom")
    assert state.phase == "boom"
    legal = GAME.legal_actions(state, 0)
    assert {a.product for a in legal if isinstance(a, Sell)} == {
        "cars",
        "robots",
        "computers",
        "oil",
    }
    state, _ = act(state, 0, Sell(product="cars"))
    refused(state, 0, Sell(product="cars"), "already sold luxury cars")
    refused(state, 0, Sell(product="fashion"), "no corporation that can sell fashion")
    state, _ = act(state, 0, Sell(product="robots"))
    state, _ = act(state, 0, Sell(product="oil"))
    assert state.turn == 1  # three sales: the Boom is over
    assert (
        state.cash[0] == 750_000 + 110_000 + 100_000 + board().countries["mexico"].national_sales[0]
    )


def test_boom_sales_face_competition() -> None:
    state = own(own(new_game(), 0, "canada"), 1, "germany")
    state, _ = land(state, 0, "boom")
    state, _ = act(state, 0, Sell(product="cars"))
    assert state.phase == "compete"
    state, events = act(state, 1, Join(), [1, 1])  # Ann doubles
    assert transfers(events)[0][0] == 0


def test_landing_on_burnout_means_two_skipped_turns() -> None:
    state, events = land(new_game(2), 0, "burnout")
    assert "Ann lands on Burnout and skips the next two turns." in text(events)
    assert state.burnout == [2, 0] and state.turn == 1


def test_burnout_turn_count_exact() -> None:
    state = new_game(2)
    state.burnout[1] = 2
    state, events = land(state, 0, "casino")
    state, events = act(state, 0, Pass())
    assert "Bob is burnt out" in text(events) and state.turn == 0 and state.burnout[1] == 1
    state, _ = land(state, 0, "casino")
    state, events = act(state, 0, Pass())
    assert state.turn == 0 and state.burnout[1] == 0
    state, _ = land(state, 0, "casino")
    state, _ = act(state, 0, Pass())
    assert state.turn == 1


def test_start_grant_only_for_corporation_owners() -> None:
    state = new_game(2)
    state.position[0] = 38
    state, events = act(state, 0, Roll(), [1, 3])  # passes Start onto the United States
    assert transfers(events) == []
    state = own(new_game(2), 0, "japan")
    state.position[0] = 38
    state, events = act(state, 0, Roll(), [2, 2, *demand("oil", "oil", "oil")])
    assert [0, 100_000, "pass_start"] in transfers(events)
    state = own(new_game(2), 0, "japan")
    state.position[0] = 36
    state, events = act(state, 0, Roll(), [2, 2])
    assert [0, 200_000, "land_start"] in transfers(events)


def test_casino_bets() -> None:
    state = new_game(2)
    state, _ = land(state, 0, "casino")
    assert state.phase == "casino"
    refused(state, 0, Bet(amount=1_000_001), "largest bet is \\$1,000,000")
    refused(with_cash(state, ann=200_000), 0, Bet(amount=300_000), "you have \\$200,000")
    refused(state, 0, Bet(amount=5_000), "smallest bet")
    state, events = act(state, 0, Bet(amount=100_000), [2, 4])  # even: double
    assert state.cash[0] == 850_000 and state.phase == "casino"
    state, events = act(state, 0, Bet(amount=100_000), [3, 3])  # doubles: triple
    assert state.cash[0] == 1_050_000
    state, events = act(state, 0, Bet(amount=100_000), [3, 4])  # odd: lose, closed
    assert state.cash[0] == 950_000 and state.turn == 1
    assert "The Casino is closed until the next visit" in text(events)


@pytest.mark.parametrize("space", ["charity", "ecology"])
def test_charity_and_ecology_cost_10_000_a_corporation(space: str) -> None:
    state = own(new_game(2), 0, "canada", "japan", international=["japan"])
    state, events = land(state, 0, space)
    assert transfers(events) == [[0, -20_000, space]]
    state, events = land(new_game(2), 0, space)
    assert transfers(events) == [] and "owns no corporation" in text(events)


def test_mail_card_goes_to_the_bottom_and_bankrupt_corporation_is_chosen() -> None:
    state = own(new_game(2), 0, "canada", "japan")
    top = state.mail[0]
    assert top == "bankrupt"
    state, _ = land(state, 0, "mail")
    assert state.mail[-1] == top and state.phase == "mail"
    assert set(GAME.legal_actions(state, 0)) == {Remove(country="canada"), Remove(country="japan")}
    state, _ = act(state, 0, Remove(country="japan"))
    assert "japan" not in state.corporations and state.licences["japan"] == 0
    assert state.turn == 1


def test_mail_pays_and_collects() -> None:
    state = new_game(2)
    state.mail = ["lawsuit", "refund"]
    state, events = land(state, 0, "mail")
    assert transfers(events) == [[0, -100_000, "mail"]]
    assert state.mail == ["refund", "lawsuit"]


def test_operating_fees_two_national_three_international_is_650_000() -> None:
    state = own(
        new_game(2),
        0,
        "canada",
        "mexico",
        "japan",
        "china",
        "india",
        international=["japan", "china", "india"],
    )
    assert state.fees[0] == "salary"
    state, events = land(state, 0, "operating_fees")
    assert transfers(events) == [[0, -650_000, "operating_fees"]]
    assert "Employee Salary: 11 units on the table = $650,000" in text(events)
    assert state.fees[-1] == "salary"


def test_operating_fees_when_passing_and_none_without_corporations() -> None:
    state = own(new_game(2), 0, "canada")
    state.fees = ["rent", "salary"]
    state.position[0] = 15
    state, events = act(state, 0, Roll(), [1, 1, *demand("oil", "oil", "oil")])  # to Spain
    assert [0, -20_000, "operating_fees"] in transfers(events)
    state = new_game(2)
    state.position[0] = 15
    state, events = act(state, 0, Roll(), [1, 1, *demand("oil", "oil", "oil")])
    assert transfers(events) == []


def test_service_industry_bought_on_landing_and_paid_by_competitors_corporations() -> None:
    state = new_game(2)
    state, _ = land(state, 0, "law_firm")
    assert state.phase == "service"
    state, events = act(state, 0, Buy())
    assert state.services == {"law_firm": 0}
    assert transfers(events) == [[0, -board().services["law_firm"].price, "service"]]
    # Bob owns three corporations; Ann passes her Law Firm.
    state = own(state, 1, "japan", "china", "india")
    state, _ = land(state, 1, "casino")
    state, _ = act(state, 1, Pass())
    state.position[0] = 2
    state, events = act(state, 0, Roll(), [1, 1, *demand("oil", "oil", "oil")])
    fee = board().services["law_firm"].fee_per_corporation
    assert [0, 3 * fee, "service_fee"] in transfers(events)


def test_travel_agency_moves_clockwise_with_the_advantages_and_the_cost() -> None:
    state = own(new_game(2), 0, "japan")
    state.fees = ["rent"]
    state, _ = land(state, 0, "travel_agency")
    assert state.phase == "travel"
    # To Mexico: passes Start ($100,000), sells there, may buy its licence; no Operating Fees
    # on this way round.
    state, events = act(state, 0, Travel(country="mexico"), demand("robots", "oil", "oil"))
    moved = transfers(events)
    assert moved[0] == [0, -10_000, "travel"]
    assert [0, 100_000, "pass_start"] in moved and [0, 100_000, "sale"] in moved
    assert state.phase == "licence" and state.position[0] == board().index_of("mexico")
    # To Spain: Operating Fees are passed.
    state = own(new_game(2), 0, "japan")
    state.fees = ["rent"]
    state, _ = land(state, 0, "travel_agency")
    state, events = act(state, 0, Travel(country="spain"), demand("oil", "oil", "oil"))
    assert [0, -20_000, "operating_fees"] in transfers(events)


# --- debts ---------------------------------------------------------------------------------


def _in_debt(state_cash: int = -100_000) -> BusinessGoState:
    state = own(new_game(3), 0, "japan", "canada", international=["japan"])
    state.fees = ["salary"]
    state = with_cash(state, ann=state_cash + 250_000)
    state, _ = land(state, 0, "operating_fees")  # 4 units: $250,000
    assert state.phase == "debt" and state.cash[0] == state_cash
    return state


def test_downgrading_japan_returns_140_000() -> None:
    state = _in_debt()
    state, events = act(state, 0, Downgrade(country="japan"))
    assert transfers(events)[0] == [0, 140_000, "downgrade"]
    assert not state.corporations["japan"].international
    assert state.turn == 1  # out of debt: the turn passes


def test_selling_to_the_bank_for_half() -> None:
    state = _in_debt(-50_000)
    state, events = act(state, 0, SellToBank(asset="canada"))
    assert transfers(events)[0] == [0, (60_000 + 140_000) // 2, "bank_sale"]
    assert "canada" not in state.licences and "canada" not in state.corporations


def test_auction_to_the_other_players() -> None:
    state = _in_debt()
    state, events = act(state, 0, AuctionOff(asset="canada"))
    assert state.phase == "auction" and GAME.waiting_for(state) == [1, 2]
    refused(state, 1, Bid(amount=5_000), "smallest bid")
    refused(with_cash(state, bob=50_000), 1, Bid(amount=60_000), "you have \\$50,000")
    state, events = act(state, 1, Bid(amount=150_000))
    assert "150,000" not in text(events)  # sealed
    assert [e.text for e in events if e.audience.seat == 1] == ["Your sealed bid: $150,000."]
    assert auction_view(state, None).your_bid is None
    state, events = act(state, 2, Bid(amount=120_000))
    assert transfers(events)[:2] == [[1, -150_000, "auction"], [0, 150_000, "auction"]]
    assert state.licences["canada"] == 1 and state.corporations["canada"].owner == 1
    assert state.turn == 1
    check_books(state)


def test_bankrupt_and_out_when_nothing_is_left() -> None:
    state = own(new_game(2), 0, "columbia")
    state.fees = ["salary"]
    state = with_cash(state, ann=0)
    state, _ = land(state, 0, "operating_fees")  # 1 unit: $100,000
    assert state.cash[0] == -100_000
    state, events = act(state, 0, SellToBank(asset="columbia"))  # half of $140,000
    assert state.bankrupt[0] and state.cash[0] == 0
    assert transfers(events) == [[0, 70_000, "bank_sale"], [0, 30_000, "written_off"]]
    assert "is bankrupt: out of the game" in text(events)
    check_books(state)
    assert state.outcome is not None and state.outcome.ended == "last one standing"
    assert state.outcome.winners == [1]


# --- winning and options -------------------------------------------------------------------


def test_first_to_the_target_wins() -> None:
    state = with_cash(own(new_game(2, short=True), 0, "canada"), ann=4_900_000)
    state, events = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    assert state.outcome is not None and state.outcome.ended == "reached the target"
    assert state.outcome.winners == [0] and "reached $5,000,000" in text(events)
    assert state.deadline is None and GAME.legal_actions(state, 0) == []


def test_custom_target_and_normal_target() -> None:
    assert BusinessGoOptions().goal == 10_000_000
    assert BusinessGoOptions(short=True).goal == 5_000_000
    assert BusinessGoOptions(target=2_000_000).goal == 2_000_000
    with pytest.raises(ValidationError):
        BusinessGoOptions(target=5)


def test_advanced_rule_national_sells_only_on_its_continent() -> None:
    state = own(new_game(2, advanced=True), 0, "canada")
    state, events = land(state, 0, "germany", demand("cars", "oil", "oil"))
    assert transfers(events) == []
    state = own(new_game(2, advanced=True), 0, "canada", international=["canada"])
    state, events = land(state, 0, "germany", demand("cars", "oil", "oil"))
    assert transfers(events) == [[0, board().countries["canada"].international_sales[0], "sale"]]
    state = own(new_game(2, advanced=True), 0, "canada")
    state, events = land(state, 0, "ecuador", demand("cars", "fashion", "fashion"))
    assert transfers(events) == [[0, 110_000, "sale"]]


def test_acting_on_someone_elses_turn_is_refused() -> None:
    state = new_game()
    assert refused(state, 1, Roll()) == "It is Ann's turn, not yours."


def test_rounds_count_every_players_turn_and_the_cap_ends_the_game() -> None:
    state = new_game(2, max_rounds=2)
    for _ in range(3):
        state, _ = land(state, state.turn, "casino")
        state, _ = act(state, state.turn, Pass())
    assert state.round == 2 and not state.finished
    state, _ = land(state, state.turn, "casino")
    state, _ = act(state, state.turn, Pass())
    assert state.outcome is not None and state.outcome.ended == "round limit"
    assert state.outcome.rounds == 2


def test_turn_timeout_rolls_and_other_timeouts_decline() -> None:
    state = new_game(2)
    assert state.deadline is not None and state.deadline.seconds == 60
    state, _ = own(state, 0), None
    state.position[0] = 8
    state, events = timeout(state, [1, 1])  # rolls onto the Casino
    assert "Time is up: Ann rolls" in text(events) and state.phase == "casino"
    state, events = timeout(state)
    assert state.turn == 1 and transfers(events) == []
    assert (
        GAME.new_game(
            NAMES[:2], BusinessGoOptions(turn_seconds=0), RiggedRandom([6, 6, 1, 1])
        ).deadline
        is None
    )
