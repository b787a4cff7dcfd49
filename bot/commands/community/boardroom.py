"""``/boardroom``: what a community remembers, the same on every platform.

- ``leaderboard <game>``: the community's best rated players of that game (rating, games, wins),
  with a button that shows it to the channel;
- ``stats [user]``: one person's games, wins, ratings and recent results per game;
- ``history [game]``: the community's latest finished games (when, who, who won, how long);
- ``replay <game id>``: a private step-through of a finished game from its first move (first,
  back, forward, last), each step saying what happened and showing the board and its picture,
  rebuilt from its log once per worker (off the event loop) and rate-limited per person;
- ``forget-me``: after a confirmation, erases the person (by their id) from the history of
  every community that keeps them on this platform, and from the games kept in its channels
  (their seats read "a former player"): :mod:`bot.commands.community.forget`.

Every answer is private (but a leaderboard its reader chose to show). The results come from
:mod:`bot.commands.community.results` and :mod:`storage.history`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from bot import metrics
from bot.commands.community.forget import Forgetter, Forgot
from bot.commands.community.results import FORMER, GameResult, Rating, shown
from bot.commands.game.actionlog import action_rng, decode_action
from bot.commands.limits import Limits
from bot.commands.outbox import Outbox
from bot.commands.step import Request
from bot.settings import Settings
from core import text as markup
from core import ui
from core.engine import Event, GameLike, GameState
from core.registry import all_games, get_game
from storage import GameKey, GameStore, StorageUnavailable
from storage import history as kept

__all__ = ["COMMAND", "Community", "Replays", "Step", "replay_moves", "replay_steps"]

COMMAND = "boardroom"
TOP = 10
RECENT = 10
_MENTION = re.compile(r"^<@!?([A-Za-z0-9]+)(?:\|[^>]*)?>$")

USAGE = (
    "`/boardroom leaderboard <game>`: the best players of a game here\n"
    "`/boardroom stats [user]`: someone's games, wins and ratings (yours when nobody is named)\n"
    "`/boardroom history [game]`: the latest finished games here\n"
    "`/boardroom replay <game id>`: step through a finished game (ids are in the history)\n"
    "`/boardroom forget-me`: delete your ratings, stats and name from every history\n"
    "`/boardroom help`: this list"
)
HELP_HEAD = (
    "`/boardroom` is what this community remembers of its finished games (every answer is "
    "private):\n"
)
UNAVAILABLE = "Storage is unavailable, try again shortly."
WORDS = frozenset({"leaderboard", "stats", "history", "replay", "forget-me", "forgetme", "forget"})
NO_COMMUNITY = (
    "Ratings, stats and history are kept per server: use `/boardroom` in a channel of the "
    "server you play in."
)


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))


def _game_names() -> str:
    return ", ".join(g.name for g in all_games())


def _game_list() -> str:
    """``The Big Idea (`bigidea`), ...``: every game, as a player reads and types it."""
    return markup.join([f"{g.title} (`{g.name}`)" for g in all_games()])


class Community:
    """Answers ``/boardroom`` commands from the store."""

    def __init__(
        self,
        store: GameStore,
        settings: Settings,
        clock: Callable[[], float],
        forgetter: Forgetter,
        limits: Limits,
    ) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self.replays = Replays(settings.pictures)
        self.forgetter = forgetter
        self.limits = limits

    def _where(self, req: Request) -> kept.Community:
        return kept.Community(req.platform, req.community or "default")

    @property
    def _since(self) -> float:
        return self.clock() - self.settings.history_days * 86400

    async def command(self, req: Request, text: str, pressed: bool = False) -> Outbox:
        """``/boardroom <text>`` (``pressed``: from one of its own buttons)."""
        out = Outbox(platform=req.platform, channel=req.channel, game=COMMAND)
        word, _, rest = markup.valid(text).strip().partition(" ")
        word, rest = word.lower(), rest.strip()
        if not req.community and word in WORDS:
            # (a Discord DM: no server, so no community whose history this could be)
            out.reply(req.user, NO_COMMUNITY)
            return out
        try:
            if word == "leaderboard":
                await self._leaderboard(req, rest, out, pressed)
            elif word == "stats":
                await self._stats(req, rest, out)
            elif word == "history":
                await self._history(req, rest, out)
            elif word == "replay":
                await self._replay(req, rest, out, pressed)
            elif word in {"forget-me", "forgetme", "forget"}:
                await self._forget(req, rest, out, pressed)
            elif word in {"help", ""}:
                out.reply(req.user, HELP_HEAD + USAGE)
            else:
                shown_word = markup.escape(word)
                head = f"I don't know “{shown_word}” in /boardroom.\n" if word else ""
                out.reply(req.user, head + USAGE)
        except StorageUnavailable as outage:
            out.deliveries.clear()
            out.announcements.clear()
            out.unavailable = True
            out.reply(req.user, str(outage))
        return out

    # --- leaderboard --------------------------------------------------------------------------

    async def _leaderboard(self, req: Request, rest: str, out: Outbox, pressed: bool) -> None:
        name, _, share = rest.partition(" ")
        game = get_game(name.lower())
        if game is None:
            head = (
                f"There is no game called `{markup.escape(name)}` here. "
                if name
                else "Name a game: `/boardroom leaderboard <game>`. "
            )
            out.reply(req.user, f"{head}The games are {_game_list()}.")
            return
        rows = await kept.leaderboard(self.store, self._where(req), game.name, TOP)
        board = leaderboard_message(game, rows)
        if share.strip() == "share":
            if req.delivery:
                first = await self.store.mark_handled(
                    GameKey(req.platform, req.channel),
                    f"{req.platform}:{req.delivery}",
                    self.settings.dedupe_ttl_seconds,
                )
                if not first:
                    out.duplicate = True
                    return
            taken = await self.limits.take(req, "share")
            if isinstance(taken, str):
                out.reply(req.user, taken)
                return
            out.announcements.append(board.model_copy(update={"buttons": []}))
            out.reply(req.user, "I showed the leaderboard to the channel.", in_place=pressed)
            return
        if rows:
            board.buttons = [
                [ui.Button(label="Show to the channel", command=f"leaderboard {game.name} share")]
            ]
        out.reply(req.user, board)

    # --- stats ----------------------------------------------------------------------------------

    async def _stats(self, req: Request, rest: str, out: Outbox) -> None:
        where = self._where(req)
        user = req.user
        if rest:
            # A mention's id, else the name as typed: names are kept as markup (escaped), so
            # a player called `<@everyone>` is found by typing that.
            mention = _MENTION.match(rest)
            tried = [mention.group(1)] if mention else []
            tried += [markup.escape(rest), markup.escape(rest.removeprefix("@"))]
            found = None
            for wanted in dict.fromkeys(tried):
                found = await kept.find_person(self.store, where, wanted)
                if found is not None:
                    break
            if found is None:
                out.reply(req.user, f"I have no finished games of {markup.escape(rest)} here.")
                return
            user = found
        name, lines = await self.stats(where, user, RECENT)
        if name is None:
            whose = "You have" if user == req.user else "They have"
            out.reply(req.user, f"{whose} no finished games here yet.")
            return
        out.reply(req.user, ui.Message(title=f"Stats: {name}", text="\n".join(lines)))

    async def stats(
        self, where: kept.Community, user: str, recent: int
    ) -> tuple[str | None, list[str]]:
        """``user``'s name in ``where`` (None: no finished game there) and their stats: a line
        per rated game, then up to ``recent`` recent results."""
        games = [g.name for g in all_games()]
        who = await kept.person(self.store, where, user, games, self._since, recent)
        if who.name is None:
            return None, []
        played = await kept.results(self.store, where, who.played)
        lines = []
        for name, data in who.ratings.items():
            rating = Rating.model_validate_json(data)
            game = get_game(name)
            title = game.title if game else name
            lines.append(
                f"{title}: rating {shown(rating)} · {markup.plural(rating.games, 'game')} · "
                f"{markup.plural(rating.wins, 'win')}"
            )
        if not lines:
            lines.append("No rated games yet (a game is rated when two people or more finish it).")
        found = [
            _result_line(GameResult.model_validate_json(played[i]), user)
            for i in who.played
            if i in played
        ]
        if found:
            lines += ["", "Recent games:", *found]
        return who.name, lines

    # --- history --------------------------------------------------------------------------------

    async def _history(self, req: Request, rest: str, out: Outbox) -> None:
        where = self._where(req)
        game = None
        if rest:
            game = get_game(rest.split()[0].lower())
            if game is None:
                out.reply(
                    req.user, f"There is no game called `{markup.escape(rest)}` ({_game_names()})."
                )
                return
        ids = await kept.recent(self.store, where, self._since, RECENT * (5 if game else 1))
        found = await kept.results(self.store, where, ids)
        games = [GameResult.model_validate_json(found[i]) for i in ids if i in found]
        if game is not None:
            games = [g for g in games if g.game == game.name][:RECENT]
        if not games:
            out.reply(req.user, "No finished games here yet.")
            return
        title = f"Recent games{f' of {game.title}' if game else ''}"
        out.reply(
            req.user, ui.Message(title=title, text="\n".join(_history_line(g) for g in games))
        )

    # --- replay ---------------------------------------------------------------------------------

    async def _replay(self, req: Request, rest: str, out: Outbox, pressed: bool) -> None:
        parts = rest.split()
        if not parts:
            out.reply(
                req.user,
                "Name a game: `/boardroom replay <game id>` (ids are in `/boardroom history`).",
            )
            return
        if not self.replays.allow(req.user, self.clock()):
            out.reply(req.user, REPLAY_TOO_FAST)
            return
        game_id = parts[0].lower()
        wanted = int(parts[1]) if len(parts) > 1 and parts[1].lstrip("-").isdigit() else 0
        found = await kept.replay_of(self.store, self._where(req), game_id)
        if found is None:
            out.reply(req.user, f"I have no replay of a game `{markup.escape(game_id)}` here.")
            return
        # Rebuilding a game (61-103 ms) and drawing a board (20-40 ms) hold the CPU: done in a
        # thread, and kept, so that pressing through a finished game rebuilds it once.
        shown = await asyncio.to_thread(self.replays.message, found[0], found[1], wanted)
        if shown is None:
            out.reply(req.user, "That game's log could not be replayed.")
            return
        out.reply(req.user, shown, in_place=pressed)

    # --- forget-me ------------------------------------------------------------------------------

    async def _forget(self, req: Request, rest: str, out: Outbox, pressed: bool) -> None:
        if rest.strip().lower() == "no":
            out.reply(req.user, "Kept: nothing of yours was deleted.", in_place=pressed)
            return
        if rest.strip().lower() != "yes":
            out.reply(
                req.user,
                ui.Message(
                    title="Forget me?",
                    text=(
                        "This deletes your ratings, stats and name from the history of every "
                        "community where you played, and from the games kept in channels "
                        "(your seats will read “a former player”). Games you are playing keep "
                        "you until they end, then forget you too. It cannot be undone."
                    ),
                    buttons=[
                        [
                            ui.Button(
                                label="Yes, forget me", style="danger", command="forget-me yes"
                            ),
                            ui.Button(label="Cancel", command="forget-me no"),
                        ]
                    ],
                ),
            )
            return
        forgot = await self.forgetter.forget(req.platform, req.user, req.community or None)
        out.forgotten = (req.community or "default", req.user)
        out.reply(req.user, forgotten_message(forgot, req.community or "default"), in_place=pressed)


def forgotten_message(forgot: Forgot, here: str) -> str:
    """What the person is told once forget-me has run: where it found them, truthfully."""
    others = len([c for c in forgot.communities if c != here])
    found_here = here in forgot.communities
    if found_here:
        said = "Done: your ratings, stats and name are gone from this community's history"
        if others:
            said += f" and from {markup.plural(others, 'other community', 'other communities')}"
    elif others:
        said = (
            "I kept nothing of yours in this community; your ratings, stats and name are gone "
            f"from the {markup.plural(others, 'community', 'communities')} where you played"
        )
    else:
        said = "I kept no finished games of yours: there was nothing to forget"
    if forgot.playing == 1:
        said += ". The game you are playing now will forget you when it ends"
    elif forgot.playing:
        said += f". The {forgot.playing} games you are playing now will forget you when they end"
    return said + "."


def leaderboard_message(game: GameLike, rows: list[kept.RatingRow]) -> ui.Message:
    title = f"{game.title}: leaderboard"
    if not rows:
        return ui.Message(
            title=title, text="Nobody is rated here yet: finish a game with two people or more."
        )
    lines = []
    for place, row in enumerate(rows, start=1):
        rating = Rating.model_validate_json(row.data)
        lines.append(
            f"{place}. {rating.name or FORMER} · {round(row.shown)} · "
            f"{markup.plural(rating.games, 'game')} · {markup.plural(rating.wins, 'win')}"
        )
    return ui.Message(title=title, text="\n".join(lines))


def _names(result: GameResult, seat_index: int) -> str:
    seat = result.seats[seat_index]
    if not seat.people:
        return f"{seat.name} (bot)"
    return seat.name


def _history_line(result: GameResult) -> str:
    game = get_game(result.game)
    title = game.title if game else result.game
    winners = [_names(result, i) for i, s in enumerate(result.seats) if s.rank == 1]
    everyone = ", ".join(_names(result, i) for i in range(len(result.seats)))
    minutes = result.minutes
    length = ""
    if minutes is not None:
        length = " · under a minute" if minutes < 1 else f" · {markup.plural(minutes, 'minute')}"
    return (
        f"`{result.id}` {title} · {_when(result.ended_at)}{length} · won by "
        f"{markup.join(winners)} · {everyone}"
    )


def _result_line(result: GameResult, user: str) -> str:
    game = get_game(result.game)
    title = game.title if game else result.game
    mine = next((s for s in result.seats if user in [p.user for p in s.people]), None)
    place = f"#{mine.rank} of {len(result.seats)} ({mine.score})" if mine else "played"
    return f"`{result.id}` {title} · {_when(result.ended_at)} · {place}"


@dataclass(frozen=True)
class Step:
    """One step of a replay: the game after a command of its log, and what happened in it (the
    public lines of its events: "Bob puts a chit on the love car.")."""

    state: GameState
    line: str


MOVE_LINE_LIMIT = 600
"""Characters of a step's account of what happened (a long stretch of bot moves is cut)."""


