"""The engine, and the contract every game declares.

A game is declared as data, a :class:`Game` (its name, models, moves by action type and the
functions of its state), and runs as a pure reducer: ``game.apply(state, actor, action, rng)``
returns the next state and the events that say what happened, or raises :class:`IllegalAction`
with a sentence a player can read. The input state is never mutated, so a refused action leaves
the game exactly as it was.

Seats are numbered from 0. The authority maps platform users to seats; the core only knows seats
and their display names. ``SYSTEM`` is the actor for actions nobody typed (deadline timeouts).

Time is an input: a game declares a pending :class:`Deadline` in its state; when it passes, the
authority applies :class:`Timeout` with that deadline's ``key`` as the system actor. A ``Timeout``
whose key no longer matches the state's deadline is refused, so late or repeated timer fires are
harmless.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import (
    Annotated,
    Generic,
    Literal,
    Never,
    Protocol,
    Self,
    TypeGuard,
    TypeVar,
    cast,
    get_args,
    get_type_hints,
)

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic.main import IncEx
from typing_extensions import TypeForm

from core import ui
from core.commands import Command, Unreadable, Values, find, read
from core.text import escape

__all__ = [
    "MAX_SECONDS",
    "SYSTEM",
    "UNKNOWN_ACTION",
    "ActionSet",
    "Audience",
    "BoardRenderer",
    "Deadline",
    "Decision",
    "Ending",
    "Event",
    "Face",
    "Flow",
    "Game",
    "GameLike",
    "GameOptions",
    "GameState",
    "IllegalAction",
    "MoneyEvent",
    "Move",
    "OpenDecision",
    "Outcome",
    "Play",
    "Plays",
    "Question",
    "Rng",
    "Seat",
    "Standing",
    "Timeout",
    "Transition",
    "Variant",
    "View",
    "erase",
    "open_decision",
    "rank",
]

Seat = int
SYSTEM: Seat = -1
"""The actor of actions the authority applies on its own, such as deadline timeouts."""

Rng = random.Random
"""Randomness comes only from this argument; tests pass a rigged subclass."""


class IllegalAction(Exception):
    """An action the rules refuse. ``str(error)`` is a sentence meant for the player."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Audience(BaseModel):
    """Who may see an event: everyone in the channel, or one seat."""

    model_config = ConfigDict(frozen=True)

    seat: Seat | None = None
    """``None`` means the whole channel; otherwise only this seat."""

    @classmethod
    def public(cls) -> Audience:
        return cls()

    @classmethod
    def only(cls, seat: Seat) -> Audience:
        return cls(seat=seat)

    @property
    def is_public(self) -> bool:
        return self.seat is None


class Event(BaseModel):
    """Something that happened, addressed to an audience.

    ``text`` is the sentence shown to that audience. Each game declares one subclass per
    ``kind`` (in its ``events`` module), with ``kind`` a literal and typed fields for what
    tests and hooks read: they recognise an event by its class, never by parsing text.
    """

    kind: str
    text: str
    audience: Audience = Field(default_factory=Audience.public)
    own: bool = False
    """A player's own words (a pitch): shown as a post of its own, not a line of the log."""
    reveals: bool = False
    """The rules disclose here what was secret until now (sealed choices turned over, bids
    opened): the conformance kit's non-interference check stops at such an event."""


Move = tuple[Seat, Seat, int]
"""One payment, ``(payer, payee, amount)``; ``-1`` is the bank."""


class MoneyEvent(Event):
    """An event that moves money and lists every payment it makes in ``moves``, which the
    default :meth:`Game.payments` reads. Not a kind itself: a game's kinds derive from it."""

    moves: list[Move] = Field(default_factory=list)


class Deadline(BaseModel):
    """A pending deadline declared by the rules: fire ``Timeout(key)`` after ``seconds``."""

    key: str
    seconds: float


UNKNOWN_ACTION = "That is not an action this game knows."
"""The refusal of an action the game has no move for (or cannot read)."""

_PYDANTIC_WORDS = {
    "int_parsing": "is not a whole number",
    "int_type": "is not a whole number",
    "int_from_float": "is not a whole number",
    "string_type": "is not text",
    "bool_parsing": "is not yes or no",
    "list_type": "is not a list",
    "missing": "is missing",
    "literal_error": "is not one the game takes",
    "greater_than_equal": "is too small",
    "less_than_equal": "is too large",
    "greater_than": "is too small",
    "less_than": "is too large",
    "too_long": "is too long",
    "too_short": "is too short",
    "string_too_long": "is too long",
    "extra_forbidden": "is not part of it",
}
"""Pydantic's error types as the words a refusal says after the field's name."""


def _shown_input(value: object) -> str:
    """`` “abc”``: what was given, quoted and cut short (nothing for a missing field)."""
    if value is None or isinstance(value, dict):
        return ""
    text = " ".join(str(value).split())
    text = text if len(text) <= 40 else text[:39] + "…"
    return f" “{escape(text)}”"


class OpenDecision(BaseModel):
    """The decision a game waits on now: one of those it declares (:attr:`Game.decisions`)."""

    name: str
    opened: int | None = None
    """The version of the state it opened in: set by the engine as the action that opened it
    ends (None until then)."""


def open_decision(state: GameState, name: str) -> None:
    """Open the decision ``name`` (one the game declares in :attr:`Game.decisions`): a new
    decision point, whose buttons alone are current from now on. As the action ends, the
    engine stamps it with the new version and sets its deadline from the declaration, keyed
    ``<name>@v<version>``, so a timer left over from an earlier decision can never end it."""
    state.decision = OpenDecision(name=name)


class Timeout(BaseModel):
    """The system action applied when a declared deadline passes."""

    type: Literal["timeout"] = "timeout"
    key: str


class Standing(BaseModel):
    """One line of the final standings."""

    seat: Seat
    name: str
    score: float
    rank: int
    """1 for the winner; tied seats share a rank."""
    note: str = ""
    """What else the standings say of the seat, as markup (``bankrupt``, ``4 Growth cards``)."""


class Ordered(Protocol):
    """What a standings key is: a value ordered against its own kind (a number, a tuple)."""

    def __lt__(self, other: Self, /) -> bool: ...


K = TypeVar("K", bound=Ordered)


def rank(
    names: Sequence[str],
    seats: Iterable[Seat],
    key: Callable[[Seat], K],
    score: Callable[[Seat], float],
    note: Callable[[Seat], str] | None = None,
) -> list[Standing]:
    """Standings, best first: a higher ``key`` ranks higher, seats with equal keys share a
    rank (1, 1, 3...) and are listed in seat order. ``note`` says what else the standings
    tell of a seat (:meth:`Game.score_text` writes its score)."""
    order = sorted(seats, key=lambda s: (key(s), -s), reverse=True)
    return [
        Standing(
            seat=s,
            name=names[s],
            score=score(s),
            rank=1 + sum(1 for o in order if key(s) < key(o)),
            note=note(s) if note is not None else "",
        )
        for s in order
    ]


