"""What a latecomer is told matches where the game is played (``thread=off``: the channel)."""

from __future__ import annotations

import random

import pytest

from bot.commands.authority import Authority, Request
from bot.settings import Settings
from storage import GameStore
from tests.authority_support import Clock


def _req(user: str) -> Request:
    return Request(platform="console", channel="c", user=user, name=user, community="office")


@pytest.mark.parametrize(
    ("words", "where"), [("", "in its thread"), ("thread=off", "in this channel")]
)
async def test_a_latecomer_is_told_where_to_follow_the_game(
    store: GameStore, clock: Clock, words: str, where: str
) -> None:
    seeds = random.Random(1)
    authority = Authority(store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))
    await authority.command(_req("alice"), "bigidea", f"start {words}".strip())
    await authority.command(_req("alice"), "bigidea", "addbot 2")
    assert (await authority.command(_req("alice"), "bigidea", "begin")).begun
    out = await authority.command(_req("carol"), "bigidea", "join")
    (answer,) = out.deliveries
    assert answer.message.text == (
        f"This game began without you and takes nobody new; you can follow it {where} "
        "(`/bigidea status` shows the board) and join the next one."
    )