def replay_steps(game: GameLike, result: GameResult, replay: str) -> list[GameState]:
    """The game's state after each command of its log, from ``begin`` (or the snapshot) on."""
    return [step.state for step in replay_moves(game, result, replay)]


def _told(events: list[Event]) -> list[str]:
    return [e.text for e in events if e.audience.is_public and e.text]


def replay_moves(game: GameLike, result: GameResult, replay: str) -> list[Step]:
    """The game after each command of its log, from ``begin`` (or the snapshot) on, each with
    the public account of what happened in it."""
    kept_log = json.loads(replay)
    seed, first = result.seed, result.first_version
    state: GameState | None = None
    steps: list[Step] = []
    if kept_log.get("snapshot"):
        state = game.state_model.model_validate_json(kept_log["snapshot"])
        steps.append(Step(state, "The game as it stood when its log was packed."))
    for text in kept_log.get("lines", []):
        applied = False
        told: list[str] = []
        for entry in json.loads(text):
            if entry[1] == "begin":
                _who, _kind, names, _bots = entry
                state = game.setup(names, result.options, action_rng(seed, first))
                state.version = state.decision_version = first
                steps, applied = [], True
                told = _told(game.opening_events(state)) or ["The game begins."]
                continue
            if state is None or not isinstance(entry[0], int):
                continue
            actor, action = decode_action(game, entry)
            moved = game.apply(state, actor, action, action_rng(seed, state.version))
            state = moved.state
            told += _told(moved.events)
            applied = True
        if applied and state is not None:
            line = markup.clip(" ".join(" ".join(told).split()), MOVE_LINE_LIMIT)
            ending = state.outcome.summary if state.outcome is not None else ""
            if ending and ending not in line:
                # A long last stretch of moves is cut before how the game ended, never it.
                said = " ".join(" ".join(told).split())
                line = markup.clip(said, MOVE_LINE_LIMIT - len(ending) - 1) + " " + ending
            steps.append(Step(state, line or "Nothing anyone may see happened."))
    if steps and steps[-1].state.version != result.final_version:
        return []  # not this game's log
    return steps


