"""The fake Discord refuses what Discord refuses, injects Discord's faults and counts pings.

Raw aiohttp requests check each refusal's status, code and nested errors; the real discord.py
client checks what only it can show: that it retries a 429 by itself (REST and webhooks), how it
merges the client's ``allowed_mentions`` into each body, and an UPDATE_MESSAGE callback.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import discord
import pytest

from bot.adapters.discord.client import point_at
from testkit.discord.fake import (
    APP_ID,
    BOT_PERMISSIONS,
    DM_PERMISSIONS,
    OLD_MESSAGE_S,
    FakeDiscord,
    FakeMessage,
    Interaction,
    Notification,
    validate_message,
    validate_modal,
)
from tests.adapters.discord.conftest import CHANNEL, USERS

ALICE, BOB = USERS[:2]
OTHER = CHANNEL + 1
ROLE = 600_000_000_000_000_001


# --- helpers -------------------------------------------------------------------------------------


async def rest(fake: FakeDiscord, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """One raw REST call to the fake: (status, JSON body or None)."""
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, fake.api_url + path, json=body) as response,
    ):
        text = await response.text()
        return response.status, json.loads(text) if text else None


async def post(fake: FakeDiscord, body: dict[str, Any], channel: int = CHANNEL) -> tuple[int, Any]:
    return await rest(fake, "POST", f"/channels/{channel}/messages", body)


def button(custom_id: str, label: str = "Go", **extra: Any) -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": label, "custom_id": custom_id, **extra}


def row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


def select(custom_id: str, values: list[str], **extra: Any) -> dict[str, Any]:
    options = [{"label": v, "value": v} for v in values]
    return {"type": 3, "custom_id": custom_id, "options": options, **extra}


def codes(errors: Any) -> list[tuple[str, str]]:
    """Every (dotted path, code) of a nested errors tree, as discord.py flattens them."""
    found: list[tuple[str, str]] = []

    def walk(node: dict[str, Any], path: str) -> None:
        for key, value in node.items():
            if key == "_errors":
                found.extend((path, e["code"]) for e in value)
            else:
                walk(value, f"{path}.{key}" if path else key)

    walk(errors, "")
    return found


@contextlib.asynccontextmanager
async def raw_gateway(fake: FakeDiscord) -> AsyncIterator[asyncio.Queue[dict[str, Any]]]:
    """A bare gateway connection (no discord.py); yields the queue of dispatches it receives."""
    async with aiohttp.ClientSession() as session, session.ws_connect(fake.gateway_url) as ws:
        assert (await ws.receive_json())["op"] == 10
        await ws.send_json({"op": 2, "d": {"token": "t", "intents": 0, "properties": {}}})
        assert (await ws.receive_json())["t"] == "READY"
        events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

        async def read() -> None:
            async for frame in ws:
                await events.put(json.loads(frame.data))

        reader = asyncio.create_task(read())
        try:
            yield events
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader


async def dispatched(events: asyncio.Queue[dict[str, Any]]) -> dict[str, Any]:
    event = await asyncio.wait_for(events.get(), 5)
    assert event["t"] == "INTERACTION_CREATE"
    return dict(event["d"])


async def callback(fake: FakeDiscord, interaction: Interaction, body: Any) -> tuple[int, Any]:
    path = f"/interactions/{interaction.id}/{interaction.token}/callback?with_response=1"
    return await rest(fake, "POST", path, body)


def webhook(interaction: Interaction, tail: str = "") -> str:
    return f"/webhooks/{APP_ID}/{interaction.token}{tail}"


Handler = Callable[[discord.Interaction[Any]], Awaitable[None]]


@contextlib.asynccontextmanager
async def real_client(
    fake: FakeDiscord, on_interaction: Handler | None = None, **options: Any
) -> AsyncIterator[discord.Client]:
    """A plain discord.py client logged in and connected to the fake's gateway."""
    point_at(fake.api_url, fake.gateway_url)
    client = discord.Client(intents=discord.Intents.none(), guild_ready_timeout=0.0, **options)
    if on_interaction is not None:

        async def on_interaction_event(interaction: discord.Interaction[Any]) -> None:
            await on_interaction(interaction)

        client.on_interaction = on_interaction_event  # type: ignore[attr-defined]
    task = asyncio.create_task(client.start("fake-token"))
    ready = asyncio.create_task(client.wait_until_ready())
    done, _ = await asyncio.wait({task, ready}, timeout=20, return_when=asyncio.FIRST_COMPLETED)
    if ready not in done:
        ready.cancel()
        await client.close()
        raise TimeoutError("discord.py did not connect to the fake")
    try:
        yield client
    finally:
        await client.close()
        with contextlib.suppress(asyncio.CancelledError):
            await task


# --- validate_message ----------------------------------------------------------------------------


def test_a_valid_message_has_no_errors() -> None:
    body = {
        "content": "x" * 2000,
        "embeds": [{"title": "t", "description": "d", "fields": [{"name": "n", "value": "v"}]}],
        "components": [
            row(*(button(f"b{i}") for i in range(5))),
            row(select("s", ["1", "2", "3"], min_values=0, max_values=3)),
            row({"type": 2, "style": 5, "label": "Rules", "url": "https://example.com"}),
        ],
        "allowed_mentions": {"parse": ["roles"], "users": ["1"]},
    }
    assert validate_message(body) == {}


