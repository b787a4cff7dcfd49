"""The two newest games through the real discord.py client and the fake Discord, unchanged adapter.

BiggieBills$$$ seats teams: two users share the Sharks' hand and either of them acts for it.
Busine$$ GO keeps one live board and every choice private. Nothing here knows a Discord detail
the adapter does not already use: users type slash commands and press what they were shown.
Both games play in a thread started from their card: the story is told there, in log posts and
on the board ("Latest"), each player's choices on their own DM panel, edited in place.
"""

from __future__ import annotations

import random
from typing import Any

from bot.commands import codec
from bot.commands.authority import STALE, Authority
from bot.commands.record import GameRecord
from bot.settings import Settings
from bot.table import MOVE_AT
from core.games.biggiebills.cards import card_name
from core.games.biggiebills.state import BiggieBillsState
from core.games.biggiebills.ui import render_private
from testkit.clock import VirtualClock
from testkit.discord.fake import FakeDiscord, FakeMessage, FakeUser
from testkit.discord.sim import Table, running_bot
from testkit.waiting import until
from tests.adapters.biggiebills_support import Cards, late_game, names_card, state_of
from tests.adapters.discord.conftest import (
    CHANNEL,
    USERS,
    assert_only_notices,
    board_moves,
    boards,
    dm_posts,
    lines,
    live_boards,
    posted,
    save_state,
    thread_of,
    titled,
)
from tests.records import deciding, plain_state

BIGGIE = "biggiebills"
BIGGIE_FAST = "turn_seconds=0 block_seconds=0"
GO = "businessgo"
GO_FAST = "short turn_seconds=0 compete_seconds=0 auction_seconds=0 auto_moves=no always_compete=no"
ALICE, BOB, CAROL = USERS[:3]


# --- what users were shown ---------------------------------------------------------------------


def _press(custom_id: str) -> codec.Press:
    press = codec.decode(custom_id)
    assert press is not None, custom_id
    return press


def _actions(message: FakeMessage) -> list[dict[str, Any]]:
    """The game's action buttons and menus of ``message`` (not lobby command buttons)."""
    return [c for c in message.components if str(c.get("custom_id", "")).startswith("br1|a|")] + [
        c for c in message.components if str(c.get("custom_id", "")).startswith("br1|s|")
    ]


def _seat_of(component: dict[str, Any]) -> int | None:
    return _press(component["custom_id"]).seat


def _team_panels(fake: FakeDiscord, user: FakeUser, seat: int) -> list[FakeMessage]:
    """``user``'s private messages (ephemeral or DM) with choices for ``seat``, oldest first."""
    return [
        m
        for m in fake.private(user)
        if m.audience != "channel" and any(_seat_of(c) == seat for c in _actions(m))
    ]


def _places(fake: FakeDiscord) -> list[int]:
    """The channel and the threads started in it."""
    return [CHANNEL, *(t.id for t in fake.threads.values() if t.parent_id == CHANNEL)]


def _public(fake: FakeDiscord) -> list[FakeMessage]:
    """Every message now in the channel and its threads."""
    return [m for place in _places(fake) for m in fake.public(place)]


def _marks(fake: FakeDiscord) -> dict[int, int]:
    """Each public message's edits now, to tell later what was posted or edited since."""
    return {m.id: m.edits for m in _public(fake)}


def _told_since(fake: FakeDiscord, marks: dict[int, int]) -> list[str]:
    """The lines of every public message posted or edited since ``marks`` (a log post, the
    board with its "Latest" lines)."""
    return lines([m for m in _public(fake) if marks.get(m.id) != m.edits])


def _turn_seat(state: BiggieBillsState) -> int | None:
    return state.turn_seat if state.deciding == "turn" else None


class _Seen:
    """Checks each message a user or the channel was shown once (again when edited)."""

    def __init__(self, cards: Cards) -> None:
        self.cards = cards
        self._shown: dict[int, int] = {}

    def channel(self, fake: FakeDiscord, state: BiggieBillsState) -> int:
        """No message of the channel or its threads posted or edited since the last check names
        a hidden card."""
        return self._check(_public(fake), self.cards.hidden(state))

    def private(
        self, fake: FakeDiscord, user: FakeUser, state: BiggieBillsState, own: int, other: int
    ) -> int:
        """``user`` (of seat ``own``) was shown none of seat ``other``'s secret cards."""
        return self._check(fake.private(user), self.cards.only(state, other, own))

    def _check(self, messages: list[FakeMessage], hidden: set[str]) -> int:
        checked = 0
        for message in messages:
            if self._shown.get(message.id) == message.edits:
                continue
            self._shown[message.id] = message.edits
            leaked = [name for name in hidden if names_card(message.text, name)]
            assert not leaked, (leaked, message.text)
            checked += 1
        return checked


