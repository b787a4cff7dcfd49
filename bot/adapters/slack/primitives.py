"""The table's primitives on Slack: posts, edits, deletes, DMs and the answer to one request.

:class:`SlackPlatform` is what :class:`bot.table.Table` calls to show a game's surfaces through
the Web API; :class:`SlackAnswer` answers the request being handled (the pressed message updated
in place, an ephemeral reply). Neither decides what to send: they translate one neutral message
into one Slack call and Slack's refusals into the table's :class:`~bot.table.Gone`,
:class:`~bot.table.Closed` and :class:`~bot.table.Refused`.

- A thread is the card's own ``ts``: Slack starts one with the first ``thread_ts`` reply, so
  :meth:`SlackPlatform.start_thread` makes no call. A thread whose parent is gone (a moderator
  deleted the card) takes the post in the channel instead, and is remembered as gone.
- Components come bound to their ids (the table binds each message for where it goes, within
  :data:`~bot.adapters.slack.render.ID_LIMIT`): shown outside the game's channel (a DM, a
  private answer) they carry that channel, so a press there acts on the right game; in the
  channel and its thread the block_actions payload names the channel already.
- Mentions notify in Slack whenever they are written as ``<@U…>``: a mention that must not ping
  is written as the user's display name (escaped, so it formats and mentions nothing).
- Files: an ephemeral message cannot carry one, so a private answer with files goes to the
  reader's DM as an upload (slack_sdk's ``files_upload_v2``: ``files.getUploadURLExternal``,
  the bytes to its URL, ``files.completeUploadExternal`` with the answer's text as the initial
  comment), and the answer where they asked says it is there. A DM with files is the message,
  then the files shared below it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pydantic import JsonValue
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.http_retry.builtin_async_handlers import AsyncConnectionErrorRetryHandler
from slack_sdk.web.async_slack_response import AsyncSlackResponse
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot import table
from bot.adapters.slack.budget import BudgetedWebClient, post_limit
from bot.adapters.slack.render import (
    ID_LIMIT,
    MAX_BLOCKS,
    MAX_FALLBACK,
    MAX_SECTION_TEXT,
    Block,
    blocks,
    fallback_text,
    mrkdwn,
)
from bot.commands.outbox import Form
from bot.table.budget import Budget, Limit
from core import text as markup
from core import ui
from core.text import join

__all__ = [
    "FILES_IN_DM",
    "FILES_NOT_SENT",
    "MAX_FILE_BYTES",
    "NOT_IN_CHANNEL",
    "PLATFORM",
    "PRESS_AGAIN",
    "RESPONSE_URL_USES",
    "Pressed",
    "SlackAnswer",
    "SlackPlatform",
    "is_dm",
]

log = logging.getLogger(__name__)

PLATFORM = "slack"
NOT_IN_CHANNEL = "I can't post in that channel yet: invite me there (`/invite @Boardroom`)."
ARCHIVED = "I can't post in that channel: it is archived."
RESTRICTED = (
    "A workspace setting keeps me from posting in that channel; a Slack admin can allow it."
)
_REFUSALS = {
    "not_in_channel": NOT_IN_CHANNEL,
    "channel_not_found": NOT_IN_CHANNEL,
    "is_archived": ARCHIVED,
    "restricted_action": RESTRICTED,
    "restricted_action_read_only_channel": RESTRICTED,
    "restricted_action_thread_only_channel": RESTRICTED,
    "restricted_action_non_threadable_channel": RESTRICTED,
}
"""Errors meaning the bot may not speak in that conversation, with what to tell the player."""
_GONE = {"message_not_found", "cant_update_message", "edit_window_closed"}
"""Errors meaning the message is gone or can no longer be edited: the table posts anew."""
_THREAD_GONE = {"thread_not_found", "invalid_thread_ts"}
_DM_CLOSED = {
    "user_not_found",
    "user_not_visible",
    "user_disabled",
    "cannot_dm_bot",
    "missing_scope",
    "messages_tab_disabled",
    *_REFUSALS,
}
"""Errors of ``conversations.open`` or of a post in a DM meaning the user cannot be DMed."""
RESPONSE_URL_USES = 5
"""Posts one request's response URL takes (Slack's limit, within half an hour)."""
PRESS_AGAIN = "Slack did not let me open that form in time; please press the button again."
MAX_FILE_BYTES = 1024**3
"""Bytes per uploaded file (Slack takes files up to 1 GB); a larger one is left out and said."""
FILES_IN_DM = "I sent you {files} by direct message."
FILES_NOT_SENT = "I couldn't send you {files}: {why}."
_NO_DM = "I can't send you direct messages, and Slack can't attach files to a private answer"
_NO_SCOPE = (
    "this workspace's Boardroom app lacks the files:write scope (an admin can reinstall it "
    "from slack-manifest.json)"
)
_REFUSED = "Slack refused the upload"
PICTURES_KEPT = 1000
"""Board pictures whose Slack file ids a process remembers."""
PICTURE_WAITS = (0.5, 1.0, 2.0)
"""Seconds waited for Slack to finish processing an uploaded picture before each retry."""

Names = Callable[[str], Awaitable[str]]
"""Looks up how Slack shows a user (their display name)."""


def is_dm(channel: str, channel_name: str | None = None) -> bool:
    return channel.startswith("D") or channel_name == "directmessage"


def _code(error: SlackApiError) -> str:
    return str(error.response.get("error") or "")


def _response_error(body: str) -> str:
    """Slack's error code in a response URL's answer (its body is JSON, or the code alone)."""
    try:
        found = json.loads(body)
    except ValueError:
        return body.strip()
    return str(found.get("error") or "") if isinstance(found, dict) else ""


def _refused(error: SlackApiError) -> Exception:
    """A :class:`~bot.table.Refused` with a sentence for a player, else ``error`` itself."""
    sentence = _REFUSALS.get(_code(error))
    return table.Refused(sentence) if sentence else error


def _rendered(message: ui.Message, prefix: str = "") -> tuple[str, list[Block]]:
    """The fallback text and blocks of ``message``, ``prefix`` (mrkdwn) at the head of both:
    in the first section when both fit in one, else in a section of its own before it (a full
    section keeps all its text; a message of as many blocks as Slack takes keeps the prefix)."""
    text, built = fallback_text(message), blocks(message)
    if not prefix:
        return text, built
    head: Block = {"type": "section", "text": {"type": "mrkdwn", "text": prefix}}
    at = next((i for i, b in enumerate(built) if _section_text(b) is not None), None)
    section = _section_text(built[at]) if at is not None else None
    if at is None or section is None:
        built.insert(0, head)
    elif len(joined := f"{prefix} {section['text']}") <= MAX_SECTION_TEXT:
        section["text"] = joined
    elif len(built) < MAX_BLOCKS:
        built.insert(at, head)
    else:
        section["text"] = joined[:MAX_SECTION_TEXT]
    return f"{prefix} {text}"[:MAX_FALLBACK], built


def _section_text(block: Block) -> dict[str, JsonValue] | None:
    """The text object of a section block (None: not a section with text)."""
    text = block.get("text")
    return text if block.get("type") == "section" and isinstance(text, dict) else None


class SlackPlatform:
    """The primitives of :class:`bot.table.Platform` over Slack's Web API.

    ``names`` looks up display names (for mentions that must not ping). DM conversation ids
    are cached per user: ``conversations.open`` answers the same one every time.
    """

    name = PLATFORM
    threads_share_limit = True
    """Thread replies count against their channel's limit."""
    threads_are_conversations = False
    """A thread reply is a message of its channel's conversation (its payloads name it)."""
    id_limit = ID_LIMIT
    closed_hint = (
        "I can't send you direct messages in this workspace, so your hand comes here, where "
        "only you see it; `/{game} hand` shows it again."
    )

    def __init__(self, client: BudgetedWebClient, names: Names) -> None:
        self.client = client
        self.names = names
        self.budget: Budget | None = client.budget
        self._dms: dict[str, str] = {}
        self._lost: set[tuple[str, str]] = set()
        """Threads (channel, parent ts) Slack said are gone: posts there go to the channel."""
        self._pictures: OrderedDict[str, str] = OrderedDict()
        """Board pictures uploaded, by key and by their bytes and alt text: their Slack file
        id (an unchanged picture is not uploaded again with each edit of its board, nor the
        same picture under another key)."""

    def post_limit(self, where: str) -> Limit | None:
        """Slack takes about one message a second in a conversation (a channel with its
        threads, or a DM)."""
        return post_limit(where)

    async def with_picture(self, message: ui.Message, built: list[Block]) -> list[Block]:
        """``built`` with the board's picture as an image block (``slack_file``): uploaded
        first through the external flow (``files.getUploadURLExternal``, the upload,
        ``files.completeUploadExternal``, without sharing it anywhere) when it is new. A
        picture that cannot be uploaded leaves the board as text."""
        key = message.picture_key
        if key is None or len(built) >= MAX_BLOCKS:
            return built
        file_id = self._pictures.get(key)
        picture = message.picture
        same = f"bytes:{picture.digest}:{picture.alt}" if picture is not None else ""
        if file_id is None and picture is not None:
            file_id = self._pictures.get(same)  # the same picture under another key
        if file_id is None and picture is not None:
            attached = picture.file()
            try:
                response = await self.client.files_upload_v2(
                    file=attached.data,
                    filename=attached.name,
                    title=attached.alt or attached.name,
                    alt_txt=attached.alt or None,
                )
            except (SlackApiError, SlackRequestError) as error:
                log.warning("the board's picture could not be uploaded: %s", error)
                return built
            files = response.get("files") or [{}]
            file_id = files[0].get("id") if isinstance(files[0], dict) else None
            if not isinstance(file_id, str):
                return built
            self._pictures[same] = file_id
        if file_id is None:
            return built  # a picture this worker never saw: the board shows its text
        self._pictures[key] = file_id
        self._pictures.move_to_end(key)
        while len(self._pictures) > PICTURES_KEPT:
            self._pictures.popitem(last=False)
        alt = picture.alt if picture is not None else "The game's board."
        image: Block = {"type": "image", "slack_file": {"id": file_id}, "alt_text": alt}
        at = next((i for i, b in enumerate(built) if b.get("type") == "actions"), len(built))
        return [*built[:at], image, *built[at:]]

    async def sent_with_picture(
        self,
        send: Callable[[list[Block]], Awaitable[AsyncSlackResponse]],
        built: list[Block],
        plain: list[Block],
    ) -> AsyncSlackResponse:
        """Send ``built`` (the blocks with the picture); Slack refuses an image block whose file
        it is still processing (``invalid_blocks``), so wait for it, a little longer each time,
        and in the end send the text alone (``plain``)."""
        if built is plain:
            return await send(built)
        for wait in PICTURE_WAITS:
            try:
                return await send(built)
            except SlackApiError as error:
                if _code(error) != "invalid_blocks":
                    raise
                log.info("the board's picture is not ready yet: %s", error)
                await asyncio.sleep(wait)
        return await send(plain)

    async def post(
        self,
        place: table.Place,
        message: ui.Message,
        surface: str = "post",
        mention: list[str] | None = None,
        ping: bool = True,
    ) -> table.Shown:
        prefix = await self._mentions(mention or [], ping)
        text, plain = _rendered(message, prefix)
        built = await self.with_picture(message, plain)
        thread = place.thread if self._thread(place.channel, place.thread) else None

        async def send(blocks: list[Block]) -> AsyncSlackResponse:
            return await self.client.chat_postMessage(
                channel=place.channel, text=text, blocks=blocks, thread_ts=thread
            )

        try:
            response = await self.sent_with_picture(send, built, plain)
        except SlackApiError as error:
            if thread is not None and _code(error) in _THREAD_GONE:
                # The card that held the thread was deleted: the game goes on in the channel.
                log.info("the thread %s in %s is gone (%s)", place.thread, place.channel, error)
                self._lost.add((place.channel, thread))
                try:
                    response = await self.client.chat_postMessage(
                        channel=place.channel, text=text, blocks=built
                    )
                except SlackApiError as again:
                    raise _refused(again) from again
            else:
                raise _refused(error) from error
        return table.Shown(where=str(response.get("channel") or place.channel), id=response["ts"])

    async def edit(
        self,
        shown: table.Shown,
        message: ui.Message,
        surface: str = "post",
    ) -> None:
        text, plain = _rendered(message)
        built = await self.with_picture(message, plain)

        async def send(blocks: list[Block]) -> AsyncSlackResponse:
            return await self.client.chat_update(
                channel=shown.where, ts=shown.id, text=text, blocks=blocks
            )

        try:
            await self.sent_with_picture(send, built, plain)
        except SlackApiError as error:
            if _code(error) in _GONE:
                raise table.Gone(_code(error)) from error
            raise _refused(error) from error

    async def delete(self, shown: table.Shown) -> None:
        try:
            await self.client.chat_delete(channel=shown.where, ts=shown.id)
        except SlackApiError as error:
            if _code(error) != "message_not_found":  # gone already: what was wanted
                raise _refused(error) from error

    async def dm(self, user: str, message: ui.Message) -> table.Shown:
        conversation = await self._open(user)
        text, built = _rendered(message)
        try:
            response = await self.client.chat_postMessage(
                channel=conversation, text=text, blocks=built
            )
        except SlackApiError as error:
            if _code(error) in _DM_CLOSED:
                self._dms.pop(user, None)
                raise table.Closed(_code(error)) from error
            raise
        if message.files:
            try:
                await self.share(conversation, message, None)
            except (SlackApiError, SlackRequestError) as error:
                log.warning("the files of a DM to %s could not be shared: %s", user, error)
        return table.Shown(where=conversation, id=response["ts"])

    async def share(self, conversation: str, message: ui.Message, comment: str | None) -> None:
        """Upload ``message``'s files into ``conversation`` (Slack's external upload flow),
        with ``comment`` (mrkdwn) as the text above them; one over :data:`MAX_FILE_BYTES` is
        left out and said in the comment."""
        uploads: list[dict[str, str | bytes]] = []
        left_out: list[str] = []
        for attached in message.files:
            if len(attached.data) > MAX_FILE_BYTES:
                left_out.append(attached.name)
                continue
            upload: dict[str, str | bytes] = {
                "file": attached.data,
                "filename": attached.name,
                "title": attached.alt or attached.name,
            }
            if attached.mime.startswith("image/") and attached.alt:
                upload["alt_txt"] = attached.alt  # a screen reader's description of a picture
            uploads.append(upload)
        if left_out:
            log.warning("files over %d bytes left out: %s", MAX_FILE_BYTES, left_out)
            note = mrkdwn(markup.escape(f"({join(left_out)} is too large for Slack.)"))
            comment = f"{comment}\n\n{note}" if comment else note
        if not uploads:
            if comment:
                await self.client.chat_postMessage(channel=conversation, text=comment)
            return
        await self.client.files_upload_v2(
            file_uploads=uploads, channel=conversation, initial_comment=comment
        )

    async def start_thread(self, channel: str, card: table.Shown, name: str) -> str | None:
        return card.id  # the card's ts is the thread's: its first reply starts it

    async def ephemeral(
        self,
        channel: str,
        user: str,
        message: ui.Message,
        thread: str | None = None,
    ) -> None:
        """A message only ``user`` sees in ``channel`` (in ``thread`` when set); where the bot
        may not post, the same as a DM (raises :class:`~bot.table.Closed` if that fails)."""
        text, built = _rendered(message)
        where = thread if thread is not None and self._thread(channel, thread) else None
        try:
            await self.client.chat_postEphemeral(
                channel=channel, user=user, text=text, blocks=built, thread_ts=where
            )
        except SlackApiError as error:
            code = _code(error)
            if where is not None and code in _THREAD_GONE:
                self._lost.add((channel, where))
                await self.ephemeral(channel, user, message)
            elif code in _REFUSALS or code == "user_not_in_channel":
                # The bot (or the user) is not in that conversation: the private answer still
                # reaches its reader.
                await self.dm(user, message)
            else:
                raise

    def _thread(self, channel: str, thread: str | None) -> bool:
        """Whether to post in ``thread`` (there is one, and it is not known to be gone)."""
        return bool(thread) and (channel, thread or "") not in self._lost

    async def open_dm(self, user: str) -> str:
        """The DM conversation with ``user`` (raises :class:`~bot.table.Closed` if none)."""
        return await self._open(user)

    async def _open(self, user: str) -> str:
        conversation = self._dms.get(user)
        if conversation is not None:
            return conversation
        try:
            opened = await self.client.conversations_open(users=user)
        except SlackApiError as error:
            if _code(error) in _DM_CLOSED:
                raise table.Closed(_code(error)) from error
            raise
        conversation = self._dms[user] = str(opened["channel"]["id"])
        return conversation

    async def _mentions(self, users: list[str], ping: bool) -> str:
        """The head of a post naming ``users``: mentions, or display names when not ``ping``."""
        if not users:
            return ""
        if ping:
            named = [f"<@{user}>" for user in users]
        else:
            named = [mrkdwn(markup.escape(await self.names(user))) for user in users]
        return ", ".join(named) + ":"


