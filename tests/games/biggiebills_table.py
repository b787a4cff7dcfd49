"""A table of BiggieBills$$$ through the authority, for the tests that play a rigged moment of
a real game: Sharks (alice, bob) and Owls (carol), and a bot team."""

from __future__ import annotations

from collections.abc import Callable

from bot.commands.authority import Authority, Request
from bot.commands.outbox import Outbox
from core import ui
from core.engine import OpenDecision
from core.games.biggiebills.state import Active, BiggieBillsState
from storage import GameKey, GameStore
from tests.authority_support import save_state, stored_record
from tests.games.biggiebills_support import arrange

__all__ = ["GAME", "Rig", "buttons", "free", "in_play", "panel_of", "req", "say", "table"]

GAME = "biggiebills"


def req(user: str, channel: str) -> Request:
    return Request(platform="console", channel=channel, user=user, name=user.title())


Rig = Callable[[BiggieBillsState, int, int], BiggieBillsState]


async def table(
    authority: Authority, store: GameStore, channel: str, rig: Rig, options: str = ""
) -> None:
    """Sharks (alice, bob) and Owls (carol), and a bot team; then the moment ``rig`` makes of
    the game (given the Sharks' and the Owls' seats), with the Sharks on turn in cycle 2 and
    the Owls next."""
    for user, words in [
        ("alice", f"start turn_seconds=0 block_seconds=0 {options}"),
        ("alice", "join Sharks"),
        ("bob", "join Sharks"),
        ("carol", "join Owls"),
        ("alice", "addbot"),
        ("alice", "begin"),
    ]:
        await authority.command(req(user, channel), GAME, words)
    key = GameKey("console", channel)
    record = await stored_record(store, key)
    names = [seat.name for seat in record.seats]
    sharks, owls = names.index("Sharks"), names.index("Owls")
    assert record.state_json is not None
    state = BiggieBillsState.model_validate_json(record.state_json)
    state.order = [sharks, owls, 3 - sharks - owls]
    state.turn_index, state.decision, state.cycle = 0, OpenDecision(name="turn"), 2
    state.plays_left = state.flex_left = 1
    state.acted, state.pending = False, None
    state.growth_discard += [a.card for a in state.active]  # the bot's opening play, if any
    state.active = []
    state.turn_cash = list(state.cash)
    state = rig(state, sharks, owls)
    state.version += 1
    state.decision_version = state.version
    await save_state(store, key, record, state)


def panel_of(out: Outbox, user: str) -> ui.Message:
    """The panel ``user`` was sent: after an action, or as the answer to `hand`."""
    if user in out.panels:
        return out.panels[user]
    (reply,) = [d.message for d in out.deliveries if d.user == user and d.message.title]
    return reply


def free(state: BiggieBillsState, seat: int, cards: list[str]) -> None:
    """Make a copy of each of ``cards`` free for ``seat`` to be dealt: another team holding
    the last copies gives one back for a card of the deck that is not wanted."""
    for card in cards:
        kind = "challenges" if card.startswith("challenge_") else "growth"
        deck: list[str] = getattr(
            state, "challenge_deck" if kind == "challenges" else "growth_deck"
        )
        hands: list[list[str]] = getattr(state, kind)
        if card in deck or card in hands[seat]:
            continue
        other = next(s for s in state.seats if s != seat and card in hands[s])
        spare = next(c for c in deck if c not in cards)
        deck.remove(spare)
        hands[other][hands[other].index(card)] = spare
        deck.append(card)


def in_play(state: BiggieBillsState, seat: int, card: str) -> BiggieBillsState:
    """``seat`` has ``card`` active on the board (taken from its hand, so cards stay counted)."""
    free(state, seat, [card])
    state = arrange(state, seat, growth=[card, *state.growth[seat][:5]])
    state.growth[seat].remove(card)
    state.active.append(Active(id=state.next_active, card=card, owner=seat, cost=25))
    state.next_active += 1
    return state


def buttons(message: ui.Message) -> list[ui.Button]:
    return [button for row in message.buttons for button in row]


async def say(authority: Authority, user: str, channel: str, words: str) -> Outbox:
    return await authority.command(req(user, channel), GAME, words)
