"""``/boardroom``: what a community remembers, the same on every platform.

- ``leaderboard <game>``: the community's best rated players of that game (rating, games, wins),
  with a button that shows it to the channel;
- ``stats [user]``: one person's games, wins, ratings and recent results per game;
- ``history [game]``: the community's latest finished games (when, who, who won, how long);
- ``replay <game id>``: a private step-through of a finished game's board (first, back,
  forward, last), rebuilt from its log;
- ``forget-me``: after a confirmation, deletes the person's ratings, stats and name from the
  community's history (their seats read "a former player").

Every answer is private (but a leaderboard its reader chose to show). The results come from
:mod:`bot.commands.results` and :mod:`storage.history`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

from bot.commands.actionlog import action_rng, decode_action
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.commands.results import FORMER, GameResult, Rating, scrub, shown
from bot.commands.step import Request
from bot.settings import Settings
from core import text as markup
from core import ui
from core.engine import GameLike, GameState
from core.registry import all_games, get_game
from storage import GameKey, GameStore, SaveResult, StorageUnavailable
from storage import history as kept

__all__ = ["COMMAND", "Community"]

COMMAND = "boardroom"
TOP = 10
RECENT = 10
MAX_ATTEMPTS = 8
_MENTION = re.compile(r"^<@!?([A-Za-z0-9]+)(?:\|[^>]*)?>$")

USAGE = (
    "`/boardroom leaderboard <game>`: the best players of a game here\n"
    "`/boardroom stats [user]`: someone's games, wins and ratings (yours when nobody is named)\n"
    "`/boardroom history [game]`: the latest finished games here\n"
    "`/boardroom replay <game id>`: step through a finished game (ids are in the history)\n"
    "`/boardroom forget-me`: delete your ratings, stats and name from the history"
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


class Community:
    """Answers ``/boardroom`` commands from the store."""

    def __init__(self, store: GameStore, settings: Settings, clock: Callable[[], float]) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock

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
            out.reply(req.user, f"Name a game: `/boardroom leaderboard <game>` ({_game_names()}).")
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
            mention = _MENTION.match(rest)
            wanted = mention.group(1) if mention else rest.removeprefix("@")
            found = await kept.find_person(self.store, where, wanted)
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
        game_id = parts[0].lower()
        wanted = int(parts[1]) if len(parts) > 1 and parts[1].lstrip("-").isdigit() else None
        found = await kept.replay_of(self.store, self._where(req), game_id)
        if found is None:
            out.reply(req.user, f"I have no replay of a game `{markup.escape(game_id)}` here.")
            return
        result = GameResult.model_validate_json(found[0])
        game = get_game(result.game)
        steps = replay_steps(game, result, found[1]) if game is not None else []
        if game is None or not steps:
            out.reply(req.user, "That game's log could not be replayed.")
            return
        last = len(steps) - 1
        at = last if wanted is None else max(0, min(last, wanted))
        out.reply(req.user, replay_message(game, result, steps[at], at, last), in_place=pressed)

    # --- forget-me ------------------------------------------------------------------------------

    async def _forget(self, req: Request, rest: str, out: Outbox, pressed: bool) -> None:
        if rest.strip().lower() != "yes":
            out.reply(
                req.user,
                ui.Message(
                    title="Forget me?",
                    text=(
                        "This deletes your ratings and stats here, and your name from every "
                        "game in the history (your seats will read “a former player”). It "
                        "cannot be undone."
                    ),
                    buttons=[
                        [ui.Button(label="Yes, forget me", style="danger", command="forget-me yes")]
                    ],
                ),
            )
            return
        await forget(self.store, self._where(req), req.user)
        out.forgotten = (req.community or "default", req.user)
        out.reply(
            req.user,
            "Done: your ratings, stats and name are gone from this community's history.",
            in_place=pressed,
        )


async def forget(store: GameStore, where: kept.Community, user: str) -> None:
    """Delete ``user`` from ``where``: ratings, name, list of games; their seats in the
    results and replays read :data:`~bot.commands.results.FORMER`."""
    games = [g.name for g in all_games()]
    for _attempt in range(MAX_ATTEMPTS):
        rev, played = await kept.played_all(store, where, user)
        who = await kept.person(store, where, user, [], 0.0, 0)
        name = who.name or user
        rewritten: dict[str, tuple[str | None, str | None]] = {}
        for game_id, (rec, rep) in played.items():
            new_rec = json.dumps(scrub(json.loads(rec), user, name)) if rec else None
            new_rep = _scrub_replay(rep, user, name) if rep else None
            rewritten[game_id] = (new_rec, new_rep)
        if await kept.forget(store, where, user, games, rev, rewritten):
            break
    else:
        raise StorageUnavailable()
    # The finished games themselves, still kept in their channels for a while (status, the
    # final card's Rematch), name their players too: rewritten without the person, their log
    # dropped (it names the players), once each (a compare-and-set on the record's version).
    for rec, _rep in played.values():
        if rec is not None:
            await _forget_in_channel(store, GameResult.model_validate_json(rec), user, name)
    await kept.forget_index(store, where.platform, user)


async def _forget_in_channel(store: GameStore, result: GameResult, user: str, name: str) -> None:
    key = GameKey(result.platform, result.channel)
    for _attempt in range(MAX_ATTEMPTS):
        _, loaded = await store.load(key)
        if loaded is None:
            return
        try:
            stored = GameRecord.model_validate_json(loaded.data)
        except ValueError:
            return  # unreadable: the next command there sets it aside
        if stored.status != "finished" or stored.first_version != result.first_version:
            return  # another game by now (a rematch names its people itself)
        clean = GameRecord.model_validate(scrub(stored.model_dump(mode="json"), user, name))
        if clean.state_json is not None:
            clean.state_json = json.dumps(scrub(json.loads(clean.state_json), user, name))
        ttl = await kept.ttl_of(store, key)
        saved = await store.save(
            key,
            clean.model_dump_json(),
            expected=loaded.version,
            version=loaded.version + 1,
            ttl_s=max(1, ttl),
            fresh_log=True,
        )
        if saved is SaveResult.WRITTEN:
            await kept.drop_refs(store, key)
            return


def _scrub_replay(replay: str, user: str, name: str) -> str:
    """A replay without the person: its log lines and snapshot are JSON texts of their own."""
    kept_log = json.loads(replay)
    lines = [json.dumps(scrub(json.loads(line), user, name)) for line in kept_log["lines"]]
    snapshot = kept_log.get("snapshot")
    if snapshot:
        snapshot = json.dumps(scrub(json.loads(snapshot), user, name))
    return json.dumps({"snapshot": snapshot, "lines": lines}, separators=(",", ":"))


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


def replay_steps(game: GameLike, result: GameResult, replay: str) -> list[GameState]:
    """The game's state after each command of its log, from ``begin`` (or the snapshot) on."""
    kept_log = json.loads(replay)
    seed, first = result.seed, result.first_version
    state: GameState | None = None
    if kept_log.get("snapshot"):
        state = game.state_model.model_validate_json(kept_log["snapshot"])
    steps: list[GameState] = [state] if state is not None else []
    for text in kept_log.get("lines", []):
        applied = False
        for entry in json.loads(text):
            if entry[1] == "begin":
                _who, _kind, names, _bots = entry
                state = game.setup(names, result.options, action_rng(seed, first))
                state.version = state.decision_version = first
                steps, applied = [], True
                continue
            if state is None or not isinstance(entry[0], int):
                continue
            actor, action = decode_action(game, entry)
            state = game.apply(state, actor, action, action_rng(seed, state.version)).state
            applied = True
        if applied and state is not None:
            steps.append(state)
    if steps and steps[-1].version != result.final_version:
        return []  # not this game's log
    return steps


def replay_message(
    game: GameLike, result: GameResult, state: GameState, at: int, last: int
) -> ui.Message:
    board = game.render_board(state)
    when = _when(result.ended_at)
    head = f"Replay `{result.id}` of {game.title}, {when}: step {at + 1} of {last + 1}"
    text = "\n".join(part for part in (head, board.text) if part)

    def nav(label: str, step: int, disabled: bool) -> ui.Button:
        return ui.Button(label=label, command=f"replay {result.id} {step}", disabled=disabled)

    buttons = [
        nav("First", 0, at == 0),
        nav("Back", max(0, at - 1), at == 0),
        nav("Forward", min(last, at + 1), at == last),
        nav("Last", last, at == last),
    ]
    return ui.Message(title=board.title, text=text, fields=board.fields, buttons=[buttons])
