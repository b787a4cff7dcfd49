"""The two newest games through the real Bolt app and the fake Slack, with the adapter unchanged.

BiggieBills$$$: two users share the Sharks' seat; both see its hand privately, either acts for
it, the other is told; nobody else sees the hand. Busine$$ GO: a roll from a private panel.
"""

from __future__ import annotations

import random
from typing import Any

from bot.adapters.slack.render import component_id
from bot.commands import codec
from bot.commands.authority import STALE
from core.games.biggiebills.cards import card_name
from core.games.biggiebills.ui import render_private
from testkit.slack.fake import Call
from testkit.slack.loopback import Loopback
from testkit.slack.players import Component, SlackTable, components, labelled, texts, texts_of
from tests.adapters.biggiebills_support import Cards, late_game, names_card, state_of
from tests.adapters.slack.conftest import CHANNEL, boards, refs, save_state, stored
from tests.records import deciding, plain_state

ALICE, BOB, CAROL = "UALICE", "UBOB", "UCAROL"
BIGGIE_FAST = "turn_seconds=0 block_seconds=0"


def _private(loop: Loopback, user: str, since: int = 0) -> list[Call]:
    """What only ``user`` was shown: ephemeral messages (posted, or through a response URL of
    theirs), DMs and edits of DMs (their panel), oldest first."""
    urls = {issued.url: issued.user for issued in loop.api.response_urls.values()}
    found = []
    for c in loop.api.calls[since:]:
        if c.method == "response_url":
            message = loop.api.message(str(c.channel), c.ts or "")
            mine = message is not None and (message.ephemeral or message.channel == f"D{user}")
            if urls.get(c.url or "") == user and mine:
                found.append(c)
        elif (c.method == "chat.postEphemeral" and c.args.get("user") == user) or (
            c.method in ("chat.postMessage", "chat.update") and c.args.get("channel") == f"D{user}"
        ):
            found.append(c)
    return found


def _public(loop: Loopback, since: int = 0) -> list[Call]:
    """What everyone in the channel was shown: posts and edits there, and messages there
    replaced through a press's response URL."""
    found = []
    for c in loop.api.calls[since:]:
        if c.method == "response_url" and c.args.get("replace_original"):
            message = loop.api.message(str(c.channel), c.ts or "")
            if message is not None and message.channel == CHANNEL and not message.ephemeral:
                found.append(c)
        elif c.method in ("chat.postMessage", "chat.update") and c.args.get("channel") == CHANNEL:
            found.append(c)
    return found


def _choices(call: Call) -> list[Component]:
    return components(call, ephemeral=call.method == "chat.postEphemeral")


def _press_of(component: Component) -> codec.Press:
    press = codec.decode(component_id(component.action_id) or "")
    assert press is not None
    return press


def _panel(loop: Loopback, user: str, seat: int) -> tuple[Call, list[Component]]:
    """``user``'s newest private message with choices for ``seat``."""
    for call in reversed(_private(loop, user)):
        found = [c for c in _choices(call) if _press_of(c).seat == seat]
        if found:
            return call, found
    raise AssertionError(f"{user} has no private panel for seat {seat}")


def _labelled(call: Call, component: Component) -> str:
    """The button text of ``component`` in ``call``'s blocks."""
    for block in call.blocks:
        for element in block.get("elements", []) if block.get("type") == "actions" else []:
            if element.get("action_id") == component.action_id:
                return str(element.get("text", {}).get("text", ""))
    return ""


def _no_leak(loop: Loopback, since: int, hidden: set[str]) -> int:
    """No channel post or board edit since ``since`` names a card in ``hidden``."""
    checked = 0
    for call in _public(loop, since):
        shown = texts(call)
        leaked = [name for name in hidden if names_card(shown, name)]
        assert not leaked, (leaked, shown)
        checked += 1
    return checked


async def _biggie(loop: Loopback) -> SlackTable:
    table = SlackTable.on(loop, CHANNEL, [ALICE, BOB, CAROL], random.Random(1), "biggiebills")
    await table.command(ALICE, f"start {BIGGIE_FAST}")
    await table.command(ALICE, "join Sharks")
    await table.command(BOB, "join sharks")
    await table.command(CAROL, "join Owls")
    await table.command(ALICE, "addbot 2")
    await table.command(ALICE, "begin")
    return table


