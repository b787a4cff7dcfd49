"""The command grammar shared by every platform: ``/<game> <subcommand> [arguments]``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from core.engine import Game, GameOptions
from core.text import escape

__all__ = [
    "SUBCOMMANDS",
    "TEAM_SUBCOMMANDS",
    "CommandError",
    "Parsed",
    "lobby_options",
    "parse",
    "parse_options",
    "subcommands",
    "usage",
]

SUBCOMMANDS: dict[str, str] = {
    "start": "open a lobby in this channel; you are the host (options: key=value ...)",
    "join": "take a seat in the lobby",
    "leave": "leave the lobby (in a running game a bot takes over your seat)",
    "addbot": "add n bot seats to the lobby (host): addbot [n]",
    "begin": "deal and start playing (host)",
    "end": "end the game (host, or anyone once nobody has played for a while)",
    "status": "show the board privately",
    "hand": "show your hand and your choices privately",
    "rules": "the rules, or one topic of them: rules [topic]",
    "help": "this list",
}


TEAM_SUBCOMMANDS: dict[str, str] = {
    "join": "join a team, or create it in the lobby: join [team] "
    "(during play the team lets you in)",
    "leave": "leave your team (a bot plays a team its last member leaves); you can't join another",
    "admit": "admit <player>: let a player who asked join your team during play "
    "(`no` after: decline)",
    "rename": "rename <change>: rename a team in the lobby (host), as `old name to new name`",
    "move": "move <change>: move a player to another team (host), as `player to team`",
    "remove": "remove <player>: take a player off their team (host)",
}
"""In a team game (``Game.teams``) these replace or join the words above."""


def subcommands(game: Game[Any, Any]) -> dict[str, str]:
    """The lobby and table words of ``game``: the shared ones, with the team words if it has
    teams."""
    return {**SUBCOMMANDS, **TEAM_SUBCOMMANDS} if game.teams else dict(SUBCOMMANDS)


class CommandError(Exception):
    """A command the grammar cannot read; ``str()`` is a sentence for the user."""


class Parsed(BaseModel):
    word: str
    rest: str


def parse(text: str) -> Parsed:
    """Split ``text`` into its subcommand and the rest; empty text means ``help``."""
    stripped = text.strip()
    if not stripped:
        return Parsed(word="help", rest="")
    word, _, rest = stripped.partition(" ")
    return Parsed(word=word.lower(), rest=rest.strip())


_TRUE = {"yes", "true", "on", "1"}
_FALSE = {"no", "false", "off", "0"}


def parse_options(game: Game[Any, Any], rest: str) -> GameOptions:
    """Read ``key=value`` words (a bare ``key`` means yes) into the game's options model."""
    model: type[GameOptions] = game.options_model
    fields = model.model_fields
    raw: dict[str, Any] = {}
    for word in rest.split():
        key, sep, value = word.partition("=")
        key = key.strip().lower().replace("-", "_")
        if key not in fields:
            shown = escape(key)
            raise CommandError(f"“{shown}” is not an option of {game.title}.\n{options_help(game)}")
        if not sep:
            value = "yes"
        lowered = value.lower()
        raw[key] = True if lowered in _TRUE else False if lowered in _FALSE else value
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problems = _problems(model, exc)
        raise CommandError(f"Those options don't work: {problems}.\n{options_help(game)}") from exc


def lobby_options(game: Game[Any, Any], options: dict[str, Any]) -> GameOptions:
    """A lobby's stored options, read again when the game begins: a lobby opened before an
    option's range changed may hold one that no longer works, which is said as at ``start``."""
    model: type[GameOptions] = game.options_model
    try:
        return model.model_validate(options)
    except ValidationError as exc:
        problems = _problems(model, exc)
        raise CommandError(
            f"This lobby's options no longer work: {problems}. The host can `/{game.name} end` "
            f"it and `/{game.name} start` again with options that do."
        ) from exc


def _problems(model: type[GameOptions], error: ValidationError) -> str:
    return "; ".join(_problem(model, err) for err in error.errors())


def _bounds(info: FieldInfo) -> tuple[Any, Any]:
    """The ``ge``/``le`` range pydantic keeps in the field's metadata (None where open)."""
    low = next((m.ge for m in info.metadata if hasattr(m, "ge")), None)
    high = next((m.le for m in info.metadata if hasattr(m, "le")), None)
    return low, high


def _problem(model: type[GameOptions], error: Any) -> str:
    """One refused option as a sentence a player can act on, naming the allowed range."""
    name = ".".join(str(part) for part in error["loc"])
    info = model.model_fields.get(name)
    if info is not None and info.annotation in (int, int | None):
        low, high = _bounds(info)
        if low is not None and high is not None:
            return f"`{name}` takes a whole number from {low:,} to {high:,}"
        return f"`{name}` takes a whole number"
    if info is not None and info.annotation is bool:
        return f"`{name}` takes yes or no"
    return f"`{name}`: {error['msg']}"


def options_help(game: Game[Any, Any]) -> str:
    lines = [f"Options for `/{game.name} start`:"]
    for name, info in game.options_model.model_fields.items():
        about = f" — {info.description}" if info.description else ""
        low, high = _bounds(info)
        span = f", {low:,}-{high:,}" if low is not None and high is not None else ""
        lines.append(f"• `{name}` (default {info.default!r}{span}){about}")
    lines.append("• `thread` (default on) — off: the game plays in the channel, not a thread")
    return "\n".join(lines)


def usage(game: Game[Any, Any], extra: dict[str, str] | None = None) -> str:
    """The help text for one game: every subcommand and the start options."""
    seats = "teams" if game.teams else "players"
    lines = [f"**{game.title}** ({game.min_players}-{game.max_players} {seats}). Commands:"]
    lines += [f"• `/{game.name} {word}` — {about}" for word, about in subcommands(game).items()]
    lines += [f"• `/{game.name} {word}` — {about}" for word, about in (extra or {}).items()]
    lines.append(options_help(game))
    return "\n".join(lines)