async def _biggie_lobby(table: Table) -> None:
    await table.slash(ALICE, "start", {"options": BIGGIE_FAST})
    await table.slash(ALICE, "join", {"team": "Sharks"})
    await table.slash(BOB, "join", {"team": "sharks"})  # a team name is found whatever its case
    await table.slash(CAROL, "join", {"team": "Owls"})
    await table.slash(ALICE, "addbot", {"n_level": "2"})
    await table.slash(ALICE, "begin")


async def _act_from_hand(table: Table, user: FakeUser) -> None:
    """``user`` asks for the hand and presses a choice that moves the game on."""
    answer = await table.slash(user, "hand")
    panel = next(m for m in answer.messages if _actions(m))
    buttons = [c for c in _actions(panel) if c["type"] == 2]
    labels = [str(c["label"]) for c in buttons]
    # Skip, accept or end the turn: each always moves on, so the Sharks get their turn soon.
    chosen = next(
        (
            c
            for wanted in ("Skip", "Accept", "End turn", "Return", "Play")
            for c in buttons
            if str(c["label"]).startswith(wanted)
        ),
        None,
    )
    assert chosen is not None, labels
    before = await table.record()
    await table.click(user, panel, chosen["custom_id"])
    assert await table.record() != before, f"{user.name}'s {chosen['label']} changed nothing"


# --- BiggieBills$$$ ----------------------------------------------------------------------------


