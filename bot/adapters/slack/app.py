"""The Bolt app: slash commands and block actions in, Outboxes delivered through the Web API.

Every listener acknowledges first (Slack wants an answer within 3 seconds), then starts the work
as a task of its own and returns, so Bolt (with ``process_before_response``) answers the HTTP
request at once instead of polling every 10 ms for an ack made inside a running listener. The work
asks the authority; the authority's Outbox becomes Web API calls.

Slack's redeliveries (``X-Slack-Retry-Num`` retries, repeated interaction payloads) carry the same
``trigger_id``, so the delivery id built from it lets the authority apply each of them once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack.render import ACTION_PATTERN, blocks, component_id, fallback_text
from bot.commands.authority import Authority, Request
from bot.commands.grammar import parse
from bot.commands.outbox import Delivery, Outbox
from bot.runtime import board_to_draw
from core import ui
from core.registry import all_games
from storage import GameKey, StorageUnavailable

__all__ = ["PLATFORM", "SlackAdapter", "delivery_id"]

log = logging.getLogger(__name__)

PLATFORM = "slack"
SORRY = "Something went wrong on my side; nothing more was done. Please try again."
NOT_IN_CHANNEL = "I can't post in that channel yet: invite me there (`/invite @Boardroom`)."
# Errors meaning the bot may not speak in that conversation; the private answer goes by DM instead.
_NOT_THERE = {"channel_not_found", "not_in_channel", "is_archived", "restricted_action"}


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
        self.client = client
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
        self.handled: list[Callable[[Request], None]] = []
        """Called with each request once its answer is delivered (bench, tests)."""
        self._dms: dict[str, str] = {}
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
        game = str(command["command"]).lstrip("/")
        # Slack escapes &, < and > in what was typed; mentions (<@U1|bob>) arrive as real brackets.
        text = str(command.get("text") or "")
        text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        await ack()  # before any work: Slack shows an error after 3 seconds without it

        async def work() -> None:
            if _is_dm(channel, command.get("channel_name")) and parse(text).word == "hand":
                # DM hand management: every game the user sits in, each with its own buttons.
                for out in await self.authority.hands(req):
                    await self.deliver(out, requester=user, origin=channel)
            else:
                out = await self.authority.command(req, game, text)
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
        custom_id = component_id(str(action.get("action_id", ""))) or ""
        values: list[str] | None = None
        if "selected_options" in action:
            values = [o["value"] for o in action["selected_options"]]
        elif action.get("selected_option"):
            values = [action["selected_option"]["value"]]
        await ack()

        async def work() -> None:
            out = await self.authority.press(req, custom_id, values)
            await self.deliver(out, requester=req.user, origin=channel)

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
        privates = []
        for delivery in out.deliveries:
            if delivery.to == "channel":
                continue
            user = delivery.user or requester or ""
            if delivery.to == "dm" or from_dm:
                privates.append(self._dm(user, delivery.message, game, out.channel))
            else:
                privates.append(self._private(out.channel, user, delivery.message, game, None))
        await asyncio.gather(self._public(out, game, requester), *privates)

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
                # Deleted or too old to edit: post a new board below.
                log.info("board %s could not be edited (%s)", ref, error.response.get("error"))
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
