"""Interactions in, Outboxes out: what the bot does with a slash command or a click.

Every interaction is acknowledged within Discord's 3 seconds: the authority gets
:data:`ACK_BUDGET` seconds; when it answers in time (the usual case, a few milliseconds) its first
message is the interaction's response, else the interaction is deferred (a press as an update of
its message, a command as "thinking…", which is always resolved). The Outbox is then shown by
the table layer (:mod:`bot.table`) through :class:`DiscordPlatform`'s primitives: the press on a
panel, the card or the prompt updates that message (``UPDATE_MESSAGE``); everything else is a
post, an edit or a delete in the channel, the game's thread or a DM, each on its own, so a part
Discord refuses is logged and the others still go. A private answer's files (the whole rules page)
are attached to it; where the bot may not attach files (no Attach Files in that channel) they
come by DM, and the answer says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Literal, TypedDict

import discord

from bot.adapters.discord.budget import post_limit, ration
from bot.adapters.discord.components import submitted_text
from bot.adapters.discord.render import (
    CUSTOM_ID_LIMIT,
    NO_MENTIONS,
    PLACEHOLDER_LIMIT,
    Rendered,
    cut,
    render,
)
from bot.adapters.discord.sdk import DiscordInteraction
from bot.commands.authority import Authority, Request
from bot.commands.codec import form_id
from bot.commands.outbox import Form, Outbox
from bot.desk import Desk, Interaction
from bot.table import Closed, Gone, Place, Refused, Shown, Stuck, Table
from bot.table.budget import Budget, Limit
from core import text as markup
from core import ui
from core.text import join

__all__ = [
    "ACK_BUDGET",
    "INVITE_PERMISSIONS",
    "PERMISSIONS",
    "PLATFORM",
    "REQUIRED",
    "DiscordAdapter",
    "missing_permissions",
]

log = logging.getLogger(__name__)

PLATFORM = "discord"
ACK_BUDGET = 0.5
"""Seconds an interaction may wait for its answer (the authority, the table) before it is
deferred: Discord allows 3, and a network adds its own hundreds of milliseconds."""
CLOSED_DMS = 50007
MODAL_TITLE_LIMIT = 45
TEXT_INPUT_LABEL_LIMIT = 45
TEXT_INPUT_LIMIT = 4000
MODAL_TIMEOUT_S = 900
"""A form left open longer than an interaction token lives is dropped (the answer would fail)."""
MISSING_PERMISSIONS = 50013
OLD_EDITS_CAPPED = 30046
"""Discord's "Maximum number of edits to messages older than 1 hour reached"."""
DONE = "Done: the channel shows what happened."
"""The answer to a command that had nothing private to say (Discord wants one)."""
OPEN_DMS = (
    "I couldn't send you a direct message because your DMs are closed. To get your hand by DM, "
    "open this server's menu → Privacy Settings and turn on Direct Messages; meanwhile "
    "`/{game} hand` shows it here."
)
THREAD_NAME_LIMIT = 100
THREAD_ARCHIVE_MINUTES: Literal[1440] = 1440
"""A game's thread is archived after a day without messages (the next post revives it)."""
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
    "That was done, but I couldn't post it in the game's channel or thread: I'm missing the "
    "{missing} permission there. Ask a server admin to allow it for Boardroom; `/{game} status` "
    "shows the game."
)
CANNOT_POST_WHY = (
    "That was done, but Discord refused my post about it in the game's channel or thread. Ask a "
    "server admin to check Boardroom's permissions there; `/{game} status` shows the game."
)
POSTING = {**REQUIRED, "send_messages_in_threads": "Send Messages in Threads"}
"""What posting in a game's channel and its thread needs."""
PERMISSIONS = {
    **POSTING,
    "create_public_threads": "Create Public Threads",
    "attach_files": "Attach Files",
}
"""Every channel permission the bot uses, with the names Discord's settings show: see the
channel, post (cards, boards, logs, turn notices; editing and deleting its own messages need
nothing more) with embeds, start a game's thread from its card and post in it, and attach files
(`rules all` sends the rules page as one; without it the page comes by DM). Interaction
responses, ephemeral replies and DMs need nothing more; the bot reads no messages.
The invite asks for exactly these (:data:`INVITE_PERMISSIONS`)."""
INVITE_PERMISSIONS = discord.Permissions(**dict.fromkeys(PERMISSIONS, True))
"""The permissions ``boardroom discord invite`` asks for: :data:`PERMISSIONS`."""
FILES_IN_DM = (
    "I can't attach files in this channel (I'm missing the Attach Files permission), so "
    "{files} came to you by direct message."
)
FILES_NOWHERE = (
    "I can't attach {files} here (I'm missing the Attach Files permission in this channel) "
    "and {why}. A server admin can allow Attach Files for Boardroom here."
)