async def test_a_team_of_two_shares_one_hand_and_acts_once(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, [ALICE, BOB, CAROL], random.Random(1), BIGGIE)
        await _biggie_lobby(table)
        record = await table.record()
        assert record is not None and record.status == "playing"
        state = state_of(record)
        sharks, owls = state.names.index("Sharks"), state.names.index("Owls")
        assert [m.name for m in record.seats[sharks].members] == ["alice", "bob"]
        assert [m.name for m in record.seats[owls].members] == ["carol"]
        assert sum(s.is_bot for s in record.seats) == 2
        cards = Cards()
        seen = _Seen(cards)
        assert seen.channel(fake, state) > 0

        # At the deal both Sharks see the team's hand privately; nobody else ever does.
        hand = cards.hand(state, sharks)
        assert hand, "the Sharks hold no card that is still secret"
        for member in (ALICE, BOB):
            dealt = [m for m in fake.private(member) if m.text.startswith("BiggieBills$$$: Sharks")]
            assert dealt, f"{member.name} never saw the team's hand"
            assert all(name in dealt[0].text for name in hand), (hand, dealt[0].text)

        # The Owls (carol) and the bots play until it is the Sharks' turn.
        for _ in range(12):
            state = state_of(await table.record())
            if _turn_seat(state) == sharks:
                break
            assert _turn_seat(state) == owls or state.deciding != "turn", state.deciding
            await _act_from_hand(table, CAROL)
            now = state_of(await table.record())
            seen.channel(fake, now)
            seen.private(fake, CAROL, now, owls, sharks)
        assert _turn_seat(state) == sharks, "the Sharks never got their turn"

        # Both members hold the team's current panel, every choice rendered.
        expected = render_private(state, sharks)
        wanted = sum(b.action is not None for b in expected.all_buttons()) + len(expected.selects)
        panels = {}
        for member in (ALICE, BOB):
            mine = _team_panels(fake, member, sharks)
            assert mine, f"{member.name} got no panel for the Sharks' turn"
            panel = mine[-1]
            versions = {_press(c["custom_id"]).version for c in _actions(panel)}
            assert versions == {state.version}, (versions, state.version)
            assert len(_actions(panel)) == wanted, (member.name, panel.text)
            panels[member.name] = panel

        # Carol presses a Sharks button (as if she had it): refused privately, nothing changes.
        bob_panel = panels["bob"]
        plays = [c for c in _actions(bob_panel) if str(c.get("label", "")).startswith("Play ")]
        choice = plays[0] if plays else _actions(bob_panel)[0]
        wrong = await table.click(CAROL, bob_panel, choice["custom_id"])
        assert wrong.messages and all(m.audience == "ephemeral" for m in wrong.messages)
        assert "belongs to the team Sharks" in wrong.messages[0].text
        assert state_of(await table.record()).version == state.version

        # Bob plays for the team: announced in the game's thread, and Alice is told on her
        # own DM panel, edited in place (no new DM).
        alice_panel = panels["alice"]
        alice_shown = alice_panel.snapshot()  # the version on Alice's screen until she looks
        assert alice_panel.audience == "dm" and panels["bob"].audience == "dm"
        marks = _marks(fake)
        alice_dms, alice_edits = len(dm_posts(fake, ALICE)), alice_panel.edits
        await table.click(BOB, bob_panel, choice["custom_id"])
        after = state_of(await table.record())
        assert after.version > state.version
        action = _press(choice["custom_id"])
        assert action.action is not None
        told = _told_since(fake, marks)
        if action.action["type"] == "play":
            played = card_name(str(action.action["card"]))
            assert any(f"Sharks plays {played}" in line for line in told), told
        else:
            assert any("Sharks" in line for line in told), told
        assert len(dm_posts(fake, ALICE)) == alice_dms and alice_panel.edits > alice_edits
        shown = alice_panel.data["embeds"][0]["description"]  # under the panel's title
        assert shown.startswith(f"bob played for your team: {choice['label']}"), shown[:200]
        assert not [m for m in fake.private(BOB) if "played for your team" in m.text]

        # Alice presses the same choice on the version her screen still shows: stale, and
        # nothing changes, in public or in her panel.
        same = next(
            c
            for c in _actions(FakeMessage(0, 0, "dm", None, alice_shown))
            if _press(c["custom_id"]).action == action.action
        )
        marks, alice_edits = _marks(fake), alice_panel.edits
        stale = await table.settle(
            await fake.click(ALICE, alice_panel, same["custom_id"], shown=alice_shown)
        )
        assert not stale.messages or all(m.audience == "ephemeral" for m in stale.messages)
        assert state_of(await table.record()) == after
        # The pressed panel is brought up to date by the answer itself (it shows the current
        # choices), so it cannot be pressed stale again, and says why at its head (one message,
        # not the panel and a followup); nothing else changes.
        assert alice_panel.edits == alice_edits + 1 and alice_panel.data != alice_shown
        assert alice_panel.text.split("\n")[1].startswith(STALE), alice_panel.text[:120]
        assert _marks(fake) == marks  # (public messages: her panel is a DM)

        # No hand card was named in the channel; Carol never saw the Sharks' cards.
        seen.channel(fake, after)
        assert seen.private(fake, CAROL, after, owls, sharks) > 0
        for message in fake.private(CAROL):
            assert not message.text.startswith("BiggieBills$$$: Sharks"), message.text
            assert not [c for c in _actions(message) if _seat_of(c) == sharks]

        # Everyone leaves: the bots play every team to the end.
        carol_saw = len(fake.private(CAROL))
        await table.slash(ALICE, "leave")
        marks = _marks(fake)
        await table.slash(BOB, "leave")
        told = _told_since(fake, marks)
        assert any("a bot plays Sharks now" in line for line in told), told
        left = await table.slash(CAROL, "leave")
        record = await table.record()
        assert record is not None and record.status == "finished"
        final = state_of(record)
        seen.channel(fake, final)
        thread = await thread_of(authority.store)

    # The channel holds the card (the final standings) and the result, nothing else.
    card, result = posted(fake, CHANNEL)
    assert fake.public(CHANNEL) == [card, result]
    assert titled(card, "BiggieBills$$$: final standings"), card.text[:80]
    assert final.outcome is not None
    assert result.text == f"Game over: {final.outcome.summary}"
    assert all(name in card.text for name in final.names)
    # One live board in the thread, edited in place (to the final outcome, last), posted anew
    # only to move it to the bottom: as a turn notice or once it had scrolled up, the old one
    # deleted each time.
    every = boards(fake, thread, "BiggieBills$$$")
    assert live_boards(fake, thread, "BiggieBills$$$") == every[-1:]
    assert all(m.deleted for m in every[:-1])
    moves = board_moves(fake, thread, "BiggieBills$$$")
    assert len(moves) == len(every) - 1
    assert all(below >= MOVE_AT or notice for below, notice in moves), moves
    assert every[-1].edits >= 1 and final.outcome.summary in every[-1].text
    # Once she left, Carol was sent nothing private: no team's hand follows her out (her old
    # panel only says, at the end, that the game is over).
    since = fake.private(CAROL)[carol_saw:]  # only the answer to her own /leave
    assert all(m in left.messages and not _actions(m) for m in since), [m.text for m in since]
    for message in fake.private(CAROL):
        assert not _actions(message) or message.audience == "ephemeral", message.text[:200]
    assert_only_notices(fake)


