"""The card data, the panels and board, typed commands and the rules page of BiggieBills$$$."""

from __future__ import annotations

import json

import pytest

from core.commands import find
from core.engine import IllegalAction
from core.games.biggiebills import GAME
from core.games.biggiebills.actions import (
    Accept,
    Block,
    Challenge,
    Done,
    Exchange,
    PlayGrowth,
    ProposeTarget,
    ReturnCards,
    Skip,
)
from core.games.biggiebills.cards import (
    ACQUIRE,
    BLOCK,
    FLEX_12,
    all_challenges,
    all_growth,
    all_industry,
    card_name,
    catalogue,
    challenge_id,
)
from core.games.biggiebills.rulebook import rules_page, topics
from core.games.biggiebills.state import Active
from core.games.biggiebills.view import BonusView, ChallengeView, GrowthView, HandView
from core.registry import get_game
from tests.games.biggiebills_support import act, arrange, new_game, play_to, ready_to_acquire

VM = "vendor_management"
PL = "product_launch"


# --- data --------------------------------------------------------------------------------------


def test_the_card_tables() -> None:
    growth = all_growth()
    assert len(growth) == 24
    assert [sum(1 for g in growth if g.stage == s) for s in (1, 2, 3, 4)] == [6, 6, 6, 6]
    names = {g.name: g.stage for g in growth}
    assert names["Vendor Management"] == 1 and names["Acquire a Competitor"] == 4
    assert all(g.first >= g.later > 0 and g.cost > 0 and g.penalty > 0 for g in growth)
    assert len(all_challenges()) == 24
    assert {c.growth for c in all_challenges()} == {g.id for g in growth}
    assert len(all_industry()) == 24
    # a small vocabulary, combined: every kind is used, and no card is a special case
    kinds = {e.kind for card in all_industry() for e in card.effects}
    assert kinds == {
        "cost",
        "payoff",
        "penalty",
        "two_cards",
        "fine",
        "exchange",
        "no_challenges",
        "per_completed",
        "per_challenge",
    }
    assert catalogue() is catalogue()
    assert get_game("biggiebills") is GAME


# --- board and panels --------------------------------------------------------------------------


def test_board_shows_progress_and_never_a_hand() -> None:
    state = arrange(new_game(), 0, bonus=[BLOCK], completed=["business_plan"])
    state, _ = act(state, 0, PlayGrowth(card=VM))
    board = GAME.render_board(state).plain_text()
    assert "Business Cycle 1" in board and "Industry Rules: none in force" in board
    assert "#1 Red: Vendor Management" in board
    assert "Red: $180M · completed S1:1 S2:0 S3:0 S4:0 · bonus cards 1" in board
    assert "Blue to play" in board
    public = GAME.view(state, None)
    assert public.hand is None
    dumped = json.dumps(public.model_dump(mode="json"))
    shown = {VM, "business_plan"}  # active and completed: on the board by right
    held = {c for h in state.growth for c in h} - shown
    assert held and not any(c in dumped for c in held)


def test_a_team_view_holds_its_own_hand_at_this_cycles_prices() -> None:
    state = arrange(new_game(), 0, growth=[VM], challenges=[challenge_id(PL)], bonus=[BLOCK])
    state.industry = "rate_hike"  # every cost at 125%
    own = GAME.view(state, 0)
    assert own.you == 0 and own.hand is not None
    vendor = GrowthView(
        id=VM,
        name="Vendor Management",
        stage=1,
        cost=25,
        payoff=40,
        penalty=8,
        first=40,
        later=35,
        printed_cost=20,
    )
    launch = ChallengeView(id=challenge_id(PL), name="Challenge Product Launch", growth=PL, stage=2)
    block = BonusView(id=BLOCK, name="Block a Challenge")
    assert own.hand == HandView(growth=[vendor], challenges=[launch], bonus=[block])
    assert own.industry is not None and own.industry.name == "Interest Rate Hike"
    team = own.teams[0]
    assert (team.growth_cards, team.challenge_cards, team.bonus_cards) == (1, 1, 1)
    assert own.model_dump(mode="json")["hand"]["growth"][0]["cost"] == 25
    assert not any(VM in hand for hand in state.growth[1:])
    for viewer in (None, 1, 99):  # the channel, another team, a seat not in the game
        other = GAME.view(state, viewer)
        assert VM not in json.dumps(other.model_dump(mode="json"))
    for viewer in (None, 99):
        public = GAME.view(state, viewer)
        assert public.you is None and public.hand is None
        dumped = public.model_dump(mode="json")
        assert "hand" not in dumped and type(public).model_validate(dumped) == public


