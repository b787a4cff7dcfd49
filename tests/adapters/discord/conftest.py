"""The fake Discord, a clean real redis-server and the bot's authority, per test; and how to read
what the table showed (its card, board, log, prompts, panels and turn notices) off the fake.

Time is a :class:`~testkit.clock.VirtualClock` shared by the fake (its windows), the bot's table
(its pacing, through ``running_bot``) and the authority (its deadlines): waiting for Discord's
post limit or for a deadline jumps instead of taking real time."""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.commands.authority import Authority
from bot.commands.record import GameRecord
from bot.settings import Settings
from bot.table import Refs
from core.engine import GameState
from storage import GameKey, GameStore
from testkit.clock import VirtualClock
from testkit.discord.fake import FakeDiscord, FakeMessage, FakeUser
from testkit.discord.sim import Table
from tests.authority_support import save_state as write_state

CHANNEL = 700_000_000_000_000_001
_USER_MENTION = re.compile(r"<@!?(\d+)>")
USERS = [
    FakeUser(800_000_000_000_000_000 + i, name)
    for i, name in enumerate(["alice", "bob", "carol", "dave"])
]


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
async def fake(clock: VirtualClock) -> AsyncIterator[FakeDiscord]:
    server = await FakeDiscord(clock=clock).start()
    yield server
    await server.close()


@pytest.fixture
def store(redis_store: GameStore) -> GameStore:
    return redis_store


@pytest.fixture
def settings(fake: FakeDiscord) -> Settings:
    return Settings.model_validate(
        {
            "DISCORD_GUILD_IDS": str(fake.guild_id),
            "DISCORD_API_URL": fake.api_url,
            "DISCORD_GATEWAY_URL": fake.gateway_url,
            "BOARDROOM_DEADLINE_POLL_SECONDS": 0.05,
            # A turn notice as the turn starts, so that whole games at once reach notices;
            # test_surfaces checks the notice that waits for its player (the default).
            "BOARDROOM_NUDGE_SECONDS": 0,
        }
    )


@pytest.fixture
def authority(store: GameStore, settings: Settings, clock: VirtualClock) -> Authority:
    seeds = random.Random(11)
    return Authority(store, settings, clock=clock.wall, new_seed=lambda: seeds.getrandbits(63))


async def save_state(table: Table, record: GameRecord, state: GameState) -> None:
    """Write ``state`` into the table's record (as a later moment of the same game)."""
    await write_state(table.client.adapter.authority.store, table.key, record, state)


# --- what the table showed -----------------------------------------------------------------------


async def refs(store: GameStore, channel: int = CHANNEL) -> Refs:
    """What the table layer remembers having shown in the channel (kept in Redis)."""
    saved = await store.table_refs(GameKey("discord", str(channel)))
    assert saved is not None, "the table remembers nothing of this channel"
    return Refs.model_validate_json(saved[1])


def titled(message: FakeMessage, title: str) -> bool:
    """A message whose embed has exactly this title (a board: "The Big Idea", "Busine$$ GO")."""
    embeds = message.data.get("embeds") or []
    return bool(embeds) and embeds[0].get("title") == title


def posted(fake: FakeDiscord, place: int) -> list[FakeMessage]:
    """Every message the bot posted in ``place`` (a channel, a thread, a DM), deleted ones too,
    oldest first."""
    return [m for m in _posts(fake) if m.channel_id == place]


def _posts(fake: FakeDiscord) -> list[FakeMessage]:
    """Every message posted where more than one user sees it or in a DM (not ephemeral)."""
    found = (fake.message(i) for what, _, i in fake.history if what == "post")
    return [m for m in found if m.audience != "ephemeral"]


def _shown(fake: FakeDiscord, place: int) -> list[tuple[str, int]]:
    """The posts and deletions of ``place``'s non-ephemeral messages, in order."""
    return [
        (what, i)
        for what, where, i in fake.history
        if where == place and what != "edit" and fake.message(i).audience != "ephemeral"
    ]


def boards(fake: FakeDiscord, place: int, title: str) -> list[FakeMessage]:
    """Every board posted in ``place``, oldest first; all but the live one deleted."""
    return [m for m in posted(fake, place) if titled(m, title)]


def live_boards(fake: FakeDiscord, place: int, title: str) -> list[FakeMessage]:
    return [m for m in fake.public(place) if titled(m, title)]


def lines(messages: list[FakeMessage]) -> list[str]:
    """Every line the messages show (log posts, and the board's "Latest" lines)."""
    return [line.strip() for m in messages for line in m.text.split("\n")]


