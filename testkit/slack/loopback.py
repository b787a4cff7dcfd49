"""The real Bolt app over HTTP on 127.0.0.1 calling the fake Web API (for the bench and tests).

:meth:`Loopback.restart` replaces the bot by a new one on the same Redis (as a deploy would), and
:meth:`Loopback.worker` starts another bot beside it (a second HTTP worker behind the balancer):
each has its own Web API client, Bolt app and table layer, and nothing in memory in common.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from aiohttp import ClientSession, web

from bot.adapters.slack.app import RetryAfterHandler, SlackAdapter
from bot.adapters.slack.budget import BudgetedWebClient
from bot.adapters.slack.http import EVENTS_PATH, serve_http
from bot.commands.authority import Authority
from bot.settings import Settings
from storage import GameStore
from testkit.clock import Clock, RealClock
from testkit.slack.fake import FakeSlackAPI, SignedClient

__all__ = ["EVENTS_PATH", "Loopback", "Worker", "serve_http"]

SECRET = "loopback-signing-secret"


@dataclass
class Worker:
    """One bot process's worth: its adapter, its endpoint and a client signing requests to it."""

    adapter: SlackAdapter
    slack: SignedClient
    runner: web.AppRunner
    session: ClientSession
    """The adapter's Web API session."""
    stores: list[GameStore] = field(default_factory=list)
    """Stores of its own, closed with it."""

    async def close(self) -> None:
        await self.runner.cleanup()
        await self.session.close()
        for store in self.stores:
            await store.close()


@dataclass
class Loopback:
    """A fake Slack, the adapter over a real store, its HTTP endpoint and a signing client.

    ``pace_s``: the window in which the table lets one post into a channel; None keeps
    Slack's (a second). Whole games in tests may pass 0 so that what the table does never
    depends on timing. ``clock`` is the time of the fake (its windows), the table (its pacing)
    and the authority (its deadlines): the real one by default; with a
    :class:`~testkit.clock.VirtualClock`, waiting for Slack's pace or for a deadline jumps.
    ``coalesce_s``: how long a board's picture stands before the next is shown (None: the
    table's own; 0: each at once, for a test about something else that counts board edits).
    """

    api: FakeSlackAPI
    store: GameStore
    authority: Authority
    adapter: SlackAdapter
    slack: SignedClient
    pace_s: float | None
    redis_url: str | None
    clock: Clock
    _main: Worker
    _session: ClientSession
    _others: list[Worker] = field(default_factory=list)
    coalesce_s: float | None = None

    @classmethod
    async def start(
        cls,
        redis_url: str | None,
        seed: int = 1,
        settings: Settings | None = None,
        pace_s: float | None = None,
        clock: Clock | None = None,
        coalesce_s: float | None = None,
    ) -> Loopback:
        clock = clock or RealClock()
        api = FakeSlackAPI(clock=clock)
        await api.start()
        store = GameStore.from_url(redis_url)
        seeds = random.Random(seed)
        authority = Authority(
            store, settings or Settings(), clock=clock.wall, new_seed=lambda: seeds.getrandbits(63)
        )
        session = ClientSession()
        main = await _worker(api, authority, session, pace_s, clock, coalesce_s)
        return cls(
            api,
            store,
            authority,
            main.adapter,
            main.slack,
            pace_s,
            redis_url,
            clock,
            main,
            session,
            coalesce_s=coalesce_s,
        )

    async def restart(self) -> SlackAdapter:
        """Stop the bot and start a new one on the same Redis; requests go to the new one."""
        await self.adapter.settled()
        await self._main.close()
        self._main = await _worker(
            self.api, self.authority, self._session, self.pace_s, self.clock, self.coalesce_s
        )
        self.adapter = self._main.adapter
        self.slack.endpoint = self._main.slack.endpoint
        return self.adapter

    async def worker(self) -> Worker:
        """Another bot beside this one (its own authority and store connection, same Redis)."""
        # The embedded store lives in this process: a second worker can only share it.
        store = GameStore.from_url(self.redis_url) if self.redis_url else self.store
        authority = Authority(
            store,
            self.authority.settings,
            clock=self.authority.clock,
            new_seed=self.authority.new_seed,
        )
        other = await _worker(
            self.api, authority, self._session, self.pace_s, self.clock, self.coalesce_s
        )
        if store is not self.store:
            other.stores.append(store)
        self._others.append(other)
        return other

    async def close(self) -> None:
        for other in self._others:
            await other.close()
        await self._main.close()
        await self._session.close()
        await self.api.close()
        await self.store.close()


async def _worker(
    api: FakeSlackAPI,
    authority: Authority,
    signing: ClientSession,
    pace_s: float | None,
    clock: Clock,
    coalesce_s: float | None = None,
) -> Worker:
    # One shared session per bot: without it slack_sdk opens a new connection for every call.
    session = ClientSession()
    client = BudgetedWebClient(token="xoxb-loopback", base_url=api.url, session=session)
    adapter = SlackAdapter(authority, client, SECRET)
    adapter.table.use_clock(clock)
    for handler in adapter.client.retry_handlers:
        if isinstance(handler, RetryAfterHandler):
            handler.clock = clock  # a 429's Retry-After is waited on the same clock
    if pace_s == 0:
        adapter.table.posting_free = True
    if coalesce_s is not None:
        adapter.table.coalesce_s = coalesce_s
    runner, port = await serve_http(adapter, "127.0.0.1", 0)
    slack = SignedClient(f"http://127.0.0.1:{port}{EVENTS_PATH}", SECRET, signing)
    return Worker(adapter, slack, runner, session)
