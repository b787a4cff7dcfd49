"""The Discord invite as the docs describe it and as `boardroom discord invite` prints it: both ask
for exactly the permissions the bot uses (:data:`bot.adapters.discord.adapter.PERMISSIONS`)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import discord
import pytest

from bot.adapters.discord.adapter import INVITE_PERMISSIONS

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD_S = 60.0
"""How long the command may take before the test calls it a hang."""


# --- the invite ----------------------------------------------------------------------------------


def listed_permissions(path: str, section: str) -> discord.Permissions:
    """The permissions ``path`` lists as "permissions (View Channel, ...)" in ``section``, as
    Discord's settings name them (which name discord.py's flags, in lower case with _)."""
    text = (ROOT / path).read_text()
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    found = re.findall(r"permissions\s+\(([^)]*)\)", body)
    assert len(found) == 1, f"{path} ({section}) lists the invite's permissions {len(found)} times"
    names = [" ".join(name.split()) for name in found[0].split(",")]
    flags = [name.lower().replace(" ", "_") for name in names]
    unknown = [
        name
        for name, flag in zip(names, flags, strict=True)
        if flag not in discord.Permissions.VALID_FLAGS
    ]
    assert not unknown, f"{path} names permissions Discord does not have: {unknown}"
    return discord.Permissions(**dict.fromkeys(flags, True))


@pytest.mark.parametrize(
    ("path", "section"), [("README.md", "Running on Discord"), ("docs/discord.md", "Set up")]
)
def test_the_docs_list_exactly_the_permissions_the_invite_asks_for(path: str, section: str) -> None:
    assert listed_permissions(path, section) == INVITE_PERMISSIONS
    for value in re.findall(r"permissions=(\d+)", (ROOT / path).read_text()):
        assert int(value) == INVITE_PERMISSIONS.value  # an invite URL quoted as an example


def test_the_invite_url_asks_for_the_permissions_the_readme_lists(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bot", "discord", "invite", "--client-id", "123456789012345678"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    url = urlparse(result.stdout.strip())
    query = parse_qs(url.query)
    assert (url.scheme, url.netloc, url.path) == ("https", "discord.com", "/oauth2/authorize")
    assert query["client_id"] == ["123456789012345678"]
    assert query["scope"] == ["bot applications.commands"]
    asked = discord.Permissions(int(query["permissions"][0]))
    assert asked == listed_permissions("README.md", "Running on Discord")
    assert asked.create_public_threads and asked.send_messages_in_threads
