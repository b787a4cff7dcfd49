"""Team seats in the authority, against a real redis-server: several people share one seat.

The game is Relay (tests/team_game.py), the smallest team game, so these tests are about the
authority alone: joining, creating and leaving teams, the host's rename/move/remove, any member
acting for the team with the first action counting, and the team's private messages reaching
every member and nobody else.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import replace

import pytest

from bot.commands import codec
from bot.commands.authority import STALE, Authority, Request
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord, SeatInfo
from bot.commands.seats import teams
from bot.settings import Settings
from core import registry, text, ui
from storage import GameKey, GameStore
from tests.authority_support import Clock, public_text, roster, stored_record
from tests.team_game import GAME, RelayState


@pytest.fixture
def store(redis_store: GameStore) -> GameStore:
    """These tests run on a real redis-server only."""
    return redis_store


CHANNEL = "team-table"
KEY = GameKey("console", CHANNEL)
NAME = GAME.name


@pytest.fixture(autouse=True)
def relay_registered() -> Iterator[None]:
    with registry.registered(GAME):
        yield


@pytest.fixture
def authority(store: GameStore) -> Authority:
    seeds = random.Random(3)
    # Turn notices as the turn starts (the default waits for the player first: test_authority).
    settings = Settings.model_validate({"BOARDROOM_NUDGE_SECONDS": 0})
    return Authority(store, settings, clock=Clock(), new_seed=lambda: seeds.getrandbits(63))


def req(user: str) -> Request:
    return Request(platform="console", channel=CHANNEL, user=user, name=user.title())


async def say(authority: Authority, user: str, text: str) -> Outbox:
    return await authority.command(req(user), NAME, text)


def private(out: Outbox, user: str) -> list[ui.Message]:
    """Everything only ``user`` sees: private replies and notes, then their panel."""
    messages = [d.message for d in out.deliveries if d.user == user]
    return messages + ([out.panels[user]] if user in out.panels else [])


def private_text(out: Outbox, user: str) -> str:
    return "\n".join(m.text for m in private(out, user))


async def record(store: GameStore) -> GameRecord:
    return await stored_record(store, KEY)


def buttons_of(message: ui.Message) -> list[ui.Button]:
    return [button for row in message.buttons for button in row]


# --- the lobby ---------------------------------------------------------------------------------


async def test_join_creates_or_joins_teams_by_name(authority: Authority, store: GameStore) -> None:
    await say(authority, "alice", "start")
    created = await say(authority, "bob", "join Sharks")
    assert "Bob joined as Sharks." in public_text(created)
    joined = await say(authority, "carol", "join   sharks ")
    assert "Carol joined Sharks." in public_text(joined)
    assert "Sharks (Bob, Carol)" in public_text(joined)
    await say(authority, "dave", "join")
    assert roster(await record(store)) == {
        "Alice": ["alice"],
        "Sharks": ["bob", "carol"],
        "Dave": ["dave"],
    }
    # The lobby card offers a button per team, which joins it by name.
    assert joined.card is not None and "Sharks (Bob, Carol)" in joined.card.text
    labels = [b.label for b in buttons_of(joined.card)]
    assert "Join Sharks" in labels and "Start a team" in labels


async def test_switching_team_in_the_lobby_drops_an_emptied_team(
    authority: Authority, store: GameStore
) -> None:
    await say(authority, "alice", "start")
    await say(authority, "bob", "join Sharks")
    again = await say(authority, "bob", "join Sharks")
    assert "You're already at the table with Sharks." in private_text(again, "bob")
    await say(authority, "bob", "join Alice")
    assert roster(await record(store)) == {"Alice": ["alice", "bob"]}


async def test_own_team_names_do_not_collide(authority: Authority, store: GameStore) -> None:
    await say(authority, "alice", "start")
    await say(authority, "bob", "join Carol")
    await say(authority, "carol", "join")
    assert list(roster(await record(store))) == ["Alice", "Carol", "Carol 2"]


async def test_team_names_are_checked(authority: Authority, store: GameStore) -> None:
    await say(authority, "alice", "start")
    long = await say(authority, "bob", "join " + "x" * 30)
    assert "at most 24 characters" in private_text(long, "bob")
    assert not long.public
    assert roster(await record(store)) == {"Alice": ["alice"]}


async def test_a_team_name_is_never_a_mention_or_markup(
    authority: Authority, store: GameStore
) -> None:
    await say(authority, "alice", "start")
    for name in ("<@&123456789012345678>", "@everyone", "**BUY**", "a|b", "`x`", "__x__"):
        out = await say(authority, "bob", f"join {name}")
        assert "can't hold a mention or formatting" in private_text(out, "bob"), name
        assert not out.public
    assert roster(await record(store)) == {"Alice": ["alice"]}


async def test_a_team_name_with_underscores_reads_the_same_on_its_button(
    authority: Authority, store: GameStore
) -> None:
    await say(authority, "alice", "start")
    out = await say(authority, "bob", "join red_team")
    (seat,) = [s for s in (await record(store)).seats if s.name != "Alice"]
    assert text.plain(seat.name) == "red_team"
    # The lobby's "Join red_team" button joins that same team again (no second team).
    assert out.card is not None
    join = next(b for b in buttons_of(out.card) if b.command and "red" in b.command)
    assert join.command is not None
    await say(authority, "carol", join.command)
    assert roster(await record(store))[seat.name] == ["bob", "carol"]


async def test_look_alike_team_names_are_the_same_team(
    authority: Authority, store: GameStore
) -> None:
    await say(authority, "alice", "start")
    await say(authority, "bob", "join Sharks")
    # Fullwidth letters, a zero-width space, a right-to-left override, a byte order mark and
    # a word joiner: each is the Sharks, not a second team beside them.
    for user, typed in [
        ("carol", "ＳＨＡＲＫＳ"),
        ("dave", "Sha\u200brks"),
        ("erin", "\u202eSharks\u202c"),
        ("frank", "\ufeffsha\u2060rks\u200f"),
    ]:
        joined = await say(authority, user, f"join {typed}")
        assert f"{user.title()} joined Sharks." in public_text(joined), typed
    assert roster(await record(store)) == {
        "Alice": ["alice"],
        "Sharks": ["bob", "carol", "dave", "erin", "frank"],
    }
    # A new team's name is kept as it reads: NFKC, its invisible characters gone.
    created = await say(authority, "gina", "join \u200dＯｗｌｓ\u202e")
    assert "Gina joined as Owls." in public_text(created)
    # Nothing but invisible characters is no name.
    blank = await say(authority, "hal", "join \u200b\u2066\u3164")
    assert private_text(blank, "hal") == "A team needs a name (of letters or digits you can see)."
    # NFKC can make markup of a fullwidth character: it is refused as markup.
    starred = await say(authority, "hal", "join ＊ＢＵＹ＊")
    assert "can't hold a mention or formatting" in private_text(starred, "hal")
    # Renaming to a look-alike of another team is a clash.
    clash = await say(authority, "alice", "rename Owls to ｓｈａ\u200bｒｋｓ")
    assert private_text(clash, "alice") == "There is already a team called Sharks."
    assert list(roster(await record(store))) == ["Alice", "Sharks", "Owls"]


async def test_a_word_mixing_look_alike_alphabets_is_refused_as_a_team_name(
    authority: Authority, store: GameStore
) -> None:
    await say(authority, "alice", "start")
    await say(authority, "bob", "join Sharks")
    cyrillic_a = await say(authority, "carol", "join Sh\u0430rks")  # Cyrillic а
    assert private_text(cyrillic_a, "carol") == (
        "Sh\u0430rks mixes Latin and Cyrillic letters in one word, so it could pass for another "
        "team's name; write each word in one alphabet."
    )
    greek = await say(authority, "carol", "join \u03a9mega")  # Greek Ω
    assert "mixes Latin and Greek letters in one word" in private_text(greek, "carol")
    assert not cyrillic_a.public and not greek.public
    # One alphabet per word is any name at all.
    for name in ("Команда", "Team Ω", "Équipe Rouge", "東京チーム", "فريق"):
        out = await say(authority, "carol", f"join {name}")
        assert f"Carol joined as {name}." in public_text(out), name
        await say(authority, "carol", "leave")
    # A team named after a player drops what a typed name may not hold, look-alikes too.
    sly = Request(platform="console", channel=CHANNEL, user="sly", name="Sha\u200brks")
    await authority.command(sly, NAME, "join")
    mixed = Request(platform="console", channel=CHANNEL, user="max", name="Sh\u0430rks")
    await authority.command(mixed, NAME, "join")
    assert list(roster(await record(store))) == ["Alice", "Sharks", "Sharks 2", "Team"]


async def test_players_are_found_by_name_whatever_its_width_or_invisible_marks(
    authority: Authority, store: GameStore
) -> None:
    await say(authority, "alice", "start")
    await say(authority, "carol", "join Sharks")
    moved = await say(authority, "alice", "move Ｃａｒｏｌ to Alice")
    assert "Alice moved Carol to Alice." in public_text(moved)
    removed = await say(authority, "alice", "remove car\u200bol")
    assert "Alice took Carol off Alice." in public_text(removed)
    nobody = await say(authority, "alice", "remove \u202eZed")
    assert private_text(nobody, "alice") == "Nobody called Zed is on a team here."


async def test_host_renames_moves_and_removes(authority: Authority, store: GameStore) -> None:
    await say(authority, "alice", "start")
    await say(authority, "bob", "join Sharks")
    await say(authority, "carol", "join Sharks")

    not_host = await say(authority, "bob", "rename Sharks to Whales")
    assert "Only the host (Alice) can rename teams." in private_text(not_host, "bob")
    clash = await say(authority, "alice", "rename Sharks to alice")
    assert "There is already a team called Alice." in private_text(clash, "alice")
    missing = await say(authority, "alice", "rename Tigers to Lions")
    assert "There is no team called Tigers" in private_text(missing, "alice")
    garbled = await say(authority, "alice", "rename Sharks")
    assert "rename A to B" in private_text(garbled, "alice")
    renamed = await say(authority, "alice", "rename sharks to Whales")
    assert "Alice renamed Sharks to Whales." in public_text(renamed)

    moved = await say(authority, "alice", "move <@carol|Carol> to Alice")
    assert "Alice moved Carol to Alice." in public_text(moved)
    created = await say(authority, "alice", "move bob to Orcas")
    assert roster(await record(store)) == {"Alice": ["alice", "carol"], "Orcas": ["bob"]}
    assert "Alice moved Bob to Orcas." in public_text(created)

    nobody = await say(authority, "alice", "remove Zed")
    assert "Nobody called Zed is on a team here." in private_text(nobody, "alice")
    self_remove = await say(authority, "alice", "remove alice")
    assert "use `/relay leave`" in private_text(self_remove, "alice")
    removed = await say(authority, "alice", "remove Carol")
    assert "Alice took Carol off Alice." in public_text(removed)
    assert roster(await record(store)) == {"Alice": ["alice"], "Orcas": ["bob"]}


async def test_team_words_are_only_for_team_games(authority: Authority) -> None:
    await authority.command(req("alice"), "bigidea", "start")
    out = await authority.command(req("alice"), "bigidea", "rename A to B")
    assert "I don't know “rename” in /bigidea" in private_text(out, "alice")


async def test_host_leaving_hands_the_lobby_on(authority: Authority, store: GameStore) -> None:
    await say(authority, "alice", "start")
    await say(authority, "bob", "join Sharks")
    out = await say(authority, "alice", "leave")
    assert "Alice left Alice; Bob is the host now." in public_text(out)
    rec = await record(store)
    assert rec.host == "bob" and roster(rec) == {"Sharks": ["bob"]}


async def test_game_decides_the_team_sizes_it_accepts(
    authority: Authority, store: GameStore
) -> None:
    await say(authority, "alice", "start min_team_size=2")
    await say(authority, "bob", "join Alice")
    await say(authority, "carol", "join Sharks")
    await say(authority, "alice", "addbot")
    refused = await say(authority, "alice", "begin")
    assert "Every team needs at least 2 people." in private_text(refused, "alice")
    assert (await record(store)).status == "lobby"
    await say(authority, "dave", "join Sharks")
    began = await say(authority, "alice", "begin")
    assert began.public and (await record(store)).status == "playing"


# --- playing as a team -------------------------------------------------------------------------


async def two_teams(authority: Authority) -> Outbox:
    """Team Alice (alice, bob) against Sharks (carol); Alice's team moves first."""
    await say(authority, "alice", "start")
    await say(authority, "bob", "join Alice")
    await say(authority, "carol", "join Sharks")
    return await say(authority, "alice", "begin")


