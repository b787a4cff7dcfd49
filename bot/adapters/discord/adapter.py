"""Interactions in, Outboxes out: what the bot does with a slash command or a click.

Every interaction is acknowledged within Discord's 3 seconds: the authority gets
:data:`ACK_BUDGET` seconds; when it answers in time (the usual case, a few milliseconds) its first
message is the interaction's response, else the interaction is deferred and everything follows as
followups (and a deferred interaction is always resolved, even when the answer is public only).
An Outbox is then delivered in this order: the requester's private messages, DMs to other
players, the channel posts, and the live board, edited in place. Each part is delivered on its
own: one that Discord refuses is logged with the game and the part, and the others still go.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.adapters.discord.render import NO_MENTIONS, PLACEHOLDER_LIMIT, Rendered, cut, render
from bot.commands.authority import Authority, Request
from bot.commands.outbox import Delivery, Form, Outbox
from bot.runtime import board_to_draw, first_time
from core import ui
from core.text import join
from storage import GameKey, StorageUnavailable

__all__ = ["ACK_BUDGET", "PLATFORM", "REQUIRED", "DiscordAdapter", "missing_permissions"]

log = logging.getLogger(__name__)

PLATFORM = "discord"
ACK_BUDGET = 2.0
"""Seconds the authority may take before the interaction is deferred (Discord allows 3)."""
CLOSED_DMS = 50007
MODAL_TITLE_LIMIT = 45
TEXT_INPUT_LABEL_LIMIT = 45
TEXT_INPUT_LIMIT = 4000
MODAL_TIMEOUT_S = 900
"""A form left open longer than an interaction token lives is dropped (the answer would fail)."""
MISSING_PERMISSIONS = 50013
FAILED = (
    "Something went wrong on my side while answering that; the game's `status` command shows "
    "where the game stands."
)
DONE = "Done: the channel shows what happened."
OPEN_DMS = (
    "I couldn't send you a direct message because your DMs are closed. To get your hand by DM, "
    "open this server's menu → Privacy Settings and turn on Direct Messages; meanwhile "
    "`/{game} hand` shows it here."
)
CLOSED_NOTE = "<@{user}> I can't DM you, so `/{game} hand` or the button below shows your hand."
"""Shown as a mention, but notifying nobody (every send carries NO_MENTIONS)."""
REQUIRED = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "embed_links": "Embed Links",
}
"""The channel permissions a game needs, with the names Discord's settings show."""
CANNOT_PLAY = (
    "I can't host a game here: I'm missing the {missing} permission in this channel. Ask a "
    "server admin to allow it for Boardroom in the channel's settings, then try again."
)
CANNOT_POST = (
    "That was done, but I couldn't post it in the channel: I'm missing the {missing} permission "
    "there. Ask a server admin to allow it for Boardroom; `/{game} status` shows the game."
)

_Work = Callable[[], Awaitable[list[Outbox]]]


def missing_permissions(permissions: discord.Permissions) -> list[str]:
    """The names of the :data:`REQUIRED` permissions that ``permissions`` lacks."""
    return [label for name, label in REQUIRED.items() if not getattr(permissions, name)]


