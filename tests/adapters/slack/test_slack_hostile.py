"""Whole games through the real Bolt app on the strict fake: hostile display names and
pitches, rate limits. Slack refuses nothing, nobody is notified but by a turn notice (and then
only whom it is for), nothing is lost."""

from __future__ import annotations

import logging
import random

import pytest

from bot.commands.record import GameRecord
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable, texts
from tests.adapters.slack.conftest import CHANNEL, assert_only_notices, stored
from tests.records import plain_state

USERS = ["UALICE", "UBOB", "UCAROL", "UDAVE"]
NAMES = {
    "UALICE": "<!channel> <!here> Alice",
    "UBOB": "<@UCAROL> **BUY** _now_",
    "UCAROL": "@everyone <!subteam^S123> & co",
    "UDAVE": "Dave",
}
PITCH = "<!channel> <@UBOB> **BUY** ~now~ & <https://x.example|click>"
GAMES = [
    ("bigidea", "pick_seconds=0 vote_seconds=0 turn_seconds=0"),
    ("biggiebills", "turn_seconds=0 block_seconds=0"),
    ("businessgo", "short turn_seconds=0 compete_seconds=0 auction_seconds=0"),
]


async def _pitch_when_possible(loop: Loopback, table: SlackTable) -> None:
    """In The Big Idea, every owner pitches (with hostile text) once the products are shown."""
    record = await stored(loop)
    if record is None or record.state is None or record.game != "bigidea":
        return
    for product in plain_state(record).get("products", []):
        if product["new"] and product["pitch"] is None:
            await table.command(USERS[product["owner"]], f"pitch {PITCH}")


@pytest.mark.parametrize(("game", "options"), GAMES)
async def test_a_whole_game_with_hostile_names_under_rate_limits(
    loop: Loopback, caplog: pytest.LogCaptureFixture, game: str, options: str
) -> None:
    for user, name in NAMES.items():
        loop.api.add_user(user, display_name=name)
    loop.api.rate_limit(0.2, seed=11)
    caplog.set_level(logging.WARNING, logger="bot")
    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(9), game)
    await table.command(USERS[0], f"start {options}")
    for user in USERS[1:]:
        await table.command(user, "join")
    await table.command(USERS[0], "begin")

    async def pitch() -> None:
        await _pitch_when_possible(loop, table)

    await table.play(max_presses=3_000, after_each=pitch)
    record: GameRecord | None = await stored(loop)
    assert record is not None and record.status == "finished"
    assert loop.api.rate_limited, "the fake never answered 429: the test would prove nothing"
    assert loop.api.refused == [], [(c.method, c.error) for c in loop.api.refused[:3]]
    assert_only_notices(loop.api)
    assert loop.api.notified("user"), "no turn notice at all: the check above proved nothing"
    failed = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert failed == [], failed[:3]  # every 429 was waited out and retried: nothing dropped
    # People are shown by their display names, as typed (escaped, never as mentions).
    shown = "\n".join(texts(c) for c in loop.api.calls if c.args.get("channel") == CHANNEL)
    assert "Dave" in shown and "**BUY** _now_" in shown.replace("\u200b", "")
    if game == "bigidea":
        assert "pitches the" in shown and "~now~ &" in shown.replace("\u200b", "")
