"""`/boardroom` (a command group of its own) and Rematch through the real discord.py client and
the strict fake Discord."""

from __future__ import annotations

import random
from typing import Any

from bot.commands.authority import Authority
from bot.settings import Settings
from storage import history as kept
from testkit.discord.fake import FakeDiscord
from testkit.discord.sim import Table, running_bot
from tests.adapters.discord.conftest import CHANNEL, USERS, posted, titled

FAST = "pick_seconds=0 vote_seconds=0 turn_seconds=0"


async def test_boardroom_group_answers_privately_and_shares_a_leaderboard(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    players = USERS[:3]
    async with running_bot(fake, authority, settings, pace_window_s=0) as client:
        table = Table(fake, client, CHANNEL, players, random.Random(3))
        await table.open(FAST)
        record = await table.play()
        assert record is not None and record.status == "finished"
        assert record.community == str(fake.guild_id)  # the server is the community
        where = kept.Community("discord", str(fake.guild_id))
        rows = await kept.leaderboard(authority.store, where, "bigidea", 10)
        assert {row.user for row in rows} == {str(u.id) for u in players}

        community = Table(fake, client, CHANNEL, players, random.Random(3), game="boardroom")
        await community.slash(players[1], "leaderboard", {"game": "bigidea"})
        board = fake.private(players[1])[-1]
        assert board.audience == "ephemeral" and titled(board, "The Big Idea: leaderboard")
        assert all(u.name in board.text for u in players) and "1 game" in board.text
        shared_before = len(fake.public(CHANNEL))
        share = _button(board, "Show to the channel")
        await community.click(players[1], board, share)
        shown = fake.public(CHANNEL)[shared_before:]
        assert len(shown) == 1 and titled(shown[0], "The Big Idea: leaderboard")

        await community.slash(players[2], "stats", {"user": f"<@{players[0].id}>"})
        assert "1 game" in fake.private(players[2])[-1].text
        await community.slash(players[2], "history")
        assert "The Big Idea" in fake.private(players[2])[-1].text
        await community.slash(players[0], "forget-me")
        confirm = fake.private(players[0])[-1]
        await community.click(players[0], confirm, _button(confirm, "Yes, forget me"))
        assert {r.user for r in await kept.leaderboard(authority.store, where, "bigidea", 10)} == {
            str(u.id) for u in players[1:]
        }

        card = next(m for m in posted(fake, CHANNEL) if titled(m, "The Big Idea: final standings"))
        await table.click(players[1], card, _button(card, "Rematch"))
        lobby = await table.record()
        assert lobby is not None and lobby.status == "lobby"
        assert lobby.host == str(players[1].id)
    assert fake.refused == [], [(c.method, c.path, c.reply) for c in fake.refused[:3]]


def _button(message: Any, label: str) -> str:
    for row in message.data.get("components") or []:
        for component in row.get("components") or []:
            if component.get("label") == label:
                return str(component["custom_id"])
    raise LookupError(f"no button {label!r} on {message.id}")


async def test_the_boardroom_group_is_synced_with_its_subcommands(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings):
        pass
    synced = [c.body for c in fake.calls if c.method == "PUT" and c.path.endswith("/commands")]
    groups = [cmd for body in synced for cmd in body if cmd["name"] == "boardroom"]
    assert groups, "the /boardroom group was never synced"
    subs = {sub["name"]: sub for sub in groups[0]["options"]}
    assert set(subs) == {"leaderboard", "stats", "history", "replay", "forget-me", "help"}
    game = subs["leaderboard"]["options"][0]
    assert game["required"] and {c["value"] for c in game["choices"]} == {
        "bigidea",
        "biggiebills",
        "businessgo",
    }


async def test_boardroom_is_offered_in_servers_only(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    """A server's history: Discord offers ``/boardroom`` in servers, not in DMs (``contexts``
    [0]); the games' groups and ``/hand`` stay where they were."""
    async with running_bot(fake, authority, settings, pace_window_s=0):
        synced = {c["name"]: c for scope in fake.commands.values() for c in scope}
    assert synced["boardroom"].get("contexts") == [0], synced["boardroom"]
    assert synced["hand"].get("contexts") == [0, 1]
