"""``boardroom bench --faults``: one short run end to end, and its accounting on made-up logs
(the moves' and what players saw on the platform)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from bench.faults import Checked, LogCopy, Platform, Sent, Step, faultbench, match_moves
from bench.faultworker import SURFACES, show
from bench.visible import Sightings
from bot.adapters.slack.render import ID_LIMIT, blocks
from bot.commands import codec
from bot.commands.outbox import GAME_OVER, Outbox
from bot.settings import Settings
from core import ui
from storage import GameKey, GameStore
from testkit.slack.fake import Call

LAST = re.compile(
    r"kills=(\d+) restarts=(\d+) actions=(\d+) lost=(\d+) doubled=(\d+) "
    r"deadlines_lost=(\d+) max_deadline_late_s=(\d+\.\d+) max_visible_late_s=(\d+\.\d+) "
    r"deadlines_unseen=(\d+) games_unfinished=(\d+) "
    r"results=(\d+) results_pending=(\d+) results_missing=(\d+) results_doubled=(\d+)"
)


async def test_a_short_run_with_kills_and_a_redis_restart_loses_and_doubles_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A shorter lease than the default only shortens the final settle period.
    settings = Settings(BOARDROOM_DEADLINE_LEASE_SECONDS=1)

    await faultbench(
        settings, games=4, workers=2, seconds=3, restarts=1, workdir=tmp_path, finish_s=0
    )

    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    found = LAST.fullmatch(lines[-1])
    assert found, out
    kills, restarts, actions, lost, doubled, deadlines_lost = map(int, found.groups()[:6])
    assert kills >= 1 and restarts == 1, out
    assert actions > 0, out
    assert (lost, doubled, deadlines_lost) == (0, 0, 0), out
    missing, results_doubled = map(int, found.groups()[12:])
    assert (missing, results_doubled) == (0, 0), out
    replayed = re.search(r"(\d+)/(\d+) replay to their record", out)
    assert replayed and replayed.group(1) == replayed.group(2), out

    # Lateness as players saw it, read from the fake Slack's log the workers delivered to.
    late, visible = float(found.group(7)), float(found.group(8))
    unseen, unfinished = int(found.group(9)), int(found.group(10))
    seen = re.search(
        r"as players saw it \(the fake Slack's log: (\d+) calls accepted, (\d+) refused\): "
        r"(\d+) deadlines, .* max (\d+\.\d+) s; (\d+) never shown",
        out,
    )
    assert seen, out
    assert int(seen.group(1)) > 0 and int(seen.group(3)) > 0
    assert float(seen.group(4)) <= visible and int(seen.group(5)) == unseen
    ended = re.search(r"deadlines: (\d+) ended, .* max (\d+\.\d+) s", out)
    assert ended and int(seen.group(3)) <= int(ended.group(1)) and float(ended.group(2)) <= late
    log = (tmp_path / "slack-calls.jsonl").read_text().splitlines()
    assert len(log) >= int(seen.group(1))
    # The people stopped at once (no time to finish): every game begun and not finished counts.
    games = re.search(r"logs: (\d+) games \((\d+) finished, (\d+) not\)", out)
    assert games and int(games.group(3)) == unfinished
    assert int(games.group(2)) + unfinished >= int(games.group(1))


def _press(id: str, entry: list[object], version: int, applied_at: int | None) -> Sent:
    sent = Sent(id=id, channel="c", game="bigidea", user="u", kind="press", seat=0)
    sent.entry, sent.version = entry, version
    if applied_at is not None:
        sent.answers.append({"id": id, "status": "applied", "version": applied_at})
    return sent


def test_the_accounting_finds_a_lost_move_and_a_doubled_one() -> None:
    begin = Step(at=0, pre=None, pre_decision=None, post=0, first=["u", "begin", [], []])
    move = [0, "pick", [1, 2]]
    steps = [
        begin,
        Step(at=1, pre=0, pre_decision=0, post=1, first=move),
        Step(at=2, pre=1, pre_decision=0, post=2, first=move),  # the same press again
        Step(at=3, pre=2, pre_decision=2, post=3, first=[-1, "timeout", "k"]),
    ]
    checked = Checked()
    match_moves(steps, [_press("a", move, 0, 1)], checked, "c")
    assert (checked.human, checked.lost, checked.doubled, checked.unexplained) == (2, 0, 1, 0)

    # Two presses explain both moves; a third, answered applied at a version the log does not
    # have, is lost.
    checked = Checked()
    presses = [_press("a", move, 0, 1), _press("b", move, 1, None), _press("c", move, 2, 3)]
    match_moves(steps, presses, checked, "c")
    assert (checked.lost, checked.doubled, checked.unexplained) == (1, 0, 0)

    # A move no press could have made (its button was stale) is reported too.
    checked = Checked()
    match_moves(steps[:2], [_press("a", move, 5, None)], checked, "c")
    assert (checked.lost, checked.doubled, checked.unexplained) == (0, 0, 1)


async def test_workers_show_surfaces_and_an_older_outbox_never_replaces_a_newer_one(
    redis_url: str,
) -> None:
    """What the fault bench's people press on: each panel, the prompt, and a private reply of
    current choices, as the workers showed them, the newest state version winning."""
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    platform = Platform(redis_url, random.Random(1))
    channel = "surfaces-test"
    await client.delete(SURFACES + channel)
    vote = ui.Button(label="Vote", action={"type": "vote"}, version=7)
    option = ui.SelectOption(label="A card", value="a")
    pick = ui.Select(
        placeholder="Pick", action={"type": "pick"}, field="cards", version=7, options=[option]
    )
    try:
        newer = Outbox(platform="fault", channel=channel, version=7)
        newer.board = ui.Message(text="board")
        newer.prompt = ui.Message(text="vote now", buttons=[[vote]])
        newer.panels["alice"] = ui.Message(text="your hand", selects=[pick])
        await show(client, newer)
        older = Outbox(platform="fault", channel=channel, version=5)
        older.board = ui.Message(text="board")  # no prompt open at version 5
        older.panels["alice"] = ui.Message(text="an old hand")
        await show(client, older)  # a slower worker, delivering after the newer one
        shown = await platform.surfaces(channel)
        assert shown["prompt"] is not None and shown["prompt"].text == "vote now"
        assert shown["panel:alice"] is not None and shown["panel:alice"].text == "your hand"

        # A stale press's reply is no save (no version) but shows current choices: its
        # buttons' version places it.
        stale = Outbox(platform="fault", channel=channel)
        later = vote.model_copy(update={"version": 9})
        stale.reply("bob", ui.Message(text="current choices", buttons=[[later]]))
        stale.reply("bob", "a sentence without choices changes no panel")
        await show(client, stale)
        closed = Outbox(platform="fault", channel=channel, version=8)
        closed.board = ui.Message(text="board")  # the vote is over: the prompt loses it
        await show(client, closed)
        shown = await platform.surfaces(channel)
        assert shown["panel:bob"] is not None and shown["panel:bob"].text == "current choices"
        assert shown["prompt"] is None
        assert await client.ttl(SURFACES + channel) > 0
    finally:
        await client.delete(SURFACES + channel)
        await client.aclose()
        await platform.close()


def _call(method: str, at: float, channel: str, message: ui.Message, **args: object) -> Call:
    """A call as the fake Slack logs it, its blocks rendered by the Slack adapter's renderer
    (a DM's choices name their game's channel)."""
    home = "C1" if channel.startswith("D") else None
    bound = codec.bind(message, "bigidea", home, ID_LIMIT)  # as the table hands it to Slack
    body = {"channel": channel, "text": message.text, "blocks": blocks(bound)}
    return Call(method, {**body, **args}, at=at, channel=channel, ts=f"{at}")


def test_a_save_is_seen_at_the_first_call_showing_its_choices_or_the_end() -> None:
    def choice(version: int) -> ui.Message:
        vote = ui.Button(label="Vote", action={"type": "vote"}, version=version)
        return ui.Message(text="choose", buttons=[[vote]])

    limited = _call("chat.update", 4, "C1", choice(6))
    limited.error = "ratelimited"
    calls = [
        _call("chat.postMessage", 1, "C1", ui.Message(text="the card")),
        _call("chat.postMessage", 2, "C1", choice(3), thread_ts="1"),
        _call("chat.update", 3, "DUALICE", choice(5)),
        limited,  # refused: nobody saw it
        _call("chat.postMessage", 5, "C1", ui.Message(text="time is up"), thread_ts="1"),
        _call("chat.postMessage", 6, "C1", ui.Message(text="the result")),
        _call("chat.update", 7, "DUBOB", ui.Message(text=GAME_OVER)),
    ]
    seen = Sightings(calls)
    assert seen.first("C1", 3, False, [], 0) == 2
    assert seen.first("C1", 2, False, [], 0) == 2  # a later state shows an earlier one's effect
    assert seen.first("C1", 4, False, [], 0) == 3  # the DM's choices name their game
    assert seen.first("C1", 6, False, [], 0) is None  # a story line is no choice to act on
    assert seen.first("C1", 9, True, [], 0) == 6  # the result posted in the channel
    # A game's end told in a player's DM, from the save on (not another game's end before).
    assert seen.first("C2", 1, True, ["UBOB"], 6.5) == 7
    assert seen.first("C2", 1, True, ["UBOB"], 7.5) is None
    assert seen.first("C2", 1, True, ["UALICE"], 0) is None


async def test_the_log_copy_keeps_the_times_of_a_game_whose_end_packed_its_log(
    redis_store: GameStore,
) -> None:
    # The check times each save by its log entry's stream id; the save that ends a game packs the
    # log into one string without them, so the bench copies the entries as the game goes.
    key = GameKey("slack", "copied")
    begin = json.dumps([["alice", "begin", ["Alice", "Bob"], []]])
    move, last = json.dumps([[0, "pick", [1, 2]]]), json.dumps([[1, "pick", [3, 4]]])
    copy = LogCopy(redis_store)
    saves = [(None, 1, begin, True), (1, 2, move, False)]
    for expected, version, line, fresh in saves:
        await redis_store.save(
            key, "{}", expected=expected, version=version, log=line, ttl_s=60, fresh_log=fresh
        )
    await copy.copy(key)
    stream = [entry_id for entry_id, _fields in copy.logs["copied"]]
    await redis_store.save(key, "{}", expected=2, version=3, log=last, ttl_s=60, final=True)
    await copy.copy(key)  # now packed: nothing more to copy, and when it was seen is kept
    entries = await copy.entries(key)
    assert [fields["a"] for _id, fields in entries] == [begin, move, last]
    ids = [entry_id for entry_id, _fields in entries]
    assert ids[:2] == stream and int(ids[2].split("-")[0]) >= int(stream[1].split("-")[0])
    # A new game in the channel is copied afresh, without the last game's entries.
    again = json.dumps([["bob", "begin", ["Bob", "Cy"], []]])
    await redis_store.save(key, "{}", expected=3, version=4, log=again, ttl_s=60, fresh_log=True)
    await copy.copy(key)
    assert [fields["a"] for _id, fields in copy.logs["copied"]] == [again]
