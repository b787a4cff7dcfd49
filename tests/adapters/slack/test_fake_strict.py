"""The fake Slack refuses what Slack refuses, in Slack's shapes, to the real slack_sdk clients.

Every test drives the fake over HTTP on 127.0.0.1 with slack_sdk's ``AsyncWebClient`` (the Web
API), ``AsyncWebhookClient`` (response URLs) and its ``AsyncRateLimitErrorRetryHandler``.
Time-dependent rules (response URL and trigger expiry, posting rates) run on a clock the test
moves, never on sleeps.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Awaitable
from typing import Any
from urllib.parse import parse_qs

import pytest
from aiohttp import ClientSession
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from testkit.slack.fake import (
    DEAD_URL,
    HANDLED,
    POSTS_PER_WORKSPACE,
    FakeSlackAPI,
    SignedClient,
    sign,
    validate_blocks,
    validate_message,
    validate_view,
)

CHANNEL = "C0TABLE"
OTHER = "C0OTHER"
Blocks = list[dict[str, Any]]


class Clock:
    """A clock the test moves on by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def api(clock: Clock) -> AsyncIterator[FakeSlackAPI]:
    """The fake with Slack's budgets off: most tests here check one refusal at a time, calling
    on a clock that stands still; the budgets' own tests (``rationed``) switch them on."""
    fake = FakeSlackAPI(clock=clock)
    fake.tiers, fake.posts_per_workspace = {}, None
    fake.post_limit(0)
    await fake.start()
    yield fake
    await fake.close()


@pytest.fixture
async def rationed(clock: Clock) -> AsyncIterator[FakeSlackAPI]:
    """The fake as it starts: every budget on."""
    fake = FakeSlackAPI(clock=clock)
    await fake.start()
    yield fake
    await fake.close()


@pytest.fixture
async def session() -> AsyncIterator[ClientSession]:
    async with ClientSession() as opened:
        yield opened


@pytest.fixture
def client(api: FakeSlackAPI, session: ClientSession) -> AsyncWebClient:
    return AsyncWebClient(token="xoxb-test", base_url=api.url, session=session)


@pytest.fixture
def slack(api: FakeSlackAPI, session: ClientSession) -> SignedClient:
    return SignedClient("http://127.0.0.1:9/slack/events", "secret", session, api=api)


async def refusal(call: Awaitable[Any]) -> SlackApiError:
    with pytest.raises(SlackApiError) as caught:
        await call
    return caught.value


def plain(text: str) -> dict[str, Any]:
    return {"type": "plain_text", "text": text}


def mrkdwn(text: str) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": text}


def section(text: str = "hi") -> dict[str, Any]:
    return {"type": "section", "text": mrkdwn(text)}


def button(action_id: str = "a1", label: str = "Go", **extra: Any) -> dict[str, Any]:
    return {"type": "button", "text": plain(label), "action_id": action_id, **extra}


def actions(*elements: dict[str, Any]) -> dict[str, Any]:
    return {"type": "actions", "elements": list(elements)}


def option(value: str, label: str = "x", **extra: Any) -> dict[str, Any]:
    return {"text": plain(label), "value": value, **extra}


def select(**extra: Any) -> dict[str, Any]:
    return {"type": "static_select", "action_id": "s1", "placeholder": plain("Pick"), **extra}


def options(n: int) -> list[dict[str, Any]]:
    return [option(f"v{i}") for i in range(n)]


def groups(n: int, per: int = 2) -> list[dict[str, Any]]:
    return [
        {"label": plain(f"g{g}"), "options": [option(f"g{g}v{i}") for i in range(per)]}
        for g in range(n)
    ]


def payload_of(body: bytes) -> dict[str, Any]:
    return dict(json.loads(parse_qs(body.decode())["payload"][0]))


# --- Block Kit limits: the last good value is accepted, one more is refused -------------------

