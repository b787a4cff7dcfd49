"""The lobby and a game's life: ``start``, ``join``, ``addbot``, ``begin`` and ``end``.

The lobby is shown on the game's card (:func:`lobby_message`), edited as people join. Leaving and
the host's team administration are in :mod:`bot.commands.seats.roster`.
"""

from __future__ import annotations

import math

from pydantic import JsonValue

from bot.commands.game.actionlog import Entry
from bot.commands.game.moves import commit, final, summary_card
from bot.commands.game.play import load_state, start_state
from bot.commands.grammar import CommandError, lobby_options, options_line, parse_options
from bot.commands.guards import (
    game_of,
    require_game,
    require_host_lobby,
    require_room,
    running_state,
)
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord, Invite, Member, SeatInfo
from bot.commands.seats import seating, teams
from bot.commands.step import Change, Env, Refusal, Request, Step
from core import bots as levels
from core import text as markup
from core import ui
from core.bots import DEFAULT_LEVEL, LEVELS, Level
from core.engine import GameLike

__all__ = [
    "BOT_NAMES",
    "addbot",
    "begin",
    "bot_name",
    "end",
    "join",
    "lobby_message",
    "rematch",
    "start",
]

BOT_NAMES = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Ken", "Margaret", "Dennis"]


def start(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """Open a lobby (the requester hosts it) unless the channel holds a game already."""
    thread, rest = _table_option(rest, "thread")
    pictures, rest = _table_option(rest, "pictures")
    level, rest = _bots_option(game, rest)
    options = parse_options(game, rest)

    def step(record: GameRecord | None, out: Outbox) -> Change:
        if record is not None and record.status != "finished":
            running = game_of(record)
            stage = "open for players" if record.status == "lobby" else "being played"
            raise Refusal(
                f"A game of {running.title} is already {stage} in this channel "
                f"(host: {record.host_name}). The host can end it with `/{running.name} end`."
            )
        now = env.clock()
        first = 0
        if record is not None:
            last = (
                load_state(game_of(record), record.state_json).version if record.state_json else 0
            )
            first = max(record.first_version, last + 1)
        new = GameRecord(
            game=game.name,
            host=req.user,
            host_name=req.name,
            seats=[SeatInfo.player(req.user, req.name)],
            options=options.model_dump(mode="json"),
            community=req.community,
            seed=env.new_seed(),
            created_at=now,
            updated_at=now,
            first_version=first,
            thread=thread,
            pictures=pictures,
            bot_level=level,
        )
        out.card = lobby_message(game, new, f"{req.name} opened a game of {game.title}.")
        # The channel's last game, its players' words and ids in its log, goes with its record.
        return Change(record=new, joined=[req.user], fresh_log=True)

    return step


def rematch(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """The final card's Rematch, which only a player of the finished game may press: a new
    lobby in the channel with its options, its presser seated (as host, in their seat or team)
    and its bots; the other players are invited, each joining with one press of their own
    (nobody is seated, or messaged, without asking)."""

    def step(record: GameRecord | None, out: Outbox) -> Change:
        if record is None or record.game != game.name:
            raise Refusal(f"There is no finished game of {game.title} here to play again.")
        if record.status != "finished":
            stage = "open for players" if record.status == "lobby" else "being played"
            raise Refusal(
                f"A game of {game.title} is already {stage} in this channel "
                f"(host: {record.host_name})."
            )
        mine = record.seat_of(req.user)
        if mine is None:
            raise Refusal(
                f"Only the players of this game can ask for its rematch; "
                f"`/{game.name} start` opens a new game of {game.title}."
            )
        now = env.clock()
        last = load_state(game, record.state_json).version if record.state_json else 0
        seats: list[SeatInfo] = []
        invited: list[Invite] = []
        names = (name for name in BOT_NAMES if name not in _taken_names(record))
        for index, seat in enumerate(record.seats):
            if seat.is_bot:
                name = bot_name(next(names, f"Bot {len(seats) + 1}"), seat.bot)
                seats.append(SeatInfo(name=name, level=seat.level))
                continue
            if index == mine:
                me = [Member(user=req.user, name=req.name)]
                name = seat.name if game.teams else req.name
                seats.append(SeatInfo(name=name, members=me))
            # (A person who asked to be forgotten has no id here, or is about to lose it.)
            invited += [
                Invite(user=m.user, name=m.name, team=seat.name if game.teams else None)
                for m in seat.members
                if m.user and m.user != req.user and m.user not in record.forgotten
            ]
        new = GameRecord(
            game=game.name,
            host=req.user,
            host_name=req.name,
            seats=seats,
            options=dict(record.options),
            community=record.community or req.community,
            seed=env.new_seed(),
            created_at=now,
            updated_at=now,
            first_version=max(record.first_version, last + 1),
            thread=record.thread,
            pictures=record.pictures,
            bot_level=record.bot_level,
            invited=invited,
        )
        out.card = lobby_message(game, new, f"{req.name} asked for a rematch of {game.title}.")
        return Change(record=new, joined=[req.user], fresh_log=True)

    return step


def lobby_message(game: GameLike, record: GameRecord, head: str = "") -> ui.Message:
    """The card of a lobby: who sits, the options, and buttons to join, add a bot and begin."""
    settings = options_line(game, record.options, record.thread, record.pictures)
    if record.bot_level != DEFAULT_LEVEL:
        settings += f"; bots: {record.bot_level}"
    count = f"({len(record.seats)}/{game.max_players})"
    full = len(record.seats) >= game.max_players
    # A full table offers no seat and no bot (a team game still lets people join its teams).
    first_row = (
        []
        if full
        else [
            ui.Button(
                label="Start a team" if game.teams else "Join", style="primary", command="join"
            ),
            ui.Button(label="Add a bot", command="addbot"),
        ]
    )
    buttons = [[*first_row, ui.Button(label="Begin", style="success", command="begin")]]
    if game.teams:
        seated = f"Teams {count}: {teams.team_list(record.seats)}."
        how = (
            f"`/{game.name} join <team>` joins a team or creates it "
            f"(`/{game.name} join` alone: a team of your own)"
        )
        joinable = [seat.name for seat in record.seats if not seat.is_bot]
        joinable += [i.team for i in record.invited if i.team and i.team not in joinable]
        for first in range(0, min(len(joinable), 10), 5):
            buttons.append(
                [
                    ui.Button(label=f"Join {name}", command=f"join {name}")
                    for name in joinable[first : first + 5]
                ]
            )
    else:
        players = ", ".join(s.name + s.bot_note for s in record.seats)
        seated = f"Players {count}: {players}."
        how = f"`/{game.name} join` to take a seat"
    if record.invited:
        guests = markup.join([i.name for i in record.invited])
        press = "their team's Join button" if game.teams else "Join"
        seated += f"\nInvited to play again: {guests} (each joins with {press})."
    text = (
        f"{head}\n{seated}\nOptions: {settings}.\n"
        f"{how}; the host ({record.host_name}) can "
        f"`/{game.name} addbot` and `/{game.name} begin` with {game.min_players} or more."
    ).strip()
    return ui.Message(title=f"{game.title}: lobby", text=text, buttons=buttons)


def join(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """Take a seat; in a team game join (or in the lobby create) the team ``rest`` names."""
    wanted = teams.clean_team_name(rest) if game.teams and rest.strip() else None

    def step(record: GameRecord | None, out: Outbox) -> Change:
        record = require_game(record, game)
        current = record.seat_of(req.user)
        target = teams.find_team(record, wanted) if wanted else None
        if current is not None and (wanted is None or target == current):
            where = f" with {record.seats[current].name}" if game.teams else ""
            raise Refusal(f"You're already at the table{where}.")
        if record.status != "lobby":
            return seating.join_running(env, game, record, req, current, target, out)
        me = Member(user=req.user, name=req.name)
        record.invited = [i for i in record.invited if i.user != req.user]
        if target is not None:
            require_room(game, record, target)
        if current is not None:  # changing teams in the lobby
            teams.remove_member(record, req.user)
            if record.seats[current].is_bot:
                del record.seats[current]
            target = teams.find_team(record, wanted) if wanted else None
        if target is None:
            if len(record.seats) >= game.max_players:
                raise Refusal(f"The table is full: {game.title} seats {game.max_players}.")
            name = wanted or teams.free_name(game, record, req.name)
            record.seats.append(SeatInfo(name=name, members=[me]))
            news = f"{req.name} joined" + (f" as {name}" if game.teams else "")
        else:
            teams.add_member(record, target, me)
            news = f"{req.name} joined {record.seats[target].name}"
        out.card = lobby_message(game, record, f"{news}.")
        return Change(record=record, joined=[req.user])

    return step


def addbot(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """The host adds ``n`` (default 1) bot seats of a level (default the table's, ``bots=`` at
    ``start``) to the lobby: ``addbot``, ``addbot 2``, ``addbot 2 strong``, ``addbot easy``."""
    count: int | None = None
    level: Level | None = None
    for word in rest.lower().split():
        if word.isdigit() and count is None:
            count = int(word)
        elif word in LEVELS and level is None:
            level = levels.level_of(word)
        else:
            raise CommandError(
                f"`addbot` takes a number of bots and a level ({markup.join(list(LEVELS), 'or')}), "
                f"e.g. `/{game.name} addbot 2 strong`."
            )
    if count is None:
        count = 1

    def step(record: GameRecord | None, out: Outbox) -> Change:
        record = require_host_lobby(record, game, req, "add bots")
        free = game.max_players - len(record.seats)
        if free <= 0:
            raise Refusal(f"The table is full: {game.title} seats {game.max_players}.")
        if count < 1 or count > free:
            many = "1 bot" if free == 1 else f"1 to {free} bots"
            raise Refusal(f"You can add {many}; the table seats {game.max_players}.")
        taken = _taken_names(record)
        names = [n for n in BOT_NAMES if n not in taken]
        chosen = level or record.bot_level
        for index in range(count):
            name = names[index] if index < len(names) else f"Bot {len(record.seats) + 1}"
            record.seats.append(SeatInfo(name=bot_name(name, chosen), level=chosen))
        kind = "bot" if chosen == DEFAULT_LEVEL else f"{chosen} bot"
        out.card = lobby_message(game, record, f"{req.name} added {markup.plural(count, kind)}.")
        return Change(record=record)

    return step


def begin(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """The host deals the game: the card becomes its summary, the bots make their moves."""

    def step(record: GameRecord | None, out: Outbox) -> Change:
        record = require_host_lobby(record, game, req, "begin")
        if len(record.seats) < game.min_players:
            missing = game.min_players - len(record.seats)
            raise Refusal(
                f"{game.title} needs at least {game.min_players} players; "
                f"{missing} more can `/{game.name} join`, or add bots with "
                f"`/{game.name} addbot {missing}`."
            )
        options = lobby_options(game, record.options)
        problem = game.check_lobby(
            options, [len(s.members) for s in record.seats], [s.name for s in record.seats]
        )
        if problem is not None:
            raise Refusal(problem)
        record.status = "playing"
        record.began_at = env.clock()
        record.invited = []  # (a rematch's guests who did not join: the game goes on without)
        result = start_state(
            game,
            [s.name for s in record.seats],
            record.bots,
            record.options,
            record.seed,
            record.first_version,
        )
        out.say(f"{req.name} began the game. Good luck!")
        out.begun = True
        out.thread = record.thread
        out.card = summary_card(game, record)
        commit(env, game, record, None, result, req.user, out)
        seats: list[JsonValue] = [
            [s.name for s in record.seats],
            [s.is_bot for s in record.seats],
        ]
        return Change(record=record, log=[[req.user, "begin", *seats], *result.log])

    return step


def end(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """The host ends the lobby or the game (anyone may once no person has acted for
    ``idle_end_minutes``)."""

    def step(record: GameRecord | None, out: Outbox) -> Change:
        record = require_game(record, game)
        # Idle means no person acted: deadlines that keep passing do not count.
        idle = env.clock() - (record.acted_at or record.updated_at)
        limit = env.settings.idle_end_minutes * 60
        if req.user != record.host and idle < limit:
            wait = max(1, math.ceil((limit - idle) / 60))
            raise Refusal(
                f"Only the host ({record.host_name}) can end the game, or anyone once nobody "
                f"has played for {markup.plural(round(limit / 60), 'minute')} (another "
                f"{markup.plural(wait, 'minute')} from now, if nobody plays)."
            )
        # The log holds the game from `begin` on; a lobby leaves no trace there.
        log: list[Entry] = [[req.user, "end"]] if record.status == "playing" else []
        was_lobby = record.status == "lobby"
        record.status = "finished"
        record.deadline_due = record.clock_due = record.nudge_due = record.warn_due = None
        record.nudge = []
        news = f"{req.name} ended the game of {game.title}."
        out.say(news)
        out.ended = True
        if was_lobby:
            out.card = ui.Message(title=f"{game.title}: lobby closed", text=news)
        else:
            final(env, game, record, running_state(record), out, ended_by=req.name)
        return Change(record=record, log=log, left=record.humans)

    return step


def _taken_names(record: GameRecord) -> set[str]:
    """The seats' names, and the bots' names without their level (``Ada`` of ``Strong Ada``),
    so that no two bots of a table share a name."""
    taken = {seat.name for seat in record.seats}
    for seat in record.seats:
        first, _, rest = seat.name.partition(" ")
        if seat.is_bot and rest and first.lower() in LEVELS:
            taken.add(rest)
    return taken


def bot_name(name: str, level: Level | None) -> str:
    """A bot seat's name, which says its level unless it is normal (``Strong Ada``): the
    board, the story and the standings all name the seat by it."""
    if level is None or level == DEFAULT_LEVEL:
        return name
    return f"{level.capitalize()} {name}"


def _bots_option(game: GameLike, rest: str) -> tuple[Level, str]:
    """``bots=<level>`` among ``start``'s words: the level ``addbot`` gives by default."""
    chosen: Level = DEFAULT_LEVEL
    others = []
    for word in rest.split():
        key, _, value = word.partition("=")
        if key.strip().lower() != "bots":
            others.append(word)
            continue
        if value.lower() not in LEVELS:
            raise CommandError(
                f"`bots` takes a level, {markup.join(list(LEVELS), 'or')}: "
                f"e.g. `/{game.name} start bots=strong`."
            )
        chosen = levels.level_of(value.lower()) or DEFAULT_LEVEL
    return chosen, " ".join(others)


def _table_option(rest: str, name: str) -> tuple[bool, str]:
    """``<name>=off`` (or ``no``) among ``start``'s words: ``thread=off`` plays in the channel
    itself, ``pictures=off`` shows the board as text only; the other words are the game's
    options."""
    chosen, others = True, []
    for word in rest.split():
        key, sep, value = word.partition("=")
        if key.strip().lower() == name:
            if sep and value.lower() not in ("on", "off", "yes", "no", "true", "false"):
                raise CommandError(f"`{name}` takes on or off, e.g. `{name}=off`.")
            chosen = not sep or value.lower() in ("on", "yes", "true")
        else:
            others.append(word)
    return chosen, " ".join(others)
