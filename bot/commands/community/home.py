"""A person's home page: the games they sit in (where, which, whose turn) and their stats.

Slack's App Home tab shows it (:mod:`bot.adapters.slack.home`); it is built here, from the store,
the same for any platform that keeps a page per person. Everything on it is public (the seats and
whose turn it is are on each game's board), or the person's own stats.
"""

from __future__ import annotations

import contextlib
from typing import Literal

from pydantic import BaseModel, Field

from bot.commands.community.boardroom import Community
from bot.commands.damaged import DamagedRecord, read_record
from bot.commands.game.play import load_state
from bot.commands.record import GameRecord
from core import text as markup
from core.engine import GameLike, GameState
from core.registry import get_game
from storage import GameKey, GameStore, StorageUnavailable
from storage import history as kept

__all__ = ["MAX_GAMES", "RECENT", "Home", "HomeGame", "home_of", "seated"]

MAX_GAMES = 20
"""Games listed on a home page (a person seated in more sees the first ones and a count)."""
RECENT = 5
"""Recent results on a home page (``/boardroom stats`` lists more)."""


class HomeGame(BaseModel):
    """One game the person sits in."""

    channel: str
    game: str
    title: str
    status: Literal["lobby", "playing"]
    seat: str
    """Their seat's (team's) name, as markup."""
    turn: bool = False
    """The game waits for their seat (their turn, or a decision they still have to make)."""
    waiting: list[str] = Field(default_factory=list)
    """The names of the seats the game waits for (a lobby: none; it waits for its host)."""
    host: str = ""
    """A lobby's host's name."""
    seated: int = 0


class Home(BaseModel):
    """What a person's home page shows (names and lines are Boardroom markup)."""

    user: str
    games: list[HomeGame] = Field(default_factory=list)
    more: int = 0
    """Games beyond :data:`MAX_GAMES`."""
    name: str | None = None
    """Their name in the community's history (None: no finished game there yet)."""
    stats: list[str] = Field(default_factory=list)

    def line(self, game: HomeGame) -> str:
        """What the page says of ``game`` after its title and place."""
        if game.status == "lobby":
            people = markup.plural(game.seated, "seat")
            return f"lobby, {people} taken: waiting for {game.host} to begin"
        if game.turn:
            others = [name for name in game.waiting if name != game.seat]
            also = f" (also waiting for {markup.join(others)})" if others else ""
            return f"**your turn**{also}"
        if game.waiting:
            return f"waiting for {markup.join(game.waiting)}"
        return "playing"


async def seated(
    store: GameStore, platform: str, user: str, ttl_s: int
) -> list[tuple[GameKey, GameRecord, GameLike, GameState | None]]:
    """The games ``user`` sits in on ``platform`` that are not over, each with its record, its
    game and its state (None in a lobby). A stale entry of their list (the game over, expired
    or left: an index update lost in an outage) is taken off it (the list then expires
    ``ttl_s`` later); a game whose record cannot be reached, or read, is left out and kept
    (the next command in its channel sets a damaged record aside and says so)."""
    found = []
    for key in await store.games_of(platform, user):
        try:
            _, loaded = await store.load(key)
            record = read_record(loaded.data) if loaded else None
            game = get_game(record.game) if record is not None else None
            state = None
            if record is not None and game is not None and record.state_json is not None:
                state = load_state(game, record.state_json)
        except (StorageUnavailable, DamagedRecord):
            continue
        if record is None or game is None or record.status == "finished":
            game = None
        if game is None or record is None or record.seat_of(user) is None:
            with contextlib.suppress(StorageUnavailable):
                await store.index_user(platform, user, key, False, ttl_s)
            continue
        found.append((key, record, game, state))
    return found


async def home_of(community: Community, platform: str, where: str, user: str) -> Home:
    """``user``'s home page in community ``where`` (a Slack workspace)."""
    home = Home(user=user)
    ttl = int(community.settings.game_ttl_hours * 3600)
    games = await seated(community.store, platform, user, ttl)
    for key, record, game, state in games[:MAX_GAMES]:
        seat = record.seat_of(user)
        assert seat is not None  # (seated() keeps only their games)
        entry = HomeGame(
            channel=key.channel,
            game=game.name,
            title=game.title,
            status="playing" if record.status == "playing" else "lobby",
            seat=record.seats[seat].name,
            host=record.host_name,
            seated=len(record.seats),
        )
        if record.status == "playing" and state is not None:
            waiting = game.waiting_for(state)
            entry.turn = seat in waiting
            entry.waiting = [record.seats[s].name for s in waiting if s < len(record.seats)]
        home.games.append(entry)
    home.more = max(0, len(games) - MAX_GAMES)
    home.name, home.stats = await community.stats(kept.Community(platform, where), user, RECENT)
    return home
