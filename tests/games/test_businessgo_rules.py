"""Every rule of Busine$$ GO with a rigged rng, the rulebook's worked examples included."""

from __future__ import annotations

import itertools
import json

import pytest
from pydantic import ValidationError

from bot.commands.game.actionlog import Entry, replay
from bot.commands.game.play import advance, start_state
from core.engine import Event, erase
from core.games.businessgo import GAME
from core.games.businessgo.actions import (
    Accept,
    AlwaysCompete,
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
from core.games.businessgo.events import REPORTS, Rolled, SaleMade
from core.games.businessgo.legal import sale_amount
from core.games.businessgo.state import BusinessGoOptions, BusinessGoState, Corporation
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
    services,
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
    assert canada.national_sales[0] == 110_000
    assert (japan.product, japan.national_sales[0], japan.conversion) == (
        "robots",
        100_000,
        280_000,
    )
    assert b.countries["united_states"].product == "cars"
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
    assert (b.charity_per_corporation, b.ecology_per_corporation, b.travel_fare) == (
        10_000,
        10_000,
        10_000,
    )
    assert (b.national_units, b.international_units) == (1, 3)
    assert "Employee Salary" in [c.name for c in b.fee_card]
    assert b.mail_cards["bankrupt"].text == (
        "One of your corporations has gone bankrupt. Remove one from the game board "
        "(you get to decide which one)."
    )


def test_two_national_car_corporations_in_canada_and_the_united_states_sell_for_330_000() -> None:
    # The rulebook's example: "one in Canada and one in the United States ... a total of
    # $330,000". Each card pays its own rate for two corporations; the sale is their average.
    pair = [Corporation(country="canada", owner=0), Corporation(country="united_states", owner=0)]
    assert sale_amount(pair) == 330_000
    assert sale_amount(pair[:1]) == 110_000


def test_a_sale_by_several_corporations_pays_the_average_of_their_cards() -> None:
    b = board()
    corps = [
        Corporation(country="canada", owner=0, international=True, chimney=True),
        Corporation(country="italy", owner=0),
    ]
    expected = (
        b.countries["canada"].international_sales[1] + b.countries["italy"].national_sales[1]
    ) // 2
    assert sale_amount(corps) == expected // 10_000 * 10_000
    four = [
        Corporation(country=c, owner=0) for c in ("canada", "united_states", "italy", "germany")
    ]
    thirds = [b.countries[c.country].national_sales[2] for c in four]
    assert sale_amount(four) == sum(thirds) // 4 // 10_000 * 10_000  # three and more: column 3


def test_dearer_licences_earn_more() -> None:
    # Within each product, a dearer card (licence and start-up) pays more in every column,
    # National and International, with 1, 2 and 3 corporations.
    b = board()
    for product in b.products:
        cards = sorted(
            (c for c in b.country if c.product == product), key=lambda c: c.licence + c.start_up
        )
        assert len(cards) >= 4, product
        assert len({c.continent for c in cards}) >= 2, product
        for cheap, dear in itertools.pairwise(cards):
            assert cheap.licence + cheap.start_up < dear.licence + dear.start_up, product
            for column in range(3):
                assert cheap.national_sales[column] < dear.national_sales[column], (cheap, dear)
                assert cheap.international_sales[column] < dear.international_sales[column]
    for c in b.country:
        assert c.international_sales[0] > c.national_sales[0] and c.conversion > 0


def test_the_markets_are_balanced() -> None:
    # Four markets of 6 or 7 countries: a National sells in a quarter of the world or more
    # under the advanced rule (the Americas are the rulebook's six).
    b = board()
    sizes = {
        c: sum(1 for x in b.country if x.continent == c) for c in {x.continent for x in b.country}
    }
    assert sorted(sizes.values()) == [6, 6, 7, 7]


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
    assert state.deciding == "licence"
    assert "Product Demand: oil, oil, oil" in text(events)
    state, events = act(state, 0, Buy())
    assert state.licences == {"canada": 0}
    assert state.cash[0] == 750_000 - 60_000
    assert transfers(events) == [[0, -60_000, "licence"]]
    assert state.turn == 1 and state.deciding == "turn"
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
    assert state.deciding == "turn" and state.turn == 0  # may set up more, then roll


def test_a_second_corporation_on_a_country_is_refused() -> None:
    state = own(new_game(), 0, "canada")
    refused(state, 0, Setup(country="canada"), "already a corporation in Canada")
    assert Setup(country="canada") not in GAME.legal_actions(state, 0)


def test_setting_up_without_the_licence_is_refused() -> None:
    refused(new_game(), 0, Setup(country="canada"), "You need the Canada Business Licence")


def test_setting_up_after_rolling_is_refused() -> None:
    state = own(new_game(), 0, licence_only=["japan"])
    state, _ = land(state, 0, "canada", demand("oil", "oil", "oil"))
    assert state.deciding == "licence" and state.turn == 0
    message = refused(state, 0, Setup(country="japan"))
    assert message == (
        "You have rolled already: you can set up a corporation only before the roll, on your "
        "next turn. Now it is your choice: buy the Canada Business Licence or not."
    )
    # A country that does not exist is wrong at any moment: that is said first.
    message = refused(state, 0, Setup(country="Atlantis"))
    assert message.startswith("There is no country called “Atlantis”")


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
    assert state.deciding == "licence"
    refused(state, 0, Convert(country="japan"), "You have rolled already: you can convert")


# --- selling -------------------------------------------------------------------------------


def test_canada_sells_luxury_cars_to_columbia_for_110_000() -> None:
    state = own(new_game(), 0, "canada")
    state, events = land(state, 0, "columbia", demand("cars", "coffee", "oil"))
    assert state.cash[0] == 750_000 + 110_000
    assert state.corporations["canada"].chimney  # the white chimney
    assert "Ann sells luxury cars to Columbia (1 corporation): $110,000." in text(events)
    assert transfers(events) == [[0, 110_000, "sale"]]
    report = events[0]
    assert isinstance(report, Rolled)
    assert report.sales == [SaleMade(seat=0, product="cars", amount=110_000, by=["canada"])]


def test_two_car_corporations_and_robots_sold_once() -> None:
    # One luxury car and two robots: $330,000 with the national car corporations of Canada and
    # the United States, and the robots only once: $100,000 from Japan.
    state = own(new_game(), 0, "canada", "united_states", "japan")
    state, events = land(state, 0, "columbia", demand("cars", "robots", "robots"))
    assert [t[1] for t in transfers(events)] == [330_000, 100_000]
    assert state.cash[0] == 750_000 + 430_000
    assert all(c.chimney for c in state.corporations.values())


def test_three_or_more_corporations_use_the_third_column() -> None:
    state = own(new_game(), 0, "canada", "united_states", "germany", "italy")
    state, events = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    countries = board().countries
    thirds = [
        countries[c].national_sales[2] for c in ("canada", "united_states", "germany", "italy")
    ]
    assert transfers(events) == [[0, sum(thirds) // 4 // 10_000 * 10_000, "sale"]]


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
    assert state.deciding == "licence"  # $120,000 now: the $30,000 licence is affordable
    assert transfers(events) == [[0, 110_000, "sale"]]
    state, _ = act(state, 0, Buy())
    assert state.licences["columbia"] == 0 and state.cash[0] == 90_000


def test_nobody_else_sells_when_you_do_not_make_the_product() -> None:
    state = own(new_game(), 1, "canada")
    state, events = land(state, 0, "columbia", demand("cars", "cars", "oil"))
    assert transfers(events) == []
    assert state.deciding == "licence" and state.cash[1] == 750_000


# --- sales competitions --------------------------------------------------------------------


def _competition() -> tuple[BusinessGoState, list[Event]]:
    """Ann (Canada) sells cars to Columbia; Bob (Germany) is asked whether he competes."""
    state = own(own(new_game(always_compete=False), 0, "canada"), 1, "germany")
    state, events = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    return state, events


def test_announcing_a_sale_opens_a_competition_window_for_those_who_want_to_be_asked() -> None:
    state, events = _competition()
    assert state.deciding == "compete"
    assert GAME.waiting_for(state) == [1]
    assert GAME.legal_actions(state, 1) == [Join(), Pass()]
    assert GAME.legal_actions(state, 2) == [] and GAME.legal_actions(state, 0) == []
    assert state.deadline is not None and state.deadline.seconds == 20
    assert "Bob may join the sales competition" in text(events)


def test_always_compete_joins_without_a_window() -> None:
    # The default standing choice: rivals who may enter join at once, so the roll-off follows
    # the announcement in the same move and nobody is asked.
    state = own(own(new_game(), 0, "canada"), 1, "germany")
    assert state.always_competes(1) and GAME.view(state, 1).players[1].always_competes
    state, events = land(state, 0, "columbia", [*demand("cars", "oil", "oil"), 3, 5, 2, 3])
    said = text(events)
    assert "Bob joins the sales competition (always compete)." in said
    assert "Sales competition for luxury cars in Columbia: Ann and Bob." in said
    assert transfers(events) == [[0, 110_000, "sale"]] and state.deciding == "licence"


def test_the_window_asks_only_those_who_chose_to_be_asked_and_closes_when_they_answer() -> None:
    state = own(own(own(new_game(), 0, "canada"), 1, "germany"), 2, "italy")
    state.ask_compete[2] = True  # Cy wants to be asked; Bob always competes
    state, events = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    assert state.deciding == "compete" and GAME.waiting_for(state) == [2]
    assert state.sales[0].joined == [1]
    assert "Bob joins the sales competition (always compete). Cy may join" in text(events)
    state, events = act(state, 2, Pass(), [2, 2])  # the last answer closes the window: Ann doubles
    assert state.deciding == "licence" and transfers(events) == [[0, 110_000, "sale"]]


def test_the_standing_choice_can_be_changed_at_any_time() -> None:
    state = new_game()
    assert state.deciding == "turn" and state.turn == 0
    opened = state.decision_version
    state, events = act(state, 2, AlwaysCompete(always=False))  # not Cy's turn: still fine
    assert state.ask_compete == [False, False, True]
    assert "Cy will be asked before competing." in text(events)
    assert next(e.text for e in events if e.audience.seat == 2).startswith(
        "From now on you are asked"
    )
    # Ann's buttons stay current, and nothing else moved.
    assert state.decision_version == opened and state.deciding == "turn" and state.turn == 0
    refused(state, 2, AlwaysCompete(always=False), "already asked")
    state, _ = act(state, 2, AlwaysCompete(always=True))
    assert state.ask_compete == [False, False, False]
    refused(state, 2, AlwaysCompete(always=True), "already join every sales competition")
    # It is never offered as a move (it is a setting, not a decision of the game).
    assert all(
        not isinstance(a, AlwaysCompete) for s in state.seats for a in GAME.legal_actions(state, s)
    )


def test_choosing_always_compete_during_an_open_window_joins_it() -> None:
    state, _ = _competition()
    state, events = act(state, 1, AlwaysCompete(always=True), [3, 5, 2, 3])
    assert "Bob joins the sales competition for luxury cars." in text(events)
    assert state.deciding == "licence" and transfers(events) == [[0, 110_000, "sale"]]


def test_even_beats_odd_and_the_winner_collects_at_its_own_rate() -> None:
    state, _ = _competition()
    state, events = act(state, 1, Join(), [3, 5, 2, 3])  # Ann 8, Bob 5: Ann wins
    assert "Ann 3+5=8, Bob 2+3=5 out: Ann wins" in text(events)
    assert transfers(events) == [[0, 110_000, "sale"]]
    assert state.deciding == "licence" and state.turn == 0


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
    state = own(own(own(new_game(always_compete=False), 0, "canada"), 1, "germany"), 2, "japan")
    state, _ = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    assert refused(state, 2, Join()) == "You own no corporation that can sell luxury cars here."


def test_one_join_keeps_the_others_buttons_current() -> None:
    state = own(own(own(new_game(always_compete=False), 0, "canada"), 1, "germany"), 2, "italy")
    state, _ = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    opened = state.decision_version
    state, _ = act(state, 1, Join())
    assert state.deciding == "compete" and state.decision_version == opened
    assert GAME.waiting_for(state) == [2]
    refused(state, 1, Join(), "already answered")


# --- Burnout -------------------------------------------------------------------------------


def test_landing_on_burnout_means_two_skipped_turns() -> None:
    state, events = land(new_game(2), 0, "burnout")
    assert "Ann lands on Burnout and skips the next two turns" in text(events)
    assert state.burnout == [2, 0] and state.turn == 1


def test_burnout_turn_count_exact() -> None:
    state = new_game(2)
    state.burnout[1] = 2
    state.position[1] = board().index_of("burnout")
    state, events = land(state, 0, "casino")
    state, events = act(state, 0, Pass())
    assert "Bob is burnt out and skips a turn (1 more to skip)" in text(events)
    assert state.turn == 0 and state.burnout[1] == 1
    state, _ = land(state, 0, "casino")
    state, events = act(state, 0, Pass())
    assert "(the last one)" in text(events) and state.turn == 0 and state.burnout[1] == 0
    state, _ = land(state, 0, "casino")
    state, _ = act(state, 0, Pass())
    assert state.turn == 1


def test_no_investing_on_the_burnout_space_even_after_the_skipped_turns() -> None:
    # The rulebook: "While on the Burnout space, you cannot invest". After two skipped turns
    # Bob still stands there: he rolls, and nothing else, before he leaves it.
    state = own(new_game(2), 1, "japan", chimney=True, licence_only=["canada"])
    state.position[1] = board().index_of("burnout")
    state.turn = 1
    assert GAME.legal_actions(state, 1) == [Roll()]
    refused(state, 1, Setup(country="canada"), "on the Burnout space: you cannot invest")
    refused(state, 1, Convert(country="japan"), "on the Burnout space: you cannot invest")
    assert GAME.automatic(state) == (1, Roll())  # the only legal move is made for him
    state, _ = act(state, 1, Roll(), [1, 1, *demand("oil", "oil", "oil")])
    assert state.deciding == "licence"  # off Burnout (on Egypt): he may invest again


def test_no_sales_competitions_on_the_burnout_space() -> None:
    state = own(own(new_game(), 0, "canada"), 1, "germany")
    state.position[1] = board().index_of("burnout")  # skips done, Bob has not rolled off yet
    state, events = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    assert "Bob" not in text(events) and transfers(events) == [[0, 110_000, "sale"]]


def test_no_bids_from_the_burnout_space() -> None:
    state = _in_debt()
    state.position[1] = board().index_of("burnout")
    state, _ = act(state, 0, AuctionOff(asset="canada"))
    assert state.auction is not None and state.auction.eligible == [2]


# --- spaces --------------------------------------------------------------------------------


def test_boom_up_to_three_different_sales_without_demand_dice() -> None:
    state = own(new_game(), 0, "canada", "japan", "china", "mexico")
    state, _ = land(state, 0, "boom")
    assert state.deciding == "boom"
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
    state = own(own(new_game(always_compete=False), 0, "canada"), 1, "germany")
    state, _ = land(state, 0, "boom")
    state, _ = act(state, 0, Sell(product="cars"))
    assert state.deciding == "compete"
    state, events = act(state, 1, Join(), [1, 1])  # Ann doubles
    assert transfers(events)[0][0] == 0


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
    assert state.deciding == "casino"
    refused(state, 0, Bet(amount=1_000_001), "largest bet is \\$1,000,000")
    refused(with_cash(state, ann=200_000), 0, Bet(amount=300_000), "you have \\$200,000")
    refused(state, 0, Bet(amount=5_000), "smallest bet")
    state, events = act(state, 0, Bet(amount=100_000), [2, 4])  # even: double
    assert state.cash[0] == 850_000 and state.deciding == "casino"
    state, events = act(state, 0, Bet(amount=100_000), [3, 3])  # doubles: triple
    assert state.cash[0] == 1_050_000
    state, events = act(state, 0, Bet(amount=100_000), [3, 4])  # odd: lose, closed
    assert state.cash[0] == 950_000 and state.turn == 1
    assert "The Casino is closed until the next visit" in text(events)


def test_the_casinos_printed_odds_are_worth_seven_sixths_of_the_stake() -> None:
    # What the rules page says: over the 36 rolls of two dice, 6 doubles pay 3 times the
    # stake, 12 other even totals twice, and 18 odd totals nothing.
    outcomes = [
        3 if a == b else (2 if (a + b) % 2 == 0 else 0) for a in range(1, 7) for b in range(1, 7)
    ]
    assert (outcomes.count(3), outcomes.count(2), outcomes.count(0)) == (6, 12, 18)
    assert sum(outcomes) * 6 == 7 * 36  # an average return of 7/6: +1/6 of every bet
    assert "+1/6" in GAME.rules("casino")


@pytest.mark.parametrize("space", ["charity", "ecology"])
def test_charity_and_ecology_cost_10_000_a_corporation(space: str) -> None:
    state = own(new_game(2), 0, "canada", "japan", international=["japan"])
    state, events = land(state, 0, space)
    assert transfers(events) == [[0, -20_000, space]]
    assert "for each of 2 corporations: $20,000" in text(events)
    state, events = land(new_game(2), 0, space)
    assert transfers(events) == [] and "owns no corporation" in text(events)


def test_mail_card_goes_to_the_bottom_and_bankrupt_corporation_is_chosen() -> None:
    state = own(new_game(2), 0, "canada", "japan")
    top = state.mail[0]
    assert top == "bankrupt"
    state, _ = land(state, 0, "mail")
    assert state.mail[-1] == top and state.deciding == "mail"
    assert set(GAME.legal_actions(state, 0)) == {Remove(country="canada"), Remove(country="japan")}
    state, events = act(state, 0, Remove(country="japan"))
    assert "japan" not in state.corporations
    assert "no corporation will ever be set up in Japan again" in text(events)
    assert state.turn == 1


def test_a_country_whose_corporation_went_bankrupt_never_takes_another() -> None:
    # Ruling: "you can never set up a second Corporation on the same COUNTRY space at any point
    # during the game": the bankrupt corporation leaves with its licence, the country is closed.
    state = own(new_game(2), 0, "canada", "japan")
    state, _ = land(state, 0, "mail")
    state, _ = act(state, 0, Remove(country="japan"))
    assert "japan" not in state.licences and state.closed == ["japan"]
    check_books(state)
    state, events = land(state, 1, "japan", demand("oil", "oil", "oil"))
    assert "closed: its corporation went bankrupt" in text(events)
    assert state.deciding == "turn" and state.turn == 0  # no licence is offered
    state.licences["japan"] = 0  # even with the licence in hand (a test set-up)
    message = refused(state, 0, Setup(country="japan"))
    assert message == "Japan's corporation went bankrupt; no corporation can be set up there again."
    assert GAME.view(state, None).closed == ["japan"]


def test_a_service_industry_may_be_the_bankrupt_corporation_and_goes_back_on_sale() -> None:
    state = services(own(new_game(2), 0, "canada"), 0, "law_firm")
    state, _ = land(state, 0, "mail")
    assert Remove(country="law_firm") in GAME.legal_actions(state, 0)
    state, events = act(state, 0, Remove(country="law_firm"))
    assert "law_firm" not in state.services and "goes back to the bank" in text(events)
    assert state.closed == [] and state.corporations["canada"].owner == 0


def test_mail_pays_and_collects() -> None:
    state = new_game(2)
    state.mail = ["lawsuit", "refund"]
    state, events = land(state, 0, "mail")
    assert transfers(events) == [[0, -board().mail_cards["lawsuit"].amount, "mail"]]
    assert state.mail == ["refund", "lawsuit"]


def test_cards_no_longer_printed_leave_a_saved_stack_as_they_come_up() -> None:
    # A game saved before the stacks changed may hold a card id the board no longer prints.
    state = new_game(2)
    state.mail = ["dividend", "refund", "lawsuit"]
    state, events = land(state, 0, "mail")
    assert transfers(events) == [[0, 50_000, "mail"]] and state.mail == ["lawsuit", "refund"]


def test_the_mail_stack_costs_money_on_average() -> None:
    # Design: the bills outweigh the gifts (at any number of corporations up to ten).
    cards = board().mail_card
    for corporations in range(11):
        net = sum(
            {
                "collect": c.amount,
                "pay": -c.amount,
                "collect_per_corporation": c.amount * corporations,
                "pay_per_corporation": -c.amount * corporations,
            }.get(c.kind, 0)
            for c in cards
        )
        assert net < 0, corporations


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
    state = with_cash(state, ann=1_000_000)
    state, events = land(state, 0, "operating_fees")
    assert transfers(events) == [[0, -650_000, "operating_fees"]]
    said = text(events)
    assert "Employee Salary: 11 units on the table = $650,000" in said
    assert said.count("Operating Fees") == 1  # one line, not "lands on" twice
    assert state.fees[-1] == "salary"


def test_operating_fees_when_passing_and_none_without_corporations() -> None:
    state = own(new_game(2), 0, "canada")
    state.fees = ["rent", "salary"]
    state.position[0] = 15
    state, events = act(state, 0, Roll(), [1, 1, *demand("oil", "oil", "oil")])  # to Spain
    assert [0, -20_000, "operating_fees"] in transfers(events)
    assert "1 unit × $20,000 = $20,000" in text(events)
    state = new_game(2)
    state.position[0] = 15
    state, events = act(state, 0, Roll(), [1, 1, *demand("oil", "oil", "oil")])
    assert transfers(events) == []


def test_service_industry_bought_on_landing_and_paid_by_competitors_corporations() -> None:
    state = new_game(2)
    state, _ = land(state, 0, "law_firm")
    assert state.deciding == "service"
    state, events = act(state, 0, Buy())
    assert state.services == {"law_firm": 0}
    assert transfers(events) == [[0, -board().services["law_firm"].price, "service"]]
    # Bob owns three corporations and a Service Industry; Ann passes her Law Firm.
    state = services(own(state, 1, "japan", "china", "india"), 1, "hotel_chain")
    state, _ = land(state, 1, "casino")
    state, _ = act(state, 1, Pass())
    state.position[0] = 2
    state, events = act(state, 0, Roll(), [1, 1, *demand("oil", "oil", "oil")])
    fee = board().services["law_firm"].fee_per_corporation
    assert [0, 4 * fee, "service_fee"] in transfers(events)
    assert "for each of 4 corporations of their competitors" in text(events)


def test_service_industries_count_as_international_corporations() -> None:
    # Ruling: the rulebook puts an International Corporation on a Service Industry. So it
    # counts for the Start grant, 3 Operating Fees units, Charity Drive and Ecology; it never
    # sells (not even at a Boom).
    state = services(new_game(2), 0, "law_firm")
    assert GAME.view(state, None).players[0].units == 3
    state.position[0] = 36
    state, events = act(state, 0, Roll(), [2, 2])  # onto Start
    assert [0, 200_000, "land_start"] in transfers(events)
    state = services(new_game(2), 0, "law_firm")
    state, events = land(state, 0, "charity")
    assert transfers(events) == [[0, -10_000, "charity"]]
    state = services(new_game(2), 0, "law_firm")
    state.fees = ["rent"]
    state, events = land(state, 0, "operating_fees")
    assert transfers(events) == [[0, -60_000, "operating_fees"]]
    state = services(new_game(2), 0, "law_firm")
    state, events = land(state, 0, "boom")
    assert state.deciding != "boom" and "has no corporation that can sell" in text(events)


def test_travel_agency_moves_clockwise_with_the_advantages_and_the_cost() -> None:
    state = own(new_game(2), 0, "japan")
    state.fees = ["rent"]
    state, _ = land(state, 0, "travel_agency")
    assert state.deciding == "travel"
    # To Mexico: passes Start ($100,000), sells there, may buy its licence; no Operating Fees
    # on this way round.
    state, events = act(state, 0, Travel(country="mexico"), demand("robots", "oil", "oil"))
    moved = transfers(events)
    assert moved[0] == [0, -10_000, "travel"]
    assert [0, 100_000, "pass_start"] in moved and [0, 100_000, "sale"] in moved
    assert state.deciding == "licence" and state.position[0] == board().index_of("mexico")
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
    assert state.deciding == "debt" and state.cash[0] == state_cash
    return state


def test_a_debt_on_the_way_is_paid_before_the_move_goes_on() -> None:
    # "You have to pay these fees immediately before continuing the game": with $0, Ann passes
    # Operating Fees (Office Rent, 2 units: $40,000) on her way to Spain. She sells Italy first;
    # only then does she land, and sells her cars with the one corporation she has left.
    state = with_cash(own(new_game(), 0, "canada", "italy"), ann=0)
    state.fees = ["rent"]
    state.position[0] = 15
    state, events = act(state, 0, Roll(), [1, 1])
    assert state.deciding == "debt" and state.position[0] == board().index_of("operating_fees")
    assert state.cash[0] == -40_000 and "lands on Spain" not in text(events)
    assert state.debts[0] == 1
    state, events = act(state, 0, SellToBank(asset="italy"), demand("cars", "oil", "oil"))
    said = text(events)
    assert said.index("is out of debt") < said.index("Ann moves on.") < said.index("lands on Spain")
    assert transfers(events) == [[0, 70_000, "bank_sale"], [0, 110_000, "sale"]]
    assert state.position[0] == board().index_of("spain") and state.deciding == "licence"


def test_each_debt_is_counted_when_it_arises() -> None:
    # A debt on the way (Operating Fees) and another on landing (Ecology): two debts.
    state = with_cash(own(new_game(), 0, "canada", "italy", "japan"), ann=0)
    state.fees = ["rent"]
    state.position[0] = 15
    state, _ = act(state, 0, Roll(), [5, 6])  # passes Operating Fees: 3 units × $20,000
    assert state.deciding == "debt" and state.debts == [1, 0, 0]
    state, events = act(state, 0, SellToBank(asset="italy"))  # $70,000: $10,000 left
    assert "lands on Ecology and pays $10,000 for each of 2 corporations" in text(events)
    assert state.deciding == "debt" and state.cash[0] == -10_000 and state.debts == [2, 0, 0]


def test_a_debt_from_landing_is_paid_before_the_next_player() -> None:
    state = with_cash(own(new_game(2), 0, "canada", "japan"), ann=5_000)
    state, _ = land(state, 0, "charity")
    assert state.deciding == "debt" and state.turn == 0 and state.cash[0] == -15_000
    state, events = act(state, 0, SellToBank(asset="japan"))
    assert state.turn == 1 and state.deciding == "turn" and "out of debt" in text(events)


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


def test_an_auction_has_the_banks_price_as_its_floor_and_the_seller_takes_the_best_bid() -> None:
    state = _in_debt()
    state, events = act(state, 0, AuctionOff(asset="canada"))
    assert state.deciding == "auction" and GAME.waiting_for(state) == [1, 2]
    assert state.auction is not None and state.auction.floor == 100_000
    assert "the bank pays $100,000, the smallest bid" in text(events)
    refused(
        state,
        1,
        Bid(amount=90_000),
        "Your bid of \\$90,000 is below the smallest bid, the bank's price of \\$100,000",
    )
    assert min(a.amount for a in GAME.legal_actions(state, 1) if isinstance(a, Bid)) == 100_000
    refused(with_cash(state, bob=150_000), 1, Bid(amount=160_000), "you have \\$150,000")
    state, events = act(state, 1, Bid(amount=150_000))
    assert "150,000" not in text(events)  # sealed
    assert [e.text for e in events if e.audience.seat == 1] == ["Your sealed bid: $150,000."]
    assert auction_view(state, None).your_bid is None
    state, events = act(state, 2, Bid(amount=120_000))
    # The bids are opened; nothing is sold until the seller chooses.
    assert events[0].reveals and state.deciding == "accept" and GAME.waiting_for(state) == [0]
    assert "Bob $150,000, Cy $120,000. Best bid: Bob, $150,000." in text(events)
    assert auction_view(state, None).bids == {1: 150_000, 2: 120_000}
    assert transfers(events) == [] and state.licences["canada"] == 0
    assert GAME.legal_actions(state, 0) == [Accept(), SellToBank(asset="canada")]
    refused(state, 0, SellToBank(asset="japan"), "Take the best bid or sell the auctioned asset")
    refused(state, 0, Pass(), "Take the best bid, or sell to the bank instead.")
    state, events = act(state, 0, Accept())
    assert transfers(events)[:2] == [[1, -150_000, "auction"], [0, 150_000, "auction"]]
    assert state.licences["canada"] == 1 and state.corporations["canada"].owner == 1
    assert state.turn == 1
    check_books(state)


def test_the_seller_may_sell_to_the_bank_instead() -> None:
    state = _in_debt()
    state, _ = act(state, 0, AuctionOff(asset="canada"))
    state, _ = act(state, 1, Bid(amount=100_000))
    state, _ = act(state, 2, Pass())
    state, events = act(state, 0, SellToBank(asset="canada"))
    assert transfers(events)[0] == [0, 100_000, "bank_sale"]
    assert "turns the bids down" in text(events) and "canada" not in state.licences
    assert state.cash[1] == 750_000


def test_a_tie_goes_to_the_first_bidder_clockwise_from_the_seller() -> None:
    state = _in_debt()
    state, _ = act(state, 0, AuctionOff(asset="canada"))
    state, _ = act(state, 2, Bid(amount=130_000))
    state, _ = act(state, 1, Bid(amount=130_000))
    assert state.auction is not None and state.auction.best() == (1, 130_000)


def test_the_rulebooks_ruinous_auction_cannot_happen() -> None:
    # The table: a player owing $80,000 auctions an International Japan. A $10,000
    # bid is refused (below the bank's price); selling to the bank leaves him cash.
    state = own(new_game(3), 0, "japan", international=["japan"])
    state.fees = ["salary"]
    state = with_cash(state, ann=20_000)
    state, _ = land(state, 0, "operating_fees")  # 3 units on the table: $100,000
    assert state.deciding == "debt" and state.cash[0] == -80_000
    japan = board().countries["japan"]
    floor = (japan.licence + japan.start_up + japan.conversion) // 2
    state, _ = act(state, 0, AuctionOff(asset="japan"))
    refused(state, 1, Bid(amount=10_000), "below the smallest bid, the bank's price")
    state, _ = act(state, 1, Bid(amount=floor))
    state, _ = act(state, 2, Pass())
    state, _ = act(state, 0, SellToBank(asset="japan"))
    assert state.cash[0] == floor - 80_000 and not state.bankrupt[0]


def test_no_auction_when_nobody_can_pay_the_banks_price() -> None:
    state = with_cash(_in_debt(), bob=50_000, cy=99_999)
    assert AuctionOff(asset="canada") not in GAME.legal_actions(state, 0)
    refused(state, 0, AuctionOff(asset="canada"), "Nobody else can pay the bank's price")


def test_bankrupt_and_out_when_nothing_is_left() -> None:
    state = own(new_game(2), 0, "columbia")
    state.fees = ["salary"]
    state = with_cash(state, ann=0)
    state, _ = land(state, 0, "operating_fees")  # 1 unit: $100,000
    assert state.cash[0] == -100_000
    state, events = act(state, 0, SellToBank(asset="columbia"))  # half of $100,000
    assert state.bankrupt[0] and state.cash[0] == 0
    assert transfers(events) == [[0, 50_000, "bank_sale"], [0, 50_000, "written_off"]]
    assert "is bankrupt: out of the game" in text(events)
    check_books(state)
    assert state.outcome is not None and state.outcome.ended == "last one standing"
    assert state.outcome.winners == [1]
    assert "Game over after 1 round." in text(events)


# --- moves made by themselves and what a person is asked -----------------------------------


def test_the_only_legal_move_is_made_by_itself() -> None:
    state = new_game()
    assert GAME.legal_actions(state, 0) == [Roll()]
    assert GAME.automatic(state) == (0, Roll())
    state = own(new_game(), 0, licence_only=["canada"])  # a set-up is possible: Ann decides
    assert GAME.automatic(state) is None
    assert GAME.automatic(new_game(auto_moves=False)) is None  # the option turns it off


def test_a_debt_with_one_way_out_is_settled_by_itself() -> None:
    state = own(new_game(2), 0, "columbia")
    state.fees = ["salary"]
    state = with_cash(state, ann=0, bob=0)
    state, _ = land(state, 0, "operating_fees")
    assert GAME.legal_actions(state, 0) == [SellToBank(asset="columbia")]
    assert GAME.automatic(state) == (0, SellToBank(asset="columbia"))


def test_the_authority_makes_automatic_moves_for_people_and_logs_them() -> None:
    # Two people, no bots: after every action the authority makes the moves that make
    # themselves, logs them as the seat's own, and the log replays to the same state.
    names = NAMES[:2]
    people = [False, False]
    begun = start_state(erase(GAME), names, people, {}, 7, 1)
    assert begun.log[0][1:] == ["roll"]  # the opening player's only move, made at once
    state = begun.state
    assert isinstance(state, BusinessGoState)
    entries: list[Entry] = [["host", "begin", [*names], [*people]], *begun.log]
    for _ in range(40):
        assert GAME.automatic(state) is None and not state.finished  # a real decision waits
        seat = GAME.waiting_for(state)[0]
        step = advance(erase(GAME), state, 7, people, seat, GAME.legal_actions(state, seat)[-1])
        entries += step.log
        assert isinstance(step.state, BusinessGoState)
        state = step.state
    assert sum(1 for e in entries if e[1:] == ["roll"]) > 10
    rebuilt = replay(erase(GAME), 7, {}, 1, [json.dumps(entries)])
    assert rebuilt is not None and rebuilt.model_dump() == state.model_dump()


def test_human_decisions_count_neither_automatic_moves_nor_standing_choices() -> None:
    state = new_game()
    state.position[0] = 8
    state, _ = act(state, 0, Roll(), [1, 1])  # the only legal move: made for Ann, not asked
    assert state.asked == [0, 0, 0] and state.deciding == "casino"
    state, _ = act(state, 0, Pass())  # a decision
    state, _ = act(state, 2, AlwaysCompete(always=False))  # a standing choice
    assert state.asked == [1, 0, 0]
    asked_off = new_game(auto_moves=False)
    asked_off.position[0] = 8
    asked_off, _ = act(asked_off, 0, Roll(), [1, 1])
    assert asked_off.asked == [1, 0, 0]  # without the option, the roll is asked
    assert GAME.tallies(state)["human_decisions_per_game"] == pytest.approx(1 / 3)


def test_the_tallies_report_raising_cash_and_bankruptcy() -> None:
    state = _in_debt()
    tallies = GAME.tallies(state)
    assert tallies["raised_cash_pct"] == 1.0 and tallies["bankrupt_pct"] == 0.0
    assert set(tallies) == {"raised_cash_pct", "bankrupt_pct", "human_decisions_per_game"}


# --- winning and options -------------------------------------------------------------------


def test_first_to_the_target_wins() -> None:
    state = with_cash(own(new_game(2, short=True), 0, "canada"), ann=4_900_000)
    state, events = land(state, 0, "columbia", demand("cars", "oil", "oil"))
    assert state.outcome is not None and state.outcome.ended == "reached the target"
    assert state.outcome.winners == [0] and "the first to make $5,000,000" in text(events)
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


def test_advanced_rule_a_boom_sells_only_international_corporations() -> None:
    # Ruling: the rulebook applies the advanced rule "during a Boom" too, and a Boom is on no
    # continent, so only International Corporations make Boom sales.
    state = own(new_game(2, advanced=True), 0, "canada", "japan", international=["japan"])
    state, _ = land(state, 0, "boom")
    assert [a for a in GAME.legal_actions(state, 0) if isinstance(a, Sell)] == [
        Sell(product="robots")
    ]


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Buy(), "You can buy only the licence or Service Industry you have just landed on."),
        (Sell(product="cars"), "You can choose Boom sales only when you land on the Boom space."),
        (Bet(amount=10_000), "You can bet only when you land on the Casino."),
        (Travel(country="japan"), "You can travel only from the Travel Agency."),
        (SellToBank(asset="canada"), "You can do that only to pay a debt."),
        (Downgrade(country="canada"), "You can do that only to pay a debt."),
        (Accept(), "You can accept a bid only when your auction has closed."),
        (Remove(country="canada"), "Only a Mail card makes a corporation go bankrupt."),
    ],
)
def test_a_move_out_of_its_moment_gets_a_sentence(action: object, message: str) -> None:
    # What the moment is for follows: here, Ann's turn before the roll.
    now = "Now it is your choice: set up, convert or roll."
    assert refused(own(new_game(), 0, "canada"), 0, action) == f"{message} {now}"