class Ending(StrEnum):
    """How a game ended; simulations tally these and the rules pages name them."""

    TARGET = "reached the target"
    TARGET_TOGETHER = "reached the target together"
    LAST_STANDING = "last one standing"
    EVERYONE_BANKRUPT = "everyone bankrupt"
    TIME_LIMIT = "time limit"
    ROUND_LIMIT = "round limit"
    ALL_ROUNDS = "every round played"


_EARLIER_ENDINGS = {
    "last team standing": Ending.LAST_STANDING,
    "every player dealt twice": Ending.ALL_ROUNDS,
}
"""Words games stored before :class:`Ending` existed, so that ended games still load."""


def _ending(value: object) -> object:
    return _EARLIER_ENDINGS.get(value, value) if isinstance(value, str) else value


class Outcome(BaseModel):
    """How a finished game ended."""

    standings: list[Standing]
    summary: str
    ended: Annotated[Ending, BeforeValidator(_ending)]
    rounds: int = 0
    """How many of the game's natural rounds were played (dealer rounds, business cycles...)."""

    @property
    def winners(self) -> list[Seat]:
        return [s.seat for s in self.standings if s.rank == 1]


MAX_SECONDS = 7 * 86_400
"""The longest any deadline option may be (a week: a move a day, or a few a week). A game is
kept at least as long as its open deadline and a day, whatever the idle TTL says."""


class GameOptions(BaseModel):
    """Base class of each game's options; every field needs a default and every number a
    range (``ge``/``le``), which ``start`` states when a value is outside it."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class GameState(BaseModel):
    """Base class of each game's full (secret-holding) state."""

    version: int = 0
    """Rises by one per applied action."""
    names: list[str]
    """Display name of each seat."""
    deadline: Deadline | None = None
    clock: Deadline | None = None
    """A time limit for the whole game in clock time, declared once (at ``new_game``): the
    authority arms it when it first appears, beside the decision deadlines, and applies
    ``Timeout(clock.key)`` when it passes; the game then calls time."""
    outcome: Outcome | None = None
    decision: OpenDecision | None = None
    """The decision the game waits on now (:func:`open_decision`); None once it is over."""
    decision_version: int = 0
    """The version at which the current decision point (phase or turn) began. Buttons built at
    this version or later are still current; older ones are stale. Kept by :meth:`Game.apply`."""

    @model_validator(mode="before")
    @classmethod
    def _an_older_record(cls, data: object) -> object:
        # A state stored before decisions were declared names none: the game says which of its
        # decisions its phase is (the deadline stored with it stands). Then the game reads the
        # record as it stores one now (upgrade).
        if not isinstance(data, dict):
            return data
        if "decision" not in data and data.get("outcome") is None:
            name = cls.legacy_decision(data)
            if name is not None:
                opened = data.get("decision_version", 0)
                data = {**data, "decision": {"name": name, "opened": opened}}
        return cls.upgrade(data)

    @classmethod
    def legacy_decision(cls, data: Mapping[str, object]) -> str | None:
        """The decision open in a state stored before decisions were declared (its dumped
        fields), by the phase the game kept then; by default none."""
        return None

    @classmethod
    def upgrade(cls, data: dict[str, object]) -> dict[str, object]:
        """A state as an earlier version of the game stored it (its dumped fields), as the game
        stores one now: the game's migration, on every load (by default nothing changes)."""
        return data

    @property
    def deciding(self) -> str | None:
        """The name of the decision open now (:func:`open_decision`); None when none is (the
        game over)."""
        return self.decision.name if self.decision is not None else None

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    def __deepcopy__(self, memo: dict[int, object] | None = None) -> Self:
        # The engine copies the state before every action. A state is plain data, so a
        # validated round trip is a faithful copy, and several times quicker than deepcopy.
        return self.model_validate(self.model_dump())

    @property
    def seats(self) -> range:
        return range(len(self.names))


S = TypeVar("S", bound=GameState)
S_co = TypeVar("S_co", bound=GameState, covariant=True)
S_contra = TypeVar("S_contra", bound=GameState, contravariant=True)


class Transition(BaseModel, Generic[S_co]):
    """The result of a successful :meth:`Game.apply`: the game's own state type, and events."""

    model_config = ConfigDict(frozen=True)

    state: S_co
    events: list[Event]
    undoable: bool = True
    """Whether the action may be taken back (by consent, :meth:`Game.reopen`): it drew
    nothing by chance (the engine hands the move the rng through a watch that notes any use),
    made no event that discloses a secret (``Event.reveals``) or of a kind the game declares
    :attr:`Game.revealing`, and did not end the game. Decided here, once, for every game."""


class View(BaseModel):
    """Base class of a game's view: what one seat (or the channel) may see, as a typed model.

    Bots and the UI read only this; ``model_dump(mode="json")`` is what a client would receive.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")


OptionsT = TypeVar("OptionsT", bound=GameOptions)
A = TypeVar("A", bound=BaseModel)
"""A game's action union (its models, ``Timeout`` among them)."""
V = TypeVar("V", bound=View)
V_contra = TypeVar("V_contra", bound=View, contravariant=True)


class ActionSet(Generic[A]):
    """A game's actions, declared once as a union of models, each with a ``type`` literal as
    its first field (``Timeout`` among them): the validator and the member list come from it.

    ``ActionSet(Pick | Point | Timeout)`` is an ``ActionSet[Pick | Point | Timeout]``:
    :meth:`parse` and :meth:`member` give back the union's type.
    """

    def __init__(self, union: TypeForm[A]) -> None:
        members = get_args(union) or (union,)
        models: list[type[BaseModel]] = []
        for member in members:
            if not (isinstance(member, type) and issubclass(member, BaseModel)):
                raise TypeError(f"an action is a pydantic model, not {member!r}")
            models.append(member)
        self.models = tuple(models)
        self._by_type = {model.model_fields["type"].default: model for model in self.models}
        if len(self._by_type) != len(self.models):
            raise ValueError("two actions share a type")
        if len(self.models) > 1:
            # The union is known at run time only, so its Annotated form cannot be spelled
            # statically; it is the same union, told which field tells its members apart.
            discriminated = Annotated[union, Field(discriminator="type")]  # type: ignore[valid-type]
            self.adapter: TypeAdapter[A] = TypeAdapter(discriminated)
        else:
            self.adapter = TypeAdapter(union)

    def model(self, kind: object) -> type[BaseModel] | None:
        """The member whose ``type`` literal is ``kind``, if any."""
        return self._by_type.get(kind)

    def member(self, action: object) -> TypeGuard[A]:
        """Whether ``action`` is one of these models (an instance of the union)."""
        return isinstance(action, self.models)

    def parse(self, data: object) -> A:
        """Validate an action dict; an unknown or malformed action is an IllegalAction, which
        for an action the game knows names the part that is wrong."""
        try:
            return self.adapter.validate_python(data)
        except ValidationError as exc:
            raise IllegalAction(self._malformed(data, exc)) from exc
        except ValueError as exc:
            raise IllegalAction(UNKNOWN_ACTION) from exc

    def _malformed(self, data: object, error: ValidationError) -> str:
        """``That invest can't be read: its product “abc” is not a whole number.``"""
        kind = data.get("type") if isinstance(data, dict) else None
        if self.model(kind) is None:
            return UNKNOWN_ACTION
        parts = []
        for problem in error.errors()[:3]:
            loc = [str(p) for p in problem["loc"] if str(p) != str(kind)]
            field = " ".join(loc[:1]).replace("_", " ") or "value"
            shown = _shown_input(problem.get("input"))
            what = _PYDANTIC_WORDS.get(problem["type"], problem["msg"].lower())
            parts.append(f"its {field}{shown} {what}")
        return f"That {kind} can't be read: {'; '.join(parts)}."


