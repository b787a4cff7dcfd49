"""Commands that change nothing: ``help``, ``rules``, ``status`` and ``hand``.

They run through the pipeline all the same, so a platform's retry is answered once.
"""

from __future__ import annotations

import re

from bot.commands.game.moves import summary_card
from bot.commands.game.play import load_state
from bot.commands.grammar import usage
from bot.commands.guards import game_of, require_game, require_seat
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.commands.seats import seating, standin
from bot.commands.seats.lobby import lobby_message
from bot.commands.step import Change, Env, Refusal, Request, Step
from core import text as markup
from core import ui
from core.engine import GameLike

__all__ = ["LEAD_LIMIT", "hand", "help_page", "rules", "rules_file", "status", "whole_page"]

LEAD_LIMIT = 600
"""Characters of the page's opening paragraph that head ``rules all``."""


def help_page(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """Every command of ``game``, with its typed moves."""

    def step(record: GameRecord | None, out: Outbox) -> None:
        text = usage(game)
        if game.teams and record is not None and record.game == game.name:
            playing = _playing(record)
            if playing:
                text += (
                    f"\nTeams playing now: {playing}. `/{game.name} join <team>` asks one of "
                    "them to let you in."
                )
        for page in markup.pages(text):  # every team's name may make it long
            out.reply(req.user, page)

    return step


def rules(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """The rules page's overview, or its topic ``rest``, in messages that fit; ``all`` is one
    answer carrying the whole page as a file."""

    def step(record: GameRecord | None, out: Outbox) -> None:
        if rest.strip().lower() == "all":
            out.reply(req.user, whole_page(game))
            return
        found = markup.pages(game.rules(rest or None))
        for number, page in enumerate(found, 1):
            # A long section comes in parts, each numbered, the topics said at the end.
            head = f"({number}/{len(found)}) " if len(found) > 1 else ""
            out.reply(req.user, head + page)
        if len(found) > 1 and game.rule_topics() and rest.strip():
            # (the overview, without a topic, already ends with them)
            topics = ", ".join(game.rule_topics())
            out.reply(req.user, f"Topics: {topics} (`/{game.name} rules <topic>`).")

    return step


def rules_file(game: GameLike) -> str:
    """The name the whole rules page of ``game`` is sent as."""
    return f"{game.name}-rules.md"


def whole_page(game: GameLike) -> ui.Message:
    """``rules all``: what the game is, its topics, and the page itself as a Markdown file.

    The page is far longer than a chat message (tens of kilobytes): as a file it is one
    answer that the reader can keep, search and open in any viewer, instead of a stream of
    numbered private messages."""
    page = game.rules("all")
    name = rules_file(game)
    parts = [f"**{game.title}: the rules**", markup.clip(_lead(page), LEAD_LIMIT)]
    topics = game.rule_topics()
    if topics:
        parts.append(f"Topics: {', '.join(topics)} (`/{game.name} rules <topic>` shows one).")
    parts.append(f"The whole page is attached: {name}.")
    attached = ui.File(
        name=name,
        data=page.encode("utf-8"),
        mime="text/markdown; charset=utf-8",
        alt=f"The whole rules page of {markup.plain(game.title)}, as Markdown text.",
    )
    return ui.Message(text="\n\n".join(p for p in parts if p), files=[attached])


def _lead(page: str) -> str:
    """The page's first paragraph that is not a heading, its lines joined."""
    for block in re.split(r"\n\s*\n", page.strip()):
        if block.strip() and not block.lstrip().startswith("#"):
            return " ".join(line.strip() for line in block.splitlines())
    return ""


def status(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """The lobby or the board, privately (a running game's public board is redrawn as it is);
    a finished game's last board says it is over."""

    def step(record: GameRecord | None, out: Outbox) -> None:
        record = require_game(record, game, allow_finished=True)
        if record.state_json is None and record.status == "finished":
            # A lobby the host ended before the game began: nothing to join any more.
            out.reply(
                req.user,
                f"The lobby of {game.title} here was ended before the game began; "
                f"`/{game.name} start` opens a new one.",
            )
            return
        if record.state_json is None:
            out.reply(req.user, lobby_message(game, record))
            return
        running = game_of(record)
        state = load_state(running, record.state_json)
        # A private copy to read; its choices stay on the public board, which is brought up
        # to date too (posted anew if someone deleted it).
        board = running.render_board(state).model_copy(update={"buttons": [], "selects": []})
        if record.status != "finished":
            seating.redraw(running, record, state, out)
        if record.status == "finished":
            # Over (by play, or ended by the host): say so above the last board.
            ended = (
                f"This game of {running.title} is over; `/{game.name} start` opens a new one, "
                "Rematch one with the same people."
            )
            again = [[ui.Button(label="Rematch", style="primary", command="rematch")]]
            text = f"{ended}\n\n{board.text}".strip()
            board = board.model_copy(update={"text": text, "buttons": again})
        playing = _playing(record) if running.teams else ""
        if playing:
            board = board.model_copy(update={"text": f"{board.text}\n\nTeams playing: {playing}."})
        out.reply(req.user, board)

    return step


def _playing(record: GameRecord) -> str:
    """The teams still in a game being played, with their people (empty otherwise)."""
    if record.status != "playing" or record.state_json is None:
        return ""
    running = game_of(record)
    return seating.playing_list(running, record, load_state(running, record.state_json), True)


def hand(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """The requester's private panel."""

    def step(record: GameRecord | None, out: Outbox) -> Change | None:
        record = require_game(record, game)
        asked = record.request_of(req.user) if record.seat_of(req.user) is None else None
        if asked is not None:
            raise Refusal(
                f"Your request to join {record.seats[asked.seat].name} is waiting for a yes from "
                "one of its members; you see its hand once they let you in."
            )
        seat = require_seat(record, req)
        if record.state_json is None:
            raise Refusal("The cards are dealt when the host begins the game.")
        running = game_of(record)
        state = load_state(running, record.state_json)
        back = standin.come_back(running, record, req.user, out)
        if back:
            out.card = summary_card(running, record)
            seating.redraw(running, record, state, out)  # the news at the board's foot, now
        out.reply(req.user, running.render_private(state, seat))
        for note in seating.open_requests(running, record, req.user):
            out.reply(req.user, note)  # requests they may answer, again (a DM may be closed)
        return Change(record=record) if back else None  # (their seat back: saved)

    return step
