"""``/boardroom replay``: a whole game of each game stepped from its first move to its end, each
step saying what happened and showing the board and its picture, the buttons stopping where the
game does; rebuilt once per worker and rate-limited per person."""

from __future__ import annotations

import random

import pytest

from bot.commands.authority import Authority, Request
from bot.commands.community.boardroom import (
    COMMAND,
    REPLAY_PRESSES,
    REPLAY_TOO_FAST,
    REPLAY_WINDOW_S,
    replay_steps,
)
from bot.commands.community.results import GameResult
from bot.settings import Settings
from core import registry, ui
from storage import GameKey, GameStore
from storage import history as kept
from tests.authority_support import Clock, stored_record

WHERE = kept.Community("console", "office")
PEOPLE = [("U-ann", "Ann"), ("U-bo", "Bo")]
FAST = {
    "bigidea": "pick_seconds=5 vote_seconds=5 turn_seconds=5",
    "businessgo": "short turn_seconds=5",
    "biggiebills": "cycles=2 turn_seconds=5",
}


def _req(user: str, name: str) -> Request:
    return Request(platform="console", channel="play", user=user, name=name, community="office")


async def _finished(store: GameStore, clock: Clock, name: str) -> tuple[Authority, list[str]]:
    """A game of ``name``, two people and a bot, played out by its deadlines: the authority
    and every state saved on the way."""
    seeds = random.Random(11)
    authority = Authority(store, Settings(), clock=clock, new_seed=lambda: seeds.getrandbits(63))
    host = _req(*PEOPLE[0])
    assert (await authority.command(host, name, f"start {FAST[name]}")).card is not None
    assert (await authority.command(_req(*PEOPLE[1]), name, "join")).card is not None
    assert (await authority.command(host, name, "addbot 1")).card is not None
    assert (await authority.command(host, name, "begin")).begun
    key = GameKey("console", "play")
    seen: list[str] = []
    for _ in range(3000):
        rec = await stored_record(store, key)
        if rec.state_json is not None and (not seen or seen[-1] != rec.state_json):
            seen.append(rec.state_json)
        if rec.status == "finished":
            return authority, seen
        clock.now = (rec.deadline_due or clock.now) + 1
        await authority.fire_due("console")
    raise AssertionError("the game never ended")


async def _press(authority: Authority, clock: Clock, text: str) -> ui.Message:
    clock.now += REPLAY_WINDOW_S  # a person's pace: never over the rate limit
    out = await authority.command(_req(*PEOPLE[0]), COMMAND, text)
    (shown,) = out.deliveries
    assert isinstance(shown.message, ui.Message)
    return shown.message


@pytest.mark.parametrize("name", ["bigidea", "businessgo", "biggiebills"])
async def test_a_replay_steps_a_whole_game_from_its_first_move_to_its_end(
    store: GameStore, clock: Clock, name: str
) -> None:
    game = registry.get_game(name)
    assert game is not None
    authority, saved = await _finished(store, clock, name)
    ids = await kept.recent(store, WHERE, 0.0, 10)
    assert len(ids) == 1
    found = await kept.replay_of(store, WHERE, ids[0])
    assert found is not None
    result = GameResult.model_validate_json(found[0])
    states = [game.state_model.model_validate_json(s) for s in saved]
    assert [s.model_dump_json() for s in replay_steps(game, result, found[1])] == [
        s.model_dump_json() for s in states
    ]

    message = await _press(authority, clock, f"replay {result.id}")  # opens at the first step
    told: list[str] = []
    for at, state in enumerate(states):
        head, line, *_board = message.text.split("\n")
        end = " (the end)" if at == len(states) - 1 else ""
        assert head.endswith(f": step {at + 1} of {len(states)}{end}")
        assert line and line != "Nothing anyone may see happened.", (at, message.text)
        told.append(line)
        # The board as it was then, with its picture.
        assert game.render_board(state).text in message.text
        drawn = game.picture(state)
        assert drawn is not None and message.picture is not None
        assert message.picture.data == drawn.data and message.picture.alt == drawn.alt
        labels = [b.label for b in message.all_buttons()]
        assert labels == (["First", "Back"] if at else []) + (
            ["Forward", "Last"] if at < len(states) - 1 else []
        )
        if at < len(states) - 1:
            forward = next(b for b in message.all_buttons() if b.label == "Forward")
            assert forward.command is not None
            message = await _press(authority, clock, forward.command)
    # Every move named, by who made it; the last step says how the game ended.
    everything = " ".join(told)
    assert all(person in everything for _user, person in PEOPLE)
    outcome = states[-1].outcome
    assert outcome is not None and outcome.summary in told[-1]
    # Forward at the end is gone; an old Forward pressed there shows the end again.
    again = await _press(authority, clock, f"replay {result.id} {len(states) + 5}")
    assert again.text.split("\n")[0].endswith("(the end)")


async def test_a_replay_is_rebuilt_once_and_presses_are_rate_limited(
    store: GameStore, clock: Clock
) -> None:
    authority, saved = await _finished(store, clock, "bigidea")
    (game_id,) = await kept.recent(store, WHERE, 0.0, 10)
    replays = authority.community.replays
    before = replays.rebuilt
    for step in range(4):
        await _press(authority, clock, f"replay {game_id} {step}")
    assert replays.rebuilt == before + 1  # a finished game never changes: rebuilt once
    # Pressing faster than a person can read is refused, for that person only.
    clock.now += REPLAY_WINDOW_S
    answers = []
    for _ in range(REPLAY_PRESSES + 2):
        out = await authority.command(_req(*PEOPLE[0]), COMMAND, f"replay {game_id} 1")
        answers.append(out.deliveries[0].message)
    assert [a.text for a in answers if a.text == REPLAY_TOO_FAST] == [REPLAY_TOO_FAST] * 2
    assert all(a.picture is not None for a in answers[:REPLAY_PRESSES])
    other = await authority.command(_req(*PEOPLE[1]), COMMAND, f"replay {game_id} 1")
    assert other.deliveries[0].message.picture is not None
    assert len(saved) > 1
