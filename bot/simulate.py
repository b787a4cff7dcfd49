"""``boardroom simulate``: bot-only games through the authority and the store."""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import time
from collections import Counter
from typing import cast

from tqdm import tqdm

from bot.commands.authority import Authority, Request
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.settings import Settings
from core import bots as levels
from core import text as markup
from core.bots import DEFAULT_LEVEL, LEVELS, Level
from core.engine import GameLike, Outcome
from core.registry import all_games, get_game
from storage import GameKey, GameStore

__all__ = ["interval", "percentile", "simulate"]

PLATFORM = "simulate"


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (0 < fraction <= 1) of ``values``."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    # The smallest rank covering ``fraction`` of the values (rounded: 0.9 * 10 is 9, not 9.0...01).
    rank = max(1, min(len(ordered), math.ceil(round(fraction * len(ordered), 9))))
    return ordered[rank - 1]


async def simulate(
    settings: Settings,
    game_name: str,
    players: int,
    games: int,
    seed: int,
    options: list[str],
    levels: list[str] | None = None,
    rotate: bool = False,
) -> int:
    """Play ``games`` bot-only games of each variant; 0 if every game finished.

    With no ``options`` a game's :attr:`~core.engine.Game.simulation_variants` run one after the
    other (e.g. Busine$$ GO's normal and short game); with options, just those. ``levels``: each
    seat's bot level (``strong,normal,normal,normal``; all normal by default), moved one seat
    round from game to game with ``rotate``.
    """
    game = get_game(game_name)
    if game is None:
        names = ", ".join(sorted(g.name for g in all_games()))
        print(f"There is no game called {game_name!r}; the games are {names}.", file=sys.stderr)
        return 2
    if not game.min_players <= players <= game.max_players:
        seats = "teams" if game.teams else "players"
        print(f"{game.title} takes {game.min_players}-{game.max_players} {seats}", file=sys.stderr)
        return 2
    chosen = _levels(levels, players)
    if chosen is None:
        print(
            f"--levels takes one level a seat ({players} of {', '.join(LEVELS)}), "
            "separated by commas.",
            file=sys.stderr,
        )
        return 2
    variants = (
        {"": options} if options or not game.simulation_variants else game.simulation_variants
    )
    store = GameStore.from_url(
        settings.redis_url,
        cluster=settings.redis_cluster,
        timeout_s=settings.redis_timeout_seconds,
    )
    status = 0
    runs: list[_Run] = []
    try:
        for label, words in variants.items():
            run = _Run(store, settings, game, players, seed, label, chosen, rotate)
            status = max(status, await run.play(games, words))
            runs.append(run)
    finally:
        await store.close()
    if runs:
        print(_last_line(runs))
    return status


def _last_line(runs: list[_Run]) -> str:
    """``levels strong=0.612 normal=0.455 seats 1=0.26 ...``: each level's and each seat's
    share of the games won (from 0 to 1, ties counted for each), over every variant run."""
    played = max(1, sum(run.played for run in runs))
    kinds = list(dict.fromkeys(level for run in runs for level in run.levels))
    shares = " ".join(
        f"{kind}={sum(run.level_wins[kind] for run in runs) / played:.3f}" for kind in kinds
    )
    seats = " ".join(
        f"{seat + 1}={sum(run.seat_wins[seat] for run in runs) / played:.3f}"
        for seat in range(runs[0].players)
    )
    return f"levels {shares} seats {seats}"


def _levels(given: list[str] | None, players: int) -> list[Level] | None:
    """Each seat's level as given (all normal when not), or None when it cannot be read."""
    if not given:
        return [DEFAULT_LEVEL] * players
    words = [word.strip().lower() for word in given]
    if len(words) != players or any(word not in LEVELS for word in words):
        return None
    return [cast("Level", word) for word in words]


