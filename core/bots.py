"""Bot levels, the same for every game: easy, normal and strong.

- **normal** is the game's own bot (:attr:`~core.engine.Game.bot_action`): heuristics over the
  seat's own view and its legal actions.
- **easy** is the normal bot with lapses: on some decisions (:data:`EASY_LAPSE`) it takes any
  legal action at random instead, so it plays plausibly (always legally) but weaker.
- **strong** searches: determinized rollouts over the game's own ``legal_actions`` and
  ``apply``. For each of a few sampled worlds (:attr:`~core.engine.Game.sample`: what the seat
  cannot see dealt anew from what it could be, never the true hidden state) it tries each
  candidate action and plays on with the normal bot in every seat for a short horizon, then
  scores the position for the seat (a win at the end, else its lead by the game's ranking).
  Every candidate meets the same worlds and the same dice (common random numbers), so the
  comparison is fair with few rollouts. The search stops at a node budget (actions applied,
  reproducible: tests use it alone) and, in play, at a CPU time budget too.

Nothing here reads a clock but :func:`time.process_time` for the time budget, which only
shortens the search (the node budget alone makes a choice reproducible).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from pydantic import BaseModel

from core.engine import GameLike, GameState, IllegalAction, Rng, Seat, Standing

__all__ = [
    "DEFAULT_LEVEL",
    "EASY_LAPSE",
    "LEVELS",
    "PLAY_BUDGET",
    "Budget",
    "Level",
    "Think",
    "Thought",
    "choose",
    "deferring",
    "elsewhere",
    "level_of",
    "strong_choice",
    "think",
    "watching",
]

Level = Literal["easy", "normal", "strong"]
LEVELS: tuple[Level, ...] = get_args(Level)
DEFAULT_LEVEL: Level = "normal"

MIN_WORLDS = 3
"""Worlds a search must have seen before it plays anything but the normal bot's choice."""

EASY_LAPSE = 0.7
"""The share of an easy bot's decisions (with more than one legal action) made at random (at
half, normal bots won 58.7 % of 300 Busine$$ GO games against easy ones, short of 60 %)."""


@dataclass(frozen=True)
class Budget:
    """How much a strong bot may search for one decision."""

    nodes: int = 800
    """Actions applied in the search at most (candidates, rollouts): the reproducible bound."""
    worlds: int = 8
    """Sampled worlds at most (each candidate is tried in every one)."""
    horizon: int = 16
    """Actions a rollout plays after the candidate before the position is scored."""
    candidates: int = 6
    """Candidates tried at most: the normal bot's choice and others at random."""
    confidence: float = 1.0
    """How many standard errors a candidate's gain over the normal bot's choice must clear."""
    seconds: float | None = 0.15
    """CPU seconds at most (None: the node budget alone, as in tests): a world is begun only
    when it should end within it (by the worlds before it), and one is always searched."""


PLAY_BUDGET = Budget()
"""The budget of a strong bot at a table (and in ``boardroom simulate``)."""


@dataclass
class Thought:
    """What strong bots' searches did (``boardroom simulate`` reports it): per decision
    searched, its CPU seconds, and the nodes and worlds of them all."""

    cpu_s: list[float] = field(default_factory=list)
    nodes: int = 0
    worlds: int = 0
    values: list[list[float]] = field(default_factory=list)
    """The last search's values, by candidate and world (the conformance kit compares them)."""


_WATCHERS: list[Thought] = []
_ANSWERS: contextvars.ContextVar[dict[str, BaseModel] | None] = contextvars.ContextVar(
    "strong_answers", default=None
)
_DEFER: contextvars.ContextVar[bool] = contextvars.ContextVar("strong_defer", default=False)


class Think(Exception):
    """A strong bot's decision to be searched elsewhere (:func:`elsewhere`): raised by
    :func:`choose` where its answer is not known yet; :meth:`run` (in a worker's process) makes
    the choice, which the caller adds to the answers before it runs its step again."""

    def __init__(
        self,
        game: str,
        state: GameState,
        seat: Seat,
        legal: list[BaseModel],
        rng: object,
        budget: Budget,
    ) -> None:
        super().__init__(f"a strong bot of {game} thinks for seat {seat}")
        self.game, self.state, self.seat, self.legal = game, state, seat, legal
        self.rng, self.budget = rng, budget
        digest = hashlib.sha256(state.model_dump_json().encode())
        digest.update(repr((seat, rng)).encode())
        self.key = digest.hexdigest()
        """The decision: the state, the seat and the bot's random state (the same step run
        again asks the same)."""

    def job(self) -> functools.partial[tuple[BaseModel, float]]:
        """The search as a plain function and its (picklable) arguments."""
        return functools.partial(
            think, self.game, self.state, self.seat, self.legal, self.rng, self.budget
        )


