"""The slash commands Discord is told about: groups, options, autocomplete."""

from __future__ import annotations

from typing import Any, cast

from bot.adapters.discord.commands import completer
from bot.commands.authority import Authority
from bot.commands.grammar import words
from bot.settings import Settings
from core.commands import Command, find
from core.engine import GameLike, erase
from core.games.bigidea import GAME
from testkit.discord.fake import FakeDiscord
from testkit.discord.sim import running_bot


def _command(game: GameLike, word: str) -> Command:
    command = find(words(game), word)
    assert command is not None
    return command


async def _complete(word: str, current: str) -> list[str]:
    complete = completer(erase(GAME), _command(erase(GAME), word))
    assert complete is not None
    return [choice.value for choice in await complete(cast(Any, None), current)]


async def test_rules_topics_complete() -> None:
    assert await _complete("rules", "") == ["all", *GAME.rule_topics()]
    assert await _complete("rules", "ve") == ["venture"]
    assert await _complete("rules", "zzz") == []


async def test_start_options_complete_the_last_word() -> None:
    first = await _complete("start", "")
    assert "four_chits" in first and "vote_seconds=60" in first
    assert await _complete("start", "four_chits vo") == ["four_chits vote_seconds=60"]
    assert not [c for c in await _complete("start", "four_chits ") if c.endswith(" four_chits")]


async def test_addbot_offers_counts() -> None:
    assert await _complete("addbot", "") == ["1", "2", "3", "4", "5"]
    assert completer(erase(GAME), _command(erase(GAME), "join")) is None


async def test_sync_registers_every_subcommand_with_its_option(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings):
        pass
    synced = [c.body for c in fake.calls if c.method == "PUT" and c.path.endswith("/commands")]
    groups = [cmd for body in synced for cmd in body if cmd["name"] == "bigidea"]
    assert groups, "the /bigidea group was never synced"
    subs: dict[str, Any] = {sub["name"]: sub for sub in groups[0]["options"]}
    assert {"start", "join", "begin", "hand", "rules", "pitch", "end"} <= set(subs)
    rules_option = subs["rules"]["options"][0]
    assert rules_option["autocomplete"] is True
    assert subs["pitch"]["options"][0]["required"] is True
    assert "options" not in subs["join"] or not subs["join"]["options"]


async def test_team_games_complete_team_names_from_the_channel(authority: Authority) -> None:
    from types import SimpleNamespace

    from bot.commands.authority import Request
    from core import registry
    from tests.team_game import GAME as RELAY

    channel = 42
    with registry.registered(RELAY):
        for user, text in (("u1", "start"), ("u2", "join Sharks"), ("u3", "join Shrimps")):
            request = Request(platform="discord", channel=str(channel), user=user, name=user)
            assert (await authority.command(request, RELAY.name, text)).public
        # The completer reads the channel's lobby through the client's authority.
        interaction: Any = SimpleNamespace(
            client=SimpleNamespace(adapter=SimpleNamespace(authority=authority)), channel_id=channel
        )
        complete = completer(erase(RELAY), _command(erase(RELAY), "join"))
        assert complete is not None
        assert [c.value for c in await complete(interaction, "sh")] == ["Sharks", "Shrimps"]
        assert [c.value for c in await complete(interaction, "")] == ["u1", "Sharks", "Shrimps"]
        interaction.channel_id = 43  # no game there
        assert await complete(interaction, "") == []
