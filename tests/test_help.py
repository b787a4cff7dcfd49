"""Help that starts a game: the console's `help` names the games and /boardroom and gives a
first game, `/boardroom help` answers, rules come with their topics once and without the page's
hard line breaks, and `as` alone says who you are."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from bot.commands.authority import Authority, Request
from bot.commands.community.boardroom import COMMAND, HELP_HEAD, USAGE
from bot.commands.outbox import Delivery
from bot.settings import Settings
from core import registry
from core import text as markup
from storage import GameStore
from tests.authority_support import Clock
from tests.test_console import run_script


def _authority(store: GameStore, clock: Clock) -> Authority:
    seeds = random.Random(3)
    return Authority(store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))


def _req(user: str = "U-ann") -> Request:
    return Request(platform="console", channel="c", user=user, name="Ann", community="office")


def test_the_console_help_names_the_games_and_boardroom_and_gives_a_first_game(
    tmp_path: Path,
) -> None:
    stdout, _records = run_script(tmp_path, ["you: help", "you: as", "you: as bob", "bob: as"])
    for game in registry.all_games():
        assert f"/{game.name}" in stdout and markup.plain(game.title) in stdout
    assert "/boardroom" in stdout and "leaderboard" in stdout
    assert "A first game, alone with two bots:" in stdout
    assert "/bigidea start" in stdout and "addbot 2" in stdout and "begin" in stdout
    assert "``" not in stdout
    said = stdout.splitlines()
    assert "(you are you; `as <user>` makes you someone else)" in said
    assert "(you are now bob)" in said
    assert "(you are bob; `as <user>` makes you someone else)" in said
    assert "(you are now you)" not in said


async def test_boardroom_help_lists_what_it_answers(store: GameStore, clock: Clock) -> None:
    authority = _authority(store, clock)
    for text in ("help", ""):
        out = await authority.command(_req(), COMMAND, text)
        (answer,) = out.deliveries
        assert answer.message.text == HELP_HEAD + USAGE
    assert "`/boardroom help`: this list" in USAGE


@pytest.mark.parametrize("name", ["bigidea", "businessgo", "biggiebills"])
async def test_rules_list_their_topics_once(store: GameStore, clock: Clock, name: str) -> None:
    game = registry.get_game(name)
    assert game is not None
    out = await authority_rules(store, clock, name, "")
    said = "\n".join(d.message.text for d in out)
    listed = ", ".join(game.rule_topics())
    assert said.count(listed) == 1


async def authority_rules(store: GameStore, clock: Clock, name: str, topic: str) -> list[Delivery]:
    out = await _authority(store, clock).command(_req(), name, f"rules {topic}".strip())
    return list(out.deliveries)


@pytest.mark.parametrize("name", ["bigidea", "businessgo", "biggiebills"])
async def test_rules_come_without_the_pages_hard_line_breaks(
    store: GameStore, clock: Clock, name: str
) -> None:
    """A line of a rules answer never starts in the middle of a sentence: every line is a
    heading, a list item, a table row or a paragraph's start."""
    game = registry.get_game(name)
    assert game is not None
    for topic in ["", *game.rule_topics()]:
        for delivery in await authority_rules(store, clock, name, topic):
            fenced = False
            for line in delivery.message.text.splitlines():
                if line.strip().startswith("```"):
                    fenced = not fenced
                if fenced or not line.strip():
                    continue
                item = re.match(r"\s*([-*+•]|\d+[.)]) ", line)
                assert item or not (line[0].isspace() or line[0].islower()), (topic, line)


@pytest.mark.parametrize("name", ["bigidea", "businessgo", "biggiebills"])
async def test_a_games_help_ends_with_a_first_game(
    store: GameStore, clock: Clock, name: str
) -> None:
    out = await _authority(store, clock).command(_req(), name, "help")
    said = "\n".join(d.message.text for d in out.deliveries)
    assert f"**A first game:** `/{name} start` opens a lobby in this channel" in said
    assert f"`/{name} addbot 2`" in said and f"`/{name} begin` starts the game" in said