_Work = Callable[[], Awaitable[list[Outbox]]]


def missing_permissions(permissions: discord.Permissions) -> list[str]:
    """The names of the :data:`REQUIRED` permissions that ``permissions`` lacks."""
    return [label for name, label in REQUIRED.items() if not getattr(permissions, name)]


class DiscordAdapter:
    """Turns interactions into the front desk's requests (:class:`bot.desk.Desk`) and gives the
    table Discord's primitives (:class:`DiscordPlatform`)."""

    def __init__(
        self, client: discord.Client, authority: Authority, ack_budget: float = ACK_BUDGET
    ) -> None:
        self.client = client
        self.authority = authority
        self.budget = Budget(authority.store, "")
        """Every REST call of the bot, taken first from the budget every worker shares."""
        ration(client.http, self.budget)
        self.platform = DiscordPlatform(client, self.budget)
        settings = authority.settings
        self.table = Table(
            authority.store,
            self.platform,
            int(settings.game_ttl_hours * 3600),
            finished_ttl_s=int(settings.finished_ttl_hours * 3600),
        )
        self.desk = Desk(authority, self.table, ack_budget=ack_budget)
        """Every interaction's life: the authority, the table, refusals, forms, the answer."""

    async def settled(self) -> None:
        """Wait until no interaction is being handled (tests and the bench use it), and what
        the budget deferred has been shown."""
        await self.desk.settled()
        await self.table.flushed()

    # --- entry points ----------------------------------------------------------------------

    async def on_command(self, interaction: DiscordInteraction, game: str, text: str) -> None:
        """``/<game> <text>``; ``hand`` in a DM lists every game the user sits in."""
        answer = _Answer(interaction, self.platform)
        request = self._request(interaction)
        dm = interaction.guild_id is None
        asked = Interaction(request=request, kind="command", game=game, text=text, everywhere=dm)
        missing = missing_permissions(interaction.app_permissions)
        if not dm and text.split()[:1] == ["start"] and missing:
            # Refused before anything is applied: a game nobody can see is no game.
            await self.desk.refuse(asked, answer, CANNOT_PLAY.format(missing=join(missing)))
            return
        await self.desk.handle(asked, answer)

    async def on_hand(self, interaction: DiscordInteraction) -> None:
        """The top-level ``/hand``: every game the user sits in, with its buttons."""
        asked = Interaction(
            request=self._request(interaction), kind="command", text="hand", everywhere=True
        )
        await self.desk.handle(asked, _Answer(interaction, self.platform))

    async def on_component(
        self,
        interaction: DiscordInteraction,
        custom_id: str,
        values: list[str] | None,
    ) -> None:
        asked = Interaction(
            request=self._request(interaction), kind="press", custom_id=custom_id, values=values
        )
        await self.desk.handle(asked, _Answer(interaction, self.platform))

    async def on_form(
        self,
        interaction: DiscordInteraction,
        game: str,
        channel: str,
        command: str,
    ) -> None:
        """A submitted form (its custom id names the game, channel and command): its answer
        completes the typed command, run as if typed."""
        answer = submitted_text(interaction.data or {})
        request = self._request(interaction).model_copy(update={"channel": channel})
        asked = Interaction(request=request, kind="form", game=game, text=f"{command} {answer}")
        await self.desk.handle(asked, _Answer(interaction, self.platform))

    async def deliver(self, outbox: Outbox) -> None:
        """Deliver an Outbox that no interaction asked for (a deadline fired)."""
        await self.desk.deliver(outbox)

    def _request(self, interaction: DiscordInteraction) -> Request:
        channel = interaction.channel
        # A game's thread belongs to the game of the channel it was started in.
        where = channel.parent_id if isinstance(channel, discord.Thread) else interaction.channel_id
        return Request(
            platform=PLATFORM,
            channel=str(where),
            user=str(interaction.user.id),
            name=interaction.user.display_name,
            delivery=str(interaction.id),
            community=str(interaction.guild_id) if interaction.guild_id else "",
        )