def think(
    game_name: str,
    state: GameState,
    seat: Seat,
    legal: list[BaseModel],
    rng_state: object,
    budget: Budget,
) -> tuple[BaseModel, float]:
    """A strong bot's choice and the CPU seconds it took, where it runs (a worker's process
    pool): the same choice as :func:`strong_choice` with that random state."""
    from core.registry import get_game

    game = get_game(game_name)
    if game is None:
        raise ValueError(f"no game called {game_name!r}")
    rng = random.Random()
    rng.setstate(rng_state)  # type: ignore[arg-type]
    thought = Thought()
    choice = strong_choice(game, state, seat, legal, rng, budget, thought)
    return choice, sum(thought.cpu_s)


@contextlib.contextmanager
def elsewhere(answers: dict[str, BaseModel], defer: bool = False) -> Iterator[None]:
    """Within it, a strong bot's decision not in ``answers`` raises :class:`Think` rather than
    searching here (the authority's pipeline runs it in the worker's process pool). ``defer``:
    a person's step, which does not wait for the search: the bots stop at it
    (:func:`deferring`) and the deadline loop has the bot move soon after."""
    token = _ANSWERS.set(answers)
    deferred = _DEFER.set(defer)
    try:
        yield
    finally:
        _DEFER.reset(deferred)
        _ANSWERS.reset(token)


def deferring() -> bool:
    """Whether a strong bot's move waits for the deadline loop (:func:`elsewhere`)."""
    return _DEFER.get()


@contextlib.contextmanager
def watching() -> Iterator[Thought]:
    """Every strong decision searched in this process meanwhile, counted in the Thought
    yielded (``boardroom simulate`` prints their CPU time)."""
    thought = Thought()
    _WATCHERS.append(thought)
    try:
        yield thought
    finally:
        _WATCHERS.remove(thought)


def level_of(value: object) -> Level | None:
    """A seat's bot level from what the authority keeps for it: None (a person), True (a bot
    stored before levels: normal) or a level's name."""
    if value is None or value is False:
        return None
    if value is True:
        return DEFAULT_LEVEL
    for level in LEVELS:
        if value == level:
            return level
    return DEFAULT_LEVEL


def choose(
    game: GameLike,
    state: GameState,
    seat: Seat,
    legal: list[BaseModel],
    rng: Rng,
    level: Level = DEFAULT_LEVEL,
    budget: Budget | None = None,
    thought: Thought | None = None,
) -> BaseModel:
    """The choice of a bot of ``level`` at ``seat`` among ``legal`` (its legal actions);
    ``budget``: a strong bot's (by default :data:`PLAY_BUDGET`)."""
    if level == "strong":
        answers = _ANSWERS.get()
        if answers is None:
            return strong_choice(game, state, seat, legal, rng, budget or PLAY_BUDGET, thought)
        # Elsewhere: the caller runs the search in another process and asks again.
        job = Think(game.name, state, seat, legal, rng.getstate(), budget or PLAY_BUDGET)
        answer = answers.get(job.key)
        if answer is None or answer not in legal:
            raise job
        return answer
    if level == "easy" and len(legal) > 1 and rng.random() < EASY_LAPSE:
        return rng.choice(legal)
    return game.bot_choice(state, seat, legal, rng)