async def test_a_team_of_two_shares_its_panel_and_acts_once(loop: Loopback) -> None:
    table = await _biggie(loop)
    record = await stored(loop)
    assert record is not None and record.status == "playing"
    state = state_of(record)
    sharks, owls = state.names.index("Sharks"), state.names.index("Owls")
    assert sorted(record.seats[sharks].users) == [ALICE, BOB]
    cards = Cards()
    checked = _no_leak(loop, 0, cards.hidden(state))
    for member in (ALICE, BOB):
        dealt = [c for c in _private(loop, member) if "BiggieBills$$$: Sharks" in texts(c)]
        assert dealt, f"{member} never saw the team's hand"
        assert all(names_card(texts(dealt[0]), n) for n in cards.hand(state, sharks))

    # Carol (the Owls) skips until it is the Sharks' turn; the bots play in between.
    for _ in range(12):
        if state.deciding == "turn" and state.turn_seat == sharks:
            break
        since = len(loop.api.calls)
        await table.command(CAROL, "hand")
        call = _private(loop, CAROL, since)[-1]
        buttons = {_labelled(call, c): c for c in _choices(call)}
        chosen = next(
            c
            for wanted in ("Skip", "Accept", "End turn", "Return", "Play")
            for label, c in buttons.items()
            if label.startswith(wanted)
        )
        assert await table.press(CAROL, chosen), "Carol's choice changed nothing public"
        state = state_of(await stored(loop))
        checked += _no_leak(loop, since, cards.hidden(state))
    assert state.deciding == "turn" and state.turn_seat == sharks

    # Both members hold the team's current panel, with every choice.
    expected = render_private(state, sharks)
    wanted = sum(b.action is not None for b in expected.all_buttons()) + len(expected.selects)
    panels = {}
    for member in (ALICE, BOB):
        call, found = _panel(loop, member, sharks)
        assert {_press_of(c).version for c in found} == {state.version}
        assert len(found) == wanted, texts(call)
        panels[member] = (call, found)
    for call in _private(loop, CAROL):
        assert not [c for c in _choices(call) if _press_of(c).seat == sharks]
        leaked = [n for n in cards.only(state, sharks, owls) if names_card(texts(call), n)]
        assert not leaked, leaked

    # Carol presses a Sharks button in the channel (as if she had it): refused privately.
    bob_call, bob_found = panels[BOB]
    labels = {_labelled(bob_call, c): c for c in bob_found}
    label = next((t for t in labels if t.startswith("Play ")), "Skip (pay the fine)")
    play = labels[label]
    await table.settled()
    since = len(loop.api.calls)
    wrong = Component(play.action_id, play.kind, [], 1, CHANNEL, "1.0", True)
    assert not await table.press(CAROL, wrong)
    said = [texts(c) for c in _private(loop, CAROL, since)]
    assert said and "belongs to the team Sharks" in said[0], said
    assert state_of(await stored(loop)) == state

    # Bob plays for the team: the channel hears it, Alice is told privately, Bob is not.
    since = len(loop.api.calls)
    assert await table.press(BOB, play)
    after = state_of(await stored(loop))
    action = _press_of(play).action or {}
    news = f"Sharks plays {card_name(str(action['card']))}" if "card" in action else "Sharks skips"
    posted = [texts(c) for c in _public(loop, since)]
    assert any(news in t for t in posted), posted
    told = [texts(c) for c in _private(loop, ALICE, since)]
    # On her panel, edited in place above the team's hand.
    assert any(f"Sharks*\nubob played for your team: {label}" in t for t in told), told
    assert not [t for t in (texts(c) for c in _private(loop, BOB)) if "played for your team" in t]
    checked += _no_leak(loop, since, cards.hidden(after))

    # Alice presses the same choice on her own panel: stale, privately; nothing changes but
    # the pressed panel, brought up to date by the answer (it cannot be pressed stale again),
    # which says why at its head (one message in her DM, not two).
    _, alice_found = panels[ALICE]
    same = next(c for c in alice_found if _press_of(c).action == _press_of(play).action)
    await loop.adapter.table.caught_up()  # (Bob's move's picture, held back, shown first)
    since = len(loop.api.calls)
    assert not await table.press(ALICE, same)
    (healed,) = [texts(c) for c in _private(loop, ALICE, since)]
    assert "Your team's hand" in healed and healed.split("\n")[1].startswith(STALE), healed
    assert not _public(loop, since)
    assert state_of(await stored(loop)) == after
    assert checked > 5
    table.detach()


