"""Typed moves by form: a Pitch button opens a modal whose answer is the pitch."""

from __future__ import annotations

import random
from typing import Any

from bot.commands.authority import Authority
from bot.settings import Settings
from core.games.businessgo.actions import AuctionOff
from core.games.businessgo.state import BusinessGoState
from storage import GameStore
from testkit.discord.fake import FakeDiscord, FakeMessage, FakeUser, Interaction
from testkit.discord.sim import Table, running_bot
from tests.adapters.discord.conftest import (
    CHANNEL,
    USERS,
    assert_only_notices,
    lines,
    save_state,
    thread_of,
)
from tests.games import businessgo_support as go
from tests.records import plain_state

SLOW_VOTE = "pick_seconds=0 vote_seconds=600 turn_seconds=0"


def _pitch_button(fake: FakeDiscord, user: FakeUser) -> tuple[FakeMessage, dict[str, Any]] | None:
    for message in reversed(fake.private(user)):
        for component in message.components:
            if component.get("label") == "Pitch it…":
                return message, component
    return None


async def _open_pitch_form(
    table: Table, fake: FakeDiscord, users: list[FakeUser]
) -> tuple[FakeUser, Interaction]:
    """A Big Idea game played on until an owner is offered to pitch, who presses Pitch it…:
    the owner and the press (whose answer is the modal)."""
    await table.open(SLOW_VOTE)
    found = None
    for _ in range(200):
        found = next(((u, f) for u in users if (f := _pitch_button(fake, u))), None)
        if found is not None:
            break
        assert await table.step()
    assert found is not None, "no owner was ever offered to pitch"
    owner, (panel, button) = found
    return owner, await table.click(owner, panel, button["custom_id"])


async def test_the_pitch_button_opens_a_modal_and_its_answer_is_the_pitch(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    users = USERS[:3]
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, users, random.Random(21))
        owner, opened = await _open_pitch_form(table, fake, users)
        assert opened.callback is not None and opened.callback["type"] == 9  # a modal
        assert opened.modal is not None and fake.refused == []
        field = opened.modal["components"][0]["components"][0]
        assert field["max_length"] == 200 and field["style"] == 2  # a paragraph
        pitch = "It keeps <@1> cold and @everyone warm"
        await table.settle(await fake.submit(owner, opened, {field["custom_id"]: pitch}))
        record = await table.record()
        thread = await thread_of(authority.store)
    assert record is not None and record.state is not None
    pitched = [p["pitch"] for p in plain_state(record)["products"] if p["pitch"]]
    assert pitched == [pitch]
    # The pitch is a post of its own in the game's thread (not a line of the log), and the
    # mention and @everyone in it notify nobody.
    posts = [m for m in fake.public(thread) if "pitches the" in m.content]
    assert len(posts) == 1, [m.text[:300] for m in fake.public(thread)]
    assert "cold and @\u200beveryone warm" in posts[0].content, posts[0].content
    assert not [m for m in fake.public(CHANNEL) if "pitches the" in m.text]
    assert not [n for n in fake.notifications if n.message_id == posts[0].id]
    assert_only_notices(fake)


async def test_a_form_opened_before_a_restart_is_answered_after_it(
    fake: FakeDiscord, authority: Authority, settings: Settings, redis_url: str
) -> None:
    """The modal's custom id says what it answers, so a new process (nothing in memory) takes
    a pitch typed into a form the old process opened."""
    users = USERS[:3]
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, users, random.Random(21))
        owner, opened = await _open_pitch_form(table, fake, users)
        assert opened.modal is not None
        assert opened.modal["custom_id"].startswith("br1|f|bigidea|")
    fresh = Authority(GameStore.from_url(redis_url), settings, clock=authority.clock)
    try:
        async with running_bot(fake, fresh, settings) as client:
            table.reconnect(client)
            field = opened.modal["components"][0]["components"][0]
            submitted = await fake.submit(owner, opened, {field["custom_id"]: "Cold and warm"})
            await table.settle(submitted)
            record = await table.record()
    finally:
        await fresh.store.close()
    assert submitted.callback is not None and fake.refused == []
    assert record is not None and record.state is not None
    assert [p["pitch"] for p in plain_state(record)["products"] if p["pitch"]] == ["Cold and warm"]


# --- Busine$$ GO: a bet and a sealed bid, each an amount of one's own -------------------------


def _form_button(messages: list[FakeMessage], label: str) -> tuple[FakeMessage, dict[str, Any]]:
    for message in messages:
        for component in message.components:
            if component.get("label") == label:
                return message, component
    raise AssertionError(f"no {label!r} in {[m.text[:60] for m in messages]}")