def most_below(fake: FakeDiscord, place: int, title: str) -> int:
    """The most messages there were below the live board in ``place`` at any moment."""
    live: list[int] = []
    most = 0
    for what, message_id in _shown(fake, place):
        if what == "post":
            live.append(message_id)
        else:
            live.remove(message_id)
        at = [k for k, i in enumerate(live) if titled(fake.message(i), title)]
        if at:
            most = max(most, len(live) - 1 - at[-1])
    return most


def dm_posts(fake: FakeDiscord, user: FakeUser) -> list[FakeMessage]:
    """The direct messages the bot posted to ``user`` (each a new DM, not an edit)."""
    channel = fake.dm_channel(user)
    return posted(fake, channel) if channel is not None else []


def mentioned(text: str) -> list[int]:
    return [int(found) for found in _USER_MENTION.findall(text)]


def assert_only_notices(fake: FakeDiscord) -> None:
    """Nobody was notified but by a turn notice: a board posted with a mention of the users the
    game waits for at its head, its ``allowed_mentions`` naming just them (a name or a pitch
    that looks like a mention notifies nobody); and one notice at a time: every earlier one
    was deleted when the next was posted."""
    for note in fake.notifications:
        message = fake.message(note.message_id)
        body = message.created
        head = str(body.get("content") or "")
        assert note.kind == "user" and message.audience == "channel", (note, head[:200])
        assert head.strip() and set(head.split()) == {f"<@{u}>" for u in mentioned(head)}, head
        allowed = body.get("allowed_mentions") or {}
        assert not allowed.get("parse") and not allowed.get("roles"), allowed
        assert {int(u) for u in allowed.get("users") or []} == set(mentioned(head)), allowed
        assert note.target in mentioned(head), (note.target, head)
        embeds = body.get("embeds") or []
        assert embeds and "Your move." in str(embeds[0].get("description")), embeds[:1]
    live = {n.message_id for n in fake.notifications if n.message_id in fake.messages}
    assert len(live) <= 1, f"{len(live)} turn notices are up at once"


async def thread_of(store: GameStore, channel: int = CHANNEL) -> int:
    """The thread the channel's game plays in (started from its card)."""
    thread = (await refs(store, channel)).thread
    assert thread is not None, "the game has no thread"
    return int(thread)


def board_moves(fake: FakeDiscord, place: int, title: str) -> list[tuple[int, bool]]:
    """Each time a board was posted while another was up (a move to the bottom): how many
    messages were below the old one then, and whether the new one is a turn notice."""
    live: list[int] = []
    moves = []
    for what, message_id in _shown(fake, place):
        if what == "delete":
            live.remove(message_id)
            continue
        message = fake.message(message_id)
        up = [k for k, i in enumerate(live) if titled(fake.message(i), title)]
        if titled(message, title) and up:
            notice = bool(mentioned(str(message.created.get("content") or "")))
            moves.append((len(live) - 1 - up[-1], notice))
        live.append(message_id)
    return moves


_EPHEMERAL = 1 << 6


def public_texts(fake: FakeDiscord, since: int = 0) -> list[str]:
    """The text of every public message body the bot sent from ``fake.calls[since]`` on: each
    post and edit in a channel or thread, each interaction response or update of a public
    message (every version, even one edited again within the same moment)."""
    shown: list[dict[str, Any]] = []
    for call in fake.calls[since:]:
        body = call.body if isinstance(call.body, dict) else None
        if call.status >= 300 or body is None or call.method not in ("POST", "PATCH"):
            continue
        parts = call.path.strip("/").split("/")
        if parts[0] == "channels" and len(parts) >= 3 and parts[2] == "messages":
            if not fake.is_dm(int(parts[1])) and parts[-1] != "threads":
                shown.append(body)
        elif parts[0] == "interactions" and parts[-1] == "callback":
            interaction = fake.interactions[int(parts[1])]
            data = body.get("data") or {}
            if body.get("type") == 4 and not int(data.get("flags") or 0) & _EPHEMERAL:
                shown.append(data)
            pressed = interaction.message
            if body.get("type") == 7 and pressed is not None and pressed.audience == "channel":
                shown.append(data)
        elif parts[0] == "webhooks" and not int(body.get("flags") or 0) & _EPHEMERAL:
            interaction = next(i for i in fake.interactions.values() if i.token == parts[2])
            original = interaction.original
            if len(parts) == 3 or (original is not None and original.audience == "channel"):
                shown.append(body)
    return [FakeMessage(0, 0, "channel", None, body).text for body in shown]
