"""Moves in a game being played: typed moves, presses and timeouts, and what they show.

Each maker turns a move into a :data:`~bot.commands.step.Step`; :func:`commit` stores the new
state in the record, sets its deadline and fills the Outbox (the lobby's ``begin`` and a seat
handed to a bot use it too).
"""

from __future__ import annotations

from pydantic import BaseModel

from bot.commands import codec
from bot.commands.community import finalcard
from bot.commands.game import undo
from bot.commands.game.play import Advance, advance, load_state, publish, run_bots
from bot.commands.grammar import options_line
from bot.commands.guards import game_of, require_playing
from bot.commands.outbox import GAME_OVER, Outbox
from bot.commands.record import GameRecord
from bot.commands.seats import seating, standin
from bot.commands.step import Change, Env, Refusal, Request, Reschedule, Step
from core import text as markup
from core import ui
from core.commands import Command
from core.engine import SYSTEM, GameLike, GameState, IllegalAction, Timeout

__all__ = [
    "STALE",
    "commit",
    "final",
    "play",
    "press_step",
    "repair",
    "summary_card",
    "text_action",
    "timeout_step",
]

STALE = "That button is from an earlier moment of the game, so I ignored it."


def text_action(env: Env, req: Request, game: GameLike, command: Command, rest: str) -> Step:
    """A typed move: ``/<game> <word> <rest>``, read as ``command`` declares it."""

    def step(record: GameRecord | None, out: Outbox) -> Change:
        record, state, seat = require_playing(record, game, req)
        if standin.come_back(game, record, req.user, out):
            out.card = summary_card(game, record)
        needs_more = Refusal(f"`/{game.name} {command.word}` needs more: {command.line}.")
        if command.needs_argument and not rest.strip():
            raise needs_more
        action = game.parse_text(state, seat, command.word, rest)
        if action is None:
            raise needs_more
        return play(env, record, state, seat, action, req.user, out, typed=True)

    return step


def press_step(env: Env, req: Request, game: GameLike, press: codec.Press) -> Step:
    """A pressed button or chosen menu of a game; one from an earlier moment is stale."""

    def step(record: GameRecord | None, out: Outbox) -> Change | None:
        record, state, seat = require_playing(record, game, req)
        back = standin.come_back(game, record, req.user, out)
        if back:
            out.card = summary_card(game, record)
            seating.redraw(game, record, state, out)  # the news at the board's foot, now
        if press.seat is not None and press.seat != seat:
            owner = record.seats[press.seat].name if press.seat < len(record.seats) else "?"
            if game.choices_on_board:
                raise Refusal(
                    f"That is {markup.possessive(owner)} move: only they can press those buttons."
                )
            whose = f"the team {owner}" if game.teams else f"{markup.possessive(owner)} hand"
            mine = "your team's" if game.teams else "your own"
            raise Refusal(
                f"That button belongs to {whose}; only its members can use it. "
                f"`/{game.name} hand` shows {mine} choices."
            )
        version = press.version if press.version is not None else -1
        if not _current(game, state, press) <= version <= state.version:
            # Answered privately, and the pressed message is brought up to date with the
            # answer (the table's), so that it cannot be pressed stale again.
            out.stale_press = True
            if game.choices_on_board:
                out.reply(req.user, STALE + " The board shows the choices now.")
            else:
                out.heal = game.render_private(state, seat)
                out.reply(req.user, STALE + " The message you pressed shows your choices now.")
            return Change(record=record) if back else None  # (their seat back: saved)
        action = game.parse_action(press.resolved_action() or {})
        try:
            return play(env, record, state, seat, action, req.user, out)
        except IllegalAction as refused:
            if game.choices_on_board:
                raise
            # Pressed on a private message (a DM panel): it shows the panel as it is, the
            # sentence at its head, rather than the panel and an answer beside it.
            panel = game.render_private(state, seat)
            said = str(refused)
            shown = panel.model_copy(update={"text": f"{said}\n\n{panel.text}".strip()})
            raise Refusal(said, in_place=True, shown=shown) from refused

    return step


def _current(game: GameLike, state: GameState, press: codec.Press) -> int:
    """The oldest version at which a press still stands: the current decision's, or the open
    prompt's for a button the prompt shows (a vote runs beside the turns)."""
    floor = state.decision_version
    prompt = game.render_prompt(state) if press.seat is None and press.action else None
    if prompt is None:
        return floor
    try:
        pressed = game.parse_action(press.resolved_action())
        shown = [game.parse_action(b.action) for b in prompt.all_buttons() if b.action]
    except IllegalAction:
        return floor
    return min(floor, game.prompt_version(state)) if pressed in shown else floor


