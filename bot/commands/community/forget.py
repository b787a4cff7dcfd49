"""``/boardroom forget-me``: a person erased by identity, never by matching text.

A person is found by their platform id, and in each record only their own entries change:

- a seat is theirs when they sit (or sat) in it: its member with their id, a ``leave`` or
  ``join`` entry of the log with their id, their departure in the record; its *name* is theirs
  when it was made from their name (every seat of a game without teams; in a team game a team
  of their own, named after one of their names);
- a seat that is theirs keeps its place, rank and score: its member reads
  :data:`~bot.commands.community.results.FORMER` with no id, and a name that is theirs reads
  the same in the record, in the log's ``begin`` (the names the game was dealt with) and so in
  everything the game wrote from it (the state is replayed from the rewritten log: its summary, its
  standings, Busine$$ GO's opening roll, The Big Idea's best launch);
- every other entry with their id (who began or ended the game, a request to join, an
  invitation, a nudge) loses it.

Everything else is left byte for byte as it was: another person who has the same name, or a
name equal to someone's id or to a word the records use, changes nothing of anyone else. A
record that could not be rebuilt without them (a log too long to replay from its ``begin``, whose
snapshot still holds their name) loses its replay (the community's) or its state (the channel's
finished game) rather than keep them.

:class:`Forgetter` runs the erasure as a job that any worker can finish: armed first as a chore
(``storage.history``), each step idempotent, done again until a pass finds nothing left. Games
being played keep the person until they end (:attr:`GameRecord.forgotten` marks them); the end
then runs it again, and a minute later, when the table has shown the end, erases its refs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from pydantic import JsonValue

from bot.commands.community.results import FORMER, GameResult, Person, Recorder, community_of
from bot.commands.damaged import DamagedRecord, read_record
from bot.commands.game.actionlog import line, replay_history
from bot.commands.game.play import load_state
from bot.commands.record import GameRecord, Member
from bot.commands.seats import teams
from bot.settings import Settings
from core.engine import GameLike, GameState
from core.registry import all_games, get_game
from storage import GameKey, GameStore, History, SaveResult, StorageUnavailable
from storage import history as kept

__all__ = ["AFTER_END_S", "Forgetter", "Forgot", "Forgotten", "erase_record", "erase_result"]

log = logging.getLogger(__name__)

AFTER_END_S = 60.0
"""An ended game's table (its refs) is erased this long after the end: by then the table has
shown the end, and a delivery still running would write back what it showed."""
RETRY_S = 30.0
"""A job that failed part-way is tried again this long after (by any worker's chores)."""
MAX_ATTEMPTS = 8

_REFS_KEPT = (
    "table",
    "version",
    "card",
    "thread",
    "threads_off",
    "board",
    "prompt",
    "prompt_id",
    "below",
    "picture_at",
    "panels",
    "closed",
    "hinted",
    "notes",
    "ended",
)
"""What an ended game's refs keep once a person is erased from them: where its messages are
(ids and digests) and the other players' panels; what it showed (the board's text, log lines
waiting to be posted) goes, as it names everyone."""


@dataclass(frozen=True)
class Forgotten:
    """Who is erased: their id, and every name any record gave it."""

    user: str
    names: frozenset[str] = frozenset()


@dataclass
class Forgot:
    """What a forget job found and did."""

    communities: list[str] = field(default_factory=list)
    """The communities whose history held the person (erased now)."""
    playing: int = 0
    """Games being played that hold them: each forgets them when it ends."""
    pending_until: float | None = None
    """An ended game's table is erased then (the job is due again)."""


# --- the log: whose seats, and the log without them ---------------------------------------------


def _entries(lines: Iterable[str]) -> list[list[JsonValue]]:
    found = []
    for text in lines:
        entries = json.loads(text)
        if isinstance(entries, list):
            found += [entry for entry in entries if isinstance(entry, list) and entry]
    return found


def _log_seats(lines: Iterable[str], user: str) -> set[int]:
    """The seats ``user`` joined or left during play, by the log."""
    return {
        entry[2]
        for entry in _entries(lines)
        if entry[0] == user
        and len(entry) >= 3
        and entry[1] in ("leave", "join")
        and isinstance(entry[2], int)
    }


def _log_without(lines: list[str], user: str, named: set[int]) -> list[str]:
    """The log with ``user``'s id gone from every entry it begins, and the seats ``named``
    dealt as :data:`FORMER`; a line nothing changed in stays as it was."""
    out = []
    for text in lines:
        entries = json.loads(text)
        changed = False
        for index, entry in enumerate(entries):
            if not isinstance(entry, list) or not entry:
                continue
            if entry[0] == user:
                entry = ["", *entry[1:]]
                changed = True
            if len(entry) >= 3 and entry[1] == "begin" and isinstance(entry[2], list):
                names = list(entry[2])
                for seat in named:
                    if seat < len(names) and names[seat] != FORMER:
                        names[seat] = FORMER
                        changed = True
                entry = [entry[0], entry[1], names, *entry[3:]]
            entries[index] = entry
        out.append(line(entries) if changed else text)
    return out


def _named_theirs(game: GameLike | None, seat_name: str, names: Iterable[str]) -> bool:
    """Whether a seat of theirs is named after them: every seat of a game without teams; in a
    team game, a team of their own (named from one of their names, a number added)."""
    if seat_name == FORMER:
        return False
    if game is None or not game.teams:
        return True
    for name in names:
        base = teams.own_team(name)
        if seat_name == base or re.fullmatch(rf"{re.escape(base)} \d+", seat_name):
            return True
    return False


def _renamed(state: GameState, named: set[int]) -> GameState:
    copy = state.model_copy(deep=True)
    for seat in named:
        if seat < len(copy.names):
            copy.names[seat] = FORMER
    return copy


def _still_named(texts: Iterable[str | None], names: Iterable[str]) -> bool:
    """Whether any of ``names`` is still a word of ``texts`` (a check before keeping what a
    snapshot carried over, never a rewrite)."""
    joined = "\n".join(t for t in texts if t)
    return any(
        re.search(rf"(?<!\w){re.escape(name)}(?!\w)", joined) for name in names if name.strip()
    )


# --- the channel's game -------------------------------------------------------------------------


def _record_without(record: GameRecord, user: str, named: set[int]) -> GameRecord:
    """``record`` with ``user``'s entries gone (their seats' names ``named`` too); its state
    untouched."""
    new = record.model_copy(deep=True)
    for index, seat in enumerate(new.seats):
        if index in named:
            seat.name = FORMER
        seat.members = [Member(user="", name=FORMER) if m.user == user else m for m in seat.members]
    if new.host == user:
        new.host, new.host_name = "", FORMER
    new.requests = [r for r in new.requests if r.user != user]
    new.asked = [a for a in new.asked if a.user != user]
    new.invited = [i for i in new.invited if i.user != user]
    new.nudge = [u for u in new.nudge if u != user]
    new.departed.pop(user, None)
    new.forgotten = [u for u in new.forgotten if u != user]
    _without_in_play(new, user)
    return new


def _without_in_play(new: GameRecord, user: str) -> None:
    """The person's moves that may be taken back, a request that names them, and their name
    on a pause, gone from ``new``."""
    new.undo_points = [p for p in new.undo_points if p.user != user]
    request = new.undo_request
    if request is not None and user in request.people:
        new.undo_request = None
    if new.paused is not None and new.paused.user == user:
        new.paused = new.paused.model_copy(update={"user": "", "name": FORMER})


def erase_record(
    record: GameRecord, history: History, person: Forgotten
) -> tuple[GameRecord, History | None]:
    """A finished game of the channel without ``person``, and its log (None: the log goes,
    as the state could not be rebuilt without them and goes too)."""
    user = person.user
    game = get_game(record.game)
    names = person.names | record.names_of(user)
    seats = {i for i, seat in enumerate(record.seats) if user in seat.users}
    if user in record.departed:
        seats.add(record.departed[user])
    seats |= _log_seats(history.lines, user)
    named = {
        s
        for s in seats
        if s < len(record.seats) and _named_theirs(game, record.seats[s].name, names)
    }
    new = _record_without(record, user, named)
    if game is None or record.state_json is None:
        return new, History() if history.lines or history.snapshot else None
    lines = _log_without(history.lines, user, named)
    snapshot = history.snapshot
    if snapshot is not None:
        saved = read_record(snapshot)
        inner = _record_without(saved, user, named)
        if saved.state_json is not None:
            inner.state_json = _renamed(load_state(game, saved.state_json), named).model_dump_json()
        snapshot = inner.model_dump_json()
    rewritten = History(snapshot=snapshot, lines=lines)
    before = load_state(game, record.state_json)
    state = _replayed(game, record.seed, record.options, record.first_version, rewritten)
    kept_state = state is not None and state.version == before.version
    if kept_state and snapshot is not None and state is not None:
        kept_state = not _still_named([state.model_dump_json(), snapshot], names)
    if not kept_state or state is None:
        # Not rebuilt without them: the game is closed with no state (its next game still
        # starts past its last version), and its log goes.
        new.state_json = None
        new.first_version = max(record.first_version, before.version + 1)
        return new, None
    new.state_json = state.model_dump_json()
    return new, rewritten


def _replayed(
    game: GameLike, seed: int, options: Mapping[str, object], first: int, history: History
) -> GameState | None:
    try:
        return replay_history(game, seed, options, first, history)
    except (ValueError, KeyError, TypeError, IndexError, DamagedRecord):
        return None


# --- the community's result and replay ----------------------------------------------------------


def erase_result(
    result_json: str, replay_json: str | None, person: Forgotten
) -> tuple[str, str | None, bool]:
    """A kept result and its replay without ``person``: the result, the replay (None: kept as
    it is), and whether the replay goes (it could not be rebuilt without them)."""
    user = person.user
    result = GameResult.model_validate_json(result_json)
    game = get_game(result.game)
    names = set(person.names)
    names |= {p.name for p in [*result.people, *result.left] if p.user == user}
    places = [i for i, seat in enumerate(result.seats) if user in [p.user for p in seat.people]]
    kept_log = json.loads(replay_json) if replay_json else None
    lines: list[str] = list(kept_log.get("lines", [])) if kept_log else []
    snapshot: str | None = kept_log.get("snapshot") if kept_log else None
    order = _order(game, result, History(snapshot=_as_record(snapshot), lines=lines))
    new = _unseated(result, user)
    if order is None or game is None or kept_log is None:
        _renamed_places(game, result, new, places, names)
        return new.model_dump_json(), None, kept_log is not None
    seats = {order[i] for i in places} | _log_seats(lines, user)
    named = {s for s in seats if _named_theirs(game, _dealt(lines, snapshot, game, s), names)}
    new.seats = [
        seat.model_copy(update={"name": FORMER}) if order[i] in named else seat
        for i, seat in enumerate(new.seats)
    ]
    replay = _replay_without(game, result, new, (lines, snapshot), (user, named, names))
    return new.model_dump_json(), replay, replay is None


def _unseated(result: GameResult, user: str) -> GameResult:
    """A copy of ``result`` with ``user`` a former player wherever they sat, and not among
    those who left."""
    new = result.model_copy(deep=True)
    new.left = [p for p in new.left if p.user != user]
    for seat in new.seats:
        seat.people = [Person(user="", name=FORMER) if p.user == user else p for p in seat.people]
    return new


def _renamed_places(
    game: GameLike | None,
    result: GameResult,
    new: GameResult,
    places: list[int],
    names: set[str],
) -> None:
    """No replay to rebuild the result from: its seats named after the person are renamed,
    and a summary that may name them goes."""
    renamed = {i for i in places if _named_theirs(game, result.seats[i].name, names)}
    for i in renamed:
        new.seats[i].name = FORMER
    gone = {result.seats[i].name for i in renamed} | names
    if _still_named([new.summary], gone):
        new.summary = ""


def _replay_without(
    game: GameLike,
    result: GameResult,
    new: GameResult,
    kept_log: tuple[list[str], str | None],
    whom: tuple[str, set[int], set[str]],
) -> str | None:
    """The replay rebuilt without the person (``whom``: their id, the seats named after them,
    their names), and the result's summary from its end; None when it cannot be rebuilt to the
    same end, or would still name them."""
    lines, snapshot = kept_log
    user, named, names = whom
    new_lines = _log_without(lines, user, named)
    new_snapshot = None
    if snapshot is not None:
        new_snapshot = _renamed(game.state_model.model_validate_json(snapshot), named)
    rewritten = History(
        snapshot=_as_record(new_snapshot.model_dump_json()) if new_snapshot else None,
        lines=new_lines,
    )
    after = _replayed(game, result.seed, result.options, result.first_version, rewritten)
    if after is None or after.version != result.final_version:
        return None
    if after.outcome is not None:
        new.summary = after.outcome.summary
    if new_snapshot is not None and _still_named(
        [after.model_dump_json(), new_snapshot.model_dump_json()], names
    ):
        return None
    return json.dumps(
        {
            "snapshot": new_snapshot.model_dump_json() if new_snapshot else None,
            "lines": new_lines,
        },
        separators=(",", ":"),
    )


def _order(game: GameLike | None, result: GameResult, history: History) -> list[int] | None:
    """The seat at the table of each of the result's places (best first): kept in the result,
    or (a result recorded before) the standings of its replay's end. None: unknown."""
    if all(seat.seat is not None for seat in result.seats):
        return [seat.seat for seat in result.seats if seat.seat is not None]
    if game is None or (history.snapshot is None and not history.lines):
        return None
    end = _replayed(game, result.seed, result.options, result.first_version, history)
    if end is None or end.version != result.final_version:
        return None
    order = [standing.seat for standing in game.standings(end)]
    return order if len(order) == len(result.seats) else None


def _dealt(lines: list[str], snapshot: str | None, game: GameLike, seat: int) -> str:
    """The name seat ``seat`` was dealt with: the log's ``begin`` (or its snapshot's state)."""
    for entry in _entries(lines):
        if len(entry) >= 3 and entry[1] == "begin" and isinstance(entry[2], list):
            dealt = entry[2]
            return str(dealt[seat]) if seat < len(dealt) else ""
    if snapshot is not None:
        names = game.state_model.model_validate_json(snapshot).names
        return names[seat] if seat < len(names) else ""
    return ""


def _as_record(state_json: str | None) -> str | None:
    """A community replay keeps its snapshot as the state alone; the channel's log keeps the
    record: give replay_history the shape it reads."""
    return json.dumps({"state_json": state_json}) if state_json is not None else None


# --- the job ------------------------------------------------------------------------------------


@dataclass
class _Found:
    """Where a person is kept: the games that hold them, the communities whose history does,
    and every name they were known by there."""

    records: dict[GameKey, GameRecord] = field(default_factory=dict)
    holding: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)