def first_button(out: Outbox, user: str) -> ui.Button:
    for message in private(out, user):
        if message.buttons:
            return buttons_of(message)[0]
    raise AssertionError(f"{user} got no buttons: {private_text(out, user)}")


async def test_every_member_gets_the_team_panel_and_any_may_act(
    authority: Authority, store: GameStore
) -> None:
    began = await two_teams(authority)
    alice_button = first_button(began, "alice")
    bob_button = first_button(began, "bob")
    assert alice_button.seat == bob_button.seat == 0
    # At the deal the Sharks see their own secret too, without buttons: it isn't their turn.
    sharks = private(began, "carol")
    assert len(sharks) == 1 and sharks[0].text.startswith("Secret") and not sharks[0].buttons
    assert sorted(began.panels) == ["alice", "bob", "carol"] and not began.deliveries
    assert began.notify == ["bob"]  # alice began it; carol's team does not move yet

    played = await authority.press(req("bob"), codec.encode_button(NAME, bob_button))
    assert "Alice adds 1: 1." in public_text(played)
    state = RelayState.model_validate_json((await record(store)).state_json or "")
    secret = f"Your secret is now {state.secrets[0]}."
    # Both members hear the team's secret; only the teammate is told who played.
    assert secret in private_text(played, "bob") and secret in private_text(played, "alice")
    assert "Bob played for your team: add 1." in private_text(played, "alice")
    assert "played for your team" not in private_text(played, "bob")
    assert secret not in public_text(played) and secret not in private_text(played, "carol")
    assert first_button(played, "carol").seat == 1
    assert played.notify == ["carol"]  # the Sharks' turn now
    # The team that just moved has no choices left on its panels: only Bob's offers to take
    # his move back.
    assert not played.panels["alice"].buttons
    assert [b.command for row in played.panels["bob"].buttons for b in row] == ["undo"]

    # The first action counted: Alice's copy of the same button is now stale.
    late = await authority.press(req("alice"), codec.encode_button(NAME, alice_button))
    assert STALE in private_text(late, "alice") and not late.public
    assert RelayState.model_validate_json((await record(store)).state_json or "").total == 1


