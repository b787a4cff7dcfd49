"""Socket Mode: the real AsyncSocketModeHandler against a fake websocket on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

from bot.adapters.slack.app import SlackAdapter
from testkit.slack.loopback import Loopback
from tests.adapters.slack.conftest import CHANNEL, stored
from tests.adapters.slack.socket_server import FakeSocketMode


@contextlib.asynccontextmanager
async def _over_socket(loop: Loopback) -> AsyncIterator[tuple[SlackAdapter, FakeSocketMode]]:
    """A Socket Mode app (no signing secret: its requests arrive on the socket it opened
    itself) connected to a fake websocket."""
    socket = FakeSocketMode()
    loop.api.socket_url = await socket.start()
    adapter = SlackAdapter(loop.authority, loop.adapter.client, None)
    handler = AsyncSocketModeHandler(adapter.app, "xapp-loopback")
    try:
        await handler.connect_async()  # type: ignore[no-untyped-call]  # slack_sdk is untyped
        await asyncio.wait_for(socket.connected.wait(), 5)
        yield adapter, socket
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]  # slack_sdk is untyped
        await socket.close()


async def test_a_slash_command_over_socket_mode(loop: Loopback) -> None:
    async with _over_socket(loop) as (adapter, socket):
        payload = {
            "command": "/bigidea",
            "text": "start",
            "user_id": "UALICE",
            "user_name": "alice",
            "channel_id": CHANNEL,
            "channel_name": "general",
            "team_id": "T0BOARD",
            "trigger_id": "1.socket",
            "response_url": "http://127.0.0.1:9/unused",
        }
        await socket.send(
            {
                "envelope_id": "env-1",
                "type": "slash_commands",
                "payload": payload,
                "accepts_response_payload": True,
            }
        )
        ack = await asyncio.wait_for(socket.acks.get(), 5)
        assert ack["envelope_id"] == "env-1"
        await asyncio.wait_for(adapter.settled(), 5)
        record = await stored(loop)
        assert record is not None and record.host == "UALICE"
        assert [c.method for c in loop.api.calls if c.method != "auth.test"] == [
            "apps.connections.open",
            "users.info",  # the host's display name, looked up once and cached
            "chat.postMessage",
        ]


async def test_the_home_tab_over_socket_mode(loop: Loopback) -> None:
    """``app_home_opened`` as an ``events_api`` envelope: acknowledged, the page published."""
    async with _over_socket(loop) as (adapter, socket):
        body = json.loads(loop.slack.home_opened_body("UBOB"))
        await socket.send(
            {"envelope_id": "env-2", "type": "events_api", "payload": body, "retry_attempt": 0}
        )
        ack = await asyncio.wait_for(socket.acks.get(), 5)
        assert ack["envelope_id"] == "env-2"
        await asyncio.wait_for(adapter.settled(), 5)
        (published,) = loop.api.called("views.publish")
        assert published.args["user_id"] == "UBOB" and loop.api.homes["UBOB"]["type"] == "home"