class Forgetter:
    """Erases a person wherever the bot keeps them on one platform: every community's history
    that holds them, the games in its channels, their own keys."""

    def __init__(
        self,
        store: GameStore,
        settings: Settings,
        clock: Callable[[], float],
        recorder: Recorder,
    ) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self.recorder = recorder

    async def forget(self, platform: str, user: str, here: str | None) -> Forgot:
        """The person asked (in community ``here``): armed as a chore first, so that a failure
        part-way is finished by another worker, then run."""
        chore = _chore(user)
        await kept.arm_chore(self.store, platform, chore, self.clock() + RETRY_S)
        forgot = await self.run(platform, user, here)
        if forgot.pending_until is None:
            await kept.drop_chore(self.store, platform, chore)
        return forgot

    async def after_end(self, platform: str, users: list[str]) -> None:
        """A game that held people who asked to be forgotten has ended: erase them now (the
        result it just recorded with them too), and their game's table once it showed the
        end. A failure is left to the chore."""
        for user in users:
            try:
                await kept.arm_chore(self.store, platform, _chore(user), self.clock() + AFTER_END_S)
                await self.run(platform, user, None)
            except Exception as error:  # the game's end stands: the chore finishes this
                log.warning("could not forget a player at the end of a game yet (%s)", error)

    async def run(self, platform: str, user: str, here: str | None) -> Forgot:
        """One pass of the job (idempotent)."""
        now = self.clock()
        found = _Found()
        await self._channels_holding(found, platform, user)
        communities = set(await kept.communities_of(self.store, platform, user))
        if here:
            communities.add(here)
        recent = now - self.settings.finished_ttl_hours * 3600
        for community in sorted(communities | found.holding):
            await self._community_holding(found, kept.Community(platform, community), user, recent)
        person = Forgotten(user, frozenset(n for n in found.names if n))
        forgot = Forgot()
        for key in sorted(found.records, key=str):
            playing, pending = await self._channel(key, person, now)
            forgot.playing += playing
            if pending is not None:
                forgot.pending_until = min(forgot.pending_until or pending, pending)
        games = [g.name for g in all_games()]
        for community in sorted(found.holding):
            await self._community(kept.Community(platform, community), person, games)
        await kept.forget_keys(
            self.store,
            platform,
            user,
            keep_games=forgot.playing > 0,
            keep_held=forgot.pending_until is not None,
        )
        forgot.communities = sorted(found.holding)
        return forgot

    async def _channels_holding(self, found: _Found, platform: str, user: str) -> None:
        """The games that hold the person (in the channels their index and held list name),
        their communities and the names they played under there."""
        channels = set(await self.store.games_of(platform, user))
        channels |= set(await kept.held_of(self.store, platform, user))
        for key in sorted(channels, key=str):
            await self._holds(found, key, user)

    async def _holds(self, found: _Found, key: GameKey, user: str) -> None:
        record = await self._load(key)
        if record is not None and record.holds(user):
            found.records[key] = record
            found.holding.add(community_of(record))
            found.names |= record.names_of(user)

    async def _community_holding(
        self, found: _Found, where: kept.Community, user: str, recent: float
    ) -> None:
        """Whether the community's history holds the person (their page, ratings, results),
        the names it knows them by, and the games of their results still kept in a channel
        (ended since ``recent``)."""
        who = await kept.person(self.store, where, user, [g.name for g in all_games()], 0.0, 0)
        _rev, played = await kept.played_all(self.store, where, user)
        if who.name is not None or who.ratings or played:
            found.holding.add(where.community)
        found.names |= {who.name} if who.name else set()
        for data in who.ratings.values():
            with contextlib.suppress(ValueError):
                found.names.add(str(json.loads(data).get("name") or ""))
        for rec, _rep in played.values():
            if rec is None:
                continue
            result = GameResult.model_validate_json(rec)
            found.names |= {p.name for p in [*result.people, *result.left] if p.user == user}
            key = GameKey(result.platform, result.channel)
            if result.ended_at >= recent and key not in found.records:
                record = await self._load(key)
                if record is not None and record.holds(user):
                    found.records[key] = record

    async def _load(self, key: GameKey) -> GameRecord | None:
        _, loaded = await self.store.load(key)
        if loaded is None:
            return None
        try:
            return read_record(loaded.data)
        except DamagedRecord:
            return None  # set aside by the next command there; its copy expires on its own

    async def _channel(
        self, key: GameKey, person: Forgotten, now: float
    ) -> tuple[int, float | None]:
        """Erase ``person`` from the channel's game. Returns 1 when it is being played (it keeps
        them until it ends) else 0, and when its table is still to be erased (None: done)."""
        store, user = self.store, person.user
        for _attempt in range(MAX_ATTEMPTS):
            _, loaded = await store.load(key)
            try:
                record = read_record(loaded.data) if loaded is not None else None
            except DamagedRecord:
                record = None
            if loaded is None or record is None or not record.holds(user):
                return 0, None
            ttl = max(1, await kept.ttl_of(store, key))
            if record.status != "finished":
                marked = _marked(record, user)
                playing = 1 if user in marked.forgotten else 0
                if marked == record:
                    return playing, None
                saved = await store.save(
                    key,
                    marked.model_dump_json(),
                    expected=loaded.version,
                    version=loaded.version + 1,
                    ttl_s=ttl,
                    pack=marked.status != "playing",
                )
                if saved is SaveResult.WRITTEN:
                    return playing, None
                continue
            # A result the end left to record is recorded first, for the community's erasure.
            await self.recorder.publish_pending(key)
            history = await store.read_history(key)
            # (A replay of the game: off the event loop, which other games share.)
            new, rewritten = await asyncio.to_thread(erase_record, record, history, person)
            later = record.updated_at + AFTER_END_S
            if now < later:
                new.forgotten = sorted({*new.forgotten, user})  # its table, once it is shown
            if new != record or rewritten != history:
                saved = await store.save(
                    key,
                    new.model_dump_json(),
                    expected=loaded.version,
                    version=loaded.version + 1,
                    ttl_s=ttl,
                    fresh_log=rewritten is None,
                    history=rewritten,
                )
                if saved is not SaveResult.WRITTEN:
                    continue
            if now < later:
                return 0, later
            await self._refs(key, record, user, ttl)
            return 0, None
        raise StorageUnavailable()

    async def _refs(self, key: GameKey, record: GameRecord, user: str, ttl: int) -> None:
        """The ended game's table refs without what it showed, nor the person's panel."""
        table = f"{record.game}:{record.first_version}"
        for _attempt in range(MAX_ATTEMPTS):
            stored = await self.store.table_refs(key)
            if stored is None:
                return
            rev, data = stored
            try:
                refs = json.loads(data)
            except ValueError:
                refs = {"table": table}
            if not isinstance(refs, dict) or refs.get("table") != table:
                return  # the channel's next game has its own by now
            clean = _refs_without(refs, user)
            if clean == refs:
                return
            if await self.store.set_table_refs(key, json.dumps(clean), ttl, rev) is not None:
                return

    async def _community(self, where: kept.Community, person: Forgotten, games: list[str]) -> None:
        for _attempt in range(MAX_ATTEMPTS):
            rev, played = await kept.played_all(self.store, where, person.user)
            rewritten: dict[str, kept.Rewritten] = {}
            for game_id, (rec, rep) in played.items():
                if rec is not None:
                    # (Replays of the game: off the event loop, which other games share.)
                    rewritten[game_id] = await asyncio.to_thread(erase_result, rec, rep, person)
            if await kept.forget(self.store, where, person.user, games, rev, rewritten):
                return
        raise StorageUnavailable()


