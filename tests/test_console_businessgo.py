"""Busine$$ GO in the console adapter, run as the real `boardroom` command in script mode."""

from __future__ import annotations

from pathlib import Path

from tests.test_console import THE_END, final_card, run_script, standing_names, told


def test_a_human_plays_a_few_turns_then_bots_finish_the_short_game(tmp_path: Path) -> None:
    lines = [
        "# a whole short game of Busine$$ GO: alice types and clicks, then leaves it to bots",
        "alice: /businessgo start short=yes turn_seconds=30 auto_moves=no",
        "alice: /businessgo addbot 3",
        "alice: click Begin",
        "alice: /businessgo setup canada",  # refused: no licence
        "alice: /businessgo roll",
        "alice: click any",
        "alice: click any",
        "alice: click any",
        "wait 31",  # a turn deadline passes: the least harmful choice is made
        "alice: click any",
        "alice: /businessgo leave",  # a bot takes the seat and the bots play to the end
        "alice: /businessgo status",
    ]
    stdout, records = run_script(tmp_path, lines, "--seed", "7")

    private = [r for r in records if r["audience"] in {"ephemeral", "dm"}]
    channel = [r for r in records if r["audience"] == "channel"]
    boards = [r for r in records if r["audience"] == "board"]
    assert any("You need the Canada Business Licence" in r["text"] for r in private)
    assert any("Opening roll" in r["text"] for r in boards)
    assert any(" rolls " in r["text"] and " lands on " in r["text"] for r in channel)
    # Told in public: in the log, or at the board's foot while the log line waits (a long
    # stretch of bot moves after it posts only its end).
    assert any("Time is up" in r["text"] for r in channel + boards)
    assert any("Roll the dice" in r["buttons"] for r in boards)  # the choices are on the board
    over = [r for r in channel if "Game over" in r["text"]]
    assert told(stdout, "Game over") == THE_END
    assert all(
        "wins with" in r["text"] and "the first to make $5,000,000" in r["text"] for r in over
    )
    card = final_card(records, "Busine$$ GO: final standings")
    assert card in over
    assert sorted(standing_names(card)) == ["Ada", "Alan", "Grace", "alice"]
    assert "licence" in card["text"] and "racing to $5,000,000" in card["text"]
    assert "wins with" in boards[-1]["text"]
    assert "wins with" in records[-1]["text"]  # the final status


def test_the_same_seed_replays_the_same_bot_game(tmp_path: Path) -> None:
    lines = [
        "alice: /businessgo start short=yes turn_seconds=0",
        "alice: /businessgo addbot 2",
        "alice: /businessgo begin",
        "alice: /businessgo leave",
    ]
    runs = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        runs.append(run_script(tmp_path / name, lines, "--seed", "3")[1])
    assert runs[0] == runs[1]
    assert any("Game over after" in r["text"] for r in runs[0])


def test_click_any_leaves_the_board_buttons_of_someone_elses_turn_alone(tmp_path: Path) -> None:
    """The board's buttons are the turn player's: a scripted player who clicks "any" during
    someone else's turn finds nothing of theirs to click, and is never refused for it."""
    lines = [
        "alice: /businessgo start short=yes turn_seconds=0 auto_moves=no always_compete=no",
        "bob: /businessgo join",
        "alice: click Begin",
        *["bob: click any", "alice: click any"] * 4,
    ]
    stdout, records = run_script(tmp_path, lines, "--seed", "7")
    assert "only they can press those buttons" not in stdout
    assert "(there is nothing " in stdout  # the one not on turn, at least once
    assert any(" rolls " in r["text"] for r in records)  # the one on turn played


def test_the_board_leaves_the_track_to_its_picture_when_it_carries_one(tmp_path: Path) -> None:
    """With ``--pictures DIR`` the board carries its picture, which draws the track, so its
    text leaves the 40 spaces out (each player's line names what they own); without it the
    console shows no picture and the board lists the track."""
    lines = [
        "alice: /businessgo start short=yes turn_seconds=0 auto_moves=no",
        "alice: /businessgo addbot 1",
        "alice: click Begin",
    ]
    (tmp_path / "plain").mkdir()
    (tmp_path / "drawn").mkdir()
    plain, _ = run_script(tmp_path / "plain", lines, "--seed", "7")
    pictures = tmp_path / "pictures"
    drawn, _ = run_script(tmp_path / "drawn", lines, "--seed", "7", "--pictures", str(pictures))
    assert "The track, clockwise" in plain and "20 Boom" in plain and "(picture:" not in plain
    assert "The track, clockwise" not in drawn and "(picture: " in drawn
    assert "alice" in drawn and "N = National" in drawn
    assert sorted(pictures.glob("board-*.png"))


def test_a_move_the_game_makes_for_a_player_is_told_to_them(tmp_path: Path) -> None:
    """With auto_moves (the default) a player whose only move is to roll has it made for
    them: after alice's typed set-up she is told so in its answer, so that she does not type
    `roll` to be told she rolled already (and nobody gets a direct message for it)."""
    lines = [
        "alice: /businessgo start short=yes turn_seconds=0",
        "bob: join",
        "alice: begin",
        "bob: buy",
        "alice: roll",
        "alice: buy",
        "bob: roll",
        "bob: click any",
        "bob: click any",
        "alice: setup ecuador",
    ]
    _stdout, records = run_script(tmp_path, lines, "--seed", "7")
    told = [(r["user"], r["text"]) for r in records if r["audience"] == "ephemeral"]
    theirs = (
        "Then you had only one move, so the game made it for you: “Roll the dice”. The log says "
        "what came of it."
    )
    assert told[-1] == ("alice", theirs)  # the answer to her set-up
    assert not [r for r in records if r["audience"] == "dm"]
