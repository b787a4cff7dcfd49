"""Who may do what: each guard returns what it checked or raises a Refusal saying why not."""

from __future__ import annotations

from bot.commands.game.play import load_state
from bot.commands.record import GameRecord
from bot.commands.step import Refusal, Request
from core.engine import GameLike, GameState
from core.registry import get_game

__all__ = [
    "game_of",
    "not_seated",
    "require_game",
    "require_host",
    "require_host_lobby",
    "require_playing",
    "require_room",
    "require_seat",
    "running_state",
]


def game_of(record: GameRecord) -> GameLike:
    """The game a record holds (refused when this bot no longer has it)."""
    game = get_game(record.game)
    if game is None:
        raise Refusal("This channel holds a game this bot no longer knows; the host can end it.")
    return game


def require_game(
    record: GameRecord | None, game: GameLike, allow_finished: bool = False
) -> GameRecord:
    """The channel holds a game of ``game`` (a finished one too, with ``allow_finished``)."""
    over = record is not None and record.status == "finished"
    if record is None or (over and (not allow_finished or record.game != game.name)):
        # A finished game of another kind is no game here: the channel is free.
        raise Refusal(f"No game here. Start one with `/{game.name} start`.")
    if record.game != game.name:
        running = game_of(record)
        raise Refusal(
            f"This channel is playing {running.title}; use `/{running.name}` commands here."
        )
    return record


def require_seat(record: GameRecord, req: Request) -> int:
    """The requester's seat."""
    seat = record.seat_of(req.user)
    if seat is None:
        raise Refusal(not_seated(record, req.user))
    return seat


def not_seated(record: GameRecord, user: str, joining: bool = False) -> str:
    """Why someone who sits nowhere cannot act (``joining``: cannot join a game being played
    that has no teams), and what they can do instead."""
    command = f"/{record.game}"
    if record.status == "lobby":
        return f"You're not in this lobby yet: `{command} join` takes a seat."
    where = "in its thread" if record.thread else "in this channel"
    follow = f"you can follow it {where} (`{command} status` shows the board) and join the next one"
    if user in record.departed:
        return f"You left this game, so you no longer play in it; {follow}."
    if joining:
        return f"This game began without you and takes nobody new; {follow}."
    return f"You're not playing in this game, which began without you; {follow}."


def require_host(record: GameRecord | None, game: GameLike, req: Request, verb: str) -> GameRecord:
    """The requester hosts the channel's game of ``game``; ``verb`` says what only a host can."""
    record = require_game(record, game)
    if record.host != req.user:
        raise Refusal(f"Only the host ({record.host_name}) can {verb}.")
    return record


def require_host_lobby(
    record: GameRecord | None, game: GameLike, req: Request, verb: str
) -> GameRecord:
    """As :func:`require_host`, and the game has not begun."""
    record = require_game(record, game)
    if record.status != "lobby":
        raise Refusal("The game has already begun.")
    return require_host(record, game, req, verb)


def require_playing(
    record: GameRecord | None, game: GameLike, req: Request
) -> tuple[GameRecord, GameState, int]:
    """The game is being played and the requester sits in it: the record, state and seat."""
    record = require_game(record, game)
    if record.status != "playing" or record.state_json is None:
        raise Refusal(f"The game hasn't begun yet; the host starts it with `/{game.name} begin`.")
    seat = require_seat(record, req)
    return record, load_state(game, record.state_json), seat


def require_room(game: GameLike, record: GameRecord, seat: int) -> None:
    """The team at ``seat`` has room for one more (the game's ``max_team_size``)."""
    limit = game.max_team_size
    if limit is not None and len(record.seats[seat].members) >= limit:
        raise Refusal(
            f"{record.seats[seat].name} is full: a team of {game.title} has at most {limit} people."
        )


def running_state(record: GameRecord) -> GameState:
    """The state of a game being played."""
    if record.state_json is None:  # playing always has a state; never crash on a bad blob
        raise Refusal("This game has no table to change; the host can end it.")
    return load_state(game_of(record), record.state_json)