class DiscordPlatform:
    """The table's primitives on Discord (discord.py's REST calls)."""

    name = PLATFORM
    closed_hint = OPEN_DMS
    threads_share_limit = False
    """A Discord thread is a channel with its own post limit."""
    threads_are_conversations = True
    id_limit = CUSTOM_ID_LIMIT

    def __init__(self, client: discord.Client, budget: Budget | None = None) -> None:
        self.client = client
        self.budget = budget
        self.attached = _Attached()

    def post_limit(self, where: str) -> Limit | None:
        """Discord lets a bot post 5 messages per 5 seconds in a channel (a thread, a DM)."""
        return post_limit(where)

    def _messageable(self, where: str) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(int(where))

    async def post(
        self,
        place: Place,
        message: ui.Message,
        surface: str = "post",
        mention: list[str] | None = None,
        ping: bool = True,
    ) -> Shown:
        where = place.thread or place.channel
        rendered = render(message)
        kwargs = _kwargs(rendered)
        if mention:
            names = " ".join(f"<@{int(user)}>" for user in mention)
            kwargs["content"] = f"{names} {rendered.content or ''}".strip()
            if ping:
                users = [discord.Object(int(user)) for user in mention]
                kwargs["allowed_mentions"] = discord.AllowedMentions(
                    everyone=False, roles=False, users=users, replied_user=False
                )
        try:
            sent = await self._messageable(where).send(**kwargs)
        except discord.Forbidden as error:
            raise Refused(f"{surface}: {error}") from error
        self.attached.remember(str(sent.id), rendered)
        return Shown(where=where, id=str(sent.id))

    async def edit(self, shown: Shown, message: ui.Message, surface: str = "post") -> None:
        # An edit keeps the files the message was posted with; a board's new picture replaces
        # its attachment (an unchanged one is not sent again). A message older than an hour
        # takes only so many edits (30046): the table posts it anew (Stuck).
        rendered = render(message)
        kwargs = _edit_kwargs(rendered)  # an edit without components removes the old ones
        self.attached.edit_kwargs(shown.id, rendered, kwargs)
        partial = self._messageable(shown.where).get_partial_message(int(shown.id))
        try:
            await partial.edit(**kwargs)
        except discord.NotFound as error:
            raise Gone(str(error)) from error
        except discord.HTTPException as error:
            if error.code == OLD_EDITS_CAPPED:
                raise Stuck(str(error)) from error
            raise
        self.attached.remember(shown.id, rendered)  # (only once the edit landed)

    async def delete(self, shown: Shown) -> None:
        partial = self._messageable(shown.where).get_partial_message(int(shown.id))
        with contextlib.suppress(discord.NotFound):
            await partial.delete()

    async def dm(self, user: str, message: ui.Message) -> Shown:
        try:
            dm = await self.client.create_dm(discord.Object(int(user)))
            sent = await dm.send(**_kwargs(render(message)))
        except discord.Forbidden as error:
            if error.code != CLOSED_DMS:
                log.warning("DM to %s refused: %s", user, error)
            raise Closed(user) from error
        return Shown(where=str(dm.id), id=str(sent.id))

    async def start_thread(self, channel: str, card: Shown, name: str) -> str | None:
        # discord.py's own route: a PartialMessage cannot start a thread without a cached guild.
        try:
            thread = await self.client.http.start_thread_with_message(
                int(channel),
                int(card.id),
                name=markup.plain(name)[:THREAD_NAME_LIMIT] or "game",
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            )
        except discord.Forbidden as error:
            log.info("no thread in %s: %s", channel, error)
            return None
        return str(thread["id"])


