"""Secrets stay private; wrong, repeated and stale clicks; restarts; closed DMs."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from bot.commands.authority import Authority, Request
from bot.commands.outbox import Outbox
from bot.commands.record import GameRecord
from bot.settings import Settings
from core.games.bigidea.cards import card
from testkit.discord.fake import FakeDiscord, FakeMessage, FakeUser, Interaction
from testkit.discord.sim import Table, running_bot
from testkit.waiting import attempts, until
from tests.adapters.discord.conftest import (
    CHANNEL,
    USERS,
    assert_only_notices,
    dm_posts,
    posted,
    public_texts,
    thread_of,
)
from tests.records import deciding

FAST = "pick_seconds=0 vote_seconds=0 turn_seconds=0"


def _hidden_cards(state: dict[str, Any]) -> set[str]:
    hidden: set[str] = set()
    for hand in state["hands"]:
        hidden.update(hand)
    for pick in state["picks"]:
        hidden.update(pick or [])
    shown = {c for p in state["products"] for c in p["cards"]}
    return {card(c).text for c in hidden - shown}


async def test_no_hand_card_in_any_channel_message(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    """No hand card in any public message: the channel, the game's thread, every version of
    every message (a post, each edit, each update of a pressed public message)."""
    async with running_bot(fake, authority, settings, pace_window_s=0) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(5))
        await table.open(FAST)
        checked = since = 0
        for _ in attempts("the game ended", 10_000):  # steps (presses, and rounds of "hand")
            record = await table.record()
            assert record is not None
            if record.status == "finished" or record.state is None:
                break
            hidden = _hidden_cards(record.state)
            # Only what is new since the last press: an old post may show a product whose cards
            # were later discarded, reshuffled and dealt again (that is the rules revealing them).
            for text in public_texts(fake, since):
                leaked = [card_text for card_text in hidden if card_text in text]
                assert not leaked, (leaked, text)
                checked += 1
            since = len(fake.calls)
            assert await table.step() or table.presses > 0
            if table.presses > 2_000:
                break
        thread = await thread_of(authority.store)
    assert checked > 100
    # The check saw the game where it was played: the thread, not only the channel.
    assert len(posted(fake, thread)) > 5 and len(posted(fake, CHANNEL)) == 2


def _newest_private_with_choices(fake: FakeDiscord, table: Table, user_index: int) -> FakeMessage:
    user = USERS[user_index]
    panels = [m for m in table.panels(user) if m.audience != "channel"]
    assert panels, f"{user.name} has no private panel"
    return panels[-1]


def _game_button(message: FakeMessage) -> str:
    return str(
        next(c["custom_id"] for c in message.components if c["custom_id"].startswith("br1|"))
    )


async def test_wrong_user_double_click_and_stale_button(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(7))
        await table.open(FAST)
        panel = _newest_private_with_choices(fake, table, 1)
        assert panel.audience == "dm"
        # Bob's screen keeps this version of his DM panel: a double click sends it twice, and
        # an old copy pressed later is the stale one (the bot edits the panel in place).
        screen = panel.snapshot()
        custom_id = _game_button(panel)
        values = _values(panel, custom_id)
        before = await table.record()

        # Alice clicks Bob's private button (as if she had it): refused privately.
        wrong = await _press(table, USERS[0], panel, custom_id, values, screen)
        assert wrong.messages and all(m.audience == "ephemeral" for m in wrong.messages)
        assert "belongs to" in wrong.messages[0].text
        assert await table.record() == before and panel.edits == 0

        # Bob clicks: his panel is updated by the press (UPDATE_MESSAGE) with his pick.
        first = await _press(table, USERS[1], panel, custom_id, values, screen)
        after_first = await table.record()
        assert after_first != before
        assert first.callback is not None and first.callback["type"] == 7 and panel.edits == 1
        # The second click of the double click, from the version still on his screen: answered
        # privately, in the pressed panel itself (the refusal at its head: no message beside
        # it), and nothing else changes (once the board shows the picture it held back).
        await client.adapter.table.caught_up()
        activity, edits = dict(fake.activity), panel.edits
        again = await _press(table, USERS[1], panel, custom_id, values, screen)
        assert not again.messages or all(m.audience == "ephemeral" for m in again.messages)
        assert "already picked those cards" in panel.text.split("\n")[1]
        assert fake.activity == activity and panel.edits == edits + 1
        assert await table.record() == after_first

        # Everyone else picks; the seed phase is over and Bob's old menu is stale.
        for _ in attempts("the pick phase ended", 1_000):
            if _phase(await table.record()) != "pick":
                break
            assert await table.step()
        moved_on = await table.record()
        await client.adapter.table.caught_up()
        activity = dict(fake.activity)
        stale = await _press(table, USERS[1], panel, custom_id, values, screen)
        # His panel is brought up to date by the press, and says why at its head: one
        # message rather than the panel and a followup beside it.
        assert stale.callback is not None and stale.callback["type"] in (6, 7)
        head = panel.text.split("\n")[1]  # under its title
        assert head.startswith("That button is from an earlier moment"), panel.text[:80]
        assert not stale.messages or all(m.audience == "ephemeral" for m in stale.messages)
        assert await table.record() == moved_on and fake.activity == activity


async def _press(
    table: Table,
    user: FakeUser,
    panel: FakeMessage,
    custom_id: str,
    values: list[str] | None,
    screen: dict[str, Any],
) -> Interaction:
    """``user`` presses ``custom_id`` on ``panel`` as their screen shows it (``screen``)."""
    return await table.settle(await table.fake.click(user, panel, custom_id, values, shown=screen))


def _phase(record: GameRecord | None) -> str:
    assert record is not None and record.state is not None
    return str(deciding(record.state))


def _values(message: FakeMessage, custom_id: str) -> list[str] | None:
    component = next(c for c in message.components if c["custom_id"] == custom_id)
    if component["type"] != 3:
        return None
    options = [o["value"] for o in component["options"]]
    return options[: component.get("min_values", 1)]


async def test_old_buttons_work_after_a_restart(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    async with running_bot(fake, authority, settings, pace_window_s=0) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(9))
        await table.open(FAST)
        for _ in range(5):
            await table.step()
        before = await table.record()
    # A new process: a new client (and authority) on the same Redis and the same messages.
    fresh = Authority(authority.store, settings, clock=authority.clock)
    async with running_bot(fake, fresh, settings, pace_window_s=0) as client:
        table.reconnect(client)
        record = await table.play()
    assert before is not None and before.status == "playing"
    assert record is not None and record.status == "finished"


async def test_a_user_with_closed_dms_still_plays(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    carol = USERS[2]
    fake.closed_dms.add(carol.id)
    async with running_bot(fake, authority, settings, pace_window_s=0) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(13))
        await table.open(FAST)
        record = await table.play()
        thread = await thread_of(authority.store)
    assert record is not None and record.status == "finished"
    assert not [m for m in fake.private(carol) if m.audience == "dm"] and not dm_posts(fake, carol)
    # Everyone else has their one DM panel.
    assert all(len(dm_posts(fake, user)) == 1 for user in USERS if user != carol)
    # The note, with a button to show the hand, in the game's place (the thread), once.
    shown = [*posted(fake, CHANNEL), *posted(fake, thread)]
    notes = [m for m in shown if f"<@{carol.id}>" in str(m.created.get("content")) and _hand(m)]
    assert len(notes) == 1, "the table hears once per game that carol's DMs are closed"
    assert notes[0].channel_id == thread and not notes[0].deleted
    told = [m for m in fake.private(carol) if "DMs are closed" in m.text]
    assert len(told) == 1, "carol is told once per game how to open her DMs"
    # She played from her panel shown privately where she asked for it.
    panels = [m for m in fake.private(carol) if m.audience == "ephemeral" and m.components]
    assert panels, "carol never saw her panel"
    # The note shows carol's name but pings nobody; the turn notices ping only their user.
    assert not [n for n in fake.notifications if n.message_id == notes[0].id]
    assert_only_notices(fake)


def _hand(message: FakeMessage) -> bool:
    return any(str(c.get("custom_id", "")).endswith("|hand") for c in message.components)


class _GatedAuthority(Authority):
    """The real authority, each command held until the test opens the gate."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gate = asyncio.Event()

    async def command(self, req: Request, game_name: str, text: str) -> Outbox:
        await self.gate.wait()
        return await super().command(req, game_name, text)


