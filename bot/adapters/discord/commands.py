"""The slash commands: one group per registered game, one subcommand per word of the grammar.

``/<game> <word> [argument]`` is built from ``bot.commands.grammar.SUBCOMMANDS`` and the game's
``text_commands``; the argument (if any) is read from the word's help line (``addbot [n]``,
``pitch <text>: ...``) and passed to the authority as the rest of the command text, so the
grammar stays in one place. A top-level ``/hand`` works in DMs and lists every game the user sits
in.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands

from bot.commands.grammar import SUBCOMMANDS
from core.engine import Game
from core.registry import all_games

if TYPE_CHECKING:
    from bot.adapters.discord.client import BoardroomClient

__all__ = ["Argument", "argument_of", "build_commands"]

log = logging.getLogger(__name__)

MAX_SUBCOMMANDS = 25
DESCRIPTION_LIMIT = 100
_BRACKETS = re.compile(r"[<\[]([^>\]]+)[>\]]")


@dataclass(frozen=True)
class Argument:
    """The one text option of a subcommand."""

    name: str
    description: str
    required: bool


def argument_of(word: str, help_text: str) -> Argument | None:
    """The option a subcommand takes, read from its help line (None: it takes none)."""
    if word == "start":
        return Argument("options", "key=value options, e.g. vote_seconds=30", required=False)
    head = help_text.split(":", 1)[0] if help_text.startswith(word) else ""
    tokens = _BRACKETS.findall(head)
    if not tokens:
        return None
    first = re.sub(r"[^a-z0-9_]", "", tokens[0].split("|")[0].split()[0].lower()) or "text"
    name = first + "s" if len(tokens) > 1 and not first.endswith("s") else first
    return Argument(name, _cut(help_text), required=f"<{tokens[0]}>" in head)


def _cut(text: str) -> str:
    return text if len(text) <= DESCRIPTION_LIMIT else text[: DESCRIPTION_LIMIT - 1] + "…"


def _client(interaction: discord.Interaction[Any]) -> BoardroomClient:
    return cast("BoardroomClient", interaction.client)


_Callback = Callable[..., Awaitable[None]]


def _callback(game: str, word: str, argument: Argument | None) -> _Callback:
    async def plain(interaction: discord.Interaction[Any]) -> None:
        await _client(interaction).adapter.on_command(interaction, game, word)

    async def required(interaction: discord.Interaction[Any], text: str) -> None:
        await _client(interaction).adapter.on_command(interaction, game, f"{word} {text}")

    async def optional(interaction: discord.Interaction[Any], text: str | None = None) -> None:
        await _client(interaction).adapter.on_command(interaction, game, f"{word} {text or ''}")

    if argument is None:
        return plain
    chosen = required if argument.required else optional
    described = app_commands.describe(text=_cut(argument.description))(chosen)
    return app_commands.rename(text=argument.name)(described)


def _group(game: Game[Any, Any]) -> app_commands.Group:
    group = app_commands.Group(name=game.name, description=_cut(f"Play {game.title}"))
    words = {**SUBCOMMANDS, **game.text_commands}
    if len(words) > MAX_SUBCOMMANDS:
        log.warning("%s has %d subcommands; Discord shows 25", game.name, len(words))
    for word, help_text in list(words.items())[:MAX_SUBCOMMANDS]:
        command: app_commands.Command[Any, ..., None] = app_commands.Command(
            name=word,
            description=_cut(help_text) or word,
            callback=cast(Any, _callback(game.name, word, argument_of(word, help_text))),
        )
        group.add_command(command)
    return group


async def _hand(interaction: discord.Interaction[Any]) -> None:
    await _client(interaction).adapter.on_hand(interaction)


def build_commands(tree: app_commands.CommandTree[Any], guild_ids: list[int]) -> None:
    """Add every game's group (to ``guild_ids`` when given, else globally) and ``/hand``.

    ``/hand`` is always global: guild commands do not exist in DMs, where it is most useful.
    """
    guilds = [discord.Object(g) for g in guild_ids]
    for game in all_games():
        if guilds:
            tree.add_command(_group(game), guilds=guilds)
        else:
            tree.add_command(_group(game))
    hand: app_commands.Command[Any, ..., None] = app_commands.Command(
        name="hand",
        description="Your hand and choices in every game you sit in (works in DMs)",
        callback=_hand,
        allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=True),
    )
    tree.add_command(hand)
