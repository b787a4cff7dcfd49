"""``boardroom bench --pictures``: how long drawing and encoding each game's board takes, and
how big the pictures are, over whole bot games; ``--samples DIR`` also writes a sample picture
of each game and of an end-of-game chart (the pictures on the rules pages and the README).

A picture is drawn when the public view changed (as the table draws it), so the numbers are
those of the pictures players would get. The first picture of a process (which draws each
board's printed layer once) is reported apart, as ``first_ms``.
"""

from __future__ import annotations

import random
import statistics
import time
from pathlib import Path

from bot.commands.community import finalcard
from bot.commands.game.actionlog import line, money_and_rounds
from bot.commands.game.play import advance, start_state
from bot.commands.record import GameRecord, SeatInfo
from core import registry, ui
from core.engine import GameLike, GameState
from storage import History

__all__ = ["run_pictures_bench", "run_worst_pictures_bench"]

NAMES = ["Ann", "Bo", "Cy", "Di"]
_SAMPLE_AT = 0.6
"""How far into its game a sample picture is taken (a busy board, before the end)."""


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _play(game: GameLike, seed: int, names: list[str] = NAMES) -> tuple[list[GameState], list[str]]:
    """A whole game of bots: every state after each command, and its log lines."""
    bots = [False] * len(names)
    result = start_state(game, names, bots, {}, seed, 1)
    lines = [line([["host", "begin", [*names], [*bots]], *result.log])]
    states = [result.state]
    chooser = random.Random(seed)
    state = result.state
    for _ in range(5000):
        if state.finished:
            break
        seat = chooser.choice(game.actors(state))
        action = game.bot_choice(state, seat, game.legal_actions(state, seat), chooser)
        step = advance(game, state, seed, bots, seat, action)
        lines.append(line(step.log))
        state = step.state
        states.append(state)
    return states, lines


def _public_key(game: GameLike, state: GameState) -> str:
    """What the picture is drawn from, without what changes every move but is not drawn."""
    return game.picture_basis(state)


def run_pictures_bench(games: int, seed: int, samples: str | None) -> int:
    out_dir = Path(samples) if samples else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    for game in registry.all_games():
        renders: list[float] = []
        sizes: list[int] = []
        first_ms: float | None = None
        distinct_per_game: list[int] = []
        chart_ms: list[float] = []
        for g in range(games):
            states, lines = _play(game, seed + g)
            last = None
            digests: set[str] = set()
            for state in states:
                key = _public_key(game, state)
                if key == last:
                    continue
                last = key
                started = time.perf_counter()
                picture = game.picture(state)
                elapsed = (time.perf_counter() - started) * 1000
                if picture is None:
                    break
                if first_ms is None:
                    first_ms = elapsed
                else:
                    renders.append(elapsed)
                sizes.append(len(picture.data))
                digests.add(picture.digest)
            distinct_per_game.append(len(digests))
            started = time.perf_counter()
            chart = _chart(game, seed + g, states[-1], lines)
            chart_ms.append((time.perf_counter() - started) * 1000)
            if out_dir is not None and g == 0:
                sample = states[int(len(states) * _SAMPLE_AT)]
                picture = game.picture(sample)
                if picture is not None:
                    (out_dir / f"{game.name}.png").write_bytes(picture.data)
                if chart is not None:
                    (out_dir / f"{game.name}-chart.png").write_bytes(chart.data)
        if not renders:
            print(f"{game.name} draws no picture")
            continue
        print(
            f"{game.name} pictures={len(sizes)} distinct_per_game_min={min(distinct_per_game)} "
            f"render_ms_p50={statistics.median(renders):.1f} "
            f"render_ms_p99={_percentile(renders, 0.99):.1f} "
            f"bytes_p50={round(statistics.median(sizes))} bytes_max={max(sizes)} "
            f"first_ms={first_ms:.1f} chart_ms_p50={statistics.median(chart_ms):.1f}"
        )
    if out_dir is not None:
        print(f"samples written to {out_dir}")
    return 0


def _chart(game: GameLike, seed: int, state: GameState, lines: list[str]) -> ui.Picture | None:
    """The end-of-game chart, as the final card gets it: replayed from the log and drawn."""
    found = money_and_rounds(game, seed, {}, 1, History(lines=lines))
    if found is None:
        return None
    record = GameRecord(
        game=game.name,
        host="bench",
        host_name=NAMES[0],
        seed=seed,
        seats=[SeatInfo(name=name) for name in NAMES],
        status="finished",
        created_at=0.0,
        updated_at=0.0,
    )
    return finalcard.money_chart(game, record, state, *found)


WORST_NAME = 1000
"""Characters of a name on the worst boards: the console takes names this long (Discord's
display names stop at 32, Slack's at 80)."""
WORST_PITCH = 200
"""Characters of a pitch (The Big Idea's limit)."""
_SCRIPTS = "Дмитрий Ελένη 田中 محمد देवेंद्र 🎲 Ann "


def _worst_names(count: int) -> list[str]:
    """``count`` different names of :data:`WORST_NAME` characters in every script the pictures
    draw, each one word after another (so wrapping and fitting work their hardest)."""
    return [(f"{seat}{_SCRIPTS}" * WORST_NAME)[:WORST_NAME] for seat in range(count)]


def _with_pitches(state: GameState) -> GameState:
    """The Big Idea's state with every product pitched at the longest a pitch may be."""
    products = getattr(state, "products", None)
    if not isinstance(products, list):
        return state
    pitched = state.model_copy(deep=True)
    for product in getattr(pitched, "products", []):
        product.pitch = (_SCRIPTS * WORST_PITCH)[:WORST_PITCH]
    return pitched


def run_worst_pictures_bench(games: int, seed: int) -> int:
    """The worst boards: every game at its most seats, every name :data:`WORST_NAME`
    characters in every script, every pitch :data:`WORST_PITCH`: draw time per distinct board
    (the first of the process apart), last line ``worst_render_ms_p99=<x>`` (the worst game's;
    goal: at most 50)."""
    worst: list[float] = []
    worst_cpu: list[float] = []
    for game in registry.all_games():
        renders: list[float] = []
        cpu: list[float] = []
        first_ms = 0.0
        for g in range(games):
            states, _lines = _play(game, seed + g, _worst_names(game.max_players))
            last = None
            for state in states:
                key = _public_key(game, state)
                if key == last:
                    continue
                last = key
                shown = _with_pitches(state)
                started, used = time.perf_counter(), time.thread_time()
                picture = game.picture(shown)
                elapsed = (time.perf_counter() - started) * 1000
                if picture is None:
                    break
                if not first_ms:
                    first_ms = elapsed
                else:
                    renders.append(elapsed)
                    cpu.append((time.thread_time() - used) * 1000)
        if not renders:
            print(f"{game.name} draws no picture")
            continue
        p99, cpu_p99 = _percentile(renders, 0.99), _percentile(cpu, 0.99)
        worst.append(p99)
        worst_cpu.append(cpu_p99)
        print(
            f"{game.name} seats={game.max_players} name_chars={WORST_NAME} boards={len(renders)} "
            f"render_ms_p50={statistics.median(renders):.1f} render_ms_p99={p99:.1f} "
            f"render_ms_max={max(renders):.1f} cpu_ms_p99={cpu_p99:.1f} first_ms={first_ms:.1f}"
        )
    # The wall clock counts what other processes take of the machine; the CPU time is the
    # drawing's own.
    print(
        f"worst_render_ms_p99={max(worst, default=0.0):.1f} "
        f"worst_cpu_ms_p99={max(worst_cpu, default=0.0):.1f}"
    )
    return 0
