"""The conformance kit: the checks every game gets for what it declares, with no test written.

``tests/test_conformance.py`` runs :func:`check_game` over every registered game (and the small
team game of the tests). A game opts into the deeper checks by declaring them on its
:class:`~core.engine.Game`: :meth:`~core.engine.Game.secret_variants` (non-interference),
:meth:`~core.engine.Game.ledger` (the books) and :meth:`~core.engine.Game.inventory` (nothing
made or lost). What every game gets:

- the engine accepts exactly what it lists (:func:`agree`): every listed action (legal actions,
  standing choices) applies, and of listed actions changed in one field, actions listed at
  other moments and actions of every type made up from values seen (tried at every step), any
  that applies has the shape of one listed; a seat the game does not wait for, a player's
  clock, a stale deadline and malformed actions are refused;
- a refused action changes nothing;
- random play and bot play always end, and a finished game waits for nobody; a view that names
  whom the game waits for (a ``waiting_for`` field, the board's waiting line) names the seats
  the open decision waits for;
- bots choose one of the legal actions from their own view;
- a strong bot reads only what its seat may see: over a state and a hidden-information variant
  its seat cannot tell from it, with the same seed, it chooses the same (its search samples
  worlds with :attr:`~core.engine.Game.sample`, which must depend on that seat's view alone);
- the state survives a JSON round trip and every view is JSON;
- every button and menu id fits Discord's 100 characters in a DM at a high version, and decodes
  back to the same action;
- choices are shown where their seat can press them (on the board with
  :attr:`~core.engine.Game.choices_on_board`, else on the seat's panel, and only to seats that
  may act), and a shown action button applies for a seat that may press it; the board that
  goes with its picture (``render_board(pictured=True)``) offers the same choices;
- replaying the action log (as the authority writes it) rebuilds the stored state;
- taking a move back (:func:`undo_matches`, through the authority's own rebuild from the log):
  the game taken back equals the one before the move (its state, every view, the boards and
  panels), but for its version going on; a move the engine says cannot be taken back (a draw,
  a roll, a reveal, the end) leaves nothing to take back; and, with secret variants, a move
  said to be undoable shows nobody anything hidden (the actor included), and what the request
  to take it back says is the same whatever the secrets;
- non-interference: a state that differs only in hidden information shows the same public view,
  board (and the board that goes with its picture), board picture (the same bytes, compared
  every few versions), prompt, waiting seats
  and deadline, standings and recap (the final card's, for a game that ends now), and the
  same private output to every other seat;
  and the same action applied to both gives the same public events and outputs, unless the
  rules reveal the secret (an event marked ``reveals``).

Every rendered moment fitting both platforms' limits is checked over the same registry by
``tests/adapters/test_render_limits.py``, through the real renderers.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from bot.commands import codec
from bot.commands.game import undo
from bot.commands.game.actionlog import encode_action, line, replay, undo_entry
from bot.commands.game.play import action_rng, advance, start_state
from bot.commands.grammar import parse_options
from bot.commands.record import GameRecord
from core import bots, registry, ui
from core.engine import (
    SYSTEM,
    Event,
    Game,
    GameLike,
    GameOptions,
    GameState,
    IllegalAction,
    Seat,
    Timeout,
    Transition,
    Variant,
)
from storage import History

__all__ = [
    "Hook",
    "Run",
    "check_game",
    "option_sets",
    "play_random",
    "replay_matches",
    "undo_matches",
]

PICTURE_EVERY = 32
"""The pictures of a state and its hidden-information variants are compared at every
``PICTURE_EVERY``-th version (drawing one costs milliseconds, not microseconds: at every 8th
they were a third of the kit's time). The engine draws a picture from the channel's view alone,
which is compared at every step, so what the bytes add is that drawing is pure and wired to
that view; a few comparisons a game show it."""
VARIANTS_PER_STEP = 2
"""Hidden-information variants compared at each action (a random sample of the declared)."""
SEATS_PER_VARIANT = 1
KNOWLEDGE_EVERY = 4
"""A strong bot's choice is compared over a variant at every ``KNOWLEDGE_EVERY``-th version
(a search costs milliseconds)."""
KNOWLEDGE_BUDGET = bots.Budget(
    nodes=120, worlds=3, horizon=8, candidates=4, confidence=0.0, seconds=None
)
"""A small search, by nodes alone (the same choice for the same seed), that plays its best
candidate whatever its margin: a choice that depends on a hidden card shows."""
"""Other seats whose private output is compared for each variant (a random sample)."""
MAX_STEPS = 20_000
"""Random play that has not ended after this many actions has failed to end."""
HIGH_VERSION = 9_999_999
"""A version far above any real game's, for the id length check."""
LONG_CHANNEL = "9" * 19
CHANGED_PER_SEAT = 4
"""Legal actions changed in one field, tried for each seat checked at a step (:func:`agree`)."""
STRANGERS_PER_SEAT = 3
"""Actions offered at other moments of the game, tried for each seat checked at a step."""
MADE_UP_PER_SEAT = 2
"""Actions of any type of the game, offered or not (:func:`made_up`), tried likewise."""
"""The longest Discord channel id (a 64-bit snowflake), for ids of buttons shown in a DM."""

AnyGame = Game[Any, Any, Any, Any]
"""A game of any kind as the kit takes it: as declared (a game's own tests) or as the registry
hands it out."""

Hook = Callable[[GameState, Seat, Any, GameState, list[Event]], None]
"""Called after every applied action with (before, actor, action, after, events): how a
game's own tests check their rules over the kit's random games."""


@dataclass
class Run:
    """What one random game did, for the tests that want numbers."""

    state: GameState
    steps: int = 0
    refused: int = 0
    variants: int = 0
    """Hidden-information variants compared."""
    transitions: int = 0
    """Actions applied to a state and its variant side by side."""
    pictures: int = 0
    """Board pictures compared between a state and its variant."""
    knowledge: int = 0
    """Strong bots' choices compared between a state and a variant their seat cannot tell
    from it."""
    tried: int = 0
    """Actions tried against the legal actions (:func:`agree`): changed in one field, or
    offered at another moment."""
    agreed: int = 0
    """Of those, the ones the engine accepted (each listed, by its shape)."""
    kinds: set[str] = field(default_factory=set)
    taken_back: int = 0
    """Moves taken back by :func:`undo_matches` (counted on the seed's last run)."""
    undoable: int = 0
    """Moves the engine said could be taken back whose secrets were compared through them."""


def option_sets(game: AnyGame) -> list[GameOptions]:
    """The default options, and each of the game's simulation variants."""
    sets = [game.options_model()]
    for words in game.simulation_variants.values():
        if words:
            sets.append(parse_options(game, " ".join(words)))
    return sets


def players_range(game: AnyGame) -> list[int]:
    return list(range(game.min_players, game.max_players + 1))


@contextmanager
def _known(game: AnyGame) -> Iterator[None]:
    """The codec finds games by name; a game under test that is not registered is, meanwhile."""
    if registry.get_game(game.name) is game:
        yield
        return
    with registry.registered(game):
        yield


def _dump(value: Any) -> Any:
    """A model as JSON data (a view, a message, a deadline); plain data as it is."""
    if value is None or not isinstance(value, BaseModel):
        return value
    return value.model_dump(mode="json")


class _Look:
    """One state as the kit reads it: each of its faces asked for once, however many checks
    read it (the state, its variants and their successors are each read by several checks of
    one step). Only the same state object is remembered: every state is read afresh."""

    def __init__(self, game: GameLike, state: GameState) -> None:
        self.state = state
        self.face = game.at(state)
        self.game = game
        self._views: dict[Seat | None, Any] = {}
        self._boards: dict[bool, ui.Message] = {}
        self._legal: dict[Seat, list[Any]] = {}
        self._panels: dict[Seat, ui.Message] = {}
        self._private: dict[Seat, dict[str, Any]] = {}
        self._memo: dict[str, Any] = {}

    def _once(self, name: str, make: Callable[[], Any]) -> Any:
        if name not in self._memo:
            self._memo[name] = make()
        return self._memo[name]

    def view(self, seat: Seat | None) -> Any:
        if seat not in self._views:
            self._views[seat] = (
                self.face.public if seat is None else self.game.view(self.state, seat)
            )
        return self._views[seat]

    def board(self, pictured: bool = False) -> ui.Message:
        if pictured not in self._boards:
            self._boards[pictured] = self.game.render_board(self.state, pictured, self.face.public)
        return self._boards[pictured]

    def prompt(self) -> ui.Message | None:
        prompt: ui.Message | None = self._once(
            "prompt", lambda: self.game.render_prompt(self.state)
        )
        return prompt

    def waiting(self) -> list[Seat]:
        return list(self._once("waiting", lambda: self.game.waiting_for(self.state)))

    def actors(self) -> list[Seat]:
        return list(self._once("actors", lambda: self.game.actors(self.state)))

    def legal(self, seat: Seat) -> list[Any]:
        if seat not in self._legal:
            self._legal[seat] = list(self.game.legal_actions(self.state, seat))
        return list(self._legal[seat])

    def panel(self, seat: Seat) -> ui.Message:
        if seat not in self._panels:
            self._panels[seat] = self.game.render_private(self.state, seat)
        return self._panels[seat]

    def picture(self) -> bytes | None:
        """The board picture's bytes (None: the game draws none)."""
        if "picture" not in self._memo:
            picture = self.game.picture(self.state, self.face.public)
            self._memo["picture"] = None if picture is None else picture.data
        data: bytes | None = self._memo["picture"]
        return data

    def public_face(self) -> dict[str, Any]:
        """Everything the channel sees of the state."""
        state = self.state
        face: dict[str, Any] = self._once(
            "public",
            lambda: {
                "view": _dump(self.view(None)),
                "board": _dump(self.board()),
                # The board as it goes with its picture: its text is shorter, never more
                # telling.
                "pictured board": _dump(self.board(pictured=True)),
                "prompt": _dump(self.prompt()),
                "waiting": self.waiting(),
                "deadline": _dump(state.deadline),
                "finished": state.finished,
                "outcome": _dump(state.outcome),
                # The final card shows these, for a game played out or ended early at any
                # moment.
                "standings": [_dump(standing) for standing in self.game.standings(state)],
                "recap": self.game.recap(state),
            },
        )
        return face

    def private_face(self, seat: Seat) -> dict[str, Any]:
        """Everything ``seat`` sees of the state besides the public face."""
        if seat not in self._private:
            self._private[seat] = {
                "view": _dump(self.view(seat)),
                "panel": _dump(self.panel(seat)),
                "legal": [_dump(a) for a in self.legal(seat)],
            }
        return self._private[seat]


def public_face(game: AnyGame, state: GameState) -> dict[str, Any]:
    """Everything the channel sees of ``state``."""
    return _Look(game, state).public_face()


def private_face(game: AnyGame, state: GameState, seat: Seat) -> dict[str, Any]:
    """Everything ``seat`` sees of ``state`` besides the public face."""
    return _Look(game, state).private_face(seat)


def _public_events(events: list[Event]) -> list[Any]:
    return [e.model_dump(mode="json") for e in events if e.audience.is_public]


def _private_events(events: list[Event], seat: Seat) -> list[Any]:
    return [e.model_dump(mode="json") for e in events if e.audience.seat == seat]


def _differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two JSON values differ, as short paths (the first few)."""
    if a == b:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            out += _differences(a.get(key), b.get(key), f"{path}.{key}")
        return out[:5]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += _differences(x, y, f"{path}[{i}]")
        return out[:5]
    return [] if a == b else [f"{path}: {a!r:.160} != {b!r:.160}"]


class Offers:
    """Every action a game offered so far (by legal actions and standing choices), and every
    value each field of each action type took: what :func:`changed` draws new values from."""

    def __init__(self) -> None:
        self.actions: list[BaseModel] = []
        self._seen: set[str] = set()
        self.values: dict[tuple[object, str], list[Any]] = {}

    def add(self, actions: list[Any]) -> None:
        for action in actions:
            key = action.model_dump_json()
            if key in self._seen:
                continue
            self._seen.add(key)
            self.actions.append(action)
            data = action.model_dump()
            for name, value in data.items():
                if name != "type":
                    known = self.values.setdefault((data.get("type"), name), [])
                    if value not in known:
                        known.append(value)


def _near(value: Any, elements: list[Any]) -> list[Any]:
    """Values beside ``value`` a player might send in its place: off by one or by much, none,
    a name of nothing, a list with a card dropped, doubled or swapped."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1, value + 10_000, 0, -1, None]
    if isinstance(value, str):
        return [value + "x", "nonesuch", ""]
    if value is None:
        return [0, 1, 99]
    if isinstance(value, list):
        near: list[Any] = [value[1:], [*value, *value[:1]], []]
        near += [[other, *value[1:]] for other in elements[:8] if value and other != value[0]]
        return near
    return []


def changed(action: Any, offers: Offers, rng: random.Random) -> Any | None:
    """``action`` with one field given another value: one the field took in an action offered
    earlier, or one beside it (:func:`_near`); None when the model refuses every try."""
    data = action.model_dump()
    names = [name for name in data if name != "type"]
    if not names:
        return None
    name = rng.choice(names)
    value = data[name]
    taken = offers.values.get((data.get("type"), name), [])
    elements = [e for v in taken if isinstance(v, list) for e in v]
    choices = [v for v in [*taken, *_near(value, elements)] if v != value]
    for new in rng.sample(choices, min(3, len(choices))):
        try:
            return type(action).model_validate({**data, name: new})
        except ValueError:
            continue
    return None


def made_up(game: AnyGame, offers: Offers, rng: random.Random) -> Any | None:
    """An action of a type drawn from the whole union (Timeout aside), offered or not: its
    fields take values they took in actions offered earlier, or a field of that name took in
    any (a card, a seat...), or their defaults. None when no such action can be made."""
    models = [m for m in game.actions.models if m is not Timeout]
    model = rng.choice(models)
    kind = model.model_fields["type"].default
    data: dict[str, Any] = {"type": kind}
    for name, info in model.model_fields.items():
        if name == "type":
            continue
        taken = offers.values.get((kind, name)) or [
            v for (_, field), values in offers.values.items() if field == name for v in values
        ]
        if taken:
            data[name] = rng.choice(taken)
        elif not info.is_required():
            data[name] = info.get_default(call_default_factory=True)
    try:
        return model.model_validate(data)
    except ValueError:
        return None


def agree(game: AnyGame, state: GameState, seat: Seat, tries: list[Any]) -> int:
    """Legal actions and the engine agree at ``state`` for ``seat``: every action it lists
    (legal actions and standing choices) applies, and every one of ``tries`` that applies has
    the shape of one listed (:meth:`~core.engine.Game.shape`: itself, for an action with no
    typed field). A refusal says why and changes nothing. Returns how many tries applied."""
    listed = [*game.legal_actions(state, seat), *game.standing_choices(state, seat)]
    shapes = [game.shape(action) for action in listed]
    before = state.model_dump()
    rng = action_rng(0, state.version)
    for action in listed:
        try:
            game.apply(state, seat, action, rng)
        except IllegalAction as refusal:
            raise AssertionError(
                f"{action!r} is listed for seat {seat} but refused: {refusal}"
            ) from refusal
    accepted = 0
    for action in tries:
        try:
            game.apply(state, seat, action, rng)
        except IllegalAction as refusal:
            assert str(refusal).strip(), f"{action!r} is refused without a reason"
            continue
        accepted += 1
        shape = game.shape(action)
        assert any(shape == other for other in shapes), (
            f"{game.title} accepts {action!r} from seat {seat}, which neither its legal "
            f"actions nor its standing choices list ({len(listed)} listed)"
        )
    assert state.model_dump() == before, "checking actions changed the state"
    return accepted


class _Table:
    """One game under test: every action goes through :meth:`apply`, which checks it."""

    def __init__(
        self,
        game: GameLike,
        players: int,
        options: GameOptions,
        seed: int,
        hook: Hook | None,
        secrets: bool,
        generic: bool = True,
        arrange: Callable[[GameState], GameState] | None = None,
    ) -> None:
        self.game = game
        self.generic = generic
        self.seed = seed
        self.hook = hook
        self.secrets = secrets
        self.chooser = random.Random(f"chooser:{seed}")
        self.offers = Offers()
        self.agreeing = random.Random(f"agree:{seed}")
        """The agreement check's own draws: the random games play on exactly as without it."""
        names = [f"P{i}" for i in range(players)]
        self.state: GameState = game.setup(names, options, random.Random(seed))
        if arrange is not None:
            self.state = arrange(self.state)
        self.inventory = game.inventory(self.state)
        self.run = Run(state=self.state)
        self._looks: dict[int, _Look] = {}
        self.check_state(self.state)

    def look(self, state: GameState) -> _Look:
        """``state`` as read by this step's checks (each face of it computed once)."""
        found = self._looks.get(id(state))
        if found is None or found.state is not state:
            found = self._looks[id(state)] = _Look(self.game, state)
        return found

    def forget(self, keep: GameState) -> None:
        """A new step: only the current state's faces are remembered (its own)."""
        kept = self._looks.get(id(keep))
        self._looks = {id(keep): kept} if kept is not None and kept.state is keep else {}

    def rng(self, state: GameState) -> random.Random:
        return action_rng(self.seed, state.version)

    # --- one state ---------------------------------------------------------------------------

    def check_state(self, state: GameState) -> None:
        if not self.generic:
            return
        game = self.game
        look = self.look(state)
        copy = game.state_model.model_validate_json(state.model_dump_json())
        assert copy == state, "the state does not survive a JSON round trip"
        json.dumps(_dump(look.view(None)))
        waiting = look.waiting()
        # A view that names whom the game waits for (the board's waiting line) names whom the
        # engine waits for, by the open decision: the game's own helper cannot drift from it.
        named = getattr(look.view(None), "waiting_for", None)
        assert named is None or list(named) == waiting, (
            f"the view names {named} as waited for, the open decision {waiting}"
        )
        if state.finished:
            assert not waiting, "a finished game still waits for someone"
            assert all(not look.legal(s) for s in state.seats)
        else:
            assert waiting, "a running game waits for nobody"
            assert all(look.legal(s) for s in waiting), "waits on a seat that can't act"
        if self.inventory is not None:
            assert game.inventory(state) == self.inventory, "something was made or lost"
        board = look.board()
        self.check_ids(board, None)
        pictured = look.board(pictured=True)
        self.check_ids(pictured, None)
        assert (pictured.buttons, pictured.selects) == (board.buttons, board.selects), (
            "the board that goes with its picture offers other choices than the board"
        )
        prompt = look.prompt()
        if prompt is not None:
            self.check_ids(prompt, None)
        for seat in state.seats:
            json.dumps(_dump(look.view(seat)))
            self.check_ids(look.panel(seat), LONG_CHANNEL)
        for seat in look.actors():
            legal = look.legal(seat)
            choice = game.bot_choice(state, seat, list(legal), random.Random(seat))
            assert choice in legal, f"the bot of seat {seat} chose {choice!r}, not a legal action"
        self.check_controls(state)

    def check_controls(self, state: GameState) -> None:
        """The choices are shown where their seats can press them, and a shown button applies.

        With choices on the board, the board offers every seat the game waits for something to
        press (its own or everyone's), no seat it does not wait for, and panels offer none;
        otherwise a panel offers actions only to a seat that may act (one the game waits for,
        or with legal actions: a pick that may still be changed). One shown action button,
        drawn at random, applies for a seat that may press it."""
        game = self.game
        look = self.look(state)
        waiting = set(look.waiting())
        shown: list[tuple[ui.Button, list[Seat]]] = []
        panels = {seat: look.panel(seat) for seat in state.seats}
        if game.choices_on_board:
            board = look.board()
            controls: list[ui.Button | ui.Select] = [*board.all_buttons(), *board.selects]
            acting = [c for c in controls if c.action is not None]
            bound = {c.seat for c in acting if c.seat is not None}
            assert bound <= waiting, f"the board offers seats {bound - waiting} choices"
            for seat in waiting:
                assert any(c.seat in (None, seat) for c in acting), f"nothing for seat {seat}"
            for panel in panels.values():
                assert not panel.selects and not [b for b in panel.all_buttons() if b.action]
            for button in board.all_buttons():
                if button.action is not None:
                    whose = [button.seat] if button.seat is not None else sorted(waiting)
                    shown.append((button, whose))
        else:
            actors = set(look.actors())
            for seat, panel in panels.items():
                buttons = [b for b in panel.all_buttons() if b.action is not None]
                if buttons or any(m.action is not None for m in panel.selects):
                    may = seat in actors or look.legal(seat)
                    assert may, f"seat {seat}'s panel offers choices it may not make"
                shown += [(b, [seat]) for b in buttons]
        if not shown or state.finished:
            return
        # (Its own draw: the random games play on exactly as without this check.)
        button, whose = random.Random(f"controls:{self.seed}:{state.version}").choice(shown)
        action = game.parse_action(button.action)
        refusals = []
        for seat in whose:
            try:
                game.apply(state, seat, action, self.rng(state))
                return
            except IllegalAction as refusal:
                refusals.append(str(refusal))
        raise AssertionError(f"the shown button {button.label!r} applies for nobody: {refusals}")

    def check_ids(self, message: ui.Message, channel: str | None) -> None:
        """Every component id fits in 100 characters at a high version and decodes back."""
        ids = codec.MessageIds(self.game.name, channel)
        for button in message.all_buttons():
            high = button.model_copy(
                update={"version": HIGH_VERSION if button.version is not None else None}
            )
            press = codec.decode(ids.button(high))
            assert press is not None and press.command == button.command, button
            assert self.same_action(press.action, button.action), button
        for select in message.selects:
            press = codec.decode(ids.select(select.model_copy(update={"version": HIGH_VERSION})))
            assert press is not None and press.field == select.field, select
            assert self.same_action(press.action, select.action), select

    def same_action(self, decoded: dict[str, Any] | None, shown: dict[str, Any] | None) -> bool:
        if decoded is None or shown is None:
            return decoded is shown
        if decoded == shown:
            return True
        try:
            return bool(self.game.parse_action(decoded) == self.game.parse_action(shown))
        except IllegalAction:
            return False  # a menu's action is completed by the chosen values

    # --- refusals ----------------------------------------------------------------------------

    def refused(self, actor: Seat, action: Any, why: str) -> None:
        before = self.state.model_dump()
        try:
            self.game.apply(self.state, actor, action, self.rng(self.state))
        except IllegalAction as error:
            assert str(error).strip(), "a refusal must say why"
            assert self.state.model_dump() == before, "a refused action changed the state"
            self.run.refused += 1
            return
        raise AssertionError(f"{why} applied: {action!r} by seat {actor}")

    def check_refusals(self) -> None:
        game, state = self.game, self.state
        look = self.look(state)
        waiting = look.waiting()
        offered = [(s, a) for s in look.actors() for a in look.legal(s)]
        if not offered:
            return
        _seat, action = self.chooser.choice(offered)
        for other in state.seats:
            if not look.legal(other):
                self.refused(other, action, "an action by a seat with nothing to do")
        self.refused(waiting[0], Timeout(key="not-a-deadline"), "a player's timeout")
        self.refused(SYSTEM, Timeout(key="not-a-deadline"), "a timeout of no pending deadline")
        if state.deadline is not None:
            self.refused(waiting[0], Timeout(key=state.deadline.key), "a player's timeout")
        for junk in ({}, {"type": "no such action"}, {"type": 7}):
            try:
                game.parse_action(junk)
            except IllegalAction:
                continue
            raise AssertionError(f"a malformed action was accepted: {junk}")

    # --- actions -----------------------------------------------------------------------------

    def apply(self, actor: Seat, action: Any) -> None:
        before = self.state
        self.forget(before)
        game = self.game
        legal = self.look(before).legal(actor) if actor != SYSTEM and self.generic else []
        for other in self.chooser.sample(legal, min(3, len(legal))):
            game.apply(before, actor, other, self.rng(before))  # listed: it applies
        if actor != SYSTEM and self.generic:
            self.check_agreement(before, actor)
        # The move, applied once: the secrets are compared through the same transition.
        transition = game.apply(before, actor, action, self.rng(before))
        if self.secrets:
            self.check_secrets(actor, action, transition)
        after: GameState = transition.state
        assert after.version == before.version + 1
        json.dumps([e.model_dump(mode="json") for e in transition.events])
        self.check_books(before, after, transition.events)
        self.run.kinds |= {e.kind for e in transition.events}
        if self.hook is not None:
            self.hook(before, actor, action, after, transition.events)
        self.state = after
        self.run.steps += 1
        self.check_state(after)

    def check_agreement(self, state: GameState, actor: Seat) -> None:
        """The engine accepts exactly what it lists, for the actor and another seat: tried
        with legal actions changed in one field, with actions offered at other moments
        (another decision's, another seat's) made now, and with actions of any type of the
        game (:func:`agree`)."""
        game, rng = self.game, self.agreeing
        look = self.look(state)
        for seat in dict.fromkeys([actor, rng.choice(list(state.seats))]):
            legal = look.legal(seat)
            self.offers.add([*legal, *game.standing_choices(state, seat)])
            picked = rng.sample(legal, min(CHANGED_PER_SEAT, len(legal)))
            tries = [changed(a, self.offers, rng) for a in picked]
            known = self.offers.actions
            tries += rng.sample(known, min(STRANGERS_PER_SEAT, len(known)))
            tries += [made_up(game, self.offers, rng) for _ in range(MADE_UP_PER_SEAT)]
            self.run.agreed += agree(game, state, seat, [t for t in tries if t is not None])
            self.run.tried += len(tries)

    def check_books(self, before: GameState, after: GameState, events: list[Event]) -> None:
        old, new = self.game.ledger(before), self.game.ledger(after)
        if old is None or new is None:
            return
        delta = [0] * len(old)
        for event in events:
            for payer, payee, amount in self.game.payments(event):
                if payer >= 0:
                    delta[payer] -= amount
                if payee >= 0:
                    delta[payee] += amount
        moved = [b - a for a, b in zip(old, new, strict=True)]
        assert moved == delta, f"money moved without a listed payment: {moved} != {delta}"

    # --- non-interference --------------------------------------------------------------------

    def check_secrets(self, actor: Seat, action: Any, transition: Transition[Any]) -> None:
        """``transition``: ``action`` applied to the current state."""
        game, state = self.game, self.state
        chooser = random.Random(f"variant:{self.seed}:{state.version}")
        variants = game.secret_variants(state, chooser)
        if not variants:
            return
        variants = chooser.sample(variants, min(VARIANTS_PER_STEP, len(variants)))
        mine, after = self.look(state), self.look(transition.state)
        public = mine.public_face()
        for variant in variants:
            other: GameState = variant.state
            theirs = _Look(game, other)
            self.run.variants += 1
            where = f"changing {variant.what} (seat {variant.owner})"
            diff = _differences(public, theirs.public_face())
            assert not diff, f"{where} changes what the channel sees: {diff}"
            if state.version % PICTURE_EVERY == 0:
                self.run.pictures += 1
                assert theirs.picture() == mine.picture(), f"{where} changes the board's picture"
            others = [s for s in state.seats if s != variant.owner]
            seats = chooser.sample(others, min(SEATS_PER_VARIANT, len(others)))
            for seat in seats:
                diff = _differences(mine.private_face(seat), theirs.private_face(seat))
                assert not diff, f"{where} changes what seat {seat} sees: {diff}"
            if state.version % KNOWLEDGE_EVERY == 0:
                self.check_knowledge(state, variant, where, chooser)
            if actor == variant.owner and action not in theirs.legal(actor):
                continue  # the owner's own secret decides what it can do
            try:
                twin = game.apply(other, actor, action, self.rng(other))
            except IllegalAction as error:
                raise AssertionError(f"{where} makes {action!r} illegal: {error}") from error
            if any(e.reveals for e in transition.events + twin.events):
                continue  # the rules disclose the secret here (a reveal)
            self.run.transitions += 1
            what = f"after {game.describe_action(state, action)} by seat {actor}, {where}"
            if transition.undoable and twin.undoable and actor != variant.owner:
                self.check_undoable(actor, transition, twin, what)
            diff = _differences(
                _public_events(transition.events), _public_events(twin.events), ".events"
            )
            twin_look = _Look(game, twin.state)
            diff += _differences(after.public_face(), twin_look.public_face())
            assert not diff, f"{what} changes what the channel sees: {diff}"
            for seat in seats:
                ours = [_private_events(transition.events, seat), after.private_face(seat)]
                twins = [_private_events(twin.events, seat), twin_look.private_face(seat)]
                diff = _differences(ours, twins)
                assert not diff, f"{what} changes what seat {seat} sees: {diff}"

    def check_undoable(
        self, actor: Seat, transition: Transition[Any], twin: Transition[Any], what: str
    ) -> None:
        """A move the engine lets be taken back showed nobody anything hidden, its own maker
        included (else taking it back and playing again would use what was seen), and the
        request to take it back says the same whatever the secrets."""
        self.run.undoable += 1
        after, other = self.look(transition.state), _Look(self.game, twin.state)
        ours = [_private_events(transition.events, actor), after.private_face(actor)]
        twins = [_private_events(twin.events, actor), other.private_face(actor)]
        diff = _differences(ours, twins)
        assert not diff, (
            f"{what}: the move may be taken back, but showed its maker something hidden "
            f"(declare the event's kind in Game.revealing): {diff}"
        )
        asked = undo.asking("P", 1, undo.events_told(transition.events))
        assert asked == undo.asking("P", 1, undo.events_told(twin.events)), (
            f"{what}: the request to take the move back tells something hidden"
        )

    def check_knowledge(
        self, state: GameState, variant: Variant[Any], where: str, chooser: random.Random
    ) -> None:
        """A strong bot reads only what its seat may see: in ``state`` and in ``variant``
        (which changes only what the bot's seat cannot see), with the same seed, it makes
        the same choice among the same legal actions, by the same values."""
        game = self.game
        seats = [s for s in game.actors(state) if s != variant.owner]
        if not seats:
            return
        seat = chooser.choice(seats)
        legal, twins = game.legal_actions(state, seat), game.legal_actions(variant.state, seat)
        assert legal == twins, f"{where} changes what seat {seat} may do"
        if len(legal) < 2:
            return
        seed = chooser.getrandbits(32)
        seen, imagined = bots.Thought(), bots.Thought()
        mine = bots.strong_choice(
            game, state, seat, legal, random.Random(seed), KNOWLEDGE_BUDGET, seen
        )
        theirs = bots.strong_choice(
            game, variant.state, seat, twins, random.Random(seed), KNOWLEDGE_BUDGET, imagined
        )
        self.run.knowledge += 1
        # Its whole search, not only its choice: a value that moves with a hidden card shows
        # even when the choice happens to stay.
        assert mine == theirs and seen.values == imagined.values, (
            f"{where} changes the search of seat {seat}'s strong bot ({mine!r}, then "
            f"{theirs!r}): it reads what its seat cannot see"
        )

    # --- one whole game ----------------------------------------------------------------------

    def play(self, bots_only: bool) -> Run:
        for _ in range(MAX_STEPS):
            state = self.state
            if state.finished:
                self.run.state = state
                return self.run
            roll = self.chooser.random()
            if self.generic and not bots_only and (roll < 0.04 or self.run.steps == 0):
                self.check_refusals()
            if not bots_only and state.deadline is not None and roll > 0.97:
                self.apply(SYSTEM, Timeout(key=state.deadline.key))
                continue
            look = self.look(state)
            seat = self.chooser.choice(look.actors())
            legal = look.legal(seat)
            if bots_only or roll > 0.5:
                bot = random.Random(self.chooser.random())
                action = self.game.bot_choice(state, seat, legal, bot)
            else:
                action = self.chooser.choice(legal)
            self.apply(seat, action)
        raise AssertionError(f"{self.game.title}: the game did not end in {MAX_STEPS} actions")


def play_random(
    game: AnyGame,
    players: int,
    options: GameOptions,
    seed: int,
    *,
    bots_only: bool = False,
    secrets: bool = True,
    hook: Hook | None = None,
    generic: bool = True,
    arrange: Callable[[GameState], GameState] | None = None,
) -> Run:
    """Play one game to its end with random and bot choices, checking everything on the way
    (``generic=False``: only the books and ``hook``, for a game's own rule checks).
    ``arrange`` may change the dealt state first (a test's own table)."""
    with _known(game):
        table = _Table(game, players, options, seed, hook, secrets and generic, generic, arrange)
        return table.play(bots_only)


def replay_matches(game: AnyGame, players: int, options: GameOptions, seed: int) -> int:
    """Play a game through the authority's own steps (half the seats bots), write its log as
    the authority does, replay it and compare: returns the number of log entries."""
    names = [f"P{i}" for i in range(players)]
    bots = [i % 2 == 1 for i in range(players)]
    dumped = options.model_dump(mode="json")
    first_version = 1 + seed % 50
    result = start_state(game, names, bots, dumped, seed, first_version)
    entries: list[list[Any]] = [["host", "begin", names, bots], *result.log]
    lines = [line(entries)]
    chooser = random.Random(seed)
    state = result.state
    for _ in range(MAX_STEPS):
        if state.finished:
            break
        actor, action = _random_move(game, state, bots, chooser)
        step = advance(game, state, seed, bots, actor, action)
        assert step.log[0] == encode_action(actor, action)
        lines.append(line(step.log))
        state = step.state
    rebuilt = replay(game, seed, dumped, first_version, lines)
    assert rebuilt is not None
    assert rebuilt.model_dump() == state.model_dump(), "the log does not rebuild the state"
    return sum(len(json.loads(text)) for text in lines)


UNDO_CHANCE = 0.2
"""How often the undo check takes back a move that may be taken back."""
UNDOS_PER_GAME = 4
"""Take-backs per game checked (each replays the log so far)."""


def _restamped(game: AnyGame, before: GameState, back: GameState) -> GameState:
    """``before`` with what a take-back changes by design taken from ``back``: the version
    history (version, decision point, the open decision's stamp and its deadline's key)."""
    state = before.model_copy(deep=True)
    state.version, state.decision_version = back.version, back.decision_version
    if state.decision is not None and back.decision is not None:
        state.decision.opened = back.decision.opened
    if state.deadline is not None and back.deadline is not None:
        state.deadline = state.deadline.model_copy(update={"key": back.deadline.key})
    return state


def _faces(game: AnyGame, state: GameState) -> dict[str, Any]:
    """Everything a state shows: its dump, every view, both boards, the prompt and panels."""
    look = _Look(game, state)
    return {
        "state": state.model_dump(mode="json"),
        "public": look.public_face(),
        "boards": [_dump(look.board()), _dump(look.board(pictured=True))],
        "seats": [look.private_face(seat) for seat in state.seats],
    }


def undo_matches(game: AnyGame, players: int, options: GameOptions, seed: int) -> int:
    """Play a game through the authority's own steps (half the seats bots), taking moves back
    now and then as the authority does (:mod:`bot.commands.game.undo`: the window it keeps, the
    state rebuilt from the log written so far, :meth:`~core.engine.Game.reopen`), and check
    each game taken back against the one before the move; the whole log, take-backs and all,
    then replays to the final state. Returns the number of moves taken back."""
    with _known(game):
        return _undo_matches(game, players, options, seed)


def _undo_matches(game: AnyGame, players: int, options: GameOptions, seed: int) -> int:
    names = [f"P{i}" for i in range(players)]
    bots = [i % 2 == 1 for i in range(players)]
    dumped = options.model_dump(mode="json")
    first_version = 1 + seed % 50
    result = start_state(game, names, bots, dumped, seed, first_version)
    begun: Any = ["host", "begin", names, bots]
    lines = [line([begun, *result.log])]
    record = GameRecord(
        game=game.name,
        host="host",
        host_name="host",
        seed=seed,
        options=dumped,
        first_version=first_version,
        created_at=0,
        updated_at=0,
    )
    played: dict[int, GameState] = {result.state.version: result.state}
    chooser = random.Random(f"undo:{seed}")
    state, taken = result.state, 0
    for _ in range(MAX_STEPS):
        if state.finished:
            break
        actor, action = _random_move(game, state, bots, chooser)
        step = advance(game, state, seed, bots, actor, action)
        lines.append(line(step.log))
        person = actor if actor != SYSTEM else None
        undo.track(record, person, None if person is None else f"u{actor}", state.version, step)
        events = [e for move in step.moves for e in move]
        closing = any(e.reveals or isinstance(e, game.revealing) for e in events)
        if closing or step.state.finished or actor == SYSTEM:
            assert not record.undo_points, (
                f"{game.title}: a move can be taken back after {[e.kind for e in events]}"
            )
        state = step.state
        played[state.version] = state
        if not record.undo_points or taken >= UNDOS_PER_GAME or chooser.random() > UNDO_CHANCE:
            continue
        point = record.undo_points[-1]
        earlier = undo.rebuild(game, record, History(lines=list(lines)), point.before, state)
        assert earlier is not None, f"{game.title}: the log does not rebuild version {point.before}"
        back = game.reopen(earlier, state.version + 1)
        assert back.version == state.version + 1 and back.decision_version == back.version
        expected = _restamped(game, played[point.before], back)
        diff = _differences(_faces(game, expected), _faces(game, back))
        assert not diff, (
            f"{game.title}: the game taken back to version {point.before} is not the game "
            f"before the move: {diff[:5]}"
        )
        lines.append(line([undo_entry(point.user, point.before)]))
        record.undo_points = record.undo_points[:-1]
        state, taken = back, taken + 1
        played[state.version] = state
    rebuilt = replay(game, seed, dumped, first_version, lines)
    assert rebuilt is not None
    assert rebuilt.model_dump() == state.model_dump(), "the log with take-backs does not replay"
    return taken


def check_game(game: AnyGame, seeds: range, bot_seeds: int = 2) -> list[Run]:
    """Every generic check: a random game and a replay for each of ``seeds``, cycling through
    the player counts and option sets, and ``bot_seeds`` bot-only games."""
    runs = []
    sets = option_sets(game)
    counts = players_range(game)
    for seed in seeds:
        players = counts[seed % len(counts)]
        options = sets[seed % len(sets)]
        runs.append(play_random(game, players, options, seed))
        if seed - seeds.start < bot_seeds:
            runs.append(play_random(game, players, options, seed, bots_only=True, secrets=False))
        replay_matches(game, players, options, seed)
        runs[-1].taken_back = undo_matches(game, players, options, seed)
    return runs


def _random_move(
    game: GameLike, state: GameState, bots: Sequence[object], chooser: random.Random
) -> tuple[Seat, Any]:
    """A random legal move of a person the game waits for, or, now and then (or when only bots
    could act), the open deadline's passing."""
    waiting = [s for s in game.actors(state) if not bots[s]]
    if not waiting or (state.deadline is not None and chooser.random() < 0.05):
        assert state.deadline is not None, "the game waits only for bots"
        return SYSTEM, Timeout(key=state.deadline.key)
    actor = chooser.choice(waiting)
    return actor, chooser.choice(game.legal_actions(state, actor))
