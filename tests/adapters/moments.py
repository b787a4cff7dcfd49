"""Every moment of many random games: a driver that plays through the real authority.

:func:`play` seats the largest tables each registered game allows (and a few of the smallest),
mostly people with the longest and most hostile display names a platform permits plus a bot or
two, and plays each game to its end the way people would: pressing the buttons and menus the
bot sent them (each encoded as its platform would carry it), typing commands, asking for
``rules``, ``help``, ``status`` and ``hand``, leaving and joining mid-game, and letting deadlines
pass on an injected clock. People find their choices where the table shows them: the lobby
buttons on the card, the public prompt, their own panel and private replies.

Every :class:`~bot.commands.outbox.Outbox` the authority hands back is delivered through the
real table layer (:class:`bot.table.Table`) to a platform that records each message it is asked
to show (:class:`Showing`: the card and its edits, the board with its "Latest" tail and the turn
notice riding on it, log messages, players' posts, prompts and their closed versions, panels as
DMs, ephemeral replies, the notes about closed DMs and missing thread permissions, the result).
A few people keep their DMs closed and a few games may not start a thread, so those paths are
shown too. Each Outbox is yielded as a :class:`Moment` with those showings and where the request
came from, so that a test can render every message exactly as the platform adapters would and
check it against the platform's limits.

Everything is seeded, so a run is the same every time.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from bot import table as tables_layer
from bot.commands import codec
from bot.commands.authority import Authority, Request
from bot.commands.game.play import load_state
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.commands.seats import teams
from bot.settings import Settings
from bot.table.budget import Budget
from core import ui
from core.engine import Deadline, GameLike, GameState, OpenDecision
from core.games.biggiebills.cards import ACQUIRE
from core.games.biggiebills.state import Active, BiggieBillsState
from core.games.bigidea.cards import catalogue
from core.games.bigidea.state import BigIdeaState, Product
from core.registry import all_games
from storage import GameKey, GameStore
from tests.authority_support import save_state

__all__ = [
    "DISCORD",
    "HOSTILE",
    "PLATFORMS",
    "SLACK",
    "Coverage",
    "Moment",
    "Origin",
    "Platform",
    "Run",
    "Showing",
    "Table",
    "hostile_name",
    "tables",
    "team_names",
    "twin_menus",
]

Origin = Literal["channel", "dm", "clock"]
"""Where the request behind an Outbox came from: the game's channel, a DM with the bot (a
button of a DM, ``/hand`` in a DM) or the deadline runner."""

HOSTILE: tuple[str, ...] = (
    "@everyone",
    "<@999999999999999999>",
    "<@&123456789012345678>",
    "**BUY**",
    "__x__",
    "~~y~~",
    "`code`",
    "<!channel>",
    "<!here>",
    "&",
    "<",
    ">",
    "@here",
    "<@!999999999999999998>",
    "<!everyone>",
    "<@U0HOSTILE1>",
    "<!subteam^S0HOSTILE>",
    "||spoiler||",
    "<#123456789012345678>",
    "&amp;",
)
"""What people put in names and pitches to make a bot ping everyone or break its layout."""

_PLAIN = "Bartholomew Maximilian Fitzgerald-Wolfenstein Ünïcødé 💸 von Aschenbach-Montgomery"


@dataclass(frozen=True)
class Platform:
    """How a platform names people and places, and how long a display name may be."""

    name: str
    name_limit: int
    """Longest display name (Discord 32, Slack 80)."""
    user_format: str
    channel_format: str
    dm_format: str

    def user(self, index: int) -> str:
        return self.user_format.format(index)

    def channel(self, index: int) -> str:
        return self.channel_format.format(index)

    def dm(self, user: str) -> str:
        """The DM conversation of ``user`` with the bot."""
        return self.dm_format.format(zlib.crc32(user.encode()) % 10**8)


DISCORD = Platform(
    name="discord",
    name_limit=32,
    user_format="1{:017d}",  # 18-digit snowflakes, like real user ids
    channel_format="13{:017d}",  # 19 digits: the longest channel ids in use today
    dm_format="12{:017d}",
)
SLACK = Platform(
    name="slack",
    name_limit=80,
    user_format="U0B{:08d}",
    channel_format="C0B{:08d}",
    dm_format="D0B{:08d}",
)
PLATFORMS = (DISCORD, SLACK)


def _rotation(start: int) -> str:
    """The tricks of :data:`HOSTILE`, beginning with the ``start``-th."""
    start %= len(HOSTILE)
    return " ".join(HOSTILE[start:] + HOSTILE[:start])


def hostile_name(index: int, limit: int) -> str:
    """A distinct display name of exactly ``limit`` characters; most are full of mentions and
    markup (each starting with a different trick), every fourth is merely long."""
    plain = index % 4 == 3
    text = (f"{index} {_PLAIN} " if plain else f"{_rotation(index * 3)} {index} ") * 3
    name = text[:limit]
    return name if not name.endswith(" ") else name[:-1] + "."


def team_names(index: int) -> list[str]:
    """Team names to try, most hostile first, each at
    :data:`~bot.commands.seats.teams.MAX_TEAM_NAME` characters: the game may refuse mentions and
    formatting in a team name, and then people pick something it takes."""
    limit = teams.MAX_TEAM_NAME
    # Backticks and asterisks are dropped by the game (or refused); leave them out to stay at
    # the limit once the game has tidied the name.
    tidy = f"{_rotation(index)} {index}".replace("`", "").replace("*", "")
    hostile = " ".join(tidy.split())[:limit].strip()
    tame = f"#{index} & @Team Ünïcødé 💸 Wolfenstein-Aschenbach"[:limit].strip()
    return [hostile, tame]


def hostile_text(rng: random.Random, limit: int) -> str:
    """Free text (a pitch, a typed argument) of ``limit`` characters full of tricks."""
    words = list(HOSTILE)
    rng.shuffle(words)
    return ((" ".join(words) + " ") * (1 + limit // 40))[:limit].strip()


How = Literal["post", "edit", "dm", "reply"]
"""How the table showed a message: a post in a channel or thread, an edit of one it posted
before, a direct message, or a private reply to the requester (ephemeral)."""


@dataclass(frozen=True)
class Showing:
    """One message the table layer asked the platform to show."""

    surface: str
    """``card``, ``board``, ``log``, ``prompt``, ``post``, ``result``, ``note``, ``panel``,
    ``reply``..."""
    how: How
    message: ui.Message
    where: str
    """The conversation: the game's channel, its thread, or a DM."""
    mention: tuple[str, ...] = ()
    """Users named at the head of the message (the turn notice, the closed-DM note)."""
    ping: bool = True
    """Whether those named are notified (else named by display name)."""


