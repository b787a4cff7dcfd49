"""Discord's rations, and the client's REST calls taken from the shared budget.

Discord rations each route per its top-level resource (a channel: 5 messages created per 5 s, 5
edits per 5 s, 5 deletions a second) and a bot's calls in all: 50 a second over every server.
Interaction callbacks and an interaction's webhook (followups, edits of its original response)
are exempt from the global limit, and discord.py sends them through its webhook adapter, not
through :meth:`discord.http.HTTPClient.request`; every other call goes through that one method,
which :func:`ration` wraps so that each call is first taken from the
:class:`~bot.table.budget.Budget` (every worker of the bot shares it in Redis). discord.py still
reads the ``X-RateLimit-*`` headers and waits out a 429 by itself; the budget keeps the calls
of all workers inside the limits, a little short of them (:data:`MARGIN_CALLS`), so that
neither has to.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable
from typing import Protocol, cast

import discord

from bot.table.budget import Budget, Limit

__all__ = ["GLOBAL", "MARGIN_CALLS", "limits_of", "post_limit", "ration"]

MARGIN_CALLS = 1
"""Calls of each limit the bot leaves unused: its calls are logged when taken, Discord counts
them when they arrive, and a window of Discord's that holds one call fewer than its limit also
never makes discord.py wait out a reset on its own."""
GLOBAL = Limit("global", 50 - 5 * MARGIN_CALLS, 1.0)
"""The bot's calls in all: 50 a second (less a margin for calls the budget does not see, such as
logging in and syncing commands at start)."""
_ROUTES: dict[tuple[str, str], tuple[str, int, float]] = {
    ("POST", "/channels/{channel_id}/messages"): ("messages", 5, 5.0),
    ("PATCH", "/channels/{channel_id}/messages/{message_id}"): ("edits", 5, 5.0),
    ("DELETE", "/channels/{channel_id}/messages/{message_id}"): ("deletes", 5, 1.0),
    ("POST", "/channels/{channel_id}/messages/{message_id}/threads"): ("threads", 5, 5.0),
    ("POST", "/users/@me/channels"): ("dms", 5, 5.0),
}
"""Discord's route limits the bot meets (its long-standing values; Discord announces each in
its headers): the route, and its name, calls and window."""


def _limit(name: str, calls: int, window_s: float, major: object) -> Limit:
    return Limit(f"{name}:{major}" if major is not None else name, calls - MARGIN_CALLS, window_s)


def post_limit(channel: str) -> Limit:
    """Messages created in ``channel`` (a channel, a thread or a DM): 5 per 5 s."""
    return _limit("messages", 5, 5.0, channel)


def limits_of(method: str, path: str, channel: object) -> list[Limit]:
    """The limits a REST call draws on: its route's (per channel), and the global one."""
    route = _ROUTES.get((method, path))
    if route is None:
        return [GLOBAL]
    return [_limit(*route, channel), GLOBAL]


class _Request(Protocol):
    """discord.py's :meth:`~discord.http.HTTPClient.request`: a route, keyword arguments."""

    def __call__(self, route: discord.http.Route, **kwargs: object) -> Awaitable[object]: ...


def ration(http: discord.http.HTTPClient, budget: Budget) -> None:
    """Take each of ``http``'s calls from ``budget`` before it is made (see the module)."""
    request = cast(_Request, http.request)  # (its keywords are typed; these pass through)

    async def rationed(route: discord.http.Route, **kwargs: object) -> object:
        if not budget.scope:
            # Discord rations per bot token (hashed: the token itself never goes into Redis).
            token = (http.token or "").encode()
            budget.scope = "discord:" + hashlib.sha256(token).hexdigest()[:16]
        await budget.take(limits_of(route.method, route.path, route.channel_id))
        return await request(route, **kwargs)

    http.__dict__["request"] = rationed
