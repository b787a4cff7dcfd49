"""Commands as data (``core.commands``): every game's typed moves and the lobby words are
declared once, and the help, Discord's command tree and the text parser read that declaration."""

from __future__ import annotations

import random
import re

import pytest

from bot.adapters.discord.commands import argument_of
from bot.commands.authority import Authority, Request
from bot.commands.grammar import TEAM_SUBCOMMANDS, usage, words
from bot.settings import Settings
from core.commands import Arg, Command, Kind, find
from core.engine import GameLike
from core.registry import all_games
from storage import GameKey, GameStore
from tests.authority_support import Clock, stored_record

GAMES = {game.name: game for game in all_games()}


def test_a_command_shows_how_it_is_typed() -> None:
    rename = find(TEAM_SUBCOMMANDS, "rename")
    assert rename is not None and rename.form == "rename <old> to <new>"
    option = argument_of(rename)
    assert option is not None and option.name == "old_new" and option.required
    exchange = Command("exchange", "swap", (Arg("card", Kind.CARD), Arg("card", lead=", ")))
    assert exchange.form == "exchange <card>, <card>" and exchange.needs_argument
    compete = Command("compete", "join", (Arg("standing", Kind.WORD, False, ("ask", "always")),))
    assert compete.form == "compete [ask|always]" and not compete.needs_argument
    assert compete.line == "compete [ask|always]: join"
    assert Arg("product #").key == "product" and Arg("player|nobody").key == "player"
    assert find(TEAM_SUBCOMMANDS, "nothing") is None


@pytest.mark.parametrize("name", sorted(GAMES))
def test_help_and_discord_options_come_from_the_declaration(name: str) -> None:
    game = GAMES[name]
    help_text = usage(game)
    for command in words(game):
        assert f"`/{game.name} {command.form}` — {command.about}" in help_text
        option = argument_of(command)
        if not command.args:
            assert option is None, command.word
        else:
            assert option is not None and option.required == command.args[0].required
            assert option.name.startswith(command.args[0].key), (option.name, command.word)
            assert re.fullmatch(r"[-_a-z0-9]{1,32}", option.name), option.name  # Discord's


@pytest.fixture
def authority(redis_store: GameStore, clock: Clock) -> Authority:
    seeds = random.Random(3)
    return Authority(redis_store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))


def _req(user: str) -> Request:
    return Request(platform="console", channel="words", user=user, name=user.title())


async def _playing(authority: Authority, game: GameLike) -> None:
    for text in ("start", f"addbot {game.min_players - 1}", "begin"):
        out = await authority.command(_req("alice"), game.name, text)
        assert out.public, (text, [d.message.text for d in out.deliveries])


@pytest.mark.parametrize("name", sorted(GAMES))
async def test_a_bare_command_that_needs_an_argument_is_refused_with_its_form(
    authority: Authority, redis_store: GameStore, name: str
) -> None:
    game = GAMES[name]
    await _playing(authority, game)
    key = GameKey("console", "words")
    before = await stored_record(redis_store, key)
    needing = [command for command in game.commands if command.needs_argument]
    assert needing, "every built-in game has a move that takes an argument"
    for command in needing:
        out = await authority.command(_req("alice"), game.name, command.word)
        (reply,) = [d.message.text for d in out.deliveries if d.user == "alice"]
        assert reply == f"`/{game.name} {command.word}` needs more: {command.line}.", reply
        assert not out.public and all(d.user == "alice" for d in out.deliveries)
    assert await stored_record(redis_store, key) == before