@dataclass(frozen=True)
class Moment:
    """One Outbox, and what a platform adapter needs to know to deliver it."""

    platform: str
    game: str
    table: str
    """Which game of the run, e.g. ``businessgo #3 (5 seats)``."""
    step: str
    """What was done: ``press Roll the dice``, ``command rules all``, ``deadline``..."""
    origin: Origin
    requester: str | None
    """The user whose request it answers (None: the clock)."""
    outbox: Outbox
    users: frozenset[str]
    """Every person the driver plays on this platform: the bot may mention them on purpose."""
    names: dict[str, str] = field(default_factory=dict)
    """Their display names, by user (a mention that must not ping is written as the name)."""
    shown: tuple[Showing, ...] = ()
    """What the table layer showed for this Outbox, in order."""


@dataclass
class Coverage:
    """What the driver reached, for tests to insist on."""

    started: Counter[str] = field(default_factory=Counter)
    finished: Counter[str] = field(default_factory=Counter)
    moments: Counter[str] = field(default_factory=Counter)
    presses: Counter[str] = field(default_factory=Counter)
    deadlines: Counter[str] = field(default_factory=Counter)
    twins: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(game, action type) of messages holding two or more menus of the same action."""
    phases: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(game, phase) seen with a person's seat to move."""
    origins: Counter[str] = field(default_factory=Counter)
    """Moments per :data:`Origin`."""
    surfaces: Counter[str] = field(default_factory=Counter)
    """Messages shown, by ``surface how`` (``board edit``, ``panel dm``, ``note post``...),
    ``naming`` added when the message names people at its head (``board post naming``: the
    turn notice)."""
    longest: Counter[str] = field(default_factory=Counter)
    """The longest text shown, in characters, by surface (a log message fills up to
    :data:`bot.table.LOG_MESSAGE`)."""
    unfinished: list[str] = field(default_factory=list)

    def merge(self, other: Coverage) -> None:
        counters = (
            "started",
            "finished",
            "moments",
            "presses",
            "deadlines",
            "twins",
            "phases",
            "surfaces",
        )
        for name in (*counters, "origins"):
            getattr(self, name).update(getattr(other, name))
        for surface, length in other.longest.items():
            self.longest[surface] = max(self.longest[surface], length)
        self.unfinished += other.unfinished


@dataclass(frozen=True)
class Table:
    """One game to play: its seats (a list of team sizes; 0 is a bot seat) and options."""

    game: GameLike
    seats: tuple[int, ...]
    options: str = ""
    churn: bool = False
    """Have people leave, join and move during the game."""

    @property
    def label(self) -> str:
        people = sum(self.seats)
        bots = sum(1 for size in self.seats if size == 0)
        return f"{len(self.seats)} seats, {people} people, {bots} bots"


