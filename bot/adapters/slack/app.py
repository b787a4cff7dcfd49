"""The Bolt app: slash commands and block actions in, the game's table shown through the Web API.

Every listener acknowledges first (Slack wants an answer within 3 seconds), then starts the work
as a task of its own and returns, so Bolt (with ``process_before_response``) answers the HTTP
request at once instead of polling every 10 ms for an ack made inside a running listener. The work
asks the authority; the authority's Outbox goes to the table layer (:class:`bot.table.Table`),
which decides what to post, edit, move or delete, through :class:`SlackPlatform`'s primitives.

Slack's redeliveries (``X-Slack-Retry-Num`` retries, repeated interaction payloads) carry the same
``trigger_id``, so the delivery id built from it lets the authority apply each of them once.

Every Web API call is first taken from the budget every worker shares (:mod:`bot.table.budget`,
:mod:`bot.adapters.slack.budget`: each method's tier per workspace, one post a second per
conversation); slack_sdk's retry handlers wait out a ``429`` anyway (and the budget then keeps
every worker off that method for its ``Retry-After``) and a dropped connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import logging
import random
import time
from collections.abc import Coroutine

from pydantic import JsonValue, ValidationError
from slack_bolt.async_app import AsyncApp
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot import table
from bot.adapters.slack.budget import BudgetedWebClient, in_flight, limits_of, scope_of
from bot.adapters.slack.home import HomeTabs
from bot.adapters.slack.payloads import (
    FORM_CALLBACK,
    FORM_FIELD,
    BlockActions,
    EventCallback,
    SlashCommand,
    Unreadable,
    ViewSubmission,
    unreadable,
)
from bot.adapters.slack.primitives import (
    NOT_IN_CHANNEL,
    PLATFORM,
    Pressed,
    SlackAnswer,
    SlackPlatform,
    is_dm,
)
from bot.adapters.slack.render import ACTION_PATTERN, component_id
from bot.commands.authority import Authority, Request
from bot.commands.codec import form_id
from bot.commands.community.boardroom import COMMAND as COMMUNITY_COMMAND
from bot.commands.outbox import Form, Outbox
from bot.desk import Desk, Interaction
from bot.runtime import DropRecords
from bot.table.budget import Budget, Call, Deferred, Limit, Priority, calling, current
from core import ui
from core.registry import all_games

__all__ = [
    "NOT_IN_CHANNEL",
    "PLATFORM",
    "RATE_LIMIT_RETRIES",
    "UNREADABLE",
    "Pressed",
    "RetryAfterHandler",
    "SlackAdapter",
    "SlackAnswer",
    "SlackPlatform",
    "delivery_id",
    "with_retries",
]

log = logging.getLogger(__name__)

SORRY = "Something went wrong on my side; nothing more was done. Please try again."
UNREADABLE = "I could not read that request; nothing was done."
"""Said to whoever sent a request the app cannot read (a field missing, or of the wrong type)."""
RATE_LIMIT_PATIENCE_S = 60.0
"""How long, in all, one call waits out ``429 ratelimited`` (each wait its ``Retry-After``)
before it is given up: every call the table makes can wait (a newer state of its surface is
drawn by the next delivery anyway), so it is retried until it lands."""
TRIGGER_PATIENCE_S = 2.0
"""The same for ``views.open``, whose trigger expires 3 s after the press (then the player is
asked to press again)."""
RATE_LIMIT_RETRIES = 100
"""A bound on the tries of one call besides the patience (slack_sdk counts them)."""
MAX_JITTER_S = 0.25
WAITED = "boardroom_rate_limited_s"
"""Where a call's retry state keeps how long it has waited out rate limits."""
NAME_TTL_S = 3600.0
"""How long a looked-up display name is trusted."""
MAX_MODAL_TITLE = 24
_TOKEN_SKIPPED = DropRecords(
    "As you gave `client` as well, `token` will be unused.",
    "As `installation_store` or `authorize` has been used, `token`",
)
"""Bolt reads SLACK_BOT_TOKEN from the environment by itself and warns, at every start, that
the client given to it (and the authorization given to it) wins: that client carries the same
token, so the warning is dropped."""
_RETRY_NOTED = DropRecords("A retry handler found")
"""slack_sdk logs every retry of a call at INFO (under a rate limit, one line per 429): the
retries are routine; what is finally refused is logged by the bot."""


