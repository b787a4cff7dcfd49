"""Typing in the console, run as the real `boardroom console`: a game's words without its name,
menu options with their descriptions, old numbers, and the prompt after a deadline's output."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.test_console import printed, run_script


def numbers(stdout: str, label: str) -> list[int]:
    """The numbers the console gave the buttons and options labelled ``label``, in order."""
    found = []
    for line in stdout.splitlines():
        for number, shown in re.findall(r"\[(\d+)\] (.*?)(?=   \[\d+\] |$)", line):
            if shown.split(" — ")[0] == label:
                found.append(int(number))
    return found


def test_a_games_words_need_no_game_name_once_the_channel_holds_it(tmp_path: Path) -> None:
    lines = [
        "alice: roll",  # no game here yet
        "alice: start",
        "alice: /businessgo start short=yes turn_seconds=0 auto_moves=no always_compete=no",
        "bob: join",
        "bob: frobnicate",
        "alice: begin",
        "alice: roll",
        "bob: roll",
        "bob: /businessgo hand",  # the game's name still works
    ]
    stdout, records = run_script(tmp_path, lines, "--seed", "7")
    said = stdout.splitlines()
    assert said[0].startswith("(unknown input “roll”: no game is open here to take it;")
    assert "`/<game> start` opens one (biggiebills, bigidea, businessgo)" in said[0]
    assert (
        said[1] == "(start which game? `/<game> start` opens one: biggiebills, bigidea, businessgo)"
    )
    unknown = next(line for line in said if "“frobnicate”" in line)
    assert unknown.startswith("(unknown input “frobnicate”: Busine$$ GO, played here, takes roll,")
    assert " join," in unknown and "`/businessgo help`" in unknown

    cards = [r["text"] for r in records if r["audience"] == "channel"]
    assert any("bob joined." in text for text in cards)
    assert any(text.startswith("**Busine$$ GO: playing**") for text in cards)
    # Of the two bare rolls, the one on turn rolls and the other is told whose turn it is.
    boards = [r["text"] for r in records if r["audience"] == "board"]
    assert any(" rolls " in text for text in cards + boards)
    private = [r for r in records if r["audience"] == "ephemeral"]
    assert sum("turn, not yours." in r["text"] for r in private) == 1
    assert any(r["user"] == "bob" and "You have $" in r["text"] for r in private)


def test_a_pitch_and_the_lobby_words_of_the_big_idea_typed_bare(tmp_path: Path) -> None:
    lines = [
        "alice: /bigidea start pick_seconds=0 vote_seconds=0 turn_seconds=0",
        "alice: addbot 2",
        "alice: begin",
        "alice: click any",  # her two cards
        "alice: pitch It's a hat that keeps your head cool.",
        "alice: status",
    ]
    stdout, records = run_script(tmp_path, lines, "--seed", "4")
    assert "unknown input" not in stdout
    channel = [r["text"] for r in records if r["audience"] == "channel"]
    assert any(
        "alice pitches the " in t and "“It's a hat that keeps your head cool.”" in t
        for t in channel
    )
    assert records[-1]["audience"] == "ephemeral" and "**The Big Idea**" in records[-1]["text"]


def test_menu_options_show_their_descriptions(tmp_path: Path) -> None:
    """A BiggieBills$$$ hand: every card option is printed with what its menu says of it, so
    two options of one label (two copies of a card) can be told apart."""
    lines = [
        "alice: /biggiebills start turn_seconds=0 block_seconds=0",
        "alice: addbot 2",
        "alice: begin",
        "alice: hand",
    ]
    stdout, records = run_script(tmp_path, lines, "--seed", "7")
    menus = [s for r in records for s in r["selects"] if any(s["descriptions"])]
    assert menus
    shown = stdout.splitlines()
    for menu in menus:
        for label, description in zip(menu["options"], menu["descriptions"], strict=True):
            assert description, label
            assert any(
                re.fullmatch(rf"    \[\d+\] {re.escape(label)} — {re.escape(description)}", line)
                for line in shown
            ), (label, description)


def test_an_old_number_of_an_edited_message_presses_it_as_it_was(tmp_path: Path) -> None:
    """The README's "old numbers still work": a number of a message printed again since
    (marked updated) presses that button as it was; the bot answers it (applied while it
    stands, out of date once the game moved on), never the console's "sent to someone else"."""
    lobby = [
        "alice: /businessgo start turn_seconds=0 auto_moves=no always_compete=no",
        "bob: join",  # the lobby card is edited: its buttons get new numbers
    ]
    stdout, _ = run_script(tmp_path, lobby, "--seed", "3")
    old_join, new_join = numbers(stdout, "Join")
    old_begin, _ = numbers(stdout, "Begin")
    assert old_join < new_join

    begun = [*lobby, f"bob: click {old_join}", f"alice: click {old_begin}"]
    stdout, _ = run_script(tmp_path, begun, "--seed", "3")
    assert "[bob · private] You're already at the table." in stdout
    assert "Busine$$ GO: playing" in stdout  # the old Begin stood, and began the game
    (roll,) = numbers(stdout, "Roll the dice")
    board = next(text for label, text in printed(stdout) if label.endswith("board"))
    player = re.search(r"\n(\w+) to play: before the roll", board)
    assert player is not None
    turn = player.group(1)

    played = [*begun, f"{turn}: click {roll}", f"{turn}: click {roll}"]
    stdout, _ = run_script(tmp_path, played, "--seed", "3")
    assert f"{turn} rolls " in stdout
    assert f"[{turn} · private] That button is from an earlier moment of the game" in stdout
    assert "sent to someone else" not in stdout