def timeout_step(env: Env, now: float) -> Step:
    """The game's deadline has passed (by ``now``): apply its Timeout. Claimed with nothing to
    fire (early, or again once the lease after a Timeout's save ran out): the game as it is now,
    for a table its delivery may never have reached (:func:`repair`)."""

    def step(record: GameRecord | None, out: Outbox) -> Change | None:
        due = None
        if record is not None and record.status == "playing" and record.state_json is not None:
            due = record.next_due
        if due is None or due > now:
            repair(env, record, out)  # nothing to fire
            if due is not None:
                raise Reschedule(due)
            return None
        assert record is not None and record.state_json is not None  # (a due time says so)
        game = game_of(record)
        state = load_state(game, record.state_json)
        if record.bot_due is not None and record.bot_due <= now:
            return _bots_move(env, record, state, out)
        if record.clock_due is not None and record.clock_due <= now and state.clock is not None:
            return play(env, record, state, SYSTEM, Timeout(key=state.clock.key), None, out)
        deadline, due_at = state.deadline, record.deadline_due
        if deadline is not None and due_at is not None and due_at <= now:
            if standin.missed(game, record, state, out):  # (whom the decision waited for)
                out.card = summary_card(game, record)
            return play(env, record, state, SYSTEM, Timeout(key=deadline.key), None, out)
        if record.warn_due is not None and record.warn_due <= now:
            return _last_hour(game, record, state, out)
        if record.nudge_due is not None and record.nudge_due <= now:
            return _nudge(game, record, state, out)
        return None

    return step


def repair(env: Env, record: GameRecord | None, out: Outbox) -> None:
    """The game as it is now, in ``out`` (``Outbox.repair``): its board and prompt, every
    player's panel, and for a game played out its final card and result. A deadline claimed
    again with nothing to fire brings it: the save before (a Timeout, or the game's end) may be
    one whose worker died before delivering it, and nothing else would show it until the next
    move or deadline (never, for the end). The news of the lost delivery (its log lines, a
    panel's private lines, the final card's money chart, drawn from the log the saving worker
    read) is not told again; the table applies this only where it is behind. A game ended
    early by its host is left alone (its end is the host's command, not a save a deadline
    follows)."""
    if record is None or record.state_json is None or record.status == "lobby":
        return
    game = game_of(record)
    state = load_state(game, record.state_json)
    if record.status == "finished" and not state.finished:
        return
    seating.redraw(game, record, state, out)  # the board, the prompt and the version
    due = record.deadline_due
    waiting = set(game.waiting_for(state))
    if not game.choices_on_board:
        for seat, info in enumerate(record.seats):
            for user in info.users:
                if state.finished:
                    out.panels[user] = ui.Message(text=GAME_OVER)
                    continue
                panel = game.render_private(state, seat)
                out.panels[user] = panel.model_copy(
                    update={"deadline": due if seat in waiting else None}
                )
    out.repair = True
    if state.finished:
        out.ended = True
        final(env, game, record, state, out)


LONG_S = 86_400
"""A deadline this long or longer (a turn of days) is told privately, and again an hour before
it passes."""
LAST_HOUR_S = 3_600


def long_deadline(
    game: GameLike, record: GameRecord, state: GameState, requester: str | None, out: Outbox
) -> None:
    """A decision of a day or more just opened (its deadline armed in ``record``): the people
    it waits for (but the one who just acted) hear it privately (a DM; Slack's App Home shows
    it too), with when it ends in their own time, and are told again an hour before it ends
    (:attr:`GameRecord.warn_due`)."""
    record.warn_due = None
    deadline, due = state.deadline, record.deadline_due
    if deadline is None or due is None or deadline.seconds < LONG_S or state.finished:
        return
    record.warn_due = due - LAST_HOUR_S
    text = (
        f"{game.title} waits for your move. You have a long while, but not for ever: the "
        "board has your choices."
    )
    _tell_waiting(game, record, state, requester, out, text, f"deadline:{deadline.key}", due)


def _tell_waiting(
    game: GameLike,
    record: GameRecord,
    state: GameState,
    requester: str | None,
    out: Outbox,
    text: str,
    note: str,
    due: float,
) -> None:
    message = ui.Message(title=f"{game.title}: your move", text=text, deadline=due)
    for seat in game.waiting_for(state):
        for user in record.seats[seat].users:
            if user != requester:
                out.reply(user, message, note=note)


def _last_hour(game: GameLike, record: GameRecord, state: GameState, out: Outbox) -> Change:
    """An hour is left of a long deadline: whoever it still waits for hears it privately."""
    record.warn_due = None
    due, deadline = record.deadline_due, state.deadline
    if due is not None and deadline is not None and not state.finished:
        text = f"One hour is left for your move in {game.title}; then the game moves on without it."
        _tell_waiting(game, record, state, None, out, text, f"last-hour:{deadline.key}", due)
    return Change(record=record)