def _user_of(record: GameRecord, seat: int) -> FakeUser:
    member = record.seats[seat].members[0].user
    return next(u for u in USERS if str(u.id) == member)


def _vote_prompt(fake: FakeDiscord, thread: int) -> FakeMessage:
    (prompt,) = [m for m in fake.public(thread) if "A new target of $2B?" in m.text]
    return prompt


async def test_a_new_target_is_proposed_by_form_and_voted_on_the_thread_prompt(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, [ALICE, BOB, CAROL], random.Random(3), BIGGIE)
        await table.slash(ALICE, "start", {"options": BIGGIE_FAST})
        for user, team in ((ALICE, "Sharks"), (BOB, "Owls"), (CAROL, "Eagles")):
            await table.slash(user, "join", {"team": team})
        await table.slash(ALICE, "begin")
        record = await table.record()
        assert record is not None
        state = state_of(record)
        turn = _turn_seat(state)
        assert turn is not None
        proposer = _user_of(record, turn)
        voting = [s for s in state.seats if s != turn]
        voters = [_user_of(record, s) for s in voting]

        # The team on turn opens the form from its panel and types the amount.
        panel = next(m for m in reversed(fake.private(proposer)) if m.audience == "dm")
        button = next(c for c in panel.components if c.get("label") == "Propose a new target…")
        opened = await table.click(proposer, panel, button["custom_id"])
        assert opened.callback is not None and opened.callback["type"] == 9  # a modal
        assert opened.modal is not None and fake.refused == []
        field = opened.modal["components"][0]["components"][0]
        await table.settle(await fake.submit(proposer, opened, {field["custom_id"]: "2000"}))
        state = state_of(await table.record())
        assert state.vote is not None and state.vote.target == 2000

        # The vote is the thread's prompt, for everyone; no panel asks it.
        thread = await thread_of(authority.store)
        prompt = _vote_prompt(fake, thread)
        agree = next(c for c in prompt.components if c.get("label") == "Agree to the $2B target")
        assert "Waiting for" in prompt.text and _press(agree["custom_id"]).seat is None
        for user in USERS[:3]:
            for message in fake.private(user):
                assert "Agree to the" not in message.text, message.text
        pointer = "agree or refuse on the vote in the game's thread"

        def dm_panel(user: FakeUser) -> FakeMessage:
            return next(m for m in reversed(fake.private(user)) if m.audience == "dm")

        assert all(pointer in dm_panel(voter).text for voter in voters)
        assert all(len(dm_posts(fake, voter)) == 1 for voter in voters)  # edited in place
        answered = await table.click(voters[0], prompt, agree["custom_id"])
        # The pressed prompt is updated: by the callback (7), or, when the channel's table was
        # busy, a deferred update (6) at once and the prompt edited through the interaction.
        assert answered.callback is not None and answered.callback["type"] in (6, 7)
        agreed = f"Agreed: {state.names[turn]} and {state.names[voting[0]]}."
        assert agreed in _vote_prompt(fake, thread).text
        assert pointer not in dm_panel(voters[0]).text  # answered: the line goes

        # The turn goes on; the vote's button still stands and the last team settles it.
        await _act_from_hand(table, proposer)
        moved_on = state_of(await table.record())
        assert moved_on.decision_version > state.decision_version
        last = await table.click(voters[1], _vote_prompt(fake, thread), agree["custom_id"])
        assert not [m for m in last.messages if STALE in m.text]
        settled = state_of(await table.record())
        assert settled.target == 2000 and settled.vote is None
        closed = _vote_prompt(fake, thread)
        assert not _actions(closed) and "The vote is over." in closed.text
        assert any(
            "Every team agrees: the target is now $2B" in line
            for line in lines(fake.public(thread))
        )
    assert_only_notices(fake)


