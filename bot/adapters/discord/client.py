"""The discord.py client: an auto-sharded bot that hands every interaction to the adapter."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TypedDict

import discord
import yarl
from discord import app_commands
from discord.voice_client import VoiceClient

from bot.adapters.discord.adapter import PLATFORM, DiscordAdapter
from bot.adapters.discord.commands import build_commands
from bot.adapters.discord.components import GameButton, GameSelect
from bot.adapters.discord.sdk import DiscordInteraction, DiscordPayload
from bot.commands.authority import Authority
from bot.commands.codec import read_form
from bot.deadlines import Heartbeat, run_deadlines
from bot.runtime import DropRecords, StartFailed
from bot.settings import Settings

__all__ = ["BoardroomClient", "point_at"]

log = logging.getLogger(__name__)

_NO_GUILDS_WARNING = DropRecords("Guilds intent seems to be disabled")
"""discord.py warns at every start that the Guilds intent is off: a hint for bots that read its
guild cache. This one reads nothing from it (an interaction carries its channel, the bot's
permissions there and the user), so the warning is dropped, and only it."""


def point_at(api_url: str | None, gateway_url: str | None) -> None:
    """Send REST calls to ``api_url`` and open the gateway at ``gateway_url`` (a proxy, a fake).

    discord.py reads both from class attributes, process-wide; this must run before the client
    starts. None leaves a default untouched.
    """
    if api_url:
        discord.http.Route.BASE = api_url.rstrip("/")
    if gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


class _Sharding(TypedDict, total=False):
    """The sharding options of discord.py's client: ``shard_ids`` only when some are given."""

    shard_count: int | None
    shard_ids: list[int]


class BoardroomClient(discord.AutoShardedClient):
    """The bot: slash commands, persistent component handlers and the deadline runner.

    No privileged (or any) gateway intents are needed: interactions arrive regardless, and
    messages are sent and edited by channel id.
    """

    def __init__(
        self,
        authority: Authority,
        settings: Settings,
        shard_ids: list[int] | None = None,
        shard_count: int | None = None,
        run_deadline_runner: bool = True,
    ) -> None:
        sharding: _Sharding = {"shard_count": shard_count}
        if shard_ids:
            sharding["shard_ids"] = shard_ids
        logging.getLogger("discord.state").addFilter(_NO_GUILDS_WARNING)
        # The bot has no voice: discord.py's "PyNaCl / davey is not installed, voice will NOT be
        # supported" warnings speak of nothing it does. These flags are discord.py's own
        # "already warned" marks.
        VoiceClient.warn_nacl = False
        VoiceClient.warn_dave = False
        super().__init__(
            intents=discord.Intents.none(),
            **sharding,
            # Nothing is waited for before READY counts: the bot needs no guild cache.
            guild_ready_timeout=0.0,
            # Whatever a message holds, it notifies nobody unless a send says so itself.
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.settings = settings
        self.tree: app_commands.CommandTree[BoardroomClient] = app_commands.CommandTree(self)
        self.adapter = DiscordAdapter(self, authority)
        self.synced = asyncio.Event()
        self._run_deadline_runner = run_deadline_runner
        self._stop = asyncio.Event()
        self._deadlines: asyncio.Task[None] | None = None
        self.heartbeat = Heartbeat(settings.deadline_poll_seconds)
        self.loop_died = False
        """The deadline loop ended by itself: the process exits with LOOP_DIED."""

    async def on_interaction(self, interaction: DiscordInteraction) -> None:
        """A submitted form, whichever worker opened it and whenever (its custom id says
        what it answers); buttons and menus go to their persistent handlers."""
        if interaction.type != discord.InteractionType.modal_submit:
            return
        data: DiscordPayload = interaction.data or {}
        form = read_form(str(data.get("custom_id", "")))
        if form is not None:
            await self.adapter.on_form(interaction, form.game, form.channel, form.command)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(GameButton, GameSelect)
        guild_ids = self.settings.guild_ids
        build_commands(self.tree, guild_ids)
        if self.settings.discord_gateway_url and self.shard_count is None:
            # /gateway/bot names Discord's own gateway; with a proxy configured, ask only for the
            # shard count and keep the proxy's URL.
            self.shard_count = (await self.http.get_bot_gateway())[0]
        for guild_id in guild_ids:
            try:
                await self.tree.sync(guild=discord.Object(guild_id))
            except discord.Forbidden as error:
                raise StartFailed(
                    f"Discord refused the slash commands for server {guild_id} "
                    f"({error.status} {error.text}): check that the bot was invited there, or "
                    "DISCORD_GUILD_IDS.",
                    2,
                ) from error
        await self.tree.sync()
        self.synced.set()
        if self._run_deadline_runner:
            self._deadlines = asyncio.create_task(
                run_deadlines(
                    self.adapter.authority,
                    PLATFORM,
                    self.adapter.deliver,
                    self.settings.deadline_poll_seconds,
                    self._stop,
                    self.heartbeat,
                )
            )
            self._deadlines.add_done_callback(self._loop_ended)

    def _loop_ended(self, task: asyncio.Task[None]) -> None:
        if self._stop.is_set():
            return
        # The clock of every game on this worker stopped: close, and exit non-zero (cli.py).
        self.loop_died = True
        error = None if task.cancelled() else task.exception()
        log.critical("the deadline loop ended (%r); closing so a supervisor restarts", error)
        asyncio.get_running_loop().create_task(self.close())

    async def close(self) -> None:
        self._stop.set()
        if self._deadlines is not None:
            with contextlib.suppress(Exception):
                await self._deadlines
        await super().close()