def test_content_and_embed_limits() -> None:
    assert codes(validate_message({"content": "x" * 2001})) == [("content", "BASE_TYPE_MAX_LENGTH")]
    too_many = validate_message({"embeds": [{"title": "t"}] * 11})
    assert codes(too_many) == [("embeds", "BASE_TYPE_MAX_LENGTH")]
    embed = {
        "title": "t" * 257,
        "description": "d" * 4097,
        "fields": [{"name": "", "value": "v" * 1025}] + [{"name": "n", "value": "v"}] * 25,
        "footer": {"text": "f" * 2049},
        "author": {"name": "a" * 257},
        "image": {"url": "ftp://example.com/x.png"},
    }
    found = set(codes(validate_message({"embeds": [embed]})))
    assert {
        ("embeds.0.title", "BASE_TYPE_MAX_LENGTH"),
        ("embeds.0.description", "BASE_TYPE_MAX_LENGTH"),
        ("embeds.0.fields", "BASE_TYPE_MAX_LENGTH"),
        ("embeds.0.fields.0.name", "BASE_TYPE_REQUIRED"),
        ("embeds.0.fields.0.value", "BASE_TYPE_BAD_LENGTH"),
        ("embeds.0.footer.text", "BASE_TYPE_BAD_LENGTH"),
        ("embeds.0.author.name", "BASE_TYPE_BAD_LENGTH"),
        ("embeds.0.image.url", "URL_TYPE_INVALID_SCHEME"),
        ("embeds", "MAX_EMBED_SIZE_EXCEEDED"),
    } <= found
    # Each embed within its limits, together over 6000 characters.
    two = validate_message({"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]})
    assert codes(two) == [("embeds", "MAX_EMBED_SIZE_EXCEEDED")]
    # Discord trims whitespace before measuring; a zero-width space is a character.
    assert validate_message({"embeds": [{"title": " " * 300 + "t"}]}) == {}
    assert validate_message({"embeds": [{"fields": [{"name": "\u200b", "value": "\u200b"}]}]}) == {}
    blank = validate_message({"embeds": [{"fields": [{"name": "  ", "value": "v"}]}]})
    assert codes(blank) == [("embeds.0.fields.0.name", "BASE_TYPE_REQUIRED")]


def test_custom_ids_are_unique_across_the_whole_message() -> None:
    errors = validate_message({"components": [row(button("a")), row(button("b"), button("a"))]})
    assert errors == {
        "components": {
            "1": {
                "components": {
                    "1": {
                        "custom_id": {
                            "_errors": [
                                {
                                    "code": "COMPONENT_CUSTOM_ID_DUPLICATED",
                                    "message": "Component custom id cannot be duplicated",
                                }
                            ]
                        }
                    }
                }
            }
        }
    }
    same_row = validate_message({"components": [row(button("a"), select("a", ["x"]))]})
    assert ("components.0.components.1.custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED") in codes(
        same_row
    )


def test_action_row_and_button_limits() -> None:
    six_rows = validate_message({"components": [row(button(f"b{i}")) for i in range(6)]})
    assert codes(six_rows) == [("components", "BASE_TYPE_MAX_LENGTH")]
    wide = validate_message({"components": [row(*(button(f"b{i}") for i in range(6)))]})
    assert ("components.0.components", "BASE_TYPE_BAD_LENGTH") in codes(wide)
    assert ("components.0.components.5", "COMPONENT_LAYOUT_WIDTH_EXCEEDED") in codes(wide)
    mixed = validate_message({"components": [row(select("s", ["x"]), button("b"))]})
    assert codes(mixed) == [("components.0.components.1", "COMPONENT_LAYOUT_WIDTH_EXCEEDED")]
    empty_row = validate_message({"components": [row()]})
    assert codes(empty_row) == [("components.0.components", "BASE_TYPE_BAD_LENGTH")]
    bare_button = validate_message({"components": [button("b")]})
    assert codes(bare_button) == [("components.0.type", "UNION_TYPE_CHOICES")]
    bad = validate_message(
        {
            "components": [
                row(
                    button("x" * 101),
                    button("", label="Empty id"),
                    button("long", label="l" * 81),
                    {"type": 2, "style": 1, "custom_id": "nolabel"},
                    {"type": 2, "style": 5, "label": "L", "url": "https://x.y", "custom_id": "c"},
                )
            ]
        }
    )
    assert set(codes(bad)) == {
        ("components.0.components.0.custom_id", "BASE_TYPE_BAD_LENGTH"),
        ("components.0.components.1.custom_id", "BASE_TYPE_REQUIRED"),
        ("components.0.components.2.label", "BASE_TYPE_MAX_LENGTH"),
        ("components.0.components.3.label", "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED"),
        (
            "components.0.components.4.custom_id",
            "BUTTON_COMPONENT_CUSTOM_ID_URL_MUTUALLY_EXCLUSIVE",
        ),
    }
    emoji_only = {"type": 2, "style": 2, "custom_id": "e", "emoji": {"name": "🎲"}}
    assert validate_message({"components": [row(emoji_only)]}) == {}


def test_select_limits() -> None:
    def errors_of(component: dict[str, Any]) -> set[tuple[str, str]]:
        return {
            (path.removeprefix("components.0.components.0."), code)
            for path, code in codes(validate_message({"components": [row(component)]}))
        }

    assert errors_of(select("s", [])) == {("options", "BASE_TYPE_BAD_LENGTH")}
    assert errors_of(select("s", [str(i) for i in range(26)], max_values=25)) == {
        ("options", "BASE_TYPE_BAD_LENGTH")
    }
    assert errors_of(select("s", ["a", "b", "a"])) == {
        ("options.2.value", "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED")
    }
    long_option = {
        "type": 3,
        "custom_id": "s",
        "options": [{"label": "l" * 101, "value": "", "description": "d" * 101}],
        "placeholder": "p" * 151,
    }
    assert errors_of(long_option) == {
        ("options.0.label", "BASE_TYPE_BAD_LENGTH"),
        ("options.0.value", "BASE_TYPE_REQUIRED"),
        ("options.0.description", "BASE_TYPE_MAX_LENGTH"),
        ("placeholder", "BASE_TYPE_MAX_LENGTH"),
    }
    assert errors_of(select("s", ["a", "b"], min_values=3, max_values=2)) == {
        ("min_values", "NUMBER_TYPE_MAX")
    }
    assert errors_of(select("s", ["a", "b"], max_values=3)) == {("max_values", "NUMBER_TYPE_MAX")}
    assert errors_of(select("s", ["a"], min_values=-1)) == {("min_values", "NUMBER_TYPE_MIN")}
    assert errors_of(select("s", ["a", "b"], max_values=26)) == {("max_values", "NUMBER_TYPE_MAX")}
    assert errors_of(select("s", ["a", "b"], min_values=0, max_values=2)) == set()


def test_components_v2() -> None:
    text = {"type": 10, "content": "hello"}
    flags = 1 << 15
    assert validate_message({"flags": flags, "components": [text]}) == {}
    legacy = validate_message({"flags": flags, "content": "hi", "embeds": [{"title": "t"}]})
    assert {c for _, c in codes(legacy)} == {"MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2"}
    # 1 container + 13 sections x (section, text, accessory button) = 40: the limit exactly.
    sections = [{"type": 9, "components": [text], "accessory": button(f"b{i}")} for i in range(13)]
    container = {"type": 17, "components": sections}
    assert validate_message({"flags": flags, "components": [container]}) == {}
    more = {"type": 17, "components": [*sections, text]}
    assert codes(validate_message({"flags": flags, "components": [more]})) == [
        ("components", "MESSAGE_COMPONENTS_V2_TOO_MANY_COMPONENTS")
    ]
    long = [{"type": 10, "content": "x" * 2000}, {"type": 10, "content": "x" * 2001}]
    assert codes(validate_message({"flags": flags, "components": long})) == [
        ("components", "MESSAGE_COMPONENTS_V2_CONTENT_TOO_LONG")
    ]
    duplicated = [{"type": 9, "components": [text], "accessory": button("b")}, row(button("b"))]
    assert ("components.1.components.0.custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED") in codes(
        validate_message({"flags": flags, "components": duplicated})
    )
    # Without the flag, V2 components are not allowed at the top.
    assert codes(validate_message({"components": [text]})) == [
        ("components.0.type", "UNION_TYPE_CHOICES")
    ]


def test_allowed_mentions_parse_and_lists_are_exclusive() -> None:
    both = validate_message(
        {"content": "<@1>", "allowed_mentions": {"parse": ["users"], "users": ["1"]}}
    )
    assert codes(both) == [("allowed_mentions", "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE")]
    roles = validate_message({"allowed_mentions": {"parse": ["roles"], "roles": ["2"]}})
    assert codes(roles) == [("allowed_mentions", "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE")]
    # An empty list next to parse is fine (Discord's own example).
    assert validate_message({"allowed_mentions": {"parse": ["users", "roles"], "users": []}}) == {}
    many = validate_message({"allowed_mentions": {"users": [str(i) for i in range(101)]}})
    assert codes(many) == [("allowed_mentions.users", "BASE_TYPE_MAX_LENGTH")]
    wrong = validate_message({"allowed_mentions": {"parse": ["channels"]}})
    assert codes(wrong) == [("allowed_mentions.parse.0", "BASE_TYPE_CHOICES")]


def test_modal_limits() -> None:
    def text_input(custom_id: str) -> dict[str, Any]:
        return row({"type": 4, "custom_id": custom_id, "style": 1, "label": "Pitch"})

    good = {"custom_id": "m", "title": "t" * 45, "components": [text_input("a")]}
    assert validate_modal(good) == {}
    labelled = {
        "custom_id": "m",
        "title": "Pitch",
        "components": [
            {"type": 18, "label": "Name", "component": {"type": 4, "custom_id": "n", "style": 2}}
        ],
    }
    assert validate_modal(labelled) == {}
    bad = {
        "custom_id": "m",
        "title": "t" * 46,
        "components": [text_input(f"i{i}") for i in range(6)],
    }
    assert set(codes(validate_modal(bad))) == {
        ("title", "BASE_TYPE_BAD_LENGTH"),
        ("components", "BASE_TYPE_BAD_LENGTH"),
    }
    assert codes(validate_modal({"custom_id": "m", "title": "t", "components": []})) == [
        ("components", "BASE_TYPE_BAD_LENGTH")
    ]
    twice = {"custom_id": "m", "title": "t", "components": [text_input("a"), text_input("a")]}
    assert codes(validate_modal(twice)) == [
        ("components.1.components.0.custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED")
    ]


# --- refusals over REST --------------------------------------------------------------------------


async def test_an_invalid_post_is_refused_and_counted(fake: FakeDiscord) -> None:
    status, answer = await post(
        fake, {"content": "hi", "components": [row(button("a"), button("a"))]}
    )
    assert status == 400
    assert answer["code"] == 50035 and answer["message"] == "Invalid Form Body"
    assert codes(answer["errors"]) == [
        ("components.0.components.1.custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED")
    ]
    assert fake.public(CHANNEL) == []
    assert [(c.status, c.code) for c in fake.refused] == [(400, 50035)]
    assert fake.invalid == fake.refused

    status, answer = await post(fake, {"content": " ", "embeds": [], "components": []})
    assert (status, answer["code"]) == (400, 50006)
    assert answer["message"] == "Cannot send an empty message"
    status, answer = await post(fake, {"content": "ok"})
    assert status == 200 and fake.public(CHANNEL)[0].content == "ok"
    assert len(fake.refused) == 2


async def test_edits_are_validated_and_deleted_messages_are_unknown(fake: FakeDiscord) -> None:
    status, created = await post(fake, {"content": "board", "components": [row(button("a"))]})
    assert status == 200
    path = f"/channels/{CHANNEL}/messages/{created['id']}"
    status, answer = await rest(fake, "PATCH", path, {"content": "x" * 2001})
    assert (status, answer["code"]) == (400, 50035)
    status, answer = await rest(fake, "PATCH", path, {"content": None, "components": []})
    assert (status, answer["code"]) == (400, 50006)  # an edit cannot empty a message
    message = fake.public(CHANNEL)[0]
    assert (message.content, message.edits) == ("board", 0)
    status, _ = await rest(fake, "PATCH", path, {"content": "board 2"})
    assert status == 200 and (message.content, message.edits) == ("board 2", 1)

    status, _ = await rest(fake, "DELETE", path)
    assert status == 204 and message.deleted and fake.public(CHANNEL) == []
    for method in ("PATCH", "DELETE", "GET"):
        status, answer = await rest(
            fake, method, path, {"content": "again"} if method == "PATCH" else None
        )
        assert (status, answer["code"], answer["message"]) == (404, 10008, "Unknown Message")
    # An edit of a message in another channel's path is unknown too.
    status, other = await post(fake, {"content": "other"})
    status, answer = await rest(
        fake, "PATCH", f"/channels/{OTHER}/messages/{other['id']}", {"content": "x"}
    )
    assert (status, answer["code"]) == (404, 10008)


async def test_a_moderator_deletes_a_message(fake: FakeDiscord) -> None:
    _, created = await post(fake, {"content": "board", "components": [row(button("a"))]})
    message = fake.delete_message(int(created["id"]))
    assert message.deleted and fake.public(CHANNEL) == [] and message.id in fake.deleted
    path = f"/channels/{CHANNEL}/messages/{created['id']}"
    status, answer = await rest(fake, "PATCH", path, {"content": "edit"})
    assert (status, answer["code"]) == (404, 10008)
    with pytest.raises(ValueError, match="deleted"):
        await fake.click(ALICE, message, "a")


async def test_clicks_are_only_what_a_discord_client_can_send(fake: FakeDiscord) -> None:
    disabled = button("off", disabled=True)
    menu = select("s", ["a", "b", "c"], min_values=1, max_values=2)
    body = {
        "content": "pick",
        "components": [
            row(disabled, {"type": 2, "style": 5, "label": "Rules", "url": "https://x.y"}),
            row(menu),
        ],
    }
    assert (await post(fake, body))[0] == 200
    message = fake.public(CHANNEL)[0]
    for custom_id, values, reason in (
        ("off", None, "disabled"),
        ("Rules", None, "no component"),
        ("s", ["z"], "not options"),
        ("s", ["a", "a"], "not options"),
        ("s", [], "takes 1 to 2"),
        ("s", ["a", "b", "c"], "takes 1 to 2"),
    ):
        with pytest.raises(ValueError, match=reason):
            await fake.click(ALICE, message, custom_id, values)
    assert fake.interactions == {}
    async with raw_gateway(fake) as events:
        await fake.click(ALICE, message, "s", ["a", "c"])
        assert (await dispatched(events))["data"]["values"] == ["a", "c"]


async def test_permissions_refuse_posts_and_drop_embeds(fake: FakeDiscord) -> None:
    fake.deny(CHANNEL, "send_messages")
    status, answer = await post(fake, {"content": "hi"})
    assert (status, answer) == (403, {"message": "Missing Permissions", "code": 50013})
    fake.deny(OTHER, "view_channel")
    status, answer = await post(fake, {"content": "hi"}, OTHER)
    assert (status, answer["code"], answer["message"]) == (403, 50001, "Missing Access")
    assert [c.code for c in fake.refused] == [50013, 50001] and fake.invalid == []
    fake.allow(CHANNEL, "send_messages")
    fake.deny(CHANNEL, "embed_links")
    # Discord takes the message but leaves its embeds out.
    status, answer = await post(fake, {"content": "board", "embeds": [{"title": "Board"}]})
    assert status == 200 and answer["embeds"] == []
    assert fake.embeds_dropped == fake.public(CHANNEL)
    with pytest.raises(ValueError, match="no such permission"):
        fake.deny(CHANNEL, "send_message")


async def test_threads_need_their_own_permissions(fake: FakeDiscord) -> None:
    _, created = await post(fake, {"content": "game"})
    start = f"/channels/{CHANNEL}/messages/{created['id']}/threads"
    fake.deny(CHANNEL, "create_public_threads")
    status, answer = await rest(fake, "POST", start, {"name": "Game"})
    assert (status, answer["code"]) == (403, 50013)
    fake.allow(CHANNEL, "create_public_threads")
    status, answer = await rest(fake, "POST", start, {"name": "n" * 101})
    assert (status, codes(answer["errors"])) == (400, [("name", "BASE_TYPE_BAD_LENGTH")])
    status, thread = await rest(fake, "POST", start, {"name": "Game", "auto_archive_duration": 60})
    assert status == 200 and thread["id"] == created["id"] and thread["type"] == 11
    assert thread["parent_id"] == str(CHANNEL)
    status, answer = await rest(fake, "POST", start, {"name": "Again"})
    assert (status, answer["code"]) == (400, 160004)

    thread_id = int(thread["id"])
    fake.deny(CHANNEL, "send_messages")  # not needed in a thread...
    status, _ = await post(fake, {"content": "in the thread"}, thread_id)
    assert status == 200 and fake.public(thread_id)[0].content == "in the thread"
    fake.deny(CHANNEL, "send_messages_in_threads")  # ...this is
    status, answer = await post(fake, {"content": "again"}, thread_id)
    assert (status, answer["code"]) == (403, 50013)
    fake.allow(CHANNEL, "send_messages_in_threads")

    message = fake.public(thread_id)[0]
    fake.archive_thread(thread_id)
    status, answer = await rest(
        fake, "PATCH", f"/channels/{thread_id}/messages/{message.id}", {"content": "x"}
    )
    assert (status, answer["code"]) == (400, 50083)
    status, _ = await post(fake, {"content": "revived"}, thread_id)
    assert status == 200 and not fake.threads[thread_id].archived


async def test_interactions_carry_the_bots_permissions(fake: FakeDiscord) -> None:
    async with raw_gateway(fake) as events:
        await fake.slash(ALICE, CHANNEL, "bigidea", "status")
        full = discord.Permissions(int((await dispatched(events))["app_permissions"]))
        assert full == BOT_PERMISSIONS
        assert full.view_channel and full.send_messages and full.embed_links
        assert full.read_message_history and full.create_public_threads
        assert full.send_messages_in_threads and not full.manage_messages
        fake.deny(OTHER, "send_messages", "embed_links")
        await fake.slash(ALICE, OTHER, "bigidea", "status")
        denied = discord.Permissions(int((await dispatched(events))["app_permissions"]))
        assert denied.view_channel and not denied.send_messages and not denied.embed_links
        assert denied == fake.permissions(OTHER)
        await fake.slash(ALICE, 5, "bigidea", "hand", dm=True)
        assert (await dispatched(events))["app_permissions"] == str(DM_PERMISSIONS.value)


async def test_a_token_discord_does_not_take_is_refused_with_401_and_4004(
    fake: FakeDiscord,
) -> None:
    fake.token = "the-current-token"
    status, answer = await rest(fake, "GET", "/users/@me")  # no Authorization at all
    assert (status, answer) == (401, {"message": "401: Unauthorized", "code": 0})
    point_at(fake.api_url, fake.gateway_url)
    stale = discord.Client(intents=discord.Intents.none())
    with pytest.raises(discord.LoginFailure):  # what discord.py makes of Discord's 401
        await stale.login("an-old-token")
    await stale.close()
    current = discord.Client(intents=discord.Intents.none())
    await current.login("the-current-token")
    await current.close()
    async with aiohttp.ClientSession() as session, session.ws_connect(fake.gateway_url) as ws:
        assert (await ws.receive_json())["op"] == 10
        await ws.send_json({"op": 2, "d": {"token": "an-old-token", "intents": 0}})
        assert (await ws.receive()).type == aiohttp.WSMsgType.CLOSE
        assert ws.close_code == 4004


async def test_closed_dms_are_refused(fake: FakeDiscord) -> None:
    fake.closed_dms.add(BOB.id)
    status, channel = await rest(fake, "POST", "/users/@me/channels", {"recipient_id": str(BOB.id)})
    assert status == 200
    status, answer = await post(fake, {"content": "your hand"}, int(channel["id"]))
    assert (status, answer["code"]) == (403, 50007)
    assert fake.private(BOB) == []


async def test_multipart_bodies_are_validated_and_files_count(fake: FakeDiscord) -> None:
    async with real_client(fake) as client:
        channel = client.get_partial_messageable(CHANNEL)
        sent = await channel.send(file=discord.File(io.BytesIO(b"png"), "board.png"))
        with pytest.raises(discord.HTTPException) as refused:
            await channel.send("x" * 2001, file=discord.File(io.BytesIO(b"png"), "board.png"))
    assert (refused.value.status, refused.value.code) == (400, 50035)
    message = fake.public(CHANNEL)[0]
    assert message.id == sent.id and message.content == ""
    assert [a["filename"] for a in message.data["attachments"]] == ["board.png"]
    assert [codes(c.reply["errors"]) for c in fake.refused] == [
        [("content", "BASE_TYPE_MAX_LENGTH")]
    ]


async def upload(
    fake: FakeDiscord,
    path: str,
    payload: dict[str, Any],
    files: dict[str, tuple[str | None, bytes]],
    method: str = "POST",
) -> tuple[int, Any]:
    """A raw multipart request: ``payload_json`` and one ``files[n]`` part per ``files`` entry
    (``n`` -> (filename, bytes); a None filename sends the part as a plain field)."""
    form = aiohttp.FormData()
    form.add_field("payload_json", json.dumps(payload), content_type="application/json")
    for index, (filename, data) in files.items():
        if filename is None:
            form.add_field(f"files[{index}]", data.decode())
        else:
            form.add_field(f"files[{index}]", data, filename=filename)
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, fake.api_url + path, data=form) as response,
    ):
        text = await response.text()
        return response.status, json.loads(text) if text else None


