"""Boardroom's text markup: what players type can neither format nor mention, pages fit."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bot.adapters.discord.render import markdown
from bot.adapters.slack.render import mrkdwn
from core import text
from core.registry import all_games

HOSTILE = "@everyone <@999999999999999999> <@&123456789012345678> **BUY** <!channel> <!here> & _x_"


def test_escaped_text_reads_back_as_typed() -> None:
    assert text.plain(text.escape(HOSTILE)) == HOSTILE
    assert text.plain(f"**{text.escape('a*b')}** wins") == "a*b wins"


@given(st.text())
def test_any_typed_text_round_trips_on_one_line(typed: str) -> None:
    escaped = text.escape(typed)
    shown = text.plain(escaped)
    assert "\n" not in shown and "\r" not in shown
    assert not set(shown) & text.BIDI_CONTROLS  # nothing typed turns a line around
    assert len(shown) == len([c for c in typed if c not in text.BIDI_CONTROLS])
    shown.encode("utf-8")  # no lone surrogate left: every platform can carry it


def test_a_name_cannot_turn_the_rest_of_a_line_around() -> None:
    name = text.escape("Bob\u202eevil\u2066x\u2069")
    assert text.plain(f"**{name}** wins with $5") == "Bobevilx wins with $5"
    assert text.plain(text.escape("דנה")) == "דנה"  # a right-to-left name reads as typed


def test_discord_markdown_keeps_user_text_inert() -> None:
    shown = markdown(f"**{text.escape(HOSTILE)}** joined")
    assert shown.startswith("**") and "** joined" in shown
    assert "@everyone" not in shown and "<@9" not in shown and "<@&" not in shown
    assert "\\*\\*BUY\\*\\*" in shown


def test_slack_mrkdwn_keeps_user_text_inert() -> None:
    shown = mrkdwn(f"**{text.escape(HOSTILE)}** joined")
    assert shown.startswith("*\\") is False and shown.startswith("*")
    assert "<" not in shown and ">" not in shown  # no mention, no link, no <!channel>
    assert "*BUY*" not in shown  # the typed asterisks are not Slack bold
    assert "&amp;" in shown


def test_rules_pages_fit_one_message_and_show_headings_bold() -> None:
    for game in all_games():
        whole = game.rules("all")
        found = text.pages(whole)
        assert len(found) > 1
        assert all(len(page) <= text.PAGE_LIMIT for page in found)
        shown = [line for page in found for line in page.splitlines()]
        assert not any(line.startswith(("#", "|")) for line in shown)  # no chat draws these
        # Nothing is lost: every word of the prose, and every cell of every table, is in
        # some part (a table's rows are the lines of a list).
        page = whole.splitlines()
        # (A table's header names its columns, which a list of two columns leaves unsaid.)
        heads = {i - 1 for i, line in enumerate(page) if line.startswith("| ---")}
        tables = [line for i, line in enumerate(page) if line.startswith("|") and i not in heads]
        prose = [line for line in whole.splitlines() if not line.startswith("|")]
        words = {w for line in prose for w in line.split() if not w.startswith("#")}
        seen = {w for page in found for w in page.split()}
        assert words <= {w.strip("*") for w in seen} | seen
        cells = {
            cell.strip()
            for row in tables
            for cell in row.strip("|").split("|")[1:]  # the header of a row is its key
            if cell.strip() and not set(cell.strip()) <= set(":- ")
        }
        joined = "\n".join(found)
        assert all(cell in joined for cell in cells), [c for c in cells if c not in joined][:5]


def test_a_decision_with_a_deadline_shows_when_it_ends_on_every_platform() -> None:
    from bot.adapters.discord.render import render
    from bot.adapters.slack.render import blocks
    from core import ui

    message = ui.Message(text="Pick two cards.", deadline=1_800_000_045.6)
    # In each reader's own time: a countdown and the date (a turn may last days).
    assert "<t:1800000045:R> (<t:1800000045:f>)" in (render(message).content or "")
    shown: list[dict[str, Any]] = [b for b in blocks(message) if b["type"] == "context"]
    said = shown[-1]["elements"][0]["text"]
    assert "<!date^1800000045^{date_short_pretty} at {time_secs}|2027-01-15 08:00:45 UTC>" in said
    assert "<t:" not in (render(ui.Message(text="No clock.")).content or "")