def tables(game: GameLike) -> list[Table]:
    """Two games at the most seats the game allows, then one at the fewest (all people). The
    second shows its board as text only (``pictures=off``): the whole text, the longest a board
    gets (The Big Idea's crowded table is that game's); the others the shorter text that goes
    with a picture."""
    most, fewest = game.max_players, game.min_players
    if game.teams:
        full = game.max_team_size or 3
        big: list[tuple[int, ...]] = [
            (2, full, 1, 1, 1, 1, 1, 0),
            (2, 1, full, 1, 0, 1, 1, 1),
        ]
        sized = [tuple(s[:most]) + (1,) * (most - len(s)) for s in big]
    else:
        sized = [(1,) * (most - 1) + (0,), (1,) * (most - 2) + (0, 0)]
    variants = list(game.simulation_variants.values()) or [[]]
    picked = [
        Table(
            game,
            seats,
            " ".join([*variants[index % len(variants)], *(["pictures=off"] if index == 1 else [])]),
            churn=index == 0,
        )
        for index, seats in enumerate(sized)
    ]
    # The smallest table plays in the channel itself (``thread=off``).
    picked.append(Table(game, (1,) * fewest, " ".join([*variants[-1], "thread=off"])))
    return picked


def twin_menus(message: ui.Message) -> list[str]:
    """The action types of which ``message`` holds two or more menus (one id for both, unless
    the renderer tells them apart)."""
    kinds = Counter(str(select.action.get("type")) for select in message.selects)
    return sorted(kind for kind, count in kinds.items() if count > 1)


class _Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


CLOSED_DMS = 7
"""Every this many people (the fifth of each group) keep their DMs closed to the bot."""
NO_THREADS = 3
"""Every this many games (the second of each group), the bot may not start a thread."""


class _Recorder:
    """The table's platform primitives, recording what they are asked to show (and answering
    like a platform: ids, gone messages never, closed DMs for some, refused threads for some)."""

    budget: Budget | None = None
    """No budget: every post is shown at once (what is shown is the same, only later)."""
    threads_share_limit = False

    def post_limit(self, where: str) -> None:
        return None

    def __init__(self, platform: Platform, closed: set[str]) -> None:
        self.name = platform.name
        self.platform = platform
        self.closed_hint = _closed_hint(platform)
        self.id_limit, self.threads_are_conversations = _ids_of(platform)
        self.closed = closed
        self.shown: list[Showing] = []
        self._ids = 0
        self._games = 0

    def _id(self) -> str:
        self._ids += 1
        return f"{self._ids:010d}.000100"

    def _where(self, place: tables_layer.Place) -> str:
        # A Slack thread reply is a message of the channel's conversation; on Discord a thread
        # is a conversation of its own.
        if self.name == SLACK.name:
            return place.channel
        return place.thread or place.channel

    async def post(
        self,
        place: tables_layer.Place,
        message: ui.Message,
        surface: str = "post",
        mention: list[str] | None = None,
        ping: bool = True,
    ) -> tables_layer.Shown:
        where = self._where(place)
        named = tuple(mention or ())
        self.shown.append(Showing(surface, "post", message, where, named, ping))
        return tables_layer.Shown(where=where, id=self._id())

    async def edit(
        self,
        shown: tables_layer.Shown,
        message: ui.Message,
        surface: str = "post",
    ) -> None:
        self.shown.append(Showing(surface, "edit", message, shown.where))

    async def delete(self, shown: tables_layer.Shown) -> None:
        return None

    async def dm(self, user: str, message: ui.Message) -> tables_layer.Shown:
        if user in self.closed:
            raise tables_layer.Closed(user)
        where = self.platform.dm(user)
        self.shown.append(Showing("panel", "dm", message, where))
        return tables_layer.Shown(where=where, id=self._id())

    async def start_thread(self, channel: str, card: tables_layer.Shown, name: str) -> str | None:
        self._games += 1
        if self._games % NO_THREADS == 2:
            return None  # the bot lacks the permission here: the game plays in the channel
        return card.id if self.name == SLACK.name else f"7{self._id()[:10]}"


def _ids_of(platform: Platform) -> tuple[int, bool]:
    """The platform adapter's id limit, and whether its threads are conversations of their own
    (what the table binds the controls of each message it shows by)."""
    if platform.name == DISCORD.name:
        from bot.adapters.discord.adapter import DiscordPlatform

        return DiscordPlatform.id_limit, DiscordPlatform.threads_are_conversations
    from bot.adapters.slack.primitives import SlackPlatform

    return SlackPlatform.id_limit, SlackPlatform.threads_are_conversations


