"""Applying a game action to a record: the rules, the bot seats, the deadline and the Outbox.

Everything here is pure (no storage, no clock of its own): the authority loads, calls
:func:`advance`, and saves with compare-and-set.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ValidationError

from bot.commands.damaged import DamagedRecord, reason
from bot.commands.game.actionlog import Entry, action_rng, encode_action
from bot.commands.outbox import GAME_OVER, Outbox
from core import bots as levels
from core import picture, ui
from core.engine import Event, Face, GameLike, GameOptions, GameState, IllegalAction, Seat, View
from core.registry import all_games, get_game

__all__ = [
    "MAX_BOT_STEPS",
    "Advance",
    "action_rng",
    "advance",
    "draw_picture",
    "load_state",
    "publish",
    "run_bots",
    "show_board",
    "start_state",
    "warm_pictures",
]

log = logging.getLogger(__name__)

MAX_BOT_STEPS = 10_000
"""A safety bound on bot moves applied after one command (a whole bot-only game fits)."""


Bots = Sequence[bool | str | None]
"""Each seat's bot, in seat order: None (or False) for people, a bot's level (``strong``), or
True for a bot of the normal level (as records kept before levels say)."""


def _bot_rng(seed: int, seat: Seat, version: int) -> random.Random:
    return random.Random(f"{seed}:bot:{seat}:{version}")


@dataclass
class Advance:
    """The result of applying one command's action and the bot moves it set off."""

    state: GameState
    log: list[Entry] = field(default_factory=list)
    moves: list[list[Event]] = field(default_factory=list)
    """The events of each applied action, in order: the command's own action first (if any)."""
    bot_moves: list[tuple[Seat, GameState, BaseModel]] = field(default_factory=list)
    """Each bot move: its seat, the state it was made in and the action (a stand-in's people
    are told what was played for them, :mod:`bot.commands.seats.standin`)."""
    thought: levels.Thought = field(default_factory=levels.Thought)
    bot_waiting: bool = False
    """The bots stopped at a strong bot's move, which a person's step does not wait for: the
    deadline loop has it made (``GameRecord.bot_due``)."""
    """What the strong bots' searches of this step cost (``boardroom simulate`` reports it)."""
    made_for: list[tuple[Seat, str]] = field(default_factory=list)
    """Moves the game made by itself for a seat of people (its only move, ``automatic``), as
    the game labels them ("Roll the dice"): their people are told."""
    undoable: bool = True
    """Whether every action applied may be taken back (:attr:`Transition.undoable`): a command
    whose bots or automatic moves drew by chance or revealed something cannot be."""


def load_state(game: GameLike, data: str) -> GameState:
    """The game's state model from the JSON text a record keeps (DamagedRecord when it is not
    one: the pipeline sets such a record aside)."""
    try:
        return game.state_model.model_validate_json(data)
    except ValidationError as error:
        raise DamagedRecord(reason(error)) from None


def start_state(
    game: GameLike,
    names: list[str],
    bots: Bots,
    options: Mapping[str, object],
    seed: int,
    first_version: int,
) -> Advance:
    """Deal a new game and let the bot seats make their opening moves."""
    state = game.setup(names, options, action_rng(seed, first_version))
    state.version = first_version
    state.decision_version = first_version
    result = Advance(state=state, moves=[game.opening_events(state)])
    run_bots(game, seed, bots, result)
    return result


def advance(
    game: GameLike,
    state: GameState,
    seed: int,
    bots: Bots,
    actor: Seat,
    action: BaseModel,
) -> Advance:
    """Apply ``action`` (raises IllegalAction, changing nothing), then every bot move it allows."""
    transition = game.apply(state, actor, action, action_rng(seed, state.version))
    result = Advance(
        state=transition.state, moves=[list(transition.events)], undoable=transition.undoable
    )
    result.log.append(encode_action(actor, action))
    run_bots(game, seed, bots, result)
    return result


