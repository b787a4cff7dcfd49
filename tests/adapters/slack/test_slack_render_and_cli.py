"""Block Kit limits, the app manifest and the command line, without a network."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.slack import cli
from bot.adapters.slack.render import ID_LIMIT, blocks, component_id
from bot.commands import codec
from bot.settings import Settings
from core import ui
from core.registry import all_games

MANIFEST = Path(__file__).resolve().parents[3] / "slack-manifest.json"


def _bound(message: ui.Message) -> ui.Message:
    """``message`` as the table hands it to Slack's primitives: its controls bound to ids."""
    return codec.bind(message, "bigidea", None, ID_LIMIT)


def _button(label: str, n: int) -> ui.Button:
    return ui.Button(label=label, action={"type": "x", "n": n}, version=1)


def test_blocks_respect_slack_limits() -> None:
    message = ui.Message(
        title="T" * 200,
        text="line\n" * 1500,
        buttons=[[_button("B" * 100, n) for n in range(30)]],
        selects=[
            ui.Select(
                placeholder="pick",
                options=[ui.SelectOption(label="O" * 90, value=f"v{i}") for i in range(150)],
                action={"type": "pick"},
                field="cards",
                version=1,
                min_values=2,
                max_values=2,
            )
        ],
    )
    built: list[dict[str, Any]] = blocks(_bound(message))  # Block Kit JSON, read freely
    assert len(built) <= 50
    assert len(built[0]["text"]["text"]) <= 150
    sections = [b for b in built if b["type"] == "section"]
    assert all(len(s["text"]["text"]) <= 3000 for s in sections)
    actions = [b for b in built if b["type"] == "actions"]
    elements = [e for a in actions for e in a["elements"]]
    assert all(len(a["elements"]) <= 25 for a in actions)
    buttons = [e for e in elements if e["type"] == "button"]
    assert len(buttons) == 30 and all(len(b["text"]["text"]) <= 75 for b in buttons)
    (menu,) = [e for e in elements if e["type"] == "multi_static_select"]
    assert menu["max_selected_items"] == 2
    assert all(len(g["options"]) <= 100 for g in menu["option_groups"])
    ids = [e["action_id"] for e in elements]
    assert len(set(ids)) == len(ids)
    assert all(component_id(i) for i in ids)


def test_a_choice_too_long_for_an_id_is_left_out_not_the_message() -> None:
    # Slack's action ids hold 255 characters (less the brd<n>: numbering): past that, left out.
    too_long = ui.Button(label="long", action={"type": "x", "text": "y" * 260}, version=1)
    menu = ui.Select(
        placeholder="m",
        options=[ui.SelectOption(label="o", value="o")],
        action={"type": "x", "t": "y" * 260},
        field="f",
        version=1,
    )
    message = ui.Message(text="Your hand.", buttons=[[_button("ok", 1), too_long]], selects=[menu])
    built: list[dict[str, Any]] = blocks(_bound(message))  # Block Kit JSON, read freely
    elements = [e for b in built if b["type"] == "actions" for e in b["elements"]]
    assert [e["text"]["text"] for e in elements] == ["ok"]
    assert built[0]["text"]["text"] == "Your hand."


def test_manifest_has_every_game_and_only_the_scopes_used() -> None:
    manifest = json.loads(MANIFEST.read_text())
    commands = {c["command"] for c in manifest["features"]["slash_commands"]}
    assert commands == {f"/{g.name}" for g in all_games()} | {"/boardroom"}
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    used = {"commands", "chat:write", "chat:write.public", "files:write", "im:write", "users:read"}
    assert scopes == used
    assert manifest["settings"]["socket_mode_enabled"] is True
    assert manifest["settings"]["interactivity"]["is_enabled"] is True


@pytest.mark.parametrize(
    ("argv", "missing"),
    [([], "SLACK_APP_TOKEN"), (["--http"], "SLACK_SIGNING_SECRET")],
)
def test_missing_tokens_are_a_sentence_and_exit_2(
    argv: list[str], missing: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    settings = Settings.model_validate({"SLACK_BOT_TOKEN": "xoxb-1"})
    settings.slack_app_token = None
    settings.slack_signing_secret = None
    assert cli.run(settings, parser.parse_args(argv)) == 2
    assert missing in capsys.readouterr().err