# (id, accepted blocks, refused blocks, the JSON pointer of Slack's error)
LIMITS: list[tuple[str, Blocks, Blocks, str]] = [
    ("50 blocks", [section()] * 50, [section()] * 51, "/blocks]"),
    ("block type", [{"type": "divider"}], [{"type": "video_call"}], "/blocks/0/type]"),
    ("no input in a message", [section()], [{"type": "input"}], "/blocks/0/type]"),
    (
        "block_id length",
        [{"type": "divider", "block_id": "b" * 255}],
        [{"type": "divider", "block_id": "b" * 256}],
        "/blocks/0/block_id]",
    ),
    (
        "block_id unique",
        [{"type": "divider", "block_id": "x"}, {"type": "divider", "block_id": "y"}],
        [{"type": "divider", "block_id": "x"}, {"type": "divider", "block_id": "x"}],
        "/blocks/1/block_id]",
    ),
    ("section text", [section("t" * 3000)], [section("t" * 3001)], "/blocks/0/text/text]"),
    (
        "section plain text",
        [{"type": "section", "text": plain("t" * 3000)}],
        [{"type": "section", "text": plain("t" * 3001)}],
        "/blocks/0/text/text]",
    ),
    ("section empty text", [section("t")], [section("")], "/blocks/0/text/text]"),
    (
        "section fields count",
        [{"type": "section", "fields": [mrkdwn("f")] * 10}],
        [{"type": "section", "fields": [mrkdwn("f")] * 11}],
        "/blocks/0/fields]",
    ),
    (
        "section field length",
        [{"type": "section", "fields": [mrkdwn("f" * 2000)]}],
        [{"type": "section", "fields": [mrkdwn("f" * 2001)]}],
        "/blocks/0/fields/0/text]",
    ),
    (
        "section needs text or fields",
        [{"type": "section", "fields": [mrkdwn("f")]}],
        [{"type": "section"}],
        "/blocks/0]",
    ),
    (
        "header plain_text only",
        [{"type": "header", "text": plain("Title")}],
        [{"type": "header", "text": mrkdwn("Title")}],
        "/blocks/0/text/type]",
    ),
    (
        "header length",
        [{"type": "header", "text": plain("h" * 150)}],
        [{"type": "header", "text": plain("h" * 151)}],
        "/blocks/0/text/text]",
    ),
    (
        "actions 25 elements",
        [actions(*(button(f"a{i}") for i in range(25)))],
        [actions(*(button(f"a{i}") for i in range(26)))],
        "/blocks/0/elements]",
    ),
    ("actions not empty", [actions(button())], [actions()], "/blocks/0/elements]"),
    (
        "context 10 elements",
        [{"type": "context", "elements": [mrkdwn("c")] * 10}],
        [{"type": "context", "elements": [mrkdwn("c")] * 11}],
        "/blocks/0/elements]",
    ),
    (
        "context not empty",
        [{"type": "context", "elements": [mrkdwn("c")]}],
        [{"type": "context", "elements": []}],
        "/blocks/0/elements]",
    ),
    (
        "image url length",
        [{"type": "image", "image_url": "https://x/" + "i" * 2990, "alt_text": "a"}],
        [{"type": "image", "image_url": "https://x/" + "i" * 2991, "alt_text": "a"}],
        "/blocks/0/image_url]",
    ),
    (
        "image alt_text length",
        [{"type": "image", "image_url": "https://x/i.png", "alt_text": "a" * 2000}],
        [{"type": "image", "image_url": "https://x/i.png", "alt_text": "a" * 2001}],
        "/blocks/0/alt_text]",
    ),
    (
        "image alt_text required",
        [{"type": "image", "image_url": "https://x/i.png", "alt_text": "a"}],
        [{"type": "image", "image_url": "https://x/i.png"}],
        "/blocks/0]",
    ),
    (
        "button text length",
        [actions(button(label="b" * 75))],
        [actions(button(label="b" * 76))],
        "/blocks/0/elements/0/text/text]",
    ),
    (
        "button text plain_text only",
        [actions(button())],
        [actions({"type": "button", "text": mrkdwn("Go"), "action_id": "a1"})],
        "/blocks/0/elements/0/text/type]",
    ),
    (
        "button text not empty",
        [actions(button(label="b"))],
        [actions(button(label=""))],
        "/blocks/0/elements/0/text/text]",
    ),
    (
        "action_id length",
        [actions(button("a" * 255))],
        [actions(button("a" * 256))],
        "/blocks/0/elements/0/action_id]",
    ),
    (
        "button value length",
        [actions(button(value="v" * 2000))],
        [actions(button(value="v" * 2001))],
        "/blocks/0/elements/0/value]",
    ),
    (
        "button url length",
        [actions(button(url="https://x/" + "u" * 2990))],
        [actions(button(url="https://x/" + "u" * 2991))],
        "/blocks/0/elements/0/url]",
    ),
    (
        "button style",
        [actions(button(style="danger"))],
        [actions(button(style="success"))],
        "/blocks/0/elements/0/style]",
    ),
    (
        "action_id unique in the whole message",
        [actions(button("a1")), actions(button("a2"))],
        [actions(button("a1")), actions(button("a1"))],
        "/blocks/1/elements/0/action_id]",
    ),
    (
        "select placeholder length",
        [actions(select(placeholder=plain("p" * 150), options=options(1)))],
        [actions(select(placeholder=plain("p" * 151), options=options(1)))],
        "/blocks/0/elements/0/placeholder/text]",
    ),
    (
        "select placeholder plain_text only",
        [actions(select(options=options(1)))],
        [actions(select(placeholder=mrkdwn("p"), options=options(1)))],
        "/blocks/0/elements/0/placeholder/type]",
    ),
    (
        "select 100 options",
        [actions(select(options=options(100)))],
        [actions(select(options=options(101)))],
        "/blocks/0/elements/0/options]",
    ),
    (
        "select 100 option groups",
        [actions(select(option_groups=groups(100, per=1)))],
        [actions(select(option_groups=groups(101, per=1)))],
        "/blocks/0/elements/0/option_groups]",
    ),
    (
        "select 100 options a group",
        [actions(select(option_groups=groups(1, per=100)))],
        [actions(select(option_groups=groups(1, per=101)))],
        "/blocks/0/elements/0/option_groups/0/options]",
    ),
    (
        "select options or groups, not both",
        [actions(select(options=options(2)))],
        [actions(select(options=options(2), option_groups=groups(1)))],
        "/blocks/0/elements/0]",
    ),
    (
        "option text length",
        [actions(select(options=[option("v", "o" * 75)]))],
        [actions(select(options=[option("v", "o" * 76)]))],
        "/blocks/0/elements/0/options/0/text/text]",
    ),
    (
        "option text plain_text only",
        [actions(select(options=[option("v")]))],
        [actions(select(options=[{"text": mrkdwn("o"), "value": "v"}]))],
        "/blocks/0/elements/0/options/0/text/type]",
    ),
    (
        "option value length",
        [actions(select(options=[option("v" * 150)]))],
        [actions(select(options=[option("v" * 151)]))],
        "/blocks/0/elements/0/options/0/value]",
    ),
    (
        "option description length",
        [actions(select(options=[option("v", description=plain("d" * 75))]))],
        [actions(select(options=[option("v", description=plain("d" * 76))]))],
        "/blocks/0/elements/0/options/0/description/text]",
    ),
    (
        "option values unique",
        [actions(select(options=[option("v1"), option("v2")]))],
        [actions(select(options=[option("v1"), option("v1")]))],
        "/blocks/0/elements/0/options/1/value]",
    ),
    (
        "option values unique across groups",
        [actions(select(option_groups=groups(2)))],
        [
            actions(
                select(
                    option_groups=[
                        {"label": plain("a"), "options": [option("v")]},
                        {"label": plain("b"), "options": [option("v")]},
                    ]
                )
            )
        ],
        "/blocks/0/elements/0/option_groups/1/options/0/value]",
    ),
    (
        "max_selected_items at least 1",
        [
            actions(
                {
                    **select(options=options(3)),
                    "type": "multi_static_select",
                    "max_selected_items": 1,
                }
            )
        ],
        [
            actions(
                {
                    **select(options=options(3)),
                    "type": "multi_static_select",
                    "max_selected_items": 0,
                }
            )
        ],
        "/blocks/0/elements/0/max_selected_items]",
    ),
]


@pytest.mark.parametrize(
    ("accepted", "refused", "pointer"),
    [pytest.param(good, bad, pointer, id=name) for name, good, bad, pointer in LIMITS],
)
async def test_block_kit_limits_as_slack_enforces_them(
    api: FakeSlackAPI, client: AsyncWebClient, accepted: Blocks, refused: Blocks, pointer: str
) -> None:
    posted = await client.chat_postMessage(channel=CHANNEL, text="fallback", blocks=accepted)
    assert posted["ok"] and api.message(CHANNEL, posted["ts"]) is not None
    error = await refusal(client.chat_postMessage(channel=CHANNEL, text="fallback", blocks=refused))
    assert error.response.status_code == 200
    assert error.response["error"] == "invalid_blocks"
    errors = error.response["errors"]
    assert any(e.endswith(f"[json-pointer:{pointer}") for e in errors), errors
    assert error.response["response_metadata"]["messages"] == [f"[ERROR] {e}" for e in errors]
    assert [c.error for c in api.refused] == ["invalid_blocks"]
    assert len(api.called("chat.postMessage")) == 1  # only the accepted one


async def test_refused_message_shape_is_slacks(api: FakeSlackAPI, session: ClientSession) -> None:
    """The raw HTTP answer: 200 with ok false, ``errors`` and ``response_metadata.messages``."""
    body = {"channel": CHANNEL, "text": "x", "blocks": [{"type": "header", "text": mrkdwn("*")}]}
    headers = {"Authorization": "Bearer xoxb-test"}
    async with session.post(f"{api.url}chat.postMessage", json=body, headers=headers) as answer:
        assert answer.status == 200
        data = await answer.json()
    assert data == {
        "ok": False,
        "error": "invalid_blocks",
        "errors": ['must match one of ["plain_text"] [json-pointer:/blocks/0/text/type]'],
        "response_metadata": {
            "messages": [
                '[ERROR] must match one of ["plain_text"] [json-pointer:/blocks/0/text/type]'
            ]
        },
    }


@pytest.mark.parametrize("method", ["chat.postEphemeral", "chat.update"])
async def test_ephemeral_posts_and_edits_are_validated_too(
    api: FakeSlackAPI, client: AsyncWebClient, method: str
) -> None:
    board = await client.chat_postMessage(channel=CHANNEL, text="board")
    bad = [actions(button("a1"), button("a1"))]
    if method == "chat.update":
        call = client.chat_update(channel=CHANNEL, ts=board["ts"], text="x", blocks=bad)
    else:
        call = client.chat_postEphemeral(channel=CHANNEL, user="UALICE", text="x", blocks=bad)
    error = await refusal(call)
    assert error.response["error"] == "invalid_blocks"
    assert "action_id" in error.response["errors"][0]
    assert [c.method for c in api.refused] == [method]
    message = api.message(CHANNEL, board["ts"])
    assert message is not None and message.text == "board" and not message.edits


