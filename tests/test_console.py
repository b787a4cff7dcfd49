"""The console adapter, run as the real `boardroom` command in script mode."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.console import Console, VirtualClock
from bot.commands.authority import Authority
from bot.settings import Settings
from storage import GameStore


def run_script(
    tmp_path: Path, lines: list[str] | bytes, *args: str, redis_url: str | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """Run ``lines`` (or a script file's raw bytes) through ``python -m bot console``, on the
    embedded store or on ``redis_url``."""
    script = tmp_path / "game.txt"
    if isinstance(lines, bytes):
        script.write_bytes(lines)
    else:
        script.write_text("\n".join(lines) + "\n")
    transcript = tmp_path / "transcript.jsonl"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "console",
            *("--script", str(script)),
            *("--transcript", str(transcript)),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "PATH": "/usr/bin:/bin",
            "BOARDROOM_LOG_LEVEL": "WARNING",
            **({"REDIS_URL": redis_url} if redis_url else {}),
        },
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    return result.stdout, records


def printed(stdout: str) -> list[tuple[str, str]]:
    """Each message the console printed, as (label, text): the label says where it went and
    what it is (``#general · card, updated``, ``#general › thread``, ``alice · panel``)."""
    found: list[tuple[str, str]] = []
    for line in stdout.splitlines():
        if line.startswith("["):
            label, _, text = line[1:].partition("] ")
            found.append((label, text))
        elif line.startswith("  ") and found:
            label, text = found[-1]
            found[-1] = (label, f"{text}\n{line[2:]}")
    return found


def told(stdout: str, phrase: str) -> Counter[str]:
    """How many printed messages hold ``phrase``, by label."""
    return Counter(label for label, text in printed(stdout) if phrase in text)


THE_END = {"#general · card, updated": 1, "#general › thread": 1, "#general": 1}
"""Where the end of a game played in its thread is told, once each: the card (now the final
standings), the game's log in the thread, and the result in the channel."""


def final_card(records: list[dict[str, Any]], title: str) -> dict[str, Any]:
    """The last card of the transcript, checked as a designed summary: a title, the result,
    one line per seat in ``title``'s standings, and no line longer than 200 characters."""
    cards = [r for r in records if r["audience"] == "channel" and r["text"].startswith("**")]
    card = cards[-1]
    lines = card["text"].splitlines()
    assert lines[0] == f"**{title}**", lines[0]
    assert max(len(line) for line in lines) <= 200, max(lines, key=len)
    # Its one control: Rematch (a new lobby with the same options and people).
    assert card["buttons"] == ["Rematch"], card["buttons"]
    assert not card["selects"]
    return card


def standing_names(card: dict[str, Any]) -> list[str]:
    """The seats a card's standings list, in order (``**1. Alan** (bot) · $97`` is Alan)."""
    names = []
    for line in card["text"].splitlines():
        match = re.match(r"^(?:\*\*)?\d+\. (.+?)(?:\*\*)?(?: \(bot\))?(?: · |$)", line)
        if match:
            names.append(match.group(1))
    return names


def test_scripted_human_with_three_bots_plays_to_the_end(tmp_path: Path) -> None:
    """Alice starts, adds three bots and plays by clicking; some phases she lets time out."""
    lines = [
        "# a whole game of The Big Idea: one scripted human, three bots",
        "alice: /bigidea start pick_seconds=60 vote_seconds=30 turn_seconds=20",
        "alice: /bigidea addbot 3",
        "alice: click Begin",
        "alice: /bigidea pitch It keeps your beer cold and your cat happy.",
    ]
    for turn in range(120):
        lines.append("alice: click any")
        if turn % 10 == 9:
            lines.append("wait 61")  # let a deadline pass now and then
    lines.append("alice: /bigidea status")
    stdout, records = run_script(tmp_path, lines, "--seed", "42")

    assert "embedded" not in stdout  # the embedded-store notice goes to stderr, once
    channel = [r for r in records if r["audience"] == "channel"]
    private = [r for r in records if r["audience"] in {"ephemeral", "dm"}]
    assert any("Game over" in r["text"] for r in channel), channel[-3:]
    assert told(stdout, "Game over:") == THE_END
    card = final_card(records, "The Big Idea: final standings")
    assert card["text"].splitlines()[1].startswith("**Game over: ")
    assert sorted(standing_names(card)) == ["Ada", "Alan", "Grace", "alice"]
    assert "8 rounds: every player dealt twice." in card["text"]
    assert "the game goes on in the thread" in stdout
    labels = Counter(label for label, _ in printed(stdout))
    assert labels["#general · card"] == 1  # one card, edited from the lobby to the standings
    assert labels["#general › thread · board"] >= 1 and labels["alice · panel"] >= 1
    assert all(r["user"] == "alice" for r in private)
    assert {r["audience"] for r in records} >= {"channel", "board", "ephemeral"}
    # Buttons and menus are in the transcript as labels.
    assert any("Join" in r["buttons"] for r in channel)
    assert any(r["selects"] for r in private)
    # The board and the final status agree on the winner.
    final = records[-1]
    assert final["audience"] == "ephemeral"
    assert "wins" in final["text"] or "tie for first" in final["text"]


def test_same_seed_replays_the_same_game(tmp_path: Path) -> None:
    lines = [
        "alice: /bigidea start pick_seconds=0 vote_seconds=0 turn_seconds=0",
        "alice: /bigidea addbot 3",
        "alice: /bigidea begin",
        "alice: /bigidea leave",
    ]
    runs = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        runs.append(run_script(tmp_path / name, lines, "--seed", "9")[1])
    a, b = runs
    assert a == b
    assert any("Game over" in r["text"] for r in a)


@pytest.fixture
async def console() -> Any:
    store = GameStore.from_url(None)
    clock = VirtualClock(1000.0)
    written: list[str] = []
    console = Console(Authority(store, Settings(), clock=clock), write=written.append, clock=clock)
    yield console, written
    await store.close()


async def test_console_answers_bad_input_with_a_sentence(console: Any) -> None:
    con, written = console
    await con.handle_line("click 99")
    await con.handle_line("click")
    await con.handle_line("wait soon")
    await con.handle_line("/chess start")
    await con.handle_line("bob: /bigidea hand")
    assert written[0] == "(there is no choice with that number)"
    assert "click what?" in written[1]
    assert "wait how many seconds?" in written[2]
    assert "unknown input" in written[3]
    assert "No game here" in written[4] and written[4].startswith("[bob · private]")
    assert await con.handle_line("quit") is False


async def test_a_user_prefix_holds_for_its_line_only(console: Any) -> None:
    con, written = console
    await con.handle_line("as alice")
    await con.handle_line("bob: /bigidea hand")
    assert written[-1].startswith("[bob · private]")
    assert con.user == "alice"  # the next line is alice's again
    await con.handle_line("status:")  # a typo is no user called "status"
    assert con.user == "alice"


async def test_someone_elses_private_choice_is_not_clickable(console: Any) -> None:
    con, written = console
    await con.handle_line("alice: /bigidea start")
    await con.handle_line("bob: /bigidea join")
    await con.handle_line("alice: /bigidea addbot 1")
    await con.handle_line("alice: /bigidea begin")
    alice_option = next(
        i for i, c in enumerate(con.choices, 1) if c.viewers == {"alice"} and c.value
    )
    await con.handle_line(f"bob: click {alice_option}")
    assert written[-1] == "(bob cannot see that choice; it was sent to someone else)"


async def test_thread_off_plays_the_game_in_the_channel(console: Any) -> None:
    con, written = console
    await con.handle_line("alice: /bigidea start thread=off")
    await con.handle_line("alice: /bigidea addbot 2")
    await con.handle_line("alice: /bigidea begin")
    shown = printed("\n".join(written))
    assert not any("thread" in label for label, _ in shown), [label for label, _ in shown]
    assert not any("the game goes on in the thread" in line for line in written)
    assert ("#general · board", "**The Big Idea**") in [
        (label, text.split("\n")[0]) for label, text in shown
    ]
    # The story so far is in the channel too (on the board's tail until a log message fills).
    assert any("alice began the game. Good luck!" in text for _, text in shown)


def test_a_player_who_leaves_is_answered_and_their_panel_closes(tmp_path: Path) -> None:
    """Bob leaves mid-game: he is told a bot plays his seat, his panel (its hand and live
    "Pick two cards" menu) says he left and loses its choices, and what he tries next is
    answered with what he can still do, not sent in a circle."""
    lines = [
        "alice: /bigidea start",
        "bob: /bigidea join",
        "alice: /bigidea addbot 2",
        "alice: /bigidea begin",
        "bob: /bigidea leave",
        "bob: /bigidea hand",
        "bob: /bigidea join",
        "bob: /bigidea pitch A hat for cats.",
    ]
    stdout, records = run_script(tmp_path, lines, "--seed", "4")

    bob = [(label, text) for label, text in printed(stdout) if label.startswith("bob")]
    left = bob.index(("bob · panel, updated", "You left this game of The Big Idea."))
    assert bob[left - 1] == (
        "bob · private",
        "You left the game of The Big Idea; a bot plays your seat until it ends. You can follow "
        "the game in its thread (`/bigidea status` shows the board) and join the next one.",
    )
    after = [text for _, text in bob[left + 1 :]]
    assert len(after) == 3
    assert all(
        text.startswith("You left this game, so you no longer play in it;") for text in after
    )
    # The closed panel has nothing left to press.
    closed = [r for r in records if r["user"] == "bob" and r["text"].startswith("You left this")]
    assert closed and not closed[0]["buttons"] and not closed[0]["selects"]


def test_rules_all_is_one_answer_naming_the_page_or_writing_it(tmp_path: Path) -> None:
    """Script mode: `rules all` is one private message naming its file; with `--files DIR`
    the page is written there, byte for byte, and the line says where."""
    from core.games.businessgo import GAME as GO

    page = GO.rules("all").encode("utf-8")
    about = f"(file: businessgo-rules.md, text/markdown; charset=utf-8, {len(page):,} bytes"
    lines = ["alice: /businessgo rules all", "bob: /businessgo rules casino"]
    stdout, records = run_script(tmp_path, lines)
    [answer] = [r for r in records if r["user"] == "alice"]
    assert answer["audience"] == "ephemeral" and answer["files"] == ["businessgo-rules.md"]
    assert answer["text"].startswith("**Busine$$ GO: the rules**")
    assert all(r["files"] == [] for r in records if r["user"] == "bob")
    [text] = [t for label, t in printed(stdout) if label == "alice · private"]
    assert text.splitlines()[-1] == about + ")"

    written = tmp_path / "out" / "files"
    stdout, _ = run_script(tmp_path, lines[:1], "--files", str(written))
    assert (written / "businessgo-rules.md").read_bytes() == page
    assert f"{about}, written to {written / 'businessgo-rules.md'})" in stdout


def test_wait_takes_a_time_the_game_can_keep(tmp_path: Path) -> None:
    """``wait`` moves the clock the game's record saves: no time at all (``inf``, ``nan``), a
    clock going back, or further than a week at once is answered with a sentence, and the game
    plays on as it was."""
    lines = [
        "alice: /bigidea start pick_seconds=60",
        "alice: /bigidea addbot 2",
        "alice: /bigidea begin",
        "wait inf",
        "wait nan",
        "wait -5",
        "wait 1e300",
        "wait 604801",
        "wait -inf",
        "alice: /bigidea status",
        "wait 86400",
        "alice: /bigidea status",
    ]
    stdout, records = run_script(tmp_path, lines, "--seed", "3")
    refusal = "(wait takes 0 to 604,800 seconds (a week) at a time, e.g. `wait 60`)"
    assert stdout.splitlines().count(refusal) == 6
    statuses = [r["text"] for r in records if r["audience"] == "ephemeral"]
    # The first status is read before any deadline passed (60 s to pick); after a day, the
    # game has moved on (its deadlines fired) and still reads.
    assert len(statuses) == 2 and "(60 s left)" in stdout
    assert statuses[0] != statuses[1]


def test_a_script_that_is_not_utf8_runs_with_its_bad_bytes_replaced(tmp_path: Path) -> None:
    """A script saved in another encoding (Latin-1 ``é``, stray bytes, a byte order mark) runs:
    each byte that is not UTF-8 reads as U+FFFD, which the bot treats as any other text."""
    script = (
        b"\xef\xbb\xbfalice: /bigidea start\n"
        b"alice: /bigidea addbot 2\n"
        b"\xff\xfe: /bigidea join\n"
        b"alice: /bigidea begin\n"
        b"alice: /bigidea pitch caf\xe9 au lait\n"
        b"alice: /bigidea status\n"
    )
    stdout, records = run_script(tmp_path, script, "--seed", "3")
    # The byte order mark is not part of the first user's name.
    assert "alice opened a game of The Big Idea." in stdout
    # The undecodable user name plays as itself.
    assert any("\ufffd\ufffd joined" in r["text"] for r in records if r["audience"] == "channel")
    assert records[-1]["audience"] == "ephemeral" and records[-1]["user"] == "alice"


def test_asking_a_team_twice_messages_its_members_once(tmp_path: Path) -> None:
    """Through the console's table: a request to join a team is one DM to each answerer, and
    asking the same team again sends none (before, the first copy was closed and another sent)."""
    lines = [
        "alice: /biggiebills start",
        "alice: /biggiebills join Sharks",
        "carol: /biggiebills join Owls",
        "erin: /biggiebills join Whales",
        "alice: /biggiebills begin",
        "dave: /biggiebills join Owls",
        "dave: /biggiebills join Owls",
        "dave: /biggiebills join owls",
    ]
    stdout, _ = run_script(tmp_path, lines, "--seed", "5")
    about = "a request to join Owls"
    assert told(stdout, about) == {"carol · panel": 1, "alice · panel": 1}
    assert told(stdout, "dave asked to join Owls.") == {}  # no copy closed
    assert told(stdout, "is already waiting for a yes") == {"dave · private": 2}


def test_pictures_are_written_with_the_board_and_the_chart_with_the_final_card(
    tmp_path: Path,
) -> None:
    """``--pictures DIR``: each new board picture is written once and its path printed with
    the board; the final card carries the money chart as a PNG file."""
    pictures = tmp_path / "pictures"
    files = tmp_path / "files"
    lines = ["alice: /biggiebills start", "alice: /biggiebills addbot 3", "alice: click Begin"]
    lines += ["alice: click any"] * 200
    stdout, _ = run_script(
        tmp_path, lines, "--seed", "7", "--pictures", str(pictures), "--files", str(files)
    )
    written = sorted(pictures.glob("board-*.png"))
    assert len(written) >= 3, stdout[-2000:]
    assert all(path.read_bytes().startswith(b"\x89PNG") for path in written)
    shown = re.findall(r"\(picture: 1400x\d+, [\d,]+ bytes, (\S+): BiggieBills", stdout)
    assert {Path(path) for path in shown if Path(path).name.startswith("board-")} == set(written)
    # The chart is the final card's picture, written beside the boards' and named with it.
    (chart,) = sorted(pictures.glob("money-*.png"))
    assert chart.read_bytes().startswith(b"\x89PNG")
    final = stdout[stdout.rindex("BiggieBills$$$: final standings") :]
    assert f"{chart}: " in final and "money" in final


def test_pictures_off_shows_the_board_as_text_only(tmp_path: Path) -> None:
    pictures = tmp_path / "pictures"
    lines = [
        "alice: /biggiebills start pictures=off",
        "alice: /biggiebills addbot 3",
        "alice: click Begin",
    ]
    lines += ["alice: click any"] * 20
    stdout, _records = run_script(tmp_path, lines, "--seed", "7", "--pictures", str(pictures))
    assert "pictures: off" in stdout
    assert "(picture:" not in stdout
    assert not pictures.exists()
