"""``boardroom simulate``: bot-only games through the authority and the store."""

from __future__ import annotations

import json
import random
import statistics
import sys
import time

from tqdm import tqdm

from bot.commands.authority import Authority, Request
from bot.commands.record import GameRecord
from bot.settings import Settings
from core.engine import Outcome
from core.registry import get_game
from storage import GameKey, GameStore

__all__ = ["percentile", "simulate"]

PLATFORM = "simulate"


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (0 < fraction <= 1) of ``values``."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = max(1, min(len(ordered), round(fraction * len(ordered) + 0.5)))
    return ordered[rank - 1]


async def simulate(
    settings: Settings, game_name: str, players: int, games: int, seed: int, options: list[str]
) -> int:
    game = get_game(game_name)
    if game is None:
        print(f"unknown game {game_name!r}", file=sys.stderr)
        return 2
    if not game.min_players <= players <= game.max_players:
        print(f"{game.title} takes {game.min_players}-{game.max_players} players", file=sys.stderr)
        return 2
    store = GameStore.from_url(settings.redis_url)
    seeds = random.Random(seed)
    authority = Authority(store, settings, new_seed=lambda: seeds.getrandbits(63))
    rounds: list[float] = []
    winners_money: list[float] = []
    actions = 0
    finished = 0
    run = f"{seed}-{time.time_ns()}"
    started = time.perf_counter()
    try:
        for index in tqdm(range(games), desc=f"simulating {game.title}", file=sys.stderr):
            key = GameKey(PLATFORM, f"{run}-{index}")
            host = Request(platform=key.platform, channel=key.channel, user="host", name="Host")
            for word in (f"start {' '.join(options)}", f"addbot {players - 1}", "begin", "leave"):
                out = await authority.command(host, game.name, word)
                if not out.public:  # every lobby step that works announces itself publicly
                    said = " ".join(d.message.text for d in out.deliveries)
                    print(f"game {index}: `{word}` refused: {said}", file=sys.stderr)
                    return 1
            _, loaded = await store.load(key)
            record = GameRecord.model_validate_json(loaded.data) if loaded else None
            outcome_data = (record.state or {}).get("outcome") if record else None
            actions += sum(len(json.loads(line)) for line in await store.read_log(key))
            if outcome_data is None:
                continue
            outcome = Outcome.model_validate(outcome_data)
            finished += 1
            rounds.append(outcome.rounds)
            winners_money.extend(s.score for s in outcome.standings if s.rank == 1)
            await store.delete(key)
    finally:
        await store.close()
    elapsed = time.perf_counter() - started
    if winners_money:
        print(
            f"winners' money: median {statistics.median(winners_money):g}, "
            f"min {min(winners_money):g}, max {max(winners_money):g}"
        )
    print(f"actions={actions} actions_per_s={actions / elapsed:.0f}")
    print(
        f"games={games} finished={finished} median_rounds={statistics.median(rounds or [0]):g} "
        f"p90_rounds={percentile(rounds, 0.9):g} games_per_s={games / elapsed:.2f}"
    )
    return 0 if finished == games else 1
