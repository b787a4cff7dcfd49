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
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Generic, Literal, Self, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter
from typing_extensions import TypeVar

from core import ui

__all__ = [
    "MAX_SECONDS",
    "SYSTEM",
    "ActionSet",
    "Audience",
    "Deadline",
    "Ending",
    "Event",
    "Game",
    "GameOptions",
    "GameState",
    "IllegalAction",
    "MoneyEvent",
    "Move",
    "Outcome",
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


def rank(
    names: Sequence[str],
    seats: Iterable[Seat],
    key: Callable[[Seat], Any],
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
            rank=1 + sum(1 for o in order if key(o) > key(s)),
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

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        # The engine copies the state before every action. A state is plain data, so a
        # validated round trip is a faithful copy, and several times quicker than deepcopy.
        return self.model_validate(self.model_dump())

    @property
    def seats(self) -> range:
        return range(len(self.names))


class Transition(BaseModel):
    """The result of a successful :meth:`Game.apply`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    state: Any
    events: list[Event]


S = TypeVar("S", bound=GameState)
OptionsT = TypeVar("OptionsT", bound=GameOptions)
A = TypeVar("A", default=Any)
V = TypeVar("V", default=Any)


class View(BaseModel):
    """Base class of a game's view: what one seat (or the channel) may see, as a typed model.

    Bots and the UI read only this; ``model_dump(mode="json")`` is what a client would receive.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")


class ActionSet(Generic[A]):
    """A game's actions, declared once as a union of models, each with a ``type`` literal as
    its first field (``Timeout`` among them): the validator and the member list come from it.
    """

    def __init__(self, union: Any) -> None:
        self.models: tuple[type[BaseModel], ...] = get_args(union) or (union,)
        self._by_type = {model.model_fields["type"].default: model for model in self.models}
        if len(self._by_type) != len(self.models):
            raise ValueError("two actions share a type")
        discriminated = Annotated[union, Field(discriminator="type")]
        self.adapter: TypeAdapter[A] = TypeAdapter(discriminated if len(self.models) > 1 else union)

    def model(self, kind: object) -> type[BaseModel] | None:
        """The member whose ``type`` literal is ``kind``, if any."""
        return self._by_type.get(kind)

    def parse(self, data: object) -> A:
        """Validate an action dict; an unknown or malformed action is an IllegalAction."""
        try:
            return self.adapter.validate_python(data)
        except ValueError as exc:
            raise IllegalAction("That is not an action this game knows.") from exc


class Variant(BaseModel):
    """A copy of a state that differs only in what ``owner`` alone may know (``None``: what
    nobody may know, such as the order of a face-down deck). See :meth:`Game.secret_variants`.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    owner: Seat | None
    state: Any
    what: str
    """What was changed, for the failure message of the conformance kit."""


class Game(ABC, Generic[S, OptionsT, A, V]):
    """A registered game. Subclasses are stateless; everything lives in the state model."""

    name: ClassVar[str]
    """Command name, e.g. ``bigidea``."""
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    state_model: ClassVar[type[GameState]]
    options_model: ClassVar[type[GameOptions]]
    actions: ClassVar[ActionSet[Any]]
    """The game's action union (Timeout included), declared once."""
    text_commands: ClassVar[dict[str, str]] = {}
    """Game-specific text subcommands handled by :meth:`parse_text`, with their help line."""
    forms: ClassVar[dict[str, ui.Ask]] = {}
    """The form that asks for each typed command a button can open (``ui.Button(ask=True)``)."""
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

    def apply(self, state: S, actor: Seat, action: A | Timeout, rng: Rng) -> Transition:
        """Apply ``action`` by ``actor`` to a copy of ``state``.

        Returns the new state (version + 1) and its events, or raises :class:`IllegalAction`;
        ``state`` itself is never changed.
        """
        if state.finished:
            raise IllegalAction("This game is over.")
        work = state.model_copy(deep=True)
        events = self._apply(work, actor, action, rng)
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

    @abstractmethod
    def _apply(self, state: S, actor: Seat, action: A | Timeout, rng: Rng) -> list[Event]:
        """Validate and apply in place on a private copy; raise IllegalAction to refuse."""

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
        public = self.view(state, None)
        assert isinstance(public, BaseModel)  # every game's view is a model (View)
        return public.model_dump_json(exclude={"version", "deadline"})

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
        """Turn a game-specific text command (e.g. ``pitch <text>``) into an action, or None."""
        return None

    def describe_action(self, state: S, action: A) -> str:
        """A short label for an action, used in buttons and the log."""
        return str(action)

    # --- helpers shared by every game ------------------------------------------------------

    def action_model(self, kind: object) -> type[BaseModel] | None:
        """The member of the action union whose ``type`` literal is ``kind``, if any."""
        return self.actions.model(kind)

    def parse_action(self, data: object) -> A | Timeout:
        """Validate an action dict; an unknown or malformed action is an IllegalAction."""
        parsed: A | Timeout = self.actions.parse(data)
        return parsed

    # --- what the conformance kit checks, by what the game declares -------------------------

    def secret_variants(self, state: S, rng: Rng) -> list[Variant]:
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
