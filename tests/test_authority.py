"""The authority against a real redis-server: lobby, presses, deadlines, outages (the races of
concurrent saves are in test_races.py)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bot.commands import codec
from bot.commands.authority import STALE, UNAVAILABLE, Authority, Request
from bot.commands.game.actionlog import replay
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.settings import Settings
from core import ui
from core.engine import erase
from core.games.bigidea import GAME
from core.games.bigidea.state import BigIdeaState
from core.games.businessgo import GAME as GO
from core.games.businessgo.state import BusinessGoState
from core.registry import all_games
from storage import GameKey, GameStore, StorageUnavailable
from tests.authority_support import Clock
from tests.records import plain_state


@pytest.fixture
def store(redis_store: GameStore) -> GameStore:
    """These tests run on a real redis-server only."""
    return redis_store


CHANNEL = "table-1"
KEY = GameKey("console", CHANNEL)


@pytest.fixture
def authority(store: GameStore, clock: Clock) -> Authority:
    seeds = random.Random(7)
    return Authority(store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))


def req(user: str, delivery: str | None = None) -> Request:
    return Request(
        platform="console", channel=CHANNEL, user=user, name=user.title(), delivery=delivery
    )


def replies(out: Outbox, user: str) -> list[ui.Message]:
    """The private replies and notes to ``user`` (not their panel)."""
    return [d.message for d in out.deliveries if d.user == user]


def reply_text(out: Outbox, user: str) -> str:
    return "\n".join(m.text for m in replies(out, user))


def panel(out: Outbox, user: str) -> ui.Message:
    assert user in out.panels, (user, sorted(out.panels), reply_text(out, user))
    return out.panels[user]


async def record(store: GameStore) -> GameRecord:
    _, loaded = await store.load(KEY)
    assert loaded is not None
    return GameRecord.model_validate_json(loaded.data)


async def lobby(authority: Authority, humans: list[str], bots: int = 0, options: str = "") -> None:
    out = await authority.command(req(humans[0]), "bigidea", f"start {options}")
    assert out.public, reply_text(out, humans[0])
    for user in humans[1:]:
        out = await authority.command(req(user), "bigidea", "join")
        assert not replies(out, user), reply_text(out, user)
    if bots:
        await authority.command(req(humans[0]), "bigidea", f"addbot {bots}")


def panel_select(message: ui.Message) -> ui.Select:
    assert message.selects, message.text
    return message.selects[0]


# --- lobby -------------------------------------------------------------------------------------


async def test_second_start_names_the_running_game(authority: Authority) -> None:
    await lobby(authority, ["alice"])
    out = await authority.command(req("bob"), "bigidea", "start")
    text = reply_text(out, "bob")
    assert "The Big Idea is already open for players" in text
    assert "/bigidea end" in text
    assert not out.public


async def test_lobby_refusals_are_private_sentences(authority: Authority, store: GameStore) -> None:
    await lobby(authority, ["alice", "bob"])
    before = await record(store)
    cases = [
        ("bob", "join", "You're already at the table."),
        ("bob", "begin", "Only the host (Alice) can begin."),
        ("alice", "begin", "needs at least 3 players"),
        ("bob", "addbot", "Only the host (Alice) can add bots."),
        ("alice", "addbot 9", "You can add 1 to 4 bots"),
        ("alice", "addbot many", "`addbot` takes a number of bots"),
        ("carol", "hand", "You're not in this lobby yet: `/bigidea join` takes a seat."),
        ("alice", "frobnicate", "I don't know “frobnicate” in /bigidea."),
        ("alice", "start", "A game of The Big Idea is already open"),
    ]
    for user, text, expected in cases:
        out = await authority.command(req(user), "bigidea", text)
        assert expected in reply_text(out, user), (text, reply_text(out, user))
        assert not out.public, text
        assert all(d.user == user for d in out.deliveries)
    assert await record(store) == before


async def test_unknown_option_gets_the_options_names_once(authority: Authority) -> None:
    out = await authority.command(req("alice"), "bigidea", "start colour=blue")
    assert reply_text(out, "alice") == (
        "“colour” is not an option of The Big Idea: its options are `larger_products`, "
        "`four_chits`, `safe_for_work`, `pick_seconds`, `vote_seconds`, `turn_seconds`, "
        "`thread`, `pictures` (`/bigidea help` says what each takes)."
    )
    out = await authority.command(req("alice"), "bigidea", "start vote_seconds=-3")
    assert reply_text(out, "alice") == (
        "Those options don't work: `vote_seconds` takes a whole number from 0 to 604,800."
    )


async def test_full_table(authority: Authority) -> None:
    await lobby(authority, ["alice"], bots=5)
    out = await authority.command(req("zed"), "bigidea", "join")
    assert "The table is full" in reply_text(out, "zed")


async def test_duplicate_delivery_applies_once(authority: Authority, store: GameStore) -> None:
    await lobby(authority, ["alice"])
    first = await authority.command(req("bob", delivery="d-1"), "bigidea", "join")
    again = await authority.command(req("bob", delivery="d-1"), "bigidea", "join")
    assert first.public and not again.deliveries and again.duplicate
    assert [s.users[0] for s in (await record(store)).seats] == ["alice", "bob"]


# --- playing -----------------------------------------------------------------------------------


async def begin(authority: Authority, options: str = "") -> Outbox:
    await lobby(authority, ["alice", "bob"], bots=2, options=options)
    return await authority.command(req("alice"), "bigidea", "begin")


async def test_begin_deals_private_panels(authority: Authority, store: GameStore) -> None:
    out = await begin(authority)
    # Each person's hand is their panel (the bots have none), and nothing else is private.
    assert sorted(out.panels) == ["alice", "bob"]
    assert not out.deliveries
    rec = await record(store)
    state = plain_state(rec)
    for seat, user in ((0, "alice"), (1, "bob")):
        select = panel_select(panel(out, user))
        assert select.seat == seat
        assert sorted(o.value for o in select.options) == sorted(state["hands"][seat])
    assert rec.deadline_due is not None


async def test_other_players_button_is_refused(authority: Authority, store: GameStore) -> None:
    out = await begin(authority)
    bob_select = panel_select(panel(out, "bob"))
    before = await record(store)
    custom_id = codec.encode_select("bigidea", bob_select)
    values = [o.value for o in bob_select.options[:2]]
    refused = await authority.press(req("alice"), custom_id, values)
    assert "That button belongs to Bob's hand" in reply_text(refused, "alice")
    assert not refused.public
    assert await record(store) == before


async def test_stranger_and_garbage_presses(authority: Authority, store: GameStore) -> None:
    out = await begin(authority)
    custom_id = codec.encode_select("bigidea", panel_select(panel(out, "bob")))
    before = await record(store)
    stranger = await authority.press(req("mallory"), custom_id, ["x", "y"])
    assert "You're not playing in this game" in reply_text(stranger, "mallory")
    garbage = await authority.press(req("bob"), "not-a-button")
    assert "not one I recognise" in reply_text(garbage, "bob")
    assert await record(store) == before


async def test_cards_not_in_hand_are_refused(authority: Authority, store: GameStore) -> None:
    out = await begin(authority)
    select = panel_select(panel(out, "alice"))
    before = await record(store)
    theirs = plain_state(before)["hands"][1][:2]
    refused = await authority.press(req("alice"), codec.encode_select("bigidea", select), theirs)
    assert reply_text(refused, "alice")
    assert not refused.public
    assert await record(store) == before


async def _pick_for(authority: Authority, out: Outbox, user: str, rng: random.Random) -> Outbox:
    """Press the user's pick menu with an item and a description if it has them."""
    select = panel_select(panel(out, user))
    values = [o.value for o in select.options]
    rng.shuffle(values)
    for first in values:
        for second in values:
            if first != second:
                result = await authority.press(
                    req(user), codec.encode_select("bigidea", select), [first, second]
                )
                if not any("not a product" in m.text for m in replies(result, user)):
                    return result
    raise AssertionError("no pick possible")