class Variant(BaseModel, Generic[S_co]):
    """A copy of a state that differs only in what ``owner`` alone may know (``None``: what
    nobody may know, such as the order of a face-down deck). See :meth:`Game.secret_variants`.
    """

    model_config = ConfigDict(frozen=True)

    owner: Seat | None
    state: S_co
    what: str
    """What was changed, for the failure message of the conformance kit."""


class BoardRenderer(Protocol[S_contra, V_contra]):
    """A game's public board renderer: :attr:`Game.board`."""

    def __call__(
        self, state: S_contra, public: V_contra, /, pictured: bool = False
    ) -> ui.Message: ...


# What a game declares nothing for does by default: these are the defaults of Game's hooks.


P_contra = TypeVar("P_contra", bound=BaseModel, contravariant=True)
"""The action type one :class:`Play` takes (its check's and its apply's)."""


def _itself(action: BaseModel) -> object:
    return action


@dataclass(frozen=True, kw_only=True)
class Play(Generic[S, P_contra]):
    """One kind of move as a decision declares it (a move of a boardgame.io stage), filed
    under the action type it takes: the check that says why such an action is refused now,
    what it does, and the actions it offers.

    The engine refuses an action with its check's sentence, and lists as legal the offers its
    check passes (one generator, as in python-chess), so what a seat is offered and what the
    engine accepts cannot drift apart."""

    check: Callable[[S, Seat, P_contra], str | None]
    """Why ``seat`` may not make this action now, as a sentence, or None. It is read on the
    state as it is, never changed (the decision's :attr:`Decision.who` has passed already)."""
    apply: Callable[[S, Seat, P_contra, Rng], list[Event]]
    """What the action does, in place on the engine's private copy, once :attr:`check` has
    passed it; its events."""
    offers: Callable[[S, Seat], Iterable[BaseModel]]
    """The actions of this kind the seat might make now, each of the type the play is filed
    under: the legal ones are those :attr:`check` passes. Every action the check passes has
    the :attr:`shape` of one offered (the conformance kit's property tests check it)."""
    shape: Callable[[P_contra], object] = _itself
    """The choice an action makes, as :attr:`offers` lists it: actions of one shape are one
    choice said in other words (a pick's cards in another order; an amount a player may type
    to the dollar, of which the offers list a few). By default an action is its own shape."""
    anyone: bool = False
    """The decision's :attr:`Decision.who` does not apply: the check alone says who may make
    it (BiggieBills' proposal of a new target, which says why a team not on turn may not)."""


def _anyone(state: GameState, seat: Seat) -> str | None:
    return None


def _no_seconds(state: GameState) -> float:
    return 0


def _refused_timeout(state: GameState, rng: Rng) -> list[Event]:
    raise IllegalAction(UNKNOWN_ACTION)


Plays = Mapping[type[BaseModel], Play[S, Never]]
"""Plays by the action type each takes: ``{Pick: Play(...), Point: Play(...)}``."""


@dataclass(frozen=True, kw_only=True)
class Decision(Generic[S]):
    """A kind of decision a game waits on, declared once in :attr:`Flow.decisions` under its
    name (a turn, a simultaneous pick, a window others may answer), with the moves it accepts.
    The game opens one with :func:`open_decision`; the engine then derives from the
    declaration what each seat may do, whom the game waits for, the deadline and what the
    deadline's passing does."""

    plays: Plays[S]
    """The moves it accepts, in the order legal actions list them; any other action is
    refused while it is open (with :attr:`Flow.misplaced`'s sentence)."""
    who: Callable[[S, Seat], str | None] = _anyone
    """Why ``seat`` may make none of its moves (not its turn), or None: checked before each
    play's own check; by default every seat may."""
    waits: Callable[[S], list[Seat]] | None = None
    """The seats it waits for while it is open (the engine's :meth:`Flow.waiting_for`): a seat
    that has answered a simultaneous decision may still change its mind, but is not waited
    for. By default (None) every seat :attr:`who` lets act."""
    seconds: Callable[[S], float] = _no_seconds
    """Its deadline, in seconds from when it opens (typically a table option); 0, the default,
    none."""
    timeout: Callable[[S, Rng], list[Event]] = _refused_timeout
    """What its deadline's passing does, in place on the engine's copy: the least harmful
    choice for whoever it still waits for."""
    each_action: bool = False
    """Every action taken while it is open is a new decision point, though its deadline runs
    on: each changes what may be done next (BiggieBills' turn, whose every play changes the
    team's hand), so the buttons shown before it are stale. By default only opening a
    decision (and the game's end) is one: a seat answering a simultaneous decision outdates
    nobody else's buttons."""

    def waiting_for(self, state: S) -> list[Seat]:
        if self.waits is not None:
            return self.waits(state)
        return [seat for seat in state.seats if self.who(state, seat) is None]

    @cached_property
    def open_to_all(self) -> Plays[S]:
        """Its plays that :attr:`who` does not apply to (:attr:`Play.anyone`)."""
        return {kind: play for kind, play in self.plays.items() if play.anyone}


