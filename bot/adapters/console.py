"""The terminal adapter: one person plays as several users in one channel.

Every button and select option printed gets a number that stays valid for the session, so
``click 7`` presses it (the authority decides whether it is still current). Lines:

- ``as <user>`` switches who you are; ``<user>: <input>`` does it for one line (scripts);
- ``/<game> <subcommand> ...`` (the slash is optional) runs a command; once the channel holds a
  game, its words need no ``/<game>``: ``roll``, ``bid 300k``, ``pitch It's a hat``, ``join``,
  ``status``, ``hand`` (``/<game> help`` lists them);
- ``click <n>`` presses a button, ``click <n> <m> ...`` chooses select options together (a
  menu option shows its description after a dash), ``click <label>`` presses the newest button
  you can see whose label starts with it, ``click any`` makes a random choice from the newest
  message with choices that you can see and may make (not a board's buttons during someone
  else's turn, nor the final card's Rematch): a scripted player who does not mind what it
  plays. A number stays valid: one of a message since edited presses that button as it was,
  and the bot answers it is out of date or applies it if it still stands;
- ``wait <seconds>`` moves the clock on (0 to a week at a time) and fires the deadlines that
  passed (scripts; interactively the real clock runs them, and what they print is followed by
  the prompt again);
- ``help``, ``quit``.

A message's files (``rules all``: the whole rules page) are named below it with their size;
started with ``--files DIR``, the console writes each there and prints its path. Started with
``--pictures DIR``, it writes each board's picture there and prints its path with the board.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from bot import table
from bot.commands import codec
from bot.commands.authority import Authority, Request
from bot.commands.community.boardroom import COMMAND as COMMUNITY_COMMAND
from bot.commands.grammar import subcommands
from bot.commands.outbox import Form, Outbox
from bot.commands.record import GameRecord
from bot.deadlines import Heartbeat
from bot.desk import Desk, Interaction
from bot.table.budget import Budget
from core import text as markup
from core import ui
from core.engine import MAX_SECONDS
from core.registry import all_games, get_game
from storage import GameKey, StorageUnavailable

__all__ = ["MAX_WAIT", "Console", "VirtualClock"]

PLATFORM = "console"
COMMUNITY = "console"
"""The console's one community: every game played in it is recorded there."""

FIRST_GAME = """A first game, alone with two bots:
  as alice                  (you are alice from now on; `as bob` makes you bob)
  /bigidea start            (opens a lobby in this channel: you are its host)
  addbot 2                  (two bot players; a friend types `join` instead)
  begin                     (deals: your hand and your buttons come in your private panel)
  click 7 9                 (presses numbered buttons: here two cards of your hand)
  pitch It keeps the rain off your dentures
  status                    (the board, privately), `help` again for these words"""


def console_help() -> str:
    """What ``help`` prints: the games, ``/boardroom``, the console's words and a first game."""
    games = "\n".join(
        f"  /{g.name:<12} {markup.plain(g.title)} ({g.min_players}-{g.max_players} "
        f"{'teams' if g.teams else 'players'}): `/{g.name} help` lists its words"
        for g in all_games()
    )
    return f"""The Boardroom console: one channel, where you can be several people.

Games:
{games}
  /{COMMUNITY_COMMAND:<12} what this console remembers of finished games: leaderboard,
               stats, history, replay, forget-me (`/{COMMUNITY_COMMAND} help`)

Once the channel holds a game, its words need no `/<game>`: `join`, `begin`, `status`,
`hand`, `rules`, and its moves (`roll`, `bid 300k`, `pitch It's a hat`...).

The console's own words:
  as <user>        switch who you are (`<user>: <input>` does it for one line, in scripts)
  click <n>        press button number n; `click <n> <m>` chooses several options of one
                   menu; `click <label>` presses the newest button whose label starts with
                   it; `click any` makes a random choice you may make (a scripted player).
                   A number stays valid: one of a message edited since presses that button
                   as it was, and the bot applies it if it still stands or says it is out
                   of date
  wait <seconds>   move the clock on (0 to a week at a time) and fire the deadlines that
                   passed (scripts; interactively the real clock runs them)
  help, quit

A message's files (`rules all`: the whole rules page) are named below it with their size;
with `--files DIR` the console writes them there, and with `--pictures DIR` each board's
picture.

{FIRST_GAME}"""


