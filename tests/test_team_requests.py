"""Teams during play, through the authority on the embedded store: joining a running team needs
a yes, a player who left joins no other team, teams that are out take nobody, and the people of
an acquired team play on for the acquirer (or, with ``acquired=watch``, only watch).

Relay (tests/team_game.py) is the smallest team game, for the requests; BiggieBills$$$ itself,
with a moment arranged just before an acquisition completes, for the seats that are out.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from bot.commands import codec
from bot.commands.authority import Authority, Request
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.commands.seats.seating import MAX_REQUESTS, REQUEST_WINDOW_S
from bot.settings import Settings
from core import registry, ui
from core.engine import OpenDecision
from core.games.biggiebills import GAME as BIGGIE
from core.games.biggiebills.cards import ACQUIRE
from core.games.biggiebills.state import Active, BiggieBillsOptions, BiggieBillsState
from core.games.businessgo import GAME as BUSINESSGO
from core.games.businessgo.state import BusinessGoOptions, BusinessGoState
from storage import GameKey, GameStore
from tests.authority_support import Clock, public_text, roster, stored_record
from tests.team_game import GAME, RelayOptions

CHANNEL = "team-requests"
KEY = GameKey("console", CHANNEL)
NAME = GAME.name


@pytest.fixture(autouse=True)
def relay_registered() -> Iterator[None]:
    with registry.registered(GAME):
        yield


@pytest.fixture
async def store() -> AsyncIterator[GameStore]:
    store = GameStore.from_url(None)  # the embedded store
    yield store
    await store.close()


def new_authority(store: GameStore, clock: Clock | None = None) -> Authority:
    seeds = random.Random(5)
    return Authority(
        store, Settings(), clock=clock or Clock(), new_seed=lambda: seeds.getrandbits(63)
    )


@pytest.fixture
def authority(store: GameStore) -> Authority:
    return new_authority(store)


def req(user: str) -> Request:
    return Request(platform="console", channel=CHANNEL, user=user, name=user.title())


async def say(authority: Authority, user: str, text: str, game: str = NAME) -> Outbox:
    return await authority.command(req(user), game, text)


def notes(out: Outbox, user: str) -> list[ui.Message]:
    """The private messages to ``user`` (a reply, or a note sent to them as a DM)."""
    return [d.message for d in out.deliveries if d.user == user]


def sent_to_others(out: Outbox, user: str) -> Counter[str]:
    """The messages the bot sends people other than ``user`` (who asked): notes (DMs), and
    the notes it closes (each an edit of every copy), by user or ``closed``."""
    sent = Counter(d.user for d in out.deliveries if d.user is not None and d.user != user)
    sent["closed"] += len(out.closed_notes)
    return +sent


def clock_of(authority: Authority) -> Clock:
    clock = authority.clock
    assert isinstance(clock, Clock)
    return clock


def private_text(out: Outbox, user: str) -> str:
    shown = notes(out, user) + ([out.panels[user]] if user in out.panels else [])
    return "\n".join(m.text for m in shown)


async def record(store: GameStore) -> GameRecord:
    return await stored_record(store, KEY)


def button(message: ui.Message, label: str) -> ui.Button:
    found = [b for row in message.buttons for b in row if b.label.startswith(label)]
    assert found, (label, message)
    return found[0]


async def press(authority: Authority, user: str, pressed: ui.Button) -> Outbox:
    return await authority.press(req(user), codec.encode_button(NAME, pressed))


async def two_teams(authority: Authority) -> None:
    """Team Alice (alice, bob; alice hosts) against Sharks (carol), being played."""
    await say(authority, "alice", "start")
    await say(authority, "bob", "join Alice")
    await say(authority, "carol", "join Sharks")
    await say(authority, "alice", "begin")


# --- a yes from the team ----------------------------------------------------------------------


async def test_joining_a_running_team_waits_for_a_yes_from_a_member(
    authority: Authority, store: GameStore
) -> None:
    await two_teams(authority)
    asked = await say(authority, "dave", "join sharks")
    # The asker is told privately what happens next; nothing is public, no hand is shown.
    assert "I asked Sharks to let you in: its members (Carol)" in private_text(asked, "dave")
    assert not asked.public and not asked.panels and asked.board is None
    assert roster(await record(store)) == {"Alice": ["alice", "bob"], "Sharks": ["carol"]}
    peek = await say(authority, "dave", "hand")
    assert "Your request to join Sharks is waiting for a yes" in private_text(peek, "dave")
    assert "Secret" not in private_text(peek, "dave")
    # Carol (Sharks) and the host get the request privately, with Accept and Decline; Bob,
    # who is on the other team and not the host, hears nothing.
    (request,) = notes(asked, "carol")
    assert "Dave asks to join Sharks." in request.text and "host" not in request.text
    (for_host,) = notes(asked, "alice")
    assert "As the host you may answer too." in for_host.text
    assert notes(asked, "bob") == []
    accept = button(request, "Accept Dave")
    assert button(request, "Decline").command == f"{accept.command} no"
    # Each copy is a note about the request, which the table keeps to close it later.
    keys = {d.note for d in asked.deliveries if d.user in ("carol", "alice")}
    assert len(keys) == 1 and None not in keys

    # Bob may not answer for the Sharks; nothing changes.
    wrong = await press(authority, "bob", button(for_host, "Accept"))
    assert "Only the members of Sharks (or the host, Alice)" in private_text(wrong, "bob")
    assert not wrong.public and len((await record(store)).requests) == 1

    yes = await press(authority, "carol", accept)
    assert "Dave joined Sharks; Carol let them in." in yes.log
    # Every copy of the note (the host's too) is closed: it says how it ended.
    (closed,) = yes.closed_notes.values()
    assert closed.text == "Dave asked to join Sharks. Carol let Dave in." and not closed.buttons
    panel = yes.panels["dave"]  # the hand, privately, only now
    assert panel.text.startswith("Carol let you into Sharks") and "Secret" in panel.text
    assert "Secret" not in public_text(yes)
    assert "Dave plays for Sharks now." in private_text(yes, "carol")
    rec = await record(store)
    assert roster(rec) == {"Alice": ["alice", "bob"], "Sharks": ["carol", "dave"]}
    assert rec.requests == []
    # The host's copy of the request is answered already: refused, and nothing changes.
    late = await press(authority, "alice", button(for_host, "Accept"))
    assert "That request is no longer open" in private_text(late, "alice")
    assert not late.public and roster(await record(store)) == roster(rec)


async def test_a_declined_request_leaves_the_asker_out_and_tells_them_privately(
    authority: Authority, store: GameStore
) -> None:
    await two_teams(authority)
    asked = await say(authority, "dave", "join Sharks")
    (request,) = notes(asked, "carol")
    no = await press(authority, "carol", button(request, "Decline"))
    assert "You declined Dave's request to join Sharks." in private_text(no, "carol")
    (declined,) = no.closed_notes.values()
    assert declined.text == "Dave asked to join Sharks. Carol declined Dave's request."
    assert "Sharks declined your request to join it" in private_text(no, "dave")
    assert not no.public and "dave" not in no.panels
    rec = await record(store)
    assert rec.requests == [] and rec.seat_of("dave") is None


async def test_the_host_may_answer_and_a_second_request_replaces_the_first(
    authority: Authority, store: GameStore
) -> None:
    await two_teams(authority)
    first = await say(authority, "dave", "join Sharks")
    again = await say(authority, "dave", "join Alice")
    assert "Your request to join Sharks is replaced by this one." in private_text(again, "dave")
    (replaced,) = again.closed_notes.values()  # the Sharks' copies say it is withdrawn
    assert replaced.text == "Dave asked to join Sharks. Dave withdrew this request."
    (request,) = (await record(store)).requests
    assert request.seat == 0 and request.user == "dave"
    # The Sharks' note is out of date now.
    (old,) = notes(first, "carol")
    stale = await press(authority, "carol", button(old, "Accept"))
    assert "That request is no longer open" in private_text(stale, "carol")
    # The host (here also a member of Alice) lets Dave in by typing.
    yes = await say(authority, "alice", "admit dave")
    assert "Dave joined Alice; Alice let them in." in yes.log
    assert roster(await record(store))["Alice"] == ["alice", "bob", "dave"]
    unknown = await say(authority, "alice", "admit Zed")
    assert "Zed has no open request to join a team here." in private_text(unknown, "alice")


async def test_an_answer_names_the_asker_whatever_width_or_invisible_marks_it_is_typed_with(
    authority: Authority, store: GameStore
) -> None:
    await two_teams(authority)
    await say(authority, "dave", "join Sharks")
    yes = await say(authority, "carol", "admit Ｄａ\u200bｖｅ")
    assert "Dave joined Sharks; Carol let them in." in yes.log


async def test_a_pending_request_survives_a_restart_and_hand_shows_it_again(
    authority: Authority, store: GameStore
) -> None:
    await two_teams(authority)
    await say(authority, "dave", "join Sharks")
    restarted = new_authority(store)  # a new process on the same store
    hand = await say(restarted, "carol", "hand")
    request = next(m for m in notes(hand, "carol") if "Dave asks to join Sharks." in m.text)
    yes = await press(restarted, "carol", button(request, "Accept"))
    assert "Dave joined Sharks; Carol let them in." in yes.log
    assert "dave" in yes.panels
    assert roster(await record(store))["Sharks"] == ["carol", "dave"]


async def test_leave_withdraws_an_open_request(authority: Authority, store: GameStore) -> None:
    await two_teams(authority)
    asked = await say(authority, "dave", "join Sharks")
    gone = await say(authority, "dave", "leave")
    assert "Your request to join Sharks is withdrawn." in private_text(gone, "dave")
    assert (await record(store)).requests == []
    (request,) = notes(asked, "carol")
    late = await press(authority, "carol", button(request, "Accept"))
    assert "no longer open" in private_text(late, "carol")
    assert (await record(store)).seat_of("dave") is None


async def test_a_bot_team_is_taken_over_at_once(authority: Authority, store: GameStore) -> None:
    await say(authority, "alice", "start")
    await say(authority, "alice", "addbot")
    await say(authority, "alice", "begin")
    joined = await say(authority, "dave", "join Ada")
    assert "Dave joined Ada, taking over from the bot." in joined.log
    assert "Secret" in joined.panels["dave"].text and "Secret" not in public_text(joined)
    assert roster(await record(store)) == {"Alice": ["alice"], "Ada": ["dave"]}


async def test_lobby_joins_need_no_yes_and_admit_is_only_for_play(
    authority: Authority, store: GameStore
) -> None:
    await say(authority, "alice", "start")
    joined = await say(authority, "bob", "join Alice")
    assert "Bob joined Alice." in public_text(joined) and not notes(joined, "alice")
    early = await say(authority, "alice", "admit Bob")
    assert "Requests to join a team are for a game being played" in private_text(early, "alice")
    bare = await say(authority, "alice", "admit")
    assert "Say whose request you answer" in private_text(bare, "alice")
    assert roster(await record(store)) == {"Alice": ["alice", "bob"]}


# --- how often one person has the bot message a team -------------------------------------------


async def test_a_request_messages_each_answerer_once_and_asking_again_sends_nothing(
    authority: Authority, store: GameStore
) -> None:
    await two_teams(authority)
    asked = await say(authority, "dave", "join Sharks")
    # One note each for the Sharks' member and the host, and nothing closed.
    assert sent_to_others(asked, "dave") == {"carol": 1, "alice": 1}
    # Asking the same team again (typed, or its button pressed twice) sends nobody anything:
    # no new copy, no copy closed; the asker hears that the request is waiting.
    for _ in range(3):
        again = await say(authority, "dave", "join  SHARKS")
        assert sent_to_others(again, "dave") == {}
        assert private_text(again, "dave") == (
            "Your request to join Sharks is already waiting for a yes: its members (and the "
            "host, Alice) have it privately, so asking again would only message them again "
            "(`/relay leave` withdraws it)."
        )
    rec = await record(store)
    assert [(r.user, r.seat) for r in rec.requests] == [("dave", 1)]
    assert len(rec.asked) == 1
    # The request as first sent is still the one to answer.
    (note,) = notes(asked, "carol")
    yes = await press(authority, "carol", button(note, "Accept"))
    assert "Dave joined Sharks; Carol let them in." in yes.log


async def test_one_person_asks_at_most_three_times_in_ten_minutes(
    authority: Authority, store: GameStore
) -> None:
    assert (MAX_REQUESTS, REQUEST_WINDOW_S) == (3, 600.0)
    await two_teams(authority)
    clock = clock_of(authority)
    start = clock.now
    sent: Counter[str] = Counter()
    # Withdrawn, replaced, asked again: each request is a note to every answerer, once.
    for minute, line in [(0, "join Sharks"), (1, "leave"), (2, "join Sharks"), (4, "join Alice")]:
        clock.now = start + 60 * minute
        out = await say(authority, "dave", line)
        sent += sent_to_others(out, "dave")
        assert "I asked" in private_text(out, "dave") or line == "leave"
    # Two requests to the Sharks (Carol, and the host), one to Alice (Alice and Bob): one note
    # to each answerer per request, and each earlier request closed once.
    assert sent == {"carol": 2, "alice": 3, "bob": 1, "closed": 2}

    clock.now = start + 60 * 5
    await say(authority, "dave", "leave")
    fourth = await say(authority, "dave", "join Sharks")
    assert private_text(fourth, "dave") == (
        "You have asked to join a team 3 times in the last 10 minutes, and each request "
        "messages the team's members; you can ask again in 5 minutes."
    )
    assert sent_to_others(fourth, "dave") == {} and not fourth.public
    assert (await record(store)).requests == []
    # Another worker (a new process on the same store) counts the same: it is in the record.
    other = new_authority(store, clock)
    clock.now = start + 60 * 9.5
    still = await say(other, "dave", "join Sharks")
    assert "you can ask again in 1 minute." in private_text(still, "dave")
    # Ten minutes after the first request, one more may be made.
    clock.now = start + REQUEST_WINDOW_S
    fifth = await say(other, "dave", "join Sharks")
    assert "I asked Sharks to let you in" in private_text(fifth, "dave")
    assert sent_to_others(fifth, "dave") == {"carol": 1, "alice": 1}
    # What is too old to count has left the record: it holds the last ten minutes only.
    assert [a.asked_at - start for a in (await record(store)).asked] == [120, 240, 600]


async def test_a_team_that_declined_is_not_asked_again_for_ten_minutes(
    authority: Authority, store: GameStore
) -> None:
    await two_teams(authority)
    clock = clock_of(authority)
    start = clock.now
    asked = await say(authority, "dave", "join Sharks")
    clock.now = start + 90
    no = await press(authority, "carol", button(notes(asked, "carol")[0], "Decline"))
    assert private_text(no, "dave") == (
        "Sharks declined your request to join it, so you are not on a team in this game; you "
        "may ask Sharks again in 10 minutes."
    )
    clock.now = start + 200
    refused = await say(authority, "dave", "join sharks")
    assert private_text(refused, "dave") == (
        "Sharks declined your request to join it; you can ask them again in 9 minutes."
    )
    assert sent_to_others(refused, "dave") == {} and (await record(store)).requests == []
    # Another team may be asked meanwhile.
    other = await say(authority, "dave", "join Alice")
    assert "I asked Alice to let you in" in private_text(other, "dave")
    await say(authority, "dave", "leave")
    # Ten minutes after the decline (not after the request), the Sharks may be asked again.
    clock.now = start + 90 + REQUEST_WINDOW_S - 1
    assert "in 1 minute" in private_text(await say(authority, "dave", "join Sharks"), "dave")
    clock.now = start + 90 + REQUEST_WINDOW_S
    again = await say(authority, "dave", "join Sharks")
    assert "I asked Sharks to let you in" in private_text(again, "dave")


async def test_a_request_open_before_requests_were_counted_is_remembered_when_declined(
    authority: Authority, store: GameStore
) -> None:
    await two_teams(authority)
    asked = await say(authority, "dave", "join Sharks")
    # The game as a bot that did not keep what was asked saved it: no `asked` in the record.
    _, loaded = await store.load(KEY)
    assert loaded is not None
    data = json.loads(loaded.data)
    del data["asked"]
    saved = await store.save(
        KEY, json.dumps(data), expected=loaded.version, version=loaded.version + 1, ttl_s=3600
    )
    assert saved and (await record(store)).asked == []
    await press(authority, "carol", button(notes(asked, "carol")[0], "Decline"))
    refused = await say(authority, "dave", "join Sharks")
    assert "Sharks declined your request to join it; you can ask them again in 10 minutes." in (
        private_text(refused, "dave")
    )


# --- a player who left -------------------------------------------------------------------------


async def test_a_player_who_left_joins_no_other_team_but_may_ask_their_own(
    authority: Authority, store: GameStore
) -> None:
    await two_teams(authority)
    await say(authority, "bob", "leave")
    hop = await say(authority, "bob", "join Sharks")
    assert (
        "You left Alice during this game, so you can't join another team in it; "
        "`/relay join Alice` asks them to take you back." in private_text(hop, "bob")
    )
    assert not hop.public and (await record(store)).requests == []
    # Back to the old team: the same yes as anyone.
    back = await say(authority, "bob", "join Alice")
    assert "I asked Alice to let you in" in private_text(back, "bob")
    yes = await say(authority, "alice", "admit Bob")
    assert "Bob joined Alice; Alice let them in." in yes.log

    # Carol leaves the Sharks, which a bot plays now: she may take it back at once, and
    # join no other team, bot or not.
    await say(authority, "carol", "leave")
    other = await say(authority, "carol", "join Alice")
    assert "You left Sharks during this game" in private_text(other, "carol")
    mine = await say(authority, "carol", "join Sharks")
    assert "Carol joined Sharks, taking over from the bot." in mine.log
    assert roster(await record(store)) == {"Alice": ["alice", "bob"], "Sharks": ["carol"]}


async def test_a_removed_player_joins_no_other_team_either(
    authority: Authority, store: GameStore
) -> None:
    await two_teams(authority)
    await say(authority, "alice", "remove bob")
    hop = await say(authority, "bob", "join Sharks")
    assert "You left Alice during this game" in private_text(hop, "bob")
    assert (await record(store)).seat_of("bob") is None


# --- teams that are out, and the people of an acquired team ------------------------------------


async def biggie(
    authority: Authority, store: GameStore, options: str = "", bot: bool = False
) -> str:
    """Sharks (alice, bob; alice hosts), Owls (carol, or a bot named Ada) and Whales (dave), and
    a moment arranged so that the Whales are on turn and the Owls, next, complete an
    acquisition of the Sharks when their turn begins. Returns the Owls' name."""
    await say(authority, "alice", f"start turn_seconds=0 block_seconds=0 {options}", "biggiebills")
    await say(authority, "alice", "join Sharks", "biggiebills")
    await say(authority, "bob", "join Sharks", "biggiebills")
    if bot:
        await say(authority, "dave", "join Whales", "biggiebills")
        await say(authority, "alice", "addbot", "biggiebills")
    else:
        await say(authority, "carol", "join Owls", "biggiebills")
        await say(authority, "dave", "join Whales", "biggiebills")
    await say(authority, "alice", "begin", "biggiebills")
    rec = await record(store)
    names = [seat.name for seat in rec.seats]
    sharks, whales = names.index("Sharks"), names.index("Whales")
    owls = 3 - sharks - whales

    def arrange(state: BiggieBillsState) -> None:
        state.order = [whales, owls, sharks]
        state.turn_index, state.decision, state.cycle = 0, OpenDecision(name="turn"), 1
        state.plays_left, state.flex_left, state.acted = 1, 0, False
        state.pending, state.returns, state.deadline = None, [], None
        state.turn_cash = list(state.cash)
        state.active = [
            Active(id=state.next_active, card=ACQUIRE, owner=owls, cost=150, target=sharks)
        ]
        state.next_active += 1
        state.version += 1
        state.decision_version = state.version

    await rig(store, arrange)
    return names[owls]


