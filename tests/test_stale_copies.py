"""Copies of a decision that is over lose their buttons, or say why when pressed: an old "Pitch
it…" opens no form once the pitch window has closed; the `hand` copy of an answered join request
is replaced, without its buttons, by the answer to a press on it."""

from __future__ import annotations

from pathlib import Path

from bot.commands.game.moves import STALE
from tests.test_console import run_script


def test_an_old_pitch_button_opens_no_form_after_the_pitch_window(tmp_path: Path) -> None:
    lines = [
        "alice: /bigidea start",
        "alice: addbot 2",
        "alice: begin",
        "alice: click any",
        "alice: click Pitch it",  # open: the form comes
        "alice: wait 70",  # everyone has pointed (the bots, then alice's time ran out)
        "alice: click 12",  # the same "Pitch it…", pressed again
    ]
    stdout, records = run_script(tmp_path, lines, "--seed", "4")
    assert "  [12] Pitch it…" in stdout.splitlines()
    forms = [line for line in stdout.splitlines() if line.startswith("[alice · form]")]
    assert len(forms) == 1  # the first press only
    told = [r["text"] for r in records if r["user"] == "alice" and r["audience"] == "ephemeral"]
    assert told[-1] == (
        f"{STALE} You can pitch only your own new product, after the reveal and until everyone "
        "has pointed."
    )