@dataclass(frozen=True, kw_only=True)
class Question(Generic[S]):
    """A public question open beside the decision the game waits for (BiggieBills' vote on a
    new target), declared by a game as :attr:`Flow.question`, with the moves that answer it.

    The game does not wait for it: its seats get no deadline and no turn notice, and their
    panels are redrawn only as they start or stop answering; the question is the public prompt
    (:attr:`Game.render_prompt`), whose buttons stand from the version it opened at until it
    closes, whatever else is decided meanwhile. Bots answer it as soon as they may. An answer
    that leaves it open opens no new decision: nobody else's buttons go stale.
    """

    seats: Callable[[S], list[Seat]]
    """The seats that may answer it now (none while it is closed)."""
    opened: Callable[[S], int | None]
    """The state version at which the open question opened, or None when none is open."""
    plays: Plays[S]
    """The moves that answer it, accepted whatever decision is open (their checks refuse
    them while it is closed)."""


def _not_now(state: GameState, seat: Seat, action: BaseModel, where: tuple[str, ...]) -> str:
    return "You cannot do that now."


@dataclass(frozen=True, kw_only=True, eq=False)
class Flow(Generic[S, A]):
    """What may be played when, declared once: the decisions a game waits on, each with the
    moves it accepts, a question open beside them and the moves accepted at any time. From it
    the engine refuses what the open decision does not take, and derives every seat's legal
    actions and whom the game waits for (:meth:`legal_actions`, :meth:`waiting_for`); the game
    keeps no phase of its own. ``A`` is the game's action union (:attr:`Game.actions`), whose
    members every play is filed under."""

    decisions: Mapping[str, Decision[S]] = field(default_factory=dict)
    """The decisions the game waits on, by name (``{"pick": Decision(...), ...}``). The rules
    open one with :func:`open_decision`. A game that declares none waits for every seat with a
    legal action, has no deadlines, and makes every action a new decision point."""
    question: Question[S] | None = None
    """A public question that may be open beside the decision (BiggieBills' vote on a new
    target): see :class:`Question`. By default there is none."""
    standing: Plays[S] = field(default_factory=dict)
    """Standing choices, accepted whatever decision is open and listed apart from the moves
    (:meth:`standing_choices`): a player's setting that decides nothing now (Busine$$ GO's
    "always compete"). In a game that declares no decisions, its moves are these."""
    misplaced: Callable[[S, Seat, A, tuple[str, ...]], str] = _not_now
    """Why an action the open decision does not take is refused, as a sentence for the
    player: ``where`` names the decisions that do take it (none for a game's end). By default
    "You cannot do that now."."""

    def declared(self, state: S) -> Decision[S] | None:
        """The declaration of the decision open in ``state`` (None: none is)."""
        opened = state.decision
        return self.decisions.get(opened.name) if opened is not None else None

    def kinds(self) -> Iterator[tuple[type[BaseModel], Play[S, Never]]]:
        """Every play declared, under its action type (a type several decisions take, once
        for each)."""
        for decision in self.decisions.values():
            yield from decision.plays.items()
        if self.question is not None:
            yield from self.question.plays.items()
        yield from self.standing.items()

    def check(self, state: S, seat: Seat, action: A) -> str | None:
        """Why ``seat`` may not make ``action`` now, as the sentence the engine refuses it
        with, or None. ``seat`` is seated and the game is not over (:meth:`Game.check`)."""
        return self.resolve(state, seat, action)[1]

    def resolve(
        self, state: S, seat: Seat, action: A
    ) -> tuple[Play[S, BaseModel] | None, str | None]:
        """The play that would apply ``action`` now and :meth:`check`'s sentence: the play and
        None when the action may be made, no play and the refusal when not."""
        kind = type(action)
        declared = self.declared(state)
        found = declared.plays.get(kind) if declared is not None else None
        if declared is not None and found is not None:
            play = _erased(found)
            why = None if play.anyone else declared.who(state, seat)
            why = why if why is not None else play.check(state, seat, action)
            return (play, None) if why is None else (None, why)
        question = self.question.plays.get(kind) if self.question is not None else None
        found = question if question is not None else self.standing.get(kind)
        if found is not None:
            play = _erased(found)
            why = play.check(state, seat, action)
            return (play, None) if why is None else (None, why)
        where = tuple(name for name, decision in self.decisions.items() if kind in decision.plays)
        return None, self.misplaced(state, seat, action, where) if where else UNKNOWN_ACTION

    def shape(self, action: BaseModel) -> tuple[type[BaseModel], object]:
        """The choice ``action`` makes, as legal actions list it: its type and its play's
        :attr:`Play.shape` (itself, for a type no play is filed under)."""
        kind = type(action)
        play = next((play for filed, play in self.kinds() if filed is kind), None)
        return (kind, action if play is None else _erased(play).shape(action))

    def legal_actions(self, state: S, seat: Seat) -> list[A]:
        """Every move ``seat`` may make now: the open decision's, then the open question's,
        each play's offers that its check passes. The standing choices, which change no
        decision, are listed apart (:meth:`standing_choices`)."""
        legal = self.asked(state, seat)
        if self.question is not None and not state.finished and seat in state.seats:
            legal += self._offered(self.question.plays, state, seat)
        return legal

    def standing_choices(self, state: S, seat: Seat) -> list[A]:
        """The standing choices ``seat`` may make now (:attr:`standing`): with
        :meth:`legal_actions`, every action the engine accepts from the seat. (A game that
        declares no decisions has none: its moves are its legal actions.)"""
        if state.finished or seat not in state.seats or not self.decisions:
            return []
        return self._offered(self.standing, state, seat)

    def asked(self, state: S, seat: Seat) -> list[A]:
        """What the open decision asks of ``seat``: its legal actions without the question's
        (a game's move made for a seat, :attr:`Game.automatic`, is the only one of these). In
        a game that declares no decisions: its moves (:attr:`standing`)."""
        if not self.decisions and not state.finished and seat in state.seats:
            return self._offered(self.standing, state, seat)
        declared = self.declared(state)
        if state.finished or declared is None or seat not in state.seats:
            return []
        if declared.who(state, seat) is not None:
            return self._offered(declared.open_to_all, state, seat)
        return self._offered(declared.plays, state, seat)

    @staticmethod
    def _offered(plays: Plays[S], state: S, seat: Seat) -> list[A]:
        legal: list[BaseModel] = []
        for kind, declared in plays.items():
            play = _erased(declared)
            for action in play.offers(state, seat):
                if type(action) is not kind:
                    raise TypeError(f"a play filed under {kind.__name__} offers {action!r}")
                if play.check(state, seat, action) is None:
                    legal.append(action)
        # Each play is filed under one of the game's actions (Game.__post_init__ checks it)
        # and offers only actions of that type (checked just above).
        return cast("list[A]", legal)

    def waiting_for(self, state: S) -> list[Seat]:
        """Seats whose input the game is waiting for now: those the open decision waits for;
        in a game that declares no decisions, every seat with a legal action."""
        if state.finished:
            return []
        if not self.decisions:
            return [seat for seat in state.seats if self.legal_actions(state, seat)]
        declared = self.declared(state)
        return declared.waiting_for(state) if declared is not None else []

    def answering(self, state: S) -> list[Seat]:
        """The seats that may answer the open :attr:`question` (none when none is open)."""
        return self.question.seats(state) if self.question is not None else []