async def _deferred(
    fake: FakeDiscord, slow: _GatedAuthority, done: asyncio.Task[Any], before: int
) -> Any:
    """The interaction of ``done`` (the first after ``before`` others) once the bot deferred
    it; only then may the work finish."""

    def deferred() -> bool:
        assert not done.done(), "the work finished before the bot deferred its interaction"
        return len(fake.interactions) > before and (
            list(fake.interactions.values())[-1].callback is not None
        )

    await until(deferred, "the bot deferred the interaction", every_s=0.005)
    interaction = list(fake.interactions.values())[-1]
    assert interaction.callback is not None and interaction.callback["type"] == 5  # "thinking"
    slow.gate.set()
    return interaction


async def test_slow_work_is_deferred_then_answered(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    slow = _GatedAuthority(authority.store, settings, clock=authority.clock)
    async with running_bot(fake, slow, settings) as client:
        client.adapter.desk.ack_budget = 0.05
        table = Table(fake, client, CHANNEL, USERS, random.Random(29))
        before = len(fake.interactions)
        task = asyncio.create_task(table.slash(USERS[0], "status"))
        interaction = await _deferred(fake, slow, task, before)
        await task
    assert interaction.resolved
    assert "No game here" in interaction.messages[-1].text  # then the answer


async def test_a_slow_public_only_answer_still_resolves_the_thinking_message(
    fake: FakeDiscord, authority: Authority, settings: Settings
) -> None:
    slow = _GatedAuthority(authority.store, settings, clock=authority.clock)
    slow.gate.set()
    async with running_bot(fake, slow, settings) as client:
        table = Table(fake, client, CHANNEL, USERS, random.Random(29))
        await table.slash(USERS[0], "start")
        slow.gate.clear()
        client.adapter.desk.ack_budget = 0.05
        # Joining answers only in public (the lobby card): nothing private for the joiner.
        before = len(fake.interactions)
        task = asyncio.create_task(table.slash(USERS[1], "join"))
        interaction = await _deferred(fake, slow, task, before)
        await task
    assert interaction.resolved, "the deferred 'thinking…' reply was left unresolved"
    assert any("Done" in m.text for m in interaction.messages)
    assert any("joined" in m.text for m in fake.public(CHANNEL))