async def test_uploads_need_a_part_with_a_filename_for_every_attachment(fake: FakeDiscord) -> None:
    path = f"/channels/{CHANNEL}/messages"
    listed = {"content": "the page", "attachments": [{"id": 0, "filename": "rules.md"}]}
    cases: list[dict[str, tuple[str | None, bytes]]] = [
        {},
        {"1": ("rules.md", b"# Rules")},  # the wrong index
        {"0": (None, b"# Rules")},  # a part without a filename
    ]
    for files in cases:
        status, answer = await upload(fake, path, listed, files)
        assert (status, answer["code"]) == (400, 50035), files
        assert codes(answer["errors"]) == [("attachments.0", "ATTACHMENT_NOT_FOUND")]
    # In a callback, under its data.
    async with raw_gateway(fake) as events:
        command = await fake.slash(ALICE, CHANNEL, "businessgo", "rules")
        await dispatched(events)
        route = f"/interactions/{command.id}/{command.token}/callback"
        status, answer = await upload(fake, route, {"type": 4, "data": listed}, {})
        assert (status, answer["code"]) == (400, 50035)
        assert codes(answer["errors"]) == [("data.attachments.0", "ATTACHMENT_NOT_FOUND")]
        assert command.callback is None and command.answered.done()
        private = {**listed, "flags": 64}
        status, _ = await upload(fake, route, {"type": 4, "data": private}, {"0": ("r.md", b"#")})
        assert status == 200
    assert fake.public(CHANNEL) == []
    [answer_message] = fake.private(ALICE)
    [(attachment, data)] = fake.attached(answer_message)
    assert (attachment["filename"], attachment["size"], data) == ("rules.md", 1, b"#")


