"""Slack's App Home: each person's Home tab shows the games they sit in and their stats.

- When a person opens the tab (the ``app_home_opened`` event), their page is built
  (:func:`bot.commands.community.home.home_of`) and published with ``views.publish`` if it is
  not what the tab shows already (the digest of the mark below, shared by every worker), and a
  mark is kept in Redis for :data:`HOME_TTL_S` (with the workspace and a digest of what the page
  shows). An event delivered again (Slack's retries, a replayed request: the same ``event_id``)
  is dropped, whichever worker it reaches (:meth:`~storage.GameStore.first_seen`).
- When a game changes in a way a home page shows (someone joined or left its lobby, it began or
  ended, it now waits for someone else: :attr:`~bot.commands.outbox.Outbox.homes`), each person
  it names who has a mark gets their page published again, if what it shows changed. People
  without a mark cost one pipelined read per :data:`UNMARKED_S` (each worker remembers who has
  none), and no call to Slack.

This runs after the change was delivered, in tasks of their own: a slow ``views.publish`` never
holds up a game. One person's page is built and published one at a time in this process, at
most once per :data:`HOME_PACE_S` (the newest wins: what changes meanwhile joins it), opened or
followed alike; two workers may publish the same page twice, which is harmless.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Coroutine

from pydantic import JsonValue
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack.render import MAX_HEADER, MAX_SECTION_TEXT, mrkdwn
from bot.commands.community.boardroom import Community
from bot.commands.community.home import Home, home_of
from bot.commands.outbox import Outbox
from bot.table import MonotonicClock
from core import text as markup
from storage import GameStore, StorageUnavailable
from storage import history as kept

__all__ = ["HOME_PACE_S", "HOME_TTL_S", "MAX_VIEW_BLOCKS", "HomeTabs", "home_view"]

log = logging.getLogger(__name__)

PLATFORM = "slack"
HOME_TTL_S = 24 * 3600
"""How long after a person last opened their Home tab it follows their games (opening it again
builds it anew whenever it was)."""
MAX_VIEW_BLOCKS = 100
"""Slack's most blocks in a view."""
LAST_KEPT = 10_000
"""People whose last page this process remembers."""
HOME_PACE_S = 10.0
"""The least time between two pages published for one person as their games change (Slack
allows ``views.publish`` about 100 times a minute per workspace): a game changing faster shows
its newest state when the time is up, the last one included."""
UNMARKED_S = 60.0
"""How long this process trusts that a person has not opened their Home tab (one who opens it
on another worker has their page follow their games at most this much later)."""
EVENT_TTL_S = 3600
"""How long an event's id is remembered (Slack retries a delivery within minutes)."""
NO_GAMES = (
    "You are not seated in any game right now. Start one in a channel with `/bigidea start`, "
    "`/businessgo start` or `/biggiebills start`, or join one there with `join`."
)
NO_STATS = "No finished games in this workspace yet: your ratings show here after your first."
FOOTER = (
    "This page follows your games as they change. `/boardroom stats`, `/boardroom history` and "
    "`/boardroom leaderboard <game>` tell more."
)

Run = Callable[[Coroutine[object, object, None]], None]


def _text(kind: str, text: str) -> dict[str, JsonValue]:
    return {"type": kind, "text": text}


def _section(text: str) -> dict[str, JsonValue]:
    return {"type": "section", "text": _text("mrkdwn", markup.clip(text, MAX_SECTION_TEXT))}


def home_view(home: Home) -> dict[str, JsonValue]:
    """The Home tab's view: a section per game (its place a link to the channel), then the
    person's stats (Boardroom markup as mrkdwn: names never ping nor break the layout)."""
    blocks: list[JsonValue] = [
        {"type": "header", "text": {**_text("plain_text", "Boardroom"[:MAX_HEADER])}},
        _section("*Your games*"),
    ]
    if not home.games:
        blocks.append(_section(mrkdwn(NO_GAMES)))
    for game in home.games:
        title = mrkdwn(f"**{markup.escape(game.title)}**")
        # (a channel id is letters and digits: the front door checked it)
        blocks.append(_section(f"{title} in <#{game.channel}>: {mrkdwn(home.line(game))}"))
    if home.more:
        more = markup.plural(home.more, "more game")
        blocks.append({"type": "context", "elements": [_text("mrkdwn", f"and {more}")]})
    blocks += [{"type": "divider"}, _section("*Your stats*")]
    stats = "\n".join(home.stats) if home.name is not None else NO_STATS
    blocks.append(_section(mrkdwn(stats)))
    blocks.append({"type": "context", "elements": [_text("mrkdwn", mrkdwn(FOOTER))]})
    return {"type": "home", "blocks": blocks[:MAX_VIEW_BLOCKS]}


