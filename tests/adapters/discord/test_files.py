"""A private answer's files on Discord: `rules all` is one ephemeral answer with the page
attached, through the real discord.py client against the fake; without Attach Files it comes by
DM, and a file over the upload limit is left out with a sentence."""

from __future__ import annotations

import random

from bot.adapters.discord.adapter import FILES_IN_DM
from bot.commands.authority import Authority
from bot.settings import Settings
from core.games.businessgo import GAME
from testkit.discord.fake import FakeDiscord, FakeMessage
from testkit.discord.sim import Table, running_bot
from tests.adapters.discord.conftest import CHANNEL, USERS, dm_posts

ALICE = USERS[0]
PAGE = GAME.rules("all").encode("utf-8")
NAME = "businessgo-rules.md"


def _only_answer(fake: FakeDiscord, before: int) -> FakeMessage:
    """The one private message Alice got since she had ``before`` of them."""
    new = fake.private(ALICE)[before:]
    assert len(new) == 1, [m.content[:80] for m in new]
    return new[0]


async def test_rules_all_is_one_ephemeral_answer_with_the_page_attached(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings, pace_window_s=0) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(1), "businessgo")
        interaction = await table.slash(ALICE, "rules", {"topic": "all"})
    answer = _only_answer(fake, 0)
    assert answer.audience == "ephemeral" and interaction.messages == [answer]
    assert "Busine$$ GO: the rules" in answer.content
    assert "rules <topic>" in answer.content and "overview" in answer.content
    assert f"The whole page is attached: {NAME}" in answer.content.replace("\\", "")
    [(attachment, data)] = fake.attached(answer)
    assert attachment["filename"] == NAME
    assert attachment["content_type"] == "text/markdown; charset=utf-8"
    assert attachment["size"] == len(PAGE) and data == PAGE
    assert attachment["description"] == "The whole rules page of Busine$$ GO, as Markdown text."
    assert fake.refused == [] and fake.public(CHANNEL) == []


async def test_a_topic_still_comes_as_text(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings, pace_window_s=0) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(1), "businessgo")
        await table.slash(ALICE, "rules", {"topic": "casino"})
    answers = fake.private(ALICE)
    assert answers and all(not m.data["attachments"] for m in answers)
    assert "Casino" in answers[0].content


async def test_without_attach_files_the_page_comes_by_dm_or_says_why_not(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    fake.deny(CHANNEL, "attach_files")
    async with running_bot(fake, authority, settings, pace_window_s=0) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(1), "businessgo")
        await table.slash(ALICE, "rules", {"topic": "all"})
        [dm] = dm_posts(fake, ALICE)
        [(attachment, data)] = fake.attached(dm)
        assert attachment["filename"] == NAME and data == PAGE
        assert "The whole page is attached" in dm.content
        said = fake.private(ALICE)[-1]
        assert said.audience == "ephemeral" and not said.data["attachments"]
        assert said.content.replace("\\", "") == FILES_IN_DM.format(files=NAME)

        fake.closed_dms.add(ALICE.id)
        before = len(fake.private(ALICE))
        await table.slash(ALICE, "rules", {"topic": "all"})
    said = _only_answer(fake, before)
    assert said.audience == "ephemeral" and not said.data["attachments"]
    assert "Busine$$ GO: the rules" in said.content
    assert "missing the Attach Files permission" in said.content
    assert "your DMs are closed" in said.content
    # The bot never tried to upload where it may not.
    assert [c.code for c in fake.refused] == [50007]


async def test_a_file_over_the_upload_limit_is_left_out_and_said(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    fake.attachment_size_limit = 4 * 1024  # as a server's interaction may say
    async with running_bot(fake, authority, settings, pace_window_s=0) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(1), "businessgo")
        await table.slash(ALICE, "rules", {"topic": "all"})
    answer = _only_answer(fake, 0)
    assert fake.attached(answer) == [] and fake.refused == []
    assert "too large to attach here" in answer.content
