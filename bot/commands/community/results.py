"""The result of a finished game, written once, and the ratings it moves.

A game that ends by play (not ended early by the host) is recorded for its community (the
Discord server, the Slack workspace, the console's one community):

1. the save that ends the game carries its :class:`GameResult` (:func:`final_result`), which the
   store keeps in the game's own hash in the same script (``storage.store``), and arms the
   game's deadline a little later, as a reminder;
2. right after the save, :meth:`Recorder.publish` writes it into the community's history
   (:mod:`storage.history`), only if its game id is not recorded yet, with the new ratings
   computed from the ratings it read (a compare-and-set on the community's revision), and then
   removes it from the game;
3. a worker killed between the two leaves the result in the game, where the reminder deadline
   finds it (:meth:`Recorder.publish_pending`): however often the final save is retried or a
   worker dies around it, the result is recorded once.

Ratings are openskill's Plackett-Luce model (free-for-all, ties and teams: a BiggieBills$$$
team is a team of its people). Bots are not rated; a game is rated when at least two people
finished it, in at least two seats. The number shown is the conservative ordinal
(``mu - 3 sigma``), scaled: ``1000 + 40 * ordinal``, so a newcomer shows 1000.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import time
from collections.abc import Callable

from openskill.models import PlackettLuce
from pydantic import BaseModel, Field

from bot.commands.record import GameRecord, OptionValue
from bot.settings import Settings
from core.registry import all_games, get_game
from storage import GameKey, GameStore, History, StorageUnavailable
from storage import history as kept

__all__ = [
    "FORMER",
    "GameResult",
    "Rating",
    "Recorder",
    "SeatResult",
    "community_of",
    "final_result",
    "game_id",
    "shown",
]

log = logging.getLogger(__name__)

FORMER = "a former player"
"""How a seat reads once its person asked to be forgotten."""
MODEL = PlackettLuce()
BASE, SCALE = 1000.0, 40.0
MAX_ATTEMPTS = 8
REMINDER_S = 10.0
"""The final save arms the game's deadline this long after the end: if the result is not
recorded by then (its worker died), the deadline records it."""
DEFAULT_COMMUNITY = "default"
"""The community of a game whose platform named none (games stored before communities)."""


class Person(BaseModel):
    user: str
    name: str


class SeatResult(BaseModel):
    name: str
    people: list[Person] = Field(default_factory=list)
    """Nobody: a bot."""
    rank: int
    score: str
    """The score as the game writes it ("$41M")."""
    seat: int | None = None
    """Its place at the table (the names of the log's ``begin``); None in results recorded
    before it was kept."""


class GameResult(BaseModel):
    id: str
    game: str
    platform: str
    channel: str
    community: str
    options: dict[str, OptionValue] = Field(default_factory=dict)
    began_at: float | None = None
    ended_at: float
    seats: list[SeatResult]
    """Best first."""
    left: list[Person] = Field(default_factory=list)
    """People who left their seat during play (a bot finished it, or their team): the game is
    on their list, unrated."""
    summary: str = ""
    seed: int
    first_version: int
    final_version: int
    rated: bool = False

    @property
    def minutes(self) -> int | None:
        if self.began_at is None:
            return None
        return max(0, round((self.ended_at - self.began_at) / 60))

    @property
    def people(self) -> list[Person]:
        return [p for seat in self.seats for p in seat.people]


class Rating(BaseModel):
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0
    wins: int = 0
    name: str = ""


def shown(rating: Rating) -> int:
    """The rating people read: the conservative ordinal, scaled (a newcomer shows 1000)."""
    return max(0, round(BASE + SCALE * (rating.mu - 3 * rating.sigma)))


def community_of(record: GameRecord) -> str:
    return record.community or DEFAULT_COMMUNITY


def game_id(key: GameKey, first_version: int) -> str:
    """A short id, the same however often it is computed: the channel and the game's first
    version name one game."""
    digest = hashlib.sha1(f"{key}:{first_version}".encode()).digest()
    return base64.b32encode(digest).decode("ascii")[:8].lower()


def final_result(key: GameKey, record: GameRecord, now: float) -> str | None:
    """The result to record of a game that has just ended by play, as JSON; None for a game
    ended early (the host's ``end``), or of no game we know."""
    game = get_game(record.game)
    if game is None or record.state_json is None:
        return None
    state = game.state_model.model_validate_json(record.state_json)
    if state.outcome is None:
        return None
    seats = []
    for standing in game.standings(state):
        seat = record.seats[standing.seat] if standing.seat < len(record.seats) else None
        people = [Person(user=m.user, name=m.name) for m in seat.members] if seat else []
        seats.append(
            SeatResult(
                name=seat.name if seat else standing.name,
                people=people,
                seat=standing.seat,
                rank=standing.rank,
                score=game.score_text(standing.score),
            )
        )
    left = [
        Person(user=user, name="" if game.teams else record.seats[seat].name)
        for user, seat in record.departed.items()
        if record.seat_of(user) is None and seat < len(record.seats)
    ]
    result = GameResult(
        id=game_id(key, record.first_version),
        game=record.game,
        platform=key.platform,
        channel=key.channel,
        community=community_of(record),
        options=dict(record.options),
        began_at=record.began_at,
        ended_at=now,
        seats=seats,
        left=left,
        summary=state.outcome.summary,
        seed=record.seed,
        first_version=record.first_version,
        final_version=state.version,
    )
    return result.model_dump_json()


def rate(result: GameResult, before: dict[str, Rating]) -> dict[str, Rating] | None:
    """Everyone's new rating after ``result`` (from ``before``, by user); None when the game
    is not rated (fewer than two people, or fewer than two seats with people)."""
    seats = [seat for seat in result.seats if seat.people]
    if len(seats) < 2 or len(result.people) < 2:
        return None
    teams = [
        [
            MODEL.rating(
                mu=before.get(p.user, Rating()).mu, sigma=before.get(p.user, Rating()).sigma
            )
            for p in seat.people
        ]
        for seat in seats
    ]
    rated = MODEL.rate(teams, ranks=[float(seat.rank) for seat in seats])
    after: dict[str, Rating] = {}
    for seat, team in zip(seats, rated, strict=True):
        for person, new in zip(seat.people, team, strict=True):
            old = before.get(person.user, Rating())
            after[person.user] = Rating(
                mu=new.mu,
                sigma=new.sigma,
                games=old.games + 1,
                wins=old.wins + (1 if seat.rank == 1 else 0),
                name=person.name,
            )
    return after


class Recorder:
    """Writes finished games into their community's history, once each, and sweeps out what
    is older than the history keeps."""

    def __init__(
        self, store: GameStore, settings: Settings, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock

    @property
    def keep_s(self) -> float:
        return self.settings.history_days * 86400

    async def publish(
        self, key: GameKey, result_json: str, history: History | None = None
    ) -> kept.Recorded:
        """Record ``result_json`` (left in the game by its final save) in its community, then
        remove it from the game. ``history``: the game's log, when the caller has read it since
        that save (else it is read here). Raises StorageUnavailable (the reminder deadline
        retries)."""
        result = GameResult.model_validate_json(result_json)
        where = kept.Community(result.platform, result.community)
        replay = await self._replay(key, result, history)
        users = [p.user for p in result.people]
        outcome = kept.Recorded.CONFLICT
        for attempt in range(MAX_ATTEMPTS):
            rev, seen, stored = await kept.rating_inputs(
                self.store, where, result.game, result.id, users
            )
            if seen:
                outcome = kept.Recorded.DUPLICATE
                break
            if attempt == 0:
                await self._noted(result, where)
            before = {user: Rating.model_validate_json(data) for user, data in stored.items()}
            after = rate(result, before)
            result.rated = after is not None
            people = [
                kept.Seated(
                    user=p.user,
                    name=p.name,
                    rating=after[p.user].model_dump_json() if after else None,
                    shown=shown(after[p.user]) if after else 0.0,
                )
                for p in result.people
            ] + [kept.Seated(user=p.user, name=p.name) for p in result.left]
            outcome = await kept.record(
                self.store,
                where,
                game=result.game,
                game_id=result.id,
                ended_at=result.ended_at,
                result=result.model_dump_json(),
                replay=replay,
                people=people,
                expected_rev=rev,
                keep_s=self.keep_s,
            )
            if outcome is not kept.Recorded.CONFLICT:
                break
        if outcome is kept.Recorded.CONFLICT:
            raise StorageUnavailable()  # the community kept changing: the reminder retries
        await kept.clear_pending(self.store, key, result_json)
        return outcome

    async def _noted(self, result: GameResult, where: kept.Community) -> None:
        """Before the result is written: its people's lists of communities (what forget-me
        reads wherever it is asked), and the sweep that removes it once it is too old."""
        users = [p.user for p in [*result.people, *result.left] if p.user]
        await kept.noted(self.store, where, users, self.keep_s, result.ended_at + self.keep_s)

    async def sweep(self, where: kept.Community) -> float | None:
        """Remove from ``where`` what is older than the history keeps (:func:`kept.sweep`):
        when the next sweep is due (None: nothing is left)."""
        now = self.clock()
        cutoff = now - self.keep_s
        ids, stale, found = await kept.sweep_due(self.store, where, cutoff)
        users = dict.fromkeys(stale)
        for data in found.values():
            try:
                old = GameResult.model_validate_json(data)
            except ValueError:
                continue
            users.update(dict.fromkeys(p.user for p in [*old.people, *old.left] if p.user))
        games = [g.name for g in all_games()]
        oldest = await kept.sweep(self.store, where, games, cutoff, ids, list(users))
        if oldest is None:
            return None
        if len(ids) >= kept.SWEEP_BATCH or len(stale) >= kept.SWEEP_BATCH:
            return now
        return max(now, oldest + self.keep_s)

    async def publish_pending(self, key: GameKey) -> bool:
        """Record the result a finished game still holds (its worker died before recording
        it); False when there was none."""
        pending = await kept.pending_result(self.store, key)
        if pending is None:
            return False
        await self.publish(key, pending)
        return True

    async def _replay(self, key: GameKey, result: GameResult, history: History | None) -> str:
        """What rebuilds the game: its seed, options and log (empty when the channel's log is
        another game's by now: a new game began before a late recording)."""
        if history is None:
            history = await self.store.read_history(key)
        snapshot = None
        if history.snapshot is not None:
            saved = json.loads(history.snapshot)
            if saved.get("first_version") != result.first_version:
                return ""
            snapshot = saved.get("state_json")
        elif not any('"begin"' in line for line in history.lines):
            return ""
        return json.dumps({"snapshot": snapshot, "lines": history.lines}, separators=(",", ":"))


def publish_failed(key: GameKey, error: Exception) -> None:
    log.warning("could not record the result of %s yet (%s); its reminder retries", key, error)