def _chore(user: str) -> str:
    return f"forget {user}"


def _marked(record: GameRecord, user: str) -> GameRecord:
    """A game not over yet: an invitation or a request to join goes now; anything else of
    theirs (a seat, hosting, a departure) stays until the game ends, marked for it."""
    new = record.model_copy(deep=True)
    new.requests = [r for r in new.requests if r.user != user]
    new.invited = [i for i in new.invited if i.user != user]
    rest = new.model_copy(update={"forgotten": [u for u in new.forgotten if u != user]})
    if rest.holds(user) and user not in new.forgotten:
        new.forgotten.append(user)
    return new


def _without(shown: JsonValue, user: str) -> JsonValue:
    return {u: v for u, v in shown.items() if u != user} if isinstance(shown, dict) else shown


def _refs_without(refs: dict[str, JsonValue], user: str) -> dict[str, JsonValue]:
    clean = {k: v for k, v in refs.items() if k in _REFS_KEPT}
    panels = clean.get("panels")
    if isinstance(panels, dict):
        clean["panels"] = {u: v for u, v in panels.items() if u != user}
    for part in ("closed", "hinted"):
        users = clean.get(part)
        if isinstance(users, list):
            clean[part] = [u for u in users if u != user]
    notes = clean.get("notes")
    if isinstance(notes, dict):
        clean["notes"] = {
            about: {u: v for u, v in shown.items() if u != user}
            if isinstance(shown, dict)
            else shown
            for about, shown in notes.items()
        }
    return clean