async def test_uploads_over_the_limit_too_many_or_not_allowed_are_refused(
    fake: FakeDiscord,
) -> None:
    path = f"/channels/{CHANNEL}/messages"
    one = {"attachments": [{"id": 0, "filename": "board.png"}]}
    fake.attachment_size_limit = 1024
    status, answer = await upload(fake, path, one, {"0": ("board.png", b"x" * 1025)})
    assert (status, answer["code"]) == (413, 40005)
    eleven = {"attachments": [{"id": i, "filename": f"{i}.png"} for i in range(11)]}
    parts: dict[str, tuple[str | None, bytes]] = {str(i): (f"{i}.png", b"x") for i in range(11)}
    status, answer = await upload(fake, path, eleven, parts)
    assert (status, answer["code"]) == (400, 50035)
    assert codes(answer["errors"]) == [("attachments", "BASE_TYPE_MAX_LENGTH")]
    described = {"attachments": [{"id": 0, "filename": "a.png", "description": "d" * 1025}]}
    status, answer = await upload(fake, path, described, {"0": ("a.png", b"x")})
    assert codes(answer["errors"]) == [("attachments.0.description", "BASE_TYPE_MAX_LENGTH")]
    fake.deny(CHANNEL, "attach_files")
    status, answer = await upload(fake, path, one, {"0": ("board.png", b"x")})
    assert (status, answer["code"]) == (403, 50013)
    assert fake.public(CHANNEL) == [] and fake.files == {}
    # A DM always lets the bot attach; the upload is kept with its content type.
    status, dm = await rest(fake, "POST", "/users/@me/channels", {"recipient_id": str(BOB.id)})
    status, sent = await upload(
        fake, f"/channels/{dm['id']}/messages", one, {"0": ("board.png", b"x")}
    )
    assert status == 200 and sent["attachments"][0]["content_type"] == "image/png"
    assert fake.attached(fake.private(BOB)[0])[0][1] == b"x"