async def rig(store: GameStore, change: Callable[[BiggieBillsState], None]) -> None:
    """Save a later moment of the channel's game of BiggieBills$$$."""
    _, loaded = await store.load(KEY)
    assert loaded is not None
    rec = GameRecord.model_validate_json(loaded.data)
    assert rec.state_json is not None
    state = BiggieBillsState.model_validate_json(rec.state_json)
    change(state)
    rec.state_json = state.model_dump_json()
    saved = await store.save(
        KEY, rec.model_dump_json(), expected=loaded.version, version=loaded.version + 1, ttl_s=3600
    )
    assert saved


async def test_an_acquired_teams_people_play_on_for_the_acquirer(
    authority: Authority, store: GameStore
) -> None:
    await biggie(authority, store)
    asked = await say(authority, "erin", "join Sharks", "biggiebills")
    assert "I asked Sharks" in private_text(asked, "erin")

    done = await say(authority, "dave", "skip", "biggiebills")  # the Owls' turn: they acquire
    assert "Owls acquires Sharks" in public_text(done)
    log = done.log
    acquired = next(i for i, line in enumerate(log) if "Owls acquires Sharks" in line)
    assert "The people of Sharks (Alice and Bob) now play for Owls." in log[acquired + 1 :]
    rec = await record(store)
    assert roster(rec) == {"Sharks": [], "Owls": ["carol", "alice", "bob"], "Whales": ["dave"]}
    # Both are told privately, on the Owls' panel, which now asks them to return cards.
    for user in ("alice", "bob"):
        panel = done.panels[user]
        assert panel.title == "BiggieBills$$$: Owls"
        assert panel.text.startswith("Owls took over Sharks: Sharks is out of the game")
        assert panel.selects, panel  # the returns after the acquisition, for any member
    assert "took over Sharks: Sharks is out" not in public_text(done)
    assert done.panels["alice"].text.split("\n", 1)[1] == done.panels["carol"].text
    # Erin's request to the Sharks is closed, and she is told so privately.
    assert "Sharks is out of the game, so your request to join it is closed." in private_text(
        done, "erin"
    )
    assert rec.requests == []

    # The Sharks take nobody and are not listed among the teams playing.
    refused = await say(authority, "erin", "join Sharks", "biggiebills")
    text = private_text(refused, "erin")
    assert "Sharks is out of the game, so nobody can join it" in text
    assert "the teams playing are Owls, Whales." in text
    moved = await say(authority, "alice", "move dave to Sharks", "biggiebills")
    assert "Sharks is out of the game" in private_text(moved, "alice")
    status = await say(authority, "erin", "status", "biggiebills")
    assert "Teams playing: Owls (Carol, Alice, Bob); Whales (Dave)." in private_text(status, "erin")
    help_text = private_text(await say(authority, "erin", "help", "biggiebills"), "erin")
    assert "Teams playing now: Owls (Carol, Alice, Bob); Whales (Dave)" in help_text
    assert await authority.seat_names("console", CHANNEL) == ["Owls", "Whales"]
    assert roster(await record(store))["Whales"] == ["dave"]


