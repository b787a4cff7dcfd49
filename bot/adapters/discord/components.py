"""Persistent component handlers: every button or menu the codec named, from any message, any
time.

The custom id holds everything the authority needs (see bot/commands/codec.py, which alone reads
and writes ids: these handlers match its patterns), so they are registered once with
``Client.add_dynamic_items`` and buttons on old messages keep working after a restart, in
whichever shard process receives the click.
"""

from __future__ import annotations

import re
from typing import Protocol, cast

import discord

from bot.adapters.discord.sdk import DiscordInteraction, DiscordPayload
from bot.commands.codec import BUTTON_PATTERN, SELECT_PATTERN

__all__ = ["GameButton", "GameSelect", "submitted_text"]

_BUTTON_ID = re.compile(BUTTON_PATTERN)
_SELECT_ID = re.compile(SELECT_PATTERN)


def submitted_text(data: DiscordPayload) -> str:
    """The text a submitted one-question form holds (a row of one text input, or a label)."""
    for row in data.get("components") or []:
        inner = row.get("components") or [row.get("component") or {}]
        for component in inner:
            if "value" in component:
                return str(component["value"] or "")
    return ""


class _Presses(Protocol):
    async def on_component(
        self,
        interaction: DiscordInteraction,
        custom_id: str,
        values: list[str] | None,
    ) -> None: ...


class _Client(Protocol):
    """What a press needs of the client (the adapter's BoardroomClient): where it goes."""

    @property
    def adapter(self) -> _Presses: ...


def _client(interaction: DiscordInteraction) -> _Client:
    return cast(_Client, interaction.client)


class GameButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=_BUTTON_ID):
    """A game or lobby button; pressing it sends its custom id to the authority."""

    def __init__(self, item: discord.ui.Button[discord.ui.View]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: DiscordInteraction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
        /,
    ) -> GameButton:
        return cls(cast("discord.ui.Button[discord.ui.View]", item))

    async def callback(self, interaction: DiscordInteraction) -> None:
        custom_id = self.item.custom_id or ""
        await _client(interaction).adapter.on_component(interaction, custom_id, None)


class GameSelect(discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]], template=_SELECT_ID):
    """A game menu; its chosen values go to the authority with the custom id."""

    def __init__(self, item: discord.ui.Select[discord.ui.View]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: DiscordInteraction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
        /,
    ) -> GameSelect:
        return cls(cast("discord.ui.Select[discord.ui.View]", item))

    async def callback(self, interaction: DiscordInteraction) -> None:
        # The values come from the interaction itself: the rebuilt item may not have them yet.
        data: DiscordPayload = interaction.data or {}
        values = [str(v) for v in data.get("values", [])]
        await _client(interaction).adapter.on_component(interaction, self.item.custom_id, values)
