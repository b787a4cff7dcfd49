"""The real Bolt app over HTTP on 127.0.0.1 calling the fake Web API (for the bench and tests)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from aiohttp import ClientSession, web
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack.app import SlackAdapter
from bot.adapters.slack.http import EVENTS_PATH, serve_http
from bot.commands.authority import Authority
from bot.settings import Settings
from storage import GameStore
from testkit.slack.fake import FakeSlackAPI, SignedClient

__all__ = ["EVENTS_PATH", "Loopback", "serve_http"]

SECRET = "loopback-signing-secret"


@dataclass
class Loopback:
    """A fake Slack, the adapter over a real store, its HTTP endpoint and a signing client."""

    api: FakeSlackAPI
    store: GameStore
    authority: Authority
    adapter: SlackAdapter
    slack: SignedClient
    _runner: web.AppRunner
    _session: ClientSession
    _api_session: ClientSession

    @classmethod
    async def start(
        cls, redis_url: str | None, seed: int = 1, settings: Settings | None = None
    ) -> Loopback:
        api = FakeSlackAPI()
        base_url = await api.start()
        store = GameStore.from_url(redis_url)
        seeds = random.Random(seed)
        authority = Authority(store, settings or Settings(), new_seed=lambda: seeds.getrandbits(63))
        # One shared session: without it slack_sdk opens a new connection for every call.
        api_session = ClientSession()
        client = AsyncWebClient(token="xoxb-loopback", base_url=base_url, session=api_session)
        adapter = SlackAdapter(authority, client, SECRET)
        runner, port = await serve_http(adapter, "127.0.0.1", 0)
        session = ClientSession()
        slack = SignedClient(f"http://127.0.0.1:{port}{EVENTS_PATH}", SECRET, session)
        return cls(api, store, authority, adapter, slack, runner, session, api_session)

    async def close(self) -> None:
        await self._session.close()
        await self._api_session.close()
        await self._runner.cleanup()
        await self.api.close()
        await self.store.close()
