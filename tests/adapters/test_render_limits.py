"""Every message of many random games, rendered for Discord and Slack, within their limits.

The driver (:mod:`tests.adapters.moments`) plays every registered game at its largest tables
(and a few of its smallest) with the longest and most hostile display names each platform
allows (and pitches of the full 200 characters, as hostile), one Big Idea table crowded with
nearly every card on it, and delivers every Outbox through the real table layer
(:mod:`bot.table`). Each message
the table shows, on every surface (the card and its edits, the board with its "Latest" tail
and the turn notice's mention, log messages of up to :data:`bot.table.LOG_MESSAGE` characters,
players' posts, prompts open and closed, panels as DMs and their edits, ephemeral replies, the
closed-DM and no-thread notes, the result), is rendered the way the platform adapter renders it
there (``bot/adapters/discord/adapter.py``, ``bot/adapters/slack/primitives.py``) and checked:

- by the fake platform's validator of the documented limits (Discord's nested 50035 errors,
  Slack's ``invalid_blocks`` reasons);
- that the renderer left nothing out: as many buttons and menus (and menu options) as the
  neutral message holds (on Slack a disabled button is shown as text, so only live ones count),
  and the whole text, title and fields, none cut to fit (a board must fit by design, whatever
  the names and pitches: Discord's embed description holds 4,096 characters);
- that nothing people typed mentions anyone: no unescaped ``@everyone``, ``@here``, ``<@id>``
  or ``<@&id>`` in Discord content, no ``<@U…>``, ``<!channel>``, ``<!here>``, ``<!everyone>``
  or ``<!subteam^…>`` in Slack mrkdwn or notification text (a mention of a person at the table
  is the bot's own and allowed).

Every problem of every moment is collected and reported at once, counted per game and per
kind with a few examples; ``pytest -s -n 0`` prints the counts even when nothing is wrong.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.adapters.discord.render import markdown
from bot.adapters.discord.render import render as discord_render
from bot.adapters.slack.primitives import _rendered as slack_rendered
from bot.adapters.slack.render import mrkdwn
from bot.table import LOG_FLUSH
from core import text as markup
from core import ui
from core.registry import all_games
from testkit.discord.fake import is_empty
from testkit.discord.fake import validate_message as discord_validate
from testkit.slack.fake import validate_message as slack_validate
from tests.adapters.moments import (
    DISCORD,
    PLATFORMS,
    SLACK,
    Coverage,
    Moment,
    Platform,
    Run,
    Showing,
    tables,
)

SEED = 20240601
EXAMPLES = 3
"""Examples shown per kind of problem."""

# A mention is live unless an odd number of backslashes comes right before it; a zero-width
# space after the "@" (discord.utils.escape_mentions) or "<" breaks the pattern itself.
_DISCORD_MENTION = re.compile(r"@everyone|@here|<@!?(\d+)>|<@&\d+>")
_SLACK_MENTION = re.compile(
    r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>|<!(?:channel|here|everyone)(?:\|[^>]*)?>|<!subteam\^[^>]*>"
)
_SLACK_CONTROLS = {"button", "static_select", "multi_static_select"}


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one rendered message."""

    platform: str
    game: str
    kind: str
    """What went wrong, without the particulars (so that problems can be counted)."""
    where: str
    detail: str


