"""Simulated Slack users playing one channel's game through signed requests (bench and tests).

They see only what Slack would show them, as it is now: the fake Web API's messages in their
channel and its threads (the lobby card, the board, the prompt), ephemeral messages addressed to
them and their DMs (the panel), each with its latest edit, and none once deleted. Each keeps the
private message with choices that changed last (their panel) and the public one (the open
prompt), and presses a random choice it has not answered yet, leaving alone the buttons that
are another seat's (a board's choices during someone else's turn: the board says whose move it
is).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.adapters.slack.app import SlackAdapter
from bot.adapters.slack.render import component_id
from bot.commands import codec
from bot.commands.record import GameRecord
from bot.desk import Interaction as Asked
from storage import GameKey, GameStore
from testkit.clock import Hold, held, pause
from testkit.slack.fake import HANDLED, Call, FakeSlackAPI, Message, SignedClient
from testkit.slack.loopback import Loopback

__all__ = [
    "Component",
    "SlackTable",
    "TableStats",
    "components",
    "components_of",
    "labelled",
    "texts",
    "texts_of",
]

TRIES_PER_PANEL = 4
"""Refused presses of one panel before a simulated user gives up on it."""
ANSWER_TIMEOUT_S = 10.0
_SHOWN = ("chat.postMessage", "chat.postEphemeral", "chat.update", "response_url")


@dataclass
class Component:
    """A button or menu as Slack shows it, and where."""

    action_id: str
    kind: str
    options: list[str]
    picks: int
    channel: str
    message_ts: str
    ephemeral: bool
    label: str = ""
    """A button's text (a menu's placeholder)."""

    def action(self, rng: random.Random) -> dict[str, Any]:
        """The ``actions[0]`` of a block_actions payload pressing this component."""
        base = {"type": self.kind, "action_id": self.action_id, "block_id": "b"}
        if self.kind == "button":
            return base
        chosen = rng.sample(self.options, min(self.picks, len(self.options)))
        picked = [{"text": {"type": "plain_text", "text": v}, "value": v} for v in chosen]
        if self.kind == "static_select":
            return {**base, "selected_option": picked[0]}
        return {**base, "selected_options": picked}

    @property
    def press(self) -> codec.Press | None:
        return codec.decode(component_id(self.action_id) or "")


def components_of(
    blocks: list[dict[str, Any]],
    channel: str,
    ts: str,
    ephemeral: bool,
    commands: bool = False,
) -> list[Component]:
    """The game components of a message's ``blocks``; with ``commands``, lobby command buttons
    (Join, Begin) too."""
    found = []
    for block in blocks:
        for element in block.get("elements", []) if block.get("type") == "actions" else []:
            press = codec.decode(component_id(element.get("action_id", "")) or "")
            if press is None or (press.command is not None and not commands):
                continue
            options = [o["value"] for o in element.get("options", [])]
            options += [o["value"] for g in element.get("option_groups", []) for o in g["options"]]
            picks = int(element.get("max_selected_items", 1))
            label = (element.get("text") or element.get("placeholder") or {}).get("text", "")
            found.append(
                Component(
                    element["action_id"],
                    element["type"],
                    options,
                    picks,
                    channel,
                    ts,
                    ephemeral,
                    label,
                )
            )
    return found


def components(call: Call, ephemeral: bool) -> list[Component]:
    """The game components (not lobby command buttons) of a posted or edited message."""
    channel = str(call.channel or call.args.get("channel", ""))
    return components_of(call.blocks, channel, call.ts or "1.0", ephemeral)


def labelled(found: list[Component], label: str) -> Component:
    """The component whose label starts with ``label``."""
    for component in found:
        if component.label.startswith(label):
            return component
    raise LookupError(f"no choice labelled {label!r} among {[c.label for c in found]}")


def _texts(text: str, blocks: list[dict[str, Any]]) -> str:
    parts = [text]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "text" and isinstance(value, str):
                    parts.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(blocks)
    joined = "\n".join(parts)
    return joined.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def texts(call: Call) -> str:
    """Every human-readable string of a message call (its fallback text and all block texts)."""
    return _texts(str(call.args.get("text", "")), call.blocks)


def texts_of(message: Message) -> str:
    """Every human-readable string of a message as the fake holds it now."""
    return _texts(message.text, message.blocks)


@dataclass
class _Panel:
    where: tuple[str, str]
    """The message (conversation, ts) the choices are on."""
    choices: list[Component]
    answered: bool = False
    tries: int = 0

    def same(self, other: list[Component]) -> bool:
        mine = [(c.action_id, c.options) for c in self.choices]
        return mine == [(c.action_id, c.options) for c in other]


@dataclass
class _Player:
    user: str
    private: _Panel | None = None
    public: _Panel | None = None

    def pending(self) -> list[_Panel]:
        return [p for p in (self.private, self.public) if p is not None and not p.answered]


@dataclass
class TableStats:
    """What one table's play measured."""

    presses: int = 0
    applied: int = 0
    latencies: list[float] = field(default_factory=list)
    """Seconds from sending a request to its answer having been delivered."""
    acks: list[float] = field(default_factory=list)
    """Seconds until the HTTP acknowledgement."""
    calls: list[int] = field(default_factory=list)
    """Web API calls (response URL posts included) each press cost."""


