"""Registration, views, neutral UI messages, the rules page and the bots."""

from __future__ import annotations

import json
import random
from pathlib import Path

from core import registry
from core.engine import IllegalAction, OpenDecision, Seat
from core.games import bigidea
from core.games.bigidea import GAME
from core.games.bigidea.actions import (
    Action,
    Invest,
    Pass,
    Pick,
    Pitch,
    Point,
    Withdraw,
)
from core.games.bigidea.bots import RESERVE
from core.games.bigidea.cards import catalogue
from core.games.bigidea.events import ChitInvested
from core.games.bigidea.rulebook import rules_page
from core.games.bigidea.state import BigIdeaState
from tests.games.bigidea_support import (
    HANDS,
    PICKS,
    act,
    all_card_ids,
    check_public_surfaces,
    in_mezzanine,
    in_venture,
    new_game,
    pick_all,
    table,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games" / "bigidea.md"


def test_registered_on_import() -> None:
    assert registry.get_game("bigidea") is GAME is bigidea.GAME
    assert (GAME.name, GAME.title) == ("bigidea", "The Big Idea")


# --- views ---------------------------------------------------------------------------------


def test_public_view_hides_hands_picks_and_votes() -> None:
    state, _ = act(new_game(HANDS), 0, Pick(cards=["cat", "frozen"]))
    public = GAME.view(state, None)
    data = public.model_dump(mode="json")
    json.dumps(data)
    assert public.you is None and public.own is None
    assert {"hand", "pick", "vote"}.isdisjoint(data)
    assert all("your_price" not in p for p in data["products"])
    assert [p.hand_size for p in public.players] == [5, 5, 5]
    assert [p.picked for p in public.players] == [True, False, False]
    assert public.deck_size == len(state.deck)
    check_public_surfaces(state)
    assert GAME.view(state, 99) == public  # a stranger sees the public view


def test_seat_view_adds_own_hand_pick_vote_and_prices() -> None:
    state = new_game(HANDS)
    state, _ = act(state, 0, Pick(cards=["cat", "frozen"]))
    seat = GAME.view(state, 0)
    data = seat.model_dump(mode="json")
    json.dumps(data)
    assert seat.you == 0 and seat.own is not None
    assert [c.id for c in seat.own.hand] == HANDS[0]
    card = {"id": "cat", "name": "cat", "type": 1, "text": "It's like a cat..."}
    assert seat.own.hand[0].model_dump() == card
    assert seat.own.pick == ["cat", "frozen"]
    # In the JSON the seat's own part is its own object, which the channel's view leaves out.
    own = data["own"]
    assert own["hand"][0] == card and own["pick"] == ["cat", "frozen"]
    assert own["voted"] is False and own["vote"] is None
    assert "own" not in GAME.view(state, None).model_dump(mode="json")
    mezz = table(in_mezzanine(), (1, ["car", "love"], [1, 2, 0]))
    view = GAME.view(mezz, 0)
    assert view.products[0].your_price == 200
    assert view.model_dump(mode="json")["products"][0]["your_price"] == 200
    assert view.products[0].chits == [1, 2, 0]
    assert view.turn == 0 and view.phase == "mezzanine"


def test_outcome_in_view() -> None:
    state = table(new_game(players=3))
    state.round, state.decision, state.turn = state.rounds, OpenDecision(name="mezzanine"), 2
    state, _ = act(state, 2, Pass())
    public = GAME.view(state, None)
    json.dumps(public.model_dump(mode="json"))
    assert public.outcome is not None
    assert public.outcome.summary.endswith("tie for first with $10.")


# --- board, panel, prompt ------------------------------------------------------------------


def test_board_shows_the_public_table() -> None:
    state = table(in_mezzanine(), (1, ["car", "love"], [1, 2, 0]))
    state, _ = act(state, 0, Pass())
    board = GAME.render_board(state)
    text = board.plain_text()
    assert "Round 1 of 6" in text and "Dealer: Ann" in text and "Mezzanine" in text
    assert "It's like a high-performance luxury car... you can share with someone special!" in text
    assert "Ann 1, Bob 2" in text
    assert "Waiting for Bob." in text
    assert "Ann: $10 · 4 chits · 3 cards" in text
    check_public_surfaces(state)


def test_private_panel_pick_select() -> None:
    state = new_game(HANDS)
    panel = GAME.render_private(state, 1)
    (select,) = panel.selects
    assert (select.min_values, select.max_values) == (2, 2)
    assert (select.version, select.seat, select.field) == (state.version, 1, "cards")
    assert [o.value for o in select.options] == HANDS[1]
    assert select.action == {"type": "pick", "cards": []}
    filled = dict(select.action, cards=["car", "love"])
    act(state, 1, GAME.parse_action(filled))
    assert "It's like a high-performance luxury car..." in panel.text


def test_private_panel_pick_select_in_the_variant() -> None:
    state = new_game(HANDS, larger_products=True)
    (select,) = GAME.render_private(state, 0).selects
    assert (select.min_values, select.max_values) == (1, 4)


def test_private_panel_mezzanine_buttons_apply() -> None:
    state = table(in_mezzanine(), (1, ["car", "love"], [1, 2, 0]), (2, ["robot"], [0, 0, 1]))
    panel = GAME.render_private(state, 0)
    buttons = panel.all_buttons()
    labels = [b.label for b in buttons]
    assert labels == [
        "Invest in Bob's love car ($2)",
        "Invest in Cy's robot ($1)",
        "Withdraw from Bob's love car",
        "Pass",
    ]
    for button in buttons:
        assert (button.version, button.seat) == (state.version, 0)
        assert button.action is not None
        act(state, 0, GAME.parse_action(button.action))
    # Not your turn: no buttons.
    assert GAME.render_private(state, 1).all_buttons() == []
    assert "Nothing for you to do now" in GAME.render_private(state, 1).text


def test_prompt_has_a_button_per_new_product_and_nobody() -> None:
    assert GAME.render_prompt(new_game(HANDS)) is None
    state, _ = pick_all(new_game(HANDS), {0: ["cat", "hat"], 1: PICKS[1], 2: PICKS[2]})
    prompt = GAME.render_prompt(state)
    assert prompt is not None
    buttons = prompt.all_buttons()
    # Labels fit a button (75 characters); the text spells the products out in full.
    assert [b.label for b in buttons] == [
        "Point at Bob: It's like a high-performance luxury car... you can share wit…",
        "Point at Cy: It's like a high-tech robot... that makes your troubles melt…",
        "Point at nobody",
    ]
    assert all(len(b.label) <= 75 for b in buttons)
    assert (
        "Bob: It's like a high-performance luxury car... you can share with someone special!"
        in prompt.text
    )
    assert [b.action for b in buttons] == [
        {"type": "point", "seat": 1},
        {"type": "point", "seat": 2},
        {"type": "point", "seat": None},
    ]
    assert all(b.seat is None and b.version == state.version for b in buttons)
    for button in buttons:
        assert button.action is not None
        act(state, 0, GAME.parse_action(button.action))
    assert GAME.render_prompt(in_mezzanine()) is None


def test_describe_action_keeps_secrets() -> None:
    state = table(in_mezzanine(), (1, ["car", "love"], [1, 2, 0]))
    pid = state.products[0].id
    assert GAME.describe_action(state, Pick(cards=["cat", "frozen"])) == "Pick 2 cards"
    assert GAME.describe_action(state, Point(seat=1)) == "Point in secret"
    assert GAME.describe_action(state, Pitch(text="hi")) == "Pitch"
    assert GAME.describe_action(state, Pass()) == "Pass"
    assert GAME.describe_action(state, Invest(product=pid)) == "Invest in Bob's love car ($2)"
    assert GAME.describe_action(state, Withdraw(product=pid)) == "Withdraw from Bob's love car"


# --- rules page ----------------------------------------------------------------------------


def test_rules_page_is_the_docs_page() -> None:
    assert GAME.rules("all") == rules_page() == DOCS.read_text(encoding="utf-8")
    short = GAME.rules(None)
    assert short.startswith("## Overview") and len(short) < 2000
    assert "`/bigidea rules all`" in short
    assert GAME.rule_topics() == list(dict.fromkeys(GAME.rule_topics()))
    assert {"seed", "venture", "mezzanine", "ipo", "rulings"} <= set(GAME.rule_topics())


def test_rules_topics() -> None:
    phases = GAME.rules("phases")
    assert phases.startswith("## Phases")
    for part in ("### Seed phase", "### Venture phase", "### Mezzanine phase", "### IPO phase"):
        assert part in phases
    assert "## Variants" not in phases
    variants = GAME.rules("Variants")
    assert variants.startswith("## Variants") and "$0.50" in variants
    assert GAME.rules("ipo").startswith("### IPO phase")
    assert GAME.rules("vote").startswith("### Venture phase")
    assert "erotic" in GAME.rules("rulings")
    assert "no rules topic" in GAME.rules("chess")


# --- bots ----------------------------------------------------------------------------------


def bot_choice(state: BigIdeaState, seat: Seat) -> Action:
    legal = GAME.legal_actions(state, seat)
    choice = GAME.bot_action(GAME.view(state, seat), legal, random.Random(1))
    assert choice in legal
    return choice


def bot_pick(state: BigIdeaState, seat: Seat) -> Pick:
    choice = bot_choice(state, seat)
    assert isinstance(choice, Pick)
    return choice


def test_bot_picks_an_item_and_a_description() -> None:
    state = new_game(HANDS)
    for seat in range(3):
        choice = bot_pick(state, seat)
        own = GAME.view(state, seat).own
        assert own is not None
        types = {c.id: c.type for c in own.hand}
        assert sorted(types[c] for c in choice.cards) == [1, 2]


def test_bot_picks_three_cards_in_the_variant() -> None:
    state = new_game(HANDS, larger_products=True)
    assert len(bot_pick(state, 0).cards) == 3


def test_bot_points_at_the_most_backed_new_product() -> None:
    state = in_venture()
    state.products[2].chits = [0, 0, 3]
    state.chits[2] = 2
    assert bot_choice(state, 0) == Point(seat=2)
    assert bot_choice(state, 2) in (Point(seat=0), Point(seat=1))
    state.chits[0] = 0
    state.products[0].chits = [5, 0, 0]
    assert bot_choice(state, 0) == Point(seat=None)


def test_bot_invests_when_it_pays_and_keeps_a_reserve() -> None:
    state = table(in_mezzanine(), (1, ["car", "love"], [0, 3, 0]))
    # Four chits after investing: expected $2 x (1+2+3+4)/6 = $3.33 beats the $3 price.
    assert bot_choice(state, 0) == Invest(product=state.products[0].id)
    state.money = [RESERVE + 299, 3000 - RESERVE - 299, 0]
    assert bot_choice(state, 0) == Pass()
    cheap = table(in_mezzanine(), (1, ["car", "love"], [0, 1, 0]))
    # Two chits after investing: expected $1 does not beat the $1 price... but equals it.
    assert bot_choice(cheap, 0) == Pass()


def test_bot_frees_a_chit_from_a_long_shot_when_out_of_chits() -> None:
    state = table(in_mezzanine(), (1, ["car", "love"], [1, 0, 0]), (2, ["robot"], [4, 0, 0]))
    assert state.chits[0] == 0
    assert bot_choice(state, 0) == Withdraw(product=state.products[0].id)


def test_many_products_use_menus_that_apply() -> None:
    items = [c for c in all_card_ids() if catalogue()[c].is_item][:26]
    state = table(in_mezzanine(), *[(1, [item], [0, 0, 0]) for item in items])
    panel = GAME.render_private(state, 0)
    assert [b.label for b in panel.all_buttons()] == ["Pass"]
    assert [len(s.options) for s in panel.selects] == [25, 1]
    for select in panel.selects:
        assert (select.field, select.seat, select.version) == ("product", 0, state.version)
        (option,) = select.options[-1:]
        filled = dict(select.action, product=[option.value])
        _, events = act(state, 0, GAME.parse_action(filled))
        invested = events[0]
        assert isinstance(invested, ChitInvested) and invested.product == int(option.value)


def test_option_help_has_descriptions() -> None:
    fields = GAME.options_model.model_fields
    assert all(f.description for f in fields.values())


# --- text commands -------------------------------------------------------------------------


def test_text_commands() -> None:
    state = new_game(HANDS)
    assert {c.word for c in GAME.commands} == {
        *("pitch", "pick", "point", "invest", "withdraw", "pass")
    }
    parse = GAME.parse_text
    assert parse(state, 0, "pick", "cat, Frozen") == Pick(cards=["cat", "frozen"])
    assert parse(state, 0, "pick", "crystal cyber- .com disposible") == Pick(
        cards=["crystal", "cyber", "com", "disposable"]
    )
    assert parse(state, 0, "pick", "") is None
    assert parse(state, 0, "pitch", "  Buy it  ") == Pitch(text="Buy it")
    assert parse(state, 0, "pitch", " ") is None
    assert parse(state, 0, "point", "bob") == Point(seat=1)
    assert parse(state, 0, "point", "@C") == Point(seat=2)
    assert parse(state, 0, "point", "nobody") == Point(seat=None)
    assert parse(state, 0, "invest", "#3") == Invest(product=3)
    assert parse(state, 0, "withdraw", "2") == Withdraw(product=2)
    assert parse(state, 0, "pass", "") == Pass()
    for word, rest in [("pick", "cat dog"), ("point", "Zed"), ("invest", "cat")]:
        try:
            parse(state, 0, word, rest)
        except IllegalAction as error:
            assert str(error)
        else:
            raise AssertionError(f"{word} {rest} should be refused")


def test_button_actions_fit_in_a_component_id() -> None:
    # Platforms carry the action in an id of at most 100 characters, with ~25 of overhead.
    state = table(in_mezzanine(), (1, ["car", "love"], [1, 2, 0]))
    prompt = GAME.render_prompt(in_venture())
    assert prompt is not None
    messages = [GAME.render_private(new_game(HANDS), 0), GAME.render_private(state, 0), prompt]
    for message in messages:
        actions = [b.action for b in message.all_buttons()] + [s.action for s in message.selects]
        for action in actions:
            assert len(json.dumps(action, separators=(",", ":"))) <= 60
