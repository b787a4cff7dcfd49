"""discord.py's types as the adapter uses them."""

from __future__ import annotations

from typing import Any, TypeAlias

import discord

__all__ = ["DiscordInteraction", "DiscordPayload"]

DiscordPayload: TypeAlias = Any  # discord.py hands us an interaction's data as untyped JSON
"""``Interaction.data`` as sent (discord.py's TypedDicts leave a submitted form's rows open)."""

DiscordInteraction = discord.Interaction[discord.Client]
"""An interaction, whatever client received it (the BoardroomClient, in the bot)."""