async def test_stale_button_after_the_phase_moved_on(
    authority: Authority, store: GameStore
) -> None:
    out = await begin(authority)
    rng = random.Random(3)
    alice_panel = out
    await _pick_for(authority, alice_panel, "alice", rng)
    done = await _pick_for(authority, out, "bob", rng)
    assert any("venture" in m.plain_text().lower() for m in done.public) or done.board
    before = await record(store)
    old = panel_select(panel(out, "alice"))
    stale = await authority.press(
        req("alice"), codec.encode_select("bigidea", old), [o.value for o in old.options[:2]]
    )
    assert STALE in reply_text(stale, "alice")
    assert not stale.public and not stale.panels and stale.board is None
    assert await record(store) == before


async def test_a_whole_game_with_one_human_and_deadlines(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    """Alice plays nothing at all: every phase ends by its deadline and the game still ends."""
    await lobby(
        authority, ["alice"], bots=3, options="pick_seconds=30 vote_seconds=20 turn_seconds=10"
    )
    await authority.command(req("alice"), "bigidea", "begin")
    fired = 0
    for _ in range(500):
        rec = await record(store)
        if rec.status == "finished":
            break
        assert rec.deadline_due is not None
        clock.now = rec.deadline_due + 0.1
        outs = await authority.fire_due("console")
        assert len(outs) == 1
        fired += 1
    rec = await record(store)
    assert rec.status == "finished"
    assert plain_state(rec)["outcome"]["standings"]
    assert fired > 8  # at least a pick, a vote and a turn per round were timed out
    assert await authority.fire_due("console") == []


async def test_late_timer_fire_changes_nothing(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    await begin(authority, options="pick_seconds=30")
    before = await record(store)
    clock.now = (before.deadline_due or 0) - 5
    assert await authority.fire_due("console") == []
    assert await record(store) == before


async def test_leaving_hands_the_seat_to_a_bot(authority: Authority, store: GameStore) -> None:
    await lobby(
        authority, ["alice"], bots=2, options="pick_seconds=0 vote_seconds=0 turn_seconds=0"
    )
    await authority.command(req("alice"), "bigidea", "begin")
    out = await authority.command(req("alice"), "bigidea", "leave")
    assert any("a bot plays their seat" in m.text for m in out.public)
    rec = await record(store)
    assert rec.status == "finished"
    assert rec.state and rec.state["outcome"]
    assert await store.games_of("console", "alice") == []


async def test_end_by_host_or_after_idle(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    await begin(authority)
    out = await authority.command(req("bob"), "bigidea", "end")
    assert "Only the host (Alice) can end the game" in reply_text(out, "bob")
    clock.now += 31 * 60
    out = await authority.command(req("bob"), "bigidea", "end")
    assert any("Bob ended the game" in m.text for m in out.public)
    assert (await record(store)).status == "finished"
    out = await authority.command(req("carol"), "bigidea", "start")
    assert out.public
    rec = await record(store)
    assert rec.first_version > 0


async def test_old_games_button_is_stale_in_the_next_game(
    authority: Authority, store: GameStore
) -> None:
    out = await begin(authority, options="pick_seconds=0")
    old = panel_select(panel(out, "alice"))
    await authority.command(req("alice"), "bigidea", "end")
    await begin(authority, options="pick_seconds=0")
    before = await record(store)
    stale = await authority.press(
        req("alice"), codec.encode_select("bigidea", old), [o.value for o in old.options[:2]]
    )
    assert STALE in reply_text(stale, "alice")
    assert await record(store) == before


async def test_log_starts_at_begin(authority: Authority, store: GameStore) -> None:
    await begin(authority)
    entries = [json.loads(line) for line in await store.read_log(KEY)]
    kinds = [entry[1] for batch in entries for entry in batch]
    assert kinds == ["begin", "pick", "pick"]  # the two bots pick at once
    begin_entry = next(e for batch in entries for e in batch if e[1] == "begin")
    assert begin_entry == [
        "alice",
        "begin",
        ["Alice", "Bob", "Ada", "Grace"],
        [False, False, True, True],
    ]


async def test_a_game_replays_exactly_from_seed_and_log(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    """Humans, bots and the clock all act; the log then rebuilds the very same state."""
    await lobby(authority, ["alice", "bob"], bots=2, options="vote_seconds=20 turn_seconds=10")
    out = await authority.command(req("alice"), "bigidea", "begin")
    rng = random.Random(5)
    await _pick_for(authority, out, "alice", rng)
    await _pick_for(authority, out, "bob", rng)
    await authority.command(req("alice"), "bigidea", "pitch Cold beer, warm heart.")
    for _ in range(300):
        rec = await record(store)
        if rec.status == "finished":
            break
        clock.now = (rec.deadline_due or clock.now) + 1
        await authority.fire_due("console")
    rec = await record(store)
    assert rec.status == "finished"
    replayed = replay(
        erase(GAME), rec.seed, rec.options, rec.first_version, await store.read_log(KEY)
    )
    assert replayed is not None
    assert replayed.model_dump(mode="json") == rec.state


async def test_storage_outage_is_a_sentence_and_recovers(spawn_redis: Any, clock: Clock) -> None:
    server = spawn_redis(None)
    store = GameStore.from_url(server.url)
    authority = Authority(store, Settings(), clock=clock)
    try:
        await lobby(authority, ["alice"])
        server.stop()
        out = await authority.command(req("bob"), "bigidea", "join")
        assert reply_text(out, "bob") == UNAVAILABLE
        assert out.unavailable and not out.public
        with pytest.raises(StorageUnavailable):  # the deadline loop backs off and retries
            await authority.fire_due("console")
        spawn_redis(server.port)  # back on the same port (empty: it keeps nothing on disk)
        # The server answers once spawn_redis returns, and redis-py reconnects within its own
        # retry of the next command: the very first one works, with no new store.
        out = await authority.command(req("bob"), "bigidea", "start")
        assert out.public, reply_text(out, "bob")
    finally:
        await store.close()


# --- secrecy over a whole game -----------------------------------------------------------------


def _secret_phrases(state: dict[str, Any]) -> set[str]:
    """The printed text of every card that is still hidden: in a hand or a pending pick."""
    from core.games.bigidea.cards import card

    hidden = {card_id for hand in state["hands"] for card_id in hand}
    hidden |= {card_id for pick in state["picks"] if pick for card_id in pick}
    return {card(card_id).text.strip(".") for card_id in hidden}


async def test_no_hidden_card_reaches_the_channel(authority: Authority, store: GameStore) -> None:
    """Two humans press random choices to the end; after every command, nothing public (posts,
    prompt buttons, the board) shows a card that is still in a hand or a secret pick."""
    await lobby(
        authority, ["alice", "bob"], bots=2, options="pick_seconds=0 vote_seconds=0 turn_seconds=0"
    )
    out = await authority.command(req("alice"), "bigidea", "begin")
    rng = random.Random(11)
    panels: dict[str, ui.Message] = {}
    prompt: ui.Message | None = None
    for _ in range(2000):
        rec = await record(store)
        if rec.status == "finished":
            break
        assert rec.state is not None
        secrets = _secret_phrases(rec.state)
        public = [*out.public, *([out.board] if out.board else [])]
        for message in public:
            shown = (
                message.plain_text()
                + " ".join(b.label for b in message.all_buttons())
                + " ".join(o.label for s in message.selects for o in s.options)
            )
            leaked = [s for s in secrets if s in shown]
            assert not leaked, (leaked, shown)
        for user, message in out.panels.items():
            panels[user] = message
        for delivery in out.deliveries:
            if delivery.user and (delivery.message.buttons or delivery.message.selects):
                panels[delivery.user] = delivery.message
        if out.board is not None:  # with a board, the public prompt shows out.prompt
            prompt = out.prompt
        user = rng.choice(["alice", "bob"])
        options: list[ui.Message] = [
            m for m in (panels.get(user), prompt) if m is not None and (m.buttons or m.selects)
        ]
        if not options:
            continue
        message = rng.choice(options)
        if message.selects:
            select = message.selects[0]
            values = rng.sample([o.value for o in select.options], select.min_values)
            out = await authority.press(req(user), codec.encode_select("bigidea", select), values)
        else:
            button = rng.choice(message.all_buttons())
            out = await authority.press(req(user), codec.encode_button("bigidea", button))
    rec = await record(store)
    assert rec.status == "finished", "the random players did not finish the game"


async def test_hand_in_a_dm_lists_every_game_with_buttons_for_that_game(
    authority: Authority, store: GameStore
) -> None:
    await begin(authority)
    other = Request(platform="console", channel="table-2", user="alice", name="Alice")
    await authority.command(other, "bigidea", "start")
    dm = Request(platform="console", channel="dm-alice", user="alice", name="Alice")
    outboxes = await authority.hands(dm)
    assert sorted(o.channel for o in outboxes) == [CHANNEL, "table-2"]
    playing = next(o for o in outboxes if o.channel == CHANNEL)
    select = panel_select(replies(playing, "alice")[0])  # `hand` is a private reply
    # Pressed in the DM, the button (which names its channel) acts on table-1's game.
    custom_id = codec.encode_select("bigidea", select, CHANNEL)
    values = [o.value for o in select.options]
    done = await authority.press(dm, custom_id, values[:2])
    assert done.channel == CHANNEL
    assert "Your pick" in panel(done, "alice").text
    assert plain_state(await record(store))["picks"][0] is not None


async def test_finished_game_leaves_the_players_lists(
    authority: Authority, store: GameStore
) -> None:
    await lobby(
        authority, ["alice"], bots=2, options="pick_seconds=0 vote_seconds=0 turn_seconds=0"
    )
    assert await store.games_of("console", "alice") == [KEY]
    await authority.command(req("alice"), "bigidea", "begin")
    await authority.command(req("alice"), "bigidea", "end")
    assert await store.games_of("console", "alice") == []


async def test_status_after_end_says_the_game_is_over_and_other_games_see_a_free_channel(
    authority: Authority,
) -> None:
    await lobby(authority, ["alice", "bob", "carol"])
    await authority.command(req("alice"), "bigidea", "begin")
    await authority.command(req("alice"), "bigidea", "end")
    status = await authority.command(req("bob"), "bigidea", "status")
    assert "is over" in reply_text(status, "bob")
    other = await authority.command(req("bob"), "businessgo", "status")
    assert "No game here" in reply_text(other, "bob")
    assert "playing The Big Idea" not in reply_text(other, "bob")


async def test_status_after_a_lobby_was_ended_offers_no_lobby(authority: Authority) -> None:
    await lobby(authority, ["alice", "bob"])
    await authority.command(req("alice"), "bigidea", "end")
    status = await authority.command(req("bob"), "bigidea", "status")
    said = reply_text(status, "bob")
    assert "was ended before the game began" in said and "`/bigidea start`" in said
    assert not [d for d in status.deliveries if d.message.all_buttons()]  # no Join, no Begin


async def test_addbot_on_a_full_table_says_it_is_full(authority: Authority) -> None:
    await lobby(authority, ["alice", "bob", "carol"], bots=3)
    out = await authority.command(req("alice"), "bigidea", "addbot")
    assert reply_text(out, "alice") == "The table is full: The Big Idea seats 6."
    # The full lobby's card offers neither a seat nor a bot, only Begin.
    status = await authority.command(req("bob"), "bigidea", "status")
    (card,) = [d.message for d in status.deliveries]
    assert [b.label for b in card.all_buttons()] == ["Begin"]


async def test_panels_prompts_and_the_board_carry_the_decisions_end(
    authority: Authority, store: GameStore
) -> None:
    await lobby(authority, ["alice", "bob", "carol"], options="pick_seconds=120")
    out = await authority.command(req("alice"), "bigidea", "begin")
    due = (await record(store)).deadline_due
    assert due is not None
    panels = list(out.panels.values())
    assert len(panels) == 3 and all(m.selects and m.deadline == due for m in panels)
    assert out.board is not None and out.board.deadline == due


# --- the table's surfaces ----------------------------------------------------------------------


def command_buttons(message: ui.Message) -> list[str | None]:
    return [b.command for b in message.all_buttons()]


async def test_start_thread_off_plays_in_the_channel(
    authority: Authority, store: GameStore
) -> None:
    out = await authority.command(req("alice"), "bigidea", "start thread=off pick_seconds=0")
    assert out.card is not None, reply_text(out, "alice")
    rec = await record(store)
    assert rec.thread is False
    assert rec.options["pick_seconds"] == 0  # the other words are still the game's options
    await authority.command(req("alice"), "bigidea", "addbot 2")
    began = await authority.command(req("alice"), "bigidea", "begin")
    assert began.begun and began.thread is False


async def test_a_game_plays_in_a_thread_unless_told_otherwise(
    authority: Authority, store: GameStore
) -> None:
    await lobby(authority, ["alice"], bots=2)
    assert (await record(store)).thread is True
    began = await authority.command(req("alice"), "bigidea", "begin")
    assert began.begun and began.thread is True
    await authority.command(req("alice"), "bigidea", "end")
    await authority.command(req("alice"), "bigidea", "start thread=on")
    assert (await record(store)).thread is True


async def test_a_bad_thread_option_is_refused_with_a_sentence(
    authority: Authority, store: GameStore
) -> None:
    out = await authority.command(req("alice"), "bigidea", "start thread=maybe")
    assert reply_text(out, "alice") == "`thread` takes on or off, e.g. `thread=off`."
    assert not out.public and out.card is None
    _, loaded = await store.load(KEY)
    assert loaded is None


async def test_the_card_shows_the_lobby_then_the_game_then_the_standings(
    authority: Authority,
) -> None:
    start = await authority.command(req("alice"), "bigidea", "start pick_seconds=0")
    assert start.card is not None and start.card.title == "The Big Idea: lobby"
    assert "Alice opened a game of The Big Idea." in start.card.text
    assert "Players (1/6): Alice." in start.card.text
    assert command_buttons(start.card) == ["join", "addbot", "begin"]
    assert not start.log and not start.begun and not start.ended

    joined = await authority.command(req("bob"), "bigidea", "join")
    assert joined.card is not None and "Players (2/6): Alice, Bob." in joined.card.text
    await authority.command(req("carol"), "bigidea", "join")
    left = await authority.command(req("carol"), "bigidea", "leave")
    assert left.card is not None and "Carol left." in left.card.text
    assert "Players (2/6): Alice, Bob." in left.card.text
    added = await authority.command(req("alice"), "bigidea", "addbot")
    assert added.card is not None and "Players (3/6): Alice, Bob, Ada (bot)." in added.card.text
    assert command_buttons(added.card) == ["join", "addbot", "begin"]

    began = await authority.command(req("alice"), "bigidea", "begin")
    assert began.card is not None and began.card.title == "The Big Idea: playing"
    assert "Alice, Bob, Ada (bot)" in began.card.text
    assert not began.card.all_buttons()  # nobody joins or begins a game being played
    assert began.begun and not began.ended and began.result is None
    assert began.log[0] == "Alice began the game. Good luck!"

    # A move is told in the thread (a pick: on the board and the picker's panel); the card stays
    # as it is.
    pick = await _pick_for(authority, began, "alice", random.Random(1))
    assert pick.card is None and pick.board is not None and "alice" in pick.panels
    assert "Waiting for Bob." in pick.board.text

    ended = await authority.command(req("alice"), "bigidea", "end")
    assert ended.ended and ended.card is not None
    assert ended.card.title == "The Big Idea: ended early"
    head, when, *standings = ended.card.text.splitlines()
    assert head == "**Alice ended the game of The Big Idea early.**"
    assert when == "Standing when it ended:"
    assert sum(1 for line in standings if line.endswith("· $10")) == 3  # nobody has earned yet
    assert any("Alice" in line for line in standings[:3])
    assert any("Bob" in line for line in standings[:3])
    assert "Ended in round 1 of 6, in the pick phase." in standings
    assert ended.result is not None
    assert ended.result.text == "Alice ended the game of The Big Idea early."


async def test_a_lobby_closes_on_its_card(authority: Authority) -> None:
    await authority.command(req("alice"), "bigidea", "start")
    out = await authority.command(req("alice"), "bigidea", "leave")
    assert out.ended and out.card is not None and out.card.title == "The Big Idea: lobby closed"
    assert "Alice left." in out.card.text and not out.card.all_buttons()
    await authority.command(req("bob"), "bigidea", "start")
    out = await authority.command(req("bob"), "bigidea", "end")
    assert out.ended and out.card is not None and out.card.title == "The Big Idea: lobby closed"
    assert out.card.text == "Bob ended the game of The Big Idea."


async def test_a_game_played_to_its_end_ends_its_table_with_the_result(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    await lobby(authority, ["alice"], bots=3, options="pick_seconds=30 vote_seconds=20")
    outs = [await authority.command(req("alice"), "bigidea", "begin")]
    for _ in range(500):
        rec = await record(store)
        if rec.status == "finished":
            break
        clock.now = (rec.deadline_due or clock.now) + 0.1
        outs += await authority.fire_due("console")
    assert (await record(store)).status == "finished"
    *playing, last = outs
    assert not any(o.ended or o.result is not None for o in playing)
    assert all(o.card is None for o in playing[1:])  # the card changes at the end only
    assert last.ended and last.notify == [] and last.prompt is None
    assert last.result is not None and last.result.text.startswith("Game over")
    assert last.card is not None and last.card.title == "The Big Idea: final standings"
    state = BigIdeaState.model_validate((await record(store)).state)
    assert state.outcome is not None
    assert last.result.text == f"Game over: {state.outcome.summary}"
    assert last.result.text in last.card.text
    assert any(state.outcome.summary in line for line in last.log)
    assert last.board is not None and "Game over" in last.board.text


async def test_notices_and_panels_go_to_the_people_a_decision_waits_for(
    store: GameStore, clock: Clock
) -> None:
    """A whole game of two people and two bots, pressing and letting deadlines pass. After each
    applied step: ``notify`` names only people the game now waits for (never the requester,
    never a bot seat); when a decision opens, every person it waits for is shown their panel,
    and when it is one seat's turn, its people other than the one who acted are notified (at
    once here: the notice that waits for its player is tested below)."""
    settings = Settings.model_validate({"BOARDROOM_NUDGE_SECONDS": 0})
    seeds = random.Random(7)
    authority = Authority(store, settings, clock=clock, new_seed=lambda: seeds.getrandbits(63))
    await lobby(authority, ["alice", "bob"], bots=2, options="pick_seconds=30 vote_seconds=20")
    game_rng = random.Random(4)
    requester: str | None = "alice"
    out = await authority.command(req("alice"), "bigidea", "begin")
    before = None
    panels: dict[str, ui.Message] = {}
    prompt: ui.Message | None = None
    opened = notified = 0
    for _ in range(1500):
        rec = await record(store)
        assert rec.state_json is not None
        after = BigIdeaState.model_validate_json(rec.state_json)
        if out.board is not None:
            waiting = {u for seat in GAME.waiting_for(after) for u in rec.seats[seat].users}
            assert out.notify is not None
            assert set(out.notify) <= waiting, (out.notify, waiting)
            assert requester not in out.notify
            assert set(out.notify) <= set(rec.humans)
            if rec.status == "finished":
                assert out.notify == []
            elif before is None or after.decision_version != before.decision_version:
                # A turn (one seat) is told to its people; a decision everyone makes at once
                # is announced by the board, the prompt and the panels, with no notice.
                opened += 1
                turn = len(GAME.waiting_for(after)) == 1
                expected = waiting - {requester} if turn else set()
                assert set(out.notify) == expected, (out.notify, expected)
                assert waiting <= set(out.panels), (sorted(out.panels), waiting)
                notified += len(expected)
            before = after
        if rec.status == "finished":
            break
        panels |= out.panels
        panels |= {d.user: d.message for d in out.deliveries if d.user and d.message.selects}
        if out.board is not None:
            prompt = out.prompt
        away = [u for seat in rec.seats if seat.away for u in seat.users]
        if away:  # missed two deadlines while the other played: back, by asking for their hand
            await authority.command(req(away[0]), "bigidea", "hand")
            out = Outbox(platform="console", channel="c")  # (its board is checked no further)
            continue
        waiting_users = [u for seat in GAME.waiting_for(after) for u in rec.seats[seat].users]
        choices = [
            (user, message)
            for user in waiting_users
            for message in (panels.get(user), prompt)
            if message is not None and (message.selects or message.all_buttons())
        ]
        if not choices or game_rng.random() < 0.2:
            clock.now = (rec.deadline_due or clock.now) + 0.1
            fired = await authority.fire_due("console")
            if fired:
                (out,) = fired
                requester = None
                continue
        if not choices:
            continue
        user, message = game_rng.choice(choices)
        requester = user
        if message.selects:
            select = message.selects[0]
            values = game_rng.sample([o.value for o in select.options], select.min_values)
            out = await authority.press(req(user), codec.encode_select("bigidea", select), values)
        else:
            button = game_rng.choice(message.all_buttons())
            out = await authority.press(req(user), codec.encode_button("bigidea", button))
    assert (await record(store)).status == "finished"
    assert opened > 10 and notified > 10, (opened, notified)


async def test_the_game_clock_runs_beside_the_turn_deadlines_and_calls_time(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    """BiggieBills with minutes=2 and turn deadlines: the turns time out one after another
    (each re-armed), the clock is armed once at begin, and when it passes time is called."""
    out = await authority.command(
        req("alice"), "biggiebills", "start minutes=2 turn_seconds=20 block_seconds=10"
    )
    assert out.public, reply_text(out, "alice")
    await authority.command(req("alice"), "biggiebills", "addbot 2")
    await authority.command(req("alice"), "biggiebills", "begin")
    begun = await record(store)
    assert begun.clock_due is not None and begun.deadline_due is not None
    assert begun.clock_due == clock.now + 120
    assert begun.next_due == min(begun.deadline_due, begun.clock_due)
    turns = 0
    for _ in range(50):
        rec = await record(store)
        if rec.status == "finished":
            break
        assert rec.clock_due == begun.clock_due  # armed once, never moved
        assert rec.next_due is not None
        clock.now = rec.next_due + 0.1
        assert len(await authority.fire_due("console")) == 1
        turns += clock.now < begun.clock_due
    rec = await record(store)
    assert rec.status == "finished" and rec.clock_due is None
    assert turns >= 2  # Alice's turns timed out before the clock ran out
    outcome = plain_state(rec)["outcome"]
    assert outcome["ended"] == "time limit" and "after 2 minutes" in outcome["summary"]


# --- the turn notice waits for its player ------------------------------------------------------

GO_TURNS = "turn_seconds=0 auto_moves=no always_compete=no"


async def _board_choice(store: GameStore) -> tuple[str, ui.Button]:
    """A Busine$$ GO board's first choice and a user it is for (its seat's; for a choice
    everyone asked answers, the first of them)."""
    rec = await record(store)
    state = BusinessGoState.model_validate_json(rec.state_json or "")
    button = next(b for b in GO.render_board(state).all_buttons() if b.action is not None)
    seat = button.seat if button.seat is not None else GO.waiting_for(state)[0]
    return rec.seats[seat].users[0], button


async def _until_a_turn_passes(authority: Authority, store: GameStore, options: str) -> Outbox:
    """A Busine$$ GO game of alice and bob, pressed on (on the board, where its choices are)
    until a press hands the turn to the other player (whose notice then waits): the Outbox of
    that press."""
    await authority.command(req("alice"), "businessgo", f"start {options}")
    await authority.command(req("bob"), "businessgo", "join")
    out = await authority.command(req("alice"), "businessgo", "begin")
    requester = "alice"
    for _ in range(200):
        rec = await record(store)
        if rec.nudge:
            assert requester not in rec.nudge
            return out
        user, button = await _board_choice(store)
        out = await authority.press(req(user), codec.encode_button("businessgo", button))
        requester = user
    raise AssertionError("the turn never passed from one player to the other")


async def test_a_turn_notice_waits_for_its_player_then_pings_them(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    out = await _until_a_turn_passes(authority, store, GO_TURNS)
    rec = await record(store)
    (waited,) = rec.nudge
    assert out.notify == []  # not at once: someone playing along needs no ping every turn
    # The board shows the turn at once, as ever: its choices are now theirs.
    assert out.board is not None
    seat = next(i for i, s in enumerate(rec.seats) if waited in s.users)
    assert {b.seat for b in out.board.all_buttons() if b.action is not None} == {seat}
    assert rec.nudge_due == clock.now + Settings().nudge_seconds == rec.next_due
    clock.now += Settings().nudge_seconds - 1
    assert await authority.fire_due("console") == []
    clock.now += 2
    (nudged,) = await authority.fire_due("console")
    assert nudged.notify == [waited] and nudged.board is not None
    after = await record(store)
    assert after.nudge == [] and after.nudge_due is None
    assert after.state_json == rec.state_json  # a notice changes nothing in the game
    clock.now += 60
    # Once: a lease after the notice's save its game is claimed again, which brings the table
    # the game as it is (for a worker that died before delivering), pinging nobody.
    assert [(o.repair, o.notify) for o in await authority.fire_due("console")] == [(True, None)]


async def test_a_player_who_moves_first_is_not_pinged(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    await _until_a_turn_passes(authority, store, GO_TURNS)
    rec = await record(store)
    (waited,) = rec.nudge
    due = rec.nudge_due
    assert due is not None
    clock.now += 5
    user, button = await _board_choice(store)
    assert user == waited
    await authority.press(req(waited), codec.encode_button("businessgo", button))
    after = await record(store)
    assert waited not in after.nudge
    clock.now = due + 1
    for fired in await authority.fire_due("console"):
        assert waited not in (fired.notify or [])


async def test_a_turn_notice_comes_by_half_the_turns_deadline(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    await _until_a_turn_passes(authority, store, "turn_seconds=20 auto_moves=no always_compete=no")
    rec = await record(store)
    assert rec.deadline_due is not None and rec.nudge_due is not None
    assert rec.nudge_due == clock.now + 10 < rec.deadline_due


async def test_a_turn_notice_leaves_an_open_prompt_as_it_is(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    """BiggieBills' vote on a new target stays open (with its buttons) while a turn's notice
    moves the board down."""
    await authority.command(req("alice"), "biggiebills", "start turn_seconds=0 block_seconds=0")
    for user in ("bob", "carol"):
        await authority.command(req(user), "biggiebills", "join")
    await authority.command(req("alice"), "biggiebills", "begin")
    rec = await record(store)
    state = json.loads(rec.state_json or "{}")
    first = rec.seats[state["order"][0]].users[0]
    proposed = await authority.command(req(first), "biggiebills", "target 2000")
    assert proposed.prompt is not None, reply_text(proposed, first)
    skipped = await authority.command(req(first), "biggiebills", "skip")
    assert not replies(skipped, first), reply_text(skipped, first)
    rec = await record(store)
    assert rec.nudge and rec.nudge_due is not None
    clock.now = rec.nudge_due + 0.1
    (nudged,) = await authority.fire_due("console")
    assert nudged.notify == rec.nudge and nudged.board is not None
    assert nudged.prompt is not None and nudged.prompt.all_buttons()
    assert nudged.prompt_id == proposed.prompt_id


async def test_a_lobby_whose_options_no_longer_work_says_so_at_begin(
    authority: Authority, store: GameStore
) -> None:
    """A lobby opened before an option's range changed (here a target now out of range)."""
    await authority.command(req("alice"), "biggiebills", "start")
    await authority.command(req("alice"), "biggiebills", "addbot 2")
    _, loaded = await store.load(KEY)
    assert loaded is not None
    rec = GameRecord.model_validate_json(loaded.data)
    rec.options["target"] = 20_000  # allowed when the lobby was opened, not any more
    saved = await store.save(
        KEY, rec.model_dump_json(), expected=loaded.version, version=loaded.version + 1, ttl_s=60
    )
    assert saved
    out = await authority.command(req("alice"), "biggiebills", "begin")
    said = reply_text(out, "alice")
    assert "This lobby's options no longer work: `target` takes a whole number" in said, said
    assert "`/biggiebills end`" in said
    assert (await record(store)).status == "lobby"


async def test_a_rules_table_reads_as_a_list_in_chat(authority: Authority) -> None:
    """Neither platform draws a Markdown table: the rules topic's tables come as lists."""
    out = await authority.command(req("alice"), "businessgo", "rules board")
    shown = reply_text(out, "alice").splitlines()
    assert not any(line.startswith("|") for line in shown)
    assert "• 0: BUSINE$$ GO Start" in shown and "• 20: Boom" in shown
    assert shown.index("• 19: Switzerland") < shown.index("• 20: Boom")  # the left half first
    licences = await authority.command(req("alice"), "businessgo", "rules licences")
    canada = next(line for line in reply_text(licences, "alice").splitlines() if "Canada**" in line)
    assert "• **Canada** — continent: Americas; product: luxury cars;" in canada


async def test_rules_all_is_one_reply_carrying_the_whole_page(authority: Authority) -> None:
    """`rules all` is one private answer: what the game is, its topics, and the page itself as
    a Markdown file (the same bytes as the game's rules page); a topic stays text."""
    for game in all_games():
        out = await authority.command(req("alice"), game.name, "rules ALL")
        [answer] = replies(out, "alice")
        [page] = answer.files
        assert page.name == f"{game.name}-rules.md"
        assert page.mime == "text/markdown; charset=utf-8"
        assert page.data == game.rules("all").encode("utf-8")
        assert answer.text.startswith(f"**{game.title}: the rules**")
        assert all(topic in answer.text for topic in game.rule_topics())
        assert answer.text.endswith(f"The whole page is attached: {page.name}.")
        assert len(answer.text) <= 2000 and not out.public
        # The table digests and keeps messages as JSON: the bytes come back whole.
        assert ui.Message.model_validate_json(answer.model_dump_json()) == answer
    out = await authority.command(req("bob"), "businessgo", "rules casino")
    assert replies(out, "bob") and not any(m.files for m in replies(out, "bob"))


async def test_a_stale_press_takes_back_a_seat_a_bot_stood_in_for(
    authority: Authority, store: GameStore, clock: Clock
) -> None:
    """Alice misses two deadlines while Bob plays: a bot plays for her. A button of hers from
    before, pressed now, is stale, but the seat is hers again at once (saved), and she is told
    what was played for her; the channel once that she is back."""
    await lobby(authority, ["alice", "bob"], bots=1, options="pick_seconds=30 vote_seconds=20")
    began = await authority.command(req("alice"), "bigidea", "begin")
    old_panel = began.panels["alice"]
    assert old_panel.selects
    for _ in range(30):
        rec = await record(store)
        if rec.seats[0].away:
            break
        state = BigIdeaState.model_validate_json(rec.state_json or "")
        if 1 in GAME.waiting_for(state):  # Bob answers whatever he is asked, by a button
            action = GAME.legal_actions(state, 1)[0]
            button = ui.Button(
                label="go", action=action.model_dump(mode="json"), version=state.version, seat=1
            )
            await authority.press(req("bob"), codec.encode_button("bigidea", button))
            assert (await record(store)).state_json != rec.state_json, "Bob's press did nothing"
            continue
        clock.now = (rec.deadline_due or clock.now) + 0.1
        assert len(await authority.fire_due("console")) == 1
    rec = await record(store)
    assert rec.seats[0].away and rec.bots[0] == "normal" and rec.seats[1].bot is None
    select = old_panel.selects[0]
    values = [o.value for o in select.options][: select.min_values]
    out = await authority.press(req("alice"), codec.encode_select("bigidea", select), values)
    told = " ".join(m.text for m in replies(out, "alice"))
    assert STALE in told and "You have your seat back" in told
    assert sum("Alice is back" in line for line in out.log) == 1
    back = await record(store)
    assert not back.seats[0].away and back.seats[0].bot is None and back.seats[0].missed == 0
