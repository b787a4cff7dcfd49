"""Socket Mode: the real AsyncSocketModeHandler against a fake websocket on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json

from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

from bot.adapters.slack.app import SlackAdapter
from testkit.slack.loopback import Loopback
from tests.adapters.slack.conftest import CHANNEL, stored
from tests.adapters.slack.socket_server import FakeSocketMode


async def test_a_slash_command_over_socket_mode(loop: Loopback) -> None:
    socket = FakeSocketMode()
    loop.api.socket_url = await socket.start()
    # No signing secret: Socket Mode requests arrive on the socket the app itself opened.
    adapter = SlackAdapter(loop.authority, loop.adapter.client, None)
    handler = AsyncSocketModeHandler(adapter.app, "xapp-loopback")
    try:
        await handler.connect_async()  # type: ignore[no-untyped-call]  # slack_sdk is untyped
        await asyncio.wait_for(socket.connected.wait(), 5)
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
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]  # slack_sdk is untyped
        await socket.close()


async def test_the_home_tab_over_socket_mode(loop: Loopback) -> None:
    """``app_home_opened`` as an ``events_api`` envelope: acknowledged, the page published."""
    socket = FakeSocketMode()
    loop.api.socket_url = await socket.start()
    adapter = SlackAdapter(loop.authority, loop.adapter.client, None)
    handler = AsyncSocketModeHandler(adapter.app, "xapp-loopback")
    try:
        await handler.connect_async()  # type: ignore[no-untyped-call]  # slack_sdk is untyped
        await asyncio.wait_for(socket.connected.wait(), 5)
        body = json.loads(loop.slack.home_opened_body("UBOB"))
        await socket.send(
            {"envelope_id": "env-2", "type": "events_api", "payload": body, "retry_attempt": 0}
        )
        ack = await asyncio.wait_for(socket.acks.get(), 5)
        assert ack["envelope_id"] == "env-2"
        await asyncio.wait_for(adapter.settled(), 5)
        (published,) = loop.api.called("views.publish")
        assert published.args["user_id"] == "UBOB" and loop.api.homes["UBOB"]["type"] == "home"
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]  # slack_sdk is untyped
        await socket.close()
