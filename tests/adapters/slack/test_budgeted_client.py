"""The budgeted Web API client against the strict fake Slack with its budgets on: a call
retried after a 429 is taken from its limits again (its conversation's posts included, though
slack_sdk shows its retry handler no JSON body), and a file shared into a conversation counts as
a message posted there, as the fake counts it."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest
from aiohttp import ClientSession

from bot.adapters.slack.app import RetryAfterHandler, with_retries
from bot.adapters.slack.budget import BudgetedWebClient, scope_of
from bot.table.budget import Budget
from storage import GameStore
from testkit.clock import VirtualClock
from testkit.slack.fake import FakeSlackAPI

CHANNEL = "CBUDGET1"


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
async def api(clock: VirtualClock) -> AsyncIterator[FakeSlackAPI]:
    fake = FakeSlackAPI(clock=clock)
    await fake.start()
    yield fake
    await fake.close()


@pytest.fixture
async def client(
    api: FakeSlackAPI, clock: VirtualClock, redis_store: GameStore
) -> AsyncIterator[BudgetedWebClient]:
    async with ClientSession() as session:
        client = with_retries(
            BudgetedWebClient(token="xoxb-budget", base_url=api.url, session=session)
        )
        client.budget = Budget(redis_store, scope_of("xoxb-budget"), clock)
        for handler in client.retry_handlers:
            if isinstance(handler, RetryAfterHandler):
                handler.clock, handler.budget = clock, client.budget
        yield client


def _refusing_first_only(ratio: float) -> int:
    """A seed whose draws refuse the first call and let the next dozen through."""
    for seed in range(10_000):
        rng = random.Random(seed)
        draws = [rng.random() for _ in range(13)]
        if draws[0] < ratio and all(d >= ratio for d in draws[1:]):
            return seed
    raise AssertionError("no such seed")


async def test_a_post_retried_after_a_429_is_taken_from_its_conversation_again(
    api: FakeSlackAPI, client: BudgetedWebClient
) -> None:
    api.rate_limit(0.3, seed=_refusing_first_only(0.3), retry_after=1)
    await client.chat_postMessage(channel=CHANNEL, text="one")
    await client.chat_postMessage(channel=CHANNEL, text="two")
    posts = [c for c in api.received if c.method == "chat.postMessage"]
    assert [c.error for c in posts] == ["ratelimited", None, None]
    # The retry was one of the conversation's posts: the next waited a second after it.
    assert posts[2].at - posts[1].at >= 1.0
    assert api.over_budget == 0


async def test_a_file_shared_into_a_conversation_counts_as_a_post_there(
    api: FakeSlackAPI, client: BudgetedWebClient
) -> None:
    await client.files_upload_v2(
        channel=CHANNEL, content=b"board", filename="board.png", title="Board"
    )
    await client.chat_postMessage(channel=CHANNEL, text="after the board")
    shared = next(c for c in api.received if c.method == "files.completeUploadExternal")
    posted = next(c for c in api.received if c.method == "chat.postMessage")
    assert posted.error is None and posted.at - shared.at >= 1.0
    assert api.over_budget == 0