def _digest(view: dict[str, JsonValue]) -> str:
    data = json.dumps(view, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(data).hexdigest()[:16]


class HomeTabs:
    """Publishes people's Home tabs and keeps them up to date."""

    def __init__(self, client: AsyncWebClient, community: Community, run: Run) -> None:
        self.client = client
        self.community = community
        self.run = run
        """Starts a task the adapter keeps (and waits for when it settles)."""
        self._wanted: dict[str, tuple[str, str | None, bool, bool]] = {}
        """Pages to publish: user -> (workspace, the digest their page shows (None: publish
        whatever it is), whether to follow it from then on, whether they opened it)."""
        self._running: set[str] = set()
        self._last: OrderedDict[str, tuple[str, float]] = OrderedDict()
        """The digest of the page this process last published for each person (a change may
        have read their mark before an earlier publish of the same page updated it), and when
        (on :attr:`clock`)."""
        self.clock = MonotonicClock()
        """The pace is real time (a test's virtual clock would jump over it)."""
        self.pace_s = HOME_PACE_S
        self._unmarked: dict[str, float] = {}
        """People found without a mark, until when this process takes that as still true (so
        a game's every turn does not read the marks of players who never opened the tab)."""

    @property
    def store(self) -> GameStore:
        return self.community.store

    def opened(self, user: str, team: str, event_id: str | None = None) -> None:
        """``user`` opened their Home tab in workspace ``team`` (the event ``event_id``):
        publish it if it changed since it was last published."""
        self._unmarked.pop(user, None)
        self.run(self._opened(user, team, event_id))

    async def _opened(self, user: str, team: str, event_id: str | None) -> None:
        marks: dict[str, tuple[str, str]] = {}
        try:
            if event_id and not await self.store.first_seen(PLATFORM, event_id, EVENT_TTL_S):
                return  # delivered before, to this worker or another
            marks = await kept.home_marks(self.store, PLATFORM, [user])
        except StorageUnavailable:
            pass  # the page is built and published as if never shown
        mark = marks.get(user)
        shown = mark[1] if mark is not None and mark[0] == team else None
        self._want(user, team, shown, opened=True)

    def changed(self, out: Outbox) -> None:
        """A game changed: bring the pages of the people it names up to date."""
        if out.platform != PLATFORM:
            return
        if out.forgotten is not None:  # their page loses its stats, and is followed no more
            team, user = out.forgotten
            self._want(user, team, None, follow=False)
        if out.homes:
            self.run(self._follow(list(out.homes)))

    async def _follow(self, users: list[str]) -> None:
        now = self.clock.now()
        unknown = [user for user in users if self._unmarked.get(user, 0.0) <= now]
        if not unknown:
            return
        try:
            marks = await kept.home_marks(self.store, PLATFORM, unknown)
        except StorageUnavailable:
            return  # their pages catch up at the next change, or when they open them
        for user in unknown:
            if user not in marks:
                self._unmarked[user] = now + UNMARKED_S
        if len(self._unmarked) > LAST_KEPT:
            self._unmarked = {u: t for u, t in self._unmarked.items() if t > now}
        for user, (team, digest) in marks.items():
            self._want(user, team, digest)

    def _want(
        self, user: str, team: str, shown: str | None, follow: bool = True, opened: bool = False
    ) -> None:
        waiting = self._wanted.get(user)
        opened = opened or (waiting is not None and waiting[3])
        self._wanted[user] = (team, shown, follow, opened)
        if user not in self._running:
            self._running.add(user)
            self.run(self._publishing(user))

    async def _publishing(self, user: str) -> None:
        try:
            while user in self._wanted:
                last = self._last.get(user)
                if last is not None:
                    # Within the pace of the last page: it waits, and what changes meanwhile
                    # joins it (the newest wins).
                    wait = last[1] + self.pace_s - self.clock.now()
                    if wait > 0:
                        await self.clock.sleep(wait)
                team, shown, follow, opened = self._wanted.pop(user)
                await self._publish(user, team, shown, follow, opened)
        finally:
            self._running.discard(user)

    async def _publish(
        self, user: str, team: str, shown: str | None, follow: bool, opened: bool
    ) -> None:
        try:
            view = home_view(await home_of(self.community, PLATFORM, team, user))
        except StorageUnavailable:
            log.info("the Home tab of %s waits for storage", user)
            return
        digest = _digest(view)
        last = self._last.get(user)
        if digest == shown or (follow and last is not None and digest == last[0]):
            if opened:  # it shows this already; it is followed from this opening on
                await self._mark(user, team, digest, True)
            return
        try:
            await self.client.views_publish(user_id=user, view=view)
        except SlackApiError as error:
            log.info("publishing the Home tab of %s failed: %s", user, error.response.get("error"))
            return
        self._last[user] = (digest, self.clock.now())
        self._last.move_to_end(user)
        while len(self._last) > LAST_KEPT:
            self._last.popitem(last=False)
        if follow:
            await self._mark(user, team, digest, opened or shown is None)

    async def _mark(self, user: str, team: str, digest: str, opened: bool) -> None:
        """Note what ``user``'s tab shows: for :data:`HOME_TTL_S` from an opening, else only
        while their mark stands."""
        try:
            if opened:
                await kept.home_shown(self.store, PLATFORM, user, team, digest, HOME_TTL_S)
            else:
                await kept.home_updated(self.store, PLATFORM, user, team, digest)
        except StorageUnavailable:
            log.info("could not note the Home tab of %s; it is published again next time", user)
