"""The ``boardroom`` command: the console, simulations and benchmarks."""

from __future__ import annotations

import argparse
import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from bot.settings import Settings

__all__ = ["main"]

log = logging.getLogger("boardroom")


def _parser() -> argparse.ArgumentParser:
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

    from bot.adapters.discord import cli as discord_cli
    from bot.adapters.slack import cli as slack_cli

    discord_cli.add_arguments(commands.add_parser("discord", help="run the bot on Discord"))
    slack_cli.add_arguments(commands.add_parser("slack", help="run the bot on Slack"))

    bench = commands.add_parser("bench", help="measure the authority against a real redis-server")
    bench.add_argument(
        "--adapter",
        choices=["authority", "discord", "slack"],
        default="authority",
        help="authority (default): the authority and Redis; discord/slack: through the real SDK "
        "and a fake platform server on 127.0.0.1",
    )
    bench.add_argument(
        "--games", type=int, default=None, help="concurrent games (100; 50 with --adapter)"
    )
    bench.add_argument("--players", type=int, default=4)
    bench.add_argument("--seed", type=int, default=1)
    bench.add_argument(
        "--think-ms",
        type=float,
        default=None,
        help="mean pause between a game's presses (1000; 0 with --table)",
    )
    bench.add_argument(
        "--pace-seconds", type=float, default=15.0, help="length of the latency part; 0 skips it"
    )
    bench.add_argument(
        "--table",
        action="store_true",
        help="with --adapter: whole games of each game, counting posts, DMs and calls per press",
    )
    bench.add_argument(
        "--hostile",
        action="store_true",
        help="with --adapter slack: whole games of hostile players against a Slack answering "
        "429s, counting DMs, dropped and refused calls",
    )
    bench.add_argument(
        "--faults",
        action="store_true",
        help="several worker processes on a Redis the bench kills and restarts (20 games)",
    )
    bench.add_argument(
        "--frozen",
        action="store_true",
        help="one worker on a redis-server the bench freezes (SIGSTOP): how long answers take",
    )
    bench.add_argument("--workers", type=int, default=None, help="with --faults: workers (3)")
    bench.add_argument(
        "--cluster", action="store_true", help="with --faults: on a local 3-master cluster"
    )
    bench.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="with --faults: how long to play (30); with --frozen: how long Redis is frozen (20)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    settings = Settings()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(levelname)s %(name)s: %(message)s"
    )
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
        return asyncio.run(_console(settings, script, transcript, seed, files))
    if command == "simulate":
        from bot.simulate import simulate

        return asyncio.run(
            simulate(settings, args.game, args.players, args.games, args.seed, args.option)
        )
    if command == "bench":
        if args.faults:
            from bench.faults import faultbench

            return asyncio.run(
                faultbench(
                    settings,
                    games=args.games or 20,
                    workers=3 if args.workers is None else args.workers,
                    cluster=args.cluster,
                    seconds=30.0 if args.seconds is None else args.seconds,
                    seed=args.seed,
                )
            )
        if args.frozen:
            from bench.frozen import frozen_bench

            seconds = 20.0 if args.seconds is None else args.seconds
            return asyncio.run(frozen_bench(settings, seconds=seconds))
        if args.workers is not None or args.cluster or args.seconds is not None:
            print("--workers, --cluster and --seconds go with --faults")
            return 2
        if args.hostile:
            if args.adapter != "slack":
                print("--hostile goes with --adapter slack")
                return 2
            from bench.hostile import run_hostile_bench

            return asyncio.run(run_hostile_bench(settings, args.seed))
        if args.table:
            from bench.table import run_table_bench

            think = args.think_ms or 0.0
            return asyncio.run(run_table_bench(settings, args.adapter, args.seed, think))
        if args.adapter != "authority":
            adapter_bench: Callable[[Settings, int, int], Coroutine[Any, Any, int]]
            adapter_bench = _adapter_cli(args.adapter).bench
            return asyncio.run(adapter_bench(settings, args.games or 50, args.seed))
        from bench.authority import bench

        return asyncio.run(
            bench(
                settings,
                args.games or 100,
                args.players,
                args.seed,
                1000.0 if args.think_ms is None else args.think_ms,
                args.pace_seconds,
            )
        )
    return 2


def _default_command(settings: Settings) -> str:
    """With no command: the platform whose tokens are set, else the console."""
    if settings.discord_token:
        return "discord"
    if settings.slack_bot_token:
        return "slack"
    return "console"


def _adapter_cli(name: str) -> ModuleType:
    if name == "discord":
        from bot.adapters.discord import cli as discord_cli

        return discord_cli
    from bot.adapters.slack import cli as slack_cli

    return slack_cli


def _with_defaults(args: argparse.Namespace, command: str) -> argparse.Namespace:
    """``args`` with the platform's own defaults when it was chosen by its token alone."""
    if args.command == command:
        return args
    return _parser().parse_args([command])


async def _console(
    settings: Settings,
    script: TextIO | None,
    transcript: TextIO | None,
    seed: int | None,
    files: Path | None = None,
) -> int:
    import random
    import secrets

    from bot.adapters.console import VirtualClock, run_console
    from bot.commands.authority import Authority
    from bot.runtime import open_store, warn_about_policy

    store = open_store(settings)
    await warn_about_policy(store)
    clock = VirtualClock(time.time()) if script is not None else None
    seeds = random.Random(seed if seed is not None else secrets.randbits(64))
    authority = Authority(
        store, settings, clock=clock or time.time, new_seed=lambda: seeds.getrandbits(63)
    )
    try:
        await run_console(
            authority,
            script,
            transcript,
            clock,
            settings.deadline_poll_seconds,
            random.Random(seeds.getrandbits(64)),
            files,
        )
    finally:
        await store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