async def test_with_acquired_watch_the_people_of_an_acquired_team_only_watch(
    authority: Authority, store: GameStore
) -> None:
    await biggie(authority, store, "acquired=watch")
    done = await say(authority, "dave", "skip", "biggiebills")
    assert "Owls acquires Sharks" in public_text(done)
    assert "now play for" not in public_text(done)
    rec = await record(store)
    assert roster(rec) == {"Sharks": ["alice", "bob"], "Owls": ["carol"], "Whales": ["dave"]}
    hop = await say(authority, "bob", "join Owls", "biggiebills")
    assert "Sharks is out of the game, so you watch the rest of it" in private_text(hop, "bob")
    # Leaving a team that is out hands it to nobody.
    gone = await say(authority, "bob", "leave", "biggiebills")
    assert "Bob left Sharks." in gone.log and "a bot plays" not in public_text(gone)


async def test_a_full_acquirer_takes_whom_it_has_room_for(
    authority: Authority, store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(vars(BIGGIE), "max_team_size", 2)  # the frozen game, for this test
    await biggie(authority, store)
    done = await say(authority, "dave", "skip", "biggiebills")
    assert "The people of Sharks (Alice) now play for Owls." in done.log
    assert roster(await record(store))["Owls"] == ["carol", "alice"]
    assert done.panels["bob"].text.startswith("Owls took over Sharks, but Owls is full")


async def test_humans_take_over_a_bot_acquirer(authority: Authority, store: GameStore) -> None:
    owls = await biggie(authority, store, bot=True)
    done = await say(authority, "dave", "skip", "biggiebills")
    assert (
        f"The people of Sharks (Alice and Bob) now play for {owls}, taking over from the bot."
        in done.log
    )
    rec = await record(store)
    assert roster(rec)[owls] == ["alice", "bob"] and roster(rec)["Sharks"] == []
    assert done.panels["alice"].title == f"BiggieBills$$$: {owls}"


def test_the_games_say_which_seats_are_out_and_whom_they_absorb() -> None:
    names = ["Sharks", "Owls", "Whales"]
    state = BIGGIE.new_game(names, BiggieBillsOptions(), random.Random(1))
    assert isinstance(state, BiggieBillsState)
    assert not any(BIGGIE.seat_out(state, seat) for seat in state.seats)
    state.alive[0], state.out[0], state.eliminated = False, "acquired by Owls", [0]
    state.acquired_by = {0: 1}
    state.alive[2], state.out[2], state.eliminated = False, "bankrupt", [0, 2]
    assert [BIGGIE.seat_out(state, seat) for seat in state.seats] == [True, False, True]
    assert BIGGIE.absorbed(state) == {0: 1}  # the bankrupt Whales are absorbed by nobody
    state.options = BiggieBillsOptions(acquired="watch")
    assert BIGGIE.absorbed(state) == {}
    assert GAME.seat_out(GAME.new_game(names, RelayOptions(), random.Random(1)), 0) is False

    go = BUSINESSGO.new_game(["Ann", "Ben"], BusinessGoOptions(), random.Random(1))
    assert isinstance(go, BusinessGoState)
    go.bankrupt[1] = True
    assert [BUSINESSGO.seat_out(go, seat) for seat in go.seats] == [False, True]
    assert BUSINESSGO.absorbed(go) == {}


async def test_the_hand_copy_of_an_answered_request_loses_its_buttons_when_pressed(
    authority: Authority, store: GameStore
) -> None:
    """`hand` shows an open request again with Accept and Decline; once it is answered, a press
    of that copy is answered in its place, which takes its buttons with it."""
    await two_teams(authority)
    await say(authority, "dave", "join Sharks")
    hand = await say(authority, "carol", "hand")
    copy = next(m for m in notes(hand, "carol") if "Dave asks to join Sharks." in m.text)
    await say(authority, "carol", "admit Dave")
    late = await press(authority, "carol", button(copy, "Accept"))
    (answer,) = [d for d in late.deliveries if d.user == "carol"]
    assert answer.in_place and not answer.message.all_buttons()
    assert answer.message.text == (
        "That request is no longer open: it has been answered, withdrawn or replaced by a "
        "newer one."
    )