async def test_late_game_choices_with_long_names_reach_a_dm(loop: Loopback) -> None:
    """Stage 3-4 plays and challenges have the longest ids, and a DM's ids name the channel
    too: the panel must still be delivered, with every choice, and act on the game."""
    table = await _biggie(loop)
    record = await stored(loop)
    state = state_of(record)
    sharks, owls = state.names.index("Sharks"), state.names.index("Owls")
    late_game(state, sharks, owls)
    assert record is not None
    await save_state(loop, record, state)
    expected = render_private(state, sharks)
    wanted = sum(b.action is not None for b in expected.all_buttons()) + len(expected.selects)

    since = len(loop.api.calls)
    assert await loop.slack.post(loop.slack.slash_body("/biggiebills", "hand", BOB, "DUBOB")) == 200
    await loop.adapter.settled()
    dms = [c for c in _private(loop, BOB, since) if _choices(c)]
    assert dms, [texts(c) for c in _private(loop, BOB, since)]
    found = _choices(dms[-1])
    assert len(found) == wanted
    challenge = next(c for c in found if _labelled(dms[-1], c).startswith("Challenge Owls"))
    assert _press_of(challenge).channel == CHANNEL
    since = len(loop.api.calls)
    assert await table.press(BOB, challenge)
    posted = [texts(c) for c in _public(loop, since)]
    assert any("Sharks challenges Owls' International Expansion (#36)" in t for t in posted)
    assert state_of(await stored(loop)).challenges_played[sharks] == 1
    table.detach()


async def _go_state(loop: Loopback) -> dict[str, Any]:
    record = await stored(loop)
    assert record is not None and record.state is not None
    return record.state


async def test_busine_go_roll_on_the_board_updates_the_board(loop: Loopback) -> None:
    users = [ALICE, BOB]
    table = SlackTable.on(loop, CHANNEL, users, random.Random(4), "businessgo")
    await table.command(ALICE, "start short turn_seconds=0 compete_seconds=0 auction_seconds=0")
    await table.command(BOB, "join")
    await table.command(ALICE, "addbot")
    await table.command(ALICE, "begin")
    record = await stored(loop)
    assert record is not None and record.state is not None
    assert plain_state(record)["names"][:2] == ["ualice", "ubob"]
    thread = (await refs(loop)).thread
    assert thread is not None
    for _ in range(20):  # the bot may be first: it moves at once, then a person is on turn
        state = await _go_state(loop)
        if state["turn"] < 2 and deciding(state) == "turn":
            break
        assert await table.step()
    seat = state["turn"]
    roller, other = users[seat], users[1 - seat]
    board = (await refs(loop)).board
    assert board is not None
    roll = labelled(table.visible(roller), "Roll the dice")
    assert roll.message_ts == board.id and roll.press is not None and roll.press.seat == seat
    # Someone else's press is refused, to them alone (ephemeral), and changes nothing.
    since = len(loop.api.calls)
    assert not await table.press(other, roll)
    (told,) = _private(loop, other, since)
    assert told.args.get("response_type") == "ephemeral" and "only they can press" in texts(told)
    assert await _go_state(loop) == state
    since = len(loop.api.calls)
    assert await table.press(roller, roll)
    shown = [texts(c) for c in _public(loop, since)]
    assert any(f"{roller.lower()} rolls " in t for t in shown), shown
    # One board in the thread, showing the roll: the pressed message updated (chat.update of
    # that very message), or moved to the bottom (the old one deleted) to tell the next
    # player it is their turn.
    (live,) = boards(loop.api, CHANNEL, thread, "Busine$$ GO")
    assert live.ts == board.id or (loop.api.message(CHANNEL, board.id) or live).deleted
    dice = (await _go_state(loop))["dice"]
    assert f"Last roll: {dice[0]}+{dice[1]}." in texts_of(live)
    # Every choice is on the board: no direct message to anyone.
    assert not [c for c in loop.api.called("chat.postMessage") if str(c.args["channel"])[0] == "D"]
    table.detach()