async def test_late_game_choices_with_long_names_reach_every_member(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    """Stage 3-4 plays and challenges make the longest button ids (a DM's also name the
    channel): every member must still get every choice, in the channel and in a DM."""
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, [ALICE, BOB, CAROL], random.Random(2), BIGGIE)
        await _biggie_lobby(table)
        record = await table.record()
        assert record is not None
        state = state_of(record)
        sharks, owls = state.names.index("Sharks"), state.names.index("Owls")
        late_game(state, sharks, owls)
        await save_state(table, record, state)

        expected = render_private(state, sharks)
        wanted = sum(b.action is not None for b in expected.all_buttons()) + len(expected.selects)
        labels = [b.label for b in expected.all_buttons() if b.action is not None]
        assert any(label.startswith("Challenge Owls' International Expansion") for label in labels)
        assert any(label.startswith("Play Strategic Partnership") for label in labels)

        in_channel = await table.slash(ALICE, "hand")
        bob_dm = 900_000_000_000_000_002
        await table.settle(await fake.slash(BOB, bob_dm, "hand", "", dm=True))
        # In the channel the hand is a private answer; in a DM, the panel there moved down.
        in_dm = [m for m in dm_posts(fake, BOB) if not m.deleted]
        shown = {}
        for who, messages in (("alice", in_channel.messages), ("bob", in_dm)):
            panel = next(m for m in messages if _actions(m))
            got = [str(c.get("label") or c.get("placeholder")) for c in _actions(panel)]
            assert len(got) == wanted, (who, sorted(set(labels) - set(got)))
            shown[who] = panel

        # Bob challenges from his DM: it acts on the channel's game.
        panel = shown["bob"]
        challenge = next(
            c for c in _actions(panel) if str(c.get("label", "")).startswith("Challenge Owls")
        )
        assert f"|{CHANNEL}|" in challenge["custom_id"] or "|~" in challenge["custom_id"]
        marks = _marks(fake)
        await table.click(BOB, panel, challenge["custom_id"])
        after = state_of(await table.record())
        thread = await thread_of(authority.store)
    assert after.challenges_played[sharks] == 1
    told = _told_since(fake, marks)
    assert any("Sharks challenges Owls' International Expansion (#36)" in t for t in told), told
    assert not [m for m in fake.public(CHANNEL) if "challenges" in m.text]  # in the thread
    assert fake.public(thread)


async def test_joining_a_running_team_asks_its_members_in_a_dm(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    """Dave asks to join the Sharks during play: only the Sharks (Alice, who also hosts) are
    asked, in a DM with Accept and Decline; Dave sees nothing of the hand until Alice accepts,
    and then gets the team's panel in his own DM."""
    dave = USERS[3]
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, [ALICE, CAROL, dave], random.Random(3), BIGGIE)
        await table.slash(ALICE, "start", {"options": BIGGIE_FAST})
        await table.slash(ALICE, "join", {"team": "Sharks"})
        await table.slash(CAROL, "join", {"team": "Owls"})
        await table.slash(ALICE, "addbot", {"n_level": "1"})
        await table.slash(ALICE, "begin")
        state = state_of(await table.record())
        sharks = state.names.index("Sharks")
        hand = Cards().hand(state, sharks)
        carol_saw = len(fake.private(CAROL))

        asked = await table.slash(dave, "join", {"team": "Sharks"})
        assert [m.audience for m in asked.messages] == ["ephemeral"]
        assert "I asked Sharks to let you in" in asked.messages[0].text
        record = await table.record()
        assert record is not None and record.seat_of(str(dave.id)) is None
        notes = [m for m in fake.private(ALICE) if "dave asks to join Sharks" in m.text]
        assert len(notes) == 1 and notes[0].audience == "dm"
        labels = [str(c.get("label")) for c in notes[0].components]
        assert labels == ["Accept dave", "Decline"]
        assert len(fake.private(CAROL)) == carol_saw  # the Owls are not asked
        for message in fake.private(dave):  # nothing of the Sharks' hand yet
            assert not [name for name in hand if names_card(message.text, name)], message.text

        accept = notes[0].components[0]["custom_id"]
        marks = _marks(fake)
        pressed = await table.click(ALICE, notes[0], accept)
        record = await table.record()
        assert record is not None and record.seat_of(str(dave.id)) == sharks
        # The answer replaces the request in Alice's DM: its buttons cannot be pressed again.
        assert pressed.callback is not None and pressed.callback["type"] == 7
        assert notes[0].components == [] and "dave plays for Sharks now." in notes[0].text
        told = _told_since(fake, marks)
        assert any("dave joined Sharks; alice let them in." in line for line in told), told
        panels = [m for m in fake.private(dave) if m.audience == "dm"]
        assert panels and panels[-1].text.startswith("BiggieBills$$$: Sharks")
        assert "alice let you into Sharks" in panels[-1].text
        assert all(name in panels[-1].text for name in hand)
        seen = _Seen(Cards())
        seen.channel(fake, state_of(record))  # the hand was never shown in public
    assert_only_notices(fake)