class _Watched:
    """The rng as a move sees it: every use of it (a roll, a shuffle, a choice) goes to the rng
    itself, a rigged one's own methods included, and is noted (:attr:`Transition.undoable`)."""

    __slots__ = ("_rng", "drawn")

    def __init__(self, rng: Rng) -> None:
        self._rng = rng
        self.drawn = False

    def __getattr__(self, name: str) -> object:
        self.drawn = True
        return getattr(self._rng, name)


def _erased(play: Play[S, Never]) -> Play[S, BaseModel]:
    """A play as the engine calls it: with an action of the type it is filed under, which is
    the type it takes (:meth:`Game.__post_init__` checks that)."""
    return cast("Play[S, BaseModel]", play)


def _none(state: GameState) -> None:
    return None


def _no_events(state: GameState) -> list[Event]:
    return []


def _no_news(before: GameState, after: GameState) -> list[Event]:
    return []


def _no_lobby_problem(
    options: GameOptions, seat_sizes: list[int], seat_names: list[str]
) -> str | None:
    return None


def _never_out(state: GameState, seat: Seat) -> bool:
    return False


def _none_absorbed(state: GameState) -> dict[Seat, Seat]:
    return {}


def _no_ranking(state: GameState) -> list[Standing]:
    return []


def _no_recap(state: GameState) -> list[str]:
    return []


def _no_tallies(state: GameState) -> dict[str, float]:
    return {}


def _plain_score(score: float) -> str:
    return f"{score:,.2f}".rstrip("0").rstrip(".")


def _plain_money(amount: int) -> str:
    return f"{amount:,}"


def _no_prompt(state: GameState) -> ui.Message | None:
    return None


def _no_topics() -> list[str]:
    return []


def _action_text(state: GameState, action: BaseModel) -> str:
    return str(action)


def _open_information(state: S, seat: Seat, rng: Rng) -> S:
    return state.model_copy(deep=True)


def _no_variants(state: GameState, rng: Rng) -> list[Never]:
    return []


def _listed_moves(event: Event) -> list[Move]:
    return list(event.moves) if isinstance(event, MoneyEvent) else []


def _not_drawn() -> IncEx:
    return {"version", "deadline"}


