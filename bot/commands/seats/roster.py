"""Who sits where, once seated: ``leave``, and the host's ``rename``, ``move`` and ``remove``.

Whoever goes, :func:`after_departure` settles the table: an empty lobby closes, the host's role
passes on, and a seat nobody is left in is played by a bot (at once, if the game waits for it).
Finding teams and players by name is :mod:`bot.commands.seats.teams`.
"""

from __future__ import annotations

from bot.commands.game.moves import commit
from bot.commands.game.play import Advance, run_bots
from bot.commands.grammar import CommandError
from bot.commands.guards import (
    game_of,
    require_game,
    require_host,
    require_host_lobby,
    require_room,
    require_seat,
    running_state,
)
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord, SeatInfo
from bot.commands.seats import seating, teams
from bot.commands.seats.lobby import lobby_message
from bot.commands.step import Change, Env, Refusal, Request, Step
from core import text as markup
from core import ui
from core.bots import DEFAULT_LEVEL
from core.engine import GameLike

__all__ = ["after_departure", "leave", "move", "remove", "rename"]


def leave(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """The requester leaves their seat (or team)."""

    def step(record: GameRecord | None, out: Outbox) -> Change:
        record = require_game(record, game)
        if record.seat_of(req.user) is None:
            withdrawn = seating.withdraw(record, req.user, out)
            if withdrawn is not None:
                return withdrawn
        seat = require_seat(record, req)
        team = record.seats[seat].name
        teams.remove_member(record, req.user)
        _departed(record, req.user, seat)
        where = team if game.teams else "the table" if record.status != "lobby" else ""
        news = f"{req.name} left {where}".rstrip()
        change = Change(record=record, left=[req.user])
        change = after_departure(env, game, record, seat, req.user, news, out, change)
        out.reply(req.user, _farewell(game, record, seat, team))
        if record.status != "lobby":
            out.closed_panels[req.user] = ui.Message(text=f"You left this game of {game.title}.")
        return change

    return step


def _farewell(game: GameLike, record: GameRecord, seat: int, team: str) -> str:
    """What the leaver is told: where their seat went, and what they can still do."""
    if record.status == "lobby":
        return "You left the lobby."
    if record.status == "finished" and record.state_json is None:
        return "You left, and the lobby closed: nobody was left in it."
    if record.status == "finished":
        return (
            f"You left the game of {game.title}, and the bots played it to its end: the card "
            "in the channel shows the final standings."
        )
    where = "in its thread" if record.thread else "in this channel"
    follow = (
        f"You can follow the game {where} (`/{game.name} status` shows the board) and join the "
        "next one."
    )
    state = running_state(record)
    if game_of(record).seat_out(state, seat):
        return f"You left {team}, which is out of the game. {follow}"
    if not record.seats[seat].is_bot:
        back = f"`/{game.name} join {team}` asks them to take you back"
        return f"You left {team}, which plays on without you ({back}). {follow}"
    who = team if game.teams else "your seat"
    return f"You left the game of {game.title}; a bot plays {who} until it ends. {follow}"


def _departed(record: GameRecord, user: str, seat: int) -> None:
    """Remember who left during play: they may join no other team in this game, and are told
    so (not "you're not playing") when they try to act."""
    if record.status == "playing":
        record.departed[user] = seat


def after_departure(
    env: Env,
    game: GameLike,
    record: GameRecord,
    seat: int,
    user: str,
    news: str,
    out: Outbox,
    change: Change,
) -> Change:
    """Someone is off ``seat``: close an empty lobby, pass the host on, and let a bot play a
    seat nobody is left in."""
    emptied = record.seats[seat].is_bot
    humans = [m for s in record.seats for m in s.members]
    if humans and record.host not in {m.user for m in humans}:
        record.host, record.host_name = humans[0].user, humans[0].name
        news += f"; {humans[0].name} is the host now"
    if record.status == "lobby":
        if emptied:
            del record.seats[seat]
        if not humans:
            record.status = "finished"
            out.card = ui.Message(title=f"{game.title}: lobby closed", text=f"{news}.")
            out.ended = True
            return change
        out.card = lobby_message(game, record, f"{news}.")
        return change
    change.log.append([user, "leave", seat])
    running = game_of(record)
    state = running_state(record)
    if running.seat_out(state, seat):
        out.say(f"{news}.")  # the seat is out of the game: nobody, not even a bot, plays it
        return change
    if not emptied:
        out.say(f"{news}; {record.seats[seat].name} plays on.")
        return change
    who = record.seats[seat].name if game.teams else "their seat"
    # A bot of the table's level (``bots=`` at ``start``), for good: no stand-in any more.
    left = record.seats[seat]
    left.level, left.away, left.missed, left.played_for = record.bot_level, False, 0, []
    kind = "a bot" if left.level == DEFAULT_LEVEL else f"a {left.level} bot"
    out.say(f"{news}; {kind} plays {who} now.")
    # The bot may be the seat the game is waiting for: let it move at once.
    result = Advance(state=state)
    run_bots(running, record.seed, record.bots, result)
    commit(env, running, record, state, result, None, out)
    change.log.extend(result.log)
    return change


def rename(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """The host renames a team in the lobby: ``rename A to B``."""
    old, new = teams.split_to(rest, f"Rename a team like this: `/{game.name} rename A to B`.")
    new = teams.clean_team_name(new)

    def step(record: GameRecord | None, out: Outbox) -> Change:
        record = require_host_lobby(record, game, req, "rename teams")
        seat = teams.find_team(record, old)
        if seat is None:
            raise Refusal(
                f"There is no team called {markup.escape(old)}: {teams.team_names(record)}."
            )
        other = teams.find_team(record, new)
        if other is not None and other != seat:
            raise Refusal(f"There is already a team called {record.seats[other].name}.")
        before, record.seats[seat].name = record.seats[seat].name, new
        out.card = lobby_message(game, record, f"{req.name} renamed {before} to {new}.")
        return Change(record=record)

    return step


def move(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """The host moves a player to another team: ``move Bob to Sharks`` (in the lobby the team
    is created if need be; during play it must exist)."""
    who, team = teams.split_to(rest, f"Move a player like this: `/{game.name} move Bob to Sharks`.")
    wanted = teams.clean_team_name(team)

    def step(record: GameRecord | None, out: Outbox) -> Change:
        record = require_host(record, game, req, "move players")
        seat, member = teams.find_player(record, who)
        target = teams.find_team(record, wanted)
        if target == seat:
            raise Refusal(f"{member.name} already plays for {record.seats[seat].name}.")
        playing = record.status != "lobby"
        state = running_state(record) if playing else None
        if target is None and playing:
            raise Refusal(
                f"There is no team called {wanted} in this game; the teams playing are "
                f"{seating.playing_list(game_of(record), record, state)}."
            )
        if target is not None:
            if state is not None:
                seating.require_open(game_of(record), record, state, target)
            require_room(game, record, target)
        teams.remove_member(record, member.user)
        if record.status == "lobby":
            if record.seats[seat].is_bot:
                del record.seats[seat]
            target = teams.find_team(record, wanted)  # seats after it moved up
            if target is None:
                if len(record.seats) >= game.max_players:
                    raise Refusal(f"The table is full: {game.title} seats {game.max_players}.")
                record.seats.append(SeatInfo(name=wanted))
                target = len(record.seats) - 1
            teams.add_member(record, target, member)
            news = f"{req.name} moved {member.name} to {record.seats[target].name}"
            out.card = lobby_message(game, record, f"{news}.")
            return Change(record=record)
        assert target is not None  # refused above when the team does not exist
        assert state is not None
        teams.add_member(record, target, member)
        news = f"{req.name} moved {member.name} to {record.seats[target].name}"
        change = Change(record=record, log=[[member.user, "join", target]])
        out.panels[member.user] = game_of(record).render_private(state, target)
        return after_departure(env, game, record, seat, member.user, news, out, change)

    return step


def remove(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """The host takes a player off their team: ``remove Bob``."""
    if not rest.strip():
        raise CommandError(f"Name the player to remove: `/{game.name} remove Bob`.")

    def step(record: GameRecord | None, out: Outbox) -> Change:
        record = require_host(record, game, req, "remove players")
        seat, member = teams.find_player(record, rest)
        if member.user == req.user:
            raise Refusal(f"To leave your own team, use `/{game.name} leave`.")
        team = record.seats[seat].name
        teams.remove_member(record, member.user)
        _departed(record, member.user, seat)
        news = f"{req.name} took {member.name} off {team}"
        change = Change(record=record, left=[member.user])
        change = after_departure(env, game, record, seat, member.user, news, out, change)
        where = "the lobby" if record.status == "lobby" else "the game"
        out.reply(member.user, f"{req.name} took you off {team} in {where} of {game.title}.")
        if record.status != "lobby":
            out.closed_panels[member.user] = ui.Message(
                text=f"{req.name} took you off {team} in this game of {game.title}."
            )
        return change

    return step
