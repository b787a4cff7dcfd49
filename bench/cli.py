"""``boardroom bench``: the benchmarks, reached through the ``boardroom.commands`` entry point
(pyproject.toml) so that the bot itself never imports them. Each bench module is imported only
when its bench runs."""

from __future__ import annotations

import argparse
import asyncio

from bot.settings import Settings

__all__ = ["HELP", "NAME", "add_arguments", "run"]

NAME = "bench"
HELP = "measure the authority against a real redis-server"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--adapter",
        choices=["authority", "discord", "slack"],
        default="authority",
        help="authority (default): the authority and Redis; discord/slack: through the real SDK "
        "and a fake platform server on 127.0.0.1",
    )
    parser.add_argument(
        "--games", type=int, default=None, help="concurrent games (100; 50 with --adapter)"
    )
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--think-ms",
        type=float,
        default=None,
        help="mean pause between a game's presses (1000; 0 with --table)",
    )
    parser.add_argument(
        "--pace-seconds", type=float, default=15.0, help="length of the latency part; 0 skips it"
    )
    parser.add_argument(
        "--table",
        action="store_true",
        help="with --adapter: whole games of each game, counting posts, DMs and calls per press",
    )
    parser.add_argument(
        "--bots",
        choices=["easy", "normal", "strong"],
        default=None,
        help="with --table --adapter discord: two of the four seats are bots of this level, "
        "searching in a process pool as a worker's do (compare strong with normal)",
    )
    parser.add_argument(
        "--real-clock",
        action="store_true",
        help="with --table: play on the real clock (pauses and waits take their time) rather "
        "than the virtual one that jumps over them",
    )
    parser.add_argument(
        "--hostile",
        action="store_true",
        help="with --adapter slack: whole games of hostile players against a Slack answering "
        "429s, counting DMs, dropped and refused calls",
    )
    parser.add_argument(
        "--workspace",
        action="store_true",
        help="with --adapter slack: three games at once in one workspace through three workers, "
        "at a person's pace (--think-ms, 5000): each method's busiest minute and board lag",
    )
    parser.add_argument(
        "--memory",
        action="store_true",
        help="with --adapter slack: --games channels (10000) played once each, then quiet: what "
        "the worker keeps per channel before and after, and its memory",
    )
    parser.add_argument(
        "--faults",
        action="store_true",
        help="several worker processes on a Redis the bench kills and restarts (20 games)",
    )
    parser.add_argument(
        "--frozen",
        action="store_true",
        help="one worker on a redis-server the bench freezes (SIGSTOP): how long answers take",
    )
    parser.add_argument(
        "--pictures",
        action="store_true",
        help="draw every game's board over whole bot games: render time and bytes per game",
    )
    parser.add_argument(
        "--replays",
        action="store_true",
        help="200 replay presses at 14 a second beside another channel's help: its latency",
    )
    parser.add_argument(
        "--worst",
        action="store_true",
        help="with --pictures: the worst boards (most seats, 1,000-character names in every "
        "script, longest pitches): render time, last worst_render_ms_p99",
    )
    parser.add_argument(
        "--samples",
        metavar="DIR",
        default=None,
        help="with --pictures: write a sample picture of each game and of its final chart",
    )
    parser.add_argument("--workers", type=int, default=None, help="with --faults: workers (3)")
    parser.add_argument(
        "--cluster", action="store_true", help="with --faults: on a local 3-master cluster"
    )
    parser.add_argument(
        "--history",
        action="store_true",
        help="only what a community's memory costs: record_ms, leaderboard_ms (10,000 people)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="with --faults: how long to play (30); with --frozen: how long Redis is frozen (20)",
    )


def run(settings: Settings, args: argparse.Namespace) -> int:
    if args.pictures:
        from bench.pictures import run_pictures_bench, run_worst_pictures_bench

        if args.worst:
            return run_worst_pictures_bench(args.games or 3, args.seed)
        return run_pictures_bench(args.games or 5, args.seed, args.samples)
    if args.samples is not None:
        print("--samples goes with --pictures")
        return 2
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
    if args.replays:
        from bench.replays import replay_bench

        return asyncio.run(replay_bench(settings, args.seed))
    if args.history:
        from bench.history import history_bench

        return asyncio.run(history_bench(settings, args.seed))
    if args.hostile:
        if args.adapter != "slack":
            print("--hostile goes with --adapter slack")
            return 2
        from bench.hostile import run_hostile_bench

        return asyncio.run(run_hostile_bench(settings, args.seed))
    if args.memory:
        if args.adapter != "slack":
            print("--memory goes with --adapter slack")
            return 2
        from bench.memory import run_memory_bench

        return asyncio.run(run_memory_bench(settings, args.seed, args.games or 10_000))
    if args.workspace:
        if args.adapter != "slack":
            print("--workspace goes with --adapter slack")
            return 2
        from bench.workspace import run_workspace_bench

        think = 5000.0 if args.think_ms is None else args.think_ms
        return asyncio.run(run_workspace_bench(settings, args.seed, think))
    if args.table:
        from bench.table import run_table_bench

        think = args.think_ms or 0.0
        return asyncio.run(
            run_table_bench(
                settings,
                args.adapter,
                args.seed,
                think,
                real_clock=args.real_clock,
                bots=args.bots,
            )
        )
    if args.real_clock or args.bots:
        print(f"{'--real-clock' if args.real_clock else '--bots'} goes with --table")
        return 2
    if args.adapter != "authority":
        if args.adapter == "discord":
            from bench.discord import run_bench
        else:
            from bench.slack import run_bench
        return asyncio.run(run_bench(settings, args.games or 50, args.seed))
    from bench.authority import bench
    from bench.history import history_bench

    code = asyncio.run(
        bench(
            settings,
            args.games or 100,
            args.players,
            args.seed,
            1000.0 if args.think_ms is None else args.think_ms,
            args.pace_seconds,
        )
    )
    return max(code, asyncio.run(history_bench(settings, args.seed)))