def _closed_hint(platform: Platform) -> str:
    """What the platform's adapter tells a requester whose DMs are closed."""
    if platform.name == DISCORD.name:
        from bot.adapters.discord.adapter import DiscordPlatform

        return DiscordPlatform.closed_hint
    from bot.adapters.slack.primitives import SlackPlatform

    return SlackPlatform.closed_hint


class _Requester:
    """The request being answered: its private replies are recorded (no pressed message is
    tracked, so a press's panel is edited like any other)."""

    pressed: tuple[str, str] | None = None
    pressed_private = False

    def __init__(self, recorder: _Recorder, user: str, origin: Origin) -> None:
        self.recorder = recorder
        self.user = user
        self.origin = origin

    async def acknowledge(self) -> None:
        """Nothing to tell a platform: the driver waits for every delivery anyway."""

    async def update(self, message: ui.Message) -> bool:
        return False

    async def reply(self, message: ui.Message, channel: str) -> bool:
        where = self.recorder.platform.dm(self.user) if self.origin == "dm" else channel
        self.recorder.shown.append(Showing("reply", "reply", message, where))
        return True


@dataclass(frozen=True)
class _Seen:
    """A button or menu as someone received it."""

    item: ui.Button | ui.Select
    where: Literal["channel", "ephemeral", "dm"]


@dataclass
class _Person:
    user: str
    name: str
    panel: list[_Seen] = field(default_factory=list)
    """The components of the newest private message to them that had any."""


_READS = ("status", "hand", "help", "rules")
MAX_STEPS = 5000