def test_private_panel_has_a_stale_proof_control_for_every_legal_action() -> None:
    state = new_game()
    panel = GAME.render_private(state, 0)
    assert "Your team's hand" in panel.text and "Vendor Management" in panel.text
    buttons = [b for b in panel.all_buttons() if b.action is not None]
    assert all(b.version == state.version and b.seat == 0 for b in buttons)
    assert "Skip (pay the fine)" in {b.label for b in buttons}
    pressed = [GAME.parse_action(b.action or {}) for b in buttons]
    legal = GAME.legal_actions(state, 0)
    exchanges = [a for a in legal if isinstance(a, Exchange)]
    assert set(pressed) == {a for a in legal if not isinstance(a, Exchange | ProposeTarget)}
    # A new target is an amount of the team's own: a form, answered as the typed command.
    (form,) = [b for b in panel.all_buttons() if b.action is None]
    assert (form.label, form.command, form.ask) == ("Propose a new target…", "target", True)
    target = find(GAME.commands, "target")
    assert target is not None and target.ask is not None
    assert target.ask.title == "A new target"
    assert GAME.parse_text(state, 0, "target", "1500") == ProposeTarget(target=1500)
    (menu,) = panel.selects
    assert menu.field == "cards" and menu.min_values == menu.max_values == 2
    # a menu answer such as two copies of a card ("id#1", "id#2") is a legal exchange
    chosen = GAME.parse_action({**menu.action, "cards": [o.value for o in menu.options[:2]]})
    assert chosen in exchanges
    other = GAME.render_private(state, 1)
    assert other.all_buttons() == [] and "Nothing for your team to do now" in other.text


def test_block_panel_and_many_choices_fall_back_to_menus() -> None:
    state, _ = act(new_game(), 0, PlayGrowth(card=VM))
    state = arrange(state, 0, bonus=[BLOCK])
    state = arrange(state, 1, challenges=[challenge_id(VM)], completed=["business_plan"])
    state, _ = act(state, 1, Challenge(active=1, card=challenge_id(VM)))
    panel = GAME.render_private(state, 0)
    labels = [b.label for b in panel.all_buttons()]
    assert labels == ["Block the challenge", "Accept the challenge"]
    assert "Blue challenges your card" in panel.text


def test_describe_action_labels() -> None:
    state, _ = act(new_game(), 0, PlayGrowth(card=VM))
    assert GAME.describe_action(state, PlayGrowth(card=VM)).startswith("Play Vendor Management")
    assert GAME.describe_action(state, PlayGrowth(card=ACQUIRE, target=2)).startswith(
        "Acquire Green"
    )
    assert GAME.describe_action(state, Challenge(active=1, card=FLEX_12)).startswith(
        "Challenge Red's Vendor Management (Flexible)"
    )
    assert GAME.describe_action(state, Exchange(cards=[VM, "seed_funding"])) == (
        "Exchange Seed Funding and Vendor Management"
    )
    assert GAME.describe_action(state, Skip()) == "Skip (pay the fine)"
    assert GAME.describe_action(state, ReturnCards(cards=[VM, PL])) == (
        "Return Product Launch and Vendor Management"
    )


# --- typed commands ----------------------------------------------------------------------------


