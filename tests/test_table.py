"""The table layer on its own: what it posts, edits, moves and deletes for a run of Outboxes.

The platform here is a small in-memory one that records every primitive call (the boundary the
table talks to); the store is a real redis-server. Whole games over the real SDKs are in the
adapter tests.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.commands.outbox import Outbox
from bot.table import COALESCE_S, LOG_ON_BOARD, MAX_BELOW, MOVE_AT, Closed, Place, Shown, Table
from bot.table.budget import Budget, Limit
from core import ui
from storage import GameKey, GameStore
from testkit.clock import VirtualClock


@pytest.fixture
def store(redis_store: GameStore) -> GameStore:
    """These tests run on a real redis-server only."""
    return redis_store


CHANNEL = "C1"


class Recorder:
    """Platform primitives that keep the messages of each conversation in order; with a
    ``budget``, each post into a conversation is taken from it (``posts`` per ``window_s``),
    as an adapter's calls are."""

    name = "test"
    posts = 5
    window_s = 5.0
    budget: Budget | None = None
    closed_hint = ""
    threads_share_limit = False
    threads_are_conversations = True
    id_limit = 100

    def __init__(self, latency_s: float = 0.0) -> None:
        self.latency_s = latency_s
        """How long each call takes (a platform's round trip), so that deliveries overlap."""
        self.calls: list[tuple[str, str]] = []
        self.places: dict[str, list[str]] = {}
        self.texts: dict[str, str] = {}
        self.buttons: dict[str, int] = {}
        """How many buttons each message shows now."""
        self.ids: dict[str, list[str | None]] = {}
        """The ids each message's buttons were bound to, as a renderer draws them."""
        self.mentions: dict[str, list[str]] = {}
        self.pictures: dict[str, str | None] = {}
        """The picture each message shows now (its key)."""
        self.uploads: list[str] = []
        """Each picture a message was given (posted with it, or edited to show another): what
        a platform uploads."""
        self._ids = 0

    def post_limit(self, where: str) -> Limit | None:
        return Limit(f"post:{where}", self.posts, self.window_s) if self.budget else None

    def _new(self, where: str, message: ui.Message) -> Shown:
        self._ids += 1
        shown = Shown(where=where, id=str(self._ids))
        self.places.setdefault(where, []).append(shown.id)
        self.texts[shown.id] = message.plain_text()
        self.buttons[shown.id] = len(message.all_buttons())
        self.ids[shown.id] = [b.custom_id for b in message.all_buttons()]
        self._picture(shown.id, message)
        return shown

    def _picture(self, ident: str, message: ui.Message) -> None:
        key = message.picture_key
        if key is not None and self.pictures.get(ident) != key:
            self.uploads.append(key)
        self.pictures[ident] = key

    async def post(
        self,
        place: Place,
        message: ui.Message,
        surface: str = "post",
        mention: list[str] | None = None,
        ping: bool = True,
    ) -> Shown:
        limit = self.post_limit(place.thread or place.channel)
        if self.budget is not None and limit is not None:
            await self.budget.take([limit])
        await asyncio.sleep(self.latency_s)
        self.calls.append(("post", surface))
        shown = self._new(place.thread or place.channel, message)
        if mention and ping:
            self.mentions[shown.id] = list(mention)
        return shown

    async def edit(self, shown: Shown, message: ui.Message, surface: str = "post") -> None:
        await asyncio.sleep(self.latency_s)
        self.calls.append(("edit", surface))
        self.texts[shown.id] = message.plain_text()
        self.buttons[shown.id] = len(message.all_buttons())
        self.ids[shown.id] = [b.custom_id for b in message.all_buttons()]
        self._picture(shown.id, message)

    async def delete(self, shown: Shown) -> None:
        await asyncio.sleep(self.latency_s)
        self.calls.append(("delete", ""))
        self.places[shown.where].remove(shown.id)

    async def dm(self, user: str, message: ui.Message) -> Shown:
        if user == "closed":
            raise Closed(user)
        self.calls.append(("dm", user))
        return self._new(f"dm:{user}", message)

    async def start_thread(self, channel: str, card: Shown, name: str) -> str | None:
        self.calls.append(("thread", ""))
        return f"T{card.id}"


