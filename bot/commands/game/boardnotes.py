"""What the board says of the table besides the game: an open request to take a move back
(:mod:`bot.commands.game.takeback`, with its Approve and Refuse buttons) and a pause
(:mod:`bot.commands.game.pause`, with its Resume button). Every path that draws the board from a
record (:func:`bot.commands.seats.seating.redraw`) adds them."""

from __future__ import annotations

import time

from bot.commands.game.undo import asking
from bot.commands.record import GameRecord
from core import text as markup
from core import ui

__all__ = ["board_line", "with_notes", "with_pause", "with_request"]


def with_notes(board: ui.Message | None, record: GameRecord) -> ui.Message | None:
    """The board with the request and the pause the record holds."""
    return with_pause(with_request(board, record), record)


def with_request(board: ui.Message | None, record: GameRecord) -> ui.Message | None:
    """The board with the open request to take back a move (its line and the Approve and
    Refuse buttons), or as it is."""
    request = record.undo_request
    if board is None or request is None:
        return board
    row = [
        ui.Button(label="Approve", style="success", command="undo yes"),
        ui.Button(label="Refuse", style="danger", command="undo no"),
    ]
    game = record.game
    names = {m.user: m.name for seat in record.seats for m in seat.members}
    approved = [names.get(user, "someone") for user in request.approved]
    said = asking(request.name, request.moves, request.told)
    said += f" (or type `/{game} undo yes` or `/{game} undo no`)"
    if approved:
        said += f"\nApproved by {markup.join(approved)}."
    text = markup.clip(f"{said}\n\n{board.text}".strip(), ui.MAX_BOARD)
    return ui.with_buttons(board.model_copy(update={"text": text}), row)


def board_line(record: GameRecord) -> str | None:
    """What the board says of a pause (or of a pause being asked for), or None."""
    paused = record.paused
    if paused is None:
        if record.pause_votes:
            names = {m.user: m.name for seat in record.seats for m in seat.members}
            asked = markup.join([names.get(user, "someone") for user in record.pause_votes])
            return (
                f"⏸ {asked} asked to pause the game: it pauses once everyone seated has "
                "(Pause too, or `pause`)."
            )
        return None
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(paused.until))
    return (
        f"⏸ **Paused by {paused.name}.** No move counts until someone resumes it. A paused game "
        f"is kept until {when}, then deleted."
    )


def with_pause(board: ui.Message | None, record: GameRecord) -> ui.Message | None:
    """The board with what :func:`board_line` says, and a Resume button while paused."""
    line = board_line(record)
    if board is None or line is None:
        return board
    update: dict[str, object] = {"text": markup.clip(f"{line}\n\n{board.text}", ui.MAX_BOARD)}
    if record.paused is None:  # asked for: everyone seated answers by asking too
        agree = ui.Button(label="Pause too", command="pause")
        return ui.with_buttons(board.model_copy(update=update), [agree])
    update["deadline"] = None
    resume = ui.Button(label="Resume", style="primary", command="resume")
    return ui.with_buttons(board.model_copy(update=update), [resume])