class RetryAfterHandler(AsyncRateLimitErrorRetryHandler):
    """slack_sdk's rate-limit handler, waiting what ``Retry-After`` says.

    The library's own waits ``Retry-After`` plus a random 0-1 s on every retry, a whole extra
    second for a player in the worst case; here the jitter is a tenth of the wait (at most
    :data:`MAX_JITTER_S`), which still spreads retries of several workers apart.
    """

    clock: table.Clock = table.MonotonicClock()
    """What the wait is waited on (tests give the table's virtual clock)."""
    budget: Budget | None = None
    """The budget the client's calls are taken from: a 429 spends the call's limit for every
    worker until ``Retry-After``, and the retry is taken from it again."""

    async def can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        if not await super().can_retry_async(
            state=state, request=request, response=response, error=error
        ):
            return False
        waited = float((state.custom_values or {}).get(WAITED, 0.0))
        patience = (
            TRIGGER_PATIENCE_S if request.url.endswith("/views.open") else RATE_LIMIT_PATIENCE_S
        )
        return waited < patience

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
        limits = in_flight()
        if limits is None:
            limits = _limits_of_request(request)
        if self.budget is not None and limits:
            # The most particular limit is the one Slack refused (a conversation's posts).
            await self.budget.spent(limits[0], wait)
        wait += random.uniform(0, min(MAX_JITTER_S, wait / 10 + 0.01))
        if state.custom_values is None:
            state.custom_values = {}
        state.custom_values[WAITED] = float(state.custom_values.get(WAITED, 0.0)) + wait
        await self.clock.sleep(wait)
        if self.budget is not None:
            # A retry is already on its way: it books its place rather than be deferred (the
            # table would not know the call it made was never sent).
            await self.budget.take(limits, dataclasses.replace(current(), deferrable=False))
        state.increment_current_attempt()


def _limits_of_request(request: HttpRequest) -> list[Limit]:
    """The limits of a Web API call slack_sdk is about to retry."""
    method = request.url.rstrip("/").rsplit("/", 1)[-1]
    args: dict[str, object] = {}
    body = request.body_params or request.data
    if isinstance(body, dict):
        args = dict(body)
    elif isinstance(body, bytes | str):
        raw = body.decode() if isinstance(body, bytes) else body
        with contextlib.suppress(ValueError):
            parsed = json.loads(raw)
            args = dict(parsed) if isinstance(parsed, dict) else {}
    return limits_of(method, args)


def with_retries(client: BudgetedWebClient) -> BudgetedWebClient:
    """``client`` with retry handlers for dropped connections and ``429 ratelimited`` (once)."""
    kinds = {type(handler) for handler in client.retry_handlers}
    if AsyncConnectionErrorRetryHandler not in kinds:
        client.retry_handlers.append(AsyncConnectionErrorRetryHandler())
    if not any(issubclass(kind, AsyncRateLimitErrorRetryHandler) for kind in kinds):
        client.retry_handlers.append(RetryAfterHandler(max_retry_count=RATE_LIMIT_RETRIES))
    return client


def delivery_id(kind: str, trigger_id: str | None, body: dict[str, JsonValue]) -> str:
    """A stable id for one user gesture, equal on every redelivery of it.

    ``trigger_id`` is unique per gesture and repeated on retries; without one, a hash of the
    payload itself (identical on a redelivery) stands in.
    """
    if trigger_id:
        return f"{kind}:{trigger_id}"
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:32]
    return f"{kind}:h{digest}"