MAX_WAIT = MAX_SECONDS
"""The longest ``wait``: a week, the longest deadline a game's options set. The clock's time is
saved in the record (``updated_at``, deadlines), so it must stay a time the record can hold
(``inf`` and ``nan`` are none) and go no further than a game could ever need at once."""

_CONSOLE_WORDS = {"as", "click", "wait", "help", "quit"}
"""The console's own words, taken before a game's (a game's ``help`` is ``/<game> help``)."""


class VirtualClock:
    """A clock that moves only when told to (``wait``), so scripts are repeatable."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


@dataclass
class _Choice:
    """A printed button (``values`` empty) or one option of a select."""

    custom_id: str
    label: str
    viewers: set[str] | None
    """Who saw it: None for the channel (everyone), else the one user it was sent to."""
    message: int
    """The number of the delivery that carried it."""
    where: str = ""
    shown: str = ""
    """The conversation and id of the message it is on (a press updates that message)."""
    value: str | None = None
    picks: int = 1
    """How many options of its menu make a choice (the menu's min_values)."""
    retired: bool = False
    """Its message was edited or deleted since: its number still presses it as it was (the
    bot says when that is out of date), but ``click <label>`` and ``click any`` pass it by."""

    def visible_to(self, user: str) -> bool:
        return self.viewers is None or user in self.viewers

    def live_for(self, user: str) -> bool:
        """On a message as it is now, for ``user`` to see."""
        return self.visible_to(user) and not self.retired


class Console:
    """Reads lines, sends them through the authority, prints each Outbox."""

    def __init__(
        self,
        authority: Authority,
        channel: str = "general",
        write: Callable[[str], None] = print,
        transcript: TextIO | None = None,
        clock: VirtualClock | None = None,
        rng: random.Random | None = None,
        prompt: Callable[[str], None] | None = None,
        files: Path | None = None,
        pictures: Path | None = None,
    ) -> None:
        self.authority = authority
        self.channel = channel
        self._write = write
        self._prompt = prompt or _draw_prompt
        self.waiting = False
        """The prompt is drawn and nothing was typed after it yet (interactive mode)."""
        self._interrupted = False
        self.transcript = transcript
        self.clock = clock
        self.files = files
        """Where the files of messages are written (None: they are only named)."""
        self.pictures = pictures
        """Where each board's picture is written (None: pictures are not shown)."""
        self.user = "you"
        self.choices: list[_Choice] = []
        self._deliveries = 0
        self.platform = _ConsolePlatform(self)
        ttl = int(authority.settings.game_ttl_hours * 3600)
        finished = int(authority.settings.finished_ttl_hours * 3600)
        # Every board's picture at once: a file written costs no platform's upload limit, and
        # a script shows the same pictures each run, whatever the machine's speed.
        self.table = table.Table(
            authority.store, self.platform, ttl, finished_ttl_s=finished, coalesce_s=0
        )
        self.desk = Desk(authority, self.table)
        """Every line's request: the authority, the table and the answer."""
        self.rng = rng or random.Random()

    # --- the terminal ----------------------------------------------------------------------

    def write(self, text: str) -> None:
        """Print ``text`` as lines of their own: output that comes while the prompt waits (a
        deadline fired) first leaves the prompt's line, and :meth:`redraw` draws it again."""
        if self.waiting and not self._interrupted:
            self._interrupted = True
            self._write("")
        self._write(text)

    def prompt(self) -> None:
        """Draw the prompt (``alice> ``) and wait for a line."""
        self.waiting, self._interrupted = True, False
        self._prompt(f"{self.user}> ")

    def typed(self) -> None:
        """A line was read: what follows is its answer, not an interruption."""
        self.waiting, self._interrupted = False, False

    def redraw(self) -> None:
        """The prompt again, below output that interrupted it, so typing goes on there."""
        if self.waiting and self._interrupted:
            self.prompt()

    # --- input -----------------------------------------------------------------------------

    async def handle_line(self, line: str) -> bool:
        """Run one line; returns False when the user asked to quit."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        head, sep, tail = line.partition(":")
        if sep and tail.strip() and " " not in head and not head.startswith("/"):
            # `<user>: <input>` acts as that user for this line only (`as` switches for good).
            me, self.user = self.user, head.strip()
            try:
                return await self.handle_line(tail)
            finally:
                if self.user == head.strip():
                    self.user = me
        word, _, rest = line.partition(" ")
        word = word.lower()
        if word in {"quit", "exit"}:
            return False
        if word == "help":
            self.write(console_help())
        elif word == "as":
            if not rest.strip():
                self.write(f"(you are {self.user}; `as <user>` makes you someone else)")
            else:
                self.user = rest.strip()
                self.write(f"(you are now {self.user})")
        elif word == "click":
            await self._click(rest.split())
        elif word == "wait":
            await self._wait(rest)
        else:
            await self._command(word.lstrip("/"), rest)
        return True

    def _request(self) -> Request:
        return Request(
            platform=PLATFORM,
            channel=self.channel,
            user=self.user,
            name=self.user,
            community=COMMUNITY,
        )

    async def _command(self, word: str, text: str) -> None:
        """``/<game> <text>``, or a word of the channel's game typed without ``/<game>``."""
        known = {g.name: g for g in all_games()}
        if word in known or word == COMMUNITY_COMMAND:
            await self._ask(
                Interaction(request=self._request(), kind="command", game=word, text=text)
            )
            return
        names = ", ".join(sorted(known))
        try:
            record = await self._record()
        except StorageUnavailable:
            self.write(
                "(the store does not answer, so I cannot tell this channel's game; "
                f"`/<game> {word} ...` names it: {names})"
            )
            return
        game = get_game(record.game) if record is not None else None
        if word == "start" and (record is None or record.status == "finished"):
            self.write(f"(start which game? `/<game> start` opens one: {names})")
            return
        if record is None or game is None:
            self.write(
                f"(unknown input “{word}”: no game is open here to take it; `/<game> start` "
                f"opens one ({names}), and `help` lists what you can type)"
            )
            return
        words = [command.word for command in (*game.commands, *subcommands(game, play=True))]
        if word not in words:
            bare = [w for w in words if w not in _CONSOLE_WORDS]
            self.write(
                f"(unknown input “{word}”: {markup.plain(game.title)}, played here, takes "
                f"{', '.join(bare)} (`/{game.name} help` says what each does), and the console "
                f"{', '.join(sorted(_CONSOLE_WORDS))})"
            )
            return
        line = f"{word} {text}".strip()
        await self._ask(
            Interaction(request=self._request(), kind="command", game=game.name, text=line)
        )

    async def _click(self, words: list[str]) -> None:
        if not words:
            self.write("(click what? give a number or a label)")
            return
        if words == ["any"]:
            chosen = self._any(await self._seat())
            if not chosen:
                self.write(f"(there is nothing {self.user} can click)")
                return
        elif all(w.isdigit() for w in words):
            picked = [self._numbered(int(w)) for w in words]
            if any(c is None for c in picked):
                self.write("(there is no choice with that number)")
                return
            chosen = [c for c in picked if c is not None]
        else:
            match = self._labelled(" ".join(words))
            if match is None:
                self.write(f"(no button labelled {' '.join(words)!r} that {self.user} can see)")
                return
            chosen = [match]
        if any(not c.visible_to(self.user) for c in chosen):
            # (Only a private message of someone else's: an old number of one's own still works.)
            self.write(f"({self.user} cannot see that choice; it was sent to someone else)")
            return
        if len({c.custom_id for c in chosen}) != 1:
            self.write("(choose options of one menu at a time)")
            return
        values = [c.value for c in chosen if c.value is not None]
        pressed = Interaction(
            request=self._request(),
            kind="press",
            custom_id=chosen[0].custom_id,
            values=values or None,
        )
        await self._ask(pressed, chosen[0])

    def _numbered(self, number: int) -> _Choice | None:
        return self.choices[number - 1] if 1 <= number <= len(self.choices) else None

    def _labelled(self, label: str) -> _Choice | None:
        wanted = label.lower()
        for choice in reversed(self.choices):
            if (
                choice.live_for(self.user)
                and choice.value is None
                and choice.label.lower().startswith(wanted)
            ):
                return choice
        return None

    async def _seat(self) -> int | None:
        """The seat of the current user in the channel's game, if any."""
        try:
            record = await self._record()
        except StorageUnavailable:
            return None
        return record.seat_of(self.user) if record is not None else None

    async def _record(self) -> GameRecord | None:
        """The channel's game record (a lobby, a game, or the last one played), if any."""
        _, loaded = await self.authority.store.load(GameKey(PLATFORM, self.channel))
        return GameRecord.model_validate_json(loaded.data) if loaded is not None else None

    def _any(self, seat: int | None) -> list[_Choice]:
        """A random choice of the newest message with choices ``self.user`` may make (not
        another seat's: the board's buttons during someone else's turn; never the final
        card's Rematch, which would start another game)."""
        visible = [
            c
            for c in self.choices
            if c.live_for(self.user) and _mine(c, seat) and not _starts_a_game(c)
        ]
        if not visible:
            return []
        newest = max(c.message for c in visible)
        groups: dict[str, list[_Choice]] = {}
        for choice in visible:
            if choice.message == newest:
                groups.setdefault(choice.custom_id, []).append(choice)
        group = self.rng.choice(list(groups.values()))
        if group[0].value is None:
            return group[:1]
        return self.rng.sample(group, min(group[0].picks, len(group)))

    async def _wait(self, rest: str) -> None:
        if self.clock is None:
            self.write("(`wait` works in script mode; here the real clock runs the deadlines)")
            return
        try:
            seconds = float(rest)
        except ValueError:
            self.write("(wait how many seconds? e.g. `wait 60`)")
            return
        if not (math.isfinite(seconds) and 0 <= seconds <= MAX_WAIT):
            # (A clock that goes back, or to no time at all, would be saved in the record.)
            self.write(f"(wait takes 0 to {MAX_WAIT:,} seconds (a week) at a time, e.g. `wait 60`)")
            return
        self.clock.now += seconds
        for out in await self.authority.fire_due(PLATFORM):
            await self.deliver(out)

    # --- output ----------------------------------------------------------------------------

    async def deliver_async(self, outbox: Outbox) -> None:
        """What the deadline runner fired, printed between the prompts (see :meth:`write`)."""
        await self.deliver(outbox)
        self.redraw()

    async def deliver(self, outbox: Outbox) -> None:
        """An Outbox nobody asked for (a deadline fired)."""
        await self.desk.deliver(outbox)

    async def _ask(self, asked: Interaction, pressed: _Choice | None = None) -> None:
        """One line's request, through the front desk, answered to the current user."""
        await self.desk.handle(asked, _ConsoleAnswer(self, self.user, pressed))

    def show(
        self,
        where: str,
        viewer: str | None,
        message: ui.Message,
        audience: str,
        label: str,
        mention: list[str] | None = None,
        same: str | None = None,
    ) -> table.Shown:
        """Print one message (a post, an edit of message ``same``, a DM); number its choices."""
        self._deliveries += 1
        shown = table.Shown(where=where, id=same or str(self._deliveries))
        viewers = None if viewer is None else {viewer}
        text = markup.unescape(message.plain_text())
        if mention:
            text = f"{', '.join('@' + user for user in mention)}: {text}"
        if message.deadline is not None:
            now = self.clock() if self.clock is not None else time.time()
            text = f"{text}\n({max(0, round(message.deadline - now))} s left)".strip()
        text_lines = text.splitlines() or [""]
        lines = [f"[{label}] {text_lines[0]}", *(f"  {line}" for line in text_lines[1:])]
        lines += self._number_components(message, viewers, shown)
        lines += [f"  {self._file(attached)}" for attached in message.files]
        if message.picture is not None and self.pictures is not None:
            lines.append(f"  {self._picture(message.picture)}")
        self.write("\n".join(lines))
        if self.transcript is not None:
            record = {
                "audience": audience,
                "user": viewer,
                "text": message.plain_text(),
                "buttons": [b.label for b in message.all_buttons()],
                "selects": [
                    {
                        "placeholder": s.placeholder,
                        "options": [o.label for o in s.options],
                        "descriptions": [o.description for o in s.options],
                    }
                    for s in message.selects
                ],
                "files": [f.name for f in message.files],
            }
            self.transcript.write(json.dumps(record) + "\n")
            self.transcript.flush()
        return shown

    def _file(self, attached: ui.File) -> str:
        """The line naming an attached file; with :attr:`files`, it is written there first."""
        line = f"(file: {attached.name}, {attached.mime}, {len(attached.data):,} bytes"
        if self.files is None:
            return line + ")"
        path = self.files / attached.name  # a ui.File's name is one safe path component
        try:
            self.files.mkdir(parents=True, exist_ok=True)
            path.write_bytes(attached.data)
        except OSError as error:
            return f"{line}; not written: {error.strerror or error})"
        return f"{line}, written to {path})"

    def _picture(self, picture: ui.Picture) -> str:
        """The line giving a board picture's path, once written into :attr:`pictures`."""
        assert self.pictures is not None
        attached = picture.file()
        path = self.pictures / attached.name
        line = f"(picture: {picture.width}x{picture.height}, {len(picture.data):,} bytes"
        try:
            self.pictures.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                path.write_bytes(picture.data)
        except OSError as error:
            return f"{line}; not written: {error.strerror or error})"
        return f"{line}, {path}: {picture.alt})"

    def forget(self, shown: table.Shown) -> None:
        """The choices of a message that was replaced or deleted are of the message as it was:
        their numbers still press them (the authority says whether they still stand)."""
        for choice in self.choices:
            if (choice.where, choice.shown) == (shown.where, shown.id):
                choice.retired = True

    def _number_components(
        self, message: ui.Message, viewers: set[str] | None, shown: table.Shown
    ) -> list[str]:
        """Number the message's choices, each pressing the id it was bound to (one left
        unbound, whose id could not fit, is left out as the other platforms leave it out)."""
        lines = []
        for row in message.buttons:
            cells = []
            for button in row:
                custom_id = button.custom_id
                if custom_id is None:
                    continue
                self.choices.append(
                    _Choice(
                        custom_id, button.label, viewers, self._deliveries, shown.where, shown.id
                    )
                )
                cells.append(f"[{len(self.choices)}] {markup.unescape(button.label)}")
            if cells:
                lines.append("  " + "   ".join(cells))
        for select in message.selects:
            custom_id = select.custom_id
            if custom_id is None:
                continue
            many = (
                f"choose {select.min_values}"
                if select.min_values == select.max_values
                else f"choose {select.min_values}-{select.max_values}"
            )
            lines.append(f"  {select.placeholder} ({many}, e.g. `click n m`):")
            for option in select.options:
                self.choices.append(
                    _Choice(
                        custom_id,
                        option.label,
                        viewers,
                        self._deliveries,
                        shown.where,
                        shown.id,
                        option.value,
                        select.min_values,
                    )
                )
                # The description tells apart options of the same label (two copies of a card).
                about = f" — {markup.unescape(option.description)}" if option.description else ""
                lines.append(f"    [{len(self.choices)}] {markup.unescape(option.label)}{about}")
        return lines


class _ConsolePlatform:
    """The table's primitives for the terminal: every post, edit and DM is printed."""

    name = PLATFORM
    budget: Budget | None = None
    """A terminal rations nothing."""
    closed_hint = ""
    threads_share_limit = False
    threads_are_conversations = True
    """The game's thread is a conversation apart (its choices name the channel)."""
    id_limit = codec.MAX_ID_LENGTH
    """As on Discord, the strictest platform: what fits here fits everywhere."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def post_limit(self, where: str) -> None:
        return None

    async def post(
        self,
        place: table.Place,
        message: ui.Message,
        surface: str = "post",
        mention: list[str] | None = None,
        ping: bool = True,
    ) -> table.Shown:
        where = place.thread or place.channel
        label = f"#{place.channel}" + (" › thread" if place.thread else "")
        label += f" · {surface}" if surface in ("card", "board", "prompt") else ""
        audience = "board" if surface == "board" else "channel"
        return self.console.show(where, None, message, audience, label, mention)

    async def edit(
        self,
        shown: table.Shown,
        message: ui.Message,
        surface: str = "post",
    ) -> None:
        self.console.forget(shown)
        viewer = shown.where.removeprefix("dm:") if shown.where.startswith("dm:") else None
        if viewer is None and shown.where.startswith("private:"):
            viewer = shown.where.removeprefix("private:")
        channel = self.console.channel
        place = f"#{channel}" + (" › thread" if shown.where != channel else "")
        label = f"{viewer} · {surface}, updated" if viewer else f"{place} · {surface}, updated"
        audience = "dm" if viewer else "board" if surface == "board" else "channel"
        self.console.show(shown.where, viewer, message, audience, label, same=shown.id)

    async def delete(self, shown: table.Shown) -> None:
        self.console.forget(shown)

    async def dm(self, user: str, message: ui.Message) -> table.Shown:
        return self.console.show(f"dm:{user}", user, message, "dm", f"{user} · panel")

    async def start_thread(self, channel: str, card: table.Shown, name: str) -> str | None:
        self.console.write(f"(#{channel}: the game goes on in the thread “{markup.plain(name)}”)")
        return f"{channel}/thread"


class _ConsoleAnswer:
    """The console's requester: a press updates the printed message it was on."""

    async def acknowledge(self) -> None:
        return None  # a terminal waits for its line anyway

    async def open_form(self, form: Form) -> bool:
        """A terminal has no modal: the form's question, and the command that answers it."""
        ask = form.ask
        self.console.write(f"[{self.user} · form] {ask.title}: {ask.label}")
        self.console.write(f"  (type `/{form.game} {form.command} <answer>`)")
        return True

    def refusal(self, refused: list[str], game: str) -> str:
        return " ".join(refused)

    async def finish(self, answered: bool) -> None:
        return None

    def __init__(self, console: Console, user: str, pressed: _Choice | None) -> None:
        self.console = console
        self.user = user
        self.pressed = (pressed.where, pressed.shown) if pressed is not None else None
        self.pressed_private = pressed is not None and pressed.viewers is not None

    async def update(self, message: ui.Message) -> bool:
        if self.pressed is None:
            return False
        shown = table.Shown(where=self.pressed[0], id=self.pressed[1])
        await self.console.platform.edit(shown, message, "pressed message")
        return True

    async def reply(self, message: ui.Message, channel: str) -> bool:
        where = f"private:{self.user}"
        self.console.show(where, self.user, message, "ephemeral", f"{self.user} · private")
        return True


async def run_console(
    authority: Authority,
    script: TextIO | None,
    transcript: TextIO | None,
    clock: VirtualClock | None,
    poll_seconds: float,
    rng: random.Random | None = None,
    files: Path | None = None,
    pictures: Path | None = None,
    heartbeat: Heartbeat | None = None,
) -> None:
    """Run a script to its end, or an interactive session with the deadline runner beside it
    (beating ``heartbeat``); ``files``: where to write the files of messages; ``pictures``:
    the boards' pictures."""
    console = Console(
        authority, transcript=transcript, clock=clock, rng=rng, files=files, pictures=pictures
    )
    if script is not None:
        for line in script:
            if not await console.handle_line(line):
                break
        return
    from bot.deadlines import run_deadlines

    if isinstance(sys.stdin, io.TextIOWrapper):
        # A byte that is no text (a paste in another encoding) is a U+FFFD, not a crash.
        sys.stdin.reconfigure(errors="replace")
    stop = asyncio.Event()
    runner = asyncio.create_task(
        run_deadlines(authority, PLATFORM, console.deliver_async, poll_seconds, stop, heartbeat)
    )
    console.write("Boardroom console. `help` lists what you can type; you are `you`.")
    loop = asyncio.get_running_loop()
    try:
        while True:
            console.prompt()
            line = await loop.run_in_executor(None, sys.stdin.readline)
            console.typed()
            if not line or not await console.handle_line(line):
                break
    finally:
        stop.set()
        await runner


def _draw_prompt(text: str) -> None:
    print(text, end="", flush=True)


def _mine(choice: _Choice, seat: int | None) -> bool:
    owner = codec.seat_of(choice.custom_id)
    return owner is None or seat is None or owner == seat


def _starts_a_game(choice: _Choice) -> bool:
    """The final card's Rematch (``click any`` plays the game at hand, not another one)."""
    press = codec.decode(choice.custom_id)
    return press is not None and press.command == "rematch"
