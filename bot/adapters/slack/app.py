"""The Bolt app: slash commands and block actions in, Outboxes delivered through the Web API.

Every listener acknowledges first (Slack wants an answer within 3 seconds), then starts the work
as a task of its own and returns, so Bolt (with ``process_before_response``) answers the HTTP
request at once instead of polling every 10 ms for an ack made inside a running listener. The work
asks the authority; the authority's Outbox becomes Web API calls.

Slack's redeliveries (``X-Slack-Retry-Num`` retries, repeated interaction payloads) carry the same
``trigger_id``, so the delivery id built from it lets the authority apply each of them once.

Each part of an answer (a post, an ephemeral reply, a DM, the board) is delivered on its own: a
part Slack refuses is logged with the game and the part and the others still go. Rate limits are
slack_sdk's business: its retry handlers wait out a ``429`` and a dropped connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack.render import ACTION_PATTERN, blocks, component_id, fallback_text
from bot.commands.authority import Authority, Request
from bot.commands.grammar import parse
from bot.commands.outbox import Delivery, Form, Outbox
from bot.runtime import board_to_draw
from core import ui
from core.registry import all_games
from storage import GameKey, StorageUnavailable

__all__ = [
    "PLATFORM",
    "RATE_LIMIT_RETRIES",
    "RetryAfterHandler",
    "SlackAdapter",
    "delivery_id",
    "with_retries",
]

log = logging.getLogger(__name__)

PLATFORM = "slack"
SORRY = "Something went wrong on my side; nothing more was done. Please try again."
NOT_IN_CHANNEL = "I can't post in that channel yet: invite me there (`/invite @Boardroom`)."
# Errors meaning the bot may not speak in that conversation; the private answer goes by DM instead.
_NOT_THERE = {"channel_not_found", "not_in_channel", "is_archived", "restricted_action"}
# Errors meaning the board message is gone (or can no longer be edited): post a new one.
_BOARD_GONE = {"message_not_found", "cant_update_message", "edit_window_closed"}
RATE_LIMIT_RETRIES = 5
"""How often one call is retried after ``429 ratelimited`` (each after its ``Retry-After``)."""
MAX_JITTER_S = 0.25
NAME_TTL_S = 3600.0
FORM_CALLBACK = "boardroom_form"
FORM_FIELD = "answer"
MAX_MODAL_TITLE = 24
"""How long a looked-up display name is trusted."""


class RetryAfterHandler(AsyncRateLimitErrorRetryHandler):
    """slack_sdk's rate-limit handler, waiting what ``Retry-After`` says.

    The library's own waits ``Retry-After`` plus a random 0-1 s on every retry, a whole extra
    second for a player in the worst case; here the jitter is a tenth of the wait (at most
    :data:`MAX_JITTER_S`), which still spreads retries of several workers apart.
    """

    async def prepare_for_next_attempt_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> None:
        if response is None:
            if error is not None:
                raise error
            return
        state.next_attempt_requested = True
        values = [v for k, v in response.headers.items() if k.lower() == "retry-after"]
        try:
            wait = max(0.0, float(values[0][0])) if values else 1.0
        except (TypeError, ValueError):
            wait = 1.0
        await asyncio.sleep(wait + random.uniform(0, min(MAX_JITTER_S, wait / 10 + 0.01)))
        state.increment_current_attempt()


def with_retries(client: AsyncWebClient) -> AsyncWebClient:
    """``client`` with retry handlers for dropped connections and ``429 ratelimited`` (once)."""
    kinds = {type(handler) for handler in client.retry_handlers}
    if AsyncConnectionErrorRetryHandler not in kinds:
        client.retry_handlers.append(AsyncConnectionErrorRetryHandler())
    if not any(issubclass(kind, AsyncRateLimitErrorRetryHandler) for kind in kinds):
        client.retry_handlers.append(RetryAfterHandler(max_retry_count=RATE_LIMIT_RETRIES))
    return client


def delivery_id(kind: str, trigger_id: str | None, body: dict[str, Any]) -> str:
    """A stable id for one user gesture, equal on every redelivery of it.

    ``trigger_id`` is unique per gesture and repeated on retries; without one, a hash of the
    payload itself (identical on a redelivery) stands in.
    """
    if trigger_id:
        return f"{kind}:{trigger_id}"
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:32]
    return f"{kind}:h{digest}"


def _is_dm(channel: str, channel_name: str | None = None) -> bool:
    return channel.startswith("D") or channel_name == "directmessage"


class SlackAdapter:
    """Owns the Bolt app and delivers Outboxes to Slack.

    ``signing_secret=None`` turns signature checks off: Socket Mode requests come over a
    websocket the app opened itself with its app token, so there is nothing to sign.
    """

    def __init__(
        self,
        authority: Authority,
        client: AsyncWebClient,
        signing_secret: str | None,
        board_ttl_s: int | None = None,
    ) -> None:
        self.authority = authority
        self.client = with_retries(client)
        self.board_ttl_s = board_ttl_s or int(authority.settings.game_ttl_hours * 3600)
        self.app = AsyncApp(
            client=client,
            signing_secret=signing_secret or "socket-mode",
            request_verification_enabled=signing_secret is not None,
            process_before_response=True,
        )
        for game in all_games():
            self.app.command(f"/{game.name}")(self._on_command)
        self.app.action(ACTION_PATTERN)(self._on_action)
        self.app.view(FORM_CALLBACK)(self._on_form)
        self.handled: list[Callable[[Request], None]] = []
        """Called with each request once its answer is delivered (bench, tests)."""
        self._dms: dict[str, str] = {}
        self._names: dict[str, tuple[float, str]] = {}
        """Display names looked up with users.info, with when they were."""
        self._locks: dict[str, asyncio.Lock] = {}
        self._busy = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._tasks: set[asyncio.Task[None]] = set()

    # --- listeners -------------------------------------------------------------------------

    async def _on_command(self, ack: Any, command: dict[str, Any]) -> None:
        channel, user = command["channel_id"], command["user_id"]
        req = Request(
            platform=PLATFORM,
            channel=channel,
            user=user,
            name=command.get("user_name") or user,
            delivery=delivery_id("cmd", command.get("trigger_id"), command),
        )
        handle = command.get("user_name") or user
        game = str(command["command"]).lstrip("/")
        # Slack escapes &, < and > in what was typed; mentions (<@U1|bob>) arrive as real brackets.
        text = str(command.get("text") or "")
        text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        await ack()  # before any work: Slack shows an error after 3 seconds without it

        async def work() -> None:
            named = await self._named(req, handle)
            if _is_dm(channel, command.get("channel_name")) and parse(text).word == "hand":
                # DM hand management: every game the user sits in, each with its own buttons.
                for out in await self.authority.hands(named):
                    await self.deliver(out, requester=user, origin=channel)
            else:
                out = await self.authority.command(named, game, text)
                await self.deliver(out, requester=user, origin=channel)

        self._start(req, work)

    async def _on_action(self, ack: Any, body: dict[str, Any], action: dict[str, Any]) -> None:
        user = body["user"]
        channel = (body.get("channel") or {}).get("id") or body["container"]["channel_id"]
        trigger = body.get("trigger_id")
        req = Request(
            platform=PLATFORM,
            channel=channel,
            user=user["id"],
            name=user.get("name") or user.get("username") or user["id"],
            delivery=delivery_id("act", trigger and f"{trigger}:{action.get('action_ts')}", body),
        )
        handle = user.get("name") or user.get("username") or user["id"]
        custom_id = component_id(str(action.get("action_id", ""))) or ""
        values: list[str] | None = None
        if "selected_options" in action:
            values = [o["value"] for o in action["selected_options"]]
        elif action.get("selected_option"):
            values = [action["selected_option"]["value"]]
        await ack()

        async def work() -> None:
            named = await self._named(req, handle)
            out = await self.authority.press(named, custom_id, values)
            if out.form is not None and trigger:
                await self._open_form(trigger, out.form)
                return
            await self.deliver(out, requester=req.user, origin=channel)

        self._start(req, work)

    async def _named(self, req: Request, handle: str) -> Request:
        """``req`` with the user's display name (validated, so escaped as markup)."""
        name = await self._display_name(req.user, handle)
        return Request.model_validate({**req.model_dump(), "name": name})

    async def _display_name(self, user: str, handle: str) -> str:
        """How Slack shows ``user``: the profile's display name, else the real name, else the
        legacy ``handle``; looked up with ``users.info`` and cached for :data:`NAME_TTL_S`."""
        now = time.monotonic()
        cached = self._names.get(user)
        if cached is not None and now - cached[0] < NAME_TTL_S:
            return cached[1]
        try:
            found = (await self.client.users_info(user=user)).get("user") or {}
        except SlackApiError as error:
            log.info("users.info for %s failed (%s)", user, error.response.get("error"))
            return cached[1] if cached else handle
        profile = found.get("profile") or {}
        name = str(
            profile.get("display_name")
            or profile.get("real_name")
            or found.get("real_name")
            or handle
        )
        self._names[user] = (now, name)
        return name

    async def _open_form(self, trigger: str, form: Form) -> None:
        """A :class:`~bot.commands.outbox.Form` as a Slack modal (``views.open``)."""
        ask = form.ask
        view = {
            "type": "modal",
            "callback_id": FORM_CALLBACK,
            "private_metadata": json.dumps({"g": form.game, "c": form.channel, "w": form.command}),
            "title": {"type": "plain_text", "text": ask.title[:MAX_MODAL_TITLE]},
            "submit": {"type": "plain_text", "text": "Send"},
            "close": {"type": "plain_text", "text": "Cancel"},
            "blocks": [
                {
                    "type": "input",
                    "block_id": FORM_FIELD,
                    "label": {"type": "plain_text", "text": ask.label},
                    "element": {
                        "type": "plain_text_input",
                        "action_id": FORM_FIELD,
                        "multiline": ask.long,
                        "max_length": ask.max_length,
                        **(
                            {"placeholder": {"type": "plain_text", "text": ask.placeholder}}
                            if ask.placeholder
                            else {}
                        ),
                    },
                }
            ],
        }
        try:
            await self.client.views_open(trigger_id=trigger, view=view)
        except SlackApiError as error:
            log.warning("opening the %s form failed: %s", form.command, _reason(error))

    async def _on_form(self, ack: Any, body: dict[str, Any], view: dict[str, Any]) -> None:
        """A submitted form: its answer completes the typed command, run as if typed."""
        await ack()  # closes the modal; the answer follows in the channel
        meta = json.loads(view.get("private_metadata") or "{}")
        answer = str(view["state"]["values"][FORM_FIELD][FORM_FIELD].get("value") or "")
        user = body["user"]
        req = Request(
            platform=PLATFORM,
            channel=str(meta.get("c", "")),
            user=user["id"],
            name=user.get("name") or user.get("username") or user["id"],
            delivery=delivery_id("form", view.get("id"), body),
        )
        handle = req.name

        async def work() -> None:
            named = await self._named(req, handle)
            command = f"{meta.get('w', '')} {answer}"
            out = await self.authority.command(named, str(meta.get("g", "")), command)
            await self.deliver(out, requester=req.user)

        self._start(req, work)

    def _start(self, req: Request, work: Callable[[], Awaitable[None]]) -> None:
        """Run ``work`` after the listener returns (the HTTP answer goes out meanwhile)."""
        self._busy += 1  # in flight from now, so settled() never misses it
        self._idle.clear()

        async def run() -> None:
            async with self._working(req):
                await work()

        task = asyncio.create_task(run())
        self._tasks.add(task)  # a task nobody references may be garbage-collected mid-way
        task.add_done_callback(self._tasks.discard)

    @contextlib.asynccontextmanager
    async def _working(self, req: Request) -> AsyncIterator[None]:
        """Ends the request's time in flight (begun by :meth:`_start`); a failure becomes a
        private apology, not silence."""
        try:
            yield
        except Exception:
            log.exception("request %s failed", req.delivery)
            with contextlib.suppress(Exception):
                await self._private(req.channel, req.user, ui.Message(text=SORRY), "", None)
        finally:
            self._busy -= 1
            if not self._busy:
                self._idle.set()
            for listener in self.handled:
                listener(req)

    async def settled(self) -> None:
        """Wait until no request is being handled (tests: every answer has been sent)."""
        await self._idle.wait()

    # --- delivering ------------------------------------------------------------------------

    async def deliver(
        self, out: Outbox, requester: str | None = None, origin: str | None = None
    ) -> None:
        """Send one Outbox: public posts in order, private messages beside them, then the board.

        ``origin`` is the conversation the request came from; when it is a DM, the requester's
        private answers go back there rather than as ephemeral messages in the game's channel.
        """
        if out.duplicate:
            return  # a redelivery of something already answered
        game = out.game or ""
        from_dm = origin is not None and origin != out.channel and _is_dm(origin)
        parts: list[tuple[str, Awaitable[None]]] = []
        for delivery in out.deliveries:
            if delivery.to == "channel":
                continue
            user = delivery.user or requester or ""
            if delivery.to == "dm" or from_dm:
                send = self._dm(user, delivery.message, game, out.channel)
                parts.append((f"a DM to {user}", send))
            else:
                send = self._private(out.channel, user, delivery.message, game, None)
                parts.append((f"the private reply to {user}", send))
        parts.append(("the channel posts and board", self._public(out, game, requester)))
        results = await asyncio.gather(*(send for _, send in parts), return_exceptions=True)
        for (part, _), result in zip(parts, results, strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, Exception):
                    raise result  # cancellation and the like are not a delivery failure
                log.warning(
                    "delivering %s in %s:%s (%s) failed: %s",
                    part,
                    PLATFORM,
                    out.channel,
                    game or "no game",
                    _reason(result),
                )

    async def _public(self, out: Outbox, game: str, requester: str | None) -> None:
        # One lock per channel keeps its posts and board edits in the order they were made.
        lock = self._locks.setdefault(out.channel, asyncio.Lock())
        async with lock:

            async def posts() -> None:
                for delivery in out.deliveries:
                    if delivery.to == "channel":
                        await self._post(out.channel, delivery, game, requester)

            if out.board is None:
                await posts()
            elif out.board_fresh:  # a new game: its board goes below the posts that began it
                await posts()
                await self._board(out, out.board, game, requester)
            else:  # an edit in place does not move, so it need not wait for the posts
                await asyncio.gather(posts(), self._board(out, out.board, game, requester))

    async def _post(
        self, channel: str, delivery: Delivery, game: str, requester: str | None
    ) -> str | None:
        message = delivery.message
        try:
            response = await self.client.chat_postMessage(
                channel=channel, text=fallback_text(message), blocks=blocks(message, game)
            )
        except SlackApiError as error:
            await self._cannot_post(channel, error, requester)
            return None
        return str(response["ts"])

    async def _board(
        self, out: Outbox, board: ui.Message, game: str, requester: str | None
    ) -> None:
        key = GameKey(PLATFORM, out.channel)
        draw, ref = await board_to_draw(self.authority.store, PLATFORM, out)
        if not draw:
            return
        if ref is not None:
            try:
                await self.client.chat_update(
                    channel=out.channel,
                    ts=ref,
                    text=fallback_text(board),
                    blocks=blocks(board, game),
                )
                return
            except SlackApiError as error:
                code = error.response.get("error")
                if code not in _BOARD_GONE:
                    # Still there (a rate limit outlasted the retries, a hiccup): the next
                    # change edits it again; a second board would be worse than a late one.
                    log.warning("board %s of %s could not be edited (%s)", ref, key, code)
                    return
                log.info("board %s of %s is gone (%s); posting a new one", ref, key, code)
        ts = await self._post(out.channel, Delivery(to="channel", message=board), game, requester)
        if ts is not None:
            with contextlib.suppress(StorageUnavailable):
                await self.authority.store.set_board_ref(key, ts, self.board_ttl_s)

    async def _private(
        self, channel: str, user: str, message: ui.Message, game: str, via: str | None
    ) -> None:
        try:
            await self.client.chat_postEphemeral(
                channel=channel,
                user=user,
                text=fallback_text(message),
                blocks=blocks(message, game),
            )
        except SlackApiError as error:
            if error.response.get("error") not in _NOT_THERE:
                raise
            # The bot is not in that conversation: the private answer still reaches its reader.
            await self._dm(user, message, game, channel)

    async def _dm(self, user: str, message: ui.Message, game: str, channel: str) -> None:
        """A direct message whose components act on ``channel``'s game."""
        dm = self._dms.get(user)
        if dm is None:
            opened = await self.client.conversations_open(users=user)
            dm = self._dms[user] = str(opened["channel"]["id"])
        await self.client.chat_postMessage(
            channel=dm, text=fallback_text(message), blocks=blocks(message, game, channel)
        )

    async def _cannot_post(self, channel: str, error: SlackApiError, requester: str | None) -> None:
        code = error.response.get("error")
        log.warning("cannot post in %s: %s", channel, code)
        if requester and code in _NOT_THERE:
            note = ui.Message(text=NOT_IN_CHANNEL)
            with contextlib.suppress(SlackApiError):
                await self._dm(requester, note, "", channel)


def _reason(error: Exception) -> str:
    if isinstance(error, SlackApiError):
        return str(error.response.get("error"))
    return repr(error)