async def _rigged(table: Table, state: BusinessGoState) -> None:
    """The channel's game goes on from ``state`` (the people's names on its seats), a later
    moment of it, and its board shows it (``status`` brings the board up to date)."""
    record = await table.record()
    assert record is not None and record.state_json is not None
    state = go.later_moment(state, [seat.name for seat in record.seats], record.state_json)
    await save_state(table, record, state)
    await table.slash(USERS[0], "status")


async def _answer_form(
    table: Table, fake: FakeDiscord, user: FakeUser, label: str, answer: str
) -> Interaction:
    """``user`` presses ``label`` on the board and types ``answer`` into the form."""
    thread = await thread_of(table.client.adapter.authority.store)
    panel, button = _form_button(list(reversed(fake.public(thread))), label)
    opened = await table.click(user, panel, button["custom_id"])
    assert opened.callback is not None and opened.callback["type"] == 9  # a modal
    assert opened.modal is not None and fake.refused == []
    field = opened.modal["components"][0]["components"][0]
    assert field["style"] == 1  # one line: an amount
    return await table.settle(await fake.submit(user, opened, {field["custom_id"]: answer}))


async def test_a_bet_and_a_sealed_bid_through_their_forms(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    alice, bob, carol = USERS[:3]
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, [alice, bob, carol], random.Random(2), "businessgo")
        await table.open("turn_seconds=0 compete_seconds=0 auction_seconds=600")
        thread = await thread_of(authority.store)

        # Alice lands on the Casino with $300,000 and bets an amount of her own.
        state, _ = go.land(go.with_cash(go.new_game(), ann=300_000), 0, "casino")
        await _rigged(table, state)
        bet = await _answer_form(table, fake, alice, "Bet an amount…", "120k")
        # The form was opened from the board: its answer is the board's, updated in place
        # (7) or, as the turn passes with its notice here, posted anew below (a quiet 6).
        assert bet.callback is not None and bet.callback["type"] in (6, 7)
        told = lines(fake.public(thread))
        assert any("alice bets $120,000" in line for line in told), told[-8:]

        # Alice, in debt, auctions Canada: Bob seals a bid of his own through the form.
        state = go.own(go.new_game(3), 0, "japan", "canada", international=["japan"])
        state.fees = ["salary"]
        state, _ = go.land(go.with_cash(state, ann=150_000), 0, "operating_fees")
        state, _ = go.act(state, 0, AuctionOff(asset="canada"))
        await _rigged(table, state)
        bid = await _answer_form(table, fake, bob, "Bid an amount…", "170k")
        # Bob alone is told his bid's amount.
        assert [m.text for m in bid.messages if "sealed bid" in m.text] == [
            "Your sealed bid: $170,000."
        ]
        record = await table.record()
        assert record is not None and record.state is not None
        assert plain_state(record)["auction"]["bids"] == {"1": 170_000}
        public = " ".join(m.text for m in fake.public(thread)) + fake.public(CHANNEL)[0].text
        assert "170,000" not in public and "170000" not in public  # sealed
    assert_only_notices(fake)


async def test_a_press_on_the_board_is_answered_by_updating_the_board(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    """Busine$$ GO's choices are the board's buttons: a press that keeps the turn (a set-up
    before the roll) is answered with UPDATE_MESSAGE of the board itself, one call in all
    (the board's new picture with it: none is held back for later here)."""
    alice, bob = USERS[:2]
    async with running_bot(fake, authority, settings, coalesce_s=0) as client:
        table = Table(fake, client, CHANNEL, [alice, bob], random.Random(2), "businessgo")
        await table.open("turn_seconds=0 compete_seconds=0 auction_seconds=0 auto_moves=no")
        thread = await thread_of(authority.store)
        await _rigged(table, go.own(go.new_game(2), 0, licence_only=["canada"]))
        (board,) = [m for m in fake.public(thread) if m.components][-1:]
        (button,) = [c for c in board.components if c.get("label", "").startswith("Set up in")]
        edits, calls = board.edits, len(fake.calls)
        pressed = await table.click(alice, board, button["custom_id"])
        assert pressed.callback is not None and pressed.callback["type"] == 7
        assert board.edits == edits + 1 and not board.deleted
        assert "Canada N" in board.text and "alice to play" in board.text
        assert len(fake.calls) - calls == 1  # the callback: nothing else was posted or edited
    assert_only_notices(fake)
