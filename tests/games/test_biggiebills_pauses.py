"""Pauses a team can read, through the authority: when BiggieBills$$$ waits for a team that has
nothing left to play, its panel says why and offers End turn; when nothing could follow by what
everyone can see, the turn ends by itself; and what the channel sees never depends on the hand.

The moments are rigged in the stored game (the Sharks on turn, the Owls next) and then played by
typed commands and presses, as a team would.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from bot.commands import codec
from bot.commands.authority import Authority
from bot.settings import Settings
from core.games.biggiebills.cards import BLOCK, FLEX_12
from core.games.biggiebills.state import BiggieBillsState
from storage import GameKey, GameStore
from tests.authority_support import Clock, public_text, stored_record
from tests.games.biggiebills_support import arrange
from tests.games.biggiebills_table import (
    GAME,
    Rig,
    buttons,
    free,
    in_play,
    panel_of,
    req,
    say,
    table,
)

STAGE_1 = ["vendor_management", "business_plan", "seed_funding", "office_lease"]
STAGE_1 += ["brand_identity", "first_hires"]


@pytest.fixture
async def store() -> AsyncIterator[GameStore]:
    store = GameStore.from_url(None)  # the embedded store
    yield store
    await store.close()


@pytest.fixture
def authority(store: GameStore) -> Authority:
    seeds = random.Random(11)
    return Authority(store, Settings(), clock=Clock(), new_seed=lambda: seeds.getrandbits(63))


def holding(bonus: str) -> Rig:
    """The Sharks have completed a Stage 1 card and hold ``bonus``; the Owls have First Hires
    in play, which a Flexible Challenge of the Sharks could challenge; no Challenge card of the
    Sharks matches it."""

    def rig(state: BiggieBillsState, sharks: int, owls: int) -> BiggieBillsState:
        state = in_play(state, owls, "first_hires")
        hand = ["vendor_management", "sales_team", "national_distribution", "global_brand"]
        hand += ["patent_portfolio", "erp_system"]
        challenges = ["challenge_sales_team", "challenge_erp_system", "challenge_global_brand"]
        challenges += ["challenge_seed_funding"]
        free(state, sharks, hand + challenges)
        return arrange(
            state,
            sharks,
            growth=hand,
            challenges=challenges,
            bonus=[bonus],
            completed=["business_plan"],
            cash=200,
        )

    return rig


async def test_a_team_that_cannot_play_on_is_told_why_it_waits_and_ends_its_turn(
    authority: Authority, store: GameStore
) -> None:
    await table(authority, store, "block", holding(BLOCK))
    played = await say(authority, "alice", "block", "play vendor management")
    assert played.log == [
        "Sharks plays Vendor Management (Stage 1) for $20M. It completes at Sharks' next turn "
        "or when the cycle ends, unless challenged."
    ]
    assert not any("Owls to play" in line for line in played.log)  # the game waits

    # Every member of the team reads why, and has End turn as the one prominent button.
    for user in ("alice", "bob"):
        panel = played.panels[user]
        assert (
            "Nothing in your hand can be played now: your team has no Growth or Challenge play "
            "left this turn; Block a Challenge only answers a challenge to your own card. The "
            "game does not end your turn by itself, since the other teams would learn from it "
            "that your team holds no Flexible Challenge it can use. End your turn when you are "
            "ready."
        ) in panel.text
        prominent = [b.label for b in buttons(panel) if b.style == "primary"]
        assert prominent == ["End turn"], buttons(panel)
    assert "Nothing in your hand" not in public_text(played)

    (end,) = [b for b in buttons(played.panels["bob"]) if b.label == "End turn"]
    ended = await authority.press(req("bob", "block"), codec.encode_button(GAME, end))
    assert "Sharks ends its turn." in ended.log
    assert any("Owls to play" in line for line in ended.log)


async def test_the_channel_sees_the_same_wait_whatever_bonus_card_the_team_holds(
    authority: Authority, store: GameStore
) -> None:
    """With a Flexible Challenge that can challenge the Owls' card the team has something to
    play; with a Block it has not: the channel cannot tell the two apart."""
    await table(authority, store, "block", holding(BLOCK))
    record = await stored_record(store, GameKey("console", "block"))
    assert record.state_json is not None
    same = BiggieBillsState.model_validate_json(record.state_json)

    def flexible(_: BiggieBillsState, sharks: int, owls: int) -> BiggieBillsState:
        # The very same moment, but for the one card: a Flexible Challenge, not a Block.
        return arrange(same, sharks, bonus=[FLEX_12])

    await table(authority, store, "flex", flexible)
    with_block = await say(authority, "alice", "block", "play vendor management")
    with_flex = await say(authority, "alice", "flex", "play vendor management")
    assert public_text(with_block) == public_text(with_flex)
    assert with_block.notify == with_flex.notify
    # Only the team itself sees the difference: a Flexible Challenge to use, or why not.
    flex = with_flex.panels["alice"]
    assert "Challenge Owls' First Hires (Flexible) (+$10M)" in [b.label for b in buttons(flex)]
    assert "Your turn: 0 Growth/Challenge plays left and 1 Flexible Challenge play." in flex.text
    assert "Nothing in your hand" not in flex.text


def broke_in_a_two_card_cycle(state: BiggieBillsState, sharks: int, owls: int) -> BiggieBillsState:
    """Fast-Track Approvals (two plays a turn); the Sharks have completed every Stage 1 card,
    hold no Bonus card, and will have $21M after playing Sales Team: less than any Stage 2 card
    costs, with nothing on the board to challenge."""
    state.industry = "fast_track"
    state.plays_left = state.flex_left = 2
    hand = ["sales_team", "vendor_management", "product_launch", "seed_funding"]
    hand += ["national_distribution", "global_brand"]
    free(state, sharks, hand)
    return arrange(state, sharks, growth=hand, bonus=[], completed=STAGE_1, cash=61)


async def test_the_turn_ends_by_itself_when_nothing_could_follow_whatever_the_hand(
    authority: Authority, store: GameStore
) -> None:
    await table(authority, store, "broke", broke_in_a_two_card_cycle)
    before = await say(authority, "alice", "broke", "hand")
    assert "Your turn: 2 Growth/Challenge plays left." in panel_of(before, "alice").text
    played = await say(authority, "alice", "broke", "play sales team")
    assert "Sharks plays Sales Team (Stage 2) for $40M." in played.log[0]
    # No Growth card costs $20M or less past Stage 1, which the Sharks have completed, and no
    # card is in play to challenge: whatever they hold, no second play could follow.
    assert any("Owls to play (two-card play)" in line for line in played.log), played.log
    assert not any("ends its turn" in line for line in played.log)
    assert "Nothing for your team to do now" in played.panels["alice"].text


def nothing_playable(state: BiggieBillsState, sharks: int, owls: int) -> BiggieBillsState:
    """The Sharks hold only cards they have completed or cannot open yet, and Challenge cards
    of nothing on the board."""
    state = in_play(state, owls, "first_hires")
    hand = ["vendor_management", "seed_funding", "national_distribution", "global_brand"]
    hand += ["acquire_a_competitor", "marketing_campaign"]
    challenges = ["challenge_sales_team", "challenge_supply_chain", "challenge_global_brand"]
    challenges += ["challenge_brand_identity"]
    free(state, sharks, hand + challenges)
    return arrange(
        state,
        sharks,
        growth=hand,
        challenges=challenges,
        bonus=[BLOCK],
        completed=["vendor_management", "seed_funding"],
        cash=50,
    )


async def test_a_team_with_nothing_to_play_reads_why_before_it_exchanges_or_skips(
    authority: Authority, store: GameStore
) -> None:
    await table(authority, store, "stuck", nothing_playable)
    shown = await say(authority, "bob", "stuck", "hand")
    panel = panel_of(shown, "bob")
    assert (
        "Nothing in your hand can be played now: Vendor Management and Seed Funding are "
        "completed; National Distribution needs a completed Stage 2 card first; Global Brand "
        "and Acquire a Competitor need a completed Stage 3 card first; Marketing Campaign needs "
        "$6M more; no Sales Team, Supply Chain, Global Brand or Brand Identity of another team is "
        "in play to challenge; Block a Challenge only answers a challenge to your own card. "
        "Exchange two cards ($5M) or skip the turn (a $10M fine)."
    ) in panel.text
    assert [b.label for b in buttons(panel) if b.action] == ["Skip (pay the fine)"]
    assert [menu.placeholder for menu in panel.selects] == ["Exchange two cards ($5M)"]
