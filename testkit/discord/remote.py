"""Simulated Discord users for a bot that runs in another process (the bench).

:class:`~testkit.discord.sim.Table` knows the bot has finished with an interaction from the
adapter's ``on_handled`` hook, which only exists in the bot's own process. Here the fake tells
instead: :class:`WatchedDiscord` notes, for every REST call the bot makes, whom it concerns (the
interaction's user and channel for a callback or followup, the recipient of a DM, the channel of
a post or an edit), and a :class:`RemoteTable` counts an interaction as handled once its callback
arrived and then nothing concerning the table (its channel or any of its users) happened for
``quiet_s``. A table has one interaction in flight at a time and deadlines are off in the bench,
so everything that concerns it in that time is the bot's answer to that interaction. A call that
still comes after the quiet time is counted in :attr:`RemoteTable.late` (it should stay 0).

The quiet time is the bench's way of looking, not the player's: a player sees the answer when its
last call arrives, so a table's thinking pause runs from that moment (:attr:`RemoteTable.seen_at`)
and the pace is the same as with the in-process hook.
"""

from __future__ import annotations

import asyncio
import random

from aiohttp import web

from bot.commands.record import GameRecord
from storage import GameStore
from testkit.discord.fake import (
    GUILD_ID,
    Call,
    FakeDiscord,
    FakeMessage,
    FakeUser,
    Interaction,
)
from testkit.discord.sim import Table

__all__ = ["QUIET_S", "SETTLE_TIMEOUT_S", "RemoteTable", "WatchedDiscord", "all_quiet"]

QUIET_S = 0.15
"""Nothing for the table this long after the callback: the bot is done with the interaction.
Well above the gaps between one answer's calls (milliseconds), well below a player's pause."""
SETTLE_TIMEOUT_S = 10.0


class WatchedDiscord(FakeDiscord):
    """The fake Discord, noting when each user and channel was last concerned by a REST call."""

    def __init__(self, guild_id: int = GUILD_ID) -> None:
        super().__init__(guild_id)
        self.touched: dict[int, float] = {}
        """``clock.now()`` of the last REST call concerning a user or channel id."""
        self._dm_recipients: dict[int, int] = {}

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        response = await super()._rest(request)
        # FakeDiscord._rest records the call after its only await (reading the body) and answers
        # without awaiting again, so the newest call is this request's.
        now = self.clock.now()
        for key in self._concerns(self.calls[-1]):
            self.touched[key] = now
        return response

    def _concerns(self, call: Call) -> list[int]:
        parts = call.path.strip("/").split("/")
        interaction: Interaction | None = None
        if parts[0] == "interactions" and len(parts) > 1 and parts[1].isdigit():
            interaction = self.interactions.get(int(parts[1]))
        elif parts[0] == "webhooks" and len(parts) > 2:
            interaction = self._tokens.get(parts[2])
        elif call.path == "/users/@me/channels" and isinstance(call.body, dict):
            return [int(call.body["recipient_id"])]
        elif parts[0] == "channels" and len(parts) > 1 and parts[1].isdigit():
            channel = int(parts[1])
            if len(self._dm_recipients) != len(self._dm_channels):
                self._dm_recipients = {c: u for u, c in self._dm_channels.items()}
            recipient = self._dm_recipients.get(channel)
            return [recipient if recipient is not None else channel]
        if interaction is None:
            return []
        return [interaction.user.id, interaction.channel_id]


async def all_quiet(fake: FakeDiscord, quiet_s: float = QUIET_S) -> None:
    """Wait until the bot has made no REST call at all for ``quiet_s``."""
    while True:
        last = fake.calls[-1].at if fake.calls else 0.0
        remaining = last + quiet_s - fake.clock.now()
        if remaining <= 0:
            return
        await asyncio.sleep(remaining)


class RemoteTable(Table):
    """A :class:`Table` whose bot runs in another process, watched through :class:`WatchedDiscord`.

    Reads the game record with its own ``store``; ``client``, ``watcher`` and ``reconnect`` of a
    Table do not apply (a restarted bot process reconnects to the same fake by itself).
    """

    def __init__(
        self,
        fake: WatchedDiscord,
        store: GameStore,
        channel_id: int,
        users: list[FakeUser],
        rng: random.Random,
        game: str = "bigidea",
        quiet_s: float = QUIET_S,
    ) -> None:
        # Not Table.__init__: it looks up the in-process client's watcher. The same state, else.
        self.fake = fake
        self.watched = fake
        self.store = store
        self.channel_id = channel_id
        self.users = users
        self.rng = rng
        self.game = game
        self.latencies: list[float] = []
        self.sent: list[float] = []
        """``fake.clock.now()`` at which each timed interaction was sent (for the pace)."""
        self.presses = 0
        self._seen = {}
        self._seats = {}
        self.quiet_s = quiet_s
        self.late = 0
        """Calls concerning the table that came after it counted the bot as done (should be 0)."""
        self._keys = (channel_id, *(u.id for u in users))
        self._quiet_last = self._last()
        self.seen_at = fake.clock.now()
        """When the last call of the previous answer arrived: the player saw all of it then."""

    def watch_from_now(self) -> None:
        """Forget what came before (the opening's rush): latencies, late calls, the last answer."""
        self.latencies.clear()
        self.sent.clear()
        self.late = 0
        self._quiet_last = self._last()
        self.seen_at = self.fake.clock.now()

    def reconnect(self, client: object) -> None:
        raise TypeError("a RemoteTable's bot is another process; it reconnects by itself")

    async def record(self) -> GameRecord | None:
        _, loaded = await self.store.load(self.key)
        return GameRecord.model_validate_json(loaded.data) if loaded else None

    async def settle(self, interaction: Interaction) -> Interaction:
        """Wait for the callback, then for the calls concerning this table to go quiet."""
        answered = await asyncio.wait_for(interaction.answered, SETTLE_TIMEOUT_S)
        self.latencies.append(answered - interaction.sent_at)
        self.sent.append(interaction.sent_at)
        await asyncio.wait_for(self._quiet(), SETTLE_TIMEOUT_S)
        return interaction

    async def slash(
        self, user: FakeUser, sub: str, options: dict[str, str] | None = None
    ) -> Interaction:
        self._check_late()
        return await super().slash(user, sub, options)

    async def click(
        self, user: FakeUser, message: FakeMessage, custom_id: str, values: list[str] | None = None
    ) -> Interaction:
        self._check_late()
        return await super().click(user, message, custom_id, values)

    async def _think(self, think_s: float) -> None:
        # The pause counts from seen_at (the answer's last call), not from the end of the quiet
        # time, so watching from outside does not slow the players down.
        due = self.seen_at + self.rng.uniform(0.5, 1.5) * think_s
        await self.fake.clock.sleep(due - self.fake.clock.now())

    def _last(self) -> float:
        touched = self.watched.touched
        return max(touched.get(key, 0.0) for key in self._keys)

    def _check_late(self) -> None:
        if self._last() > self._quiet_last:
            self.late += 1
            self._quiet_last = self._last()

    async def _quiet(self) -> None:
        while True:
            last = self._last()
            remaining = last + self.quiet_s - self.fake.clock.now()
            if remaining <= 0:
                self.seen_at = self._quiet_last = last
                return
            await asyncio.sleep(remaining)