def test_typed_commands() -> None:
    state, _ = act(new_game(), 0, PlayGrowth(card=VM))
    parse = GAME.parse_text
    assert parse(state, 1, "play", "vendor management") == PlayGrowth(card=VM)
    assert parse(state, 1, "play", "Vendor") == PlayGrowth(card=VM)
    assert parse(state, 1, "acquire", "green") == PlayGrowth(card=ACQUIRE, target=2)
    assert parse(state, 1, "challenge", "Red Vendor Management") == Challenge(
        active=1, card=challenge_id(VM)
    )
    assert parse(state, 1, "challenge", "red vendor management flex") == Challenge(
        active=1, card=FLEX_12
    )
    assert parse(state, 1, "exchange", "Vendor Management, Challenge Seed Funding") == Exchange(
        cards=[VM, challenge_id("seed_funding")]
    )
    assert parse(state, 1, "skip", "") == Skip()
    assert parse(state, 1, "done", "") == Done()
    assert parse(state, 1, "block", "") == Block()
    assert parse(state, 1, "accept", "") == Accept()
    assert parse(state, 1, "return", "vendor management") == ReturnCards(cards=[VM])
    assert parse(state, 1, "return", "vendor management, product launch") == ReturnCards(
        cards=[VM, PL]
    )
    assert parse(state, 1, "play", "") is None
    for word, rest, match in [
        ("play", "Flying Cars", "no Growth card called"),
        ("play", "Acquire a Competitor", "acquire <team>"),
        ("acquire", "Nobody", "Name one of the teams"),
        ("challenge", "Blue Vendor Management", "Blue has no active Vendor Management"),
        ("challenge", "xyz", "Write `challenge"),
        ("exchange", "Vendor Management", "separated by a comma"),
    ]:
        with pytest.raises(IllegalAction, match=match):
            parse(state, 1, word, rest)
    assert {c.word for c in GAME.commands} >= {
        "play",
        "challenge",
        "exchange",
        "skip",
        "block",
        "accept",
    }


# --- rules page --------------------------------------------------------------------------------


def test_rules_page_documents_every_card_and_topic() -> None:
    page = rules_page()
    for card in all_growth():
        assert card.name in page, card.name
        row = f"| {card.name} | {card.stage} | ${card.cost}M | ${card.first}M | ${card.later}M |"
        assert row in page, row
    for ind in all_industry():
        assert f"| {ind.name} | {ind.text} |" in page, ind.name
    assert "Challenge Vendor Management" in page
    for decision in ("three completed Growth\n  cards in each", "1% more\nfor every $25M"):
        assert decision in page, decision
    assert GAME.rules("vote").startswith("## Winning") and "agreed by every team" in page
    for topic in ("growth", "challenge", "acquire", "industry", "bonus", "win", "rulings", "hand"):
        assert GAME.rules(topic).startswith("#"), topic
    assert "Topics" in GAME.rules("nonsense")
    assert GAME.rules("all") == page
    assert topics()
    assert "biggiebills rules" in GAME.rules(None)


def test_a_crowded_panel_uses_menus_and_fits_five_rows() -> None:
    state = new_game(8)
    cards = [VM, "business_plan", "seed_funding", "office_lease", "brand_identity"]
    cards += ["first_hires", "product_launch", "sales_team", "supply_chain", "erp_system"]
    cards += ["customer_support", "marketing_campaign", VM, "business_plan"]
    for index, card in enumerate(cards):
        seat = 1 + index % 7
        state = arrange(state, seat, growth=[card, *state.growth[seat]][:6])
        state.growth[seat].remove(card)
        state.active.append(Active(id=state.next_active, card=card, owner=seat, cost=1))
        state.next_active += 1
    state = arrange(state, 0, bonus=[FLEX_12], completed=["business_plan", "sales_team"])
    legal = [a for a in GAME.legal_actions(state, 0) if not isinstance(a, Exchange)]
    assert len(legal) > 20
    panel = GAME.render_private(state, 0)
    assert len(panel.buttons) + len(panel.selects) <= 5
    offered = {GAME.parse_action(b.action) for b in panel.all_buttons() if b.action}
    for menu in panel.selects:
        if menu.field != "cards":
            offered |= {
                GAME.parse_action({**menu.action, menu.field: [o.value]}) for o in menu.options
            }
    assert offered == {a for a in legal if not isinstance(a, ProposeTarget)}
    assert "Propose a new target…" in [b.label for b in panel.all_buttons()]