class DiscordAdapter:
    """Translates interactions into authority calls and delivers the Outboxes it returns."""

    def __init__(
        self, client: discord.Client, authority: Authority, ack_budget: float = ACK_BUDGET
    ) -> None:
        self.client = client
        self.authority = authority
        self.ack_budget = ack_budget
        """Seconds the authority may take before the interaction is deferred."""
        self._channel_locks: dict[str, asyncio.Lock] = {}
        self._busy = 0
        self._closed: set[str] = set()
        """Users whose DMs were found closed; told once per game how to open them."""
        self._idle = asyncio.Event()
        self._idle.set()
        self.on_handled: Callable[[int], None] | None = None
        """Called with each interaction's id once everything it caused was sent (the tests and
        the bench wait on it instead of sleeping)."""

    @property
    def _ttl(self) -> int:
        return int(self.authority.settings.game_ttl_hours * 3600)

    async def settled(self) -> None:
        """Wait until no interaction is being handled (tests and the bench use it)."""
        await self._idle.wait()

    # --- entry points ----------------------------------------------------------------------

    async def on_command(self, interaction: discord.Interaction[Any], game: str, text: str) -> None:
        """``/<game> <text>``; ``hand`` in a DM lists every game the user sits in."""
        request = self._request(interaction)
        word = text.split()[:1]
        if interaction.guild_id is None and word == ["hand"]:
            await self._handle(interaction, lambda: self.authority.hands(request))
            return
        missing = missing_permissions(interaction.app_permissions)
        if interaction.guild_id is not None and word == ["start"] and missing:
            # Refused before anything is applied: a game nobody can see is no game.
            await self._tell(interaction, CANNOT_PLAY.format(missing=join(missing)))
            self._handled(interaction)
            return

        async def work() -> list[Outbox]:
            return [await self.authority.command(request, game, text)]

        await self._handle(interaction, work)

    async def on_hand(self, interaction: discord.Interaction[Any]) -> None:
        """The top-level ``/hand``: every game the user sits in, with its buttons."""
        request = self._request(interaction)
        await self._handle(interaction, lambda: self.authority.hands(request))

    async def on_component(
        self, interaction: discord.Interaction[Any], custom_id: str, values: list[str] | None
    ) -> None:
        request = self._request(interaction)

        async def work() -> list[Outbox]:
            return [await self.authority.press(request, custom_id, values)]

        await self._handle(interaction, work)

    async def on_form(self, interaction: discord.Interaction[Any], form: Form, answer: str) -> None:
        """A submitted form: its answer completes the typed command, run as if typed."""
        request = self._request(interaction).model_copy(update={"channel": form.channel})

        async def work() -> list[Outbox]:
            return [await self.authority.command(request, form.game, f"{form.command} {answer}")]

        await self._handle(interaction, work)

    async def deliver(self, outbox: Outbox) -> None:
        """Deliver an Outbox that no interaction asked for (a deadline fired)."""
        await self._deliver(outbox, None)

    # --- handling --------------------------------------------------------------------------

    def _request(self, interaction: discord.Interaction[Any]) -> Request:
        return Request(
            platform=PLATFORM,
            channel=str(interaction.channel_id),
            user=str(interaction.user.id),
            name=interaction.user.display_name,
            delivery=str(interaction.id),
        )

    def _handled(self, interaction: discord.Interaction[Any]) -> None:
        if self.on_handled is not None:
            self.on_handled(interaction.id)

    async def _handle(self, interaction: discord.Interaction[Any], work: _Work) -> None:
        self._busy += 1
        self._idle.clear()
        try:
            task = asyncio.ensure_future(work())
            done, _ = await asyncio.wait({task}, timeout=self.ack_budget)
            if not done:
                await interaction.response.defer(ephemeral=True, thinking=True)
            try:
                outboxes = await task
            except Exception:
                log.exception("handling interaction %s failed", interaction.id)
                outboxes = [self._failure(interaction)]
            answered = False
            for outbox in outboxes:
                answered = await self._deliver(outbox, interaction) or answered
            if not interaction.response.is_done():
                await self._silent_ack(interaction)
            elif not done and not answered:
                # Deferred ("thinking…") and nothing private followed: resolve it all the same.
                resolve = interaction.edit_original_response(content=DONE)
                await self._part(f"{interaction.channel_id}", "the deferred answer", resolve)
        except Exception:
            # The bot must stay up whatever one interaction did; tell the user if we still can.
            log.exception("delivering the answer to interaction %s failed", interaction.id)
            await self._tell(interaction, FAILED)
        finally:
            self._handled(interaction)
            self._busy -= 1
            if self._busy == 0:
                self._idle.set()

    def _failure(self, interaction: discord.Interaction[Any]) -> Outbox:
        out = Outbox(platform=PLATFORM, channel=str(interaction.channel_id))
        out.reply(str(interaction.user.id), FAILED)
        return out

    async def _silent_ack(self, interaction: discord.Interaction[Any]) -> None:
        # A duplicate delivery or a step with nothing to say: acknowledge without a message.
        try:
            if interaction.type == discord.InteractionType.component:
                await interaction.response.defer()
            else:
                await interaction.response.send_message("Done.", ephemeral=True)
        except discord.HTTPException:
            log.debug("interaction %s was already acknowledged", interaction.id)

    async def _tell(self, interaction: discord.Interaction[Any], text: str) -> None:
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
            else:
                await interaction.response.send_message(
                    text, ephemeral=True, allowed_mentions=NO_MENTIONS
                )
        except discord.HTTPException:
            log.warning("could not tell the user of interaction %s about an error", interaction.id)

    # --- delivery --------------------------------------------------------------------------

    async def _part(self, where: str, part: str, send: Awaitable[Any]) -> bool:
        """Deliver one part of an answer; a refusal is logged and stops only this part."""
        try:
            await send
        except discord.HTTPException as error:
            log.warning("delivering %s in %s failed: %s", part, where, error)
            return False
        return True

    async def _deliver(self, out: Outbox, interaction: discord.Interaction[Any] | None) -> bool:
        """Send ``out``; True when the requester got a message of their own (not only an ack)."""
        if out.duplicate:
            return False
        if out.form is not None and interaction is not None:
            await self._open_form(interaction, out.form)
            return True
        game = out.game or ""
        where = f"{PLATFORM}:{out.channel} ({game or 'no game'})"
        requester = str(interaction.user.id) if interaction is not None else None
        here = interaction is not None and str(interaction.channel_id) == out.channel
        # Components shown outside the game's channel must name it, so they act on that game.
        away = None if here else out.channel
        mine = [
            d
            for d in out.deliveries
            if d.to != "channel" and requester is not None and d.user == requester
        ]
        dms = [d for d in out.deliveries if d.to != "channel" and d not in mine]
        public = [d.message for d in out.deliveries if d.to == "channel"]
        answered = False

        if interaction is not None:
            for delivery in mine:
                sent = await self._part(
                    where,
                    f"the reply to {requester}",
                    self._reply(interaction, render(delivery.message, game, away)),
                )
                answered = answered or sent
            if requester in self._closed and mine and await self._note_due(out, f"how:{requester}"):
                how = Rendered(content=OPEN_DMS.format(game=game))
                await self._part(where, "the DM how-to", self._reply(interaction, how))
            if public and here and not interaction.response.is_done():
                rendered = render(public[0], game)
                first = interaction.response.send_message(**_kwargs(rendered))
                if await self._part(where, "the first channel post", first):
                    public.pop(0)
            if not interaction.response.is_done():
                # Nothing for the presser to see: acknowledge now, not after the DMs, posts and
                # board edit below, which can take a while and the user need not wait for.
                await self._silent_ack(interaction)
        sent_dms = await asyncio.gather(*(self._dm(d, game, out.channel) for d in dms))
        closed = sorted({user for user in sent_dms if user is not None})
        self._closed.update(closed)
        notes = [u for u in closed if await self._note_due(out, f"note:{u}")]
        async with self._channel_locks.setdefault(out.channel, asyncio.Lock()):
            channel = self.client.get_partial_messageable(int(out.channel))
            refused: list[str] = []
            for message in public:
                await self._post(where, channel, render(message, game), "a channel post", refused)
            if notes:
                note = render(_closed_note(notes, game), game)
                await self._post(where, channel, note, "the closed-DM note", refused)
            if out.board is not None and not refused:
                try:
                    await self._board(out, channel, render(out.board, game), refused)
                except discord.HTTPException as error:
                    log.warning("drawing the board in %s failed: %s", where, error)
        if refused and interaction is not None:
            missing = missing_permissions(interaction.app_permissions) or list(REQUIRED.values())
            await self._tell(interaction, CANNOT_POST.format(missing=join(missing), game=game))
            answered = True
        return answered

    async def _open_form(self, interaction: discord.Interaction[Any], form: Form) -> None:
        """A modal, which must be the interaction's first answer; if the press was already
        deferred (a slow moment), the player is told how to type it instead."""
        if interaction.response.is_done():
            typed = f"`/{form.game} {form.command} <answer>`"
            await self._tell(interaction, f"Type {typed} to answer.")
            return
        modal = FormModal(self, form)
        await self._part(
            f"{interaction.channel_id}", "a form", interaction.response.send_modal(modal)
        )

    async def _post(
        self,
        where: str,
        channel: discord.PartialMessageable,
        rendered: Rendered,
        part: str,
        refused: list[str],
    ) -> discord.Message | None:
        """A channel post; a missing permission is noted in ``refused`` (said once, after)."""
        try:
            return await channel.send(**_kwargs(rendered))
        except discord.Forbidden as error:
            if error.code == MISSING_PERMISSIONS:
                refused.append(part)
            log.warning("delivering %s in %s was refused: %s", part, where, error)
        except discord.HTTPException as error:
            log.warning("delivering %s in %s failed: %s", part, where, error)
        return None

    async def _note_due(self, out: Outbox, what: str) -> bool:
        """Whether the once-per-game note ``what`` is still to be given."""
        return bool(out.table) and await first_time(
            self.authority.store, PLATFORM, out, what, self._ttl
        )

    async def _reply(self, interaction: discord.Interaction[Any], rendered: Rendered) -> None:
        if interaction.response.is_done():
            await interaction.followup.send(ephemeral=True, **_kwargs(rendered))
        else:
            await interaction.response.send_message(ephemeral=True, **_kwargs(rendered))

    async def _dm(self, delivery: Delivery, game: str, channel: str) -> str | None:
        """Send a DM; returns the user when their DMs are closed (or the DM failed)."""
        user = delivery.user or ""
        try:
            dm = await self.client.create_dm(discord.Object(int(user)))
            await dm.send(**_kwargs(render(delivery.message, game, channel)))
        except discord.Forbidden as error:
            if error.code != CLOSED_DMS:
                log.warning("DM to %s refused: %s", user, error)
            return user
        except discord.HTTPException as error:
            log.warning("DM to %s failed: %s", user, error)
            return user
        return None

    async def _board(
        self,
        out: Outbox,
        channel: discord.PartialMessageable,
        rendered: Rendered,
        refused: list[str],
    ) -> None:
        key = GameKey(PLATFORM, out.channel)
        store = self.authority.store
        draw, ref = await board_to_draw(store, PLATFORM, out)
        if not draw:
            return
        if ref is not None:
            try:
                await channel.get_partial_message(int(ref)).edit(**_kwargs(rendered))
                return
            except discord.NotFound:
                # Only a board that is gone is posted anew; any other failure is logged by the
                # caller and the next change edits the same message again.
                log.info("the board message of %s is gone; posting a new one", out.channel)
        message = await self._post(f"{key}", channel, rendered, "the board", refused)
        if message is None:
            return
        try:
            await store.set_board_ref(key, str(message.id), self._ttl)
        except StorageUnavailable:
            log.warning("could not remember the board of %s; the next one is a new post", key)


