"""The stored record of one channel's game: the lobby, the seats and the engine state."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, Field, JsonValue, model_validator

from core.bots import DEFAULT_LEVEL, Level

__all__ = [
    "STAND_IN_AFTER",
    "Asked",
    "GameRecord",
    "Invite",
    "JoinRequest",
    "Member",
    "OptionValue",
    "Paused",
    "SeatInfo",
    "UndoPoint",
    "UndoRequest",
]


STAND_IN_AFTER = 2
"""Deadlines missed in a row after which a bot stands in for a seat's people."""


class Member(BaseModel):
    """A platform user sitting at (or in the team of) a seat."""

    user: str
    name: str


class SeatInfo(BaseModel):
    """A seat at the table: a player, a team of several players, or a bot when nobody sits.

    In most games a seat has one member and its name is that player's; in a team game
    (:attr:`core.engine.Game.teams`) the name is the team's and any member acts for it.
    """

    name: str
    members: list[Member] = Field(default_factory=list)
    level: Level | None = None
    """A bot seat's level (None: the normal level, as every bot stored before levels)."""
    missed: int = 0
    """Deadlines in a row that passed with this seat of people owing its answer."""
    away: bool = False
    """Its people missed :data:`STAND_IN_AFTER` deadlines in a row: a normal bot stands in for
    them until one of them acts (or asks for their hand) and takes the seat back."""
    played_for: list[str] = Field(default_factory=list)
    """What the stand-in played for them, told to them privately when they are back."""

    @model_validator(mode="before")
    @classmethod
    def _one_user(cls, data: object) -> object:
        # Records saved before teams existed hold one ``user`` (None for a bot) per seat.
        if isinstance(data, dict) and "user" in data and "members" not in data:
            data = dict(data)
            user = data.pop("user")
            data["members"] = [] if user is None else [{"user": user, "name": data["name"]}]
        return data

    @classmethod
    def player(cls, user: str, name: str) -> SeatInfo:
        """A seat of one person, named after them."""
        return cls(name=name, members=[Member(user=user, name=name)])

    @property
    def is_bot(self) -> bool:
        return not self.members

    @property
    def bot(self) -> Level | None:
        """The level of the bot that plays this seat now: a bot seat's, a normal one standing
        in for people who are away, None when its people play it."""
        if self.is_bot:
            return self.level or DEFAULT_LEVEL
        return DEFAULT_LEVEL if self.away else None

    @property
    def bot_note(self) -> str:
        """What the lobby, the summary and the final card write after a bot seat's name:
        `` (bot)``, `` (strong bot)``; for people a bot stands in for, that they are away;
        nothing for people who play."""
        if self.away:
            return " (away: a bot plays for them)"
        if not self.is_bot:
            return ""
        level = self.level or DEFAULT_LEVEL
        return " (bot)" if level == DEFAULT_LEVEL else f" ({level} bot)"

    @property
    def users(self) -> list[str]:
        return [member.user for member in self.members]


class JoinRequest(BaseModel):
    """Someone who asked to join a team of a game being played, waiting for a yes from one of
    its members (or the host): see :mod:`bot.commands.seats.seating`."""

    number: int
    """Unique within the game: the Accept and Decline buttons name the request by it."""
    user: str
    name: str
    seat: int
    asked_at: float


class Asked(BaseModel):
    """A request to join a team made during play, remembered for a while after it was made (or
    declined) whatever became of it, so that nobody can have the bot message a team over and
    over: see :func:`bot.commands.seats.seating.join_running`."""

    number: int
    user: str
    seat: int
    asked_at: float
    declined_at: float | None = None
    """When the team (or the host) declined it; None: it was not declined."""


class Invite(BaseModel):
    """A player of the finished game whose rematch this lobby is, asked to join it: they are
    not seated until they press Join themselves (:func:`bot.commands.seats.lobby.rematch`)."""

    user: str
    name: str
    team: str | None = None
    """Their team in that game (a team game): the lobby offers to join it by name."""


class UndoPoint(BaseModel):
    """A move that may still be taken back (:mod:`bot.commands.game.undo`): its seat, who made it,
    and the state versions before and after it (with the bot and automatic moves it set off)."""

    seat: int
    user: str
    before: int
    after: int
    told: list[str] = Field(default_factory=list)
    """The public lines it made (shown to the channel already)."""


class UndoRequest(BaseModel):
    """An open request to take a move back, waiting for everyone else's yes."""

    seat: int
    user: str
    name: str
    to: int
    """The state version the game goes back to."""
    at: int
    """The state version it was asked at: any move since ends it."""
    asked: list[str]
    """Everyone asked (every other person in the game)."""
    approved: list[str] = Field(default_factory=list)
    moves: int = 1
    """How many moves it takes back (the seat's and every one after it)."""
    told: list[str] = Field(default_factory=list)

    @property
    def people(self) -> list[str]:
        """Who asked, and everyone asked."""
        return [self.user, *self.asked]


class Paused(BaseModel):
    """Who paused a game and when, and what each of its clocks had left then
    (:mod:`bot.commands.game.pause`)."""

    user: str
    name: str
    at: float
    deadline_left: float | None = None
    clock_left: float | None = None
    nudge_left: float | None = None
    warn_left: float | None = None
    until: float = 0.0
    """When the paused game is deleted (``BOARDROOM_PAUSED_TTL_DAYS`` after the pause)."""


OptionValue = str | int | float | bool | None
"""A table option as the game's options model dumps it (every option is one value)."""