def _bots_move(env: Env, record: GameRecord, state: GameState, out: Outbox) -> Change:
    """The strong bots' moves a person's step left to the deadline loop (their searches in the
    worker's process pool), and any bot moves they set off."""
    game = game_of(record)
    result = Advance(state=state)
    run_bots(game, record.seed, record.bots, result)
    standin.note_played(game, record, result)
    commit(env, game, record, state, result, None, out)
    return Change(record=record, log=result.log)


def _nudge(game: GameLike, record: GameRecord, state: GameState, out: Outbox) -> Change:
    """The turn has waited :attr:`~bot.settings.Settings.nudge_seconds` for its player: the
    board moves to the bottom with a mention of them (the turn notice)."""
    waiting = {u for seat in game.waiting_for(state) for u in record.seats[seat].users}
    users = [u for u in record.nudge if u in waiting]  # (not someone who left meanwhile)
    current = record.nudge_version == state.decision_version
    record.nudge_due, record.nudge = None, []
    if users and current and not state.finished:
        seating.redraw(game, record, state, out)  # the prompt as it is, too: it stays open
        out.notify = users
    return Change(record=record)


def play(
    env: Env,
    record: GameRecord,
    state: GameState,
    seat: int,
    action: BaseModel,
    requester: str | None,
    out: Outbox,
    typed: bool = False,
) -> Change:
    """Apply ``action`` for ``seat`` and the bot moves it sets off (``typed``: a typed move,
    whose answer may tell the requester what the game then did for them; a press is answered
    by the message it updates)."""
    game = game_of(record)
    if record.paused is not None:
        raise Refusal(paused_sentence(game, record))
    if requester is not None:
        standin.acted(record, seat)
    result = advance(game, state, record.seed, record.bots, seat, action)
    standin.note_played(game, record, result)
    note = None
    if game.teams and requester is not None:
        # Any member may act for the team; the others hear privately what was done.
        names = [m.name for m in record.seats[seat].members if m.user == requester]
        did = game.describe_action(state, action)
        note = (seat, f"{names[0] if names else 'A teammate'} played for your team: {did}.")
    kept = list(record.undo_points)
    commit(env, game, record, state, result, requester, out, note, typed)
    record.undo_points = kept
    person = seat if requester is not None and seat >= 0 else None
    undo.track(record, person, requester, state.version, result)
    _offer_take_back(record, requester, out)
    return Change(record=record, log=result.log)


TAKE_BACK = ui.Button(label="Take back", command="undo")
"""The button on a player's panel that asks to take their move back (``undo``)."""


def _offer_take_back(record: GameRecord, requester: str | None, out: Outbox) -> None:
    """The requester's panel, drawn by this move, offers to take the move back while it may
    be (the typed ``undo`` does the same)."""
    points = record.undo_points
    if requester is None or not points or points[-1].user != requester:
        return
    panel = out.panels.get(requester)
    if panel is not None:
        out.panels[requester] = ui.with_buttons(panel, [TAKE_BACK])


def made_for_you(labels: list[str]) -> str:
    """What a player is told when the game made their only move for them right after their
    own (Busine$$ GO's roll after a set-up), so that they do not try to make it again."""
    moves = markup.join([f"“{label}”" for label in labels])
    return (
        f"Then you had only one move, so the game made it for you: {moves}. The log says what "
        f"came of {'it' if len(labels) == 1 else 'them'}."
    )


def _tell_made_for(
    record: GameRecord, result: Advance, requester: str | None, out: Outbox, typed: bool
) -> None:
    """Tell the requester of a typed move what the game then did for their seat by itself, in
    the answer to it. A press is answered by the message it updates, whose log says it; other
    players read it in the log too (a direct message for each such move would cost Busine$$
    GO, which sends none, several a game)."""
    if requester is None or not typed:
        return
    seat = record.seat_of(requester)
    labels = [label for made, label in result.made_for if made == seat]
    if labels:
        out.reply(requester, made_for_you(labels))