# --- the hand, one card a line -------------------------------------------------------------------


def test_the_hand_shows_one_card_a_line_with_its_numbers_and_marks() -> None:
    state = new_game()
    state = arrange(state, 0, growth=[VM, PL, "business_plan", VM, "seed_funding", ACQUIRE])
    state = arrange(state, 0, completed=["seed_funding"], challenges=[challenge_id(PL)])
    state = arrange(state, 0, bonus=[BLOCK, FLEX_12])
    text = GAME.render_private(state, 0).text
    lines = text.split("\n")
    assert lines[:8] == [
        "Your team's hand.",
        "Growth cards (cost → payoff · penalty if challenged):",
        "• Vendor Management · S1 · $20M → $40M first / $35M later · penalty $8M · ▶ playable now",
        "• Product Launch · S2 · $50M → $100M first / $85M later · penalty $20M · ▶ playable now",
        "• Business Plan · S1 · $15M → $30M first / $25M later · penalty $6M · ▶ playable now",
        "• Vendor Management · S1 · $20M → $40M first / $35M later · penalty $8M · duplicate · "
        "▶ playable now",
        "• Seed Funding · S1 · $25M → $40M (first payoff taken) · penalty $10M · "
        "✓ completed: no use to your team",
        "• Acquire a Competitor · S4 · $200M → $300M first / $250M later · penalty $80M",
    ]
    assert lines[8:13] == [
        "Challenge cards:",
        "• Challenge Product Launch · S2 · penalty $20M",
        "Bonus cards:",
        "• Block a Challenge · answers a challenge to your card",
        "• Flexible Challenge (stages 1-2) · any S1-S2 card",
    ]
    # Blue, not on turn, reads what it could play on its turn; once Red's Product Launch is in
    # play, Blue's Challenge card for it is marked playable, naming the card.
    state, _ = act(state, 0, PlayGrowth(card=PL))
    blue = arrange(state, 1, growth=[VM], challenges=[challenge_id(PL)], completed=[PL])
    blue_text = GAME.render_private(blue, 1).text
    assert "• Challenge Product Launch · S2 · penalty $20M · ▶ playable now: Red's #1" in blue_text
    red = GAME.render_private(state, 0).text
    assert "• Vendor Management · S1 · $20M → $40M first / $35M later · penalty $8M · " in red
    assert "▶ playable on your turn" in red and "▶ playable now" not in red


def test_the_hand_message_says_what_came_and_went_and_the_panel_shows_it_all() -> None:
    state = arrange(new_game(), 0, growth=[VM, PL], challenges=[challenge_id(PL)])
    top = state.growth_deck[0]
    state, events = act(state, 0, PlayGrowth(card=VM))
    (hand,) = [e for e in events if e.kind == "hand"]
    assert hand.audience.seat == 0
    assert (
        hand.text == f"New in your team's hand: {card_name(top)}. Gone from it: Vendor Management."
    )
    assert f"• {card_name(top)} · " in GAME.render_private(state, 0).text


def test_the_return_menus_describe_every_card_as_the_hand_does() -> None:
    state, _ = act(ready_to_acquire(), 0, PlayGrowth(card=ACQUIRE, target=1))
    state = play_to(state, 0)
    assert state.deciding == "returns"
    panel = GAME.render_private(state, 0)
    growth_menu, challenge_menu = panel.selects
    first = growth_menu.options[0]
    card = first.value.split("#")[0]
    assert first.label == card_name(card)
    assert first.description is not None and first.description.startswith("S")
    assert "→" in first.description and "penalty" in first.description
    assert all(o.description and len(o.description) <= 75 for o in growth_menu.options)
    assert all(
        o.description and o.description.startswith("S") and "penalty" in o.description
        for o in challenge_menu.options
    )
    done = [o for o in growth_menu.options if o.description and "✓ completed" in o.description]
    dupes = [o for o in growth_menu.options if o.description and "duplicate" in o.description]
    assert done or dupes  # the acquired hand brings cards the acquirer has done or holds
    assert "Growth cards (cost → payoff · penalty if challenged):" in panel.text
