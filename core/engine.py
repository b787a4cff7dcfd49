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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
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
from core.commands import Command
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
    "Game",
    "GameLike",
    "GameOptions",
    "GameState",
    "IllegalAction",
    "MoneyEvent",
    "Move",
    "Moves",
    "OpenDecision",
    "Outcome",
    "Position",
    "Question",
    "Rng",
    "Seat",
    "Standing",
    "Timeout",
    "Transition",
    "Variant",
    "View",
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


MAX_SECONDS = 86_400
"""The longest any deadline option may be (a day): longer would outlive a game nobody touches."""


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
    def _decision_of_an_older_record(cls, data: object) -> object:
        # A state stored before decisions were declared names none: the game says which of its
        # decisions its phase is (the deadline stored with it stands).
        if isinstance(data, dict) and "decision" not in data and data.get("outcome") is None:
            name = cls.legacy_decision(data)
            if name is not None:
                opened = data.get("decision_version", 0)
                data = {**data, "decision": {"name": name, "opened": opened}}
        return data

    @classmethod
    def legacy_decision(cls, data: Mapping[str, object]) -> str | None:
        """The decision open in a state stored before decisions were declared (its dumped
        fields), by the game's own phases; by default none."""
        return None

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


class View(BaseModel):
    """Base class of a game's view: what one seat (or the channel) may see, as a typed model.

    Bots and the UI read only this; ``model_dump(mode="json")`` is what a client would receive.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")


OptionsT = TypeVar("OptionsT", bound=GameOptions)
A = TypeVar("A", bound=BaseModel)
"""A game's action union (its models, ``Timeout`` among them)."""
V = TypeVar("V", bound=View)
O_co = TypeVar("O_co", bound=GameOptions, covariant=True)
A_co = TypeVar("A_co", bound=BaseModel, covariant=True)
V_co = TypeVar("V_co", bound=View, covariant=True)
V_contra = TypeVar("V_contra", bound=View, contravariant=True)


Moves = Mapping[type[BaseModel], Callable[[S, Seat, Never, Rng], list[Event]]]
"""A game's moves by the action type each applies: ``{Pick: pick, Point: point}``. A move
takes the state (the engine's private copy, changed in place), the acting seat, the action (of
the type it is filed under, which its signature names) and the rng, and returns the events."""


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


@dataclass(frozen=True, kw_only=True)
class Question(Generic[S]):
    """A public question open beside the decision the game waits for (BiggieBills' vote on a
    new target), declared by a game as :attr:`Game.question`.

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
    answers: tuple[type[BaseModel], ...]
    """The actions that answer it."""


def _no_seconds(state: GameState) -> float:
    return 0


def _refused_timeout(state: GameState, rng: Rng) -> list[Event]:
    raise IllegalAction(UNKNOWN_ACTION)


@dataclass(frozen=True, kw_only=True)
class Decision(Generic[S]):
    """A kind of decision a game waits on, declared once in :attr:`Game.decisions` under its
    name (a turn, a simultaneous pick, a window others may answer). The game opens one with
    :func:`open_decision`; the engine then derives from the declaration whom the game waits
    for, the deadline and what the deadline's passing does."""

    waits: Callable[[S], list[Seat]]
    """The seats it waits for while it is open (the engine's :meth:`Game.waiting_for`): a seat
    that has answered a simultaneous decision may still change its mind, but is not waited
    for."""
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


def _no_text(state: GameState, seat: Seat, word: str, rest: str) -> None:
    return None