async def test_non_member_cannot_act_for_a_team(authority: Authority, store: GameStore) -> None:
    began = await two_teams(authority)
    before = (await record(store)).state_json
    out = await authority.press(req("carol"), codec.encode_button(NAME, first_button(began, "bob")))
    assert "That button belongs to the team Alice; only its members" in private_text(out, "carol")
    assert not out.public and (await record(store)).state_json == before


async def test_joining_and_leaving_teams_during_play(
    authority: Authority, store: GameStore
) -> None:
    await two_teams(authority)
    new_team = await say(authority, "dave", "join Orcas")
    assert "no new team can be formed" in private_text(new_team, "dave")
    assert "Alice, Sharks" in private_text(new_team, "dave")
    asked = await say(authority, "dave", "join Sharks")
    assert "I asked Sharks to let you in" in private_text(asked, "dave")
    assert "dave" not in asked.panels and not asked.public  # nothing of the hand yet
    joined = await say(authority, "carol", "admit Dave")  # a Sharks member says yes
    assert "Dave joined Sharks; Carol let them in." in joined.log
    assert "Secret" in joined.panels["dave"].text  # the team's panel, privately
    assert "Secret" not in public_text(joined) and joined.card is None  # the card stays
    switch = await say(authority, "dave", "join Alice")
    assert "the host moves players between teams" in private_text(switch, "dave")

    stays = await say(authority, "carol", "leave")
    assert "Carol left Sharks; Sharks plays on." in public_text(stays)
    # The leaver is told where their seat went and what is left to them, and their panel
    # says they left, without buttons, instead of going on offering the team's hand.
    assert private_text(stays, "carol").startswith(
        "You left Sharks, which plays on without you (`/relay join Sharks` asks them to take "
        "you back). You can follow the game in its thread"
    )
    assert stays.closed_panels["carol"].text == "You left this game of Relay."
    again = await say(authority, "carol", "hand")
    assert private_text(again, "carol").startswith("You left this game, so you no longer play")
    gone = await say(authority, "dave", "leave")
    assert "Dave left Sharks; a bot plays Sharks now." in public_text(gone)
    assert private_text(gone, "dave").startswith(
        "You left the game of Relay; a bot plays Sharks until it ends."
    )
    rec = await record(store)
    assert rec.seats[1].is_bot and roster(rec)["Alice"] == ["alice", "bob"]


