"""A whole 4-team game of BiggieBills$$$ through the real `boardroom` console in script mode."""

from __future__ import annotations

from pathlib import Path

from tests.test_console import THE_END, final_card, run_script, standing_names, told


def test_one_human_team_and_three_bot_teams_play_a_whole_game(tmp_path: Path) -> None:
    """Alice's team plays by clicking, lets a deadline pass now and then, then hands her seat
    to a bot, which plays the game to its end."""
    lines = [
        "alice: /biggiebills start turn_seconds=30 block_seconds=10",
        "alice: /biggiebills addbot 3",
        "alice: /biggiebills begin",
        "alice: /biggiebills play Nonsense Card",
        "alice: /biggiebills block",
    ]
    for turn in range(40):
        lines.append("alice: click any")
        if turn % 8 == 7:
            lines.append("wait 31")  # an idle team skips and pays the fine
    lines += ["alice: /biggiebills leave", "alice: /biggiebills status"]
    stdout, records = run_script(tmp_path, lines, "--seed", "7")

    channel = [r for r in records if r["audience"] == "channel"]
    private = [r for r in records if r["audience"] in {"ephemeral", "dm"}]
    assert any("There is no Growth card called “Nonsense Card”" in r["text"] for r in private)
    assert any("No challenge is waiting" in r["text"] for r in private)
    assert any("Your team's hand" in r["text"] for r in private)
    boards = [r for r in records if r["audience"] == "board"]
    # Told in public: in the log, or at the board's foot while the log line waits (a long
    # stretch of bot moves after it posts only its end).
    assert any("Time is up" in r["text"] for r in channel + boards)
    over = [r for r in channel if "Game over" in r["text"]]
    assert told(stdout, "Game over") == THE_END
    assert all(" wins with " in r["text"] or "tie for first" in r["text"] for r in over)
    card = final_card(records, "BiggieBills$$$: final standings")
    assert card in over
    assert sorted(standing_names(card)) == ["Ada", "Alan", "Grace", "alice"]
    assert "Growth card" in card["text"] and "Business Cycle" in card["text"]
    assert "Business Cycle" in boards[-1]["text"]
    # no team's hand reaches the channel
    assert not any("Your team's hand" in r["text"] for r in channel)