def test_deadline_output_in_a_live_console_is_followed_by_the_prompt(tmp_path: Path) -> None:
    """Interactively the real clock runs the deadlines: what a deadline prints starts on a
    line of its own and the prompt is drawn again under it, so typing goes on cleanly."""
    env = {
        "PATH": "/usr/bin:/bin",
        "BOARDROOM_LOG_LEVEL": "WARNING",
        "BOARDROOM_DEADLINE_POLL_SECONDS": "0.05",
        "PYTHONUNBUFFERED": "1",
    }
    console = subprocess.Popen(
        [sys.executable, "-m", "bot", "console", "--seed", "7"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert console.stdin is not None and console.stdout is not None
    chunks: list[bytes] = []
    fd = console.stdout.fileno()
    reader = threading.Thread(
        target=lambda: chunks.extend(iter(lambda: os.read(fd, 4096), b"")), daemon=True
    )
    reader.start()
    typed = [
        "as alice",
        "/businessgo start short=yes turn_seconds=1 auto_moves=no",
        "addbot 1",
        "begin",
    ]
    console.stdin.write(("\n".join(typed) + "\n").encode())
    console.stdin.flush()

    def redrawn(out: str) -> bool:
        fired = out.find("Time is up")
        return fired >= 0 and out.find("alice> ", fired) > fired

    give_up = time.monotonic() + 60  # a bound on a broken run, not a measured time
    while not redrawn(b"".join(chunks).decode()) and time.monotonic() < give_up:
        time.sleep(0.05)
    console.stdin.write(b"quit\n")
    console.stdin.flush()
    assert console.wait(timeout=60) == 0
    reader.join(timeout=10)
    out = b"".join(chunks).decode()
    assert redrawn(out), out[-2000:]
    # (Piped, the typed lines are not echoed: their answers follow their prompt directly.)
    # What a deadline printed while the prompt waited starts on a line of its own, and the
    # prompt is drawn again after it.
    interrupted = re.findall(r"alice> \n(\[.*?)(?=alice> )", out, re.DOTALL)
    assert interrupted, out[-2000:]
    assert any("Time is up" in text for text in interrupted)