async def test_host_moves_a_player_during_play(authority: Authority, store: GameStore) -> None:
    await two_teams(authority)
    missing = await say(authority, "alice", "move bob to Orcas")
    assert "There is no team called Orcas in this game" in private_text(missing, "alice")
    moved = await say(authority, "alice", "move carol to Alice")
    assert "Alice moved Carol to Alice; a bot plays Sharks now." in moved.log
    assert "Secret" in moved.panels["carol"].text
    rec = await record(store)
    assert roster(rec) == {"Alice": ["alice", "bob", "carol"], "Sharks": []}
    assert rec.status == "playing"


async def test_a_bot_team_plays_to_the_end_after_everyone_leaves(
    authority: Authority, store: GameStore
) -> None:
    await two_teams(authority)
    await say(authority, "carol", "leave")
    await say(authority, "bob", "leave")
    out = await say(authority, "alice", "leave")
    assert "a bot plays Alice now" in public_text(out)
    assert (await record(store)).status == "finished"


# --- the record and the helpers ----------------------------------------------------------------


def test_records_saved_before_teams_still_load() -> None:
    human = SeatInfo.model_validate({"user": "U1", "name": "Ann"})
    bot = SeatInfo.model_validate({"user": None, "name": "Ada"})
    assert human.users == ["U1"] and human.members[0].name == "Ann" and not human.is_bot
    assert bot.is_bot and bot.users == []