def commit(
    env: Env,
    game: GameLike,
    record: GameRecord,
    before: GameState | None,
    result: Advance,
    requester: str | None,
    out: Outbox,
    note: tuple[int, str] | None = None,
    typed: bool = False,
) -> None:
    """Store the new state in the record, set its deadline and fill the Outbox.

    The people of a seat the action has absorbed (an acquired team) move to its new seat first
    (:func:`bot.commands.seats.seating.absorb`), so the Outbox draws them their new panel."""
    after = result.state
    undo.lapse(record, out)
    record.undo_points = []  # (a person's move that may be taken back is kept again by play)
    _tell_made_for(record, result, requester, out, typed)
    moved = seating.absorb(game, record, before, after, out, result.log)
    members = [s.users for s in record.seats]
    out.version = after.version
    record.state_json = after.model_dump_json()
    record.bot_due = env.clock() if result.bot_waiting and not after.finished else None
    if after.finished:
        record.status = "finished"
        record.deadline_due = None
    elif after.deadline is None:
        record.deadline_due = None
    elif before is None or before.deadline is None or before.deadline.key != after.deadline.key:
        record.deadline_due = env.clock() + after.deadline.seconds
        long_deadline(game, record, after, requester, out)
    if after.finished or after.deadline is None:
        record.warn_due = None
    if after.finished or after.clock is None:
        record.clock_due = None
    elif record.clock_due is None:
        record.clock_due = env.clock() + after.clock.seconds  # armed once, when it appears
    due = record.deadline_due
    picture = seating.board_picture(record, out)
    was = game.at(before) if before is not None else None
    publish(was, game.at(after), result.moves, members, requester, out, note, due, picture)
    _arm_nudge(env, record, after, requester, out)
    seating.show_moved(game, record, after, moved, out)
    if after.finished:
        out.ended = True
        final(env, game, record, after, out)


def restore(env: Env, game: GameLike, record: GameRecord, back: GameState, out: Outbox) -> None:
    """The game taken back to ``back`` (a state it had, as a new version: :mod:`undo`): stored,
    its decision's deadline armed again, and every surface drawn once: the board, the prompt
    and every seat's panel (what a move taken back showed privately is gone with it)."""
    record.state_json = back.model_dump_json()
    record.deadline_due = env.clock() + back.deadline.seconds if back.deadline is not None else None
    record.nudge_due, record.nudge = None, []
    long_deadline(game, record, back, None, out)
    seating.redraw(game, record, back, out)
    due = record.deadline_due
    waiting = set(game.waiting_for(back))
    if not game.choices_on_board:
        for seat, info in enumerate(record.seats):
            panel = game.render_private(back, seat)
            for user in info.users:
                out.panels[user] = panel.model_copy(
                    update={"deadline": due if seat in waiting else None}
                )
    out.waiting = [u for seat in sorted(waiting) for u in record.seats[seat].users]
    out.homes = sorted({*out.homes, *record.humans})


def paused_sentence(game: GameLike, record: GameRecord) -> str:
    """Why nothing can be played in a paused game, and how it goes on."""
    paused = record.paused
    who = paused.name if paused is not None else "someone"
    return (
        f"The game is paused (by {who}): no move can be made until it is resumed with "
        f"`/{game.name} resume`."
    )


def _arm_nudge(
    env: Env, record: GameRecord, after: GameState, requester: str | None, out: Outbox
) -> None:
    """A turn's notice waits ``nudge_seconds`` (at most half its deadline) for its player, so
    that someone who is playing along is not pinged every turn; an action by one of them, or a
    new decision, calls it off."""
    pending = record.nudge_due is not None
    if pending and (requester in record.nudge or after.decision_version != record.nudge_version):
        record.nudge_due, record.nudge = None, []
    if after.finished:
        record.nudge_due, record.nudge = None, []
        return
    if not out.notify:
        return
    wait = env.settings.nudge_seconds
    if record.deadline_due is not None:
        wait = min(wait, max(0.0, (record.deadline_due - env.clock()) / 2))
    if wait <= 0:
        return  # told now, with this delivery
    record.nudge, record.nudge_version = list(out.notify), after.decision_version
    record.nudge_due = env.clock() + wait
    out.notify = []


def summary_card(game: GameLike, record: GameRecord) -> ui.Message:
    """The card while a game is played: who plays, with what options, where."""
    names = ", ".join(s.name + s.bot_note for s in record.seats)
    settings = options_line(game, record.options, record.thread, record.pictures)
    where = (
        f"Every choice is a button on the board; `/{game.name} hand` shows your holdings."
        if game.choices_on_board
        else f"`/{game.name} status` shows the board, `/{game.name} hand` your hand."
    )
    text = (
        f"{'Teams' if game.teams else 'Players'}: {names}.\nOptions: {settings}.\n"
        f"Host: {record.host_name}. {where}"
    )
    return ui.Message(title=f"{game.title}: playing", text=text)


def final(
    env: Env,
    game: GameLike,
    record: GameRecord,
    state: GameState,
    out: Outbox,
    ended_by: str | None = None,
) -> None:
    """The card shows the final standings (:mod:`bot.commands.community.finalcard`); the result
    goes to the channel."""
    out.card = finalcard.final_card(game, record, state, env.clock(), ended_by)
    out.result = ui.Message(text=finalcard.headline(game, state, ended_by))
