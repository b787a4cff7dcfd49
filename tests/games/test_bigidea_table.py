"""The Big Idea as a table of people sees it: rounds played through the console adapter, that is
the real authority, table layer and surfaces (card, board, story, prompt, panels), on a virtual
clock that moves only when a test says so."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from bot.adapters.console import Console, VirtualClock
from bot.commands.authority import Authority
from bot.commands.record import GameRecord
from bot.settings import Settings
from core.games.bigidea.cards import card
from core.games.bigidea.state import BigIdeaState
from storage import GameKey, GameStore

KEY = GameKey("console", "general")
START = 1000.0


@dataclass
class Shown:
    """One message the console printed: where it went (``alice · panel, updated``,
    ``#general › thread``, ``#general › thread · prompt``...) and its text."""

    label: str
    text: str


class Table:
    """A console table and everything it printed, read back as messages."""

    def __init__(self, console: Console, written: list[str], clock: VirtualClock) -> None:
        self.console = console
        self.written = written
        self.clock = clock
        self.mark = 0

    async def do(self, *lines: str) -> list[Shown]:
        """Run ``lines``; the messages they printed."""
        start = len(self.written)
        for line in lines:
            await self.console.handle_line(line)
        return [_shown(entry) for entry in self.written[start:]]

    async def state(self) -> BigIdeaState:
        _, loaded = await self.console.authority.store.load(KEY)
        assert loaded is not None
        record = GameRecord.model_validate_json(loaded.data)
        assert record.state_json is not None
        return BigIdeaState.model_validate_json(record.state_json)

    async def pick_product(self, user: str) -> list[str]:
        """``user`` types the pick of an item and a description from their hand."""
        state = await self.state()
        hand = state.hands[state.names.index(user)]
        item = next(c for c in hand if card(c).is_item)
        description = next(c for c in hand if not card(c).is_item)
        await self.do(f"{user}: /bigidea pick {item} {description}")
        return [item, description]


def _shown(entry: str) -> Shown:
    head, _, rest = entry.partition("\n")
    label, _, first = head.removeprefix("[").partition("] ")
    body = [line.removeprefix("  ") for line in rest.splitlines()]
    return Shown(label, "\n".join([first, *body]))


def panels(shown: list[Shown], user: str) -> list[str]:
    """The texts of ``user``'s panel as it was drawn (posted, edited, or the pressed message)."""
    return [s.text for s in shown if s.label.startswith(f"{user} · ") and "private" not in s.label]


def public(shown: list[Shown]) -> str:
    """Everything printed in the channel and the game's thread."""
    return "\n".join(s.text for s in shown if s.label.startswith("#"))


def prompts(shown: list[Shown]) -> list[str]:
    """The pointing prompt as posted or edited (a press on it updates it as the pressed
    message)."""
    return [
        s.text
        for s in shown
        if s.label.startswith("#") and ("· prompt" in s.label or "pressed message" in s.label)
    ]


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    store = GameStore.from_url(None)
    clock = VirtualClock(START)
    written: list[str] = []
    seeds = random.Random(5)
    authority = Authority(store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))
    console = Console(authority, write=written.append, clock=clock, rng=random.Random(3))
    yield Table(console, written, clock)
    await store.close()


async def _three_people(table: Table, options: str) -> list[Shown]:
    return await table.do(
        f"alice: /bigidea start {options}",
        "bob: /bigidea join",
        "carol: /bigidea join",
        "alice: /bigidea begin",
    )


async def test_the_pointing_is_revealed_the_moment_the_last_player_points(table: Table) -> None:
    """With three bots, who point at once, alice is the last to point: her point reveals the
    pointing there and then, pitch or no pitch; nothing waits out the 60 seconds. Before it,
    her panel and the prompt say plainly that the pitch must come first."""
    shown = await table.do(
        "alice: /bigidea start pick_seconds=0 vote_seconds=60 turn_seconds=0",
        "alice: /bigidea addbot 3",
        "alice: /bigidea begin",
    )
    assert "alice added 3 bots." in public(shown)
    await table.pick_product("alice")
    state = await table.state()
    assert state.deciding == "venture" and set(state.votes) == {1, 2, 3}  # the bots pointed
    shown = [_shown(entry) for entry in table.written]
    prompt = prompts(shown)[-1]
    assert "Owners may pitch until everyone has pointed." in prompt
    assert "Waiting for alice to point." in prompt
    panel = panels(shown, "alice")[-1]
    assert "Pitch before you point: the pointing is revealed (and pitches close)" in panel
    assert "Pitch it…" in panel and "No pitch" not in "\n".join(table.written)

    shown = await table.do("alice: click Point at nobody")
    state = await table.state()
    assert state.deciding == "mezzanine" and table.clock.now == START  # at once, no wait
    assert "Everyone points at once." in public(shown)
    assert "alice points at nobody." in public(shown)
    refused = await table.do("alice: /bigidea pitch Too late for this one")
    assert [s.label for s in refused] == ["alice · private"]
    assert "until everyone has pointed" in refused[0].text