@dataclass(frozen=True, kw_only=True, eq=False)
class Game(Generic[S, OptionsT, A, V]):
    """A game, declared as data: what it is, its moves, and the functions of its state that
    the engine and the authority read (each game's package declares one, ``GAME = Game(...)``).

    The engine is this class's methods: :meth:`apply` checks the action by the open
    decision's declaration (:attr:`flow`), copies the state and applies the move it names (a
    ``Timeout`` the open decision's declared timeout, :meth:`timeout`), and keeps the version,
    the open decision's deadline and the decision version. A field left out has the default
    its docstring says; a game fills in only what it has.
    """

    name: str
    """Command name, e.g. ``bigidea``."""
    title: str
    min_players: int
    max_players: int
    state_model: type[S]
    """The game's full, secret-holding state model."""
    options_model: type[OptionsT]
    actions: ActionSet[A]
    """The game's action union (Timeout included), declared once."""

    # --- rules -----------------------------------------------------------------------------

    new_state: Callable[[Sequence[str], OptionsT, Rng], S]
    """A fresh game for these seat names (already counted by :meth:`new_game`); the state may
    already declare a deadline. Which seats bots play is the authority's to know; the rules
    treat every seat alike."""
    flow: Flow[S, A]
    """What may be played when: the decisions the game waits on, each with the moves it
    accepts, and what is accepted beside them (:class:`Flow`). The engine refuses what the
    open decision does not take, and derives :meth:`legal_actions`, :meth:`waiting_for`, the
    deadline, the decision version and where a ``Timeout`` goes from it."""
    clock_timeout: Callable[[S, Rng], list[Event]] = _refused_timeout
    """What the game clock running out does (a time limit for the whole game that the state
    declares once, :attr:`GameState.clock`: BiggieBills' ``minutes``), in place. By default
    the game has none."""
    news: Callable[[S, S], list[Event]] = _no_news
    """What the seats are told after every action besides its own events, from the states
    before and after it (BiggieBills tells each team whose hand changed what came in and
    what went). By default nothing."""
    view: Callable[[S, Seat | None], V]
    """What a seat (``None``: everyone) may see. Bots and the UI read only this."""
    automatic: Callable[[S], tuple[Seat, A] | None] = _none
    """A move the game makes by itself now for a seat it waits for, a person's as well as a
    bot's (typically the only legal move, when the table's options want that), or None. The
    authority applies it as that seat's move right after every action, before any bot move,
    and logs it like any other, so a replay makes it too. By default none."""
    lobby_problem: Callable[[OptionsT, list[int], list[str]], str | None] = _no_lobby_problem
    """Why the lobby cannot begin with these options and seats, as a sentence, or None.
    ``seat_sizes`` counts the people in each seat (0 for a bot seat) and ``seat_names`` names
    the seats, in the same order (markup, as the lobby shows them); player and team counts are
    already checked against ``min_players`` and ``max_players``."""
    seat_out: Callable[[S, Seat], bool] = _never_out
    """Whether a seat has left the game by its rules (bankrupt, acquired): it plays no more,
    nobody may join it or be moved into it. By default no seat is ever out."""
    absorbed: Callable[[S], dict[Seat, Seat]] = _none_absorbed
    """Seats whose people now play for another seat, ``{acquired: acquirer}``: after each
    action the authority moves the people of a seat newly here to the seat it maps to, as far
    as ``max_team_size`` allows, and tells them privately. By default none."""
    opening_events: Callable[[S], list[Event]] = _no_events
    """What the channel is told as the game begins (the opening roll, the first order...)."""

    # --- the end -----------------------------------------------------------------------------

    ranking: Callable[[S], list[Standing]] = _no_ranking
    """How the seats rank in a game still being played, from public information only, by the
    rule that decides the winner at the end. By default none is given."""
    recap: Callable[[S], list[str]] = _no_recap
    """A few short lines of how the game went for the final card: public information only, at
    most four lines, each a sentence of markup. By default none."""
    tallies: Callable[[S], dict[str, float]] = _no_tallies
    """What ``boardroom simulate`` averages over finished games: a name ending in ``_pct`` is a
    yes (1) or no (0) per game, any other a number, printed as its mean."""
    score_text: Callable[[float], str] = _plain_score
    """A score (:attr:`Standing.score`, or a median of them) as the game writes its money;
    by default a plain number with thousands separators."""
    simulation_variants: Mapping[str, list[str]] = field(default_factory=dict)
    """Named option sets (``key=value`` words) that ``boardroom simulate`` runs one after the
    other when it is given no options, e.g. ``{"normal": [], "short": ["short=yes"]}``."""

    # --- seats and bots ------------------------------------------------------------------------

    teams: bool = False
    """Seats are teams: several users may share a seat and any of them acts for it. The core
    still only knows seats; the authority maps members to them."""
    max_team_size: int | None = None
    """In a team game, the most people one team may have (None: no limit)."""
    bot_action: Callable[[V, list[A], Rng], A]
    """A bot's choice among the seat's legal actions, from the seat's own view only (the
    normal level; :mod:`core.bots` makes the easy and strong levels of it)."""
    worth: Callable[[S], list[float]] | None = None
    """Each seat's worth as the game stands, from public information (money and what its
    holdings are worth), in seat order: what a strong bot's search scores a position by before
    the end (:mod:`core.bots`). By default (None) the ranking's scores."""
    sample: Callable[[S, Seat, Rng], S] = _open_information
    """A state ``seat`` cannot tell from this one, for a strong bot's search
    (:mod:`core.bots`): a copy whose every hidden part the seat may not see (others' hands,
    the order of face-down decks, others' pending secret choices) is dealt anew at random
    from what it could be. It must depend only on what the seat may see and ``rng``: two
    states that differ only in what the seat cannot see give the same sample for the same
    ``rng`` (the conformance kit checks it through a strong bot's choices over
    :attr:`secret_variants`). By default a copy, right for a game of open information."""

    # --- presentation ------------------------------------------------------------------------

    board: BoardRenderer[S, V]
    """The public live board (:meth:`render_board`), from ``public``, the channel's view of
    the state (``view(state, None)``, built once for the board, its picture and what it is
    drawn from): only what that view shows (with :attr:`choices_on_board`, the controls of the
    seats the game waits for too, from the state). ``pictured``: the board carries its
    picture, so its text leaves out what the picture shows and keeps what a player needs that
    the picture does not give."""
    render_private: Callable[[S, Seat], ui.Message]
    """The seat's private panel: its hand and the buttons for its legal actions."""
    render_prompt: Callable[[S], ui.Message | None] = _no_prompt
    """A public message with buttons that any seat may press (a vote), or None (the default)."""
    choices_on_board: bool = False
    """A game of open information whose choices are public: the board carries the controls
    of the seats the game waits for (each press updates the board itself), and a seat has no
    private panel to keep. Its private news (a sealed bid's amount) goes to the seat's people
    as private messages, and :attr:`render_private` is what ``hand`` shows: holdings, no
    controls. By default every choice is on the seat's private panel."""
    draw: Callable[[V], ui.Picture] | None = None
    """The board drawn as a picture from the public view alone (a pure function: the same
    view, the same bytes); None (the default) for a game that draws none."""
    undrawn: IncEx = field(default_factory=_not_drawn)
    """What of the public view the picture does not draw, as pydantic's ``exclude``: a change
    there redraws nothing (:meth:`picture_basis`). By default the version and the deadline."""
    rules: Callable[[str | None], str]
    """A short rules overview (``None``), one topic of the rules page, or ``all`` of it."""
    rule_topics: Callable[[], list[str]] = _no_topics
    """The topics :attr:`rules` knows, for menus and autocomplete."""
    commands: tuple[Command, ...] = ()
    """The game's typed moves as data (:mod:`core.commands`): each reads its arguments by their
    kinds and makes the game's action (:meth:`parse_text`); the help, the platforms' command
    lists and the forms a button opens are built from them."""
    describe_action: Callable[[S, A], str] = _action_text
    """A short label for an action, used in buttons and the log."""

    # --- what the conformance kit checks, by what the game declares -------------------------

    secret_variants: Callable[[S, Rng], Sequence[Variant[S]]] = _no_variants
    """Copies of the state that change only hidden information: other seats' hands, the order
    of face-down decks, pending secret choices, sealed bids. Nothing public and nothing in the
    private output of a seat other than the variant's owner may depend on the difference. A
    game without secrets declares none (the default)."""
    ledger: Callable[[S], list[int] | None] = _none
    """Each seat's money, when every payment is listed by :attr:`payments`: the books must
    balance after every action."""
    money_text: Callable[[int], str] = _plain_money
    """An amount of :attr:`ledger`'s money as the game writes it; by default a plain number."""
    payments: Callable[[Event], list[Move]] = _listed_moves
    """The payments an event lists as ``(payer, payee, amount)``, ``-1`` the bank; by default
    the ``moves`` of a :class:`MoneyEvent`, and none for any other event."""
    round_of: Callable[[S], int | None] = _none
    """The round the game is in (its own kind: :attr:`round_word`), which the end-of-game
    chart marks on its x axis; None for a game without rounds."""
    round_word: str = "round"
    """What the game calls a round ("Business Cycle")."""
    inventory: Callable[[S], dict[str, int] | None] = _none
    """A count of everything that is only ever moved, never made or destroyed (every card in
    exactly one place): it must be the same after every action."""
    revealing: tuple[type[Event], ...] = ()
    """The kinds of event that tell someone what was hidden without the rules marking them
    ``reveals`` and without a draw of the rng (cards dealt from a deck shuffled earlier): an
    action that makes one cannot be taken back (:attr:`Transition.undoable`). Chance (any draw
    of the rng) and ``reveals`` the engine sees by itself. The conformance kit checks the
    declaration: after an action said to be undoable, nobody has seen anything hidden."""

    def __post_init__(self) -> None:
        for kind, play in self.flow.kinds():
            if kind is Timeout:
                raise TypeError(f"{self.title}'s Timeout is its timeout, not one of its moves")
            if kind not in self.actions.models:
                raise TypeError(f"{kind.__name__} is not one of {self.title}'s actions")
            if not (_takes(play.check, kind) and _takes(play.apply, kind)):
                raise TypeError(f"{self.title}'s move for {kind.__name__} takes another action")
        for name in self.flow.decisions:
            if not name or "@" in name:
                raise TypeError(f"{self.title}'s decision {name!r} needs a name without '@'")

    # --- the engine ----------------------------------------------------------------------------

    def new_game(self, names: Sequence[str], options: OptionsT, rng: Rng) -> S:
        """Set up a fresh game for ``names`` (ValueError for too few or too many seats)."""
        if not self.min_players <= len(names) <= self.max_players:
            seats = "teams" if self.teams else "players"
            raise ValueError(f"{self.title} needs {self.min_players}-{self.max_players} {seats}.")
        state = self.new_state(names, options, rng)
        self._settle_decision(state, None)
        return state

    def apply(
        self, state: S, actor: Seat, action: BaseModel | Mapping[str, object], rng: Rng
    ) -> Transition[S]:
        """Apply ``action`` (or the dict of one, as tests write them) by ``actor`` to a copy of
        ``state``.

        Returns the new state (version + 1) and its events, or raises :class:`IllegalAction`
        with the sentence of the check that refuses it (:meth:`check`); ``state`` itself is
        never changed.
        """
        move = self.parse_action(action) if isinstance(action, Mapping) else action
        play: Play[S, BaseModel] | None = None
        if isinstance(move, Timeout):
            if state.finished:
                raise IllegalAction("This game is over.")
            self.check_timeout(state, move, actor)
        else:
            play, why = self._resolve(state, actor, move)
            if play is None:
                raise IllegalAction(why or UNKNOWN_ACTION)
        work = state.model_copy(deep=True)
        was = work.decision
        watched = _Watched(rng)
        drawing = cast(Rng, watched)
        if play is None:  # a Timeout, checked above
            events = self.timeout(work, cast(Timeout, move), drawing)
        else:
            events = play.apply(work, actor, move, drawing)
        events += self.news(state, work)
        work.version = state.version + 1
        changed = self._settle_decision(work, was)
        if (changed or self._each_action(state)) and not self._answered(state, work, move):
            work.decision_version = work.version
        undoable = (
            not work.finished
            and not isinstance(move, Timeout)
            and not any(e.reveals or isinstance(e, self.revealing) for e in events)
            and not watched.drawn
        )
        return Transition(state=work, events=events, undoable=undoable)

    def reopen(self, earlier: S, version: int) -> S:
        """``earlier`` (a state of this game before an action now taken back) as the game's
        state at ``version`` (the version after the one taken back's successors): the same
        state, with the version history going on (``version``, a new decision point, so every
        button shown since is stale) and its open decision's deadline armed again in full,
        keyed by the new version. The game clock (a time limit) runs on as it was."""
        state = earlier.model_copy(deep=True)
        state.version = state.decision_version = version
        if state.decision is not None:
            # Stamped, and its deadline set, as if it opened now.
            state.decision.opened = None
            self._settle_decision(state, None)
        return state

    def check(self, state: S, seat: Seat, action: BaseModel) -> str | None:
        """Why ``seat`` may not make ``action`` now, as the sentence :meth:`apply` refuses it
        with, or None (python-chess's ``is_legal``): the game's end, an unseated actor and an
        action the game does not know, then the open decision's check (:meth:`Flow.check`).
        A ``Timeout`` is the clock's (:meth:`check_timeout`)."""
        return self._resolve(state, seat, action)[1]

    def _resolve(
        self, state: S, seat: Seat, action: BaseModel
    ) -> tuple[Play[S, BaseModel] | None, str | None]:
        """:meth:`check`, with the play that applies ``action`` when it may be made."""
        if state.finished:
            return None, "This game is over."
        if seat not in state.seats:
            return None, f"Only a seated {'team' if self.teams else 'player'} can do that."
        if not self.actions.member(action) or isinstance(action, Timeout):
            return None, UNKNOWN_ACTION
        return self.flow.resolve(state, seat, action)

    def legal_actions(self, state: S, seat: Seat) -> list[A]:
        """Every action ``seat`` may make now (never ``Timeout``): :meth:`Flow.legal_actions`,
        the offers of the plays open now that their checks pass."""
        return self.flow.legal_actions(state, seat)

    def standing_choices(self, state: S, seat: Seat) -> list[A]:
        """The standing choices ``seat`` may make now (:meth:`Flow.standing_choices`)."""
        return self.flow.standing_choices(state, seat)

    def shape(self, action: BaseModel) -> tuple[type[BaseModel], object]:
        """The choice ``action`` makes, as legal actions list it (:meth:`Flow.shape`): every
        action the engine accepts has the shape of one :meth:`legal_actions` or
        :meth:`standing_choices` lists."""
        return self.flow.shape(action)

    def _settle_decision(self, state: S, was: OpenDecision | None) -> bool:
        """In place, as an action (or the set-up) ends: a decision the rules opened meanwhile
        (``state.decision`` is no longer ``was``) is stamped with the state's version and gets
        its declared deadline; one closed (the game over) takes its deadline with it. Whether
        a decision opened or closed: a new decision point."""
        if state.finished:
            state.decision = None
        opened = state.decision
        if opened is was:
            return False
        if opened is None:
            state.deadline = None
            return True
        declared = self.flow.decisions.get(opened.name)
        if declared is None:
            raise TypeError(f"{self.title} opened {opened.name!r}, which it does not declare")
        opened.opened = state.version
        seconds = declared.seconds(state)
        key = f"{opened.name}@v{state.version}"
        state.deadline = Deadline(key=key, seconds=seconds) if seconds > 0 else None
        return True

    def _each_action(self, state: S) -> bool:
        """Whether any action taken in ``state`` is a new decision point: the open decision
        says so (:attr:`Decision.each_action`), or the game declares none."""
        if not self.flow.decisions:
            return True
        open_now = self.flow.declared(state)
        return open_now is not None and open_now.each_action

    def _answered(self, before: S, after: S, action: BaseModel) -> bool:
        """Whether ``action`` answered the open question and left it open: it opens no new
        decision, so nobody else's buttons go stale."""
        question = self.flow.question
        if question is None or type(action) not in question.plays:
            return False
        opened = question.opened(before)
        return opened is not None and question.opened(after) == opened

    @staticmethod
    def check_timeout(state: GameState, action: Timeout, actor: Seat) -> None:
        """Refuse a Timeout from a player, or one for a deadline that is no longer pending."""
        if actor != SYSTEM:
            raise IllegalAction("Only the game clock can end a phase.")
        pending = [d.key for d in (state.deadline, state.clock) if d is not None]
        if action.key not in pending:
            raise IllegalAction("That deadline has already passed.")

    def timeout(self, state: S, action: Timeout, rng: Rng) -> list[Event]:
        """In place: what the passing of the pending deadline ``action.key`` does: the game
        clock's :attr:`clock_timeout`, or the open decision's :attr:`Decision.timeout`."""
        if state.clock is not None and action.key == state.clock.key:
            return self.clock_timeout(state, rng)
        declared = self.flow.declared(state)
        if declared is None:
            raise IllegalAction(UNKNOWN_ACTION)
        return declared.timeout(state, rng)

    def waiting_for(self, state: S) -> list[Seat]:
        """Seats whose input the game is waiting for now (:meth:`Flow.waiting_for`)."""
        return self.flow.waiting_for(state)

    def answering(self, state: S) -> list[Seat]:
        """The seats that may answer the open question (:meth:`Flow.answering`)."""
        return self.flow.answering(state)

    def prompt_version(self, state: S) -> int:
        """The state version at which the open prompt (:attr:`render_prompt`) opened: a new
        value is a new prompt, and the buttons it shows stand until then, whatever else is
        decided meanwhile. The open question's, else the current decision's."""
        question = self.flow.question
        opened = question.opened(state) if question is not None else None
        return opened if opened is not None else state.decision_version

    def actors(self, state: S) -> list[Seat]:
        """Every seat that may act now: those the game waits for and those answering."""
        return sorted({*self.waiting_for(state), *self.answering(state)})

    def standings(self, state: S) -> list[Standing]:
        """The ranking as it stands, best first: the final one (the outcome's) once the game
        is over, else :attr:`ranking`. The card of a game the host ended early shows it."""
        if state.outcome is not None:
            return list(state.outcome.standings)
        return self.ranking(state)

    def render_board(self, state: S, pictured: bool = False, public: V | None = None) -> ui.Message:
        """The live board (:attr:`board`); ``public``: the channel's view of ``state``, when the
        caller has it already."""
        return self.board(state, public if public is not None else self.view(state, None), pictured)

    def picture(self, state: S, public: V | None = None) -> ui.Picture | None:
        """The board drawn by :attr:`draw` from the public view (``public``, when the caller
        has it already), or None."""
        if self.draw is None:
            return None
        return self.draw(public if public is not None else self.view(state, None))

    def picture_basis(self, state: S, public: V | None = None) -> str:
        """What :meth:`picture` draws from, as text: equal bases, equal pictures (so that the
        table draws and uploads a picture only when it changed): the channel's view without
        what :attr:`undrawn` names."""
        seen = public if public is not None else self.view(state, None)
        return seen.model_dump_json(exclude=self.undrawn)

    @property
    def draws_pictures(self) -> bool:
        """Whether the game draws its board (it declares :attr:`draw`)."""
        return self.draw is not None

    def parse_text(self, state: S, seat: Seat, word: str, rest: str) -> A | None:
        """The action the typed command ``word`` (then ``rest``) means, its arguments read by
        their kinds as :attr:`commands` declares them (:func:`core.commands.read`); None when
        an argument it needs is missing, IllegalAction with a sentence when one cannot be read
        or names no move. A command whose first argument is required is never passed here
        without one."""
        command = find(self.commands, word)
        if command is None or command.make is None:
            return None
        make = cast("Callable[[S, Seat, Values], BaseModel | None]", command.make)
        usage = cast("Callable[[S, Seat], str] | None", command.usage)

        def said() -> str:
            return usage(state, seat) if usage is not None else ""

        try:
            typed = read(command, rest, state.names, said if usage is not None else None)
        except Unreadable as unread:
            raise IllegalAction(str(unread)) from None
        made = make(state, seat, typed) if typed is not None else None
        if made is not None and not self.actions.member(made):
            raise TypeError(f"{self.title}'s {word} makes {made!r}, not one of its actions")
        return made

    def bot_choice(self, state: S, seat: Seat, legal: list[A], rng: Rng) -> A:
        """The seat's bot's choice among ``legal`` (the seat's legal actions), made from the
        seat's own view only (:attr:`bot_action`)."""
        return self.bot_action(self.view(state, seat), legal, rng)

    # --- the game as the registry hands it out (GameLike) ------------------------------------

    def at(self, state: GameState) -> Face[S, OptionsT, A, V]:
        """The face of ``state`` (:class:`Face`), for a caller that holds it as a plain
        :class:`GameState` (the authority: it finds the game by name, and the state by the
        game's :attr:`state_model`). TypeError when ``state`` is another game's."""
        if not isinstance(state, self.state_model):
            raise TypeError(f"a {type(state).__name__} is not a state of {self.title}")
        return Face(self, state)

    def setup(
        self, names: Sequence[str], options: GameOptions | Mapping[str, object], rng: Rng
    ) -> S:
        """:meth:`new_game` with the options as stored (a record's, a result's) or as read
        already: read by the game's :attr:`options_model` (ValidationError when they do not
        fit it, another game's options included)."""
        return self.new_game(names, self.options_model.model_validate(options), rng)

    def check_lobby(
        self, options: GameOptions, seat_sizes: list[int], seat_names: list[str]
    ) -> str | None:
        """:attr:`lobby_problem` for options read by :attr:`options_model` (TypeError when
        they are another game's)."""
        if not isinstance(options, self.options_model):
            raise TypeError(f"{type(options).__name__} are not options of {self.title}")
        return self.lobby_problem(options, seat_sizes, seat_names)

    def action_model(self, kind: object) -> type[BaseModel] | None:
        """The member of the action union whose ``type`` literal is ``kind``, if any."""
        return self.actions.model(kind)

    def parse_action(self, data: object) -> A | Timeout:
        """Validate an action dict; an unknown or malformed action is an IllegalAction."""
        parsed: A | Timeout = self.actions.parse(data)
        return parsed


