"""``pause`` and ``resume``: a game's clocks stand still while its people are away.

The host pauses at once; anyone else seated asks, and the game pauses once every seated person
has typed ``pause``. While paused the record keeps what each clock had left
(:class:`~bot.commands.record.Paused`) and holds no due time (nothing fires), every move is
refused with a sentence, the board says who paused it and when the paused game will be deleted
(``BOARDROOM_PAUSED_TTL_DAYS`` after the pause: :func:`bot.commands.pipeline.kept_for` keeps
it that long), and ``resume`` (the host or anyone seated) arms each clock again with the time
it had left.
"""

from __future__ import annotations

from bot.commands.game import undo
from bot.commands.guards import require_game, running_state
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord, Paused
from bot.commands.seats import seating
from bot.commands.step import Change, Env, Refusal, Request, Step
from core import text as markup
from core.engine import GameLike

__all__ = ["DAY_S", "pause_step", "resume_step"]

DAY_S = 86_400


def _left(due: float | None, now: float) -> float | None:
    return None if due is None else max(0.0, due - now)


def _again(left: float | None, now: float) -> float | None:
    return None if left is None else now + left


def pause_step(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """``pause``: the host pauses the game; a seated player asks for it, and it pauses once
    everyone seated has."""

    def step(record: GameRecord | None, out: Outbox) -> Change:
        record = require_game(record, game)
        if record.status != "playing":
            raise Refusal("Only a game being played can be paused.")
        if record.paused is not None:
            raise Refusal(f"The game is paused already (by {record.paused.name}).")
        host = req.user == record.host
        seated = record.seat_of(req.user) is not None
        if not host and not seated:
            raise Refusal(f"Only the host ({record.host_name}) or a player can pause the game.")
        state = running_state(record)
        now = env.clock()
        everyone = set(record.humans)
        asked = sorted({*record.pause_votes, req.user} & everyone)
        if not host and set(asked) != everyone:
            record.pause_votes = asked
            waiting = markup.join(
                sorted(s.name for s in record.seats if set(s.users) - set(asked) and s.users)
            )
            out.say(f"{req.name} asks to pause the game; it pauses once {waiting} ask too.")
            out.reply(req.user, "You asked to pause; the game pauses once everyone seated has.")
            seating.redraw(game, record, state, out)
            return Change(record=record)
        record.pause_votes = []
        record.paused = Paused(
            user=req.user,
            name=req.name,
            at=now,
            deadline_left=_left(record.deadline_due, now),
            clock_left=_left(record.clock_due, now),
            nudge_left=_left(record.nudge_due, now),
            warn_left=_left(record.warn_due, now),
            until=now + env.settings.paused_ttl_days * DAY_S,
        )
        record.deadline_due = record.clock_due = record.nudge_due = record.warn_due = None
        undo.lapse(record, out, "the game was paused")
        out.say(f"{req.name} paused the game: its deadlines stand still until it is resumed.")
        seating.redraw(game, record, state, out)
        return Change(record=record)

    return step


def resume_step(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """``resume``: the host or anyone seated goes on with a paused game; each of its clocks
    gets the time it had left."""

    def step(record: GameRecord | None, out: Outbox) -> Change:
        record = require_game(record, game)
        paused = record.paused
        if record.status != "playing" or paused is None:
            raise Refusal("The game is not paused.")
        if req.user != record.host and record.seat_of(req.user) is None:
            raise Refusal(f"Only the host ({record.host_name}) or a player can resume the game.")
        now = env.clock()
        record.paused = None
        record.deadline_due = _again(paused.deadline_left, now)
        record.clock_due = _again(paused.clock_left, now)
        record.nudge_due = _again(paused.nudge_left, now)
        record.warn_due = _again(paused.warn_left, now)
        out.say(f"{req.name} resumed the game: each deadline has the time it had left.")
        state = running_state(record)
        seating.redraw(game, record, state, out)
        for seat in game.waiting_for(state):
            for user in record.seats[seat].users:
                panel = game.render_private(state, seat)
                if not game.choices_on_board:
                    out.panels[user] = panel.model_copy(update={"deadline": record.deadline_due})
        return Change(record=record)

    return step
