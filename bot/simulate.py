"""``boardroom simulate``: bot-only games through the authority and the store."""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import time
from collections import Counter

from tqdm import tqdm

from bot.commands.authority import Authority, Request
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.settings import Settings
from core.engine import GameLike, Outcome
from core.registry import all_games, get_game
from storage import GameKey, GameStore

__all__ = ["percentile", "simulate"]

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
    settings: Settings, game_name: str, players: int, games: int, seed: int, options: list[str]
) -> int:
    """Play ``games`` bot-only games of each variant; 0 if every game finished.

    With no ``options`` a game's :attr:`~core.engine.Game.simulation_variants` run one after the
    other (e.g. Busine$$ GO's normal and short game); with options, just those.
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
    variants = (
        {"": options} if options or not game.simulation_variants else game.simulation_variants
    )
    store = GameStore.from_url(
        settings.redis_url,
        cluster=settings.redis_cluster,
        timeout_s=settings.redis_timeout_seconds,
    )
    status = 0
    try:
        for label, words in variants.items():
            run = _Run(store, settings, game, players, seed, label)
            status = max(status, await run.play(games, words))
    finally:
        await store.close()
    return status


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
    ) -> None:
        seeds = random.Random(seed)
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
        for index in tqdm(range(games), desc=desc, file=sys.stderr):
            key = GameKey(PLATFORM, f"{self.run}-{index}")
            host = Request(platform=key.platform, channel=key.channel, user="host", name="Host")
            steps = (f"start {' '.join(options)}", f"addbot {self.players - 1}", "begin", "leave")
            for word in steps:
                out = await self.authority.command(host, game.name, word)
                if not _shown(out):
                    said = " ".join(d.message.text for d in out.deliveries)
                    print(f"game {index}: `{word}` refused: {said}", file=sys.stderr)
                    return 1
            await self._tally(key)
        self._report(games, time.perf_counter() - started)
        return 0 if sum(self.ended.values()) == games else 1

    async def _tally(self, key: GameKey) -> None:
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
        await self.store.delete(key)

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
        print(
            f"{self.prefix}games={games} finished={sum(self.ended.values())} "
            f"median_rounds={_count(statistics.median(rounds or [0]))} "
            f"p90_rounds={_count(percentile(rounds, 0.9))} games_per_s={games / elapsed:.2f}"
        )
