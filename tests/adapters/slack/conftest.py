"""The real Bolt app on 127.0.0.1 with a fake Web API and a real redis-server, per test.

Time is a :class:`~testkit.clock.VirtualClock` shared by the fake, the bot's table and the
authority: waiting for Slack's pace or for a deadline jumps instead of taking real time."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest

from bot.commands.record import GameRecord
from bot.settings import Settings
from bot.table import Refs
from core.engine import GameState
from storage import GameKey
from testkit.clock import VirtualClock
from testkit.slack.fake import FakeSlackAPI, Message
from testkit.slack.loopback import Loopback
from tests.authority_support import save_state as write_state

CHANNEL = "C0TABLE"
PACE_S = 0.0
"""The table's posting window in these tests: none, so what it does never depends on timing
(Slack's second is checked on its own in test_slack_surfaces)."""
MENTIONS = re.compile(r"((?:<@[UW][A-Z0-9]+>, )*<@[UW][A-Z0-9]+>):")
"""The head of a turn notice: the users the game waits for."""


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
async def loop(redis_url: str, clock: VirtualClock) -> AsyncIterator[Loopback]:
    # A turn notice as the turn starts, so that whole games at once reach notices;
    # test_slack_surfaces checks the notice that waits for its player (the default).
    settings = Settings.model_validate({"BOARDROOM_NUDGE_SECONDS": 0})
    loopback = await Loopback.start(
        redis_url, seed=7, settings=settings, pace_s=PACE_S, clock=clock
    )
    await loopback.store.client.flushdb()
    yield loopback
    await loopback.close()


async def stored(loop: Loopback, channel: str = CHANNEL) -> GameRecord | None:
    """The channel's game record as saved in Redis."""
    _, loaded = await loop.store.load(GameKey("slack", channel))
    return GameRecord.model_validate_json(loaded.data) if loaded else None


async def save_state(loop: Loopback, record: GameRecord, state: GameState) -> None:
    """Write ``state`` into the channel's record (as a later moment of the same game)."""
    await write_state(loop.store, GameKey("slack", CHANNEL), record, state)


async def refs(loop: Loopback, channel: str = CHANNEL) -> Refs:
    """What the table layer remembers having shown in the channel (kept in Redis)."""
    saved = await loop.store.table_refs(GameKey("slack", channel))
    assert saved is not None, "the table remembers nothing of this channel"
    return Refs.model_validate_json(saved[1])


def header(message: Message) -> str:
    """The text of a message's header block ("" without one)."""
    for block in message.blocks:
        if block.get("type") == "header":
            return str(block["text"]["text"])
    return ""


def boards(api: FakeSlackAPI, channel: str, thread: str | None, title: str) -> list[Message]:
    """The live messages of the game's place (its thread, or the channel) headed ``title``."""
    place = api.replies(channel, thread) if thread else api.channel_messages(channel)
    return [m for m in place if header(m) == title]


def notice_of(text: str) -> list[str]:
    """The users a turn notice with this text names at its head ([]: not a notice)."""
    named = MENTIONS.match(text)
    if named is None or "your move" not in text.lower():
        return []
    return re.findall(r"<@([UW][A-Z0-9]+)>", named[1])


def assert_only_notices(api: FakeSlackAPI) -> None:
    """Nobody was notified but by a turn notice, and a notice notifies just whom it names at
    its head (a name or a pitch that looks like a mention notifies nobody)."""
    for note in api.notifications:
        text = str(note.call.args.get("text", ""))
        assert note.kind == "user", (note.kind, text[:200])
        assert note.target in notice_of(text), f"{note.target} was notified by {text[:200]!r}"


def told_privately(api: FakeSlackAPI, user: str, since: int) -> list[str]:
    """What ``user`` was told privately since call ``since``: ephemerals (posted, or through
    their request's response URL) and DMs, in order."""
    urls = {issued.url: issued.user for issued in api.response_urls.values()}
    return [
        str(c.args.get("text", ""))
        for c in api.calls[since:]
        if (c.method == "chat.postEphemeral" and c.args.get("user") == user)
        or (
            c.method == "response_url"
            and not c.args.get("replace_original")
            and urls.get(c.url or "") == user
        )
        or (c.method == "chat.postMessage" and c.args.get("channel") == f"D{user}")
    ]
