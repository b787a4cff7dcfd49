"""The ``boardroom`` command: the console, simulations and benchmarks."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, TextIO

from bot.settings import Settings

__all__ = ["main"]

log = logging.getLogger("boardroom")


_PLATFORMS = {
    "discord": ("run the bot on Discord", "bot.adapters.discord.cli"),
    "slack": ("run the bot on Slack", "bot.adapters.slack.cli"),
}
"""The platform commands and the modules that add their arguments (and run them)."""


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. A platform's arguments are added only when ``argv`` names that
    platform: its module imports the platform's SDK (about half a second), which the console,
    ``simulate`` and ``bench`` do not need."""
    parser = argparse.ArgumentParser(
        prog="boardroom",
        description="Boardroom: business board games in chat. With no command, the console.",
    )
    commands = parser.add_subparsers(dest="command")

    console = commands.add_parser("console", help="play in the terminal (the default)")
    console.add_argument(
        # UTF-8 whatever the locale (a byte order mark ignored); a byte that is not UTF-8 (a
        # script saved in another encoding) reads as U+FFFD rather than stopping the run.
        "--script",
        type=argparse.FileType("r", encoding="utf-8-sig", errors="replace"),
        help="run `<user>: <input>` lines (UTF-8)",
    )
    console.add_argument(
        "--transcript", type=argparse.FileType("w"), help="write every message as a JSON line"
    )
    console.add_argument(
        "--seed", type=int, help="seed the games' decks and dice so a script replays exactly"
    )
    console.add_argument(
        "--files",
        type=Path,
        metavar="DIR",
        help="write the files messages carry (rules all: the whole page) into DIR",
    )
    console.add_argument(
        "--pictures",
        type=Path,
        metavar="DIR",
        help="write each board's picture into DIR and print its path with the board",
    )

    from core.registry import all_games

    simulate = commands.add_parser("simulate", help="play bot-only games through the authority")
    # The registered games, so a wrong name is answered with the list.
    simulate.add_argument(
        "--game", default="bigidea", choices=sorted(g.name for g in all_games()), help="the game"
    )
    simulate.add_argument(
        "--players",
        "--teams",
        type=int,
        default=4,
        help="seats at the table (teams in a team game)",
    )
    simulate.add_argument("--games", type=int, default=100)
    simulate.add_argument("--seed", type=int, default=1)
    simulate.add_argument("--option", action="append", default=[], help="a start option, k=v")
    simulate.add_argument(
        "--levels",
        help="each seat's bot level, e.g. strong,normal,normal,normal (default: all normal)",
    )
    simulate.add_argument(
        "--rotate",
        action="store_true",
        help="move the levels one seat round from game to game",
    )

    commands.add_parser(
        "health",
        help="ask this machine's worker for its /healthz (BOARDROOM_METRICS_PORT): exit 0 when "
        "it can serve players (a container's HEALTHCHECK)",
    )

    words = [word for word in (sys.argv[1:] if argv is None else argv) if not word.startswith("-")]
    for name, (about, module) in _PLATFORMS.items():
        platform = commands.add_parser(name, help=about)
        if words[:1] == [name]:
            importlib.import_module(module).add_arguments(platform)

    # Commands other installed packages add (the benchmarks: `bench` from bench/cli.py), found
    # by their entry points so that nothing here imports them.
    for extra in _extra_commands():
        extra.add_arguments(commands.add_parser(extra.NAME, help=extra.HELP))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser(argv).parse_args(argv)
    settings = Settings()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(levelname)s %(name)s: %(message)s"
    )
    if settings.log_format == "json":
        from bot.ops import JsonLines

        for handler in logging.getLogger().handlers:
            handler.setFormatter(JsonLines())
    command = args.command or _default_command(settings)
    if command == "discord":
        from bot.adapters.discord import cli as discord_cli

        return discord_cli.run(settings, _with_defaults(args, "discord"))
    if command == "slack":
        from bot.adapters.slack import cli as slack_cli

        return slack_cli.run(settings, _with_defaults(args, "slack"))
    if command == "console":
        script: TextIO | None = getattr(args, "script", None)
        transcript: TextIO | None = getattr(args, "transcript", None)
        seed: int | None = getattr(args, "seed", None)
        files: Path | None = getattr(args, "files", None)
        pictures: Path | None = getattr(args, "pictures", None)
        return asyncio.run(_console(settings, script, transcript, seed, files, pictures))
    if command == "health":
        return _health(settings)
    if command == "simulate":
        from bot.simulate import simulate

        return asyncio.run(
            simulate(
                settings,
                args.game,
                args.players,
                args.games,
                args.seed,
                args.option,
                args.levels.split(",") if args.levels else None,
                args.rotate,
            )
        )
    for extra in _extra_commands():
        if command == extra.NAME:
            result: int = extra.run(settings, args)
            return result
    return 2