def _action_text(state: GameState, action: BaseModel) -> str:
    return str(action)


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

    The engine is this class's methods: :meth:`apply` copies the state, checks the actor and
    dispatches by the action's type to :attr:`moves` (a ``Timeout`` to the open decision's
    declared timeout, :meth:`timeout`), and keeps the version, the open decision's deadline and
    the decision version. A field left out has the default its
    docstring says; a game fills in only what it has.
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
    moves: Moves[S]
    """The game's moves, by the action type each applies: ``{Pick: pick, Point: point}``, each
    ``(state, seat, action, rng) -> events`` working in place on the engine's private copy
    (several types may share one move). The engine finds the move of an action by its type,
    after checking that the actor is seated."""
    decisions: Mapping[str, Decision[S]] = field(default_factory=dict)
    """The decisions the game waits on, by name (``{"pick": Decision(...), ...}``): whom each
    waits for, its deadline and what that deadline's passing does (:class:`Decision`). The
    rules open one with :func:`open_decision`; the engine derives :meth:`waiting_for`, the
    deadline, the decision version and where a ``Timeout`` goes. A game that declares none
    waits for every seat with a legal action, has no deadlines, and makes every action a new
    decision point."""
    clock_timeout: Callable[[S, Rng], list[Event]] = _refused_timeout
    """What the game clock running out does (a time limit for the whole game that the state
    declares once, :attr:`GameState.clock`: BiggieBills' ``minutes``), in place. By default
    the game has none."""
    news: Callable[[S, S], list[Event]] = _no_news
    """What the seats are told after every action besides its own events, from the states
    before and after it (BiggieBills tells each team whose hand changed what came in and
    what went). By default nothing."""
    legal_actions: Callable[[S, Seat], list[A]]
    """Every action a seat may take now (never ``Timeout``); agrees with :meth:`apply`."""
    view: Callable[[S, Seat | None], V]
    """What a seat (``None``: everyone) may see. Bots and the UI read only this."""
    question: Question[S] | None = None
    """A public question that may be open beside the decision the game waits for
    (BiggieBills' vote on a new target): see :class:`Question`. By default there is none."""
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
    """A bot's choice among the seat's legal actions, from the seat's own view only."""

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
    """The game's typed moves as data (:mod:`core.commands`), read by :attr:`parse_text`; the
    help, the platforms' command lists and the forms a button opens are built from them."""
    parse_text: Callable[[S, Seat, str, str], A | None] = _no_text
    """Turn one of :attr:`commands` (``word``, then the ``rest`` of the line) into an action,
    or None when an argument it needs is missing. A command whose first argument is required
    is never passed here without one."""
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

    def __post_init__(self) -> None:
        for kind, move in self.moves.items():
            if kind is Timeout:
                raise TypeError(f"{self.title}'s Timeout is its timeout, not one of its moves")
            if kind not in self.actions.models:
                raise TypeError(f"{kind.__name__} is not one of {self.title}'s actions")
            if not _takes(move, kind):
                raise TypeError(f"{self.title}'s move for {kind.__name__} takes another action")
        for name in self.decisions:
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
        self, state: S, actor: Seat, action: A | Timeout | Mapping[str, object], rng: Rng
    ) -> Transition[S]:
        """Apply ``action`` (or the dict of one, as tests write them) by ``actor`` to a copy of
        ``state``.

        Returns the new state (version + 1) and its events, or raises :class:`IllegalAction`;
        ``state`` itself is never changed.
        """
        if state.finished:
            raise IllegalAction("This game is over.")
        if isinstance(action, Mapping):
            action = self.parse_action(action)
        work = state.model_copy(deep=True)
        was = work.decision
        events = self._dispatch(work, actor, action, rng)
        events += self.news(state, work)
        work.version = state.version + 1
        changed = self._settle_decision(work, was)
        if (changed or self._each_action(state)) and not self._answered(state, work, action):
            work.decision_version = work.version
        return Transition(state=work, events=events)

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
        declared = self.decisions.get(opened.name)
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
        if not self.decisions:
            return True
        open_now = self.declared_decision(state)
        return open_now is not None and open_now.each_action

    def declared_decision(self, state: S) -> Decision[S] | None:
        """The declaration of the decision open in ``state`` (None: none is)."""
        return self.decisions.get(state.decision.name) if state.decision is not None else None

    def _answered(self, before: S, after: S, action: BaseModel) -> bool:
        """Whether ``action`` answered the open question and left it open: it opens no new
        decision, so nobody else's buttons go stale."""
        question = self.question
        if question is None or not isinstance(action, question.answers):
            return False
        opened = question.opened(before)
        return opened is not None and question.opened(after) == opened

    def _dispatch(self, state: S, actor: Seat, action: A | Timeout, rng: Rng) -> list[Event]:
        """In place on the private copy: a ``Timeout`` to :meth:`timeout` once
        :meth:`check_timeout` has passed it, any other action to its move, from a seat."""
        if isinstance(action, Timeout):
            self.check_timeout(state, action, actor)
            return self.timeout(state, action, rng)
        if actor not in state.seats:
            raise IllegalAction(f"Only a seated {'team' if self.teams else 'player'} can do that.")
        move = self.moves.get(type(action))
        if move is None:
            raise IllegalAction(UNKNOWN_ACTION)
        # ``moves`` holds each move under the type it takes (``__post_init__`` checks that),
        # which is the type of ``action`` here.
        run = cast("Callable[[S, Seat, BaseModel, Rng], list[Event]]", move)
        return run(state, actor, action, rng)

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
        declared = self.declared_decision(state)
        if declared is None:
            raise IllegalAction(UNKNOWN_ACTION)
        return declared.timeout(state, rng)

    def waiting_for(self, state: S) -> list[Seat]:
        """Seats whose input the game is waiting for now: those the open decision waits for
        (:attr:`Decision.waits`); in a game that declares no decisions, every seat with a
        legal action."""
        if state.finished:
            return []
        if not self.decisions:
            return [seat for seat in state.seats if self.legal_actions(state, seat)]
        declared = self.declared_decision(state)
        return declared.waits(state) if declared is not None else []

    def answering(self, state: S) -> list[Seat]:
        """The seats that may answer the open :attr:`question` (none when none is open)."""
        return self.question.seats(state) if self.question is not None else []

    def prompt_version(self, state: S) -> int:
        """The state version at which the open prompt (:attr:`render_prompt`) opened: a new
        value is a new prompt, and the buttons it shows stand until then, whatever else is
        decided meanwhile. The open question's, else the current decision's."""
        opened = self.question.opened(state) if self.question is not None else None
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

    # --- the game as the registry hands it out (GameLike) ------------------------------------

    def at(self, state: GameState) -> Position[S, OptionsT, A, V]:
        """This game at ``state``, for a caller that holds the state as a plain
        :class:`GameState` (the authority: it finds the game by name, and the state by the
        game's :attr:`state_model`). TypeError when ``state`` is another game's."""
        if not isinstance(state, self.state_model):
            raise TypeError(f"a {type(state).__name__} is not a state of {self.title}")
        return Position(self, state)

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