def _out(version: int, **surfaces: object) -> Outbox:
    return Outbox.model_validate(
        {"platform": "test", "channel": CHANNEL, "game": "g", "table": "g:0", "version": version}
        | surfaces
    )


def _board(text: str) -> ui.Message:
    return ui.Message(title="Board", text=text)


async def _begun(table: Table, platform: Recorder) -> str:
    await table.deliver(_out(1, card=ui.Message(text="lobby")))
    await table.deliver(_out(2, begun=True, card=ui.Message(text="playing"), board=_board("0")))
    (thread,) = [where for where in platform.places if where.startswith("T")]
    return thread


def _below_board(platform: Recorder, thread: str) -> int:
    ids = platform.places[thread]
    boards = [i for i in ids if platform.texts[i].startswith("**Board**")]
    assert len(boards) == 1, "one live board"
    return len(ids) - ids.index(boards[0]) - 1


async def test_the_card_is_edited_and_the_game_goes_to_a_thread(store: GameStore) -> None:
    platform = Recorder()
    table = Table(store, platform, 60)
    await table.deliver(_out(1, card=ui.Message(text="lobby 1/4")))
    await table.deliver(_out(1, card=ui.Message(text="lobby 2/4")))
    await table.deliver(_out(1, card=ui.Message(text="lobby 2/4")))  # unchanged: nothing sent
    assert platform.calls == [("post", "card"), ("edit", "card")]
    thread = await _begun(table, platform)
    assert platform.places[CHANNEL] == ["1"]  # the channel holds the card only
    assert platform.places[thread] and _below_board(platform, thread) == 0


async def test_the_board_moves_after_three_below_and_never_sits_above_five(
    store: GameStore,
) -> None:
    platform = Recorder()
    platform.budget = Budget(store, "test")
    table = Table(store, platform, 60, clock=VirtualClock())  # waits for a slot jump
    thread = await _begun(table, platform)
    for n in range(MOVE_AT - 1):
        await table.deliver(_out(3 + n, posts=[ui.Message(text=f"pitch {n}")]))
    assert _below_board(platform, thread) == MOVE_AT - 1
    assert ("delete", "") not in platform.calls  # not yet: it stays where it is
    await table.deliver(_out(9, posts=[ui.Message(text="one more")]))
    assert _below_board(platform, thread) == 0 and platform.calls.count(("delete", "")) == 1
    # With the channel at its post limit, posts alone still never leave it more than 5 up.
    # (One post per 0.2 s of the clock: the channel is always busy right after a post.)
    platform.posts, platform.window_s = 1, 0.2
    deletes = platform.calls.count(("delete", ""))
    most = 0
    for n in range(2 * MAX_BELOW):
        await table.deliver(_out(10 + n, posts=[ui.Message(text=f"more {n}")]))
        most = max(most, _below_board(platform, thread))
    assert MOVE_AT < most <= MAX_BELOW  # a busy channel deferred the move, up to the cap
    assert platform.calls.count(("delete", "")) > deletes


async def test_an_older_outbox_never_replaces_a_newer_board(store: GameStore) -> None:
    platform = Recorder()
    table = Table(store, platform, 60)
    thread = await _begun(table, platform)
    await table.deliver(_out(5, board=_board("five")))
    await table.deliver(_out(4, board=_board("four"), log=["an old line"]))
    (board,) = [i for i in platform.places[thread] if platform.texts[i].startswith("**Board**")]
    assert "five" in platform.texts[board] and "four" not in platform.texts[board]


class _FailingEdits(Recorder):
    """Edits fail (a rate limit that outlasted the retries) while ``failing`` is set."""

    failing = False

    async def edit(self, shown: Shown, message: ui.Message, surface: str = "post") -> None:
        if self.failing:
            self.calls.append(("refused edit", surface))
            raise RuntimeError("429 ratelimited")
        await super().edit(shown, message, surface)


