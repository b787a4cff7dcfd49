"""The front desk: the life of one request, the same on every platform.

An adapter turns what its SDK received into an :class:`Interaction` (who, where, and what: a
command, a press or a form's answer) with a :class:`DeskAnswer` (its platform's way of answering
that one request) and hands it to :meth:`Desk.handle`. The desk does the rest, once for every
platform:

- ``hand`` asked in a DM lists every game the person sits in (each answered for its own channel);
- the authority is asked, and the table shows what it did; whatever of that takes longer than
  the platform's acknowledgement budget (the authority, a delivery waiting its turn, the
  platform's rationing), the request is acknowledged meanwhile (Discord's 3 seconds; Slack's
  listeners acknowledge before any work), so its answer never waits behind anything;
- a form (a modal) opens as the whole answer, or the person is told how to type it;
- each Outbox goes to the table (:mod:`bot.table`), which answers the person where it can (the
  pressed message updated, a private reply);
- what the platform refused the bot (a missing permission) is told to the person privately, in
  the platform's words (:meth:`DeskAnswer.refusal`);
- a failure is a private apology, never silence; and the request is finished
  (:meth:`DeskAnswer.finish`: a silent acknowledgement, or resolving a "thinking…").

Deadlines fire with nobody to answer: :meth:`Desk.deliver` shows their Outboxes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from bot import metrics
from bot.commands.authority import Authority, Request
from bot.commands.grammar import parse
from bot.commands.outbox import Form, Outbox
from bot.slots import Slots
from bot.table import Answer, Table
from core import ui

__all__ = ["FAILED", "Desk", "DeskAnswer", "Interaction", "Observer"]

log = logging.getLogger(__name__)

FAILED = (
    "Something went wrong on my side while answering that; the game's `status` command shows "
    "where the game stands."
)
TYPE_IT = "Type `/{game} {command} <answer>` to answer."


@dataclass(frozen=True)
class Interaction:
    """One request, as every platform has it."""

    request: Request
    kind: Literal["command", "press", "form"]
    game: str = ""
    """The game whose command (or form) this is; a press names its own game in its id."""
    text: str = ""
    """A command's words after ``/<game>``; a form's command and its answer."""
    custom_id: str = ""
    values: list[str] | None = None
    """A press on a menu: the options chosen."""
    everywhere: bool = False
    """``hand`` here means every game the person sits in (asked in a DM, or Discord's
    top-level ``/hand``), each answered for its own channel."""


class DeskAnswer(Answer, Protocol):
    """How a platform answers one request, beyond what the table asks of it."""

    async def open_form(self, form: Form) -> bool:
        """Open ``form`` (a modal) as the answer; False when it cannot be (the press was
        acknowledged already, or its trigger expired): the desk then says how to type it."""
        ...

    def refusal(self, refused: list[str], game: str) -> str:
        """What to tell the person when the platform refused the bot ``refused`` (the table's
        sentences) while showing their request's effect."""
        ...

    async def finish(self, answered: bool) -> None:
        """The request is done; ``answered``: the person got a message of their own. Otherwise
        acknowledge it without one (or resolve a "thinking…" that is still showing)."""
        ...


class Observer(Protocol):
    """Who wants to know when a request is done (tests and benches wait on it)."""

    def handled(self, interaction: Interaction) -> None: ...