@dataclass(frozen=True)
class Pressed:
    """The message whose component a ``block_actions`` request pressed (its ``container``)."""

    channel: str
    ts: str
    ephemeral: bool = False
    thread: str | None = None
    """The thread the message is in, if any (ephemeral replies go there too)."""
    response_url: str | None = None
    trigger: str | None = None
    """The request's ``trigger_id``, which a modal needs."""


class SlackAnswer:
    """The requester's own view of one request (:class:`bot.table.Answer`).

    ``origin`` is the conversation the request came from: from a DM, private answers go back
    to the DM rather than as ephemeral messages in the game's channel.

    What answers the request goes through its response URL first (the pressed message replaced,
    private answers), the interaction's own channel: Slack takes five posts there within half an
    hour, and no method's tier rations them, so the answer never waits for the workspace's
    budget; past them, ``chat.postEphemeral`` (rationed) answers.
    """

    def __init__(
        self,
        platform: SlackPlatform,
        user: str,
        origin: str | None = None,
        pressed: Pressed | None = None,
        forms: Callable[[str, Form], Awaitable[bool]] | None = None,
        response_url: str | None = None,
    ) -> None:
        self.platform = platform
        self.user = user
        self.origin = origin
        self.press = pressed
        self.response_url = response_url or (pressed.response_url if pressed else None)
        """Where the request may be answered privately, even where the bot may not post (a
        channel it is not in): Slack takes five answers there within half an hour."""
        self._used = 0
        self._refused = ""
        """Slack's error for the last post to the response URL ("" when it took it)."""
        self.pressed = (pressed.channel, pressed.ts) if pressed is not None else None
        self.pressed_private = pressed is not None and (pressed.ephemeral or is_dm(pressed.channel))
        self.forms = forms
        """Opens a modal from a trigger (the app's ``views.open``)."""

    async def open_form(self, form: Form) -> bool:
        """A modal from the press's trigger; when Slack will not open it (the trigger lived
        three seconds), the player is told to press again."""
        trigger = self.press.trigger if self.press is not None else None
        if trigger is None or self.forms is None:
            return False
        if await self.forms(trigger, form):
            return True
        return await self.reply(ui.Message(text=PRESS_AGAIN), form.channel)

    def refusal(self, refused: list[str], game: str) -> str:
        """The platform's own sentences (they name what the bot may not do, and where)."""
        return " ".join(refused)

    async def finish(self, answered: bool) -> None:
        return None  # Bolt acknowledged the request before any work began

    async def acknowledge(self) -> None:
        return None  # Bolt acknowledged the request before any work began

    async def update(self, message: ui.Message) -> bool:
        """Replace the pressed message through the response URL (``replace_original``); False
        when that failed (the table edits the message instead, or posts it anew)."""
        press = self.press
        if press is None:
            return False
        text, plain = _rendered(message)
        built = plain if press.ephemeral else await self.platform.with_picture(message, plain)
        # Slack refuses an image block whose file it is still processing (invalid_blocks):
        # wait for it a little longer each time, and in the end replace with the text alone.
        for wait in PICTURE_WAITS if built is not plain else ():
            if await self._respond({"replace_original": True, "text": text, "blocks": built}):
                return True
            if self._refused != "invalid_blocks":
                return False
            await asyncio.sleep(wait)
        return await self._respond({"replace_original": True, "text": text, "blocks": plain})

    async def reply(self, message: ui.Message, channel: str) -> bool:
        """A private answer where the request came from: through the response URL, ephemeral
        (in the thread of the pressed message); past its uses, ``chat.postEphemeral``. In a DM,
        a message with choices is a DM message (a hand asked for there stays), and anything
        else ephemeral there (a refusal or a stale press leaves no message in it for good).
        With files, see :meth:`_with_files`."""
        if message.files:
            return await self._with_files(message, channel)
        origin = self.origin
        in_dm = origin is not None and origin != channel and is_dm(origin)
        try:
            if in_dm and (message.buttons or message.selects):
                await self.platform.dm(self.user, message)
                return True
            if await self._ephemeral_answer(message):
                return True
            if in_dm:
                assert origin is not None
                await self.platform.ephemeral(origin, self.user, message)
                return True
            press = self.press
            thread = press.thread if press is not None and press.channel == channel else None
            await self.platform.ephemeral(channel, self.user, message, thread)
        except (SlackApiError, table.Closed) as error:
            log.warning("a private answer to %s in %s failed: %s", self.user, channel, error)
            return False
        return True

    async def _ephemeral_answer(self, message: ui.Message) -> bool:
        """``message`` through the response URL, ephemeral, where the request was made (the
        pressed message's thread); False when it could not be."""
        text, built = _rendered(message)
        body: dict[str, object] = {
            "response_type": "ephemeral",
            "replace_original": False,
            "text": text,
            "blocks": built,
        }
        if self.press is not None and self.press.thread:
            body["thread_ts"] = self.press.thread
        return await self._respond(body)

    async def _respond(self, body: dict[str, object]) -> bool:
        """Post ``body`` to the request's response URL; False when there is none, its uses are
        spent, or Slack refused it (its error in :attr:`_refused`)."""
        self._refused = ""
        if self.response_url is None or self._used >= RESPONSE_URL_USES:
            return False
        self._used += 1
        hook = AsyncWebhookClient(
            self.response_url,
            session=self.platform.client.session,
            retry_handlers=[AsyncConnectionErrorRetryHandler()],
        )
        try:
            response = await hook.send_dict(body)
        except Exception as error:
            log.info("answering through the response URL failed: %s", error)
            return False
        if response.status_code != 200:
            log.info("answering through the response URL failed: %s", response.body)
            self._refused = _response_error(response.body)
            return False
        return True

    async def _with_files(self, message: ui.Message, channel: str) -> bool:
        """An answer with files: uploaded to the reader's DM with the answer's text, and, when
        they asked elsewhere, a private line there saying where it is. If the DM or the
        upload fails, the text comes where they asked, with why the files did not."""
        names = markup.escape(join([f.name for f in message.files]))
        why = ""
        try:
            conversation = await self.platform.open_dm(self.user)
            await self.platform.share(conversation, message, fallback_text(message))
        except table.Closed:
            why = _NO_DM
        except SlackApiError as error:
            log.warning("the files of an answer to %s were refused: %s", self.user, error)
            why = _NO_SCOPE if _code(error) == "missing_scope" else _REFUSED
        except SlackRequestError as error:  # the upload URL refused the bytes
            log.warning("the files of an answer to %s failed: %s", self.user, error)
            why = _REFUSED
        if not why:
            if self.origin is not None and self.origin == conversation:
                return True  # asked in that DM: the upload is the answer
            note = FILES_IN_DM.format(files=names)
            return await self.reply(ui.Message(text=note), channel)
        note = FILES_NOT_SENT.format(files=names, why=why)
        text = f"{message.text}\n\n{note}".strip()
        return await self.reply(message.model_copy(update={"text": text, "files": []}), channel)