class _Driver:
    """Plays tables one after another in one channel per game, on one platform."""

    def __init__(self, platform: Platform, seed: int) -> None:
        self.platform = platform
        self.rng = random.Random(seed)
        seeds = random.Random(seed + 1)
        self.clock = _Clock()
        self.store = GameStore.from_url(None)
        self.authority = Authority(
            self.store, Settings(), clock=self.clock, new_seed=lambda: seeds.getrandbits(63)
        )
        self.people = [
            _Person(platform.user(i), hostile_name(i, platform.name_limit)) for i in range(60)
        ]
        self.by_user = {p.user: p for p in self.people}
        self.users = frozenset(self.by_user)
        self.names = {p.user: p.name for p in self.people}
        self.coverage = Coverage()
        closed = {p.user for i, p in enumerate(self.people) if i % CLOSED_DMS == 5}
        self.recorder = _Recorder(platform, closed)
        ttl = int(self.authority.settings.game_ttl_hours * 3600)
        # Each board picture at once: a picture held back would be shown by a catch-up at a
        # time of the real clock, and a run must be the same every time.
        self.table_layer = tables_layer.Table(self.store, self.recorder, ttl, coalesce_s=0)
        self.prompt: list[_Seen] = []
        self.lobby: list[_Seen] = []
        """The lobby card's buttons (commands: join, addbot, begin)."""
        self.old: list[_Seen] = []
        self.game: GameLike | None = None
        self.channel = ""
        self.table = ""
        self.read_rules: set[str] = set()
        self.deliveries = 0
        self.acted = 0
        """Calls made to the authority so far (the stored game can only change by one)."""
        self._state_json: str | None = None
        """The state last read (with the seats it waits for), kept while it does not change."""
        self._state: GameState | None = None
        self._waiting: list[int] = []

    # --- requests --------------------------------------------------------------------------

    def _req(self, person: _Person, channel: str | None = None) -> Request:
        self.deliveries += 1
        return Request(
            platform=self.platform.name,
            channel=channel or self.channel,
            user=person.user,
            name=person.name,
            delivery=f"d{self.deliveries}",
        )

    async def _moment(
        self, step: str, origin: Origin, requester: str | None, out: Outbox
    ) -> Moment:
        """Deliver ``out`` through the table layer, recording what it shows."""
        assert self.game is not None
        self._remember(out)
        self.coverage.moments[self.game.name] += 1
        self.coverage.origins[origin] += 1
        answer = _Requester(self.recorder, requester, origin) if requester is not None else None
        self.recorder.shown = []
        # Delivered without its drawing: the board keeps its picture's key (and whatever goes
        # with having a picture), but no picture is drawn. Drawing every new board (in a worker
        # thread) was about 80 % of the run's CPU time, and no check here reads a picture's
        # bytes: drawn, every message shown is the same but for its ``picture`` (compared once,
        # by a digest of every message of the run). Pictures have tests of their own
        # (tests/test_pictures.py, the adapters' test_pictures.py, the conformance kit's).
        await self.table_layer.deliver(out.model_copy(update={"draw": None}), answer)
        shown = tuple(self.recorder.shown)
        for showing in shown:
            named = " naming" if showing.mention else ""
            self.coverage.surfaces[f"{showing.surface} {showing.how}{named}"] += 1
            longest = self.coverage.longest
            longest[showing.surface] = max(longest[showing.surface], len(showing.message.text))
            for kind in twin_menus(showing.message):
                self.coverage.twins[(self.game.name, kind)] += 1
        return Moment(
            platform=self.platform.name,
            game=self.game.name,
            table=self.table,
            step=step,
            origin=origin,
            requester=requester,
            outbox=out,
            users=self.users,
            names=self.names,
            shown=shown,
        )

    def _remember(self, out: Outbox) -> None:
        """Keep the components each person now sees on the table's surfaces (older ones become
        stale presses): the card's lobby buttons, the public prompt (with a board, ``prompt``
        says what it shows: None closes it), each panel shown (as a DM), and private replies."""
        if out.card is not None:
            self.lobby = _components(out.card, "channel")
        if out.board is not None:
            self.old += self.prompt
            self.prompt = _components(out.prompt, "channel") if out.prompt else []
        shown: list[tuple[str, ui.Message, Literal["ephemeral", "dm"]]] = [
            (user, panel, "dm") for user, panel in out.panels.items()
        ]
        shown += [
            (delivery.user, delivery.message, delivery.to)
            for delivery in out.deliveries
            if delivery.user is not None and _components(delivery.message, delivery.to)
        ]
        for user, message, where in shown:
            if user in self.by_user:
                person = self.by_user[user]
                self.old += person.panel
                person.panel = _components(message, where)
        del self.old[:-200]

    async def command(self, person: _Person, text: str) -> Moment:
        assert self.game is not None
        self.acted += 1
        out = await self.authority.command(self._req(person), self.game.name, text)
        return await self._moment(f"command {text[:60]}", "channel", person.user, out)

    async def press(self, person: _Person, seen: _Seen) -> Moment | None:
        """Press ``seen`` as ``person`` from where it was shown; None if it cannot be encoded
        (the renderers leave such components out, which the render test reports)."""
        assert self.game is not None
        from_dm = seen.where == "dm"
        away = self.channel if from_dm else None
        values: list[str] | None = None
        try:
            if isinstance(seen.item, ui.Button):
                custom_id = codec.encode_button(self.game.name, seen.item, away)
                label = seen.item.label
            else:
                custom_id = codec.encode_select(self.game.name, seen.item, away)
                options = [o.value for o in seen.item.options]
                low = max(0, min(seen.item.min_values, len(options)))
                high = max(low, min(seen.item.max_values, len(options)))
                values = self.rng.sample(options, self.rng.randint(max(low, 1), max(high, 1)))
                label = seen.item.placeholder
        except ValueError:
            return None
        channel = self.platform.dm(person.user) if from_dm else self.channel
        self.acted += 1
        out = await self.authority.press(self._req(person, channel), custom_id, values)
        self.coverage.presses[self.game.name] += 1
        origin: Origin = "dm" if from_dm else "channel"
        return await self._moment(f"press {label[:60]}", origin, person.user, out)

    async def fire(self, record: GameRecord | None = None) -> list[Moment]:
        """Move the clock past what the channel waits for next (a deadline, the game's clock,
        a turn notice that waited for its player) and let it fire (``record``: the channel's
        record, when nothing was done since it was read)."""
        assert self.game is not None
        if record is None:
            record = await self.record()
        due = record.next_due if record is not None else None
        if due is None:
            return []
        self.clock.now = max(self.clock.now, due) + 0.5
        self.acted += 1
        outs = await self.authority.fire_due(self.platform.name)
        self.coverage.deadlines[self.game.name] += len(outs)
        return [await self._moment("deadline", "clock", None, out) for out in outs]

    async def dm_hand(self, person: _Person) -> list[Moment]:
        """``/hand`` typed in a DM: every game the person sits in."""
        self.acted += 1
        outs = await self.authority.hands(self._req(person, self.platform.dm(person.user)))
        return [await self._moment("dm hand", "dm", person.user, out) for out in outs]

    async def record(self) -> GameRecord | None:
        _, loaded = await self.store.load(GameKey(self.platform.name, self.channel))
        return GameRecord.model_validate_json(loaded.data) if loaded else None

    # --- a whole table ---------------------------------------------------------------------

    async def play(self, number: int, table: Table) -> AsyncIterator[Moment]:
        game = self.game = table.game
        self.table = f"{game.name} #{number} ({table.label})"
        self.prompt, self.old, self.lobby = [], [], []
        self.coverage.started[game.name] += 1
        rng = self.rng
        seated = self.people[: sum(table.seats)]
        for person in self.people:
            person.panel = []
        host = seated[0]
        async for moment in self._lobby(table, seated):
            yield moment
        record = await self.record()
        assert record is not None and record.status == "playing", self.table
        if game.name == "biggiebills" and not table.churn and len(table.seats) > game.min_players:
            await self._arrange_acquisition(record)
        if game.name == "bigidea" and number == 1:
            await self._arrange_crowded_table(record)
        if game.name not in self.read_rules:
            self.read_rules.add(game.name)
            for topic in ["", "all", *game.rule_topics(), "no-such-topic <@999999999999999999>"]:
                yield await self.command(host, f"rules {topic}".strip())
        churn_at = rng.randrange(20, 60) if table.churn else -1
        steps, read_at = 0, -1
        while steps < MAX_STEPS:
            steps += 1
            if self.acted != read_at:  # else the last step did nothing (a press it could not
                record = await self.record()  # carry, and no deadline): the record is as read
                read_at = self.acted
            assert record is not None
            if record.status == "finished" or record.state_json is None:
                break
            if record.state_json != self._state_json:  # a step that changed nothing keeps it
                self._state_json = record.state_json
                self._state = load_state(game, record.state_json)
                self._waiting = game.waiting_for(self._state)
            state = self._state
            if steps == churn_at:
                async for moment in self._churn(record, seated):
                    yield moment
                continue
            assert state is not None
            async for moment in self._step(record, state, seated):
                yield moment
        record = await self.record()
        final = load_state(game, record.state_json) if record and record.state_json else None
        if record is not None and record.status == "finished" and final and final.finished:
            self.coverage.finished[game.name] += 1
        else:
            self.coverage.unfinished.append(f"{self.platform.name} {self.table}")
        yield await self.command(host, "status")
        yield await self.command(seated[-1], "hand")  # the game is over: a refusal

    async def _arrange_acquisition(self, record: GameRecord) -> None:
        """Random play rarely reaches an acquisition (it needs three completed cards in each
        of stages 1-3), so arrange one: the first human team holds an active Acquire a
        Competitor against another team and completes it when its turn begins, right after
        the second human team's turn; both hold full hands, so the acquirer must then return
        Growth and Challenge cards (two menus of one action)."""
        assert record.state_json is not None
        state = BiggieBillsState.model_validate_json(record.state_json)
        humans = [i for i, seat in enumerate(record.seats) if not seat.is_bot]
        acquirer, first = humans[0], humans[1]
        target = next(s for s in state.living() if s not in (acquirer, first))
        rest = [s for s in state.living() if s not in (acquirer, first)]
        state.order = [first, acquirer, *rest]
        state.turn_index, state.decision = 0, OpenDecision(name="turn")
        state.plays_left, state.flex_left, state.acted = 1, 0, False
        state.pending, state.returns = None, []
        state.turn_cash = list(state.cash)
        state.active = [
            # Sealed (as after a block), so that no random challenge stops it.
            Active(
                id=state.next_active,
                card=ACQUIRE,
                owner=acquirer,
                cost=200,
                target=target,
                sealed=True,
            )
        ]
        state.next_active += 1
        state.version += 1
        state.decision_version = state.version
        state.decision = OpenDecision(name="turn", opened=state.version)
        seconds = state.options.turn_seconds
        key = f"turn@v{state.version}"
        state.deadline = Deadline(key=key, seconds=seconds) if seconds > 0 else None
        await save_state(self.store, GameKey(self.platform.name, self.channel), record, state)

    async def _arrange_crowded_table(self, record: GameRecord) -> None:
        """Random play leaves a few products on The Big Idea's table, but its board must fit
        with as many as the rules allow: before the first reveal, every card but two in each
        hand (and those a player has picked) goes on the table as old products, owned in turn
        by every seat and carrying all but one of each seat's chits, so that the board names
        the most products and chit owners it can, beside the new products and their pitches
        that play brings."""
        assert record.state_json is not None
        state = BigIdeaState.model_validate_json(record.state_json)
        free = [*state.deck, *state.discard]
        state.deck, state.discard = [], []
        for seat, hand in enumerate(state.hands):
            keep = list(state.picks[seat] or hand[:2])
            free += [card for card in hand if card not in keep]
            state.hands[seat] = keep
        items = [c for c in free if catalogue()[c].is_item]
        descriptions = [c for c in free if not catalogue()[c].is_item]
        pairs = list(zip(items, descriptions, strict=False))
        used = {card for pair in pairs for card in pair}
        state.discard = [c for c in free if c not in used]
        chits = [seat for seat in state.seats for _ in range(state.chits[seat] - 1)]
        for seat in state.seats:
            state.chits[seat] = 1
        for index, cards in enumerate(pairs):
            on = [0] * state.players
            for seat in chits[index :: len(pairs)]:
                on[seat] += 1
            state.products.append(
                Product(
                    id=state.next_product_id,
                    owner=index % state.players,
                    cards=list(cards),
                    chits=on,
                    new=False,
                )
            )
            state.next_product_id += 1
        state.version += 1
        state.decision_version = state.version
        await save_state(self.store, GameKey(self.platform.name, self.channel), record, state)
        self.coverage.phases[("bigidea", "crowded")] += 1

    async def _lobby(self, table: Table, seated: list[_Person]) -> AsyncIterator[Moment]:
        game = self.table_game
        host, rng = seated[0], self.rng
        yield await self.command(host, f"start {table.options}".strip())
        yield await self.command(host, "status")
        if game.teams:
            at = 0
            for seat, size in enumerate(table.seats):
                if size == 0:
                    continue
                members = seated[at : at + size]
                at += size
                if seat == 0:
                    if rng.random() < 0.5:  # the host's team is named after them until renamed
                        for team in team_names(seat):
                            before = await self._team_name(0)
                            yield await self.command(host, f"rename {host.name} to {team}")
                            if await self._team_name(0) != before:
                                break
                else:
                    for team in [*team_names(seat), ""]:
                        yield await self.command(members[0], f"join {team}".strip())
                        if await self._seated(members[0]):
                            break
                record = await self.record()
                assert record is not None
                seat_now = record.seat_of(members[0].user)
                if seat_now is None:
                    continue
                name = record.seats[seat_now].name
                for person in members[1:]:
                    joined = await self._press_command(person, f"join {name}")
                    if joined is not None:
                        yield joined
                    if joined is None or rng.random() < 0.3:
                        yield await self.command(person, f"join {name}")
        else:
            for person in seated[1:]:
                joined = await self._press_command(person, "join")
                yield joined if joined is not None else await self.command(person, "join")
        yield await self.command(seated[-1], "join")  # already seated: a refusal
        bots = sum(1 for size in table.seats if size == 0)
        if bots:
            added = await self._press_command(host, "addbot")
            yield added if added is not None else await self.command(host, "addbot")
            if bots > 1:
                yield await self.command(host, f"addbot {bots - 1}")
        yield await self.command(seated[-1], "begin")  # not the host: a refusal
        begun = await self._press_command(host, "begin")
        yield begun if begun is not None else await self.command(host, "begin")
        yield await self.command(host, "start")  # a game is running: a refusal

    async def _seated(self, person: _Person) -> bool:
        record = await self.record()
        return record is not None and record.seat_of(person.user) is not None

    async def _team_name(self, seat: int) -> str | None:
        record = await self.record()
        return record.seats[seat].name if record is not None else None

    @property
    def table_game(self) -> GameLike:
        assert self.game is not None
        return self.game

    async def _press_command(self, person: _Person, command: str) -> Moment | None:
        """Press the lobby card's button for ``command``, if it shows one."""
        for seen in self.lobby:
            if isinstance(seen.item, ui.Button) and seen.item.command == command:
                return await self.press(person, seen)
        return None

    async def _step(
        self, record: GameRecord, state: GameState, seated: list[_Person]
    ) -> AsyncIterator[Moment]:
        game, rng = self.table_game, self.rng
        waiting = [s for s in self._waiting if record.seats[s].users]
        if waiting:
            self.coverage.phases[(game.name, state.deciding or "")] += 1
        roll = rng.random()
        if not waiting or (record.next_due is not None and roll < 0.04):
            fired = await self.fire(record)
            if fired or not waiting:
                for moment in fired:
                    yield moment
                if not fired:
                    raise AssertionError(f"{self.table}: nobody to move and no deadline")
                return
        seat = rng.choice(waiting)
        person = self.by_user[rng.choice(record.seats[seat].users)]
        anyone = self.by_user[rng.choice(record.humans)]
        if roll < 0.06:
            word = rng.choice(_READS)
            if word == "rules":
                topics = game.rule_topics()
                word = f"rules {rng.choice(topics)}" if topics else "rules"
            yield await self.command(anyone, word)
            return
        if roll < 0.07:
            for moment in await self.dm_hand(anyone):
                yield moment
            return
        if roll < 0.09 and self.old:
            pressed = await self.press(anyone, rng.choice(self.old))  # stale or someone else's
            if pressed is not None:
                yield pressed
                return
        if roll < 0.11 and game.commands:
            word = rng.choice(sorted(c.word for c in game.commands))
            yield await self.command(anyone, f"{word} {hostile_text(rng, 100)}")
            return
        typed = _typed(game, state, seat, rng)
        if typed is not None:
            yield await self.command(person, typed)
            return
        choices = [s for s in person.panel + self.prompt if _current(s, seat, state)]
        if not choices:
            yield await self.command(person, "hand")
            choices = [s for s in person.panel if _current(s, seat, state)]
        if not choices:
            fired = await self.fire()
            if not fired:
                raise AssertionError(f"{self.table}: {person.name} has nothing to press")
            for moment in fired:
                yield moment
            return
        weights = [_weight(game, s) for s in choices]
        pressed = await self.press(person, rng.choices(choices, weights)[0])
        if pressed is None:  # an id that cannot be carried: the clock decides instead
            for moment in await self.fire(record):
                yield moment
            return
        yield pressed

    async def _churn(self, record: GameRecord, seated: list[_Person]) -> AsyncIterator[Moment]:
        """People come and go mid-game: a player leaves; in a team game the host also moves one
        player, takes another off, and a newcomer joins a team that is playing."""
        game, rng = self.table_game, self.rng
        host = self.by_user[record.host]
        others = [self.by_user[u] for u in record.humans if u != record.host]
        if not others:
            return
        leaver = rng.choice(others)
        yield await self.command(leaver, "leave")
        if not game.teams:
            return
        record = await self.record() or record
        others = [self.by_user[u] for u in record.humans if u != record.host]
        teams_now = [seat.name for seat in record.seats]
        if others:
            mover = rng.choice(others)
            yield await self.command(host, f"move {mover.name} to {rng.choice(teams_now)}")
        record = await self.record() or record
        others = [self.by_user[u] for u in record.humans if u != record.host]
        if len(others) > 1:
            yield await self.command(host, f"remove {rng.choice(others).name}")
        newcomer = self.people[len(seated)]
        yield await self.command(newcomer, f"join {rng.choice(teams_now)}")
        yield await self.command(newcomer, "join Brand New Team")  # no new teams mid-game