class Desk:
    """One per running bot: turns interactions into authority calls and shows what they did."""

    def __init__(
        self,
        authority: Authority,
        table: Table,
        ack_budget: float | None = None,
        observers: list[Observer] | None = None,
    ) -> None:
        self.authority = authority
        self.table = table
        self.ack_budget = ack_budget
        """Seconds a request may wait for its answer before it is acknowledged (None: the
        adapter acknowledges every request itself, first)."""
        self.observers: list[Observer] = list(observers or [])
        self.shown: list[Callable[[Outbox], None]] = []
        """Called with each Outbox once it is shown (a platform's per-person pages follow its
        :attr:`~bot.commands.outbox.Outbox.homes`)."""
        self.slots: Slots | None = None
        """A bound on the requests whose authority work runs at once (the runtime sets it,
        ``BOARDROOM_MAX_INFLIGHT``); the others wait, within the acknowledgement budget."""
        self._busy = 0
        self._idle = asyncio.Event()
        self._idle.set()

    async def settled(self) -> None:
        """Wait until no request is being handled."""
        await self._idle.wait()

    async def handle(self, interaction: Interaction, answer: DeskAnswer) -> None:
        """Answer one request, whatever happens (its ids in the log's context, its time and
        outcome in the metrics)."""
        req, started = interaction.request, time.perf_counter()
        ids = {"channel": req.channel, "game": interaction.game, "delivery": req.delivery or ""}
        with metrics.in_context(platform=req.platform, kind=interaction.kind, **ids):
            await self._handle(interaction, answer)
        metrics.request_done(req.platform, interaction.kind, time.perf_counter() - started)

    async def _handle(self, interaction: Interaction, answer: DeskAnswer) -> None:
        self._busy += 1
        self._idle.clear()
        answered = False
        watch = None
        if self.ack_budget is not None:
            watch = asyncio.create_task(self._acknowledge_after(answer, self.ack_budget))
        try:
            outboxes = await self._ask(interaction, answer)
            for out in outboxes:
                answered = await self._show(out, answer) or answered
                self._tell(out)
        except Exception:
            # The bot must stay up whatever one request did; tell the person if we still can.
            log.exception("answering %s failed", interaction.request.delivery)
            metrics.outcome(interaction.request.platform, "failed")
            try:
                answered = await answer.reply(ui.Message(text=FAILED), "") or answered
            except Exception:
                log.warning("could not tell %s about a failure", interaction.request.user)
        finally:
            if watch is not None:
                watch.cancel()
            try:
                await answer.finish(answered)
            except Exception:
                log.warning("finishing %s failed", interaction.request.delivery, exc_info=True)
            self._busy -= 1
            if self._busy == 0:
                self._idle.set()
            for observer in self.observers:
                observer.handled(interaction)

    @staticmethod
    async def _acknowledge_after(answer: DeskAnswer, seconds: float) -> None:
        """Acknowledge the request if it is still unanswered after ``seconds`` (real time: the
        platform's window is)."""
        await asyncio.sleep(seconds)
        try:
            await answer.acknowledge()
        except Exception:
            log.warning("acknowledging a request failed", exc_info=True)

    async def refuse(self, interaction: Interaction, answer: DeskAnswer, sentence: str) -> None:
        """Answer a request the adapter refuses before anything is asked (the platform would
        not let the game be seen): privately, in ``sentence``."""
        try:
            sent = await answer.reply(ui.Message(text=sentence), "")
            await answer.finish(sent)
        except Exception:
            log.warning("could not refuse %s", interaction.request.delivery, exc_info=True)
        finally:
            for observer in self.observers:
                observer.handled(interaction)

    async def deliver(self, out: Outbox) -> None:
        """Show an Outbox nobody asked for (a deadline fired)."""
        if not out.duplicate:
            await self.table.deliver(out, None)
            self._tell(out)

    def _tell(self, out: Outbox) -> None:
        if out.duplicate or not (out.homes or out.forgotten):
            return
        for listener in self.shown:
            try:
                listener(out)
            except Exception:  # a page of one person must not fail the request
                log.exception("following the change of %s failed", out.channel)

    # --- the steps ---------------------------------------------------------------------------

    def _work(self, interaction: Interaction) -> Callable[[], Awaitable[list[Outbox]]]:
        authority, req = self.authority, interaction.request
        if interaction.kind == "press":
            custom_id, values = interaction.custom_id, interaction.values

            async def press() -> list[Outbox]:
                return [await authority.press(req, custom_id, values)]

            return press
        everywhere = interaction.kind == "command" and interaction.everywhere
        if everywhere and parse(interaction.text).word == "hand":
            return lambda: authority.hands(req)

        async def command() -> list[Outbox]:
            return [await authority.command(req, interaction.game, interaction.text)]

        return command

    async def _ask(self, interaction: Interaction, answer: DeskAnswer) -> list[Outbox]:
        work = self._work(interaction)
        try:
            return await (self.slots.run(work) if self.slots else work())
        except Exception:
            log.exception("handling %s failed", interaction.request.delivery)
            metrics.outcome(interaction.request.platform, "failed")
            out = Outbox(platform=interaction.request.platform, channel=interaction.request.channel)
            out.reply(interaction.request.user, FAILED)
            return [out]

    async def _show(self, out: Outbox, answer: DeskAnswer) -> bool:
        """Show one Outbox; True when the person got a message of their own."""
        if out.duplicate:
            return False  # a redelivery of something already answered
        if out.form is not None:
            if await answer.open_form(out.form):
                return True
            typed = TYPE_IT.format(game=out.form.game, command=out.form.command)
            return await answer.reply(ui.Message(text=typed), out.channel)
        delivered = await self.table.deliver(out, answer)
        if delivered.refused:
            told = answer.refusal(list(dict.fromkeys(delivered.refused)), out.game or "game")
            sent = await answer.reply(ui.Message(text=told), out.channel)
            return sent or delivered.answered
        return delivered.answered