def test_nothing_but_raising_money_while_in_debt() -> None:
    state = _in_debt()
    for action in (Pass(), Bet(amount=10_000)):
        assert refused(state, 0, action).startswith("You must raise money first")
    # The debt came of the move: rolling again is not what waits.
    assert refused(state, 0, Roll()).startswith("You have rolled already this turn. Now it is")


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
    assert "Time is up: Ann rolls" in text(events) and state.deciding == "casino"
    state, events = timeout(state)
    assert state.turn == 1 and transfers(events) == []
    assert (
        GAME.new_game(
            NAMES[:2], BusinessGoOptions(turn_seconds=0), RiggedRandom([6, 6, 1, 1])
        ).deadline
        is None
    )


def test_every_action_has_a_report_of_its_own_kind() -> None:
    # Each action (and a deadline's timeout) makes one public message of the class of its type.
    assert set(REPORTS) == {model.model_fields["type"].default for model in GAME.actions.models}


def test_the_goal_is_won_the_moment_the_money_is_made() -> None:
    """The page's decision: the first player whose cash reaches the goal wins at once, even in
    the middle of a move. Ann passes Start ($100,000 grant: $5,050,000 of a $5,000,000 goal)
    with five spaces still to go, to the Mail space whose card would close a corporation of
    hers: the game ends at the grant, and nothing after it happens."""
    state = with_cash(own(new_game(2, short=True), 0, "canada"), ann=4_950_000)
    state = state.model_copy(deep=True)
    state.position[0] = 38
    after, events = act(state, 0, Roll(), [2, 5])
    assert after.outcome is not None and after.outcome.winners == [0]
    assert after.outcome.summary == "Ann wins with $5,050,000, the first to make $5,000,000."
    assert text(events).splitlines()[:3] == [
        "Ann rolls 2+5 = 7.",
        "Ann passes BUSINE$$ GO Start: $100,000 grant.",
        "Game over after 1 round. Ann wins with $5,050,000, the first to make $5,000,000.",
    ]
    assert "canada" in after.corporations and after.cash == [5_050_000, 750_000]
