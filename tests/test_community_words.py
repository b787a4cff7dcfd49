"""/boardroom's words answered as a person would want: an unknown game names the games, a
player found by their name as typed (a name that looks like a mention too), and forget-me's
confirmation has a Cancel that deletes nothing."""

from __future__ import annotations

import random

from bot.commands.authority import Authority, Request
from bot.commands.community.boardroom import COMMAND
from bot.settings import Settings
from core import text as markup
from storage import GameKey, GameStore
from storage import history as kept
from tests.authority_support import Clock, stored_record

WHERE = kept.Community("console", "office")
PEOPLE = [("U-ann", "<@everyone>"), ("U-bo", "**Bo**")]


def _req(user: str, name: str) -> Request:
    return Request(platform="console", channel="play", user=user, name=name, community="office")


async def _played(store: GameStore, clock: Clock) -> Authority:
    seeds = random.Random(5)
    authority = Authority(store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))
    host = _req(*PEOPLE[0])
    await authority.command(host, "bigidea", "start pick_seconds=5 vote_seconds=5 turn_seconds=5")
    await authority.command(_req(*PEOPLE[1]), "bigidea", "join")
    await authority.command(host, "bigidea", "addbot 1")
    assert (await authority.command(host, "bigidea", "begin")).begun
    for _ in range(3000):
        rec = await stored_record(store, GameKey("console", "play"))
        if rec.status == "finished":
            return authority
        clock.now = (rec.deadline_due or clock.now) + 1
        await authority.fire_due("console")
    raise AssertionError("the game never ended")


async def _ask(authority: Authority, user: tuple[str, str], text: str) -> str:
    out = await authority.command(_req(*user), COMMAND, text)
    return "\n".join(d.message.plain_text() for d in out.deliveries)


async def test_an_unknown_game_is_answered_with_the_games(store: GameStore, clock: Clock) -> None:
    authority = Authority(store, Settings(), clock=clock, new_seed=lambda: 1)
    assert await _ask(authority, PEOPLE[1], "leaderboard monopoly") == (
        "There is no game called `monopoly` here. The games are BiggieBills$$$ "
        "(`biggiebills`), The Big Idea (`bigidea`) and Busine$$ GO (`businessgo`)."
    )


async def test_stats_find_a_player_by_the_name_they_play_under(
    store: GameStore, clock: Clock
) -> None:
    authority = await _played(store, clock)
    for typed, name in [
        ("<@everyone>", "<@everyone>"),
        ("**Bo**", "**Bo**"),
        ("@**Bo**", "**Bo**"),
    ]:
        said = await _ask(authority, PEOPLE[1], f"stats {typed}")
        assert said.startswith(f"**Stats: {markup.escape(name)}**"), said
        assert "no finished games" not in said


async def test_forget_me_can_be_cancelled(store: GameStore, clock: Clock) -> None:
    authority = await _played(store, clock)
    out = await authority.command(_req(*PEOPLE[0]), COMMAND, "forget-me")
    (ask,) = out.deliveries
    labels = {b.label: b.command for b in ask.message.all_buttons()}
    assert labels == {"Yes, forget me": "forget-me yes", "Cancel": "forget-me no"}
    before = await kept.leaderboard(store, WHERE, "bigidea", 10)
    cancelled = await authority.command(_req(*PEOPLE[0]), COMMAND, "forget-me no")
    (answer,) = cancelled.deliveries
    assert answer.message.text == "Kept: nothing of yours was deleted."
    assert await kept.leaderboard(store, WHERE, "bigidea", 10) == before
    assert cancelled.forgotten is None
