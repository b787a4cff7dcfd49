"""The card a game leaves in its channel once it is over: the one message the channel keeps.

It is designed for reading at a glance, on a phone too: the result in one line, every seat's
standing on a line of its own (rank, name, score, what the game says of it, and in a team game its
people), then a few lines of how the game went, from the game's :meth:`~core.engine.Game.recap` and
how long it was played, and a Rematch button (a new lobby with the same options and people). No line
is longer than :data:`LINE_LIMIT` characters, whatever the names, so the card never turns into a
wall of text.
"""

from __future__ import annotations

import hashlib
import json

from bot.commands.game.actionlog import money_and_rounds
from bot.commands.guards import running_state
from bot.commands.record import GameRecord, SeatInfo
from core import picture, ui
from core import text as markup
from core.engine import GameLike, GameState, Standing
from core.registry import get_game
from storage import History

__all__ = [
    "LINE_LIMIT",
    "chart_of",
    "final_card",
    "headline",
    "length",
    "money_chart",
    "with_chart",
]

LINE_LIMIT = 200
"""Characters per line of the card, as a reader sees them (a phone shows about 40 a line)."""
MEMBERS_SHOWN = 3
"""People named on a team's line; more are counted ("and 2 more")."""


def headline(game: GameLike, state: GameState, ended_by: str | None) -> str:
    """The result in one sentence: the game's own for a game played out, else who ended it."""
    if ended_by is not None:
        return f"{ended_by} ended the game of {game.title} early."
    if state.outcome is not None:
        return f"Game over: {state.outcome.summary}"
    return f"The game of {game.title} is over."


def final_card(
    game: GameLike,
    record: GameRecord,
    state: GameState,
    now: float,
    ended_by: str | None = None,
) -> ui.Message:
    """The card of a game that is over: played out, or ended early by ``ended_by``."""
    standings = game.standings(state)
    lines = [f"{markup.BOLD}{headline(game, state, ended_by)}{markup.BOLD}"]
    if ended_by is not None and standings:
        lines.append("Standing when it ended:")
    lines += [_standing(game, record, standing) for standing in standings]
    if not standings:
        lines += [_unranked(record.seats[seat]) for seat in range(len(record.seats))]
    told = [*game.recap(state)[:4], length(record, now)]
    lines += ["", *(line for line in told if line)]
    text = "\n".join(markup.clip(line, LINE_LIMIT) for line in lines)
    title = f"{game.title}: {'final standings' if ended_by is None else 'ended early'}"
    again = ui.Button(label="Rematch", style="primary", command="rematch")
    return ui.Message(title=title, text=text, buttons=[[again]])


def _standing(game: GameLike, record: GameRecord, standing: Standing) -> str:
    seat = record.seats[standing.seat] if standing.seat < len(record.seats) else None
    name = seat.name if seat is not None else standing.name
    who = f"{standing.rank}. {name}"
    if standing.rank == 1:
        who = f"{markup.BOLD}{who}{markup.BOLD}"
    parts = [who + (seat.bot_note if seat is not None else "")]
    parts += [part for part in (game.score_text(standing.score), standing.note) if part]
    if game.teams and seat is not None and seat.members:
        parts.append(_people(seat))
    return " · ".join(parts)


def _unranked(seat: SeatInfo) -> str:
    return f"{seat.name}{seat.bot_note}"


def _people(seat: SeatInfo) -> str:
    names = [member.name for member in seat.members]
    if len(names) > MEMBERS_SHOWN:
        shown = names[:MEMBERS_SHOWN]
        return ", ".join(shown) + f" and {len(names) - MEMBERS_SHOWN} more"
    return markup.join(names)


def length(record: GameRecord, now: float) -> str:
    """How long the game was played, from the deal (empty for a game stored before)."""
    if record.began_at is None:
        return ""
    minutes = round(max(0.0, now - record.began_at) / 60)
    if minutes < 1:
        return "Played in under a minute."
    hours, minutes = divmod(minutes, 60)
    parts = [markup.plural(hours, "hour")] if hours else []
    if minutes:
        parts.append(markup.plural(minutes, "minute"))
    return f"Played for {' '.join(parts)}."


def money_chart(
    game: GameLike,
    record: GameRecord,
    state: GameState,
    series: list[list[int]],
    rounds: list[int] | None = None,
) -> ui.Picture:
    """The end-of-game chart: every seat's money over the game (``series``, rebuilt from the
    log by :func:`bot.commands.game.actionlog.money_series`), seats out of the game greyed, the
    game's ``rounds`` marked on its x axis."""
    names = [seat.name for seat in record.seats]
    out = [game.seat_out(state, seat) for seat in range(len(names))]
    return picture.money_chart(
        f"{game.title}: money over the game",
        names,
        series,
        game.money_text,
        out,
        rounds or (),
        game.round_word,
    )


def chart_of(
    game_name: str, record_json: str, snapshot: str | None, lines: list[str]
) -> ui.Picture | None:
    """The final card's chart of the finished game ``record_json``: its money over the game,
    replayed from its log (its latest ``snapshot`` and the ``lines`` after it) and drawn; None
    for a game that keeps no ledger or a log without a game. A plain function of strings, so
    that the table may draw it in a process of its own: replaying and drawing hold the GIL for
    20-30 ms, which in the worker would stall every answer in flight."""
    game = get_game(game_name)
    if game is None:
        return None
    record = GameRecord.model_validate_json(record_json)
    history = History(snapshot=snapshot, lines=lines)
    found = money_and_rounds(game, record.seed, record.options, record.first_version, history)
    if found is None:
        return None
    chart = money_chart(game, record, running_state(record), *found)
    return chart.model_copy(update={"stem": "money"})


def with_chart(card: ui.Message, history: History) -> ui.Message:
    """The final card with the chart of the game's money as its picture
    (``money-<digest>.png``, with alt text), named by the log it is drawn from and drawn by the
    table (:func:`chart_of`) just before the card is shown: the table shows it as it shows a
    board's, on the card's edit in place (a Discord attachment, a Slack image block), so the
    one message the channel keeps carries it."""
    drawn_from = json.dumps([history.snapshot, history.lines]).encode()
    return card.model_copy(
        update={"picture_key": f"chart:{hashlib.sha256(drawn_from).hexdigest()[:16]}"}
    )