def run_bots(game: GameLike, seed: int, bots: Bots, result: Advance) -> None:
    """Apply the game's automatic moves (:meth:`~core.engine.Game.automatic`, for any seat) and
    bot moves while bot seats may act (:meth:`~core.engine.Game.actors`; bounded by
    MAX_BOT_STEPS)."""
    for _ in range(MAX_BOT_STEPS):
        state = result.state
        if state.finished:
            return
        automatic = game.automatic(state)
        if automatic is not None:
            seat, choice = automatic
            try:
                transition = game.apply(state, seat, choice, action_rng(seed, state.version))
            except IllegalAction:
                # The game offered a move its rules refuse: leave the choice to the seat.
                log.exception("automatic move %r of seat %s was refused", choice, seat)
                return
            if not bots[seat]:
                result.made_for.append((seat, game.describe_action(state, choice)))
            result.undoable = result.undoable and transition.undoable
            result.state = transition.state
            result.moves.append(list(transition.events))
            result.log.append(encode_action(seat, choice))
            continue
        waiting = [seat for seat in game.actors(state) if bots[seat]]
        if not waiting:
            return
        seat = waiting[0]
        legal = game.legal_actions(state, seat)
        level = levels.level_of(bots[seat]) or levels.DEFAULT_LEVEL
        rng = _bot_rng(seed, seat, state.version)
        try:
            choice = levels.choose(game, state, seat, legal, rng, level, thought=result.thought)
        except levels.Think:
            if not levels.deferring():
                raise
            result.bot_waiting = True  # a strong bot's move, made by the deadline loop soon
            return
        try:
            transition = game.apply(state, seat, choice, action_rng(seed, state.version))
        except IllegalAction:
            # A bot must choose from `legal`; if it ever does not, play the first legal move
            # rather than stall the table, and leave a trace for the developers.
            log.exception("bot at seat %s chose an illegal action %r", seat, choice)
            choice = legal[0]
            transition = game.apply(state, seat, choice, action_rng(seed, state.version))
        result.undoable = result.undoable and transition.undoable
        result.bot_moves.append((seat, state, choice))
        result.state = transition.state
        result.moves.append(list(transition.events))
        result.log.append(encode_action(seat, choice))
    log.error("bots did not finish within %s moves", MAX_BOT_STEPS)


def publish(
    before: Face[GameState, GameOptions, BaseModel, View] | None,
    now: Face[GameState, GameOptions, BaseModel, View],
    moves: list[list[Event]],
    members: list[list[str]],
    requester: str | None,
    out: Outbox,
    note: tuple[int, str] | None = None,
    due: float | None = None,
    picture: str | None = None,
) -> None:
    """Turn events and the new state into what the table's surfaces show.

    ``before`` and ``now`` are the faces of the states before and after the step (None before
    the deal), each built once by the caller: the board, its picture, the prompt and the panels
    all read ``now``'s one public view. Public events become lines of the log, except a
    player's own words (``Event.own``, a pitch), each its own post. The board and the public
    prompt show the new state (the prompt is None when no public decision is open). A seat's
    private panel is shown anew at the deal, when the game starts (or stops) waiting for it,
    or when it has private news (its events, or ``note``: a teammate's move on its behalf); a
    line the panel already shows (the new hand) is said once. A game whose choices are on its
    board (``Game.choices_on_board``) has no panels: a seat's private news goes to its people
    as private messages. ``due``: when the pending decision ends (unix time); the prompt, the
    board and the panels of the seats it waits for show it as a countdown. When the game now
    waits for one seat (a turn), its users who did not just act are to be notified; a decision
    everyone makes at once is announced by the board, the prompt and each panel's countdown.
    ``picture``: the new state as stored (JSON), when the board is to be drawn as a picture
    too (:func:`show_board`).
    """
    step = _Step.of(before, now)
    _story(moves, out)
    game, after = now.game, now.state
    prompt = game.render_prompt(after)
    out.prompt = prompt.model_copy(update={"deadline": due}) if prompt is not None else None
    out.prompt_id = game.prompt_version(after) if prompt is not None else None
    events = [event for move in moves for event in move]
    notify = _panels(step, events, members, requester, note, out, due)
    out.notify = [] if after.finished else notify
    out.waiting = [
        user for seat in sorted(step.waiting_after) if seat < len(members) for user in members[seat]
    ]
    if step.waiting_after != step.waiting_before:  # whose turn it is: every player's home
        out.homes = sorted({*out.homes, *(user for users in members for user in users)})
    show_board(now, out, due, picture)


def _panels(
    step: _Step,
    events: list[Event],
    members: list[list[str]],
    requester: str | None,
    note: tuple[int, str] | None,
    out: Outbox,
    due: float | None,
) -> list[str]:
    """Each seat's people get their private news and panel; returns who is to be notified of
    a turn (one player's or team's, but the one who just acted)."""
    notify: list[str] = []
    for seat, users in enumerate(members):
        lines = [e.text for e in events if e.audience.seat == seat]
        for user in users:
            told = [note[1]] if note is not None and note[0] == seat and user != requester else []
            if step.told_of_turn(seat) and user != requester:
                notify.append(user)  # a turn of one player (or team): theirs to be told
            _private_news(step, seat, user, [*told, *lines], out, due)
    return notify