class _Answer:
    """The interaction being answered: its pressed message and its private replies."""

    def __init__(self, interaction: DiscordInteraction, platform: DiscordPlatform) -> None:
        self.interaction = interaction
        self.platform = platform
        self.user = str(interaction.user.id)
        message = interaction.message
        self.pressed = (
            (str(interaction.channel_id), str(message.id)) if message is not None else None
        )
        self.pressed_private = message is not None and (
            interaction.guild_id is None or message.flags.ephemeral
        )
        self._responding = asyncio.Lock()
        """The interaction takes one response: a deferral and an update sent at once (the
        desk's acknowledgement racing the table's answer) must not both be its first."""

    def _rendered(self, message: ui.Message) -> Rendered:
        return render(message, file_limit=self.interaction.filesize_limit)

    async def update(self, message: ui.Message) -> bool:
        async with self._responding:
            return await self._update(message)

    async def _update(self, message: ui.Message) -> bool:
        """Replace the pressed message: the interaction's UPDATE_MESSAGE answer (after a
        deferred update, an edit of the original message; after a private reply, False)."""
        if self.pressed is None:
            return False
        rendered = self._rendered(message)
        kwargs = _edit_kwargs(rendered)
        kwargs.pop("allowed_mentions", None)
        self.platform.attached.edit_kwargs(self.pressed[1], rendered, kwargs)
        response = self.interaction.response
        if not response.is_done():
            await response.edit_message(**kwargs)
        elif response.type == discord.InteractionResponseType.deferred_message_update:
            await self.interaction.edit_original_response(**kwargs)
        else:
            # Answered with a message of its own (a private reply): its original response is
            # that reply, not the pressed message, which the table then edits itself.
            return False
        self.platform.attached.remember(self.pressed[1], rendered)
        return True

    async def acknowledge(self) -> None:
        async with self._responding:
            await self._acknowledge()

    async def _acknowledge(self) -> None:
        """An interaction whose answer must wait (for the table, or for a post slot): a press
        defers as an update (type 6), which a later update of the pressed message completes;
        a command shows "thinking…" to its sender (type 5), which the adapter resolves."""
        interaction = self.interaction
        if interaction.response.is_done():
            return
        if interaction.type == discord.InteractionType.component or self.pressed is not None:
            # (A form opened from a button defers as an update of that button's message too.)
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)

    async def open_form(self, form: Form) -> bool:
        async with self._responding:
            return await self._open_form(form)

    async def _open_form(self, form: Form) -> bool:
        """A modal, which must be the interaction's first answer (False once it was
        acknowledged: the player is then told how to type it)."""
        interaction = self.interaction
        if interaction.response.is_done():
            return False
        try:
            await interaction.response.send_modal(FormModal(form))
        except discord.HTTPException as error:
            log.warning("opening the %s form failed: %s", form.command, error)
            return False
        return True

    def refusal(self, refused: list[str], game: str) -> str:
        """Which permission the bot lacks where the game plays, when it can tell."""
        perms = self.interaction.app_permissions
        missing = [label for name, label in POSTING.items() if not getattr(perms, name)]
        if missing:
            return CANNOT_POST.format(missing=join(missing), game=game)
        return CANNOT_POST_WHY.format(game=game)

    async def finish(self, answered: bool) -> None:
        async with self._responding:
            await self._finish(answered)

    async def _finish(self, answered: bool) -> None:
        """Every interaction gets an answer: one with nothing to say is acknowledged quietly
        (a press as an update of nothing, a command as "Done."); a "thinking…" nothing
        private followed is resolved."""
        interaction = self.interaction
        try:
            if not interaction.response.is_done():
                if interaction.type == discord.InteractionType.component or interaction.message:
                    # (A form opened from a button: as quiet as the press would have been.)
                    await interaction.response.defer()
                else:
                    await interaction.response.send_message(DONE, ephemeral=True)
            elif not answered and self.pressed is None and _thinking(interaction):
                await interaction.edit_original_response(content=DONE)
        except discord.HTTPException as error:
            log.debug("finishing interaction %s: %s", interaction.id, error)

    async def reply(self, message: ui.Message, channel: str) -> bool:
        async with self._responding:
            return await self._reply(message, channel)

    async def _reply(self, message: ui.Message, channel: str) -> bool:
        """An ephemeral answer (a followup once the interaction was answered), with the
        message's files attached; where the bot may not attach them, they come by DM."""
        interaction = self.interaction
        may_attach = interaction.guild_id is None or interaction.app_permissions.attach_files
        if message.files and not may_attach:
            message = await self._files_by_dm(message)
        kwargs = _kwargs(self._rendered(message))
        if interaction.response.is_done():
            # Webhook.send is annotated ``content: str`` but sends None as null, as the other
            # sends do (a message whose text is all in its embed).
            await interaction.followup.send(ephemeral=True, **kwargs)  # type: ignore[arg-type]
        else:
            await interaction.response.send_message(ephemeral=True, **kwargs)
        return True

    async def _files_by_dm(self, message: ui.Message) -> ui.Message:
        """Send ``message`` with its files by DM; what to answer here instead (a line saying
        where they went, or the text and why the files could not come)."""
        names = markup.escape(join([f.name for f in message.files]))
        try:
            await self.platform.dm(self.user, message)
        except (Closed, discord.HTTPException) as error:
            log.info("the files of a reply to %s could not go by DM: %s", self.user, error)
            why = "your DMs are closed" if isinstance(error, Closed) else "my DM to you failed"
            note = FILES_NOWHERE.format(files=names, why=why)
            text = f"{message.text}\n\n{note}".strip()
            return message.model_copy(update={"files": [], "text": text})
        return ui.Message(text=FILES_IN_DM.format(files=names))