def _components(
    message: ui.Message | None, where: Literal["channel", "ephemeral", "dm"]
) -> list[_Seen]:
    """The live buttons and menus of ``message`` as seen ``where``."""
    if message is None:
        return []
    # A move's Take back is left to the take-back tests (tests/test_undo.py and the fakes'
    # whole games): the driver steers play towards rare moments, which a take-back would undo.
    seen = [
        _Seen(b, where) for b in message.all_buttons() if not b.disabled and b.command != "undo"
    ]
    return seen + [_Seen(s, where) for s in message.selects]


def _current(seen: _Seen, seat: int, state: GameState) -> bool:
    """Whether pressing ``seen`` now is a move of ``seat`` (not stale, not someone else's)."""
    item = seen.item
    if isinstance(item, ui.Button) and item.action is None:
        return False
    version = item.version if item.version is not None else -1
    return (item.seat is None or item.seat == seat) and (
        state.decision_version <= version <= state.version
    )


def _weight(game: GameLike, seen: _Seen) -> float:
    """Steer play towards the rarer moments worth rendering: in BiggieBills$$$ a team that may
    acquire a competitor does, and a team whose acquisition is challenged blocks."""
    action = seen.item.action or {}
    if game.name == "biggiebills":
        if action.get("type") == "play" and action.get("target") is not None:
            return 50.0
        if action.get("type") == "block":
            return 3.0
        if action.get("type") == "skip":
            return 0.3
    return 1.0