async def test_an_owner_may_pitch_until_the_last_player_points(table: Table) -> None:
    """Three people, three products. Alice points first and pitches after: in time, since the
    others have yet to point. Carol never pitches; her point, the last, reveals the pointing.
    The pitch is a post of its own, and the board only says that there is one."""
    await _three_people(table, "pick_seconds=0 vote_seconds=60 turn_seconds=0")
    for user in ("alice", "bob", "carol"):
        await table.pick_product(user)
    assert (await table.state()).deciding == "venture"
    await table.do("alice: click Point at nobody")
    shown = await table.do("alice: /bigidea pitch It keeps your beer cold and your heart warm")
    pitch = [s for s in shown if "pitches the" in s.text]
    assert len(pitch) == 1 and pitch[0].label == "#general › thread"
    assert "“It keeps your beer cold and your heart warm”" in pitch[0].text
    board = next(s.text for s in reversed(shown) if "· board" in s.label)
    assert "(new, pitched)" in board and "beer cold" not in board
    state = await table.state()
    mine = state.new_product_of(0)  # alice's
    assert state.deciding == "venture" and mine is not None and mine.pitch is not None
    carol = panels([_shown(e) for e in table.written], "carol")[-1]
    assert "Pitch before you point" in carol
    shown = await table.do("bob: click Point at nobody")
    assert "Waiting for carol to point." in prompts(shown)[-1]
    shown = await table.do("carol: click Point at nobody")
    assert (await table.state()).deciding == "mezzanine" and table.clock.now == START
    assert "Everyone points at once." in public(shown)


async def test_each_pick_and_point_is_said_once_and_never_stale(table: Table) -> None:
    """A player's panel says their pick (or where they point) once, the story does not list
    who has picked, and the last to pick or point, whose move reveals everything, is not told
    that they may still change it. The round then ends with one-chit IPOs, said in the singular.
    """
    await _three_people(table, "pick_seconds=0 vote_seconds=0 turn_seconds=0")
    shown = await table.do("alice: /bigidea pick " + " ".join(await _two_cards(table, "alice")))
    alice = panels(shown, "alice")[-1]
    assert alice.count("Your pick:") == 1, alice
    assert alice.count("You may change it until everyone has picked.") == 1, alice
    assert "has picked" not in public(shown)
    board = next(s.text for s in shown if "· board" in s.label)
    assert "Waiting for bob and carol." in board and "picked" not in board

    await table.pick_product("bob")
    shown = await table.do("carol: /bigidea pick " + " ".join(await _two_cards(table, "carol")))
    assert "Everyone reveals at once." in public(shown)
    carol = panels(shown, "carol")[-1]
    assert "Your pick" not in carol and "until everyone has picked" not in carol, carol
    assert (await table.state()).deciding == "venture"  # bob's product, at least

    shown = await table.do("alice: click Point at nobody")
    alice = panels(shown, "alice")[-1]
    assert alice.count("You point at nobody.") == 1, alice
    assert alice.count("You may change it until everyone has pointed.") == 1, alice
    # Nothing public but the prompt (the pressed message) and its waiting line: no line of the
    # story per point, no board edit.
    assert [s.label for s in shown if s.label.startswith("#")] == [
        "#general › thread · pressed message, updated"
    ]
    assert "Waiting for bob and carol to point." in public(shown)
    await table.do("bob: click Point at nobody")
    shown = await table.do("carol: click Point at nobody")
    carol = panels(shown, "carol")[-1]
    assert "You point at" not in carol and "until everyone has pointed" not in carol, carol

    for _ in range(3):  # in turn, from the dealer (drawn at the deal)
        state = await table.state()
        assert state.turn_seat is not None
        await table.do(f"{state.names[state.turn_seat]}: /bigidea pass")
    told = "\n".join(table.written)
    assert "(1 chit):" in told and "1 chits" not in told


async def _two_cards(table: Table, user: str) -> list[str]:
    """Two cards of ``user``'s hand: an item and a description when the hand has both."""
    state = await table.state()
    hand = state.hands[state.names.index(user)]
    items = [c for c in hand if card(c).is_item]
    others = [c for c in hand if not card(c).is_item]
    return [items[0], others[0]] if items and others else hand[:2]
