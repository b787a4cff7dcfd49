"""The authority: the one place that changes a game, whatever the platform.

Every command, button press and deadline becomes a step (:mod:`bot.commands.step`) that the
transaction pipeline (:mod:`bot.commands.pipeline`) loads, runs and saves with compare-and-set.
This module routes each to its step, by job:

- the lobby (``start``, ``join``, ``addbot``, ``begin``, ``end``): :mod:`bot.commands.seats.lobby`;
- leaving and the host's team administration (``leave``, ``rename``, ``move``, ``remove``):
  :mod:`bot.commands.seats.roster`, with the team helpers of :mod:`bot.commands.seats.teams`;
- joining a team during play, answering such a request (``admit``), and the people of a team
  the game has absorbed: :mod:`bot.commands.seats.seating`;
- moves, presses and timeouts of a game being played: :mod:`bot.commands.game.moves`;
- ``help``, ``rules``, ``status``, ``hand``: :mod:`bot.commands.game.readers`;
- who may do what: :mod:`bot.commands.guards`.

It also fires the deadlines that have passed, and lists a user's games for ``/hand`` in a DM.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Callable

from bot.commands import codec, limits
from bot.commands.community import boardroom as community
from bot.commands.community import home
from bot.commands.damaged import DamagedRecord, read_record
from bot.commands.game import moves, pause, readers, takeback
from bot.commands.game.moves import STALE
from bot.commands.game.play import load_state
from bot.commands.grammar import CommandError, parse, subcommands, usage
from bot.commands.outbox import Form, Outbox
from bot.commands.pipeline import BUSY, UNAVAILABLE, UNCERTAIN, Pipeline
from bot.commands.seats import lobby, roster, seating, teams
from bot.commands.step import Refusal, Request, Step, StepMaker, outbox_for
from bot.settings import Settings
from core import text as markup
from core.commands import Kind, find
from core.engine import GameLike, IllegalAction
from core.registry import all_games, get_game
from storage import GameKey, GameStore, StorageUnavailable

__all__ = [
    "BUSY",
    "PARK_AFTER",
    "STALE",
    "STEPS",
    "UNAVAILABLE",
    "UNCERTAIN",
    "UNKNOWN_BUTTON",
    "Authority",
    "Refusal",
    "Request",
]

log = logging.getLogger(__name__)

PARK_AFTER = 5
"""Failures in a row after which a game's deadline is parked (retried only every PARK_S)."""
PARK_S = 600.0
UNKNOWN_BUTTON = "That button is not one I recognise; it may be from an old bot."

STEPS: dict[str, StepMaker] = {
    "help": readers.help_page,
    "rules": readers.rules,
    "status": readers.status,
    "hand": readers.hand,
    "start": lobby.start,
    "join": lobby.join,
    "leave": roster.leave,
    "addbot": lobby.addbot,
    "begin": lobby.begin,
    "end": lobby.end,
    "rematch": lobby.rematch,
    "rename": roster.rename,
    "move": roster.move,
    "remove": roster.remove,
    "admit": seating.admit,
    "undo": takeback.undo_step,
    "pause": pause.pause_step,
    "resume": pause.resume_step,
}
_LIMITED = {("start", ""): "lobby", ("rematch", ""): "lobby", ("rules", "all"): "upload"}
"""Commands that post or upload on their requester's behalf, and the limit each counts
against (:mod:`bot.commands.limits`)."""
"""The step of each lobby and table word the grammar declares (``grammar.subcommands``): the
authority routes a word only as declared for the game (a team word in a team game), here."""


