"""The engine contract every game implements.

A game is a pure reducer: ``apply(state, actor, action, rng)`` returns the next state and the
events that say what happened, or raises :class:`IllegalAction` with a sentence a player can read.
The input state is never mutated, so a refused action leaves the game exactly as it was.

Seats are numbered from 0. The authority maps platform users to seats; the core only knows seats
and their display names. ``SYSTEM`` is the actor for actions nobody typed (deadline timeouts).

Time is an input: a game declares a pending :class:`Deadline` in its state; when it passes, the
authority applies :class:`Timeout` with that deadline's ``key`` as the system actor. A ``Timeout``
whose key no longer matches the state's deadline is refused, so late or repeated timer fires are
harmless.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum
from typing import (
    Annotated,
    ClassVar,
    Generic,
    Literal,
    Never,
    Protocol,
    Self,
    TypeGuard,
    TypeVar,
    cast,
    get_args,
)

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter
from typing_extensions import TypeForm

from core import ui
from core.commands import Command

__all__ = [
    "MAX_SECONDS",
    "SYSTEM",
    "UNKNOWN_ACTION",
    "ActionSet",
    "Audience",
    "Deadline",
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
    "Outcome",
    "Position",
    "Rng",
    "Seat",
    "Standing",
    "Timeout",
    "Transition",
    "Variant",
    "View",
    "declare",
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


def declare(state: GameState, decision: str, seconds: float) -> None:
    """Declare the deadline of the decision that has just opened (``seconds`` 0: none).

    Every game keys its deadlines the same way, ``<decision>@v<version>``: the version of the
    action that opened it makes the key unique, so a timer left over from an earlier decision
    can never end a later one.
    """
    key = f"{decision}@v{state.version}"
    state.deadline = Deadline(key=key, seconds=seconds) if seconds > 0 else None


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
    decision_version: int = 0
    """The version at which the current decision point (phase or turn) began. Buttons built at
    this version or later are still current; older ones are stale. Kept by :meth:`Game.apply`."""

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
        """Validate an action dict; an unknown or malformed action is an IllegalAction."""
        try:
            return self.adapter.validate_python(data)
        except ValueError as exc:
            raise IllegalAction(UNKNOWN_ACTION) from exc


class Variant(BaseModel, Generic[S_co]):
    """A copy of a state that differs only in what ``owner`` alone may know (``None``: what
    nobody may know, such as the order of a face-down deck). See :meth:`Game.secret_variants`.
    """

    model_config = ConfigDict(frozen=True)

    owner: Seat | None
    state: S_co
    what: str
    """What was changed, for the failure message of the conformance kit."""


class Game(ABC, Generic[S, OptionsT, A, V]):
    """A registered game. Subclasses are stateless; everything lives in the state model."""

    name: ClassVar[str]
    """Command name, e.g. ``bigidea``."""
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    state_model: type[S]
    """The game's state model (a class attribute, like the ones above and below)."""
    options_model: type[OptionsT]
    actions: ActionSet[A]
    """The game's action union (Timeout included), declared once."""
    commands: ClassVar[tuple[Command, ...]] = ()
    """The game's typed moves as data (:mod:`core.commands`), read by :meth:`parse_text`; the
    help, the platforms' command lists and the forms a button opens (``Command.ask``) are
    built from them."""
    teams: ClassVar[bool] = False
    """Seats are teams: several users may share a seat and any of them acts for it. The core
    still only knows seats; the authority maps members to them."""
    max_team_size: ClassVar[int | None] = None
    """In a team game, the most people one team may have (None: no limit)."""
    choices_on_board: ClassVar[bool] = False
    """A game of open information whose choices are public: the board carries the controls
    of the seats the game waits for (each press updates the board itself), and a seat has no
    private panel to keep. Its private news (a sealed bid's amount) goes to the seat's people
    as private messages, and :meth:`render_private` is what ``hand`` shows: holdings, no
    controls. By default every choice is on the seat's private panel."""
    simulation_variants: ClassVar[dict[str, list[str]]] = {}
    """Named option sets (``key=value`` words) that ``boardroom simulate`` runs one after the
    other when it is given no options, e.g. ``{"normal": [], "short": ["short=yes"]}``."""

    # --- rules -----------------------------------------------------------------------------

    @abstractmethod
    def new_game(self, names: Sequence[str], options: OptionsT, rng: Rng) -> S:
        """Set up a fresh game; the returned state may already declare a deadline.

        Which seats bots play is the authority's to know (it may change as people leave);
        the rules treat every seat alike."""

    moves: Moves[S]
    """The game's moves, by the action type each applies: ``{Pick: pick, Point: point}``, each
    ``(state, seat, action, rng) -> events`` working in place on the engine's private copy
    (several types may share one move). The engine finds the move of an action by its type,
    after checking that the actor is seated; :meth:`timeout` is what a passed deadline does."""

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
        events = self._apply(work, actor, action, rng)
        events += self.news(state, work)
        work.version = state.version + 1
        if self.decision_key(work) != self.decision_key(state):
            work.decision_version = work.version
        return Transition(state=work, events=events)

    def decision_key(self, state: S) -> str:
        """Names the current decision point (e.g. ``"r3:pick"``); a change makes old buttons stale.

        The default treats every action as a new decision point; games with simultaneous
        phases override it so that one player's choice does not outdate another's buttons.
        """
        return str(state.version)

    def lobby_problem(
        self, options: OptionsT, seat_sizes: list[int], seat_names: list[str]
    ) -> str | None:
        """Why the lobby cannot begin with these options and seats, as a sentence, or None.

        ``seat_sizes`` counts the people in each seat (0 for a bot seat) and ``seat_names``
        names the seats, in the same order (markup, as the lobby shows them), so that the
        sentence can say which seat is wrong; player and team counts are already checked
        against ``min_players`` and ``max_players``.
        """
        return None

    def seat_out(self, state: S, seat: Seat) -> bool:
        """Whether ``seat`` has left the game by its rules (bankrupt, acquired): it plays no
        more. Nobody may join it or be moved into it, and it is not listed among the seats
        playing. By default no seat is ever out."""
        return False

    def absorbed(self, state: S) -> dict[Seat, Seat]:
        """Seats whose people now play for another seat, by seat: ``{acquired: acquirer}``.

        After each action the authority moves the people of a seat that has newly appeared here
        to the seat it maps to (in the same save), as far as ``max_team_size`` allows, and tells
        them privately. A seat that is out but absent here keeps its people, who only watch.
        By default no seat is ever absorbed."""
        return {}

    def standings(self, state: S) -> list[Standing]:
        """The ranking as it stands, best first: the final one (the outcome's) once the game
        is over, else :meth:`ranking`. The card of a game the host ended early shows it."""
        if state.outcome is not None:
            return list(state.outcome.standings)
        return self.ranking(state)

    def ranking(self, state: S) -> list[Standing]:
        """How the seats rank in a game still being played, from public information only, by
        the rule that decides the winner at the end. By default none is given."""
        return []

    def recap(self, state: S) -> list[str]:
        """A few short lines of how the game went (or, for a game ended early, how far it got)
        for the final card, which is the one message a channel keeps: public information
        only, at most four lines, each a sentence of markup. By default none."""
        return []

    def tallies(self, state: S) -> dict[str, float]:
        """What ``boardroom simulate`` averages over finished games, beyond how they ended:
        a name ending in ``_pct`` is a yes (1) or no (0) per game, printed as a percentage of
        the games; any other name is a number, printed as its mean."""
        return {}

    def score_text(self, score: float) -> str:
        """A score (:attr:`Standing.score`, or a median of them) as the game writes its money:
        ``$5,645,000`` rather than ``5.645e+06``, on the final card and in ``boardroom
        simulate``. By default a plain number with thousands separators."""
        return f"{score:,.2f}".rstrip("0").rstrip(".")

    def _apply(self, state: S, actor: Seat, action: A | Timeout, rng: Rng) -> list[Event]:
        """Dispatch in place on the private copy: a ``Timeout`` to :meth:`timeout` (once
        :meth:`check_timeout` has passed it), any other action to its move in :attr:`moves`,
        from a seated actor only."""
        if isinstance(action, Timeout):
            self.check_timeout(state, action, actor)
            return self.timeout(state, action, rng)
        if actor not in state.seats:
            raise IllegalAction(f"Only a seated {'team' if self.teams else 'player'} can do that.")
        move = self.moves.get(type(action))
        if move is None:
            raise IllegalAction(UNKNOWN_ACTION)
        # ``moves`` holds each move by the type it takes (the declaration says so), which is
        # the type of ``action`` here.
        run = cast("Callable[[S, Seat, BaseModel, Rng], list[Event]]", move)
        return run(state, actor, action, rng)

    def timeout(self, state: S, action: Timeout, rng: Rng) -> list[Event]:
        """What the passing of a pending deadline (``action.key``: the decision's or the game
        clock's) does, in place. By default the game declares no deadline."""
        raise IllegalAction(UNKNOWN_ACTION)

    def news(self, before: S, after: S) -> list[Event]:
        """What the seats are told after every action besides its own events, from the states
        before and after it (BiggieBills tells each team whose hand changed what came in and
        what went). By default nothing."""
        return []

    @abstractmethod
    def legal_actions(self, state: S, actor: Seat) -> list[A]:
        """Every action ``actor`` may take now (never ``Timeout``); agrees with ``apply``."""

    @abstractmethod
    def view(self, state: S, viewer: Seat | None) -> V:
        """What ``viewer`` may see (``None``: what everyone may see): a :class:`View`."""

    def waiting_for(self, state: S) -> list[Seat]:
        """Seats whose input the game is waiting for now."""
        return [seat for seat in state.seats if self.legal_actions(state, seat)]

    def answering(self, state: S) -> list[Seat]:
        """Seats that may answer a public question open beside the decision the game waits
        for (BiggieBills' vote on a new target), which the game does not wait for: it gives
        them no deadline and no turn notice, and their panels are redrawn only as they start or
        stop answering; the question is the public prompt. Bots answer it as soon as they may.
        By default nothing is open beside the decision."""
        return []

    def actors(self, state: S) -> list[Seat]:
        """Every seat that may act now: those the game waits for and those answering."""
        return sorted({*self.waiting_for(state), *self.answering(state)})

    def prompt_version(self, state: S) -> int:
        """The state version at which the open prompt (:meth:`render_prompt`) opened: a new
        value is a new prompt, and the buttons it shows stand until then, whatever else is
        decided meanwhile. By default the prompt is the current decision's."""
        return state.decision_version

    def automatic(self, state: S) -> tuple[Seat, A] | None:
        """A move the game makes by itself now for a seat it waits for, a person's as well as
        a bot's (typically the only legal move, when the table's options want that), or None.

        The authority applies it as that seat's move right after every action, before any bot
        move, and logs it like any other, so a replay makes it too; ``apply`` must accept it.
        By default the game makes no move by itself."""
        return None

    # --- bots ------------------------------------------------------------------------------

    @abstractmethod
    def bot_action(self, view: V, legal: list[A], rng: Rng) -> A:
        """Choose one of ``legal`` using only the seat's own ``view``."""

    # --- presentation ----------------------------------------------------------------------

    @abstractmethod
    def render_board(self, state: S, pictured: bool = False) -> ui.Message:
        """The public live board: only what ``view(state, None)`` shows (with
        :attr:`choices_on_board`, the controls of the seats the game waits for too).

        ``pictured``: the board carries its :meth:`picture`, so its text leaves out what the
        picture shows (a track, a table of numbers) and keeps what a player needs that the
        picture does not give; what the picture shows that a screen reader must say is in its
        alt text. A game that draws no picture ignores it."""

    def picture_basis(self, state: S) -> str:
        """What :meth:`picture` draws from, as text: equal bases, equal pictures (so that the
        table draws and uploads a picture only when it changed). By default the channel's view
        without what changes with every move but is not drawn (the version, the deadline)."""
        return self.view(state, None).model_dump_json(exclude={"version", "deadline"})

    def picture(self, state: S) -> ui.Picture | None:
        """The board drawn as a picture from the public view ``view(state, None)`` alone (a
        pure function: the same view, the same bytes); None for a game that draws none."""
        return None

    @abstractmethod
    def render_private(self, state: S, seat: Seat) -> ui.Message:
        """The seat's private panel: its hand and the buttons for its legal actions."""

    @abstractmethod
    def render_prompt(self, state: S) -> ui.Message | None:
        """A public message with buttons that any seat may press (e.g. a vote), or ``None``."""

    @abstractmethod
    def rules(self, topic: str | None) -> str:
        """A short rules overview (``None``), one topic of the rules page, or ``all`` of it."""

    def opening_events(self, state: S) -> list[Event]:
        """What the channel is told as the game begins (the opening roll, the first order...).

        ``new_game`` returns only a state; the authority posts these before any move."""
        return []

    def rule_topics(self) -> list[str]:
        """The topics :meth:`rules` knows, for menus and autocomplete."""
        return []

    def parse_text(self, state: S, seat: Seat, word: str, rest: str) -> A | None:
        """Turn one of :attr:`commands` (e.g. ``pitch <text>``) into an action, or None when an
        argument it needs is missing. A command whose first argument is required is never
        passed here without one."""
        return None

    def describe_action(self, state: S, action: A) -> str:
        """A short label for an action, used in buttons and the log."""
        return str(action)

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
        """:meth:`lobby_problem` for options read by :attr:`options_model` (TypeError when
        they are another game's)."""
        if not isinstance(options, self.options_model):
            raise TypeError(f"{type(options).__name__} are not options of {self.title}")
        return self.lobby_problem(options, seat_sizes, seat_names)

    @property
    def draws_pictures(self) -> bool:
        """Whether the game draws its board (it overrides :meth:`picture`)."""
        return type(self).picture is not Game.picture

    # --- helpers shared by every game ------------------------------------------------------

    def action_model(self, kind: object) -> type[BaseModel] | None:
        """The member of the action union whose ``type`` literal is ``kind``, if any."""
        return self.actions.model(kind)

    def parse_action(self, data: object) -> A | Timeout:
        """Validate an action dict; an unknown or malformed action is an IllegalAction."""
        parsed: A | Timeout = self.actions.parse(data)
        return parsed

    # --- what the conformance kit checks, by what the game declares -------------------------

    def secret_variants(self, state: S, rng: Rng) -> list[Variant[S]]:
        """Copies of ``state`` that change only hidden information: other seats' hands, the
        order of face-down decks, pending secret choices, sealed bids. Nothing public (the
        public view, board, prompt, public events, who the game waits for and until when) and
        nothing in the private output of a seat other than the variant's owner may depend on
        the difference. A game without secrets declares none."""
        return []

    def ledger(self, state: S) -> list[int] | None:
        """Each seat's money, when every payment is listed by :meth:`payments`: the books must
        balance after every action."""
        return None

    def money_text(self, amount: int) -> str:
        """An amount of :meth:`ledger`'s money as the game writes it (the end-of-game chart's
        labels); by default a plain number."""
        return f"{amount:,}"

    def payments(self, event: Event) -> list[Move]:
        """The payments ``event`` lists as ``(payer, payee, amount)``, ``-1`` the bank; by
        default the ``moves`` of a :class:`MoneyEvent`, and none for any other event."""
        return list(event.moves) if isinstance(event, MoneyEvent) else []

    def inventory(self, state: S) -> dict[str, int] | None:
        """A count of everything that is only ever moved, never made or destroyed (every card
        in exactly one place): it must be the same after every action."""
        return None

    @staticmethod
    def check_timeout(state: GameState, action: Timeout, actor: Seat) -> None:
        """Refuse a Timeout from a player, or one for a deadline that is no longer pending."""
        if actor != SYSTEM:
            raise IllegalAction("Only the game clock can end a phase.")
        pending = [d.key for d in (state.deadline, state.clock) if d is not None]
        if action.key not in pending:
            raise IllegalAction("That deadline has already passed.")


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

    @property
    def state(self) -> S_co:
        return self._state

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
        return self._game.view(self._state, viewer)

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

    def decision_key(self) -> str:
        return self._game.decision_key(self._state)

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

    def ranking(self) -> list[Standing]:
        return self._game.ranking(self._state)

    def recap(self) -> list[str]:
        return self._game.recap(self._state)

    def tallies(self) -> dict[str, float]:
        return self._game.tallies(self._state)

    def opening_events(self) -> list[Event]:
        return self._game.opening_events(self._state)

    def render_board(self, pictured: bool = False) -> ui.Message:
        return self._game.render_board(self._state, pictured)

    def render_private(self, seat: Seat) -> ui.Message:
        return self._game.render_private(self._state, seat)

    def render_prompt(self) -> ui.Message | None:
        return self._game.render_prompt(self._state)

    def picture_basis(self) -> str:
        return self._game.picture_basis(self._state)

    def picture(self) -> ui.Picture | None:
        return self._game.picture(self._state)

    def secret_variants(self, rng: Rng) -> Sequence[Variant[S_co]]:
        return self._game.secret_variants(self._state, rng)

    def ledger(self) -> list[int] | None:
        return self._game.ledger(self._state)

    def inventory(self) -> dict[str, int] | None:
        return self._game.inventory(self._state)


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
