"""The slash commands: one group per registered game, one subcommand per word of the grammar.

``/<game> <word> [argument]`` is built from the commands as data (``bot.commands.grammar.words``:
the shared lobby words and the game's ``commands``): a command with arguments takes one text
option, named after its arguments, required when the first is, autocompleted by its kind, and
passed to the authority as the rest of the command text, so the grammar stays in one place.
A top-level ``/hand`` works in DMs and lists every game the user sits in.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Protocol, cast

import discord
from discord import app_commands

from bot.adapters.discord.adapter import PLATFORM, DiscordAdapter
from bot.adapters.discord.sdk import DiscordInteraction
from bot.commands.community.boardroom import COMMAND
from bot.commands.grammar import words
from core.commands import Command, Kind
from core.engine import GameLike
from core.registry import all_games

__all__ = ["Argument", "argument_of", "build_commands", "completer"]

log = logging.getLogger(__name__)

MAX_SUBCOMMANDS = 25
MAX_CHOICES = 25
CHOICE_LIMIT = 100
DESCRIPTION_LIMIT = 100
OPTION_NAME_LIMIT = 32


@dataclass(frozen=True)
class Argument:
    """The one text option of a subcommand."""

    name: str
    description: str
    required: bool


def argument_of(command: Command) -> Argument | None:
    """The option a subcommand takes (None: it takes none): one text option holding what is
    typed after the word, so several arguments (``challenge <team> <card> [flex]``) are typed
    in it as in a message."""
    if not command.args:
        return None
    first = command.args[0]
    keys = list(dict.fromkeys(arg.key for arg in command.args))
    # One kind of argument typed several times reads as its plural (``cards``); several kinds
    # as their names joined (``old_new``, ``team_card_flex``), within Discord's 32 characters.
    if len(keys) == 1:
        several = len(command.args) > 1 and not first.key.endswith("s")
        name = first.key + "s" if several else first.key
    else:
        name = "_".join(keys)[:OPTION_NAME_LIMIT]
    return Argument(name, _cut(command.line), required=first.required)


def _cut(text: str) -> str:
    return text if len(text) <= DESCRIPTION_LIMIT else text[: DESCRIPTION_LIMIT - 1] + "…"


class _Client(Protocol):
    """What a command needs of the client (the adapter's BoardroomClient): its adapter."""

    @property
    def adapter(self) -> DiscordAdapter: ...


def _client(interaction: DiscordInteraction) -> _Client:
    # The client is the BoardroomClient, which this module cannot import (it imports this).
    return cast(_Client, interaction.client)


_Choices = list[app_commands.Choice[str]]
_Completer = Callable[[DiscordInteraction, str], Coroutine[object, object, _Choices]]


def completer(game: GameLike, command: Command) -> _Completer | None:
    """Autocomplete where it helps, by the kind of the command's first argument: rules topics,
    start options, players' and teams' names, how many bots, a card's or a place's names (those
    the argument reads), one of its words."""
    first = command.args[0] if command.args else None
    kind = first.kind if first is not None else None
    if first is not None and kind in (Kind.CARD, Kind.PLACE) and first.names is not None:
        table = first.names

        async def named(interaction: DiscordInteraction, current: str) -> _Choices:
            wanted = current.strip().casefold()
            shown = [names[0] if names else thing for thing, names in table().items()]
            return [_choice(n) for n in shown if n.casefold().startswith(wanted)][:MAX_CHOICES]

        return named
    if first is not None and kind is Kind.WORD and first.choices:
        choices = first.choices

        async def word(interaction: DiscordInteraction, current: str) -> _Choices:
            wanted = current.strip().casefold()
            return [_choice(c) for c in choices if c.startswith(wanted)][:MAX_CHOICES]

        return word
    if kind is Kind.TOPIC:
        topics = ["all", *game.rule_topics()]

        async def topic(interaction: DiscordInteraction, current: str) -> _Choices:
            wanted = current.strip().lower()
            return [_choice(t) for t in topics if t.startswith(wanted)][:MAX_CHOICES]

        return topic
    if kind is Kind.OPTIONS:
        fields = game.options_model.model_fields

        async def options(interaction: DiscordInteraction, current: str) -> _Choices:
            # Complete the last word typed: an option's name (bare for yes/no ones), or
            # name=default, after the options already given.
            head, _, last = current.rpartition(" ")
            used = {w.partition("=")[0] for w in head.split()}
            stem = last.partition("=")[0].lower()
            found = []
            for name, info in fields.items():
                if name in used or not name.startswith(stem):
                    continue
                token = name if info.annotation is bool else f"{name}={info.default}"
                found.append(_choice(f"{head} {token}".strip()))
            return found[:MAX_CHOICES]

        return options
    # The seats are the players of a game without teams, the teams of one with them (where a
    # player, moved between teams, is a person, which the seats do not name).
    if (kind is Kind.PLAYER and not game.teams) or (kind is Kind.TEAM and game.teams):

        async def team(interaction: DiscordInteraction, current: str) -> _Choices:
            adapter = _client(interaction).adapter
            names = await adapter.authority.seat_names(PLATFORM, str(interaction.channel_id))
            wanted = current.strip().casefold()
            return [_choice(n) for n in names if n.casefold().startswith(wanted)][:MAX_CHOICES]

        return team
    if kind is Kind.SEATS:
        counts = [str(n) for n in range(1, game.max_players)]

        async def count(interaction: DiscordInteraction, current: str) -> _Choices:
            return [_choice(n) for n in counts if n.startswith(current.strip())]

        return count
    return None


def _choice(value: str) -> app_commands.Choice[str]:
    value = value[:CHOICE_LIMIT]
    return app_commands.Choice(name=value, value=value)


def _add_command(group: app_commands.Group, game: GameLike, command: Command) -> None:
    """``/<game> <word> [argument]``, which hands the authority the command's text."""
    name, word = game.name, command.word
    description = _cut(command.about) or word
    argument = argument_of(command)

    async def plain(interaction: DiscordInteraction) -> None:
        await _client(interaction).adapter.on_command(interaction, name, word)

    async def required(interaction: DiscordInteraction, text: str) -> None:
        await _client(interaction).adapter.on_command(interaction, name, f"{word} {text}")

    async def optional(interaction: DiscordInteraction, text: str | None = None) -> None:
        await _client(interaction).adapter.on_command(interaction, name, f"{word} {text or ''}")

    if argument is None:
        group.add_command(app_commands.Command(name=word, description=description, callback=plain))
        return
    chosen = required if argument.required else optional
    complete = completer(game, command)
    if complete is not None:
        chosen = app_commands.autocomplete(text=complete)(chosen)
    described = app_commands.describe(text=_cut(argument.description))(chosen)
    callback = app_commands.rename(text=argument.name)(described)
    group.add_command(app_commands.Command(name=word, description=description, callback=callback))


MORE = "more"
"""The subcommand group of the words past Discord's 25 (``/businessgo more pause``)."""


def split_words(game: GameLike) -> tuple[list[Command], list[Command]]:
    """The words of ``game`` shown as its group's own subcommands, and those past Discord's
    25, shown in its ``more`` group (the last words: the words of play, undo and pause, come
    last). Every word is reachable either way."""
    every = list(words(game))
    if len(every) <= MAX_SUBCOMMANDS:
        return every, []
    top = MAX_SUBCOMMANDS - 1
    rest = every[top:]
    if len(rest) > MAX_SUBCOMMANDS:
        log.warning("%s has %d subcommands; Discord shows 49", game.name, len(every))
    return every[:top], rest[:MAX_SUBCOMMANDS]


def _group(game: GameLike) -> app_commands.Group:
    group = app_commands.Group(name=game.name, description=_cut(f"Play {game.title}"))
    top, rest = split_words(game)
    for command in top:
        _add_command(group, game, command)
    if rest:
        more = app_commands.Group(
            name=MORE,
            description=_cut(", ".join(command.word for command in rest)),
            parent=group,
        )
        for command in rest:
            _add_command(more, game, command)
    return group


def _community_group() -> app_commands.Group:
    """``/boardroom``: leaderboards, stats, history, replays and forget-me
    (:mod:`bot.commands.community.boardroom`), each an answer only its asker sees."""
    group = app_commands.Group(
        name=COMMAND,
        description="Leaderboards, stats, history and replays of this server",
        # A server's history: not offered in DMs, where there is no server to ask about.
        allowed_contexts=app_commands.AppCommandContext(guild=True),
    )
    games = [app_commands.Choice(name=g.title, value=g.name) for g in all_games()]

    async def run(interaction: DiscordInteraction, text: str) -> None:
        await _client(interaction).adapter.on_command(interaction, COMMAND, text)

    @app_commands.describe(game="the game")
    @app_commands.choices(game=games)
    async def leaderboard(interaction: DiscordInteraction, game: str) -> None:
        await run(interaction, f"leaderboard {game}")

    # A text option (a @mention typed in it arrives as <@id>, or a name), not a user option:
    # it also finds someone who has left the server.
    @app_commands.describe(user="whose: a @mention or a name (yours when left out)")
    async def stats(interaction: DiscordInteraction, user: str | None = None) -> None:
        await run(interaction, f"stats {user or ''}")

    @app_commands.describe(game="only this game")
    @app_commands.choices(game=games)
    async def history(interaction: DiscordInteraction, game: str | None = None) -> None:
        await run(interaction, f"history {game or ''}")

    @app_commands.describe(game_id="the game's id, from /boardroom history")
    async def replay(interaction: DiscordInteraction, game_id: str) -> None:
        await run(interaction, f"replay {game_id}")

    async def forget_me(interaction: DiscordInteraction) -> None:
        await run(interaction, "forget-me")

    async def help_(interaction: DiscordInteraction) -> None:
        await run(interaction, "help")

    group.add_command(
        app_commands.Command(
            name="leaderboard",
            description="the best players of a game in this server",
            callback=leaderboard,
        )
    )
    group.add_command(
        app_commands.Command(
            name="stats", description="someone's games, wins and ratings", callback=stats
        )
    )
    group.add_command(
        app_commands.Command(
            name="history", description="the latest finished games in this server", callback=history
        )
    )
    group.add_command(
        app_commands.Command(
            name="replay", description="step through a finished game, privately", callback=replay
        )
    )
    group.add_command(
        app_commands.Command(
            name="forget-me",
            description="delete your ratings, stats and name from the history",
            callback=forget_me,
        )
    )
    group.add_command(
        app_commands.Command(
            name="help", description="what /boardroom answers, privately", callback=help_
        )
    )
    return group


async def _hand(interaction: DiscordInteraction) -> None:
    await _client(interaction).adapter.on_hand(interaction)


def build_commands(tree: app_commands.CommandTree[discord.Client], guild_ids: list[int]) -> None:
    """Add every game's group and ``/boardroom`` (to ``guild_ids`` when given, else
    globally), and ``/hand``.

    ``/hand`` is always global: guild commands do not exist in DMs, where it is most useful.
    """
    guilds = [discord.Object(g) for g in guild_ids]
    for group in [*(_group(game) for game in all_games()), _community_group()]:
        if guilds:
            tree.add_command(group, guilds=guilds)
        else:
            tree.add_command(group)
    hand: app_commands.Command[app_commands.Group, [], None] = app_commands.Command(
        name="hand",
        description="Your hand and choices in every game you sit in (works in DMs)",
        callback=_hand,
        allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=True),
    )
    tree.add_command(hand)