def _takes(move: Callable[[S, Seat, Never, Rng], list[Event]], kind: type[BaseModel]) -> bool:
    """Whether ``move``'s action parameter (its third) is declared to take ``kind`` (one left
    undeclared or generic is taken at its word)."""
    try:
        hints = get_type_hints(move)
    except NameError:
        return True
    names = list(inspect.signature(move).parameters)
    declared = hints.get(names[2]) if len(names) >= 3 else None
    if declared is None or isinstance(declared, TypeVar):
        return True
    members = get_args(declared) or (declared,)
    return any(isinstance(member, type) and issubclass(kind, member) for member in members)


class Position(Generic[S_co, O_co, A_co, V_co]):
    """A game at one state: the game's rules and views of that state, none of which take it.

    :meth:`Game.at` makes one after checking that the state is the game's own, which is what
    lets a caller that knows neither (the authority, the registry's games) use them: an action
    it passes in is checked to be one of the game's too (:meth:`apply`), and everything given
    back has the game's own types, seen through their bases (``GameState``, ``BaseModel``,
    ``View``) by such a caller.
    """

    def __init__(self, game: Game[S_co, O_co, A_co, V_co], state: S_co) -> None:
        self._game = game
        self._state = state
        self._public: V_co | None = None

    def _action(self, action: BaseModel) -> A_co:
        if not self._game.actions.member(action):
            raise IllegalAction(UNKNOWN_ACTION)
        return action

    def apply(self, actor: Seat, action: BaseModel, rng: Rng) -> Transition[S_co]:
        """:meth:`Game.apply`; an action that is not one of the game's is refused like one
        its rules do not know."""
        return self._game.apply(self._state, actor, self._action(action), rng)

    def legal_actions(self, seat: Seat) -> Sequence[A_co]:
        return self._game.legal_actions(self._state, seat)

    def view(self, viewer: Seat | None) -> V_co:
        if viewer is None:
            return self.public()
        return self._game.view(self._state, viewer)

    def public(self) -> V_co:
        """The channel's view, built once for this position: the board, its picture and what
        the picture is drawn from all read the same one."""
        if self._public is None:
            self._public = self._game.view(self._state, None)
        return self._public

    def bot_action(self, seat: Seat, legal: Sequence[BaseModel], rng: Rng) -> A_co:
        """The seat's bot's choice among ``legal`` (the seat's legal actions), from the seat's
        own view."""
        own = [action for action in legal if self._game.actions.member(action)]
        if len(own) != len(legal):
            raise TypeError(f"not every action offered is one of {self._game.title}'s")
        return self._game.bot_action(self._game.view(self._state, seat), own, rng)

    def automatic(self) -> tuple[Seat, A_co] | None:
        return self._game.automatic(self._state)

    def parse_text(self, seat: Seat, word: str, rest: str) -> A_co | None:
        return self._game.parse_text(self._state, seat, word, rest)

    def describe_action(self, action: BaseModel) -> str:
        return self._game.describe_action(self._state, self._action(action))

    def waiting_for(self) -> list[Seat]:
        return self._game.waiting_for(self._state)

    def answering(self) -> list[Seat]:
        return self._game.answering(self._state)

    def actors(self) -> list[Seat]:
        return self._game.actors(self._state)

    def prompt_version(self) -> int:
        return self._game.prompt_version(self._state)

    def seat_out(self, seat: Seat) -> bool:
        return self._game.seat_out(self._state, seat)

    def absorbed(self) -> dict[Seat, Seat]:
        return self._game.absorbed(self._state)

    def standings(self) -> list[Standing]:
        return self._game.standings(self._state)

    def recap(self) -> list[str]:
        return self._game.recap(self._state)

    def tallies(self) -> dict[str, float]:
        return self._game.tallies(self._state)

    def opening_events(self) -> list[Event]:
        return self._game.opening_events(self._state)

    def render_board(self, pictured: bool = False) -> ui.Message:
        return self._game.render_board(self._state, pictured, self.public())

    def render_private(self, seat: Seat) -> ui.Message:
        return self._game.render_private(self._state, seat)

    def render_prompt(self) -> ui.Message | None:
        return self._game.render_prompt(self._state)

    def picture_basis(self) -> str:
        return self._game.picture_basis(self._state, self.public())

    def picture(self) -> ui.Picture | None:
        return self._game.picture(self._state, self.public())

    def secret_variants(self, rng: Rng) -> Sequence[Variant[S_co]]:
        return self._game.secret_variants(self._state, rng)

    def ledger(self) -> list[int] | None:
        return self._game.ledger(self._state)

    def inventory(self) -> dict[str, int] | None:
        return self._game.inventory(self._state)

    def round_of(self) -> int | None:
        return self._game.round_of(self._state)