def _health(settings: Settings) -> int:
    """``boardroom health``: 0 when the worker on this machine answers ``/healthz`` 200; else
    1, with its report (or why it could not be asked) on stderr."""
    import urllib.error
    import urllib.request

    if settings.metrics_port is None:
        print("BOARDROOM_METRICS_PORT is not set: no worker serves /healthz.", file=sys.stderr)
        return 1
    host = "127.0.0.1" if settings.metrics_host in ("0.0.0.0", "::") else settings.metrics_host
    url = f"http://{host}:{settings.metrics_port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=settings.health_timeout_seconds + 2) as answer:
            return 0 if answer.status == 200 else 1
    except urllib.error.HTTPError as error:
        print(
            f"{url} answered {error.code}: {error.read().decode(errors='replace')}", file=sys.stderr
        )
        return 1
    except OSError as error:
        print(f"{url} did not answer: {error}", file=sys.stderr)
        return 1


def _default_command(settings: Settings) -> str:
    """With no command: the platform whose tokens are set, else the console."""
    if settings.discord_token:
        return "discord"
    if settings.slack_bot_token:
        return "slack"
    return "console"


class _ExtraCommand(Protocol):
    """A module of the ``boardroom.commands`` entry points."""

    NAME: str
    HELP: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...
    def run(self, settings: Settings, args: argparse.Namespace) -> int: ...


def _extra_commands() -> list[_ExtraCommand]:
    """The modules of the ``boardroom.commands`` entry points: each has ``NAME``, ``HELP``,
    ``add_arguments(parser)`` and ``run(settings, args) -> int``. One whose module is not
    installed is left out: the image installs the bot without bench/ (whose ``bench`` the
    project's metadata still names), and has no ``boardroom bench``."""
    from importlib.metadata import entry_points

    found = []
    for point in entry_points(group="boardroom.commands"):
        try:
            found.append(point.load())
        except ModuleNotFoundError as missing:
            if missing.name != point.module.split(".")[0]:
                raise  # the command is there, and broken: say so
    return found


def _with_defaults(args: argparse.Namespace, command: str) -> argparse.Namespace:
    """``args`` with the platform's own defaults when it was chosen by its token alone."""
    if args.command == command:
        return args
    return _parser([command]).parse_args([command])


async def _console(
    settings: Settings,
    script: TextIO | None,
    transcript: TextIO | None,
    seed: int | None,
    files: Path | None = None,
    pictures: Path | None = None,
) -> int:
    import random
    import secrets

    from bot.adapters.console import PLATFORM, VirtualClock, run_console
    from bot.runtime import Runtime

    if pictures is None:
        # Without --pictures the console shows no picture: nothing is drawn, and every board
        # is the text of a board without one (the track, the table and all).
        settings = settings.model_copy(update={"pictures": False})
    clock = VirtualClock(time.time()) if script is not None else None
    seeds = random.Random(seed if seed is not None else secrets.randbits(64))
    runtime = Runtime(
        settings,
        PLATFORM,
        asyncio.Event(),  # (Ctrl-C in the terminal is the console's own)
        clock=clock or time.time,
        new_seed=lambda: seeds.getrandbits(63),
        picture_process=False,  # (it draws in a thread, each board as it comes)
    )
    async with runtime:
        await runtime.serve_ops()  # when BOARDROOM_METRICS_PORT is set
        await run_console(
            runtime.authority,
            script,
            transcript,
            clock,
            settings.deadline_poll_seconds,
            random.Random(seeds.getrandbits(64)),
            files,
            pictures,
            runtime.heartbeat,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
