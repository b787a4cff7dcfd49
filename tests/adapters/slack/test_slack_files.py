"""A private answer's files on Slack, through the real Bolt app against the fake Web API: an
ephemeral message cannot carry a file, so `rules all` uploads the page to the reader's DM (with
the answer's text) and says so where they asked; closed DMs or a refused upload still answer."""

from __future__ import annotations

from bot.adapters.slack.primitives import FILES_IN_DM
from bot.commands.outbox import Outbox
from core import ui
from core.games.businessgo import GAME
from testkit.slack.fake import Message
from testkit.slack.loopback import Loopback
from tests.adapters.slack.conftest import CHANNEL, told_privately

PAGE = GAME.rules("all").encode("utf-8")
NAME = "businessgo-rules.md"


async def _rules_all(loop: Loopback, user: str, where: str = CHANNEL) -> int:
    since = len(loop.api.calls)
    assert await loop.slack.post(loop.slack.slash_body("/businessgo", "rules all", user, where))
    await loop.adapter.settled()
    return since


def _ephemeral(loop: Loopback, user: str, since: int) -> list[str]:
    """What ``user`` was told privately where they asked (an ephemeral answer), not in a DM."""
    dm = [c.args.get("text") for c in loop.api.calls[since:] if c.args.get("channel") == f"D{user}"]
    return [said for said in told_privately(loop.api, user, since) if said not in dm]


def _with_files(loop: Loopback, dm: str) -> list[Message]:
    return [m for m in loop.api.channel_messages(dm) if m.files]


async def test_rules_all_uploads_the_page_to_the_dm_and_says_so(loop: Loopback) -> None:
    since = await _rules_all(loop, "UALICE")
    [shared] = _with_files(loop, "DUALICE")
    [page] = shared.files
    assert (page.filename, page.data, page.completed) == (NAME, PAGE, True)
    assert page.title == "The whole rules page of Busine$$ GO, as Markdown text."
    assert shared.text.startswith("*Busine$$ GO: the rules*")
    assert "The whole page is attached: businessgo-rules.md" in shared.text
    assert _ephemeral(loop, "UALICE", since) == [FILES_IN_DM.format(files=NAME)]
    assert loop.api.channel_messages(CHANNEL) == [] and loop.api.refused == []
    assert loop.api.notifications == []
    uploads = [c.method for c in loop.api.calls[since:] if "upload" in c.method.lower()]
    assert uploads == ["files.getUploadURLExternal", "upload_url", "files.completeUploadExternal"]


async def test_rules_all_asked_in_the_dm_is_the_upload_alone(loop: Loopback) -> None:
    await _rules_all(loop, "UALICE")  # opens the DM, as Slack has it open for its user
    since = await _rules_all(loop, "UALICE", "DUALICE")
    assert len(_with_files(loop, "DUALICE")) == 2
    assert _ephemeral(loop, "UALICE", since) == []


async def test_closed_dms_or_a_refused_upload_still_answer_with_the_text(loop: Loopback) -> None:
    loop.api.close_dms("UBOB")
    since = await _rules_all(loop, "UBOB")
    [said] = _ephemeral(loop, "UBOB", since)
    assert said.startswith("*Busine$$ GO: the rules*")
    assert "I couldn't send you businessgo-rules.md" in said.replace("\u200b", "")
    assert "can't send you direct messages" in said
    assert not loop.api.files

    loop.api.fail["files.getUploadURLExternal"] = "missing_scope"
    since = await _rules_all(loop, "UCAROL")
    [said] = _ephemeral(loop, "UCAROL", since)
    assert "files:write" in said and "The whole page is attached" in said
    assert _with_files(loop, "DUCAROL") == []


async def test_a_dm_with_files_is_the_message_then_the_files(loop: Loopback) -> None:
    """A private message for someone who is not asking goes as a DM (the table's ``dm``): the
    message itself (which the table may edit later), and the files shared below it."""
    out = Outbox(platform="slack", channel=CHANNEL, game="businessgo")
    note = ui.File(name="board.png", data=b"\x89PNG\r\n", mime="image/png", alt="The board")
    out.reply("UDAVE", ui.Message(text="Your board.", files=[note]))
    await loop.adapter.table.deliver(out)
    text, shared = loop.api.channel_messages("DUDAVE")
    assert text.text == "Your board." and not text.files
    assert [(f.filename, f.data, f.alt_txt) for f in shared.files] == [
        ("board.png", b"\x89PNG\r\n", "The board")
    ]
    assert shared.text == "" and loop.api.refused == []
