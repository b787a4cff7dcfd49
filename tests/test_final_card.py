"""The card a channel keeps of each game, and the end of a game nobody plays any more, played
through the real `boardroom` console in script mode."""

from __future__ import annotations

from pathlib import Path

from tests.test_console import final_card, run_script, standing_names

LONG = "Bartholomew" * 7  # 77 characters: about the longest display name Slack shows (80)


def test_a_game_of_long_names_ended_early_keeps_a_card_of_short_lines(tmp_path: Path) -> None:
    """Eight teams, the humans' with long names and many members, ended by the host mid-game:
    the card says who ended it, lists every team with its people, and no line runs long."""
    members = [f"{LONG[:60]}{n}" for n in range(7)]
    lines = [
        "alice: /biggiebills start turn_seconds=0 block_seconds=0",
        *(f"{name}: /biggiebills join alice" for name in members[:5]),
        f"{members[5]}: /biggiebills join {LONG[:24]}",
        f"{members[6]}: /biggiebills join {LONG[:24]}",
        "alice: /biggiebills addbot 6",
        "alice: /biggiebills begin",
    ]
    lines += ["alice: click any", f"{members[5]}: click any"] * 2
    lines.append("alice: /biggiebills end")
    _, records = run_script(tmp_path, lines, "--seed", "5")

    card = final_card(records, "BiggieBills$$$: ended early")
    text = card["text"].splitlines()
    assert text[1] == "**alice ended the game of BiggieBills$$$ early.**"
    assert text[2] == "Standing when it ended:"
    bots = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Ken"]
    assert sorted(standing_names(card)) == sorted(["alice", LONG[:24], *bots])
    team = next(line for line in text if f". {LONG[:24]}" in line)
    assert members[5] in team and members[6] in team
    crowded = next(line for line in text if ". alice" in line)
    assert "and 3 more" in crowded  # alice and five members: three named, the rest counted
    assert any(line.startswith("Ended in Business Cycle") for line in text)


def test_a_whole_big_idea_with_long_names_and_pitches_ends_on_a_short_card(
    tmp_path: Path,
) -> None:
    pitch = ("It keeps your beer cold and your cat happy, " * 5)[:200]
    players = [LONG, LONG[:70] + "x", LONG[:70] + "y"]
    lines = [
        f"{players[0]}: /bigidea start pick_seconds=0 vote_seconds=0 turn_seconds=0",
        f"{players[1]}: /bigidea join",
        f"{players[2]}: /bigidea join",
        f"{players[0]}: /bigidea addbot 3",
        f"{players[0]}: /bigidea begin",
    ]
    for _ in range(60):
        for player in players:
            lines += [f"{player}: /bigidea pitch {pitch}", f"{player}: click any"]
    _, records = run_script(tmp_path, lines, "--seed", "7")

    card = final_card(records, "The Big Idea: final standings")
    assert card["text"].splitlines()[1].startswith("**Game over: ")
    assert sorted(standing_names(card)) == sorted([*players, "Ada", "Grace", "Alan"])


def test_nobody_acting_for_half_an_hour_frees_the_channel(tmp_path: Path) -> None:
    """With the default deadlines, timeouts play on while nobody presses anything; they do not
    count as acting, so once half an hour has passed anyone at the table may end the game."""
    lines = [
        "alice: /bigidea start",
        "bob: /bigidea join",
        "carol: /bigidea join",
        "alice: /bigidea begin",
        "wait 600",
        "bob: /bigidea end",  # ten minutes: only the host may end it
    ]
    lines += ["wait 121"] * 12  # the picks, votes and turns time out meanwhile
    lines.append("bob: /bigidea end")
    stdout, records = run_script(tmp_path, lines, "--seed", "3")

    private = [r for r in records if r["audience"] in {"ephemeral", "dm"} and r["user"] == "bob"]
    refused = [
        r
        for r in private
        if r["text"]
        == "Only the host (alice) can end the game, or anyone once nobody has played for 30 "
        "minutes (another 20 minutes from now, if nobody plays)."
    ]
    assert len(refused) == 1
    assert "points at nobody" in stdout or "random pick" in stdout.lower()  # timeouts acted
    card = final_card(records, "The Big Idea: ended early")
    assert card["text"].splitlines()[1] == "**bob ended the game of The Big Idea early.**"
    assert sorted(standing_names(card)) == ["alice", "bob", "carol"]