@dataclass
class Report:
    """What the run played and rendered, and every problem found."""

    platform: str
    problems: list[Problem] = field(default_factory=list)
    coverage: dict[str, Coverage] = field(default_factory=dict)
    moments: Counter[str] = field(default_factory=Counter)
    messages: Counter[str] = field(default_factory=Counter)

    def summary(self) -> str:
        games = sum(sum(c.started.values()) for c in self.coverage.values())
        done = sum(sum(c.finished.values()) for c in self.coverage.values())
        lines = [
            f"render limits: {games} games ({done} finished) on "
            f"{', '.join(self.coverage)}, {sum(self.moments.values())} moments, "
            f"{sum(self.messages.values())} messages rendered",
        ]
        for platform, coverage in self.coverage.items():
            twins = ", ".join(f"{g} {k} {n}" for (g, k), n in sorted(coverage.twins.items()))
            lines.append(
                f"  {platform}: moments {dict(sorted(self.moments_of(platform).items()))}, "
                f"messages {self.messages[platform]}, presses {sum(coverage.presses.values())}, "
                f"deadlines {sum(coverage.deadlines.values())}, two menus of one action: "
                f"{twins or 'none'}"
            )
            shown = ", ".join(f"{k} {n}" for k, n in sorted(coverage.surfaces.items()))
            lines.append(f"    surfaces: {shown}")
            longest = ", ".join(f"{k} {n}" for k, n in sorted(coverage.longest.items()))
            lines.append(f"    longest texts: {longest}")
        lines.append(f"problems found: {len(self.problems)}")
        if not self.problems:
            return "\n".join(lines)
        by_game = Counter(f"{p.platform} {p.game}" for p in self.problems)
        lines.append("  by game: " + ", ".join(f"{g} {n}" for g, n in sorted(by_game.items())))
        by_kind = Counter(p.kind for p in self.problems)
        lines.append("  by kind:")
        for kind, count in by_kind.most_common():
            per_game = Counter(p.game for p in self.problems if p.kind == kind)
            split = ", ".join(f"{g} {n}" for g, n in sorted(per_game.items()))
            lines.append(f"    {count:6d}  {kind} ({split})")
        lines.append("  examples:")
        for kind, _ in by_kind.most_common():
            lines.append(f"    {kind}:")
            lines += [f"      - {p.where}: {p.detail}" for p in self._examples(kind)]
        return "\n".join(lines)

    def _examples(self, kind: str) -> list[Problem]:
        """A few problems of ``kind``, from as many games as there are."""
        of_kind = [p for p in self.problems if p.kind == kind]
        by_game: dict[str, list[Problem]] = {}
        for problem in of_kind:
            by_game.setdefault(f"{problem.platform} {problem.game}", []).append(problem)
        picked: list[Problem] = []
        while len(picked) < min(EXAMPLES, len(of_kind)):
            for found in by_game.values():
                if found and len(picked) < EXAMPLES:
                    picked.append(found.pop(0))
        return picked

    def moments_of(self, platform: str) -> Counter[str]:
        prefix = f"{platform} "
        return Counter(
            {k.removeprefix(prefix): v for k, v in self.moments.items() if k.startswith(prefix)}
        )


# --- where each message goes, as the adapters decide ---------------------------------------


def _ids(message: ui.Message) -> tuple[str | None, ...]:
    """The ids the table bound ``message``'s controls to where it shows them (a DM's, a Discord
    thread's and a private answer's name the game's channel; None: left unbound)."""
    return (*(b.custom_id for b in message.all_buttons()), *(s.custom_id for s in message.selects))


def _mention_head(moment: Moment, showing: Showing) -> str:
    """What the adapter writes at the head of a message naming people: Discord mentions them
    (``allowed_mentions`` decides who is notified); Slack mentions them when they are to be
    notified, else writes their display names (escaped)."""
    if not showing.mention:
        return ""
    if moment.platform == DISCORD.name:
        return " ".join(f"<@{int(user)}>" for user in showing.mention)
    if showing.ping:
        return ", ".join(f"<@{user}>" for user in showing.mention) + ":"
    names = [mrkdwn(markup.escape(moment.names.get(u, u))) for u in showing.mention]
    return ", ".join(names) + ":"


# --- checks ----------------------------------------------------------------------------------