# --- Busine$$ GO -------------------------------------------------------------------------------


async def _go_state(table: Table) -> dict[str, Any]:
    record = await table.record()
    assert record is not None and record.state is not None
    return plain_state(record)


def _go_boards(fake: FakeDiscord) -> list[FakeMessage]:
    """The live Busine$$ GO boards of the channel and its threads."""
    return [m for m in _public(fake) if titled(m, "Busine$$ GO")]


def _live_board(fake: FakeDiscord) -> FakeMessage:
    """The one live Busine$$ GO board, whose buttons are the open decision's choices."""
    live = _go_boards(fake)
    assert len(live) == 1, f"{len(live)} live boards"
    return live[0]


def _button(message: FakeMessage, label: str) -> dict[str, Any]:
    found = [c for c in _actions(message) if str(c.get("label", "")).startswith(label)]
    assert found, (label, [c.get("label") for c in _actions(message)])
    return found[0]


async def _go_table(table: Table, options: str) -> None:
    """Alice, Bob, Carol and a bot (seat 3) at a table of Busine$$ GO that has begun."""
    await table.slash(ALICE, "start", {"options": options})
    for user in table.users[1:]:
        await table.slash(user, "join")
    await table.slash(ALICE, "addbot")
    await table.slash(ALICE, "begin")
    record = await table.record()
    assert record is not None and record.state is not None
    assert plain_state(record)["names"][:3] == ["alice", "bob", "carol"] and record.seats[3].is_bot


async def _until_a_person_may_compete(table: Table) -> dict[str, Any]:
    """Everyone presses on until a sale opens a competition that a person may join; its sale."""
    for _ in range(600):
        record = await table.record()
        state = plain_state(record) if record is not None else None
        assert state is not None and state["outcome"] is None
        sale = state["sales"][0] if state["sales"] else None
        if deciding(state) == "compete" and sale and [s for s in sale["eligible"] if s < 3]:
            return dict(sale)
        assert await table.step()
    raise AssertionError("no sales competition was open to a person")


