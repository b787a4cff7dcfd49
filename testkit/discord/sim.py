"""Simulated Discord users playing through the fake server: shared by the tests and the bench.

A :class:`Table` is one channel. Its users type slash commands and click the components they can
see, as people would: each keeps to the newest message with choices in each place it looks (the
channel, its private replies and DMs) and clicks a random choice it has not tried there, leaving
alone the buttons that are another seat's (a board's choices during someone else's turn: the
board says whose move it is). Nothing here knows a game rule; "the press changed the game" is
read from the channel (a post or a board edit followed it).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.adapters.discord.client import BoardroomClient, point_at
from bot.commands import codec
from bot.commands.authority import Authority
from bot.commands.record import GameRecord
from bot.desk import Interaction as Asked
from bot.settings import Settings
from storage import GameKey, GameStore
from testkit.clock import held
from testkit.discord.fake import FakeDiscord, FakeMessage, FakeUser, Interaction

__all__ = ["Table", "Watcher", "running_bot"]

TRIES_PER_PANEL = 4


class Watcher:
    """Futures for interactions the bot has finished handling, by interaction id: an observer
    of the bot's front desk (:class:`bot.desk.Observer`)."""

    def __init__(self) -> None:
        self._done: set[int] = set()
        self._waiting: dict[int, asyncio.Future[None]] = {}

    def handled(self, asked: Asked) -> None:
        interaction_id = int(asked.request.delivery or 0)
        waiter = self._waiting.pop(interaction_id, None)
        if waiter is None:
            self._done.add(interaction_id)
        elif not waiter.done():
            waiter.set_result(None)

    async def wait(self, interaction_id: int) -> None:
        if interaction_id in self._done:
            self._done.discard(interaction_id)
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiting[interaction_id] = waiter
        await waiter


_WATCHERS: weakref.WeakKeyDictionary[BoardroomClient, Watcher] = weakref.WeakKeyDictionary()
"""The watcher of each client started by :func:`running_bot`."""


@contextlib.asynccontextmanager
async def running_bot(
    fake: FakeDiscord,
    authority: Authority,
    settings: Settings,
    pace_window_s: float | None = None,
    coalesce_s: float | None = None,
) -> AsyncIterator[BoardroomClient]:
    """A real discord.py client connected to ``fake``, ready and synced; closed on exit.

    ``pace_window_s``: the table's window for Discord's 5 posts per channel (None: Discord's 5
    seconds); whole games in tests that do not check the pacing may pass 0. The table paces on
    the fake's clock (``fake.clock``): with a :class:`~testkit.clock.VirtualClock` the window is
    kept, and counted by the fake, without being waited out. ``coalesce_s``: how long a board's
    picture stands before the next is shown (None: the table's own; 0: each at once, for a test
    about something else that counts the board's edits); the wait runs on the same clock."""
    point_at(fake.api_url, fake.gateway_url)
    client = BoardroomClient(authority, settings, shard_count=1)
    client.adapter.table.use_clock(fake.clock)
    if pace_window_s == 0:
        client.adapter.table.posting_free = True
    if coalesce_s is not None:
        client.adapter.table.coalesce_s = coalesce_s
    watcher = Watcher()
    client.adapter.desk.observers.append(watcher)
    _WATCHERS[client] = watcher
    task = asyncio.create_task(client.start("fake-token"))
    ready = asyncio.create_task(client.wait_until_ready())
    done, _ = await asyncio.wait({task, ready}, timeout=20, return_when=asyncio.FIRST_COMPLETED)
    if ready not in done:
        ready.cancel()
        await client.close()
        if task.done():
            task.result()
        raise TimeoutError("the bot did not connect to the fake Discord")
    try:
        yield client
    finally:
        await client.close()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@dataclass
class _Seen:
    tried: set[str] = field(default_factory=set)
    tries: int = 0
    answered: bool = False