def _closed_note(users: list[str], game: str) -> ui.Message:
    lines = "\n".join(CLOSED_NOTE.format(user=user, game=game) for user in users)
    button = ui.Button(label="Show my hand", style="primary", command="hand")
    return ui.Message(text=lines, buttons=[[button]])


def _kwargs(rendered: Rendered) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "content": rendered.content,
        "embeds": rendered.embeds,
        "allowed_mentions": NO_MENTIONS,
    }
    if rendered.view is not None:
        kwargs["view"] = rendered.view
    return kwargs


class FormModal(discord.ui.Modal):
    """A :class:`~bot.commands.outbox.Form` as a Discord modal of one text input."""

    def __init__(self, adapter: DiscordAdapter, form: Form) -> None:
        super().__init__(title=cut(form.ask.title, MODAL_TITLE_LIMIT), timeout=MODAL_TIMEOUT_S)
        self.adapter = adapter
        self.form = form
        self.answer: discord.ui.TextInput[FormModal] = discord.ui.TextInput(
            label=cut(form.ask.label, TEXT_INPUT_LABEL_LIMIT),
            style=discord.TextStyle.paragraph if form.ask.long else discord.TextStyle.short,
            placeholder=cut(form.ask.placeholder, PLACEHOLDER_LIMIT) or None,
            max_length=min(form.ask.max_length, TEXT_INPUT_LIMIT),
        )
        self.add_item(self.answer)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await self.adapter.on_form(interaction, self.form, self.answer.value)