def interval(wins: int, games: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a share of ``wins`` in ``games``."""
    if games == 0:
        return 0.0, 1.0
    z = 1.959964
    share = wins / games
    middle = share + z * z / (2 * games)
    half = z * math.sqrt(share * (1 - share) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return max(0.0, (middle - half) / scale), min(1.0, (middle + half) / scale)


def _count(value: float) -> str:
    """A count or a median of counts (``12``, ``12.5``), never in exponent notation."""
    return f"{value:.1f}".removesuffix(".0")


def _shown(out: Outbox) -> bool:
    """Whether a lobby step worked: each shows itself on the table (the lobby card for
    ``start``, ``addbot`` and ``begin``; a line of the game's story for ``leave``), while a
    refusal is only a private reply."""
    return out.card is not None or bool(out.log)


class _Run:
    """One variant's games, and the numbers it prints."""

    def __init__(
        self,
        store: GameStore,
        settings: Settings,
        game: GameLike,
        players: int,
        seed: int,
        label: str,
        levels: list[Level] | None = None,
        rotate: bool = False,
    ) -> None:
        seeds = random.Random(seed)
        self.levels: list[Level] = levels or [DEFAULT_LEVEL] * players
        self.rotate = rotate
        self.level_wins: Counter[str] = Counter()
        self.seat_wins: Counter[int] = Counter()
        self.played = 0
        self.store = store
        self.game = game
        self.players = players
        self.label = label
        # One simulated host opens every game: no limit on the lobbies a person opens.
        unlimited = settings.model_copy(update={"limit_lobbies": 0})
        self.authority = Authority(store, unlimited, new_seed=lambda: seeds.getrandbits(63))
        self.rounds: list[float] = []
        self.winners_money: list[float] = []
        self.ended: Counter[str] = Counter()
        self.tallies: dict[str, list[float]] = {}
        self.decisions: list[float] = []
        self.actions = 0
        self.prefix = f"variant={label} " if label else ""
        self.run = f"{seed}-{label}-{time.time_ns()}"

    async def play(self, games: int, options: list[str]) -> int:
        game = self.game
        started = time.perf_counter()
        desc = f"simulating {game.title}" + (f" ({self.label})" if self.label else "")
        with levels.watching() as self.thought:
            for index in tqdm(range(games), desc=desc, file=sys.stderr):
                if not await self._one(index, options):
                    return 1
        self._report(games, time.perf_counter() - started)
        return 0 if sum(self.ended.values()) == games else 1

    async def _one(self, index: int, options: list[str]) -> bool:
        """Play game ``index`` (False: a lobby step was refused): the host opens it with the
        first seat's level as the table's, adds a bot of each other seat's level, begins and
        leaves, and a bot of the table's level takes the host's seat."""
        key = GameKey(PLATFORM, f"{self.run}-{index}")
        host = Request(platform=key.platform, channel=key.channel, user="host", name="Host")
        seats = self.seating(index)
        steps = (
            f"start bots={seats[0]} {' '.join(options)}",
            *(f"addbot 1 {level}" for level in seats[1:]),
            "begin",
            "leave",
        )
        for word in steps:
            out = await self.authority.command(host, self.game.name, word)
            if not _shown(out):
                said = " ".join(d.message.text for d in out.deliveries)
                print(f"game {index}: `{word}` refused: {said}", file=sys.stderr)
                return False
        await self._tally(key, seats)
        return True

    def seating(self, index: int) -> list[Level]:
        """The level of each seat in game ``index``: moved round one seat a game (rotate)."""
        shift = index % self.players if self.rotate else 0
        return self.levels[-shift:] + self.levels[:-shift] if shift else list(self.levels)

    async def _tally(self, key: GameKey, table: list[Level]) -> None:
        _, loaded = await self.store.load(key)
        record = GameRecord.model_validate_json(loaded.data) if loaded else None
        outcome_data = (record.state or {}).get("outcome") if record else None
        entries = [e for line in await self.store.read_log(key) for e in json.loads(line)]
        self.actions += len(entries)
        if outcome_data is None or record is None:
            return
        outcome = Outcome.model_validate(outcome_data)
        state = self.game.state_model.model_validate(record.state)
        for name, value in self.game.tallies(state).items():
            self.tallies.setdefault(name, []).append(value)
        # A decision is an action a seat made (not the clock's): what each seat was asked.
        seats = len(state.names)
        self.decisions.append(
            sum(1 for e in entries if isinstance(e[0], int) and e[0] >= 0) / seats
        )
        self.ended[outcome.ended or "finished"] += 1
        self.rounds.append(outcome.rounds)
        self.winners_money.extend(s.score for s in outcome.standings if s.rank == 1)
        winners = set(outcome.winners)
        self.played += 1
        for level in set(table):  # a level wins a game when any of its seats does (ties: each)
            self.level_wins[level] += any(table[s] == level for s in winners)
        for seat in winners:
            self.seat_wins[seat] += 1
        await self.store.delete(key)

    def _shares(self) -> None:
        """Each level's and each seat's share of the games won (ties counted for each), with
        its 95 % interval, then the one line a script reads: ``levels ... seats ...``."""
        played = self.played
        levels = list(dict.fromkeys(self.levels))
        for level in levels:
            low, high = interval(self.level_wins[level], played)
            seats = sum(1 for chosen in self.levels if chosen == level)
            print(
                f"{self.prefix}level {level} ({markup.plural(seats, 'seat')}): "
                f"won {self.level_wins[level] / max(1, played):.3f} "
                f"(95% {low:.3f}-{high:.3f})"
            )
        for seat in range(self.players):
            low, high = interval(self.seat_wins[seat], played)
            print(
                f"{self.prefix}seat {seat + 1}: won {self.seat_wins[seat] / max(1, played):.3f} "
                f"(95% {low:.3f}-{high:.3f})"
            )

    def _report(self, games: int, elapsed: float) -> None:
        rounds, money, shown_money = self.rounds, self.winners_money, self.game.score_text
        if money:
            print(
                f"{self.prefix}winners' money: median {shown_money(statistics.median(money))}, "
                f"min {shown_money(min(money))}, max {shown_money(max(money))}"
            )
        how = ", ".join(f"{why} {count}" for why, count in self.ended.most_common())
        print(f"{self.prefix}ended: {how or 'no game finished'}")
        print(f"{self.prefix}actions={self.actions} actions_per_s={self.actions / elapsed:.0f}")
        shown = [f"decisions_per_seat={statistics.mean(self.decisions or [0]):.0f}"]
        for name, values in self.tallies.items():
            mean = statistics.mean(values)
            shown.append(
                f"{name}={100 * mean:.1f}" if name.endswith("_pct") else f"{name}={mean:.1f}"
            )
        print(self.prefix + " ".join(shown))
        if self.thought.cpu_s:
            print(
                f"{self.prefix}strong decisions={len(self.thought.cpu_s)} cpu_ms "
                f"p50={1000 * percentile(self.thought.cpu_s, 0.5):.1f} "
                f"p99={1000 * percentile(self.thought.cpu_s, 0.99):.1f} "
                f"max={1000 * max(self.thought.cpu_s):.1f} "
                f"nodes_per_decision={self.thought.nodes / len(self.thought.cpu_s):.0f}"
            )
        self._shares()
        print(
            f"{self.prefix}games={games} finished={sum(self.ended.values())} "
            f"median_rounds={_count(statistics.median(rounds or [0]))} "
            f"p90_rounds={_count(percentile(rounds, 0.9))} games_per_s={games / elapsed:.2f}"
        )