class GameRecord(BaseModel):
    """One blob per channel game, saved with compare-and-set on the store's version."""

    game: str
    status: Literal["lobby", "playing", "finished"] = "lobby"
    host: str
    host_name: str
    seats: list[SeatInfo] = Field(default_factory=list)
    options: dict[str, OptionValue] = Field(default_factory=dict)
    """The game's options model, dumped (validated back into it when the game begins)."""
    community: str = ""
    """The channel's community (Discord server, Slack workspace), from the request that opened
    the game: its result is recorded there (``bot.commands.community.results``)."""
    seed: int
    """The game's secret seed; with the action log it replays the game exactly."""
    state_json: str | None = None
    """The engine state as the game's own model dumped it. Kept as text so that a command
    parses it once, straight into the game's model, instead of into dicts and then again."""
    created_at: float
    updated_at: float
    began_at: float | None = None
    """When the host began the game (None in a lobby, and in games stored before)."""
    acted_at: float | None = None
    """When a person last changed the game (a move, a join...): deadlines that pass do not
    count, so a game nobody plays is idle however its timeouts go on."""
    deadline_due: float | None = None
    """Absolute time (seconds since the epoch) at which the state's pending deadline fires."""
    clock_due: float | None = None
    """Absolute time at which the game's clock (a time limit in minutes) runs out."""
    bot_due: float | None = None
    """When the deadline loop is to have a strong bot make the move the game waits for (set
    by a person's step, whose answer does not wait for the bot's search)."""
    nudge_due: float | None = None
    """Absolute time at which the users of ``nudge`` are pinged that the game waits for them,
    unless the decision is over or one of them acted first."""
    warn_due: float | None = None
    """Absolute time at which the people a long deadline (a day or more) waits for are told
    privately that an hour is left (:func:`bot.commands.game.moves.long_deadline`)."""
    nudge: list[str] = Field(default_factory=list)
    nudge_version: int = 0
    """The decision (its ``decision_version``) the nudge is for."""
    bot_level: Level = DEFAULT_LEVEL
    """The level ``addbot`` gives a bot when it names none (``bots=strong`` at ``start``)."""
    thread: bool = True
    """Whether the game plays in a thread of its own (``thread=off`` at ``start``: the channel)."""
    pictures: bool = True
    """Whether the board is drawn as a picture too (``pictures=off`` at ``start``: text only)."""
    first_version: int = 0
    """The state version this game starts at: one past the channel's previous game, so a button
    left over from an earlier game in the channel can never look current."""
    requests: list[JoinRequest] = Field(default_factory=list)
    """Open requests to join a team during play, oldest first (one per person at most)."""
    next_request: int = 1
    asked: list[Asked] = Field(default_factory=list)
    """The requests of the last few minutes, open or not, oldest first: what limits how often
    one person may ask (and the ones older than that are dropped at the next request)."""
    departed: dict[str, int] = Field(default_factory=dict)
    """Players who left their team during play (or were removed from it), with that seat: they
    may join no other team in this game."""
    invited: list[Invite] = Field(default_factory=list)
    """A rematch's lobby: the other players of the game before, until they join."""
    forgotten: list[str] = Field(default_factory=list)
    """People who asked ``/boardroom forget-me`` while this game held them: the game forgets
    them when it ends (:mod:`bot.commands.community.forget`), and until its table is erased too."""
    undo_points: list[UndoPoint] = Field(default_factory=list)
    """The moves since the last one that cannot be taken back, oldest first."""
    undo_request: UndoRequest | None = None
    """An open request to take back a move (``undo``), waiting for the others' answers."""
    paused: Paused | None = None
    """The game is paused (``pause``): its deadlines stand still and no move is taken."""
    pause_votes: list[str] = Field(default_factory=list)
    """People seated who asked to pause (the game pauses once everyone seated has)."""

    @property
    def next_due(self) -> float | None:
        """When the deadline loop must next look at this game: the earliest of a strong bot's
        move, its decision deadline, its clock, its nudge and its last hour's warning."""
        times = (self.bot_due, self.deadline_due, self.clock_due, self.nudge_due, self.warn_due)
        due = [d for d in times if d is not None]
        return min(due) if due else None

    @property
    def state(self) -> dict[str, JsonValue] | None:
        """The engine state as plain data (for tools and tests; the authority uses state_json)."""
        return json.loads(self.state_json) if self.state_json is not None else None

    def seat_of(self, user: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if user in seat.users:
                return index
        return None

    def request_of(self, user: str) -> JoinRequest | None:
        """``user``'s open request to join a team, if any."""
        return next((r for r in self.requests if r.user == user), None)

    def holds(self, user: str) -> bool:
        """Whether anything of this record names ``user`` (by id): a seat, the host, a request
        to join, a rematch's invitation, a departure, a nudge, a pending erasure, a move that may
        be taken back, a request to take one back or a pause."""
        return (
            self.seat_of(user) is not None
            or self.host == user
            or user in self.departed
            or user in self.nudge
            or user in self.forgotten
            or any(r.user == user for r in self.requests)
            or any(a.user == user for a in self.asked)
            or any(i.user == user for i in self.invited)
            or any(p.user == user for p in self.undo_points)
            or (self.undo_request is not None and user in self.undo_request.people)
            or (self.paused is not None and self.paused.user == user)
        )

    def names_of(self, user: str) -> set[str]:
        """Every name this record gives ``user`` (as a member, requester, guest or host)."""
        names = {m.name for seat in self.seats for m in seat.members if m.user == user}
        names |= {r.name for r in self.requests if r.user == user}
        names |= {i.name for i in self.invited if i.user == user}
        if self.host == user:
            names.add(self.host_name)
        return names

    @property
    def bots(self) -> list[Level | None]:
        """The bot that plays each seat now, in seat order (:attr:`SeatInfo.bot`)."""
        return [seat.bot for seat in self.seats]

    @property
    def humans(self) -> list[str]:
        """Every user seated at the table."""
        return [user for seat in self.seats for user in seat.users]
