"""Simulated Slack users playing one channel's game through signed requests (bench and tests).

They see only what Slack would show them: the fake Web API's posts and edits in their channel,
ephemeral messages addressed to them and their DMs. Each keeps the newest private message with
components and the newest public one, and presses a random choice it has not answered yet.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.adapters.slack.app import SlackAdapter
from bot.adapters.slack.render import component_id
from bot.commands import codec
from bot.commands.authority import Request
from testkit.slack.fake import HANDLED, Call, FakeSlackAPI, SignedClient
from testkit.slack.loopback import Loopback

__all__ = ["Component", "SlackTable", "TableStats", "components", "texts"]

TRIES_PER_PANEL = 4
"""Refused presses of one panel before a simulated user gives up on it."""
ANSWER_TIMEOUT_S = 10.0


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


def components(call: Call, ephemeral: bool) -> list[Component]:
    """The game components (not lobby command buttons) of a posted message."""
    found = []
    channel = str(call.args.get("channel", ""))
    for block in call.blocks:
        for element in block.get("elements", []) if block.get("type") == "actions" else []:
            custom_id = component_id(element.get("action_id", "")) or ""
            press = codec.decode(custom_id)
            if press is None or press.command is not None:
                continue
            options = [o["value"] for o in element.get("options", [])]
            options += [o["value"] for g in element.get("option_groups", []) for o in g["options"]]
            picks = int(element.get("max_selected_items", 1))
            ts = call.ts or "1.0"
            found.append(
                Component(
                    element["action_id"], element["type"], options, picks, channel, ts, ephemeral
                )
            )
    return found


def texts(call: Call) -> str:
    """Every human-readable string of a message (its fallback text and all block texts)."""
    parts = [str(call.args.get("text", ""))]

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

    walk(call.blocks)
    joined = "\n".join(parts)
    return joined.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


@dataclass
class _Panel:
    choices: list[Component]
    answered: bool = False
    tries: int = 0


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
        """``adapter``: the in-process adapter whose ``handled`` hook says a request has been
        answered; without one, the bot (in another process) reports it by calling the fake
        API's ``boardroom.handled``."""
        self.api = api
        self.slack = slack
        self.adapter = adapter
        self.channel = channel
        self.game = game
        self.rng = rng
        self.players = {u: _Player(u) for u in users}
        self.stats = TableStats()
        self.public_posts = 0
        self._waiting: dict[str, asyncio.Future[None]] = {}
        api.on_call.append(self._see)
        if adapter is not None:
            adapter.handled.append(self._answered)

    @classmethod
    def on(
        cls, loop: Loopback, channel: str, users: list[str], rng: random.Random, game: str
    ) -> SlackTable:
        """A table playing against the in-process app of ``loop``."""
        return cls(loop.api, loop.slack, channel, users, rng, game, loop.adapter)

    def detach(self) -> None:
        self.api.on_call.remove(self._see)
        if self.adapter is not None:
            self.adapter.handled.remove(self._answered)

    # --- what the users see ----------------------------------------------------------------

    def _see(self, call: Call) -> None:
        if call.method == HANDLED and self.adapter is None:
            self._done(str(call.args.get("user", "")))
            return
        if call.method not in ("chat.postMessage", "chat.update", "chat.postEphemeral"):
            return
        channel = str(call.args.get("channel", ""))
        if call.method == "chat.postEphemeral":
            player = self.players.get(str(call.args.get("user")))
            if player is not None and channel == self.channel:
                self._private(player, components(call, ephemeral=True))
        elif channel == self.channel:
            self.public_posts += 1
            found = components(call, ephemeral=False)
            if found:
                for player in self.players.values():
                    player.public = _Panel(found)
        elif channel.startswith("D") and channel[1:] in self.players:
            # A DM: its components name this table's channel, so they act on this game.
            self._private(self.players[channel[1:]], components(call, ephemeral=False))

    @staticmethod
    def _private(player: _Player, found: list[Component]) -> None:
        if found:
            player.private = _Panel(found)

    def _answered(self, req: Request) -> None:
        self._done(req.user)

    def _done(self, user: str) -> None:
        waiter = self._waiting.pop(user, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # --- acting ----------------------------------------------------------------------------

    async def _send(self, user: str, body: bytes) -> None:
        """POST one signed request and wait for its answer to be delivered, timing both.

        The answer is timed on its own: Bolt returns the HTTP acknowledgement on a 10 ms poll
        of its own, which the answer (sent after ``ack()``) does not wait for.
        """
        waiter = asyncio.get_running_loop().create_future()
        self._waiting[user] = waiter
        started = time.perf_counter()

        async def answered() -> None:
            await asyncio.wait_for(waiter, ANSWER_TIMEOUT_S)
            self.stats.latencies.append(time.perf_counter() - started)

        async def acknowledged() -> None:
            status = await self.slack.post(body)
            self.stats.acks.append(time.perf_counter() - started)
            if status != 200:
                self._waiting.pop(user, None)
                waiter.cancel()
                raise RuntimeError(f"the Bolt app answered {status}")

        await asyncio.gather(acknowledged(), answered())

    async def command(self, user: str, text: str) -> None:
        body = self.slack.slash_body(f"/{self.game}", text, user, self.channel)
        await self._send(user, body)

    async def press(self, user: str, component: Component) -> bool:
        """Press ``component`` as ``user``; True when the game changed (something public)."""
        before = self.public_posts
        body = self.slack.action_body(
            user,
            component.channel,
            component.action(self.rng),
            component.message_ts,
            component.ephemeral,
        )
        await self._send(user, body)
        self.stats.presses += 1
        return self.public_posts > before

    async def play(
        self,
        max_presses: int = 5_000,
        think_s: float = 0.0,
        after_each: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """Press random pending choices until nobody has any left."""
        while self.stats.presses < max_presses:
            if think_s:
                await asyncio.sleep(self.rng.uniform(0.5, 1.5) * think_s)
            pending = [(p, panel) for p in self.players.values() for panel in p.pending()]
            if not pending:
                return
            player, panel = self.rng.choice(pending)
            component = self.rng.choice(panel.choices)
            if await self.press(player.user, component):
                self.stats.applied += 1
                panel.answered = True
            else:
                panel.tries += 1
                panel.answered = panel.tries >= TRIES_PER_PANEL
            if after_each is not None:
                await after_each()