class GameLike(Protocol):
    """A game of any kind, as the registry hands it out and the authority uses it: what a
    :class:`Game` is, seen without its state, options, action and view types. Its states are
    ``GameState`` to such a caller; :meth:`at` opens one up, checking it is the game's own."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def min_players(self) -> int: ...
    @property
    def max_players(self) -> int: ...
    @property
    def teams(self) -> bool: ...
    @property
    def round_word(self) -> str: ...
    @property
    def max_team_size(self) -> int | None: ...
    @property
    def choices_on_board(self) -> bool: ...
    @property
    def commands(self) -> tuple[Command, ...]: ...
    @property
    def simulation_variants(self) -> Mapping[str, list[str]]: ...
    @property
    def state_model(self) -> type[GameState]: ...
    @property
    def options_model(self) -> type[GameOptions]: ...
    @property
    def draws_pictures(self) -> bool: ...

    def at(self, state: GameState) -> Position[GameState, GameOptions, BaseModel, View]: ...

    def setup(
        self, names: Sequence[str], options: GameOptions | Mapping[str, object], rng: Rng
    ) -> GameState: ...

    def check_lobby(
        self, options: GameOptions, seat_sizes: list[int], seat_names: list[str]
    ) -> str | None: ...

    def action_model(self, kind: object) -> type[BaseModel] | None: ...
    def parse_action(self, data: object) -> BaseModel: ...
    def rules(self, topic: str | None) -> str: ...
    def rule_topics(self) -> list[str]: ...
    def score_text(self, score: float) -> str: ...
    def money_text(self, amount: int) -> str: ...
    def payments(self, event: Event) -> list[Move]: ...
