"""Slack's App Home through the real Bolt app and the strict fake: the Home tab a person opens
shows their open games (where, which, whose turn) and their stats, and follows their games."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import ClientSession
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack.budget import BudgetedWebClient
from bot.adapters.slack.home import HOME_TTL_S, home_view
from bot.commands.community.forget import AFTER_END_S
from bot.commands.community.home import Home, HomeGame
from bot.commands.community.upkeep import EVERY_S
from testkit.clock import VirtualClock
from testkit.slack.fake import FakeSlackAPI, validate_home_view
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable
from tests.adapters.slack.conftest import CHANNEL

USERS = ["UALICE", "UBOB", "UCAROL"]
QUICK = "pick_seconds=0 vote_seconds=0 turn_seconds=0"
PACE_S = 0.2
"""The least real time between two pages of one person here (a whole game takes a few
seconds)."""


def _page(api: FakeSlackAPI, user: str) -> str:
    """Every text of the Home tab Slack shows ``user`` now."""
    view = api.homes[user]
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                found.append(node["text"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(view["blocks"])
    return "\n".join(found)


def _published(api: FakeSlackAPI) -> list[tuple[str, str]]:
    """(user, the view as JSON) of every accepted ``views.publish``, in order."""
    return [
        (str(call.args["user_id"]), json.dumps(call.args["view"], sort_keys=True))
        for call in api.called("views.publish")
    ]


async def test_the_home_tab_shows_a_persons_games_and_stats_and_follows_them(
    loop: Loopback, clock: VirtualClock
) -> None:
    api = loop.api
    loop.adapter.homes.pace_s = PACE_S
    assert await loop.slack.open_home(USERS[1]) == 200
    await loop.adapter.settled()
    assert "not seated in any game" in _page(api, USERS[1])
    assert "No finished games in this workspace yet" in _page(api, USERS[1])

    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(3), "bigidea")
    await table.command(USERS[0], f"start {QUICK}")
    await table.command(USERS[1], "join")
    await loop.adapter.settled()
    page = _page(api, USERS[1])
    # The lobby, with a link to its channel; whose lobby it is.
    assert f"*The Big Idea* in <#{CHANNEL}>: lobby" in page and "waiting for" in page
    await table.command(USERS[2], "join")
    await table.command(USERS[0], "begin")
    await loop.adapter.settled()
    page = _page(api, USERS[1])
    assert f"<#{CHANNEL}>: " in page and "lobby" not in page
    assert "*your turn*" in page or "waiting for" in page

    await table.play(max_presses=2_000)
    await loop.adapter.settled()
    page = _page(api, USERS[1])
    assert "not seated in any game" in page  # the game is over
    assert "The Big Idea: rating" in page and "1 game" in page and "Recent games:" in page

    published = _published(api)
    assert not [c for c in api.refused if c.method == "views.publish"], api.refused
    # Only the person who opened their Home tab has one published, each time showing something
    # new: a handful of pages over a whole game, not one a press.
    assert {user for user, _ in published} == {USERS[1]}
    views = [view for _, view in published]
    assert all(a != b for a, b in itertools.pairwise(views))
    # Paced on real time: after the page the person opened, each page follows the one before by
    # at least the pace (by the fake's own log), however slowly this machine plays the game.
    times = [call.at for call in api.called("views.publish")]
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert len(published) >= 3 and min(gaps[1:]) >= PACE_S - 0.01, gaps
    assert len(published) < table.stats.presses, (len(published), table.stats.presses)

    # forget-me: the page loses the stats, the person's mark goes with the rest of them.
    community = SlackTable.on(loop, CHANNEL, USERS, random.Random(3), "boardroom")
    await community.command(USERS[1], "forget-me yes")
    await loop.adapter.settled()
    assert "No finished games in this workspace yet" in _page(api, USERS[1])
    # (The game just ended: its table's refs are erased a minute on, by a chore.)
    clock.skipped += AFTER_END_S + EVERY_S + 1
    await loop.authority.fire_due("slack")
    client: Any = loop.store.client
    keys = [str(key) async for key in client.scan_iter(match="*", count=1000)]
    assert not [key for key in keys if USERS[1] in key], keys
    before = len(_published(api))
    await table.command(USERS[0], f"start {QUICK}")
    await table.command(USERS[1], "join")
    await loop.adapter.settled()
    assert len(_published(api)) == before  # not followed any more, until opened again
    assert await loop.slack.open_home(USERS[1]) == 200
    await loop.adapter.settled()
    assert "lobby" in _page(api, USERS[1])


async def test_the_messages_tab_and_other_events_publish_nothing(loop: Loopback) -> None:
    assert await loop.slack.open_home(USERS[0], tab="messages") == 200
    other = loop.slack.event_body({"type": "reaction_added", "user": USERS[0]})
    status, _ = await loop.slack.send(other, {"Content-Type": "application/json"})
    assert status == 404  # an event the manifest does not subscribe to
    broken = loop.slack.event_body({"type": "app_home_opened", "user": "not an id!"})
    status, _ = await loop.slack.send(broken, {"Content-Type": "application/json"})
    assert status == 400
    unsigned = loop.slack.home_opened_body(USERS[0])
    status, _ = await loop.slack.send(unsigned, {"Content-Type": "application/json"}, signed=False)
    assert status == 401
    await loop.adapter.settled()
    assert loop.api.called("views.publish") == [] and loop.api.homes == {}


async def test_the_events_url_check_is_answered_with_its_challenge(loop: Loopback) -> None:
    body = json.dumps({"type": "url_verification", "challenge": "c0ffee", "token": "t"})
    status, answer = await loop.slack.send(body.encode(), {"Content-Type": "application/json"})
    assert status == 200 and json.loads(answer)["challenge"] == "c0ffee"


def test_a_full_home_page_stays_within_slacks_limits() -> None:
    """Twenty games with long team names and a page of stats: a view Slack accepts, names
    escaped (no mention, no markup of theirs)."""
    name = "<!channel> *bold* " + "x" * 300
    games = [
        HomeGame(
            channel=f"C{i:08d}",
            game="biggiebills",
            title="BiggieBills$$$",
            status="playing",
            seat=name,
            turn=i % 2 == 0,
            waiting=[name, "Team Two"],
        )
        for i in range(20)
    ]
    home = Home(user="UBOB", games=games, more=3, name="bob", stats=["a line " * 40] * 30)
    view = home_view(home)
    assert validate_home_view(view) == []
    text = json.dumps(view)
    assert "<!channel>" not in text and "&lt;!channel&gt;" in text
    assert HOME_TTL_S >= 3600


@pytest.fixture
async def api() -> AsyncIterator[FakeSlackAPI]:
    fake = FakeSlackAPI()
    await fake.start()
    yield fake
    await fake.close()


@pytest.fixture
async def client(api: FakeSlackAPI) -> AsyncIterator[AsyncWebClient]:
    async with ClientSession() as session:
        yield BudgetedWebClient(token="xoxb-test", base_url=api.url, session=session)


async def _refused(call: Any) -> str:
    with pytest.raises(SlackApiError) as caught:
        await call
    return str(caught.value.response["error"])


HOME: dict[str, Any] = {
    "type": "home",
    "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "hi"}}],
}


async def test_the_fake_refuses_the_home_views_slack_refuses(
    api: FakeSlackAPI, client: AsyncWebClient
) -> None:
    publish = client.views_publish
    assert await _refused(publish(user_id="UBOB", view={**HOME, "type": "modal"})) == (
        "invalid_arguments"
    )
    titled = {**HOME, "title": {"type": "plain_text", "text": "Home"}}
    assert await _refused(publish(user_id="UBOB", view=titled)) == "invalid_arguments"
    many = {"type": "home", "blocks": HOME["blocks"] * 101}
    assert await _refused(publish(user_id="UBOB", view=many)) == "invalid_arguments"
    api.missing_users.add("UGONE")
    assert await _refused(publish(user_id="UGONE", view=HOME)) == "invalid_arguments"
    assert await _refused(publish(user_id="", view=HOME)) == "invalid_arguments"
    huge = {
        "type": "home",
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 2999}}] * 90,
    }
    assert await _refused(publish(user_id="UBOB", view=huge)) == "view_too_large"
    assert api.homes == {}

    first = await publish(user_id="UBOB", view=HOME)
    shown = first["view"]
    assert shown["type"] == "home" and api.homes["UBOB"]["id"] == shown["id"]
    assert await _refused(publish(user_id="UBOB", view=HOME, hash="1.stale")) == "hash_conflict"
    again = await publish(user_id="UBOB", view=HOME, hash=shown["hash"])
    assert again["view"]["id"] == shown["id"]  # the same Home tab, updated

    api.home_tab_enabled = False
    assert await _refused(publish(user_id="UCAROL", view=HOME)) == "not_enabled"


def test_the_manifest_enables_the_home_tab_and_its_event() -> None:
    assert FakeSlackAPI().home_tab_enabled  # (the fake reads the project's manifest)


async def test_opening_the_home_tab_again_publishes_only_a_page_that_changed(
    loop: Loopback,
) -> None:
    api = loop.api
    loop.adapter.homes.pace_s = PACE_S
    for _ in range(30):  # an unchanged page: once, whoever opens it how often
        assert await loop.slack.open_home(USERS[0]) == 200
    await loop.adapter.settled()
    assert len(_published(api)) == 1

    table = SlackTable.on(loop, CHANNEL, USERS, random.Random(3), "bigidea")
    await table.command(USERS[1], f"start {QUICK}")  # (not followed: UALICE has no seat)
    await table.command(USERS[0], "join")  # her page changes: published, one pace later
    await loop.adapter.settled()
    for _ in range(5):
        assert await loop.slack.open_home(USERS[0]) == 200
    await loop.adapter.settled()
    published = api.called("views.publish")
    assert len(published) == 2 and "lobby" in _page(api, USERS[0])
    assert published[1].at - published[0].at >= PACE_S - 0.01  # at most once per pace


async def test_an_event_delivered_again_is_dropped_by_every_worker(loop: Loopback) -> None:
    """The same signed ``app_home_opened`` (one ``event_id``), 200 times, half of them to a
    second worker on the same Redis: one page is built and published."""
    api = loop.api
    body = loop.slack.home_opened_body(USERS[0])
    other = await loop.worker()
    for n in range(200):
        front = loop.slack if n % 2 == 0 else other.slack
        status, _ = await front.send(body, {"Content-Type": "application/json"})
        assert status == 200
    await loop.adapter.settled()
    await other.adapter.settled()
    assert len(_published(api)) == 1
    event_id = json.loads(body)["event_id"]
    client: Any = loop.store.client
    assert await client.exists(f"boardroom:seen:{{slack:{event_id}}}") == 1