class Authority:
    """Turns commands and presses into state changes and Outboxes."""

    def __init__(
        self,
        store: GameStore,
        settings: Settings | None = None,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], int] = lambda: secrets.randbits(63),
    ) -> None:
        self._pipeline = Pipeline(store, settings or Settings(), clock)
        self.limits = limits.Limits(store, self._pipeline.settings, clock)
        """How often each person may have the bot post or upload for them."""
        self.community = community.Community(
            store, self._pipeline.settings, clock, self._pipeline.forgetter, self.limits
        )
        """``/boardroom``: leaderboards, stats, history, replays and forget-me."""
        self.new_seed = new_seed
        """Where each game's secret seed comes from (simulations pass a seeded generator)."""
        self._failures: dict[GameKey, int] = {}
        """Deadline firings that raised, in a row, by game (backoff, then parking)."""
        self.parked: dict[GameKey, str] = {}
        """Games whose deadline keeps failing, and why (shown by health checks and logs)."""
        self._token = f"{secrets.token_hex(6)}:"
        self._adopted: set[str] = set()
        """Platforms whose deadlines from before leases were moved (once per process)."""
        self._claims = 0

    @property
    def damaged(self) -> dict[GameKey, str]:
        """Channels whose game record this worker found unreadable and set aside, and why."""
        return self._pipeline.damaged

    @property
    def store(self) -> GameStore:
        """Where the games are kept (the table layer keeps its refs there too)."""
        return self._pipeline.store

    @property
    def settings(self) -> Settings:
        """TTLs, idle and deadline settings."""
        return self._pipeline.settings

    @property
    def clock(self) -> Callable[[], float]:
        """Unix time now: deadlines, idleness and timestamps read it (tests pass their own)."""
        return self._pipeline.clock

    @property
    def confirm_s(self) -> float:
        """How long an ambiguous save is read back before the player hears it is uncertain."""
        return self._pipeline.confirm_s

    @confirm_s.setter
    def confirm_s(self, seconds: float) -> None:
        self._pipeline.confirm_s = seconds

    # --- entry points ----------------------------------------------------------------------

    @property
    def thinker(self) -> concurrent.futures.Executor | None:
        """Where strong bots search: the worker's process pool (None: in line, as the console
        and simulations do)."""
        return self._pipeline.thinker

    @thinker.setter
    def thinker(self, executor: concurrent.futures.Executor | None) -> None:
        self._pipeline.thinker = executor

    async def command(self, req: Request, game_name: str, text: str) -> Outbox:
        """Handle ``/<game_name> <text>``."""
        text = markup.valid(text)  # typed text may hold anything, a lone surrogate included
        if game_name == community.COMMAND:
            return await self.community.command(req, text)
        game = get_game(game_name)
        if game is None:
            names = ", ".join(f"/{g.name}" for g in all_games())
            out = outbox_for(req)
            out.reply(
                req.user,
                f"There is no game called `{markup.escape(game_name)}`. Try {names} "
                f"(or /{community.COMMAND}).",
            )
            return out
        parsed = parse(text)
        word, rest = parsed.word, parsed.rest
        shared = find(subcommands(game, play=True), word)
        out = outbox_for(req, game)
        try:
            if shared is not None:
                step = STEPS[shared.word](self, req, game, rest)
                rules = shared.word == "rules"
                kind = _LIMITED.get((shared.word, rest.strip().lower() if rules else ""))
                if kind is None:
                    # Readers (status, help...) are de-duplicated too: a retry is answered once.
                    return await self._pipeline.transact(req, game, step)
                return await self._limited(req, game, step, kind)
        except (CommandError, teams.TeamError) as error:  # unreadable arguments, before loading
            out.reply(req.user, str(error))
            return out
        command = find(game.commands, word)
        if command is not None:
            step = moves.text_action(self, req, game, command, rest)
            return await self._pipeline.transact(req, game, step)
        shown = markup.escape(word)
        help_text = usage(game)
        out.reply(req.user, f"I don't know “{shown}” in /{game.name}.\n{help_text}")
        return out

    async def _limited(self, req: Request, game: GameLike, step: Step, kind: str) -> Outbox:
        """A command that posts or uploads for its requester: counted against their limit
        (refused past it, with when they may again), and given back if it posted nothing."""
        try:
            taken = await self.limits.take(req, kind)
        except StorageUnavailable as outage:
            out = outbox_for(req, game)
            out.unavailable = True
            out.reply(req.user, str(outage))
            return out
        if isinstance(taken, str):
            out = outbox_for(req, game)
            out.reply(req.user, taken)
            return out
        out = await self._pipeline.transact(req, game, step)
        posted = out.card is not None or any(d.message.files for d in out.deliveries)
        if not posted and not out.duplicate:
            with contextlib.suppress(StorageUnavailable):
                await self.limits.give_back(req, taken)
        return out

    async def press(self, req: Request, custom_id: str, values: list[str] | None = None) -> Outbox:
        """Handle a button or select press."""
        values = [markup.valid(value) for value in values] if values is not None else None
        press = codec.decode(markup.valid(custom_id), values)
        if press is not None and press.game == community.COMMAND and press.command is not None:
            return await self.community.command(req, press.command, pressed=True)
        game = get_game(press.game) if press is not None else None
        if press is None or game is None:
            out = outbox_for(req)
            out.reply(req.user, UNKNOWN_BUTTON)
            return out
        if press.channel is not None and press.channel != req.channel:
            # A button in a DM acts on the game of the channel it came from.
            req = req.model_copy(update={"channel": press.channel})
        if press.command is not None and press.ask:
            out = outbox_for(req, game)
            word = press.command.split()[0] if press.command.split() else ""
            typed = find(game.commands, word)
            ask = typed.ask if typed is not None else None
            if ask is None:
                out.reply(req.user, UNKNOWN_BUTTON)
                return out
            closed = await self._form_closed(req, game, word)
            if closed is not None:
                # An old copy of the button (a pitch window since closed): no form to fill in
                # for nothing; the pressed message is brought up to date where it can be.
                out.reply(req.user, closed)
                return out
            # Nothing is applied yet: the answer comes back as a typed command and is checked
            # like one (seat, turn, amount).
            out.form = Form(game=game.name, channel=req.channel, command=word, ask=ask)
            return out
        if press.command is not None:
            return await self.command(req, game.name, press.command)
        return await self._pipeline.transact(req, game, moves.press_step(self, req, game, press))

    async def _form_closed(self, req: Request, game: GameLike, word: str) -> str | None:
        """Why the form of the typed command ``word`` is not for ``req.user`` now (the game no
        longer offers its button to them: an old "Pitch it…" after the pitch window), or None
        to open it. The game's own refusal of such a move says why; a game that cannot be read
        here opens the form, whose answer is checked like any typed move."""
        try:
            _, loaded = await self.store.load(GameKey(req.platform, req.channel))
            record = read_record(loaded.data) if loaded else None
        except (StorageUnavailable, DamagedRecord):
            return None
        if record is None or record.game != game.name or record.state_json is None:
            return None
        seat = record.seat_of(req.user)
        if seat is None or record.status != "playing":
            return STALE + " That game is over or you are not playing in it."
        face = game.at(load_state(game, record.state_json))
        state = face.state
        shown = [game.render_private(state, seat), game.render_board(state, False, face.public)]
        prompt = game.render_prompt(state)
        if prompt is not None:
            shown.append(prompt)
        if any(b.command == word and b.ask for m in shown for b in m.all_buttons()):
            return None
        command = find(game.commands, word)
        sample = {Kind.AMOUNT: "1", Kind.NUMBER: "1"}
        probe = " ".join(sample.get(arg.kind, "x") for arg in (command.args if command else ()))
        try:
            action = game.parse_text(state, seat, word, probe)
            if action is not None:
                game.apply(state, seat, action, random.Random(0))
        except IllegalAction as refused:
            return f"{STALE} {refused}"
        return f"{STALE} Nothing asks you for that now."

    async def hands(self, req: Request) -> list[Outbox]:
        """Every game the user sits in on this platform, with their private panel in each.

        For "DM hand management": ``/hand`` in a DM answers with one Outbox per game, each for
        that game's channel, so the buttons act on the right game.
        """
        outboxes = []
        try:
            ttl = int(self.settings.game_ttl_hours * 3600)
            games = await home.seated(self.store, req.platform, req.user, ttl)
        except StorageUnavailable:
            out = outbox_for(req)
            out.unavailable = True
            out.reply(req.user, UNAVAILABLE)
            return [out]
        for key, record, _game, _state in games:
            there = req.model_copy(update={"channel": key.channel, "delivery": None})
            out = await self.command(there, record.game, "hand")
            out.raise_panel = True  # asked in a DM: the panel there moves down, no copy
            if out.deliveries:
                outboxes.append(out)
        if not outboxes:
            out = outbox_for(req)
            out.reply(req.user, "You are not seated in any game right now.")
            outboxes.append(out)
        return outboxes

    async def seat_names(self, platform: str, channel: str) -> list[str]:
        """The seats (teams) of the channel's open or running game that one may join, for
        autocomplete: every seat of a lobby, the seats still in a running game."""
        try:
            _, loaded = await self.store.load(GameKey(platform, channel))
        except StorageUnavailable:
            return []
        try:
            record = read_record(loaded.data) if loaded else None
            if record is None or record.status == "finished":
                return []
            game = get_game(record.game)
            if game is None or record.state_json is None:
                return [seat.name for seat in record.seats]
            state = load_state(game, record.state_json)
        except DamagedRecord:
            return []
        return [record.seats[seat].name for seat in seating.playing(game, record, state)]

    async def fire_due(self, platform: str) -> list[Outbox]:
        """Apply a Timeout to every game of ``platform`` whose deadline has passed.

        Any worker of that platform may run this; the store leases each due deadline to one of
        them until its Timeout is saved, so a worker that dies mid-way leaves it to the others.
        Each game is fired on its own: one that raises is logged with its key and retried with
        backoff (parked after :data:`PARK_AFTER` failures in a row) while the others run on.
        Raises StorageUnavailable when the deadlines cannot be claimed at all.
        """
        if platform not in self._adopted:
            moved = await self.store.adopt_legacy_deadlines(platform)
            self._adopted.add(platform)
            if moved:
                log.warning("moved %d deadlines of %s from before leases", moved, platform)
        now = self.clock()
        self._claims += 1
        token = f"{self._token}{self._claims}"
        lease = self.settings.deadline_lease_seconds
        due = await self.store.claim_due(platform, now, lease, token)
        outboxes = []
        for key in due:
            try:
                out = await self._fire(key, now, token)
            except Exception as error:  # one bad game must not stop every other game's clock
                await self._failed(key, token, now, error)
                continue
            self._failures.pop(key, None)
            if self.parked.pop(key, None) is not None:
                log.warning("the deadline of %s fires again", key)
            if not out.unavailable:
                outboxes.append(out)
        # The history's sweep and forget-me jobs, every so often (never a game's clock).
        await self._pipeline.upkeep.run(platform, token)
        return outboxes

    async def _fire(self, key: GameKey, now: float, token: str) -> Outbox:
        game_req = Request(platform=key.platform, channel=key.channel, user="", name="clock")
        step = moves.timeout_step(self, now)
        return await self._pipeline.transact(game_req, None, step, lease=token)

    async def _failed(self, key: GameKey, token: str, now: float, error: Exception) -> None:
        count = self._failures[key] = self._failures.get(key, 0) + 1
        if count >= PARK_AFTER:
            delay = PARK_S
            self.parked[key] = f"{type(error).__name__}: {error}"[:300]
            log.error(
                "the deadline of %s failed %d times; parked for %.0f s",
                key,
                count,
                delay,
                exc_info=error,
            )
        else:
            delay = min(PARK_S, 2.0**count)
            log.warning(
                "the deadline of %s failed (%d); retrying in %.0f s",
                key,
                count,
                delay,
                exc_info=error,
            )
        try:
            await self.store.release(key, token, now + delay)
        except StorageUnavailable:
            log.warning("could not postpone the deadline of %s; its lease ends by itself", key)