def _thinking(interaction: DiscordInteraction) -> bool:
    """The command was answered with "thinking…" (a deferral that still needs resolving)."""
    deferred = discord.InteractionResponseType.deferred_channel_message
    return interaction.response.type == deferred


class _Send(TypedDict, total=False):
    """What discord.py's sends are given."""

    content: str | None
    embeds: list[discord.Embed]
    allowed_mentions: discord.AllowedMentions
    view: discord.ui.View
    files: list[discord.File]


class _Edit(TypedDict, total=False):
    """What discord.py's edits are given: ``view`` None removes the components, and files are
    ``attachments``, which replace the old ones."""

    content: str | None
    embeds: list[discord.Embed]
    allowed_mentions: discord.AllowedMentions
    view: discord.ui.View | None
    attachments: list[discord.File]


def _kwargs(rendered: Rendered) -> _Send:
    """Keyword arguments of a send, with the message's files."""
    kwargs: _Send = {
        "content": rendered.content,
        "embeds": rendered.embeds,
        "allowed_mentions": NO_MENTIONS,
    }
    if rendered.view is not None:
        kwargs["view"] = rendered.view
    if rendered.files or rendered.picture:
        kwargs["files"] = rendered.attachments()
    return kwargs


def _edit_kwargs(rendered: Rendered) -> _Edit:
    """Keyword arguments of an edit: without its files (an unchanged message keeps those it
    was posted with), and with no components when it has none."""
    return {
        "content": rendered.content,
        "embeds": rendered.embeds,
        "allowed_mentions": NO_MENTIONS,
        "view": rendered.view,
    }


PICTURES_KEPT = 1000
"""Messages whose attached picture the adapter remembers (so that an unchanged picture is not
uploaded again with each edit of its board)."""


class _Attached:
    """Which picture each message carries (by digest), as far as this process knows: an edit
    replaces the attachment only when the picture changed (another worker's edit may upload
    one again, which costs an upload, never a wrong picture)."""

    def __init__(self) -> None:
        self._by_message: OrderedDict[str, str] = OrderedDict()

    def edit_kwargs(self, message_id: str, rendered: Rendered, kwargs: _Edit) -> None:
        """Add the new picture to an edit's ``kwargs`` when ``message_id`` shows another (it
        is remembered once the edit landed: one deferred or refused shows the old one still)."""
        if rendered.picture is None:
            return  # no picture, or the same one: the attachment stays as it is
        if self._by_message.get(message_id) == rendered.picture.name:
            self._by_message.move_to_end(message_id)
            return
        kwargs["attachments"] = rendered.attachments()

    def remember(self, message_id: str, rendered: Rendered) -> None:
        if rendered.picture is None:
            return
        self._by_message[message_id] = rendered.picture.name
        self._by_message.move_to_end(message_id)
        while len(self._by_message) > PICTURES_KEPT:
            self._by_message.popitem(last=False)


class FormModal(discord.ui.Modal):
    """A :class:`~bot.commands.outbox.Form` as a Discord modal of one text input.

    Its answer is taken by the client's ``on_interaction`` (by the custom id, like the
    persistent buttons), not by this object: a form opened before a restart, or on another
    worker, is still answered."""

    def __init__(self, form: Form) -> None:
        super().__init__(
            title=cut(form.ask.title, MODAL_TITLE_LIMIT),
            timeout=MODAL_TIMEOUT_S,
            custom_id=form_id(form.game, form.channel, form.command),
        )
        self.answer: discord.ui.TextInput[FormModal] = discord.ui.TextInput(
            label=cut(form.ask.label, TEXT_INPUT_LABEL_LIMIT),
            style=discord.TextStyle.paragraph if form.ask.long else discord.TextStyle.short,
            placeholder=cut(form.ask.placeholder, PLACEHOLDER_LIMIT) or None,
            max_length=min(form.ask.max_length, TEXT_INPUT_LIMIT),
        )
        self.add_item(self.answer)