def _typed(game: GameLike, state: GameState, seat: int, rng: random.Random) -> str | None:
    """A move only typing can make: a pitch in The Big Idea, long and hostile."""
    if not isinstance(state, BigIdeaState) or state.deciding != "venture":
        return None
    mine = state.new_product_of(seat)
    if mine is None or mine.pitch is not None or rng.random() < 0.3:
        return None
    from core.games.bigidea.actions import PITCH_LIMIT

    text = hostile_text(rng, PITCH_LIMIT)
    return f"pitch {text[: PITCH_LIMIT if rng.random() < 0.8 else PITCH_LIMIT + 20]}"


class Run:
    """An async iterable of moments that keeps the :class:`Coverage` of what it played."""

    def __init__(
        self,
        platform: Platform,
        seed: int = 1,
        games: Sequence[GameLike] | None = None,
        plan: Callable[[GameLike], list[Table]] = tables,
    ) -> None:
        self.platform = platform
        self.seed = seed
        self.games = list(games) if games is not None else all_games()
        self.plan = plan
        self.coverage = Coverage()

    async def __aiter__(self) -> AsyncIterator[Moment]:
        for index, game in enumerate(self.games):
            driver = _Driver(self.platform, self.seed * 1000 + index)
            driver.channel = self.platform.channel(index + 1)
            try:
                for number, table in enumerate(self.plan(game), start=1):
                    async for moment in driver.play(number, table):
                        yield moment
            finally:
                self.coverage.merge(driver.coverage)
                await driver.store.close()