def _takes(
    function: Callable[[Never, Never, Never], object]
    | Callable[[Never, Never, Never, Never], object],
    kind: type[BaseModel],
) -> bool:
    """Whether ``function``'s action parameter (its third) is declared to take ``kind`` (one
    left undeclared or generic is taken at its word)."""
    try:
        hints = get_type_hints(function)
    except NameError:
        return True
    names = list(inspect.signature(function).parameters)
    declared = hints.get(names[2]) if len(names) >= 3 else None
    if declared is None or isinstance(declared, TypeVar):
        return True
    members = get_args(declared) or (declared,)
    return any(isinstance(member, type) and issubclass(kind, member) for member in members)


GameLike = Game[GameState, GameOptions, BaseModel, View]
"""A game of any kind, as the registry hands it out and the authority uses it: a :class:`Game`
seen through the base types of its state, options, actions and view. Its hooks take any
``GameState`` to such a caller; :meth:`Game.at` gives the face of one of its states, checked to
be its own."""


def erase(game: Game[S, OptionsT, A, V]) -> GameLike:
    """``game`` as a :data:`GameLike`: its own types seen through their bases (what the
    registry keeps). Sound as far as each state given to it is its own (:meth:`Game.at`
    checks that; the authority reads every state with the game's :attr:`state_model`)."""
    return cast("GameLike", game)


@dataclass(frozen=True, eq=False)
class Face(Generic[S, OptionsT, A, V]):
    """One step's face of a game: its state, its public view built once, and the game, whose
    hooks each step calls with that state (``face.game.recap(face.state)``). The board, its
    picture and what the picture is drawn from all read the same :attr:`public` view. Made by
    :meth:`Game.at`."""

    game: Game[S, OptionsT, A, V]
    state: S

    @cached_property
    def public(self) -> V:
        """The channel's view of :attr:`state`, built on first use and kept."""
        return self.game.view(self.state, None)