def _discord_errors(errors: Mapping[str, Any], path: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """Discord's nested form errors as (path, "CODE: message") pairs."""
    if not path and isinstance(errors.get("errors"), Mapping):
        return _discord_errors(errors["errors"])
    found: list[tuple[str, str]] = []
    for key, value in errors.items():
        if key == "_errors" and isinstance(value, list):
            for error in value:
                item = error if isinstance(error, Mapping) else {"message": str(error)}
                found.append((".".join(path), f"{item.get('code')}: {item.get('message')}"))
        elif isinstance(value, Mapping):
            found += _discord_errors(value, (*path, str(key)))
    if not found and not path and errors:
        found.append(("", f"{errors.get('code')}: {errors.get('message', errors)}"))
    return found


def _generic(text: str) -> str:
    """``text`` without its particulars (quoted values, indices), to count problems by kind."""
    return re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'…'", text))


def _live_mentions(text: str, pattern: re.Pattern[str], users: frozenset[str]) -> list[str]:
    live = []
    for match in pattern.finditer(text):
        slashes = len(text[: match.start()]) - len(text[: match.start()].rstrip("\\"))
        if slashes % 2:
            continue
        if match.lastindex and match.group(1) in users:
            continue  # the bot naming a player at the table on purpose
        live.append(match.group(0))
    return live


def _ui_counts(message: ui.Message, live_only: bool) -> tuple[int, int]:
    buttons = [b for b in message.all_buttons() if not (live_only and b.disabled)]
    options = sum(len(s.options) for s in message.selects)
    return len(buttons) + len(message.selects), options


def _check_discord(
    moment: Moment, message: ui.Message, head: str = ""
) -> Iterator[tuple[str, str]]:
    rendered = discord_render(message)
    content = f"{head} {rendered.content or ''}".strip() if head else rendered.content
    body: dict[str, Any] = {
        "content": content,
        "embeds": [embed.to_dict() for embed in rendered.embeds],
        "components": rendered.view.to_components() if rendered.view is not None else [],
    }
    if is_empty(body):
        yield "discord 50006: empty message", repr(body)[:200]
    for path, error in _discord_errors(discord_validate(body)):
        code = error.split(":", 1)[0]
        yield f"discord {code} at {_generic(path) or 'the message'}", f"{path}: {error}"
    controls = [c for row in body["components"] for c in row.get("components", [])]
    wanted, wanted_options = _ui_counts(message, live_only=False)
    if len(controls) != wanted:
        yield (
            "discord: buttons or menus left out",
            f"{len(controls)} of {wanted} shown ({_labels(message)})",
        )
    options = sum(len(c.get("options", [])) for c in controls)
    if options != wanted_options:
        yield "discord: menu options left out", f"{options} of {wanted_options} shown"
    live = _live_mentions(content or "", _DISCORD_MENTION, moment.users)
    if live:
        yield "discord: live mention in content", f"{live[:4]} in {content!r:.200}"
    yield from _discord_cuts(message, rendered.content, rendered.embeds)


def _discord_cuts(
    message: ui.Message, content: str | None, embeds: list[Any]
) -> Iterator[tuple[str, str]]:
    """What the renderer had to cut to fit Discord's limits (it ends such text with "…")."""
    text = markdown(message.text).strip()
    shown = content if not embeds else embeds[0].description
    # The renderer appends a countdown line after the text; nothing may go before it.
    if text and not (shown or "").startswith(text):
        yield "discord: text cut to fit", f"{len(text)} characters: …{text[-80:]!r}"
    if not embeds:
        return
    embed = embeds[0]
    if message.title and embed.title != markdown(message.title):
        yield "discord: title cut to fit", repr(message.title[:120])
    values = [(markdown(f.name) or "\u200b", markdown(f.value) or "\u200b") for f in message.fields]
    got = [(f.name, f.value) for f in embed.fields]
    if got != values:
        yield "discord: fields cut to fit", f"{len(got)} of {len(values)} fields, or cut"


def _mrkdwn(value: Any) -> Iterator[str]:
    """Every mrkdwn text in a Block Kit structure."""
    if isinstance(value, Mapping):
        if value.get("type") == "mrkdwn" and isinstance(value.get("text"), str):
            yield value["text"]
        for item in value.values():
            yield from _mrkdwn(item)
    elif isinstance(value, list):
        for item in value:
            yield from _mrkdwn(item)


def _slack_controls(built: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        element
        for block in built
        if block.get("type") == "actions"
        for element in block.get("elements", [])
        if element.get("type") in _SLACK_CONTROLS
    ]


def _slack_options(control: dict[str, Any]) -> int:
    groups = control.get("option_groups", [])
    return len(control.get("options", [])) + sum(len(g.get("options", [])) for g in groups)


def _check_slack(moment: Moment, message: ui.Message, head: str = "") -> Iterator[tuple[str, str]]:
    # As the adapter sends it: the head (who a notice names) before the text and the blocks.
    text, built = slack_rendered(message, head)
    for error in slack_validate({"text": text, "blocks": built}):
        yield f"slack: {_generic(error)}", error
    controls = _slack_controls(built)
    wanted, wanted_options = _ui_counts(message, live_only=True)
    if len(controls) != wanted:
        yield (
            "slack: buttons or menus left out",
            f"{len(controls)} of {wanted} shown ({_labels(message)})",
        )
    options = sum(_slack_options(c) for c in controls)
    if options != wanted_options:
        yield "slack: menu options left out", f"{options} of {wanted_options} shown"
    texts = [text, *_mrkdwn(built)]
    live = [m for t in texts for m in _live_mentions(t, _SLACK_MENTION, moment.users)]
    if live:
        yield "slack: live mention in mrkdwn", f"{live[:4]} in {text!r:.200}"
    yield from _slack_cuts(message, built, head)


_SPACE = re.compile(r"\s+")


def _slack_cuts(
    message: ui.Message, built: list[dict[str, Any]], head: str
) -> Iterator[tuple[str, str]]:
    """What the renderer had to cut to fit Slack's limits: text split into sections keeps all
    of it (only the breaks between sections may go), a header, field or 51st block does not."""
    if any(b.get("type") == "context" and "(cut short)" in str(b) for b in built):
        yield "slack: blocks cut short", f"{len(built)} blocks"
    sections = [b["text"]["text"] for b in built if b["type"] == "section" and "text" in b]
    joined = "".join(sections).removeprefix(head)
    text = mrkdwn(message.text)
    if text.strip() and _SPACE.sub("", text) not in _SPACE.sub("", joined):
        yield "slack: text cut to fit", f"{len(text)} characters: …{text[-80:]!r}"
    if message.title:
        header = next((b for b in built if b["type"] == "header"), None)
        if header is None or header["text"]["text"] != (markup.plain(message.title) or " "):
            yield "slack: title cut to fit", repr(message.title[:120])
    for f in message.fields:
        if len(f"*{mrkdwn(f.name)}*\n{mrkdwn(f.value)}") > 2000:
            yield "slack: field cut to fit", repr(f.name[:80])


def _labels(message: ui.Message) -> str:
    items = [b.label for b in message.all_buttons()] + [s.placeholder for s in message.selects]
    return "; ".join(label[:40] for label in items)[:300]


_CHECKS = {DISCORD.name: _check_discord, SLACK.name: _check_slack}


# --- the run ---------------------------------------------------------------------------------


async def _collect(platform: Platform) -> Report:
    report = Report(platform.name)
    check = _CHECKS[platform.name]
    run = Run(platform, seed=SEED, plan=tables)
    # The same message rendered the same way is checked once (a panel shown again as it was,
    # a board edited back): what a check finds depends only on what is rendered, and how.
    checked: dict[tuple[str, str, tuple[str | None, ...], str], list[tuple[str, str]]] = {}
    async for moment in run:
        report.moments[f"{platform.name} {moment.game}"] += 1
        for showing in moment.shown:
            report.messages[platform.name] += 1
            where = f"{moment.table} · {moment.step} · {showing.surface} {showing.how}"
            head = _mention_head(moment, showing)
            key = (moment.game, showing.message.model_dump_json(), _ids(showing.message), head)
            found = checked.get(key)
            if found is None:
                try:
                    found = list(check(moment, showing.message, head))
                except Exception as error:  # a renderer that crashes is a problem like any other
                    failed = f"{platform.name}: render failed ({type(error).__name__})"
                    found = [(failed, str(error))]
                checked[key] = found
            report.problems += [
                Problem(platform.name, moment.game, kind, where, detail[:400])
                for kind, detail in found
            ]
    report.coverage[platform.name] = run.coverage
    return report


@pytest.fixture(
    scope="module",
    params=[
        # One run per platform, each a group of its own: pytest-xdist runs the two on
        # different workers at once, each with both tests that read it.
        pytest.param(platform, id=platform.name, marks=pytest.mark.xdist_group(platform.name))
        for platform in PLATFORMS
    ],
)
def report(request: pytest.FixtureRequest) -> Report:
    """One run for the whole module per platform: every game played once, every message
    rendered and checked."""
    result = asyncio.run(_collect(request.param))
    print("\n" + result.summary())
    return result


def test_the_driver_reaches_the_moments_that_matter(report: Report) -> None:
    """Every game finished, deadlines fired, and the messages that once held two menus with one
    id (Busine$$ GO's Travel Agency, BiggieBills$$$' card returns after an acquisition) were
    rendered, so the checks below cannot silently stop covering them."""
    platform = report.platform
    coverage = report.coverage[platform]
    assert not coverage.unfinished, coverage.unfinished
    for game in all_games():
        assert coverage.started[game.name] == len(tables(game)), (platform, game.name)
        assert coverage.finished[game.name] == coverage.started[game.name], game.name
        assert coverage.presses[game.name] > 0, (platform, game.name)
        assert coverage.deadlines[game.name] > 0, (platform, game.name)
    assert set(coverage.origins) == {"channel", "dm", "clock"}, coverage.origins
    assert coverage.twins[("businessgo", "travel")] > 0, "no Travel Agency with two menus"
    assert coverage.twins[("biggiebills", "return")] > 0, "no card return with two menus"
    assert coverage.phases[("biggiebills", "returns")] > 0, "no acquisition by a team"
    # The Big Idea with (nearly) every card on the table, owned and backed by players with the
    # longest names, beside new products and 200-character pitches: its board was drawn as
    # long as a board may be, with the story's tail below it.
    assert coverage.phases[("bigidea", "crowded")] > 0, "no crowded table of The Big Idea"
    assert coverage.longest["board"] > ui.MAX_BOARD, coverage.longest
    # Every surface, posted and edited in place, was shown and so rendered.
    surfaces = set(coverage.surfaces)
    wanted = {
        "card post",
        "card edit",
        "board post",
        "board edit",
        "board post naming",  # the turn notice rides on the board
        "log post",
        "post post",  # a pitch
        "prompt post",
        "prompt edit",
        "panel dm",
        "panel edit",
        "reply reply",
        "result post",
        "note post",  # no thread allowed here
        "note post naming",  # DMs closed: "your hand is at /hand"
    }
    assert wanted <= surfaces, (sorted(wanted - surfaces), coverage.surfaces)
    # Log messages as long as the table makes them were among those rendered.
    assert coverage.longest["log"] > LOG_FLUSH, coverage.longest


def test_every_message_fits_its_platform(report: Report) -> None:
    assert not report.problems, report.summary()