@dataclass
class _Step:
    """What :func:`publish` reads of a step: its face now, and whom the game waited for and
    asked before it and waits for and asks now."""

    now: Face[GameState, GameOptions, BaseModel, View]
    dealt: bool
    """The deal: every player sees their hand, whoever moves first."""
    new_decision: bool
    waiting_before: set[Seat]
    waiting_after: set[Seat]
    answering: set[Seat]
    """Seats that started or stopped answering the question open beside the decision (a vote):
    its panel line comes and goes with it."""

    @classmethod
    def of(
        cls,
        before: Face[GameState, GameOptions, BaseModel, View] | None,
        now: Face[GameState, GameOptions, BaseModel, View],
    ) -> _Step:
        game, after = now.game, now.state
        was = before.state if before is not None else None
        answering = set(game.answering(was)) if was is not None else set()
        return cls(
            now=now,
            dealt=was is None,
            new_decision=was is None or after.decision_version != was.decision_version,
            waiting_before=set(game.waiting_for(was)) if was is not None else set(),
            waiting_after=set(game.waiting_for(after)),
            answering=answering ^ set(game.answering(after)),
        )

    def newly(self, seat: Seat) -> bool:
        """The game now waits for ``seat``, which it did not, or a new decision does."""
        waited = seat in self.waiting_before
        return seat in self.waiting_after and (self.new_decision or not waited)

    def told_of_turn(self, seat: Seat) -> bool:
        """A turn of ``seat`` alone has begun: its people are to be notified."""
        return self.newly(seat) and len(self.waiting_after) == 1

    def shows_panel(self, seat: Seat, news: list[str]) -> bool:
        """The seat's panel is drawn anew: the deal, its turn beginning or ending, its news,
        or its answer to the open question coming or going."""
        stopped = seat in self.waiting_before and seat not in self.waiting_after
        return self.dealt or self.newly(seat) or stopped or bool(news) or seat in self.answering


def _story(moves: list[list[Event]], out: Outbox) -> None:
    """Public events become lines of the log; a player's own words (a pitch), posts."""
    for move in moves:
        for event in move:
            if not event.audience.is_public:
                continue
            if event.own:
                out.posts.append(ui.Message(text=event.text))
            else:
                out.say(event.text)


def _private_news(
    step: _Step, seat: Seat, user: str, news: list[str], out: Outbox, due: float | None
) -> None:
    """What ``user`` of ``seat`` is shown privately: its news, as private messages in a game
    whose choices are on its board, else on the seat's panel, drawn when it changed."""
    game, after = step.now.game, step.now.state
    if game.choices_on_board:
        # No panel to keep: the board has the choices; private news is a message.
        for line in news:
            out.reply(user, line)
        return
    if not step.shows_panel(seat, news):
        return
    panel = game.render_private(after, seat)
    if after.finished:  # its last news, then the end: nothing is left to press
        panel = ui.Message(text=GAME_OVER)
    # A private line the panel already shows (e.g. the new hand) is said once.
    said = [line for line in news if line not in panel.text]
    message = panel.model_copy(update={"text": "\n".join([*said, panel.text]).strip()})
    if seat in step.waiting_after:
        message.deadline = due
    out.panels[user] = message


def show_board(
    face: Face[GameState, GameOptions, BaseModel, View],
    out: Outbox,
    due: float | None,
    picture: str | None,
) -> None:
    """The board of ``face``'s state, drawn once from its public view: as text only, or, given
    ``picture`` (the state as stored, JSON) for a game that draws one, as the text that goes
    with a picture (``render_board(pictured=True)``: what the picture shows is left out), the
    picture named by what it is drawn from (the public view, less what changes every move but
    is not drawn) and the drawing handed to the table, which does it only when that picture is
    new."""
    game, state, public = face.game, face.state, face.public
    if picture is None or not game.draws_pictures:
        out.board = game.render_board(state, False, public).model_copy(update={"deadline": due})
        return
    basis = game.picture_basis(state, public)
    key = hashlib.sha256(f"{game.name}:{basis}".encode()).hexdigest()[:16]
    board = game.render_board(state, True, public)
    out.board = board.model_copy(update={"deadline": due, "picture_key": key})
    # A plain function and its arguments (not a closure), so that the table may draw it in
    # another process: drawing holds the GIL long enough to delay other answers.
    out.draw = functools.partial(draw_picture, game.name, picture)


def draw_picture(game: str, state_json: str) -> ui.Picture | None:
    """The picture of the board of ``game`` in the state ``state_json`` (a pure function of
    its public view): what the table draws, in a worker thread or process."""
    found = get_game(game)
    if found is None:
        return None
    return found.picture(found.state_model.model_validate_json(state_json))


def warm_pictures() -> None:
    """Load what drawing needs (the games, their data, the picture modules) in a process that is
    to draw pictures, before the first board asks for one."""
    all_games()
    picture.warm()
