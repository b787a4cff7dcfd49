"""The command grammar shared by every platform: ``/<game> <subcommand> [arguments]``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeVar, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from core.commands import Arg, Command, Kind
from core.engine import Game, GameLike, GameOptions, GameState, View
from core.text import escape

__all__ = [
    "PLAY_SUBCOMMANDS",
    "SUBCOMMANDS",
    "TEAM_SUBCOMMANDS",
    "CommandError",
    "Parsed",
    "lobby_options",
    "option_value",
    "options_help",
    "options_line",
    "parse",
    "parse_options",
    "subcommands",
    "usage",
    "words",
]

SUBCOMMANDS: tuple[Command, ...] = (
    Command(
        "start",
        "open a lobby in this channel; you are the host (options: key=value ...)",
        (Arg("options", Kind.OPTIONS, required=False),),
    ),
    Command("join", "take a seat in the lobby"),
    Command("leave", "leave the lobby (in a running game a bot takes over your seat)"),
    Command(
        "addbot",
        "add n bot seats of a level to the lobby (host; 1 if you leave n out, of the table's "
        "level, normal unless `start bots=<level>`, if you leave the level out)",
        (
            Arg("n", Kind.SEATS, required=False),
            Arg("level", Kind.WORD, required=False, choices=("easy", "normal", "strong")),
        ),
    ),
    Command("begin", "deal and start playing (host)"),
    Command("end", "end the game (host, or anyone once nobody has played for a while)"),
    Command("status", "show the board privately"),
    Command("hand", "show your hand and your choices privately"),
    Command(
        "rules",
        "the rules, or one topic of them (`all`: the whole page, as a file)",
        (Arg("topic", Kind.TOPIC, required=False),),
    ),
    Command("help", "this list"),
    Command(
        "rematch",
        "after a game, open a lobby for the same table: its people and options",
        typed=False,
    ),
)
"""The lobby and table words every game shares (``rematch`` is the final card's button)."""

PLAY_SUBCOMMANDS: tuple[Command, ...] = (
    Command(
        "undo",
        "ask to take back your last move while nothing was drawn or revealed since (everyone "
        "else approves on the board); `undo yes` or `undo no` answers someone's request",
        (Arg("answer", Kind.WORD, required=False, choices=("yes", "no")),),
    ),
    Command(
        "pause",
        "pause the game: its deadlines stand still (host; anyone else asks everyone seated)",
    ),
    Command("resume", "go on with a paused game; each deadline gets the time it had left"),
)
"""The words that change how a running game is played, every game's: taking a move back by
consent and pausing. Listed after the game's own moves (a platform that shows only so many
words, Discord's 25, puts the last ones in a group of their own)."""

TEAM_SUBCOMMANDS: tuple[Command, ...] = (
    Command(
        "join",
        "join a team, or create it in the lobby (during play the team lets you in)",
        (Arg("team", Kind.TEAM, required=False),),
    ),
    Command(
        "leave",
        "leave your team (a bot plays a team its last member leaves); you can't join another",
    ),
    Command(
        "admit",
        "let a player who asked join your team during play (`no` after: decline)",
        (Arg("player", Kind.PLAYER),),
    ),
    Command(
        "rename",
        "rename a team in the lobby (host)",
        (Arg("old", Kind.TEAM), Arg("new", lead=" to ")),
    ),
    Command(
        "move",
        "move a player to another team (host)",
        (Arg("player", Kind.PLAYER), Arg("team", Kind.TEAM, lead=" to ")),
    ),
    Command("remove", "take a player off their team (host)", (Arg("player", Kind.PLAYER),)),
)
"""In a team game (``Game.teams``) these replace or join the words above."""


def subcommands(game: GameLike, play: bool = False) -> tuple[Command, ...]:
    """The lobby and table words of ``game``: the shared ones, with the team words (in place
    of ``join`` and ``leave``) if it has teams; ``play``: the words of play too."""
    extra = PLAY_SUBCOMMANDS if play else ()
    if not game.teams:
        return SUBCOMMANDS + extra
    team = {command.word: command for command in TEAM_SUBCOMMANDS}
    shared = tuple(team.pop(command.word, command) for command in SUBCOMMANDS)
    return shared + tuple(team.values()) + extra


def words(game: GameLike) -> tuple[Command, ...]:
    """Every word of ``game`` players type (the help and the platforms' command lists show
    these): the lobby and table words, its own moves, then the words of play (undo, pause)."""
    every = subcommands(game) + game.commands + PLAY_SUBCOMMANDS
    return tuple(command for command in every if command.typed)


_S = TypeVar("_S", bound=GameState)
_O = TypeVar("_O", bound=GameOptions)
_A = TypeVar("_A", bound=BaseModel)
_V = TypeVar("_V", bound=View)


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


def parse_options(game: Game[_S, _O, _A, _V], rest: str) -> _O:
    """Read ``key=value`` words (a bare ``key`` means yes) into the game's options model."""
    model = game.options_model
    fields = model.model_fields
    raw: dict[str, str | bool] = {}
    for word in rest.split():
        key, sep, value = word.partition("=")
        key = key.strip().lower().replace("-", "_")
        if key not in fields:
            shown = escape(key)
            raise CommandError(
                f"“{shown}” is not an option of {game.title}: its options are "
                f"{', '.join(f'`{name}`' for name in [*fields, 'thread', 'pictures'])} "
                f"(`/{game.name} help` says what each takes)."
            )
        if not sep:
            value = "yes"
        lowered = value.lower()
        raw[key] = True if lowered in _TRUE else False if lowered in _FALSE else value
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problems = _problems(model, exc)
        raise CommandError(f"Those options don't work: {problems}.") from exc


def lobby_options(game: GameLike, options: Mapping[str, object]) -> GameOptions:
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


def _bounds(info: FieldInfo) -> tuple[object, object]:
    """The ``ge``/``le`` range pydantic keeps in the field's metadata (None where open)."""
    low = next((m.ge for m in info.metadata if hasattr(m, "ge")), None)
    high = next((m.le for m in info.metadata if hasattr(m, "le")), None)
    return low, high


def _problem(model: type[GameOptions], error: ErrorDetails) -> str:
    """One refused option as a sentence a player can act on, naming what it takes."""
    name = ".".join(str(part) for part in error["loc"])
    info = model.model_fields.get(name)
    if info is None:
        return f"`{name}`: {error['msg']}"
    return f"`{name}` takes {_kind(info)}"


def options_help(game: GameLike) -> str:
    """Every option of ``game``'s ``start``: how to type it, its default, what it does."""
    lines = [f"Options for `/{game.name} start` (type them as `key=value`):"]
    for name, info in game.options_model.model_fields.items():
        about = " ".join((info.description or "").split())
        default = option_value(info.default)
        printed = _printed(info)
        if printed is not None:
            default += f", a house rule: the printed rules say {option_value(printed)}"
        lines.append(
            f"• `{name}`: {_kind(info)}; default {default}." + (f" {about}" if about else "")
        )
    lines.append(
        "• `thread`: on or off; default on. Off: the game plays in the channel, not a thread."
    )
    lines.append(
        "• `pictures`: on or off; default on. Off: the board is shown as text only, not drawn."
    )
    return "\n".join(lines)


def option_value(value: object) -> str:
    """An option's value as a player would write it: yes or no, none, 1,000."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, int | float):
        return f"{value:,}"
    return str(value)


def options_line(
    game: GameLike, options: Mapping[str, object], thread: bool = True, pictures: bool = True
) -> str:
    """A table's options as words (``larger products: no; pick seconds: 120``), each option
    whose default is a house rule saying what the printed rules say instead."""
    fields = game.options_model.model_fields
    words = []
    for name, value in options.items():
        info = fields.get(name)
        shown = f"{name.replace('_', ' ')}: {option_value(value)}"
        printed = _printed(info) if info is not None else None
        if printed is not None and option_value(value) != option_value(printed):
            shown += f" (the printed rules: {option_value(printed)})"
        words.append(shown)
    if not thread:
        words.append("thread: off")
    if not pictures:
        words.append("pictures: off")
    return "; ".join(words)


def _printed(info: FieldInfo) -> object:
    """The value the game's printed rules give an option whose default is a house rule
    (declared as ``json_schema_extra={"printed": ...}``), else None."""
    extra = info.json_schema_extra
    return extra.get("printed") if isinstance(extra, dict) else None


def _kind(info: FieldInfo) -> str:
    """What an option takes, in words: yes or no, a whole number from 0 to 86,400, ..."""
    annotation = info.annotation
    if annotation is bool:
        return "yes or no"
    choices = get_args(annotation) if get_origin(annotation) is Literal else ()
    if choices:
        words = [str(choice) for choice in choices]
        return ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else words[0]
    low, high = _bounds(info)
    span = f" from {low:,} to {high:,}" if low is not None and high is not None else ""
    if annotation in (int, int | None):
        return f"a whole number{span}" + (", or none" if annotation == int | None else "")
    return "a value"


def usage(game: GameLike) -> str:
    """The help text for one game: every subcommand and the start options."""
    seats = "teams" if game.teams else "players"
    lines = [f"**{game.title}** ({game.min_players}-{game.max_players} {seats}). Commands:"]
    lines += [f"• `/{game.name} {command.form}` — {command.about}" for command in words(game)]
    lines.append("")  # the options are a paragraph of their own (help may come in parts)
    lines.append(options_help(game))
    lines += ["", first_game(game)]
    return "\n".join(lines)


def first_game(game: GameLike) -> str:
    """How to play a first game, from nothing: start, seats, begin, what to press."""
    join = f"`/{game.name} join`" + (
        " (a team of your own, or `join <team>`)" if game.teams else ""
    )
    where = (
        "the board's buttons are your turn's choices"
        if game.choices_on_board
        else "your hand and your choices come to you privately (a direct message) as buttons"
    )
    return (
        f"**A first game:** `/{game.name} start` opens a lobby in this channel, with you as host; "
        f"friends press Join or type {join}, and `/{game.name} addbot 2` adds two bot "
        f"{'teams' if game.teams else 'players'} to make up the numbers. `/{game.name} begin` "
        f"starts the game: {where}, and the game's thread says whose turn it is. "
        f"`/{game.name} rules` explains the game; `status` shows the board, `hand` your choices "
        "again."
    )