def replay_message(
    game: GameLike,
    result: GameResult,
    step: Step,
    at: int,
    last: int,
    picture: ui.Picture | None = None,
) -> ui.Message:
    """Step ``at`` (0 to ``last``) of a replay: what happened in it, then the board as it was
    then (with its picture), and buttons that stop where the game does."""
    board = game.render_board(step.state, pictured=False)
    when = _when(result.ended_at)
    head = f"Replay `{result.id}` of {game.title}, {when}: step {at + 1} of {last + 1}"
    end = " (the end)" if at == last else ""
    text = "\n".join(part for part in (head + end, step.line, "", board.text) if part is not None)

    def nav(label: str, to: int) -> ui.Button:
        return ui.Button(label=label, command=f"replay {result.id} {to}")

    buttons = []
    if at > 0:
        buttons += [nav("First", 0), nav("Back", at - 1)]
    if at < last:
        buttons += [nav("Forward", at + 1), nav("Last", last)]
    return ui.Message(
        title=board.title,
        text=text,
        fields=board.fields,
        buttons=[buttons] if buttons else [],
        picture=picture,
    )


REPLAY_TOO_FAST = "That is faster than I can show a replay: wait a second, then press again."
REPLAY_PRESSES = 6
"""Replay presses a person may make in :data:`REPLAY_WINDOW_S` (more are answered
:data:`REPLAY_TOO_FAST`)."""
REPLAY_WINDOW_S = 2.0
KEPT_REPLAYS = 32
"""Finished games whose rebuilt steps a worker keeps (a replay never changes)."""
KEPT_PICTURES = 256
"""Replay steps whose drawn board a worker keeps."""