async def test_busine_go_roll_competition_and_bots_finish(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    users = [ALICE, BOB, CAROL]
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, users, random.Random(4), GO)
        await _go_table(table, GO_FAST)

        # Whoever is on turn rolls with the button on the board, which the press updates.
        for _ in range(20):
            state = await _go_state(table)
            if state["turn"] < 3 and deciding(state) == "turn":
                break
            assert await table.step()
        seat = state["turn"]
        roller, other = users[seat], users[(seat + 1) % 3]
        board = _live_board(fake)
        roll = _button(board, "Roll the dice")
        assert {_seat_of(c) for c in _actions(board)} == {seat}  # the roller's alone
        # Someone else's press is refused, to them alone, and changes nothing.
        before = await table.record()
        refused = await table.click(other, board, roll["custom_id"])
        assert refused.messages and refused.messages[0].audience == "ephemeral"
        assert refused.messages[0].text == (
            f"That is {roller.name}'s move: only they can press those buttons."
        )
        assert await table.record() == before
        marks = _marks(fake)
        rolled = await table.click(roller, board, roll["custom_id"])
        assert rolled.callback is not None
        told = _told_since(fake, marks)
        assert any(f"{roller.name} rolls " in line for line in told), told
        # Still one live board: updated by the press itself (UPDATE_MESSAGE), or, as the
        # turn passes with its notice, posted anew at the bottom (the old one deleted).
        now = _live_board(fake)
        if rolled.callback["type"] == 7:
            assert now.id == board.id and now.edits > marks[board.id]
        else:
            assert rolled.callback["type"] == 6 and board.deleted and now.id != board.id
        dice = (await _go_state(table))["dice"]
        assert f"Last roll: {dice[0]}+{dice[1]}." in now.text

        # Everyone plays on until a bot's or a player's sale opens a competition that a person
        # may join: the board's Join and Stay out are for each of them to answer for themselves.
        sale = await _until_a_person_may_compete(table)
        window = [s for s in sale["eligible"] if s < 3 and s not in sale["joined"]]
        offer = _live_board(fake)
        join = _button(offer, "Join the competition")
        _button(offer, "Stay out")
        assert _seat_of(join) is None
        seller = sale["seller"]
        if seller < 3:
            asked = await table.click(users[seller], offer, join["custom_id"])
            assert asked.messages and asked.messages[0].audience == "ephemeral"
            assert "not deciding on this sales competition" in asked.messages[0].text
        joiner = users[window[0]]
        marks = _marks(fake)
        await table.click(joiner, offer, join["custom_id"])
        joined = _told_since(fake, marks)
        assert any(f"{joiner.name} joins the sales competition" in t for t in joined), joined

        # The people leave; the bots play every seat to the end.
        for user in users:
            await table.slash(user, "leave")
        record = await table.record()
        thread = await thread_of(authority.store)
    assert record is not None and record.status == "finished"
    outcome = plain_state(record)["outcome"]
    card, result = posted(fake, CHANNEL)
    assert fake.public(CHANNEL) == [card, result]
    assert result.text == f"Game over: {outcome['summary']}"
    # Every interaction was answered in time, even `begin`, whose deal waits for the limit.
    late = [(i.id, i.kind) for i in fake.interactions.values() if i.late or not i.resolved]
    assert late == [], late
    live = _go_boards(fake)
    assert len(live) == 1 and live[0].channel_id == thread and outcome["summary"] in live[0].text
    # Every choice was on the board: nobody got a direct message.
    assert all(len(dm_posts(fake, user)) == 0 for user in users)
    assert_only_notices(fake)


async def test_busine_go_competition_window_closes_on_its_deadline(
    fake: FakeDiscord, authority: Authority, settings: Settings, clock: VirtualClock
) -> None:
    """A one-second Join window: nobody answers, the deadline runner closes it (you snooze,
    you lose) and the Join button pressed afterwards is stale."""
    users = [ALICE, BOB, CAROL]
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, users, random.Random(4), GO)
        await _go_table(table, GO_FAST.replace("compete_seconds=0", "compete_seconds=1"))
        sale = await _until_a_person_may_compete(table)
        late = [s for s in sale["eligible"] if s < 3 and s not in sale["joined"]]
        offer = _live_board(fake)
        # The board as the players' screens show it now: pressed late, once it closed.
        screen = offer.snapshot()
        _button(offer, "Join the competition")

        def closed() -> list[str]:
            # A line of the story: on the board ("Latest") or in a log post of the thread.
            return [line for line in lines(_public(fake)) if line.startswith("Too late to join")]

        await clock.sleep(1.0)  # the window's second passes (on the clock deadlines keep)
        # The deadline runner polls every 0.05 s and posts what it did (until its delivery is
        # over: a board moving down is posted anew before the old one is deleted, so for a
        # moment there are two).
        await until(
            lambda: bool(closed()) and len(_go_boards(fake)) == 1,
            "the runner closed the competition window and one board is live",
            every_s=0.05,
        )
        missed = ", ".join(users[s].name for s in late)
        assert closed() and closed()[0].startswith(f"Too late to join: {missed}"), closed()
        record = await table.record()
        assert record is not None and record.state is not None
        stored = plain_state(record)
        assert stored["decision"]["name"] != "compete" and not [
            s for s in stored["sales"] if s == sale
        ], "the competition is still open"
        seat = late[0]
        join = _button(FakeMessage(0, 0, "dm", None, screen), "Join the competition")
        now = _live_board(fake)
        assert not [c for c in _actions(now) if c["custom_id"] == join["custom_id"]]
        # The screen's board is still there (edited since), or it moved down: then the Join
        # button seen before is pressed on the new board by a client that had not refreshed.
        pressed_on = offer if not offer.deleted else now
        pressed = await table.settle(
            await fake.click(users[seat], pressed_on, join["custom_id"], shown=screen)
        )
        assert pressed.messages and pressed.messages[0].audience == "ephemeral"
        assert pressed.messages[0].text.startswith(STALE)
        assert (await table.record()) == record