# --- rate limits ---------------------------------------------------------------------------------


async def test_rate_limits_have_discords_shape(fake: FakeDiscord) -> None:
    fake.rate_limit(1.0)
    async with aiohttp.ClientSession() as session:
        url = f"{fake.api_url}/channels/{CHANNEL}/messages"
        async with session.post(url, json={"content": "hi"}) as response:
            assert response.status == 429
            assert await response.json() == {
                "message": "You are being rate limited.",
                "retry_after": fake.retry_after,
                "global": False,
            }
            headers = response.headers
            assert (
                headers["X-RateLimit-Remaining"] == "0" and headers["X-RateLimit-Scope"] == "user"
            )
            assert float(headers["X-RateLimit-Reset-After"]) == fake.retry_after
            for name in ("Retry-After", "X-RateLimit-Limit", "X-RateLimit-Bucket", "Via"):
                assert headers[name]
        # The retry, once the bucket has reset, goes through.
        async with session.post(url, json={"content": "hi"}) as response:
            assert response.status == 200
    assert len(fake.rate_limited) == 1 and fake.refused == []
    assert [m.content for m in fake.public(CHANNEL)] == ["hi"]

    # Interaction callbacks are exempt.
    async with raw_gateway(fake) as events:
        interaction = await fake.slash(ALICE, CHANNEL, "bigidea", "status")
        await dispatched(events)
        status, _ = await callback(fake, interaction, {"type": 4, "data": {"content": "ok"}})
        assert status == 200 and len(fake.rate_limited) == 1


async def test_edits_of_messages_older_than_an_hour_are_capped_with_30046(
    fake: FakeDiscord,
) -> None:
    _, board = await post(fake, {"content": "board"})
    path = f"/channels/{CHANNEL}/messages/{board['id']}"
    fake.limit_old_edits(1)
    # Under an hour old, edits do not count.
    assert (await rest(fake, "PATCH", path, {"content": "board 2"}))[0] == 200
    assert (await rest(fake, "PATCH", path, {"content": "board 3"}))[0] == 200

    await fake.clock.sleep(OLD_MESSAGE_S + 1)  # the virtual clock jumps an hour
    _, fresh = await post(fake, {"content": "fresh"})
    assert (await rest(fake, "PATCH", path, {"content": "board 4"}))[0] == 200  # the one allowed
    async with (
        aiohttp.ClientSession() as session,
        session.patch(fake.api_url + path, json={"content": "board 5"}) as response,
    ):
        assert response.status == 429
        assert await response.json() == {
            "message": "Maximum number of edits to messages older than 1 hour reached. "
            "Try again later",
            "code": 30046,
            "retry_after": fake.retry_after,
            "global": False,
        }
        assert response.headers["Via"] and response.headers["Retry-After"]
    # A message under an hour old is not capped; the refused edit changed nothing.
    fresh_path = f"/channels/{CHANNEL}/messages/{fresh['id']}"
    assert (await rest(fake, "PATCH", fresh_path, {"content": "fresh 2"}))[0] == 200
    assert [m.content for m in fake.public(CHANNEL)] == ["board 4", "fresh 2"]
    assert [c.code for c in fake.rate_limited] == [30046] and fake.refused == []

    # discord.py takes it for a rate limit: it waits and retries, then raises the 30046.
    fake.limit_old_edits(0)
    async with real_client(fake) as client:
        message = client.get_partial_messageable(CHANNEL).get_partial_message(int(board["id"]))
        with pytest.raises(discord.HTTPException) as raised:
            await message.edit(content="board 6")
    assert (raised.value.status, raised.value.code) == (429, 30046)
    assert len(fake.rate_limited) == 1 + 5  # discord.py's five tries
    fake.limit_old_edits(None)
    assert (await rest(fake, "PATCH", path, {"content": "board 7"}))[0] == 200


async def test_rate_limit_ratio_is_seeded(fake: FakeDiscord) -> None:
    fake.rationed = False  # (the random 429s alone: 45 posts at once are past the channel's)
    fake.rate_limit(0.5, seed=3)
    first = [(await post(fake, {"content": str(i)}))[0] for i in range(20)]
    fake.rate_limit(0.5, seed=3)
    second = [(await post(fake, {"content": str(i)}))[0] for i in range(20)]
    assert first == second and 429 in first and 200 in first
    fake.rate_limit(0)
    free = [(await post(fake, {"content": "free"}))[0] for _ in range(5)]
    assert free == [200] * 5