async def test_blocks_may_arrive_as_a_json_string(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    fine = await client.chat_postMessage(channel=CHANNEL, text="t", blocks=json.dumps([section()]))
    assert api.called("chat.postMessage")[0].blocks == [section()]
    assert fine["ok"]
    too_long = json.dumps([section("x" * 3001)])
    error = await refusal(client.chat_postMessage(channel=CHANNEL, text="t", blocks=too_long))
    assert error.response["error"] == "invalid_blocks"
    broken = await refusal(client.chat_postMessage(channel=CHANNEL, text="t", blocks="[{"))
    assert broken.response["error"] == "invalid_blocks_format"


@pytest.mark.filterwarnings("ignore:The top-level `text` argument is missing")
async def test_text_is_required_without_blocks_and_at_most_40000(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    error = await refusal(client.chat_postMessage(channel=CHANNEL, text=""))
    assert error.response["error"] == "no_text"
    blocks_only = await client.chat_postMessage(channel=CHANNEL, blocks=[section()])
    assert blocks_only["ok"]  # the fallback text is only recommended with blocks
    longest = await client.chat_postMessage(channel=CHANNEL, text="x" * 40_000)
    assert longest["ok"]
    error = await refusal(client.chat_postMessage(channel=CHANNEL, text="x" * 40_001))
    assert error.response["error"] == "msg_too_long"
    assert [c.error for c in api.refused] == ["no_text", "msg_too_long"]


def test_validators_without_a_server() -> None:
    assert validate_blocks([section(), actions(button())]) == []
    input_block = {
        "type": "input",
        "label": plain("Pitch"),
        "element": {"type": "plain_text_input", "action_id": "pitch"},
    }
    assert validate_blocks([input_block], modal=True) == []
    assert validate_blocks([input_block]) != []  # input blocks only in modals
    assert validate_blocks([section()] * 100, modal=True) == []
    assert validate_blocks([section()] * 101, modal=True) == [
        "must be less than 101 items [json-pointer:/blocks]"
    ]
    assert validate_message({"text": "hi"}) == []
    assert validate_message({"blocks": json.dumps([section()])}) == []
    assert validate_message({"text": ""})[0].startswith("no_text")
    assert validate_message({"text": "x" * 40_001})[0].startswith("msg_too_long")
    assert validate_message({"text": "t", "blocks": [{"type": "nope"}]}) == [
        "unsupported block type: 'nope' [json-pointer:/blocks/0/type]"
    ]
    assert validate_view({"type": "modal", "title": plain("T"), "blocks": []}) == []


# --- rate limits -----------------------------------------------------------------------------


async def test_rate_limited_calls_answer_429_with_retry_after(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    api.rate_limit(1.0, retry_after=7)
    error = await refusal(client.chat_postMessage(channel=CHANNEL, text="hi"))
    assert error.response.status_code == 429
    assert error.response.headers["Retry-After"] == "7"
    assert error.response.data == {"ok": False, "error": "ratelimited"}
    for call in (client.users_info(user="UALICE"), client.conversations_open(users="UALICE")):
        assert (await refusal(call)).response.status_code == 429
    assert (await client.auth_test())["ok"]  # not a rate-limited method here
    assert [c.method for c in api.rate_limited] == [
        "chat.postMessage",
        "users.info",
        "conversations.open",
    ]
    assert api.calls == [api.called("auth.test")[0]] and api.refused == []
    api.rate_limit(0)
    assert (await client.chat_postMessage(channel=CHANNEL, text="hi"))["ok"]


async def test_the_ratio_is_a_seeded_fraction_of_calls(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    api.rate_limit(0.3, seed=11)
    draws = random.Random(11)
    expected = [draws.random() < 0.3 for _ in range(60)]
    limited = []
    for _ in range(60):
        try:
            await client.users_info(user="UALICE")
            limited.append(False)
        except SlackApiError as error:
            assert error.response.status_code == 429
            limited.append(True)
    assert limited == expected
    assert 0 < len(api.rate_limited) == sum(expected) < 60


async def test_slack_sdks_rate_limit_handler_retries_the_429(
    api: FakeSlackAPI, session: ClientSession
) -> None:
    """slack_sdk reads our Retry-After (0: it sleeps only its 0-1 s jitter) and tries again."""
    seed = next(s for s in range(100) if _first_limited_second_not(s))
    api.rate_limit(0.5, seed=seed)
    handler = AsyncRateLimitErrorRetryHandler(max_retry_count=1)
    client = AsyncWebClient(
        token="xoxb-test", base_url=api.url, session=session, retry_handlers=[handler]
    )
    posted = await client.chat_postMessage(channel=CHANNEL, text="after a 429")
    assert posted["ok"]
    assert [c.method for c in api.rate_limited] == ["chat.postMessage"]
    assert [c.args["text"] for c in api.called("chat.postMessage")] == ["after a 429"]

    api.rate_limit(1.0)  # every try limited: the handler gives up after max_retry_count
    error = await refusal(client.chat_postMessage(channel=CHANNEL, text="never"))
    assert error.response.status_code == 429 and error.response["error"] == "ratelimited"
    assert len(api.rate_limited) == 1 + 2
    assert len(api.called("chat.postMessage")) == 1


async def test_each_method_is_rationed_per_workspace_at_its_tier(
    rationed: FakeSlackAPI, session: ClientSession, clock: Clock
) -> None:
    """chat.update is Tier 3: a burst of 5, then 50 a minute; a refused call changes nothing
    and says in whole seconds when to try again; another token (another workspace) and another
    method have budgets of their own."""
    client = AsyncWebClient(token="xoxb-test", base_url=rationed.url, session=session)
    posted = []
    for n in range(6):
        clock.advance(1.05)  # (one post a second per conversation)
        posted.append((await client.chat_postMessage(channel=CHANNEL, text=f"m{n}"))["ts"])
    for ts in posted[:5]:
        assert (await client.chat_update(channel=CHANNEL, ts=ts, text="edited"))["ok"]
    error = await refusal(client.chat_update(channel=CHANNEL, ts=posted[5], text="too many"))
    assert error.response.status_code == 429 and error.response["error"] == "ratelimited"
    assert error.response.headers["Retry-After"] == "2"  # 1.2 s to a token, in whole seconds
    unchanged = rationed.message(CHANNEL, posted[5])
    assert unchanged is not None and unchanged.text == "m5"  # nothing changed
    other = AsyncWebClient(token="xoxb-other-team", base_url=rationed.url, session=session)
    assert (await other.chat_update(channel=CHANNEL, ts=posted[5], text="theirs"))["ok"]
    assert (await client.chat_delete(channel=CHANNEL, ts=posted[0]))["ok"]  # Tier 3 apart
    clock.advance(60 / 50)
    assert (await client.chat_update(channel=CHANNEL, ts=posted[5], text="later"))["ok"]
    await refusal(client.chat_update(channel=CHANNEL, ts=posted[5], text="again"))
    # Tier 4 (ephemeral messages): a burst of 10.
    for _ in range(10):
        await client.chat_postEphemeral(channel=CHANNEL, user="UALICE", text="psst")
    await refusal(client.chat_postEphemeral(channel=CHANNEL, user="UALICE", text="psst"))
    assert [c.method for c in rationed.rate_limited] == [
        "chat.update",
        "chat.update",
        "chat.postEphemeral",
    ]


async def test_posts_are_rationed_per_conversation_and_per_workspace(
    rationed: FakeSlackAPI, session: ClientSession, clock: Clock
) -> None:
    """One post a second in a conversation from the start; and a workspace's posts in all
    (POSTS_PER_WORKSPACE: a burst of 20) however many conversations they go to."""
    client = AsyncWebClient(token="xoxb-test", base_url=rationed.url, session=session)
    conversations = [f"C{n:03d}" for n in range(30)]
    accepted = 0
    for channel in conversations:
        try:
            await client.chat_postMessage(channel=channel, text="hi")
            accepted += 1
        except SlackApiError as error:
            assert error.response.status_code == 429
    assert accepted == POSTS_PER_WORKSPACE[1]
    clock.advance(5.0)
    await client.chat_postMessage(channel="C001", text="later")
    await refusal(client.chat_postMessage(channel="C001", text="too soon"))


async def test_posts_past_one_a_second_in_a_conversation_answer_429(
    api: FakeSlackAPI, client: AsyncWebClient, clock: Clock
) -> None:
    api.post_limit()
    card = await client.chat_postMessage(channel=CHANNEL, text="card")
    # A thread reply counts against its channel, as Slack's limit does.
    error = await refusal(client.chat_postMessage(channel=CHANNEL, thread_ts=card["ts"], text="r"))
    assert error.response.status_code == 429 and error.response.headers["Retry-After"] == "1"
    assert error.response.data == {"ok": False, "error": "ratelimited"}
    # Another conversation (a DM is one of its own) and edits are not limited.
    dm = (await client.conversations_open(users="UALICE"))["channel"]["id"]
    assert (await client.chat_postMessage(channel=dm, text="your hand"))["ok"]
    assert (await client.chat_update(channel=CHANNEL, ts=card["ts"], text="card 2"))["ok"]
    clock.advance(1.0)
    assert (await client.chat_postMessage(channel=CHANNEL, thread_ts=card["ts"], text="r"))["ok"]
    assert [c.args["text"] for c in api.rate_limited] == ["r"] and api.refused == []

    api.post_limit(posts=2, window_s=1.0)  # a short burst tolerated
    clock.advance(1.0)
    for text in ("a", "b"):
        assert (await client.chat_postMessage(channel=CHANNEL, text=text))["ok"]
    assert (
        await refusal(client.chat_postMessage(channel=CHANNEL, text="c"))
    ).response.status_code == 429
    api.post_limit(0)
    assert (await client.chat_postMessage(channel=CHANNEL, text="c"))["ok"]


def _first_limited_second_not(seed: int) -> bool:
    draws = random.Random(seed)
    return draws.random() < 0.5 <= draws.random()


# --- channels and messages -------------------------------------------------------------------


async def test_not_in_channel_and_unknown_channels(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    api.not_in(OTHER)
    for call in (
        client.chat_postMessage(channel=OTHER, text="hi"),
        client.chat_postEphemeral(channel=OTHER, user="UALICE", text="hi"),
    ):
        assert (await refusal(call)).response["error"] == "not_in_channel"
    assert (await client.chat_postMessage(channel=CHANNEL, text="hi"))["ok"]

    api.channels = {CHANNEL}
    error = await refusal(client.chat_postMessage(channel="C0NOWHERE", text="hi"))
    assert error.response["error"] == "channel_not_found"
    error = await refusal(client.chat_postMessage(channel="DUALICE", text="hi"))
    assert error.response["error"] == "channel_not_found"  # a DM nobody opened
    opened = await client.conversations_open(users="UALICE")
    assert opened["channel"]["id"] == "DUALICE" and opened["already_open"] is False
    assert (await client.conversations_open(users="UALICE"))["already_open"] is True
    assert (await client.chat_postMessage(channel="DUALICE", text="hi"))["ok"]
    # An ephemeral in a DM is for the user of that DM only.
    assert (await client.chat_postEphemeral(channel="DUALICE", user="UALICE", text="hi"))["ok"]
    error = await refusal(client.chat_postEphemeral(channel="DUALICE", user="UBOB", text="hi"))
    assert error.response["error"] == "user_not_in_channel"
    assert [c.error for c in api.refused] == [
        "not_in_channel",
        "not_in_channel",
        "channel_not_found",
        "channel_not_found",
        "user_not_in_channel",
    ]


async def test_update_and_delete_need_a_live_message_posted_there(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    board = (await client.chat_postMessage(channel=CHANNEL, text="v1"))["ts"]
    edited = await client.chat_update(channel=CHANNEL, ts=board, text="v2")
    assert edited["ts"] == board
    message = api.message(CHANNEL, board)
    assert message is not None and message.text == "v2" and len(message.edits) == 1

    for channel, ts in ((CHANNEL, "999.000100"), (OTHER, board)):
        error = await refusal(client.chat_update(channel=channel, ts=ts, text="x"))
        assert error.response["error"] == "message_not_found"

    private = await client.chat_postEphemeral(channel=CHANNEL, user="UALICE", text="p")
    error = await refusal(client.chat_update(channel=CHANNEL, ts=private["message_ts"], text="x"))
    assert error.response["error"] == "message_not_found"  # ephemeral: only a response URL
    error = await refusal(client.chat_delete(channel=CHANNEL, ts=private["message_ts"]))
    assert error.response["error"] == "message_not_found"

    api.delete(CHANNEL, board)  # someone removed the board
    error = await refusal(client.chat_update(channel=CHANNEL, ts=board, text="v3"))
    assert error.response["error"] == "message_not_found"

    other = (await client.chat_postMessage(channel=CHANNEL, text="bye"))["ts"]
    assert (await client.chat_delete(channel=CHANNEL, ts=other))["ok"]
    deleted = api.message(CHANNEL, other)
    assert deleted is not None and deleted.deleted
    for call in (
        client.chat_delete(channel=CHANNEL, ts=other),
        client.chat_update(channel=CHANNEL, ts=other, text="back"),
    ):
        assert (await refusal(call)).response["error"] == "message_not_found"
    assert len(api.refused) == 7
    assert message.text == "v2" and len(message.edits) == 1


@pytest.mark.filterwarnings("ignore:The top-level `text` argument is missing")
async def test_an_update_keeps_what_it_leaves_out(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    ts = (await client.chat_postMessage(channel=CHANNEL, text="t1", blocks=[section("b1")]))["ts"]
    await client.chat_update(channel=CHANNEL, ts=ts, text="t2")
    message = api.message(CHANNEL, ts)
    assert message is not None and (message.text, message.blocks) == ("t2", [section("b1")])
    await client.chat_update(channel=CHANNEL, ts=ts, blocks=[section("b2")])
    assert (message.text, message.blocks) == ("t2", [section("b2")])


async def test_the_fail_dict_still_refuses_a_method(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    api.fail["chat.postMessage"] = "is_archived"
    error = await refusal(client.chat_postMessage(channel=CHANNEL, text="hi"))
    assert error.response["error"] == "is_archived"
    assert api.called("chat.postMessage") == [] and api.refused[0].error == "is_archived"
    del api.fail["chat.postMessage"]
    assert (await client.chat_postMessage(channel=CHANNEL, text="hi"))["ok"]


@pytest.mark.filterwarnings("ignore:The top-level `text` argument is missing")
async def test_calls_listeners_and_tokens(
    api: FakeSlackAPI, client: AsyncWebClient, session: ClientSession
) -> None:
    seen: list[str] = []
    api.on_call.append(lambda call: seen.append(call.method))
    await client.chat_postMessage(channel=CHANNEL, text="hi")
    await refusal(client.chat_postMessage(channel=CHANNEL, text=""))
    assert seen == ["chat.postMessage"]  # listeners see only what Slack accepted
    assert len(api.received) == 2 and len(api.calls) == 1

    anonymous = AsyncWebClient(token=None, base_url=api.url, session=session)
    assert (await refusal(anonymous.chat_postMessage(channel=CHANNEL, text="x"))).response[
        "error"
    ] == "not_authed"
    app_level = AsyncWebClient(token="xapp-1", base_url=api.url, session=session)
    error = await refusal(app_level.chat_postMessage(channel=CHANNEL, text="x"))
    assert error.response["error"] == "not_allowed_token_type"
    assert (await refusal(client.apps_connections_open(app_token="xoxb-test"))).response[
        "error"
    ] == "not_allowed_token_type"
    api.socket_url = "ws://127.0.0.1:9/link"
    assert (await app_level.apps_connections_open(app_token="xapp-1"))["url"] == api.socket_url
    # The bench's bot reports a finished answer through a method only the fake has.
    assert (await anonymous.api_call(HANDLED, json={"user": "UALICE"}))["ok"]
    assert api.called(HANDLED)[0].args == {"user": "UALICE"}


# --- users.info ------------------------------------------------------------------------------


async def test_users_info_names_and_unknown_users(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    user = (await client.users_info(user="UALICE"))["user"]
    assert user["id"] == "UALICE" and user["name"] == "ualice" and user["real_name"] == "ualice"
    assert user["profile"]["display_name"] == "ualice"
    assert user["profile"]["display_name_normalized"] == "ualice"

    api.add_user("UBOB", display_name="Bóbby", real_name="Robert Tables")
    api.users["UCAROL"] = {"profile": {"display_name": "", "real_name": "Carol C"}}
    bob = (await client.users_info(user="UBOB"))["user"]
    assert bob["profile"]["display_name"] == "Bóbby"
    assert bob["profile"]["display_name_normalized"] == "Bobby"
    assert bob["real_name"] == bob["profile"]["real_name"] == "Robert Tables"
    carol = (await client.users_info(user="UCAROL"))["user"]
    assert carol["profile"]["display_name"] == "ucarol" and carol["real_name"] == "Carol C"

    api.missing_users.add("UGONE")
    for unknown in ("UGONE", "alice", ""):
        error = await refusal(client.users_info(user=unknown))
        assert error.response["error"] == "user_not_found"
    assert [c.method for c in api.received].count("users.info") == 6


# --- response URLs ---------------------------------------------------------------------------


def _pressed(
    slack: SignedClient, channel: str, ts: str, ephemeral: bool = False, user: str = "UALICE"
) -> str:
    """The response URL of a button press on message ``ts``."""
    body = slack.action_body(user, channel, {"type": "button", "action_id": "a1"}, ts, ephemeral)
    return str(payload_of(body)["response_url"])


async def test_response_url_replaces_or_deletes_the_message_pressed(
    api: FakeSlackAPI, client: AsyncWebClient, slack: SignedClient
) -> None:
    panel = await client.chat_postEphemeral(channel=CHANNEL, user="UALICE", text="panel")
    url = _pressed(slack, CHANNEL, panel["message_ts"], ephemeral=True)
    assert url.startswith(api.root)
    answer = await AsyncWebhookClient(url).send_dict(
        {"text": "picked", "blocks": [section("done")], "replace_original": True}
    )
    assert answer.status_code == 200 and json.loads(answer.body) == {"ok": True}
    message = api.message(CHANNEL, panel["message_ts"])
    assert message is not None and message.ephemeral
    assert (message.text, message.blocks) == ("picked", [section("done")])
    (edit,) = message.edits
    assert edit.method == "response_url" and edit.url == url and edit.channel == CHANNEL
    assert api.called("response_url") == [edit]

    board = (await client.chat_postMessage(channel=CHANNEL, text="board"))["ts"]
    url = _pressed(slack, CHANNEL, board)
    answer = await AsyncWebhookClient(url).send_dict({"text": "", "delete_original": True})
    assert answer.status_code == 200
    gone = api.message(CHANNEL, board)
    assert gone is not None and gone.deleted
    answer = await AsyncWebhookClient(url).send_dict({"text": "x", "replace_original": True})
    assert answer.status_code == 404 and json.loads(answer.body)["error"] == "message_not_found"
    assert api.notifications == []


async def test_response_url_new_messages_ephemeral_or_in_channel(
    api: FakeSlackAPI, client: AsyncWebClient, slack: SignedClient, clock: Clock
) -> None:
    body = parse_qs(slack.slash_body("/bigidea", "status", "UALICE", CHANNEL).decode())
    url = body["response_url"][0]
    assert body["user_name"] == ["ualice"]
    hook = AsyncWebhookClient(url)
    assert (await hook.send_dict({"text": "only <@UBOB> sees? no: only you"})).status_code == 200
    assert (
        await hook.send_dict({"text": "all: <@UBOB>", "response_type": "in_channel"})
    ).status_code == 200
    private, public = api.called("response_url")
    first, second = api.message(CHANNEL, str(private.ts)), api.message(CHANNEL, str(public.ts))
    assert first is not None and first.ephemeral and first.user == "UALICE"
    assert second is not None and not second.ephemeral
    assert [(n.call, n.kind, n.target) for n in api.notifications] == [(public, "user", "UBOB")]
    assert api.max_posts_per_s(CHANNEL).posts == 1  # the ephemeral one is nobody's post
    # A slash command's replace_original edits what its URL posted last.
    assert (await hook.send_dict({"text": "edited", "replace_original": True})).status_code == 200
    assert second.text == "edited" and len(second.edits) == 1


async def test_response_url_five_uses_and_thirty_minutes(
    api: FakeSlackAPI, slack: SignedClient, clock: Clock
) -> None:
    url = parse_qs(slack.slash_body("/bigidea", "", "UALICE", CHANNEL).decode())["response_url"][0]
    hook = AsyncWebhookClient(url)
    for n in range(5):
        assert (await hook.send_dict({"text": f"answer {n}"})).status_code == 200
    used = await hook.send_dict({"text": "sixth"})
    assert used.status_code == 404 and json.loads(used.body)["error"] == "used_url"

    late = parse_qs(slack.slash_body("/bigidea", "", "UBOB", CHANNEL).decode())["response_url"][0]
    clock.advance(30 * 60)
    assert (await AsyncWebhookClient(late).send_dict({"text": "just in time"})).status_code == 200
    clock.advance(1)
    expired = await AsyncWebhookClient(late).send_dict({"text": "too late"})
    assert expired.status_code == 404 and json.loads(expired.body)["error"] == "expired_url"
    unknown = await AsyncWebhookClient(f"{api.root}response/nope").send_dict({"text": "x"})
    assert unknown.status_code == 404
    nowhere = await AsyncWebhookClient(api.response_url("bare")).send_dict({"text": "x"})
    assert nowhere.status_code == 404  # a URL issued without an interaction posts nowhere
    assert len(api.called("response_url")) == 6
    assert [c.error for c in api.refused] == [
        "used_url",
        "expired_url",
        "no_service",
        "channel_not_found",
    ]


async def test_response_url_payloads_are_validated(api: FakeSlackAPI, slack: SignedClient) -> None:
    url = parse_qs(slack.slash_body("/bigidea", "", "UALICE", CHANNEL).decode())["response_url"][0]
    hook = AsyncWebhookClient(url)
    bad = await hook.send_dict(
        {"text": "x", "blocks": [{"type": "header", "text": plain("h" * 151)}]}
    )
    assert bad.status_code == 400
    assert json.loads(bad.body)["errors"] == [
        "must be less than 151 characters [json-pointer:/blocks/0/text/text]"
    ]
    empty = await hook.send_dict({"text": ""})
    assert empty.status_code == 400 and json.loads(empty.body)["error"] == "no_text"
    wrong = await hook.send_dict({"text": "x", "response_type": "everyone"})
    assert wrong.status_code == 400 and json.loads(wrong.body)["error"] == "invalid_payload"
    assert api.called("response_url") == [] and len(api.refused) == 3
    assert api.response_urls[url.rsplit("/", 1)[1]].uses == 0  # refusals use nothing up


# --- modals ----------------------------------------------------------------------------------

MODAL_BLOCKS: Blocks = [
    {
        "type": "input",
        "label": plain("Your pitch"),
        "element": {"type": "plain_text_input", "action_id": "text"},
    }
]
MODAL = {
    "type": "modal",
    "title": plain("Pitch"),
    "submit": plain("Send"),
    "close": plain("Cancel"),
    "callback_id": "pitch",
    "private_metadata": "C0TABLE",
    "blocks": MODAL_BLOCKS,
}


async def test_views_open_needs_a_fresh_unused_trigger(
    api: FakeSlackAPI, client: AsyncWebClient, slack: SignedClient, clock: Clock
) -> None:
    trigger = str(
        payload_of(slack.action_body("UALICE", CHANNEL, {"action_id": "a"}))["trigger_id"]
    )
    opened = await client.views_open(trigger_id=trigger, view=MODAL)
    view_id = opened["view"]["id"]
    assert api.views[view_id]["callback_id"] == "pitch"
    again = await refusal(client.views_open(trigger_id=trigger, view=MODAL))
    assert again.response["error"] == "exchanged_trigger_id"
    forged = await refusal(client.views_open(trigger_id="1.2.abcdefabcdef", view=MODAL))
    assert forged.response["error"] == "invalid_trigger_id"
    stale = slack.trigger_id()
    clock.advance(3.5)
    late = await refusal(client.views_open(trigger_id=stale, view=MODAL))
    assert late.response["error"] == "expired_trigger_id"

    updated = await client.views_update(view_id=view_id, view={**MODAL, "title": plain("Pitch 2")})
    assert updated["view"]["title"]["text"] == "Pitch 2"
    missing = await refusal(client.views_update(view_id="VNOPE", view=MODAL))
    assert missing.response["error"] == "not_found"
    conflict = await refusal(client.views_update(view_id=view_id, view=MODAL, hash="old"))
    assert conflict.response["error"] == "hash_conflict"
    assert [c.method for c in api.calls] == ["views.open", "views.update"]


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"title": plain("t" * 25)}, "/view/title/text]"),
        ({"title": mrkdwn("t")}, "/view/title/type]"),
        ({"submit": plain("s" * 25)}, "/view/submit/text]"),
        ({"close": plain("c" * 25)}, "/view/close/text]"),
        ({"callback_id": "c" * 256}, "/view/callback_id]"),
        ({"private_metadata": "m" * 3001}, "/view/private_metadata]"),
        ({"blocks": [section()] * 101}, "/view/blocks]"),
        ({"submit": None}, "/view]"),
    ],
)
async def test_modal_limits(
    api: FakeSlackAPI,
    client: AsyncWebClient,
    slack: SignedClient,
    change: dict[str, Any],
    pointer: str,
) -> None:
    view = {k: v for k, v in {**MODAL, **change}.items() if v is not None}
    error = await refusal(client.views_open(trigger_id=slack.trigger_id(), view=view))
    assert error.response["error"] == "invalid_arguments"
    messages = error.response["response_metadata"]["messages"]
    assert any(m.endswith(f"[json-pointer:{pointer}") for m in messages), messages
    edge = {
        "title": plain("t" * 24),
        "submit": plain("s" * 24),
        "close": plain("c" * 24),
        "callback_id": "c" * 255,
        "private_metadata": "m" * 3000,
        "blocks": [*MODAL_BLOCKS, *[section()] * 99],
    }
    assert (await client.views_open(trigger_id=slack.trigger_id(), view={**MODAL, **edge}))["ok"]


# --- mentions --------------------------------------------------------------------------------


async def test_mentions_notify_as_slack_computes_them(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    blocks = [
        {"type": "header", "text": plain("<@UPLAIN> in a header pings nobody")},
        section("<@UBOB|bob>, and escaped &lt;@UESCAPED&gt; pings nobody"),
        {"type": "section", "fields": [mrkdwn("<!subteam^S0TEAM|@team>"), plain("<@UPLAIN>")]},
        {"type": "context", "elements": [mrkdwn("<!channel>"), plain("<!everyone>")]},
        actions(button(label="<@UPLAIN>")),
        {
            "type": "rich_text",
            "elements": [
                {"type": "rich_text_section", "elements": [{"type": "user", "user_id": "URICH"}]}
            ],
        },
    ]
    text = "<@UALICE> <!here> and again <@UBOB> <!everyone|everyone>"
    posted = await client.chat_postMessage(channel=CHANNEL, text=text, blocks=blocks)
    call = api.called("chat.postMessage")[0]
    assert {(n.kind, n.target) for n in api.notifications} == {
        ("user", "UALICE"),
        ("here", "here"),
        ("user", "UBOB"),
        ("everyone", "everyone"),
        ("group", "S0TEAM"),
        ("channel", "channel"),
        ("user", "URICH"),
    }
    assert len(api.notifications) == 7  # Bob, named twice, is notified once
    assert all(n.call is call and n.channel == CHANNEL for n in api.notifications)

    await client.chat_update(channel=CHANNEL, ts=posted["ts"], text="<@UCAROL> <!channel>")
    await client.chat_postEphemeral(channel=CHANNEL, user="UALICE", text="<@UCAROL> <!here>")
    await client.chat_postMessage(channel=CHANNEL, text="no one: &lt;!here&gt; <#C0OTHER>")
    assert len(api.notifications) == 7  # edits and ephemeral messages notify nobody new
    assert "UCAROL" not in api.notified()
    assert api.notified("user") == ["UALICE", "UBOB", "URICH"]


# --- posting rates ---------------------------------------------------------------------------


async def test_posting_rate_is_measured_per_channel(
    api: FakeSlackAPI, client: AsyncWebClient, clock: Clock
) -> None:
    for step in (0.0, 0.2, 0.2, 0.2, 4.4, 0.9):
        clock.advance(step)
        await client.chat_postMessage(channel=CHANNEL, text="tick")
    await client.chat_postEphemeral(channel=CHANNEL, user="UALICE", text="not a post")
    await client.chat_postMessage(channel=OTHER, text="elsewhere")
    rate = api.max_posts_per_s(CHANNEL)
    assert (rate.posts, rate.peak) == (6, 4)  # four within 0.6 s; measured, never refused
    assert rate.sustained == pytest.approx(6 / 5.9)
    assert api.max_posts_per_s(OTHER).posts == 1 and api.max_posts_per_s(OTHER).sustained == 1.0
    assert api.max_posts_per_s("C0QUIET").posts == 0
    assert api.refused == [] and api.rate_limited == []


# --- the signing client ----------------------------------------------------------------------


async def test_signed_client_bodies_carry_the_fakes_response_urls(
    api: FakeSlackAPI, client: AsyncWebClient, session: ClientSession
) -> None:
    board = (await client.chat_postMessage(channel=CHANNEL, text="board", blocks=[section()]))["ts"]
    # No api given: the only fake running in this process issues the URLs.
    linked = SignedClient("http://127.0.0.1:9/slack/events", "s", session)
    api.add_user("UALICE", name="alice.a")
    payload = payload_of(linked.action_body("UALICE", CHANNEL, {"action_id": "a"}, board))
    assert payload["response_url"].startswith(f"{api.root}response/")
    assert payload["user"]["name"] == payload["user"]["username"] == "alice.a"
    assert payload["message"]["ts"] == board and payload["message"]["blocks"] == [section()]
    slash = parse_qs(linked.slash_body("/bigidea", "start", "UALICE", CHANNEL).decode())
    assert slash["user_name"] == ["alice.a"]
    assert slash["response_url"][0].startswith(f"{api.root}response/")
    ephemeral = payload_of(linked.action_body("UALICE", CHANNEL, {"action_id": "a"}, "5.1", True))
    assert "message" not in ephemeral  # Slack sends no message for an ephemeral one

    await api.close()  # no fake running: the dead URL of old
    lonely = SignedClient("http://127.0.0.1:9/slack/events", "s", session)
    assert parse_qs(lonely.slash_body("/bigidea", "", "U1", CHANNEL).decode())["response_url"] == [
        DEAD_URL
    ]
    body = b"payload=x"
    assert sign("s", body, 1) == sign("s", body, 1) != sign("t", body, 1)


# --- threads, DMs, the tally -----------------------------------------------------------------


async def test_thread_replies_need_a_live_parent_in_that_channel(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    parent = (await client.chat_postMessage(channel=CHANNEL, text="the card"))["ts"]
    reply = await client.chat_postMessage(channel=CHANNEL, text="the board", thread_ts=parent)
    assert reply["ok"] and reply["message"]["thread_ts"] == parent
    ephemeral = await client.chat_postEphemeral(
        channel=CHANNEL, user="UALICE", text="yours", thread_ts=parent
    )
    assert api.channel_messages(CHANNEL) == [api.message(CHANNEL, parent)]
    assert [m.ts for m in api.replies(CHANNEL, parent)] == [reply["ts"]]
    shown = api.message(CHANNEL, ephemeral["message_ts"])
    assert shown is not None and shown.thread_ts == parent and shown.ephemeral

    for channel, thread, code in (
        (CHANNEL, "not-a-ts", "invalid_thread_ts"),
        (CHANNEL, reply["ts"], "invalid_thread_ts"),  # a reply's ts, not its parent's
        (CHANNEL, "999.000100", "thread_not_found"),
        (OTHER, parent, "thread_not_found"),  # that parent is in another channel
    ):
        error = await refusal(client.chat_postMessage(channel=channel, text="x", thread_ts=thread))
        assert error.response["error"] == code, (channel, thread)
    error = await refusal(
        client.chat_postEphemeral(channel=CHANNEL, user="UALICE", text="x", thread_ts="1.5")
    )
    assert error.response["error"] == "thread_not_found"
    # A reply is edited and deleted like any message of the channel.
    assert (await client.chat_update(channel=CHANNEL, ts=reply["ts"], text="moved"))["ok"]
    assert (await client.chat_delete(channel=CHANNEL, ts=reply["ts"]))["ok"]
    assert api.replies(CHANNEL, parent) == []
    assert len(api.replies(CHANNEL, parent, deleted=True)) == 1
    api.delete(CHANNEL, parent)  # a moderator deletes the parent: no more replies there
    error = await refusal(client.chat_postMessage(channel=CHANNEL, text="x", thread_ts=parent))
    assert error.response["error"] == "thread_not_found"
    assert len(api.refused) == 6


async def test_dms_must_be_opened_and_can_be_closed(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    error = await refusal(client.chat_postMessage(channel="DUALICE", text="hi"))
    assert error.response["error"] == "channel_not_found"  # never opened
    dm = (await client.conversations_open(users="UALICE"))["channel"]["id"]
    posted = await client.chat_postMessage(channel=dm, text="your hand")
    assert (await client.chat_update(channel=dm, ts=posted["ts"], text="your new hand"))["ok"]
    message = api.message(dm, posted["ts"])
    assert message is not None and message.text == "your new hand" and len(message.edits) == 1
    error = await refusal(client.chat_update(channel=CHANNEL, ts=posted["ts"], text="x"))
    assert error.response["error"] == "message_not_found"  # it is in the DM, not the channel
    assert (await client.chat_delete(channel=dm, ts=posted["ts"]))["ok"]
    assert message.deleted

    api.close_dms("UBOB")
    api.close_dms("UCAROL", "cannot_dm_bot")
    for user, code in (("UBOB", "user_disabled"), ("UCAROL", "cannot_dm_bot"), ("bob", None)):
        error = await refusal(client.conversations_open(users=user))
        assert error.response["error"] == (code or "user_not_found")
    assert [c.error for c in api.refused] == [
        "channel_not_found",
        "message_not_found",
        "user_disabled",
        "cannot_dm_bot",
        "user_not_found",
    ]


async def test_rates_and_notifications_per_channel_and_per_thread(
    api: FakeSlackAPI, client: AsyncWebClient, clock: Clock
) -> None:
    card = (await client.chat_postMessage(channel=CHANNEL, text="card"))["ts"]
    for step in (0.3, 0.3, 0.3):
        clock.advance(step)
        await client.chat_postMessage(channel=CHANNEL, text="<@UBOB>: go", thread_ts=card)
    clock.advance(2.0)
    await client.chat_postMessage(channel=CHANNEL, text="result <@UCAROL>")
    everything = api.max_posts_per_s(CHANNEL)
    assert (everything.posts, everything.peak) == (5, 4)  # replies count for the channel
    thread = api.max_posts_per_s(CHANNEL, card)
    assert (thread.posts, thread.peak) == (3, 3)
    top = api.max_posts_per_s(CHANNEL, top_level=True)
    assert (top.posts, top.peak) == (2, 1)
    assert [n.target for n in api.notified_in(CHANNEL, card)] == ["UBOB"] * 3
    assert [n.target for n in api.notified_in(CHANNEL)] == ["UCAROL"]


async def test_the_tally_counts_every_request_made(
    api: FakeSlackAPI, client: AsyncWebClient, slack: SignedClient, session: ClientSession
) -> None:
    ts = (await client.chat_postMessage(channel=CHANNEL, text="panel"))["ts"]
    mark = len(api.received)
    await client.chat_update(channel=CHANNEL, ts=ts, text="again")
    await refusal(client.chat_update(channel=CHANNEL, ts="9.9", text="nowhere"))
    await AsyncWebhookClient(_pressed(slack, CHANNEL, ts)).send_dict(
        {"text": "replaced", "replace_original": True}
    )
    anonymous = AsyncWebClient(token=None, base_url=api.url, session=session)
    await anonymous.api_call(HANDLED, json={"user": "UALICE"})
    api.rate_limit(1.0, retry_after=0)
    no_retries = AsyncWebClient(token="xoxb-test", base_url=api.url, session=session)
    no_retries.retry_handlers = []
    await refusal(no_retries.chat_delete(channel=CHANNEL, ts=ts))
    assert api.tally(mark) == {"chat.update": 2, "response_url": 1, "chat.delete": 1}
    assert sum(api.tally().values()) == 5


async def test_a_press_in_a_thread_says_so_in_its_container(
    api: FakeSlackAPI, client: AsyncWebClient, slack: SignedClient
) -> None:
    card = (await client.chat_postMessage(channel=CHANNEL, text="card"))["ts"]
    prompt = (
        await client.chat_postMessage(
            channel=CHANNEL, text="vote", thread_ts=card, blocks=[actions(button())]
        )
    )["ts"]
    payload = payload_of(slack.action_body("UALICE", CHANNEL, {"action_id": "a1"}, prompt))
    assert payload["container"]["thread_ts"] == card
    assert payload["message"]["thread_ts"] == card
    flat = payload_of(slack.action_body("UALICE", CHANNEL, {"action_id": "a1"}, card))
    assert "thread_ts" not in flat["container"]
    dm = payload_of(slack.action_body("UALICE", "DUALICE", {"action_id": "a1"}, "1.0"))
    assert dm["channel"] == {"id": "DUALICE", "name": "directmessage"}


# --- file uploads: getUploadURLExternal, the upload URL, completeUploadExternal -------------------


async def _ticket(client: AsyncWebClient, data: bytes, name: str = "rules.md") -> tuple[str, str]:
    issued = await client.files_getUploadURLExternal(filename=name, length=len(data))
    return str(issued["file_id"]), str(issued["upload_url"])


async def _put(session: ClientSession, url: str, data: bytes) -> int:
    async with session.post(url, data=data) as response:
        return response.status


async def test_an_upload_url_needs_a_name_and_a_length(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    for params, code in (
        ({"length": 5}, "invalid_arguments"),
        ({"filename": "a.md"}, "invalid_arguments"),
        ({"filename": "a.md", "length": "five"}, "invalid_arguments"),
        ({"filename": "a.md", "length": 0}, "missing_argument"),
        ({"filename": "a.png", "length": 5, "alt_txt": "x" * 1001}, "alt_txt_too_large"),
    ):
        error = await refusal(client.api_call("files.getUploadURLExternal", params=params))
        assert error.response["error"] == code, params
    file_id, url = await _ticket(client, b"hello")
    assert file_id.startswith("F") and url.startswith(api.root)
    assert api.files[file_id].data is None


async def test_the_upload_url_takes_one_post_of_exactly_its_length(
    api: FakeSlackAPI, client: AsyncWebClient, session: ClientSession
) -> None:
    _, short = await _ticket(client, b"hello")
    assert await _put(session, short, b"hell") == 400
    assert await _put(session, short, b"hello") == 404  # spent by the first POST
    file_id, url = await _ticket(client, b"hello")
    assert await _put(session, url, b"hello") == 200
    assert await _put(session, url, b"hello") == 404
    assert api.files[file_id].data == b"hello"
    assert await _put(session, f"{api.root}upload/nothing", b"x") == 404
    refused = [c.error for c in api.refused]
    assert refused == ["length_mismatch", "not_found", "not_found", "not_found"]


async def test_complete_needs_uploaded_files_and_a_channel_the_bot_may_post_in(
    api: FakeSlackAPI, client: AsyncWebClient, session: ClientSession
) -> None:
    for files in (None, "not json", "[]", '[{"title": "no id"}]'):
        params = {} if files is None else {"files": files}
        error = await refusal(client.api_call("files.completeUploadExternal", params=params))
        assert error.response["error"] == "invalid_arguments", files
    waiting, url = await _ticket(client, b"page")
    for unknown in ("F404", waiting):  # never issued; issued but not uploaded yet
        error = await refusal(client.files_completeUploadExternal(files=[{"id": unknown}]))
        assert error.response["error"] == "file_not_found"
    assert await _put(session, url, b"page") == 200
    error = await refusal(
        client.files_completeUploadExternal(files=[{"id": waiting}], channel_id="DUALICE")
    )
    assert error.response["error"] == "channel_not_found"  # a DM nobody opened
    api.not_in(OTHER)
    error = await refusal(
        client.files_completeUploadExternal(files=[{"id": waiting}], channel_id=OTHER)
    )
    assert error.response["error"] == "not_in_channel"
    assert api.files[waiting].completed is False and api.channel_messages(OTHER) == []
    dm = (await client.conversations_open(users="UALICE"))["channel"]["id"]
    done = await client.files_completeUploadExternal(
        files=[{"id": waiting, "title": "The rules"}],
        channel_id=dm,
        initial_comment="The whole page <!channel>",
    )
    assert done["files"] == [{"id": waiting, "title": "The rules"}]
    [shared] = api.channel_messages(dm)
    assert shared.text == "The whole page <!channel>" and shared.files[0].data == b"page"
    assert api.notified("channel") == ["channel"]  # the comment is a message like any other
    error = await refusal(client.files_completeUploadExternal(files=[{"id": waiting}]))
    assert error.response["error"] == "file_not_found"  # completed once only


async def test_files_upload_v2_runs_the_whole_flow(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    dm = (await client.conversations_open(users="UBOB"))["channel"]["id"]
    page = "# Rules\n\nÜber alles.\n".encode()
    done = await client.files_upload_v2(
        file=page, filename="rules.md", title="Rules", channel=dm, initial_comment="Here"
    )
    assert done["file"]["title"] == "Rules"
    [shared] = api.channel_messages(dm)
    assert [(f.filename, f.data) for f in shared.files] == [("rules.md", page)]
    assert [c.method for c in api.calls[-3:]] == [
        "files.getUploadURLExternal",
        "upload_url",
        "files.completeUploadExternal",
    ]


async def test_an_image_block_shows_only_a_file_whose_upload_was_completed(
    api: FakeSlackAPI, client: AsyncWebClient, session: ClientSession
) -> None:
    """A ``slack_file`` names a completed upload (shared anywhere or not): an unknown id, or
    one still being uploaded, is refused with ``invalid_blocks``."""
    file_id, url = await _ticket(client, b"png", name="board.png")

    def board(ident: str) -> list[dict[str, Any]]:
        return [{"type": "image", "slack_file": {"id": ident}, "alt_text": "The board."}]

    for ident in ("F404", file_id):
        error = await refusal(
            client.chat_postMessage(channel=CHANNEL, text="b", blocks=board(ident))
        )
        assert error.response["error"] == "invalid_blocks", ident
        assert "invalid slack file" in error.response["errors"][0]
    assert await _put(session, url, b"png") == 200
    error = await refusal(client.chat_postMessage(channel=CHANNEL, text="b", blocks=board(file_id)))
    assert error.response["error"] == "invalid_blocks"  # uploaded, not yet completed
    await client.files_completeUploadExternal(files=[{"id": file_id, "title": "The board."}])
    posted = await client.chat_postMessage(channel=CHANNEL, text="b", blocks=board(file_id))
    assert posted["ok"] and api.files[file_id].shares == []
