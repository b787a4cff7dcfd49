"""The command words of every registered game: reachable, and within what Discord can show."""

from __future__ import annotations

import pytest

from bot.adapters.discord.commands import MAX_SUBCOMMANDS, split_words
from bot.commands.grammar import subcommands, words
from core.registry import all_games

GAMES = {game.name: game for game in all_games()}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_game_words_do_not_shadow_the_lobby_words(name: str) -> None:
    # The authority reads lobby words first, so a game word with the same name is unreachable.
    game = GAMES[name]
    assert not {c.word for c in game.commands} & {c.word for c in subcommands(game, play=True)}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_word_fits_in_a_discord_command_group(name: str) -> None:
    """The game's group and its ``more`` group, each within Discord's 25, hold every word."""
    game = GAMES[name]
    top, more = split_words(game)
    assert len(top) + (1 if more else 0) <= MAX_SUBCOMMANDS
    assert len(more) <= MAX_SUBCOMMANDS
    assert [c.word for c in [*top, *more]] == [c.word for c in words(game)]
    assert len({c.word for c in words(game)}) == len(words(game))  # no word twice
