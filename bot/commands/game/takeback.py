"""``undo``: a player asks to take back their last move, and everyone else answers on the board.

The rules of it (what may be taken back, who is asked, what ends a request) are in
:mod:`bot.commands.game.undo`; this module holds the steps. Asked alone with bots (nobody else
plays), the move is taken back at once. Accepted, the game is rebuilt from its log, which the
pipeline reads for these steps (:class:`~bot.commands.step.LoggedStep`).
"""

from __future__ import annotations

from bot.commands.game import moves, undo
from bot.commands.game.actionlog import undo_entry
from bot.commands.guards import require_playing
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord, UndoRequest
from bot.commands.seats import seating
from bot.commands.step import Change, Env, LoggedStep, Refusal, Request
from core import text as markup
from core.engine import GameLike, GameState
from storage import History

__all__ = ["NO_REQUEST", "undo_step"]

NO_REQUEST = "No request to take back a move is open now."
_ANSWERS = {"yes": True, "approve": True, "no": False, "refuse": False}


def undo_step(env: Env, req: Request, game: GameLike, rest: str) -> LoggedStep:
    """``undo``: ask to take back one's last move; ``undo yes`` / ``undo no``: answer another
    person's request (the board's Approve and Refuse)."""
    word = rest.strip().lower()
    answer = _ANSWERS.get(word)

    def step(record: GameRecord | None, out: Outbox, history: History | None) -> Change | None:
        record, state, seat = require_playing(record, game, req)
        if word and answer is None:
            raise Refusal(
                f"`/{game.name} undo` asks to take back your last move; `undo yes` or "
                "`undo no` answers someone else's request."
            )
        if record.paused is not None:
            raise Refusal(moves.paused_sentence(game, record))
        if answer is None:
            return _ask(env, game, record, state, seat, req, out, history)
        return _answer(env, game, record, state, req, answer, out, history)

    return LoggedStep(run=step)


def _ask(
    env: Env,
    game: GameLike,
    record: GameRecord,
    state: GameState,
    seat: int,
    req: Request,
    out: Outbox,
    history: History | None,
) -> Change:
    request = record.undo_request
    if request is not None:
        if request.user == req.user:
            raise Refusal("You have asked already; the others answer on the board.")
        raise Refusal(
            f"{request.name} has asked to take back a move; answer that first (Approve or "
            "Refuse on the board)."
        )
    points = record.undo_points
    mine = [i for i, point in enumerate(points) if point.seat == seat]
    if not mine or points[-1].after != state.version:
        raise Refusal(undo.NOTHING_TO_TAKE_BACK)
    taken = points[mine[-1] :]
    request = UndoRequest(
        seat=seat,
        user=req.user,
        name=req.name,
        to=taken[0].before,
        at=state.version,
        asked=[user for user in record.humans if user != req.user],
        moves=len(taken),
        told=[line for point in taken for line in point.told],
    )
    if not request.asked:  # nobody else plays (the host with bots): taken back at once
        return _take_back(env, game, record, state, request, out, history)
    record.undo_request = request
    seating.redraw(game, record, state, out)
    out.reply(req.user, "You asked to take back your last move; the others answer on the board.")
    return Change(record=record)


def _answer(
    env: Env,
    game: GameLike,
    record: GameRecord,
    state: GameState,
    req: Request,
    yes: bool,
    out: Outbox,
    history: History | None,
) -> Change:
    request = record.undo_request
    if request is None or request.at != state.version:
        raise Refusal(NO_REQUEST)
    if req.user == request.user:
        raise Refusal("That is your own request: the others answer it.")
    if req.user not in request.asked:
        raise Refusal("That request is for the people who were playing when it was made.")
    if not yes:
        record.undo_request = None
        whose = markup.possessive(request.name)
        out.say(f"{req.name} refused {whose} request to take back a move.")
        seating.redraw(game, record, state, out)
        out.reply(request.user, f"{req.name} refused your request to take back your move.")
        return Change(record=record)
    if req.user not in request.approved:
        request.approved.append(req.user)
    # (Someone asked who has left the game since is no longer waited for.)
    if set(request.asked) & set(record.humans) - set(request.approved):
        seating.redraw(game, record, state, out)  # the board says who approved
        out.reply(req.user, "You approved; the others are still answering.")
        return Change(record=record)
    return _take_back(env, game, record, state, request, out, history)


def _take_back(
    env: Env,
    game: GameLike,
    record: GameRecord,
    state: GameState,
    request: UndoRequest,
    out: Outbox,
    history: History | None,
) -> Change:
    earlier = None
    if history is not None:
        earlier = undo.rebuild(game, record, history, request.to, state)
    if earlier is None:
        raise Refusal(
            "I could not rebuild the game from its log as it was before that move, so nothing "
            "was taken back."
        )
    back = game.reopen(earlier, state.version + 1)
    record.undo_points = [p for p in record.undo_points if p.after <= request.to]
    record.undo_request = None
    what = (
        "their last move"
        if request.moves == 1
        else f"their last move and the {request.moves - 1} after it"
    )
    out.say(f"{request.name} took back {what}: the game is as it was before.")
    moves.restore(env, game, record, back, out)
    return Change(record=record, log=[undo_entry(request.user, request.to)])