class Table:
    """One channel of the fake server and the users sitting at it."""

    before_press: Callable[[], Awaitable[None]] | None = None
    """Awaited before each press (the table bench measures the thread then)."""
    after_think: Callable[[], Awaitable[None]] | None = None
    """Run after each pause of :meth:`play`, before the next choice is made (what fell due
    meanwhile, fired as the bot's deadline loop would have)."""
    observer: GameStore | None = None
    """Where the users read the game's record (who sits where, whether it is over): the bot's
    own store by default; a bench counting the bot's Redis commands gives one of its own."""

    def __init__(
        self,
        fake: FakeDiscord,
        client: BoardroomClient,
        channel_id: int,
        users: list[FakeUser],
        rng: random.Random,
        game: str = "bigidea",
    ) -> None:
        self.fake = fake
        self.client = client
        watcher = _WATCHERS.get(client)
        if watcher is None:
            raise ValueError("start the bot with running_bot(), which watches its interactions")
        self.watcher = watcher
        self.channel_id = channel_id
        self.users = users
        self.rng = rng
        self.game = game
        self.latencies: list[float] = []
        """Seconds from each interaction's dispatch to the bot's callback."""
        self.presses = 0
        self._seen: dict[tuple[int, int, int], _Seen] = {}
        self._seats: dict[int, int] = {}
        """Each user's seat, as the game's card and board tell its players."""

    def reconnect(self, client: BoardroomClient) -> None:
        """Go on with a new bot process (a restart): same channel, same messages."""
        watcher = _WATCHERS.get(client)
        if watcher is None:
            raise ValueError("start the bot with running_bot(), which watches its interactions")
        self.client, self.watcher = client, watcher

    @property
    def key(self) -> GameKey:
        return GameKey("discord", str(self.channel_id))

    async def record(self) -> GameRecord | None:
        store = self.observer or self.client.adapter.authority.store
        _, loaded = await store.load(self.key)
        return GameRecord.model_validate_json(loaded.data) if loaded else None

    async def settle(self, interaction: Interaction) -> Interaction:
        """Wait for the callback, then for the bot to finish everything it does for it."""
        answered = await asyncio.wait_for(interaction.answered, 10)
        self.latencies.append(answered - interaction.sent_at)
        await asyncio.wait_for(self.watcher.wait(interaction.id), 10)
        # What the platform's budget deferred (others' panels, the board) is shown before the
        # next choice is made on what this one led to.
        await self.client.adapter.table.flushed()
        return interaction

    async def slash(
        self, user: FakeUser, sub: str, options: dict[str, str] | None = None
    ) -> Interaction:
        return await self.settle(
            await self.fake.slash(user, self.channel_id, self.game, sub, options)
        )

    async def click(
        self, user: FakeUser, message: FakeMessage, custom_id: str, values: list[str] | None = None
    ) -> Interaction:
        if self.before_press is not None:
            await self.before_press()
        self.presses += 1
        return await self.settle(await self.fake.click(user, message, custom_id, values))

    async def open(self, options: str = "", bots: tuple[int, str] | None = None) -> None:
        """The first user starts a lobby, the others join, the host adds ``bots`` (how many,
        of which level) and begins."""
        await self.slash(self.users[0], "start", {"options": options} if options else None)
        for user in self.users[1:]:
            await self.slash(user, "join")
        if bots is not None:
            count, level = bots
            await self.slash(self.users[0], "addbot", {"n_level": f"{count} {level}"})
        await self.slash(self.users[0], "begin")

    def places(self) -> list[int]:
        """The channel and the threads started in it (where a game plays)."""
        threads = [t.id for t in self.fake.threads.values() if t.parent_id == self.channel_id]
        return [self.channel_id, *threads]

    def public(self) -> list[FakeMessage]:
        """Every message in the channel and its threads."""
        return [m for place in self.places() for m in self.fake.public(place)]

    def panels(self, user: FakeUser) -> list[FakeMessage]:
        """The newest message with choices in each place ``user`` looks, not yet done with (a
        message edited since counts as new: panels and prompts change in place)."""
        newest: dict[str, FakeMessage] = {}
        places = [self.fake.public(place) for place in self.places()]
        dms: dict[int, list[FakeMessage]] = {}
        for message in self.fake.private(user):
            dms.setdefault(message.channel_id, []).append(message)
        for messages in [*places, *dms.values()]:
            for message in reversed(messages):
                # A note that someone's DMs are closed is newer than the pointing prompt but
                # does not hide it: people see both, so each is its own place to look.
                place = f"{message.channel_id}:{message.audience}"
                place += "-note" if _is_note(message, user) else ""
                if place not in newest and _choices(message, user, self._seats.get(user.id)):
                    newest[place] = message
        seen = self._seen
        return [
            m for m in newest.values() if not seen.get((user.id, m.id, m.edits), _Seen()).answered
        ]

    async def step(self) -> bool:
        """One user presses one choice; False when nobody has anything left to press."""
        if not self._seats and self._seat_bound_in_public():
            # (Read once, when a board first offers one seat's choices: seats are fixed by
            # then, and reading the record every press would load the fake's process.)
            record = await self.record()
            seats = record.seats if record is not None else []
            self._seats = {int(u): i for i, s in enumerate(seats) for u in s.users if u.isdigit()}
        candidates = [(u, m) for u in self.users for m in self.panels(u)]
        if not candidates:
            # What the platform's budget deferred (others' panels, the board) shows later: a
            # player waits for it before concluding there is nothing left to press.
            await self.client.adapter.table.flushed()
            candidates = [(u, m) for u in self.users for m in self.panels(u)]
        if not candidates:
            return False
        user, message = self.rng.choice(candidates)
        seen = self._seen.setdefault((user.id, message.id, message.edits), _Seen())
        mine = _choices(message, user, self._seats.get(user.id))
        choices = [c for c in mine if c["custom_id"] not in seen.tried]
        if not choices or seen.tries >= TRIES_PER_PANEL:
            seen.answered = True
            return True
        choice = self.rng.choice(choices)
        values = None
        if choice["type"] == 3:
            options = [o["value"] for o in choice["options"]]
            low = max(choice.get("min_values", 1), 0)
            high = max(low, min(choice.get("max_values", 1), len(options)))
            values = self.rng.sample(options, self.rng.randint(low, high))
        else:
            seen.tried.add(choice["custom_id"])
        before = self._activity(), message.edits
        await self.click(user, message, choice["custom_id"], values)
        seen.tries += 1
        if (self._activity(), message.edits) != before:
            seen.answered = True
        if message.edits != before[1] and message.channel_id not in self.places():
            # The press updated the private message it was made on: the same panel, now
            # showing what the press did (a pick that may be changed until everyone has
            # picked). Its tries go on, so nobody changes their mind for ever while the game
            # waits for someone else; an edit made by anything else (a new decision), or of a
            # board whose buttons the press used (a move everyone sees), is new.
            self._seen[(user.id, message.id, message.edits)] = _Seen(
                tries=seen.tries, answered=seen.tries >= TRIES_PER_PANEL
            )
        return True

    def _seat_bound_in_public(self) -> bool:
        """Whether a public message offers choices that belong to one seat (a board's)."""
        for message in self.public():
            for component in message.components:
                if codec.seat_of(str(component.get("custom_id", ""))) is not None:
                    return True
        return False

    def _activity(self) -> int:
        return sum(self.fake.activity.get(place, 0) for place in self.places())

    async def play(
        self,
        max_presses: int = 2_000,
        think_s: float = 0.0,
        until: float | None = None,
        pauses_only: bool = False,
    ) -> GameRecord | None:
        """Press until the game is finished; raises when it stalls or runs too long.

        ``think_s``: mean pause between presses (uniform between half and one and a half of it),
        as people take, on the fake's clock; ``until``: a time of that clock
        (``fake.clock.now()``) at which to stop (returns None then). ``pauses_only``: a virtual
        clock jumps only during those pauses (it is held from each press to the next pause),
        so that a wait of the bot's own (a board picture held back for a few seconds) runs
        against the players' pace as it would with people, rather than being jumped to while
        a press is under way; what the bot waits for during a press (a post limit) is then
        waited out.
        """
        refreshed = False
        pressing = held(self.fake.clock) if pauses_only else None
        try:
            while self.presses < max_presses:
                if until is not None and self.fake.clock.now() >= until:
                    return None
                record = await self.record()
                if record is not None and record.status == "finished":
                    return record
                if think_s > 0:
                    if pressing is not None:
                        pressing.release()
                    await self._think(think_s)
                    if pressing is not None:
                        pressing = held(self.fake.clock)
                if self.after_think is not None:
                    await self.after_think()
                if await self.step():
                    refreshed = False
                    continue
                if refreshed:
                    raise RuntimeError(f"the game in {self.channel_id} stalled: nobody can act")
                # Nothing to press: everyone asks for their hand, as a stuck player would.
                for user in self.users:
                    await self.slash(user, "hand")
                refreshed = True
        finally:
            if pressing is not None:
                pressing.release()
        raise RuntimeError(f"the game in {self.channel_id} did not end in {max_presses} presses")

    async def _think(self, think_s: float) -> None:
        """A player's pause before the next press: half to one and a half of ``think_s``."""
        await self.fake.clock.sleep(self.rng.uniform(0.5, 1.5) * think_s)


def _is_note(message: FakeMessage, user: FakeUser) -> bool:
    return f"<@{user.id}>" in message.content and any(
        str(c.get("custom_id", "")).endswith("|hand") for c in message.components
    )


def _choices(message: FakeMessage, user: FakeUser, seat: int | None) -> list[dict[str, Any]]:
    """Game choices on ``message`` that ``user`` (in ``seat``, if known) may make, plus "show
    my hand" on a note addressed to them."""
    result = []
    for component in message.components:
        custom_id = str(component.get("custom_id", ""))
        if component.get("disabled"):
            continue
        owner = codec.seat_of(custom_id)
        if owner is not None and seat is not None and owner != seat:
            continue  # another seat's (someone else's turn, on the board)
        game_choice = custom_id.startswith(("br1|a|", "br1|s|"))
        my_hand = custom_id.endswith("|hand") and f"<@{user.id}>" in message.content
        if game_choice or my_hand:
            result.append(component)
    return result