def test_players_are_found_by_mention_id_or_name() -> None:
    rec = GameRecord(
        game=NAME,
        host="U1",
        host_name="Ann",
        seed=1,
        created_at=0,
        updated_at=0,
        seats=[SeatInfo.player("U1", "Ann"), SeatInfo.player("U2", "Ben"), SeatInfo(name="Ada")],
    )
    assert teams.find_player(rec, "<@U2|ben>")[0] == 1
    assert teams.find_player(rec, "<@!U1>")[0] == 0
    assert teams.find_player(rec, "ben")[0] == 1
    assert teams.find_player(rec, "@Ben")[0] == 1
    assert teams.find_player(rec, "U2")[0] == 1
    with pytest.raises(teams.TeamError, match="Nobody called Ada"):
        teams.find_player(rec, "Ada")
    rec.seats[0].members.append(rec.seats[1].members[0].model_copy(update={"user": "U3"}))
    with pytest.raises(teams.TeamError, match="Several players are called ben"):
        teams.find_player(rec, "ben")


# --- the story in the log ---------------------------------------------------------------------


async def test_own_move_then_the_bot_moves_it_set_off_are_lines_of_the_log(
    authority: Authority,
) -> None:
    await say(authority, "alice", "start")
    await say(authority, "alice", "addbot 2")
    began = await say(authority, "alice", "begin")
    played = await authority.press(
        req("alice"), codec.encode_button(NAME, first_button(began, "alice"))
    )
    assert played.log == ["Alice adds 1: 1.", "Ada adds 2: 3.", "Grace adds 2: 5."]
    assert not played.posts  # moves are the story; only players' own words are posts
    assert played.board is not None and played.card is None
    again = await authority.press(
        req("alice"), codec.encode_button(NAME, first_button(played, "alice"))
    )
    assert again.log == ["Alice adds 1: 6.", "Ada adds 2: 8.", "Grace adds 2: 10."]
    assert again.ended and again.result is not None and again.card is not None