def strong_choice(
    game: GameLike,
    state: GameState,
    seat: Seat,
    legal: list[BaseModel],
    rng: Rng,
    budget: Budget = PLAY_BUDGET,
    thought: Thought | None = None,
) -> BaseModel:
    """A strong bot's choice: determinized rollouts from worlds sampled from ``seat``'s own
    knowledge (:attr:`~core.engine.Game.sample`), within ``budget``."""
    started = time.process_time()
    normal = game.bot_choice(state, seat, legal, rng)
    if len(legal) <= 1:
        return normal
    others = [a for a in legal if a != normal]
    if len(others) > budget.candidates - 1:
        others = rng.sample(others, budget.candidates - 1)
    candidates = [normal, *others]
    values: list[list[float]] = [[] for _ in candidates]
    nodes = worlds = 0
    while worlds < budget.worlds:
        if worlds and nodes + _world_cost(nodes, worlds) > budget.nodes:
            break
        spent = time.process_time() - started
        # A world begun is finished: one more starts only if it fits too (as the last did).
        if worlds and budget.seconds is not None and spent + spent / worlds > budget.seconds:
            break
        world = game.sample(state, seat, random.Random(rng.getrandbits(63)))
        dice = rng.getrandbits(63)
        for index, action in enumerate(candidates):
            value, used = _try(game, world, seat, action, dice, budget.horizon)
            values[index].append(value)
            nodes += used
        worlds += 1
    spent = time.process_time() - started
    for watcher in [thought, *_WATCHERS]:
        if watcher is not None:
            watcher.nodes += nodes
            watcher.worlds += worlds
            watcher.cpu_s.append(spent)
    if thought is not None:
        thought.values = values
    return candidates[_best(values, budget.confidence)]


def _best(values: list[list[float]], confidence: float) -> int:
    """The candidate to play: the one whose values beat the normal bot's choice (the first)
    by the most, world by world, when that gain is ``confidence`` standard errors clear of
    nothing; else the normal bot's choice (a search that sees no sure difference keeps it)."""
    base = values[0]
    best, best_gain = 0, 0.0
    if len(base) < MIN_WORLDS:
        return best
    for index in range(1, len(values)):
        gains = [mine - theirs for mine, theirs in zip(values[index], base, strict=True)]
        mean = sum(gains) / len(gains)
        spread = (sum((g - mean) ** 2 for g in gains) / max(1, len(gains) - 1)) ** 0.5
        error = spread / len(gains) ** 0.5
        if mean > best_gain and mean > confidence * error:
            best, best_gain = index, mean
    return best


def _world_cost(nodes: int, worlds: int) -> int:
    """What one more world is expected to cost, from the worlds searched so far."""
    return nodes // worlds


def _try(
    game: GameLike, world: GameState, seat: Seat, action: BaseModel, dice: int, horizon: int
) -> tuple[float, int]:
    """The value for ``seat`` of ``action`` in ``world`` after a rollout, and the nodes used."""
    rng = random.Random(dice)
    try:
        state = game.apply(world, seat, action, rng).state
    except IllegalAction:
        return -1.0, 1  # (legal in every world the seat can imagine; never seen)
    if state.decision_version == world.decision_version and seat in game.waiting_for(state):
        # Words, not a move (a pitch): the seat still owes its answer. A bot says nothing.
        return -1.0, 1
    used = 1
    for _ in range(horizon):
        if state.finished:
            break
        step = _rollout_step(game, state, rng)
        if step is None:
            break
        state = step
        used += 1
    return _value(game, state, seat), used


def _rollout_step(game: GameLike, state: GameState, rng: Rng) -> GameState | None:
    """The next state of a rollout, every seat played by the normal bot (None: nobody acts)."""
    automatic = game.automatic(state)
    if automatic is not None:
        mover, choice = automatic
    else:
        actors = game.actors(state)
        if not actors:
            return None
        mover = actors[0]
        legal = game.legal_actions(state, mover)
        if not legal:
            return None
        choice = game.bot_choice(state, mover, legal, rng)
    try:
        return game.apply(state, mover, choice, rng).state
    except IllegalAction:
        return None


def _value(game: GameLike, state: GameState, seat: Seat) -> float:
    """How good ``state`` is for ``seat``, from 0 to 1: a win (shared or not) is worth 1 at the
    end; before it, half for leading and a quarter for the size of the lead, by the game's
    :attr:`~core.engine.Game.worth` (else its ranking's scores), public information both."""
    if state.finished:
        standings: Sequence[Standing] = game.standings(state)
        return 1.0 if any(s.seat == seat and s.rank == 1 for s in standings) else 0.0
    if game.worth is not None:
        scores = [float(value) for value in game.worth(state)]
    else:
        ranked = {s.seat: float(s.score) for s in game.standings(state)}
        if not ranked:
            return 0.5
        scores = [ranked.get(index, 0.0) for index in range(len(state.names))]
    if seat >= len(scores):
        return 0.0
    mine = scores[seat]
    rivals = [score for index, score in enumerate(scores) if index != seat]
    if not rivals:
        return 1.0
    best = max(rivals)
    scale = abs(mine) + abs(best) or 1.0
    lead = (mine - best) / scale
    return 0.5 * (1.0 if mine >= best else 0.0) + 0.25 * (1.0 + lead)