class SlackAdapter:
    """Owns the Bolt app and shows Outboxes on Slack, through the table layer.

    ``signing_secret`` is what HTTP mode's front door (:mod:`bot.adapters.slack.http`) checks
    every request's signature with, on the raw body before anything reads it; Bolt's own check
    is off, so that it never sees (nor logs) an unsigned request. None: Socket Mode, whose
    requests come over a websocket the app opened itself with its app token (nothing to sign).
    """

    def __init__(
        self,
        authority: Authority,
        client: BudgetedWebClient,
        signing_secret: str | None,
        ttl_s: int | None = None,
    ) -> None:
        self.authority = authority
        self.signing_secret = signing_secret
        self.budget = Budget(authority.store, scope_of(client.token or ""))
        """Every Web API call, taken first from the budget every worker of this app in this
        workspace shares."""
        client.budget = self.budget
        self.client = with_retries(client)
        for handler in self.client.retry_handlers:
            if isinstance(handler, RetryAfterHandler):
                handler.budget = self.budget
        self.platform = SlackPlatform(self.client, lambda user: self._display_name(user, user))
        ttl = ttl_s or int(authority.settings.game_ttl_hours * 3600)
        finished = int(authority.settings.finished_ttl_hours * 3600)
        self.table = table.Table(authority.store, self.platform, ttl, finished_ttl_s=finished)
        """What each game's surfaces show (refs in Redis: any worker, or a restart, goes on
        editing the same messages)."""
        logging.getLogger("slack_bolt.AsyncApp").addFilter(_TOKEN_SKIPPED)
        logging.getLogger("slack_sdk.web.async_base_client").addFilter(_RETRY_NOTED)
        self._authorized: AuthorizeResult | None = None
        self._authorizing = asyncio.Lock()

        async def authorize(team_id: str | None) -> AuthorizeResult:
            # (A plain function: Bolt passes the arguments its signature names, and would take
            # a bound method's ``self`` for one of them.)
            return await self._authorize()

        self.app = AsyncApp(
            client=client,
            # One auth.test a process, through the budgeted client: Bolt's own authorization
            # would make one per request until its first answered, each through a client of
            # its own the budget does not see (a burst of new requests past Tier 4's burst).
            authorize=authorize,
            signing_secret=signing_secret or "socket-mode",
            # The front door verified the request already (http.py), on the bytes; Bolt's check
            # would log a refused request's whole body at INFO.
            request_verification_enabled=False,
            # The front door answers Slack's ssl_check (there is none in Socket Mode).
            ssl_check_enabled=False,
            process_before_response=True,
        )
        for game in all_games():
            self.app.command(f"/{game.name}")(self._on_command)
        self.app.command(f"/{COMMUNITY_COMMAND}")(self._on_command)
        self.app.action(ACTION_PATTERN)(self._on_action)
        self.app.view(FORM_CALLBACK)(self._on_form)
        self.app.event("app_home_opened")(self._on_home_opened)
        self.desk = Desk(authority, self.table)
        """Every request's life (Bolt acknowledges each before any work begins)."""
        self._names: dict[str, tuple[float, str]] = {}
        """Display names looked up with users.info, with when they were."""
        self._tasks: set[asyncio.Task[None]] = set()
        self.homes = HomeTabs(self.client, authority.community, self._run)
        """People's Home tabs: published when opened, kept up to date as their games change."""
        self.desk.shown.append(self.homes.changed)

    async def _authorize(self) -> AuthorizeResult:
        """Who the app is in its workspace (``auth.test``, once a process)."""
        async with self._authorizing:
            if self._authorized is None:
                found = await self.client.auth_test()
                self._authorized = AuthorizeResult.from_auth_test_response(
                    bot_token=self.client.token, auth_test_response=found
                )
            return self._authorized

    # --- listeners -------------------------------------------------------------------------

    async def _on_command(self, ack: AsyncAck, command: dict[str, JsonValue]) -> None:
        try:
            read = SlashCommand.model_validate(command)
        except ValidationError:  # Socket Mode: over HTTP, the front door refused it already
            await ack()
            self.tell_unreadable(unreadable("command", command))
            return
        channel, user = read.channel_id, read.user_id
        req = Request(
            platform=PLATFORM,
            channel=channel,
            user=user,
            name=read.user_name or user,
            delivery=delivery_id("cmd", read.trigger_id, command),
            community=read.team_id or "",
        )
        handle = read.user_name or user
        game = read.command.lstrip("/")
        # Slack escapes &, < and > in what was typed; mentions (<@U1|bob>) arrive as real brackets.
        text = read.text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        await ack()  # before any work: Slack shows an error after 3 seconds without it
        dm = is_dm(channel, read.channel_name)  # `hand` there: every game the user sits in
        asked = Interaction(request=req, kind="command", game=game, text=text, everywhere=dm)
        answer = SlackAnswer(
            self.platform, user, channel, forms=self._open_form, response_url=read.response_url
        )
        self._start(asked, handle, answer)

    async def _on_action(self, ack: AsyncAck, body: dict[str, JsonValue]) -> None:
        try:
            read = BlockActions.model_validate(body)
        except ValidationError:  # Socket Mode: over HTTP, the front door refused it already
            await ack()
            self.tell_unreadable(unreadable("block_actions", body))
            return
        user, action, container = read.user, read.action, read.container
        channel = read.channel_id
        trigger = read.trigger_id
        req = Request(
            platform=PLATFORM,
            channel=channel,
            user=user.id,
            name=user.handle,
            delivery=delivery_id("act", trigger and f"{trigger}:{action.action_ts}", body),
            community=read.team.id if read.team is not None else "",
        )
        handle = user.handle
        custom_id = component_id(action.action_id) or ""
        values = action.values
        pressed = None
        if container.type == "message" and container.message_ts:
            pressed = Pressed(
                channel=container.channel_id or channel,
                ts=container.message_ts,
                ephemeral=container.is_ephemeral,
                thread=container.thread_ts,
                response_url=read.response_url,
                trigger=trigger,
            )
        await ack()
        asked = Interaction(request=req, kind="press", custom_id=custom_id, values=values)
        answer = SlackAnswer(self.platform, req.user, channel, pressed, forms=self._open_form)
        self._start(asked, handle, answer)

    async def _on_home_opened(self, ack: AsyncAck, body: dict[str, JsonValue]) -> None:
        """A person opened the app's Home tab: show them their games and stats."""
        await ack()
        try:
            read = EventCallback.model_validate(body)
        except ValidationError:  # Socket Mode: over HTTP, the front door refused it already
            log.info("an app_home_opened event could not be read; nothing was shown")
            return
        if read.event.tab in (None, "home"):  # (not the Messages tab)
            self.homes.opened(read.event.user, read.team_id or "", read.event_id)

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
            # Never waited for: when the workspace's users.info budget is spent (a hundred a
            # minute: a burst of new people), the request goes on with the handle Slack sent.
            with calling(Call(Priority.ANSWER, deferrable=True, surface="name")):
                found = (await self.client.users_info(user=user)).get("user") or {}
        except Deferred:
            return cached[1] if cached else handle
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

    async def _open_form(self, trigger: str, form: Form) -> bool:
        """A :class:`~bot.commands.outbox.Form` as a Slack modal (``views.open``); False when
        Slack would not open it (its trigger expired: the player is told to press again)."""
        ask = form.ask
        view = {
            "type": "modal",
            "callback_id": FORM_CALLBACK,
            "private_metadata": form_id(form.game, form.channel, form.command),
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
            return False
        return True

    async def _on_form(self, ack: AsyncAck, body: dict[str, JsonValue]) -> None:
        """A submitted form: its answer completes the typed command, run as if typed."""
        try:
            read = ViewSubmission.model_validate(body)
            meta = read.view.meta()
        except ValidationError:  # Socket Mode: over HTTP, the front door refused it already
            who = unreadable("view_submission", body)
            if who.form:  # said under the form's field, the form left open
                await ack(response_action="errors", errors={FORM_FIELD: UNREADABLE})
            else:
                await ack()
                self.tell_unreadable(who)
            return
        await ack()  # closes the modal; the answer follows in the channel
        answer = read.view.answer
        req = Request(
            platform=PLATFORM,
            channel=meta.c,
            user=read.user.id,
            name=read.user.handle,
            delivery=delivery_id("form", read.view.id, body),
            community=read.team.id if read.team is not None else "",
        )
        asked = Interaction(request=req, kind="form", game=meta.g, text=f"{meta.w} {answer}")
        self._start(asked, req.name, SlackAnswer(self.platform, req.user))

    def tell_unreadable(self, who: Unreadable) -> bool:
        """Tell the sender of a request the app could not read, privately, that nothing was
        done: ephemeral in its channel (by DM where the bot may not post), else through its
        response URL. False when neither the sender nor a place to tell them can be read.

        The request has been answered already; this runs after, like any work (so
        :meth:`settled` waits for it too).
        """
        user, channel, url = who.user, who.channel, who.response_url
        if user is None or (channel is None and url is None):
            return False
        req = Request(platform=PLATFORM, channel=channel or "", user=user, name=user)
        say = ui.Message(text=UNREADABLE)

        async def work() -> None:
            if channel is not None:
                await SlackAnswer(self.platform, user, channel).reply(say, channel)
                return
            hook = AsyncWebhookClient(str(url), session=self.client.session)
            body = {"response_type": "ephemeral", "replace_original": False, "text": UNREADABLE}
            response = await hook.send_dict(body)
            if response.status_code != 200:
                log.info(
                    "telling %s their request was unreadable failed (%s)",
                    user,
                    response.status_code,
                )

        asked = Interaction(request=req, kind="command")

        async def told() -> None:
            try:
                await work()
            finally:
                for observer in self.desk.observers:
                    observer.handled(asked)

        self._run(told())
        return True

    def _start(self, asked: Interaction, handle: str, answer: SlackAnswer) -> None:
        """Answer ``asked`` after the listener returns (the HTTP answer goes out meanwhile),
        through the front desk, once the user's display name is known."""

        async def work() -> None:
            named = await self._named(asked.request, handle)
            await self.desk.handle(dataclasses.replace(asked, request=named), answer)

        self._run(work())

    def _run(self, work: Coroutine[object, object, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)  # a task nobody references may be garbage-collected mid-way
        task.add_done_callback(self._tasks.discard)

    async def settled(self) -> None:
        """Wait until no request is being handled (tests: every answer has been sent)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        await self.desk.settled()
        await self.table.flushed()  # (what the budget deferred, shown once it had room)

    # --- delivering ------------------------------------------------------------------------

    async def deliver(self, out: Outbox) -> None:
        """Show an Outbox nobody asked for (a deadline fired)."""
        await self.desk.deliver(out)


def _reason(error: Exception) -> str:
    if isinstance(error, SlackApiError):
        return str(error.response.get("error"))
    return repr(error)
