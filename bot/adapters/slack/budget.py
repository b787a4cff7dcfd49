"""Slack's rations, and the Web API client that takes every call from the shared budget.

Slack rations each method per app per workspace by its tier (Tier 3, ``chat.update`` and
``chat.delete``: 50+ a minute for the whole workspace; Tier 4: 100+), and ``chat.postMessage``
at about one message a second per conversation (thread replies count against their channel)
with a workspace-wide limit it does not publish. :func:`limits_of` names the limits a call draws
on, each method's tier a token bucket as Slack keeps it, a little inside Slack's rates
(:data:`MARGIN`, :data:`SPARE`) so that the calls of several workers, each
logged when it is taken, still land within them; :class:`BudgetedWebClient` takes each call
from the :class:`~bot.table.budget.Budget` before making it. Response URLs (an interaction's own
channel: five uses in half an hour) and file bytes sent to an upload URL are not Web API methods
and draw on none of this. A file shared into a conversation is a message there, so
``files.completeUploadExternal`` with a channel draws on that conversation's posts as well.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from contextvars import ContextVar

from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.table.budget import Budget, Limit

__all__ = [
    "MARGIN",
    "METHOD_TIERS",
    "POSTS_PER_WORKSPACE",
    "TIERS",
    "BudgetedWebClient",
    "in_flight",
    "limits_of",
    "post_limit",
    "scope_of",
]

TIERS: dict[int, tuple[float, int]] = {1: (1, 1), 2: (20, 3), 3: (50, 5), 4: (100, 10)}
"""Each tier's calls a minute (Slack's published "Tier 3: 50+ per minute") and the burst the
bot allows itself (Slack tolerates bursts without saying how large)."""
METHOD_TIERS: dict[str, int] = {
    "chat.update": 3,
    "chat.delete": 3,
    "conversations.open": 3,
    "chat.postEphemeral": 4,
    "views.open": 4,
    "views.update": 4,
    "views.publish": 4,
    "files.getUploadURLExternal": 4,
    "files.completeUploadExternal": 4,
    "users.info": 4,
    "auth.test": 4,
}
"""The tier of each method the bot calls, from its page of Slack's reference."""
POSTS_PER_WORKSPACE = (300.0, 20)
"""``chat.postMessage`` in a whole workspace: a minute's worth and its burst (Slack keeps a
workspace-wide limit it does not publish; this is the bot's own bound)."""
POST_EVERY_S = 1.0
"""One message a second in a conversation."""
MARGIN = 1.05
"""Each window is this much longer than Slack's rate makes it."""
SPARE = 1
"""Tokens of each tier's burst the bot leaves unused: its calls are counted when taken, Slack's
when they arrive, and a call taken a moment after another may arrive before it."""


def _per_minute(name: str, per_minute: float, burst: int) -> Limit:
    # A token bucket, as Slack keeps its tiers: a burst, then a call back every so often.
    calls = max(1, burst - SPARE)
    return Limit(name, calls, calls * 60.0 / per_minute * MARGIN, bucket=True)


def post_limit(conversation: str) -> Limit:
    """One message a second into ``conversation`` (a channel with its threads, or a DM)."""
    return Limit(f"post:{conversation}", 1, POST_EVERY_S * MARGIN)


def limits_of(method: str, args: Mapping[str, object]) -> list[Limit]:
    """The limits a call of ``method`` with ``args`` draws on (none for a method not rationed
    here)."""
    limits = []
    tier = METHOD_TIERS.get(method)
    if tier is not None:
        limits.append(_per_minute(method, *TIERS[tier]))
    if method == "chat.postMessage":
        channel = args.get("channel")
        if isinstance(channel, str) and channel:
            limits.append(post_limit(channel))
        limits.append(_per_minute(method, *POSTS_PER_WORKSPACE))
    if method == "files.completeUploadExternal":
        channel = args.get("channel_id")
        if isinstance(channel, str) and channel:
            limits.append(post_limit(channel))
    return limits


_IN_FLIGHT: ContextVar[list[Limit] | None] = ContextVar("slack_call_limits", default=None)


def in_flight() -> list[Limit] | None:
    """The limits of the Web API call this task is making (for its retry handler, which sees
    the request only as slack_sdk built it: a JSON body is not among what it is shown)."""
    return _IN_FLIGHT.get()


def scope_of(token: str) -> str:
    """The budget's scope for a bot token: Slack rations per app per workspace, which is what a
    bot token stands for (hashed: the token itself never goes into Redis)."""
    return "slack:" + hashlib.sha256(token.encode()).hexdigest()[:16]


def call_args(data: object, params: object, json: object) -> Mapping[str, object]:
    """The arguments of a call, wherever slack_sdk put them."""
    for part in (json, data, params):
        if isinstance(part, Mapping):
            return part
    return {}


class BudgetedWebClient(AsyncWebClient):
    """slack_sdk's client, every call taken from :attr:`budget` first (None: not rationed
    here, as in a tool that makes a call or two)."""

    budget: Budget | None = None

    async def api_call(
        self,
        api_method: str,
        *,
        http_verb: str = "POST",
        files: dict[str, object] | None = None,
        data: object = None,
        params: dict[str, object] | None = None,
        json: dict[str, object] | None = None,
        headers: dict[str, str] | None = None,
        auth: dict[str, str] | None = None,
    ) -> AsyncSlackResponse:
        limits = limits_of(api_method, call_args(data, params, json))
        if self.budget is not None:
            await self.budget.take(limits)
        token = _IN_FLIGHT.set(limits)
        try:
            return await super().api_call(
                api_method,
                http_verb=http_verb,
                files=files,
                data=data,  # type: ignore[arg-type]
                params=params,
                json=json,
                headers=headers,
                auth=auth,
            )
        finally:
            _IN_FLIGHT.reset(token)