async def test_a_failed_edit_is_made_again_by_the_next_delivery(store: GameStore) -> None:
    """An edit the platform refused is not taken as shown: the next delivery of the same content
    edits it (nothing is dropped because the refs believed it landed)."""
    platform = _FailingEdits()
    table = Table(store, platform, 60)
    thread = await _begun(table, platform)
    platform.failing = True
    await table.deliver(_out(3, board=_board("three")))
    platform.failing = False
    (board,) = [i for i in platform.places[thread] if platform.texts[i].startswith("**Board**")]
    assert "three" not in platform.texts[board]
    await table.deliver(_out(3, board=_board("three")))  # the same content again
    assert "three" in platform.texts[board], platform.calls
    assert platform.calls[-2:] == [("refused edit", "board"), ("edit", "board")]


async def test_the_boards_latest_fits_beside_it_cut_between_lines_or_words(
    store: GameStore,
) -> None:
    """The story's waiting lines show at the board's foot as far as they fit beside its text in
    what every platform shows whole, cut between lines (a line too long alone: between words),
    never mid-word."""
    platform = Recorder()
    table = Table(store, platform, 60)
    thread = await _begun(table, platform)
    story = " ".join(f"w{n:03d}" for n in range(200))  # one line of 999 characters
    await table.deliver(_out(3, board=_board("short"), log=[story]))
    (board,) = [i for i in platform.places[thread] if platform.texts[i].startswith("**Board**")]
    latest = platform.texts[board].split("**Latest**\n", 1)[1]
    assert len(latest) <= LOG_ON_BOARD and latest.endswith("w199")
    assert latest.startswith("…") and latest[1:].split(" ", 1)[0] in story.split()
    # A longer board leaves the tail less room; the whole still fits.
    long = " ".join(["word"] * ((ui.MAX_TEXT - 400) // 5))
    await table.deliver(_out(4, board=_board(long)))
    text = platform.texts[board].removeprefix("**Board**\n")
    assert len(text) <= ui.MAX_TEXT - len("**Your move.**\n\n")
    shorter = text.split("**Latest**\n", 1)[1]
    assert len(shorter) < len(latest) and shorter.endswith("w199")
    assert shorter.startswith("…") and shorter[1:].split(" ", 1)[0] in story.split()
    # Given a line break, the tail keeps whole lines.
    await table.deliver(_out(5, board=_board(long), log=["A new line."]))
    assert platform.texts[board].endswith("**Latest**\n…A new line.")
    # A board with no room left for the tail shows none (the log will tell it).
    full = " ".join(["word"] * (ui.MAX_TEXT // 5))
    await table.deliver(_out(6, board=_board(full)))
    assert platform.texts[board] == f"**Board**\n{full}"


async def test_a_turn_notice_rides_on_the_board_and_pings_only_whom_it_names(
    store: GameStore,
) -> None:
    platform = Recorder()
    table = Table(store, platform, 60)
    thread = await _begun(table, platform)
    await table.deliver(_out(3, board=_board("bob's turn"), notify=["bob"]))
    await table.deliver(_out(4, board=_board("carol's turn"), notify=["carol"]))
    live = platform.places[thread]
    pinged = [platform.mentions[i] for i in live if i in platform.mentions]
    assert pinged == [["carol"]]  # bob's notice went with the old board
    assert live[-1] in platform.mentions and "Your move." in platform.texts[live[-1]]


async def test_panels_are_one_dm_each_edited_in_place(store: GameStore) -> None:
    platform = Recorder()
    table = Table(store, platform, 60)
    await _begun(table, platform)
    for version in (3, 4, 5):
        panel = ui.Message(text=f"hand at {version}")
        await table.deliver(_out(version, panels={"bob": panel, "closed": panel}))
    assert platform.calls.count(("dm", "bob")) == 1
    assert platform.calls.count(("edit", "panel")) == 2
    # A player whose DMs are closed is told once, in the game's thread, and pinged by nobody.
    notes = [t for t in platform.texts.values() if "direct messages" in t]
    assert len(notes) == 1 and not platform.mentions


class _Racing(GameStore):
    """The store taking a moment to answer a read of the table's refs, so that two deliveries
    at once both read the same revision before either writes: the race, every time."""

    async def table_refs(self, key: GameKey) -> tuple[int, str] | None:
        stored = await super().table_refs(key)
        await asyncio.sleep(0.02)
        return stored


class _NoCompare(_Racing):
    """The racing store writing the table's refs whatever revision the writer read: what two
    workers would do without the compare-and-set."""

    async def set_table_refs(
        self, key: GameKey, data: str, ttl_s: int, expected: int
    ) -> int | None:
        name = f"boardroom:{{{key}}}:refs"
        rev = int(await self.client.hincrby(name, "rev", 1))
        await self.client.hset(name, "data", data)
        await self.client.expire(name, max(1, ttl_s))
        return rev


async def _two_workers(store: GameStore) -> tuple[Recorder, list[str]]:
    """Two worker processes' tables (pacers apart) on one platform whose calls take a round
    trip, delivering at once: the game's start and a move, then moves in pairs. Each delivery
    brings the refs its press loaded with the game, as the pipeline's do (so both of a pair
    read the same revision: the race). The live boards at the end."""
    platform = Recorder(latency_s=0.01)
    one, two = Table(store, platform, 60), Table(store, platform, 60)
    key = GameKey("test", CHANNEL)

    async def pressed(table: Table, out: Outbox) -> None:
        out.refs_seen = await store.table_refs(key) or (0, "")
        await table.deliver(out)

    await pressed(one, _out(1, card=ui.Message(text="lobby")))
    await asyncio.gather(
        pressed(one, _out(2, begun=True, card=ui.Message(text="playing"), board=_board("a"))),
        pressed(two, _out(3, board=_board("b"), log=["b moved"])),
    )
    for version in range(4, 12, 2):
        await asyncio.gather(
            pressed(one, _out(version, board=_board(f"{version}"), log=[f"move {version}"])),
            pressed(two, _out(version + 1, board=_board(f"{version + 1}"), log=["another"])),
        )
    live = [i for ids in platform.places.values() for i in ids]
    return platform, [i for i in live if platform.texts[i].startswith("**Board**")]


async def test_two_workers_at_once_leave_one_board(redis_url: str) -> None:
    """No lock: each delivery reserves what it posts in the refs, written over the revision
    it read, and one that lost the race plans again from the newer refs."""
    racing = _Racing.from_url(redis_url)
    await racing.client.flushdb()
    try:
        platform, boards = await _two_workers(racing)
        stored = await racing.table_refs(GameKey("test", CHANNEL))
    finally:
        await racing.close()
    assert len(boards) == 1, boards
    assert platform.texts[boards[0]].startswith("**Board**\n11\n")  # the newest state
    assert stored is not None and f'"id":"{boards[0]}"' in stored[1]


async def test_without_the_compare_and_set_the_same_run_leaves_two_boards(redis_url: str) -> None:
    """The race the compare-and-set prevents is real in this run: the test above proves it."""
    unlocked = _NoCompare.from_url(redis_url)
    await unlocked.client.flushdb()
    try:
        _platform, boards = await _two_workers(unlocked)
    finally:
        await unlocked.close()
    assert len(boards) > 1, boards


async def test_a_note_to_others_is_kept_and_closed_once_settled(store: GameStore) -> None:
    """A request to join, DMed to each member: the table keeps the DMs (in Redis) and, once the
    request is settled, edits each copy to say so, without its buttons."""
    platform = Recorder()
    table = Table(store, platform, 60)
    await _begun(table, platform)
    ask = ui.Message(
        text="dave asks to join Sharks.",
        buttons=[[ui.Button(label="Accept dave", command="admit #1")]],
    )
    asked = _out(3)
    for user in ("alice", "bob"):
        asked.reply(user, ask, note="request:1")
    await table.deliver(asked)
    assert platform.calls.count(("dm", "alice")) == platform.calls.count(("dm", "bob")) == 1
    sent = [i for user in ("alice", "bob") for i in platform.places[f"dm:{user}"]]
    assert [platform.buttons[i] for i in sent] == [1, 1]
    settled = _out(4)
    settled.closed_notes["request:1"] = ui.Message(
        text="dave asked to join Sharks. alice let dave in."
    )
    await table.deliver(settled)
    copies = [i for user in ("alice", "bob") for i in platform.places[f"dm:{user}"]]
    assert [platform.texts[i] for i in copies] == [
        "dave asked to join Sharks. alice let dave in."
    ] * 2
    assert platform.calls.count(("edit", "note")) == 2
    assert [platform.buttons[i] for i in copies] == [0, 0]
    stored = await store.table_refs(GameKey("test", CHANNEL))
    assert stored is not None and '"request:1"' not in stored  # nothing left to close


# --- board pictures held back within the window -----------------------------------------------


def _pictured(version: int, key: str, **surfaces: object) -> Outbox:
    """A move's Outbox whose board shows picture ``key`` (drawn by the table when it is new)."""
    picture = ui.Picture(data=key.encode(), width=1, height=1, alt=f"picture {key}")
    out = _out(version, board=ui.Message(title="Board", text=str(version), picture_key=key))
    out.draw = lambda: picture
    return out.model_copy(update=surfaces)


def _live_board(platform: Recorder) -> str:
    (board,) = [
        i for ids in platform.places.values() for i in ids if platform.texts[i].startswith("**")
    ]
    return board


async def test_pictures_faster_than_the_window_show_the_newest_once_it_has_passed(
    store: GameStore,
) -> None:
    clock = VirtualClock()
    platform = Recorder()
    table = Table(store, platform, 60, clock=clock)
    await table.deliver(_out(1, card=ui.Message(text="lobby")))
    await table.deliver(_pictured(2, "k2", begun=True, card=ui.Message(text="playing")))
    board = _live_board(platform)
    with clock.hold():  # (real time runs meanwhile: the moves come within the window)
        for version in range(3, 8):
            await table.deliver(_pictured(version, f"k{version}"))
            assert platform.texts[board] == f"**Board**\n{version}"  # the text at once
            assert platform.pictures[board] == "k2"  # the picture it had
    started = clock.now()
    await table.caught_up()
    assert clock.now() - started <= COALESCE_S  # (jumped, not waited)
    assert platform.pictures[board] == "k7" and platform.texts[board] == "**Board**\n7"
    assert platform.uploads == ["k2", "k7"]  # the newest picture won; none in between
    assert _live_board(platform) == board  # edited in place, never posted again
    # Once the window has passed, the next picture is shown at once.
    await clock.sleep(COALESCE_S)
    await table.deliver(_pictured(8, "k8"))
    assert platform.pictures[board] == "k8" and platform.uploads[-1] == "k8"
    # The end never waits, even within the window.
    with clock.hold():
        await table.deliver(_pictured(9, "k9", ended=True))
    assert platform.pictures[board] == "k9"


async def test_two_workers_holding_pictures_show_the_newest_and_post_nothing_twice(
    redis_url: str,
) -> None:
    """Worker one holds a move's picture; worker two delivers a newer move within the window.
    Two never showed the board's picture, so it shows its newest at once, and holds the next
    one. One's catch-up then finds a newer board drawn and does nothing; two's shows the newest
    picture. Neither posts anything."""
    racing = _Racing.from_url(redis_url)
    await racing.client.flushdb()
    clock = VirtualClock()
    platform = Recorder(latency_s=0.01)
    one, two = Table(racing, platform, 60, clock=clock), Table(racing, platform, 60, clock=clock)
    try:
        await one.deliver(_out(1, card=ui.Message(text="lobby")))
        with clock.hold():  # (real time: each move comes within the window of the one before)
            await one.deliver(_pictured(2, "k2", begun=True, card=ui.Message(text="playing")))
            posts = platform.calls.count(("post", "board"))
            await one.deliver(_pictured(3, "k3"))  # within k2's window: held by one
            await two.deliver(_pictured(4, "k4"))  # two cannot show k2 again: k4 at once
            await two.deliver(_pictured(5, "k5"))  # within k4's window: held by two
        await asyncio.gather(one.caught_up(), two.caught_up())
    finally:
        await racing.close()
    board = _live_board(platform)
    assert platform.pictures[board] == "k5" and platform.texts[board] == "**Board**\n5"
    assert platform.uploads == ["k2", "k4", "k5"]  # k3 was never shown: k4 superseded it
    assert platform.calls.count(("post", "board")) == posts  # catch-ups only ever edit


class _CountingReads(GameStore):
    """The store counting the reads of the table's refs."""

    reads = 0

    async def table_refs(self, key: GameKey) -> tuple[int, str] | None:
        self.reads += 1
        return await super().table_refs(key)


async def test_a_catch_up_plans_from_the_refs_its_worker_wrote_without_reading_them(
    redis_url: str,
) -> None:
    """A held picture's catch-up brings no refs from a load: it plans from those its worker
    last wrote. When another worker wrote since, its write fails and it reads the newer ones
    (the test above: nothing is posted twice)."""
    counting = _CountingReads.from_url(redis_url)
    await counting.client.flushdb()
    clock = VirtualClock()
    platform = Recorder()
    table = Table(counting, platform, 60, clock=clock)
    try:
        await table.deliver(_out(1, card=ui.Message(text="lobby")))
        with clock.hold():
            await table.deliver(_pictured(2, "k2", begun=True, card=ui.Message(text="playing")))
            await table.deliver(_pictured(3, "k3"))  # held
        reads = counting.reads
        await table.caught_up()
    finally:
        await counting.close()
    assert platform.pictures[_live_board(platform)] == "k3"
    assert counting.reads == reads  # the catch-up read nothing


class _SharedThreads(Recorder):
    """A platform whose threads are replies in their channel (Slack): a press there names the
    channel itself."""

    threads_are_conversations = False


@pytest.mark.parametrize("platform", [Recorder(), _SharedThreads()], ids=["discord", "slack"])
async def test_controls_are_bound_once_for_where_each_surface_is_shown(
    store: GameStore, platform: Recorder
) -> None:
    """The table binds each message's controls before the platform sees it: in the game's
    channel they need not name it; in a DM (and a thread with an id of its own) they do, so a
    press there acts on the channel's game."""
    table = Table(store, platform, 60)
    join = ui.Button(label="Join", command="join")
    await table.deliver(_out(1, card=ui.Message(text="lobby", buttons=[[join]])))
    (card,) = platform.places[CHANNEL]
    assert platform.ids[card] == ["br1|c|g||join"]
    bet = ui.Button(label="Bet", action={"type": "bet"}, version=2)
    board = ui.Message(title="Board", text="0", buttons=[[bet, bet]])
    panel = ui.Message(text="hand", buttons=[[join]])
    playing = ui.Message(text="playing", buttons=[[join]])
    begun = _out(2, begun=True, card=playing, board=board, panels={"bob": panel})
    await table.deliver(begun)
    assert platform.calls[1] == ("edit", "card") and platform.ids[card] == ["br1|c|g||join"]
    (dm,) = platform.places["dm:bob"]
    assert platform.ids[dm] == [f"br1|c|g|{CHANNEL}|join"]
    (shown_board,) = [i for i in platform.places[f"T{card}"] if platform.buttons[i]]
    where = CHANNEL if platform.threads_are_conversations else ""
    first, second = platform.ids[shown_board]
    assert first == f'br1|a|g|{where}|2||{{"type":"bet"}}'
    assert second is not None and second != first  # one message never holds two equal ids


async def test_the_table_is_kept_as_long_as_its_game(store: GameStore) -> None:
    """A game kept past the table's TTL (a turn of days, a pause) keeps its table's refs as
    long, also through a delivery that says nothing of it (a picture's catch-up)."""
    import time

    from storage.store import _table_key

    platform = Recorder()
    table = Table(store, platform, 60)
    await _begun(table, platform)
    week = time.time() + 7 * 86_400
    await table.deliver(_out(3, board=_board("3"), kept_until=week))
    name = _table_key(GameKey("test", CHANNEL))
    assert await store.client.ttl(name) > 6 * 86_400
    await table.deliver(_out(4, board=_board("4")))
    assert await store.client.ttl(name) > 6 * 86_400, "a later delivery kept it"