class Replays:
    """What the replays of finished games cost a worker, bounded: each game is rebuilt once
    (its steps kept, by its result and log, which change only by forget-me's rewrite), each
    step's board drawn once, and each person may step at most :data:`REPLAY_PRESSES` times
    in :data:`REPLAY_WINDOW_S` seconds."""

    def __init__(self, pictures: bool = True) -> None:
        self.pictures = pictures
        self._steps: OrderedDict[str, tuple[GameLike, GameResult, list[Step]] | None] = (
            OrderedDict()
        )
        self._pictures: OrderedDict[tuple[str, int], ui.Picture | None] = OrderedDict()
        self._presses: dict[str, list[float]] = {}
        self._lock = threading.Lock()
        self.rebuilt = 0
        """Games rebuilt from their logs so far (the rest came from what was kept)."""

    def allow(self, user: str, now: float) -> bool:
        """Whether ``user`` may press a replay now (and count it)."""
        recent = [t for t in self._presses.get(user, []) if now - t < REPLAY_WINDOW_S]
        if len(recent) >= REPLAY_PRESSES:
            self._presses[user] = recent
            return False
        self._presses[user] = [*recent, now]
        if len(self._presses) > 4096:  # forget the quiet ones
            self._presses = {
                u: t for u, t in self._presses.items() if now - t[-1] < REPLAY_WINDOW_S
            }
        return True

    def _rebuilt(
        self, result_json: str, replay: str
    ) -> tuple[str, tuple[GameLike, GameResult, list[Step]] | None]:
        key = hashlib.sha256(f"{result_json}\n{replay}".encode()).hexdigest()
        with self._lock:
            if key in self._steps:
                self._steps.move_to_end(key)
                return key, self._steps[key]
        result = GameResult.model_validate_json(result_json)
        game = get_game(result.game)
        rebuilding = time.perf_counter()
        steps = replay_moves(game, result, replay) if game is not None else []
        metrics.replay_rebuilt(time.perf_counter() - rebuilding)
        built = (game, result, steps) if game is not None and steps else None
        with self._lock:
            self.rebuilt += 1
            self._steps[key] = built
            while len(self._steps) > KEPT_REPLAYS:
                self._steps.popitem(last=False)
        return key, built

    def message(self, result_json: str, replay: str, wanted: int) -> ui.Message | None:
        """Step ``wanted`` of the replay of ``result_json`` (its log ``replay``), or None when
        the log cannot be replayed. Runs in a thread: it may rebuild and draw."""
        key, built = self._rebuilt(result_json, replay)
        if built is None:
            return None
        game, result, steps = built
        last = len(steps) - 1
        at = max(0, min(last, wanted))
        return replay_message(
            game, result, steps[at], at, last, self._picture(key, game, steps, at)
        )

    def _picture(self, key: str, game: GameLike, steps: list[Step], at: int) -> ui.Picture | None:
        if not self.pictures or not game.draws_pictures:
            return None
        with self._lock:
            if (key, at) in self._pictures:
                self._pictures.move_to_end((key, at))
                return self._pictures[(key, at)]
        drawn = game.picture(steps[at].state)
        if drawn is not None:
            drawn = drawn.model_copy(update={"stem": f"replay-{at + 1}"})
        with self._lock:
            self._pictures[(key, at)] = drawn
            while len(self._pictures) > KEPT_PICTURES:
                self._pictures.popitem(last=False)
        return drawn