class SlackTable:
    """One channel's game played by simulated users; ``users[0]`` hosts."""

    def __init__(
        self,
        api: FakeSlackAPI,
        slack: SignedClient,
        channel: str,
        users: list[str],
        rng: random.Random,
        game: str,
        adapter: SlackAdapter | None = None,
    ) -> None:
        """``adapter``: the in-process adapter whose front desk this table observes (it says
        when a request has been answered); without one, the bot (in another process) reports
        it by calling the fake API's ``boardroom.handled``."""
        self.api = api
        self.slack = slack
        self.adapter = adapter
        self.channel = channel
        self.game = game
        self.rng = rng
        self.players = {u: _Player(u) for u in users}
        self.stats = TableStats()
        self.observer: GameStore | None = None
        """Where the users read the seats (the app's own store by default; a bench counting
        the bot's Redis commands gives one of its own)."""
        self.changes = 0
        """Calls that changed what someone other than the presser sees, or a shown message
        (anything but a private reply): a press that caused one was applied."""
        self._workers: list[tuple[SignedClient, SlackAdapter]] = []
        self._hold: Hold | None = None
        """The clock held while this table presses (``play(pauses_only=True)``)."""
        self.settle_deferred = True
        """After each press, wait for what the platform's budget deferred (others' panels, the
        board) to be shown, so that the next choice is made on what the press led to however
        the budget ran (in-process bots only; a bench of hostile players presses on at once)."""
        self.last_pressed: tuple[str, str, str] | None = None
        """The newest press: who, and the message (conversation, ts) it was on."""
        self.last_version: int | None = None
        """The game version the last pressed component was drawn at (None: not a game's)."""
        self.last_sent_at = 0.0
        """When the newest request was sent (the fake's clock)."""
        self._pressing: str | None = None
        self._calls = 0
        self._waiting: dict[str, asyncio.Future[None]] = {}
        self._seat_map: dict[str, int] = {}
        """Each user's seat, as the game's card and board tell its players."""
        self._components: dict[tuple[int, bool], tuple[object, list[Component]]] = {}
        """The components of each version of a message read so far, by the blocks (or the
        call that showed them) they were read from: a version never changes, and reading
        every message again at every step was a fifth of a long game's CPU time."""
        api.on_call.append(self._see)
        if adapter is not None:
            adapter.desk.observers.append(self)

    @classmethod
    def on(
        cls, loop: Loopback, channel: str, users: list[str], rng: random.Random, game: str
    ) -> SlackTable:
        """A table playing against the in-process app of ``loop``."""
        return cls(loop.api, loop.slack, channel, users, rng, game, loop.adapter)

    def detach(self) -> None:
        self.api.on_call.remove(self._see)
        for adapter in self._adapters():
            if self in adapter.desk.observers:
                adapter.desk.observers.remove(self)

    def spread(self, workers: list[tuple[SignedClient, SlackAdapter]]) -> None:
        """Send each request to one of ``workers`` at random (HTTP workers of one app behind
        a load balancer), each watched for its answer."""
        self._workers = list(workers)
        for _, adapter in self._workers:
            if self not in adapter.desk.observers:
                adapter.desk.observers.append(self)

    def _adapters(self) -> list[SlackAdapter]:
        found = [adapter for _, adapter in self._workers]
        if self.adapter is not None and self.adapter not in found:
            found.append(self.adapter)
        return found

    async def settled(self) -> None:
        """Everything the table held back shown: deferred edits and board pictures held for
        their window (a test that asks whether one press changed anything public asks it after
        the earlier presses' surfaces have landed)."""
        for adapter in self._adapters():
            await adapter.table.caught_up()

    async def _flushed(self) -> None:
        """What the bots' budgets deferred (others' panels, the board), shown. (A player who
        waits for it is not pressing: the clock may jump meanwhile.)"""
        hold = self._hold
        if hold is not None:
            hold.release()
        try:
            for adapter in self._adapters():
                await adapter.table.flushed()
        finally:
            if hold is not None:
                self._hold = held(self.api.clock)

    def reattach(self, adapter: SlackAdapter) -> None:
        """Go on with ``adapter`` (a restarted bot) answering."""
        if self.adapter is not None:
            self.adapter.desk.observers.remove(self)
        self.adapter = adapter
        adapter.desk.observers.append(self)

    # --- what the users see ----------------------------------------------------------------

    def _mine(self, channel: str) -> bool:
        if channel == self.channel:
            return True
        return channel.startswith("D") and channel[1:] in self.players

    def _see(self, call: Call) -> None:
        if call.method == HANDLED:
            if self.adapter is None:
                self._done(str(call.args.get("user", "")))
            return
        channel = str(call.channel or call.args.get("channel", ""))
        message = self.api.message(channel, call.ts) if call.ts else None
        user = str(call.args.get("user") or call.args.get("users") or "")
        if not self._mine(channel) and not (channel == "" and user in self.players):
            return
        self._calls += 1
        if not self._private_reply(call, channel, message):
            self.changes += 1
        if call.method == "chat.delete" and message is not None:
            self._gone(message)
        elif call.method in _SHOWN and message is not None:
            self._shown(message)

    def _private_reply(self, call: Call, channel: str, message: Message | None) -> bool:
        """Whether ``call`` only told the presser something (an ephemeral or DM answer)."""
        if call.method in ("users.info", "conversations.open"):
            return True
        if call.method == "chat.postEphemeral":
            return True
        if call.method == "response_url":
            if not call.args.get("replace_original"):
                return bool(message and message.ephemeral)  # a private answer
            # The pressed message replaced: the presser's own (ephemeral, or in their DM).
            return message is not None and (
                message.ephemeral or message.channel == f"D{self._pressing}"
            )
        # (The presser's own DM: an answer, or the pressed panel brought up to date.)
        mine = channel == f"D{self._pressing}"
        return call.method in ("chat.postMessage", "chat.update") and mine

    def _viewers(self, message: Message) -> tuple[list[_Player], bool]:
        """Who sees ``message``, and whether it is private to them."""
        if message.ephemeral:
            player = self.players.get(message.user or "")
            return ([player] if player and message.channel == self.channel else []), True
        if message.channel.startswith("D"):
            player = self.players.get(message.channel[1:])
            return ([player] if player else []), True
        return list(self.players.values()), False

    def _shown(self, message: Message) -> None:
        viewers, private = self._viewers(message)
        found = components_of(message.blocks, message.channel, message.ts, message.ephemeral)
        # A DM's choices name the channel of their game: only this table's are its own.
        found = [c for c in found if (c.press and c.press.channel) in (None, self.channel)]
        where = (message.channel, message.ts)
        for player in viewers:
            panel = player.private if private else player.public
            if not found:
                if panel is not None and panel.where == where:
                    self._set(player, private, None)
            elif panel is None or panel.where != where or not panel.same(found):
                # New choices (a new decision, or the same one at a newer version: a pick
                # may be changed) are pending again.
                self._set(player, private, _Panel(where, found))

    def _gone(self, message: Message) -> None:
        where = (message.channel, message.ts)
        for player in self.players.values():
            for private, panel in ((True, player.private), (False, player.public)):
                if panel is not None and panel.where == where:
                    self._set(player, private, None)

    @staticmethod
    def _set(player: _Player, private: bool, panel: _Panel | None) -> None:
        if private:
            player.private = panel
        else:
            player.public = panel

    def handled(self, asked: Asked) -> None:
        """The bot's front desk has answered a request (this table observes it)."""
        self._done(asked.request.user)

    def _done(self, user: str) -> None:
        waiter = self._waiting.pop(user, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _components_of(
        self, shown: list[dict[str, Any]] | Call, message: Message, commands: bool = False
    ) -> list[Component]:
        """:func:`components_of` one version of ``message`` (its blocks now, or the post or
        edit that showed them), read once."""
        found = self._components.get((id(shown), commands))
        if found is None or found[0] is not shown:
            blocks = shown.blocks if isinstance(shown, Call) else shown
            read = components_of(blocks, message.channel, message.ts, message.ephemeral, commands)
            found = self._components[(id(shown), commands)] = (shown, read)
        return found[1]

    def visible(self, user: str, commands: bool = False) -> list[Component]:
        """Every choice ``user`` can see now, newest message first (with ``commands``, the
        lobby card's buttons too)."""
        seen = []
        for message in reversed(list(self.api.messages.values())):
            if message.deleted:
                continue
            viewers, _ = self._viewers(message)
            if self._mine(message.channel) and user in [p.user for p in viewers]:
                seen += self._components_of(message.blocks, message, commands)
        return seen

    def ever_shown(
        self, user: str, caught_up: set[tuple[str, str]] | None = None
    ) -> list[Component]:
        """Every choice ``user`` was ever shown on a message still there: as it was posted and
        as each edit left it (the screen of a client that lags behind, or a double click
        landing after the first click's update), newest message first. ``caught_up``: the
        messages (conversation, ts) whose newest version alone the user's screen shows (it
        caught up with them, and follows their edits since)."""
        seen = []
        for message in reversed(list(self.api.messages.values())):
            if message.deleted or not self._mine(message.channel):
                continue
            viewers, _ = self._viewers(message)
            if user not in [p.user for p in viewers]:
                continue
            versions: list[list[dict[str, Any]] | Call] = [message.posted, *message.edits]
            if (message.channel, message.ts) in (caught_up or set()):
                versions = [message.blocks]  # (as it is now)
            for shown in versions:
                seen += self._components_of(shown, message)
        return seen

    # --- acting ----------------------------------------------------------------------------

    async def _send(self, user: str, body: bytes) -> None:
        """POST one signed request and wait for its answer to be delivered, timing both.

        The answer is timed on its own: Bolt returns the HTTP acknowledgement on a 10 ms poll
        of its own, which the answer (sent after ``ack()``) does not wait for.
        """
        waiter = asyncio.get_running_loop().create_future()
        self._waiting[user] = waiter
        clock = self.api.clock
        started = self.last_sent_at = clock()

        async def answered() -> None:
            await asyncio.wait_for(waiter, ANSWER_TIMEOUT_S)
            self.stats.latencies.append(clock() - started)

        async def acknowledged() -> None:
            slack = self.rng.choice(self._workers)[0] if self._workers else self.slack
            status = await slack.post(body)
            self.stats.acks.append(clock() - started)
            if status != 200:
                self._waiting.pop(user, None)
                waiter.cancel()
                raise RuntimeError(f"the Bolt app answered {status}")

        await asyncio.gather(acknowledged(), answered())

    async def command(self, user: str, text: str, dm: bool = False) -> None:
        """``/<game> <text>`` typed by ``user`` in the channel (``dm``: in their DM with the
        bot, where ``hand`` lists every game they sit in)."""
        where = f"D{user}" if dm else self.channel
        body = self.slack.slash_body(f"/{self.game}", text, user, where)
        await self._send(user, body)

    async def press(self, user: str, component: Component) -> bool:
        """Press ``component`` as ``user``; True when it was applied (it changed something
        shown, or something someone else sees, rather than only answering the presser)."""
        before, calls = self.changes, self._calls
        self._pressing = user
        self.last_pressed = (user, component.channel, component.message_ts)
        press = component.press
        self.last_version = press.version if press is not None else None
        body = self.slack.action_body(
            user,
            component.channel,
            component.action(self.rng),
            component.message_ts,
            component.ephemeral,
        )
        try:
            await self._send(user, body)
            if self.settle_deferred:
                await self._flushed()
        finally:
            self._pressing = None
        self.stats.presses += 1
        self.stats.calls.append(self._calls - calls)
        return self.changes > before

    def _seat_bound_in_public(self) -> bool:
        """Whether a public message offers choices that belong to one seat (a board's)."""
        return any(
            codec.seat_of(component_id(c.action_id) or "") is not None
            for p in self.players.values()
            if p.public is not None
            for c in p.public.choices
        )

    async def _seats(self) -> dict[str, int]:
        """Each user's seat, as the game's card and board tell its players (read from
        :attr:`observer`, else the store of the app this table plays against; none known
        without either)."""
        store = self.observer or (self.adapter.authority.store if self.adapter else None)
        if store is None:
            return {}
        _, loaded = await store.load(GameKey("slack", self.channel))
        if loaded is None:
            return {}
        record = GameRecord.model_validate_json(loaded.data)
        return {u: i for i, seat in enumerate(record.seats) for u in seat.users}

    async def press_label(self, user: str, label: str, commands: bool = False) -> bool:
        """Press the newest choice ``user`` sees whose label starts with ``label`` (with
        ``commands``, the lobby card's buttons too: ``Join``, ``Begin``)."""
        return await self.press(user, labelled(self.visible(user, commands), label))

    async def play(
        self,
        max_presses: int = 5_000,
        think_s: float = 0.0,
        after_each: Callable[[], Awaitable[None]] | None = None,
        before_each: Callable[[], Awaitable[None]] | None = None,
        pauses_only: bool = False,
    ) -> None:
        """Press random pending choices until nobody has any left (``before_each``: after the
        pause, before the press; ``after_each``: after it). ``pauses_only``: a virtual clock
        jumps only during the pauses of ``think_s`` (it is held from each press to the next
        pause), so that a wait of the bot's own (a board picture held back for a few seconds)
        runs against the players' pace as it would with people, rather than being jumped to
        while a press is under way."""
        self._hold = held(self.api.clock) if pauses_only else None
        try:
            while self.stats.presses < max_presses:
                if think_s:
                    if self._hold is not None:
                        self._hold.release()
                    await pause(self.api.clock, self.rng.uniform(0.5, 1.5) * think_s)
                    if self._hold is not None:
                        self._hold = held(self.api.clock)
                if before_each is not None:
                    await before_each()
                if not await self.step():
                    return
                if after_each is not None:
                    await after_each()
        finally:
            if self._hold is not None:
                self._hold.release()
                self._hold = None

    def _pending(self) -> list[tuple[_Player, _Panel, list[Component]]]:
        seats = self._seat_map
        return [
            (p, panel, mine)
            for p in self.players.values()
            for panel in p.pending()
            if (mine := _usable(panel.choices, seats.get(p.user)))
        ]

    async def step(self) -> bool:
        """One user presses one random pending choice of theirs; False when nobody has any."""
        if not self._seat_map and self._seat_bound_in_public():
            # (Read once, when a board first offers one seat's choices: seats are fixed by
            # then.)
            self._seat_map = await self._seats()
        pending = self._pending()
        if not pending and self._adapters():
            # What the platform's budget deferred (others' panels, the board) shows later: a
            # player waits for it before concluding there is nothing left to press.
            await self._flushed()
            pending = self._pending()
        if not pending:
            return False
        player, panel, mine = self.rng.choice(pending)
        if await self.press(player.user, self.rng.choice(mine)):
            self.stats.applied += 1
            panel.answered = True
        else:
            panel.tries += 1
            panel.answered = panel.tries >= TRIES_PER_PANEL
        return True


def _usable(choices: list[Component], seat: int | None) -> list[Component]:
    """The choices a player in ``seat`` may make: not another seat's."""
    usable = []
    for choice in choices:
        owner = codec.seat_of(component_id(choice.action_id) or "")
        if owner is None or seat is None or owner == seat:
            usable.append(choice)
    return usable
