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
from core.commands import Arg, Command, Kind, Unreadable, find, read
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


def test_every_word_the_authority_routes_is_declared() -> None:
    """The authority routes the lobby and table words the grammar declares, and no other: each
    declared word has its step, each step its declared word (``rematch``, pressed on the final
    card, among them, though the help and the command lists, which show what is typed, leave
    it out)."""
    from bot.commands.authority import STEPS
    from bot.commands.grammar import PLAY_SUBCOMMANDS, SUBCOMMANDS

    every = (*SUBCOMMANDS, *TEAM_SUBCOMMANDS, *PLAY_SUBCOMMANDS)
    declared = {command.word for command in every}
    assert set(STEPS) == declared
    rematch = find(SUBCOMMANDS, "rematch")
    assert rematch is not None and not rematch.typed
    for game in GAMES.values():
        shown = {command.word for command in words(game)}
        assert "rematch" not in shown and "rematch" not in usage(game)


def test_arguments_are_read_by_their_kinds() -> None:
    """``core.commands.read``: amounts with k, M and B in the game's unit, things by any of
    their names or a prefix naming one alone, seats by name, words by what they mean, and
    arguments of several words split where each reads."""

    def one(arg: Arg, text: str, seats: tuple[str, ...] = ()) -> object:
        typed = read(Command("do", "", (arg,)), text, seats)
        assert typed is not None
        return typed.any(0)

    dollars = Arg("amount", Kind.AMOUNT)
    assert [one(dollars, t) for t in ("250k", "$1,000,000", "1.5M", "120000")] == [
        250_000,
        1_000_000,
        1_500_000,
        120_000,
    ]
    millions = Arg("amount", Kind.AMOUNT, unit=1_000_000, words=(("yes", True),))
    assert [one(millions, t) for t in ("2000", "2B", "1500m", "YES")] == [2000, 2000, 1500, True]
    with pytest.raises(Unreadable, match="“lots” is not what `do <amount>` takes"):
        one(dollars, "lots")
    cards = {"vendor_management": ("Vendor Management",), "venture_capital": ("Venture Capital",)}
    card = Arg("card", Kind.CARD, names=lambda: cards, unknown="No card “{text}”, only {names}.")
    assert one(card, "vendor MANAGEMENT") == one(card, "vend") == "vendor_management"
    with pytest.raises(Unreadable, match="No card “ven”, only Vendor Management, Venture"):
        one(card, "ven")  # two cards begin so
    team = Arg("team", Kind.TEAM)
    challenge = Command("challenge", "", (team, card, Arg("flex", Kind.WORD, False, ("flex",))))
    typed = read(challenge, "big sharks vendor management flex", ("Owls", "Big Sharks"))
    assert typed is not None
    assert (typed.seat(0), typed.text(1), typed.any(2)) == (1, "vendor_management", "flex")
    many = Arg("cards", Kind.CARD, names=lambda: cards, many=True)
    assert one(many, "venture capital vendor management") == [
        "venture_capital",
        "vendor_management",
    ]
    assert read(challenge, "", ("Owls",)) is None  # a required argument missing