async def test_discord_py_retries_a_429_on_rest_and_webhooks(fake: FakeDiscord) -> None:
    answered = asyncio.Event()

    async def answer(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send("your hand", ephemeral=True)
        await interaction.followup.send("and a note", ephemeral=True)
        answered.set()

    async with real_client(fake, answer) as client:
        fake.rate_limit(1.0)
        sent = await client.get_partial_messageable(CHANNEL).send("hello")
        dm = await client.create_dm(discord.Object(BOB.id))
        await dm.send("psst")
        await sent.edit(content="hello again")
        interaction = await fake.slash(ALICE, CHANNEL, "bigidea", "hand")
        await asyncio.wait_for(answered.wait(), 10)
    # Every message call was limited once and retried by discord.py itself.
    limited = [(c.method, c.path.split("/")[1]) for c in fake.rate_limited]
    assert limited.count(("POST", "channels")) == 2  # the post and the DM
    assert ("POST", "users") in limited and ("PATCH", "channels") in limited
    assert limited.count(("POST", "webhooks")) == 2  # both followups
    assert not [c for c in fake.rate_limited if c.path.startswith("/interactions")]
    assert fake.refused == []
    assert [(m.content, m.edits) for m in fake.public(CHANNEL)] == [("hello again", 1)]
    assert [m.content for m in fake.private(BOB)] == ["psst"]
    assert [m.content for m in interaction.messages] == ["your hand", "and a note"]
    assert interaction.resolved


# --- interaction callbacks and tokens ------------------------------------------------------------


async def test_callbacks_unknown_late_and_repeated(fake: FakeDiscord) -> None:
    async with raw_gateway(fake) as events:
        first = await fake.slash(ALICE, CHANNEL, "bigidea", "status")
        await dispatched(events)
        status, answer = await rest(
            fake,
            "POST",
            f"/interactions/1/{first.token}/callback",
            {"type": 4, "data": {"content": "x"}},
        )
        assert (status, answer) == (404, {"message": "Unknown interaction", "code": 10062})
        assert (await callback(fake, first, {"type": 5}))[0] == 200
        status, answer = await callback(fake, first, {"type": 4, "data": {"content": "x"}})
        assert (status, answer["code"]) == (400, 40060)

        fake.ack_window = 0.01
        late = await fake.slash(ALICE, CHANNEL, "bigidea", "status")
        await dispatched(events)
        await fake.clock.sleep(0.05)
        status, answer = await callback(fake, late, {"type": 4, "data": {"content": "late"}})
        assert (status, answer["code"]) == (404, 10062)
        assert late.late and late.callback is None and late.answered.done()
        # The token died with the missed window.
        status, answer = await rest(fake, "POST", webhook(late), {"content": "followup"})
        assert (status, answer["code"]) == (401, 50027)
    assert [c.code for c in fake.refused] == [10062, 40060, 10062, 50027]


async def test_callback_types_must_fit_the_interaction(fake: FakeDiscord) -> None:
    async with raw_gateway(fake) as events:
        command = await fake.slash(ALICE, CHANNEL, "bigidea", "status")
        await dispatched(events)
        for kind in (6, 7, 8):
            status, answer = await callback(fake, command, {"type": kind, "data": {"content": "x"}})
            assert (status, codes(answer["errors"])) == (
                400,
                [("type", "INTERACTION_CALLBACK_TYPE_INVALID")],
            )
        status, answer = await callback(fake, command, {"type": 4, "data": {"content": ""}})
        assert (status, answer["code"]) == (400, 50006)
        body = {"type": 4, "data": {"content": "x", "components": [row(button("a"), button("a"))]}}
        status, answer = await callback(fake, command, body)
        assert codes(answer["errors"]) == [
            ("data.components.0.components.1.custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED")
        ]
        modal = {"custom_id": "m", "title": "t" * 46, "components": []}
        status, answer = await callback(fake, command, {"type": 9, "data": modal})
        assert set(codes(answer["errors"])) == {
            ("data.title", "BASE_TYPE_BAD_LENGTH"),
            ("data.components", "BASE_TYPE_BAD_LENGTH"),
        }
        status, answer = await callback(fake, command, {"type": 5, "data": {"flags": 1 << 15}})
        assert status == 400
        # Refused callbacks acknowledge nothing: a valid one still works.
        assert command.callback is None
        assert (await callback(fake, command, {"type": 4, "data": {"content": "ok"}}))[0] == 200
        assert command.resolved and command.original is not None
        assert command.original.content == "ok"
        # A modal after the interaction was acknowledged (here: deferred) is refused.
        deferred = await fake.slash(ALICE, CHANNEL, "bigidea", "pitch")
        await dispatched(events)
        await callback(fake, deferred, {"type": 5})
        good_modal = {
            "custom_id": "m",
            "title": "Pitch",
            "components": [row({"type": 4, "custom_id": "p", "style": 2, "label": "Pitch"})],
        }
        status, answer = await callback(fake, deferred, {"type": 9, "data": good_modal})
        assert (status, answer["code"]) == (400, 40060)
    assert len(fake.invalid) == 8


async def test_a_modal_opens_and_is_submitted(fake: FakeDiscord) -> None:
    async with raw_gateway(fake) as events:
        command = await fake.slash(ALICE, CHANNEL, "bigidea", "pitch")
        await dispatched(events)
        text_input = {"type": 4, "custom_id": "pitch", "style": 2, "label": "Your pitch"}
        modal = {"custom_id": "m", "title": "Pitch", "components": [row(text_input)]}
        assert (await callback(fake, command, {"type": 9, "data": modal}))[0] == 200
        assert command.modal == modal and command.resolved
        submitted = await fake.submit(ALICE, command, {"pitch": "A cat that sells houses"})
        payload = await dispatched(events)
        assert payload["type"] == 5 and payload["data"]["custom_id"] == "m"
        assert (
            payload["data"]["components"][0]["components"][0]["value"] == "A cat that sells houses"
        )
        # A modal opened from a slash command has no message to update.
        status, _ = await callback(fake, submitted, {"type": 7, "data": {"content": "x"}})
        assert status == 400
        assert (await callback(fake, submitted, {"type": 4, "data": {"content": "pitched"}}))[
            0
        ] == 200


async def test_update_message_and_deferred_update_on_a_component(fake: FakeDiscord) -> None:
    _, created = await post(
        fake, {"content": "pick", "components": [row(button("a"), button("b"))]}
    )
    message = fake.public(CHANNEL)[0]
    async with raw_gateway(fake) as events:
        press = await fake.click(ALICE, message, "a")
        payload = await dispatched(events)
        assert payload["message"]["id"] == created["id"]
        bad = {"type": 7, "data": {"components": [row(button("a"), button("a"))]}}
        status, answer = await callback(fake, press, bad)
        assert codes(answer["errors"]) == [
            ("data.components.0.components.1.custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED")
        ]
        update = {"type": 7, "data": {"content": "picked", "components": []}}
        status, answer = await callback(fake, press, update)
        assert status == 200 and answer["resource"]["message"]["content"] == "picked"
        assert (message.content, message.components, message.edits) == ("picked", [], 1)
        assert fake.updates == 1 and fake.public(CHANNEL) == [message] and press.resolved

        message.data["components"] = [row(button("c"))]
        later = await fake.click(BOB, message, "c")
        await dispatched(events)
        assert (await callback(fake, later, {"type": 6}))[0] == 200
        status, _ = await rest(
            fake, "PATCH", webhook(later, "/messages/@original"), {"content": "done"}
        )
        assert status == 200 and (message.content, message.edits) == ("done", 2)
        assert fake.updates == 1  # a deferred update and an edit are not UPDATE_MESSAGE


async def test_a_deferred_response_is_filled_by_the_first_followup(fake: FakeDiscord) -> None:
    async with raw_gateway(fake) as events:
        thinking = await fake.slash(ALICE, CHANNEL, "bigidea", "hand")
        await dispatched(events)
        status, answer = await callback(fake, thinking, {"type": 5, "data": {"flags": 64}})
        assert status == 200 and answer["interaction"]["response_message_loading"] is True
        loading = thinking.original
        assert loading is not None and loading.loading and not thinking.resolved
        assert fake.private(ALICE) == [loading]
        # The first followup edits the "thinking" message and keeps it ephemeral.
        status, _ = await rest(fake, "POST", webhook(thinking), {"content": "your hand"})
        assert status == 200 and thinking.resolved
        assert (loading.content, loading.audience, loading.loading) == (
            "your hand",
            "ephemeral",
            False,
        )
        assert fake.public(CHANNEL) == [] and thinking.messages == [loading]
        status, second = await rest(fake, "POST", webhook(thinking), {"content": "more"})
        assert [m.content for m in thinking.messages] == ["your hand", "more"]
        path = webhook(thinking, f"/messages/{second['id']}")
        assert (await rest(fake, "PATCH", path, {"content": "more!"}))[0] == 200
        assert (await rest(fake, "DELETE", path))[0] == 204
        assert (await rest(fake, "PATCH", path, {"content": "gone"}))[1]["code"] == 10008

        # A defer resolved through @original instead.
        edited = await fake.slash(ALICE, CHANNEL, "bigidea", "status")
        await dispatched(events)
        await callback(fake, edited, {"type": 5})
        original = webhook(edited, "/messages/@original")
        assert (await rest(fake, "PATCH", original, {"content": ""}))[1]["code"] == 50006
        assert not edited.resolved
        assert (await rest(fake, "PATCH", original, {"content": "status"}))[0] == 200
        assert edited.resolved and edited.original is not None
        assert edited.original.audience == "channel" and edited.original.content == "status"

        # A defer nobody resolves stays "thinking".
        forgotten = await fake.slash(BOB, CHANNEL, "bigidea", "status")
        await dispatched(events)
        await callback(fake, forgotten, {"type": 5, "data": {"flags": 64}})
        assert not forgotten.resolved and fake.private(BOB)[0].loading


async def test_interaction_tokens_expire(fake: FakeDiscord) -> None:
    async with raw_gateway(fake) as events:
        interaction = await fake.slash(ALICE, CHANNEL, "bigidea", "status")
        await dispatched(events)
        await callback(fake, interaction, {"type": 4, "data": {"content": "ok"}})
        assert (await rest(fake, "POST", webhook(interaction), {"content": "soon"}))[0] == 200
        fake.token_lifetime = 0.01
        await fake.clock.sleep(0.05)
        for method, tail in (("POST", ""), ("PATCH", "/messages/@original")):
            status, answer = await rest(fake, method, webhook(interaction, tail), {"content": "x"})
            assert (status, answer) == (401, {"message": "Invalid Webhook Token", "code": 50027})
        status, answer = await rest(fake, "POST", f"/webhooks/{APP_ID}/nope", {"content": "x"})
        assert (status, answer["code"]) == (404, 10015)


async def test_discord_py_update_message_and_its_refusal(fake: FakeDiscord) -> None:
    results: list[str] = []
    done = asyncio.Event()

    async def answer(interaction: discord.Interaction[Any]) -> None:
        try:  # discord.py checks no length: Discord refuses, and discord.py raises
            await interaction.response.edit_message(content="x" * 2001)
        except discord.HTTPException as error:
            results.append(f"{error.status}/{error.code}")
        # Refused, the callback acknowledged nothing: the interaction can still be answered.
        await interaction.response.edit_message(
            content=f"{interaction.user.name} picked", view=None
        )
        results.append("updated")
        done.set()

    await post(fake, {"content": "pick", "components": [row(button("a"))]})
    message = fake.public(CHANNEL)[0]
    async with real_client(fake, answer):
        press = await fake.click(ALICE, message, "a")
        await asyncio.wait_for(done.wait(), 10)
    assert results == ["400/50035", "updated"]
    assert [codes(c.reply["errors"]) for c in fake.refused] == [
        [("data.content", "BASE_TYPE_MAX_LENGTH")]
    ]
    assert (message.content, message.components, message.edits) == ("alice picked", [], 1)
    assert fake.updates == 1 and fake.public(CHANNEL) == [message]
    assert press.callback is not None and press.callback["type"] == 7 and press.resolved


# --- mentions ------------------------------------------------------------------------------------


def pings(fake: FakeDiscord, message_id: Any) -> set[tuple[str, int | None]]:
    return {(n.kind, n.target) for n in fake.notifications if n.message_id == int(message_id)}


async def test_mentions_notify_as_discord_computes_them(fake: FakeDiscord) -> None:
    fake.rationed = False  # (more posts at once than a channel takes)
    text = f"@everyone @here <@{ALICE.id}> <@!{BOB.id}> <@&{ROLE}>"
    everything = {
        ("everyone", None),
        ("here", None),
        ("user", ALICE.id),
        ("user", BOB.id),
        ("role", ROLE),
    }
    _, default = await post(fake, {"content": text})
    assert pings(fake, default["id"]) == everything
    _, nobody = await post(fake, {"content": text, "allowed_mentions": {"parse": []}})
    assert pings(fake, nobody["id"]) == set()
    _, empty = await post(fake, {"content": text, "allowed_mentions": {}})
    assert pings(fake, empty["id"]) == set()
    only_bob = {"parse": [], "users": [str(BOB.id), "123"]}  # 123 is not in the content
    _, listed = await post(fake, {"content": text, "allowed_mentions": only_bob})
    assert pings(fake, listed["id"]) == {("user", BOB.id)}
    roles = {"parse": ["roles"], "users": [ALICE.id]}
    _, mixed = await post(fake, {"content": text, "allowed_mentions": roles})
    assert pings(fake, mixed["id"]) == {("role", ROLE), ("user", ALICE.id)}
    # Embeds never ping; a silent message still counts, as a badge.
    _, embed = await post(fake, {"content": "board", "embeds": [{"description": text}]})
    assert pings(fake, embed["id"]) == set()
    _, silent = await post(fake, {"content": f"<@{ALICE.id}>", "flags": 1 << 12})
    assert [n.silent for n in fake.notifications if n.message_id == int(silent["id"])] == [True]
    # Edits never notify.
    before = len(fake.notifications)
    await rest(fake, "PATCH", f"/channels/{CHANNEL}/messages/{nobody['id']}", {"content": text})
    assert len(fake.notifications) == before
    assert Notification(int(default["id"]), CHANNEL, "role", ROLE) in fake.notifications


async def test_dm_and_interaction_mentions(fake: FakeDiscord) -> None:
    _, channel = await rest(fake, "POST", "/users/@me/channels", {"recipient_id": str(BOB.id)})
    text = f"@everyone <@{ALICE.id}> <@{BOB.id}> <@&{ROLE}>"
    _, dm = await post(fake, {"content": text}, int(channel["id"]))
    assert pings(fake, dm["id"]) == {("user", BOB.id)}  # only the recipient can be notified
    async with raw_gateway(fake) as events:
        interaction = await fake.slash(ALICE, CHANNEL, "bigidea", "status")
        await dispatched(events)
        await callback(fake, interaction, {"type": 4, "data": {"content": text}})
        # An interaction response without allowed_mentions parses user mentions only.
        assert interaction.original is not None
        assert pings(fake, interaction.original.id) == {("user", ALICE.id), ("user", BOB.id)}
        _, secret = await rest(fake, "POST", webhook(interaction), {"content": text, "flags": 64})
        assert pings(fake, secret["id"]) == set()  # ephemeral: nobody
        everyone = {"parse": ["everyone"]}
        _, public = await rest(
            fake, "POST", webhook(interaction), {"content": text, "allowed_mentions": everyone}
        )
        assert pings(fake, public["id"]) == {("everyone", None)}


async def test_discord_py_merges_the_clients_allowed_mentions(fake: FakeDiscord) -> None:
    responded = asyncio.Event()

    async def answer(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(f"@everyone <@{ALICE.id}> <@&{ROLE}>")
        responded.set()

    quiet = discord.AllowedMentions(everyone=False, roles=False)
    async with real_client(fake, answer, allowed_mentions=quiet) as client:
        channel = client.get_partial_messageable(CHANNEL)
        text = f"@everyone <@{ALICE.id}> <@{BOB.id}> <@&{ROLE}>"
        plain = await channel.send(text)
        only_bob = await channel.send(
            text, allowed_mentions=discord.AllowedMentions(users=[discord.Object(BOB.id)])
        )
        roles_too = await channel.send(text, allowed_mentions=discord.AllowedMentions(roles=True))
        interaction = await fake.slash(ALICE, CHANNEL, "bigidea", "status")
        await asyncio.wait_for(responded.wait(), 10)
    sent = [
        c.body["allowed_mentions"]
        for c in fake.calls
        if c.method == "POST" and c.path.endswith("/messages")
    ]
    # The client's settings are merged into each body; a users list replaces parsing users.
    assert [m["parse"] for m in sent] == [["users"], [], ["users", "roles"]]
    assert sent[1]["users"] == [BOB.id]
    assert pings(fake, plain.id) == {("user", ALICE.id), ("user", BOB.id)}
    assert pings(fake, only_bob.id) == {("user", BOB.id)}
    assert pings(fake, roles_too.id) == {("user", ALICE.id), ("user", BOB.id), ("role", ROLE)}
    assert interaction.original is not None
    assert pings(fake, interaction.original.id) == {("user", ALICE.id)}


# --- the channel's pace --------------------------------------------------------------------------


async def test_posts_per_channel_are_rationed_with_discords_headers(fake: FakeDiscord) -> None:
    """5 messages per 5 s in a channel: each answer says what is left (the headers discord.py
    paces by), the 6th is answered 429 and posts nothing, another channel has its own."""
    answers = [await post(fake, {"content": str(i)}) for i in range(6)]
    assert [status for status, _ in answers] == [200] * 5 + [429]
    assert fake.rate_limited[-1].reply["global"] is False
    assert len(fake.public(CHANNEL)) == 5 and fake.refused == []
    assert (await post(fake, {"content": "elsewhere"}, channel=OTHER))[0] == 200
    assert fake.max_posts_per_5s(CHANNEL, window=float("inf")) == 5
    assert fake.max_posts_per_5s(OTHER) == 1
    # The sliding window over known times: 6, 6.5, 7 and 8 fall within one 5 s window.
    fake._post_times[OTHER] = [0.0, 1.0, 2.0, 6.0, 6.5, 7.0, 8.0, 20.0]
    assert fake.max_posts_per_5s(OTHER) == 4


async def test_the_headers_say_what_is_left_of_a_routes_bucket(fake: FakeDiscord) -> None:
    async with aiohttp.ClientSession() as session:
        seen = []
        for i in range(5):
            url = f"{fake.api_url}/channels/{CHANNEL}/messages"
            async with session.post(url, json={"content": str(i)}) as response:
                seen.append(response.headers)
        async with session.post(url, json={"content": "six"}) as response:
            limited = response.headers
            assert response.status == 429
    assert [h["X-RateLimit-Remaining"] for h in seen] == ["4", "3", "2", "1", "0"]
    assert {h["X-RateLimit-Limit"] for h in seen} == {"5"}
    assert len({h["X-RateLimit-Bucket"] for h in seen}) == 1
    assert 0 < float(seen[-1]["X-RateLimit-Reset-After"]) <= 5.0
    assert limited["X-RateLimit-Scope"] == "user" and int(limited["Retry-After"]) >= 1


async def test_the_bots_calls_in_all_are_rationed_but_interactions_are_exempt(
    fake: FakeDiscord,
) -> None:
    """50 calls a second over every channel; a 51st is a global 429. Interaction callbacks
    and an interaction's webhook still go."""
    statuses = []
    for n in range(51):
        status, _ = await rest(fake, "POST", f"/channels/{CHANNEL + n}/messages", {"content": "x"})
        statuses.append(status)
    assert statuses == [200] * 50 + [429] and fake.over_global == 1
    limited = fake.rate_limited[-1]
    assert limited.reply == {
        "message": "You are being rate limited.",
        "retry_after": limited.reply["retry_after"],
        "global": True,
    }
    # Past the global limit, an interaction's callback and webhook are still answered (here:
    # they name no interaction, which Discord says as it says it for any).
    callback = await rest(fake, "POST", "/interactions/1/token-1/callback", {"type": 6})
    assert callback == (404, {"message": "Unknown interaction", "code": 10062})
    webhook = await rest(fake, "POST", f"/webhooks/{APP_ID}/token-1", {"content": "x"})
    assert webhook[0] != 429 and fake.over_global == 1


def test_fake_messages_read_components_v2() -> None:
    data = {
        "flags": 1 << 15,
        "components": [
            {
                "type": 17,
                "components": [
                    {"type": 10, "content": "Board"},
                    {
                        "type": 9,
                        "components": [{"type": 10, "content": "Roll"}],
                        "accessory": button("r", "Roll!"),
                    },
                    row(select("s", ["a"], placeholder="Pick")),
                ],
            }
        ],
    }
    message = FakeMessage(1, CHANNEL, "channel", None, data)
    assert [c["custom_id"] for c in message.components] == ["r", "s"]
    assert message.text.split("\n") == ["Board", "Roll", "Roll!", "Pick", "a"]