@pytest.mark.parametrize(
    ("game", "opening"),
    [
        ("businessgo", r"Opening roll: .* starts\."),
        ("biggiebills", r"Business Cycle 1 begins\. Order: .* No Industry Rules card .*"),
    ],
)
async def test_the_channel_hears_how_a_game_opens(
    authority: Authority, game: str, opening: str
) -> None:
    await authority.command(req("alice"), game, "start turn_seconds=0")
    await authority.command(req("alice"), game, "addbot 2")
    began = await authority.command(req("alice"), game, "begin")
    assert began.log[0] == "Alice began the game. Good luck!"
    assert re.fullmatch(opening, began.log[1]), began.log
    assert began.begun and began.card is not None and began.card.title
    assert began.card.title.endswith(": playing") and began.board is not None


async def test_a_full_team_takes_nobody_else(
    authority: Authority, store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(vars(GAME), "max_team_size", 2)  # the frozen game, for this test
    await say(authority, "alice", "start")
    await say(authority, "bob", "join Alice")
    full = await say(authority, "carol", "join alice")
    assert "Alice is full: a team of Relay has at most 2 people." in private_text(full, "carol")
    await say(authority, "carol", "join Sharks")
    moved = await say(authority, "alice", "move carol to Alice")
    assert "Alice is full" in private_text(moved, "alice")
    assert roster(await record(store)) == {"Alice": ["alice", "bob"], "Sharks": ["carol"]}


async def test_a_private_line_the_panel_repeats_is_said_once(authority: Authority) -> None:
    # Playing a Growth card draws a new one: BiggieBills tells the team its new hand, and the
    # panel for the rest of the turn shows the same hand.
    await authority.command(req("alice"), "biggiebills", "start turn_seconds=0")
    await authority.command(req("alice"), "biggiebills", "addbot 2")
    out = await authority.command(req("alice"), "biggiebills", "begin")
    for _ in range(10):
        play = next(
            (b for m in private(out, "alice") for b in buttons_of(m) if b.label.startswith("Play")),
            None,
        )
        if play is not None:
            break
        out = await authority.command(req("alice"), "biggiebills", "skip")
    assert play is not None, "alice never had a Growth card to play"
    played = await authority.press(req("alice"), codec.encode_button("biggiebills", play))
    (answer,) = private(played, "alice")
    assert answer.text.count("Your team's hand") == 1 and answer.buttons


_NAMED_BIGIDEA = replace(GAME, name="bigidea")
_RELAY_TWO = replace(GAME, name="relay-two")


def test_a_test_game_is_registered_for_a_with_block_only_and_never_over_another() -> None:
    assert registry.get_game(NAME) is GAME  # registered by the fixture
    taken = pytest.raises(ValueError, match="'relay' is registered already")
    with taken, registry.registered(replace(GAME)):
        pass
    assert registry.get_game(NAME) is GAME  # the refusal left the registration alone
    taken = pytest.raises(ValueError, match="'bigidea' is registered already")
    with taken, registry.registered(_NAMED_BIGIDEA):
        pass
    assert registry.get_game("bigidea") is not _NAMED_BIGIDEA
    other = _RELAY_TWO
    with registry.registered(other) as added:
        assert added is other and registry.get_game("relay-two") is other
    assert registry.get_game("relay-two") is None
