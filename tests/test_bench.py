"""``boardroom bench`` end to end, small, against the test suite's redis-server."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
import redis.asyncio as aioredis

from bench.authority import bench
from bench.hostile import dropped, run_hostile_bench
from bench.redismeter import CommandMeter, observer_store, script_names
from bench.table import run_table_bench
from bot.adapters.slack.render import ID_LIMIT, blocks
from bot.commands import codec
from bot.settings import Settings
from core import ui
from storage import GameKey, GameStore
from testkit.slack.fake import Call

KEYS = (
    "actions_per_s",
    "floor_ratio",
    "p50_ms",
    "p99_ms",
    "bytes_per_game",
    "bytes_bigidea",
    "bytes_biggiebills",
    "bytes_businessgo",
)


async def test_bench_plays_every_game_and_prints_the_numbers(
    redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(REDIS_URL=redis_url)

    code = await bench(settings, games=3, players=4, seed=7, think_ms=20, pace_seconds=1)

    lines = capsys.readouterr().out.strip().splitlines()
    assert code == 0, "\n".join(lines)
    assert "games finished: 3/3" in "\n".join(lines)
    assert "at a player's pace (3 games" in "\n".join(lines)
    pairs = dict(word.split("=", 1) for word in lines[-1].split())
    assert list(pairs) == list(KEYS)
    assert all(float(value) > 0 for value in pairs.values()), lines[-1]
    assert pairs["bytes_per_game"].isdigit()
    # Every game's bytes, the largest of them the headline; each key kind is said.
    sizes = [int(pairs[f"bytes_{name}"]) for name in ("bigidea", "biggiebills", "businessgo")]
    assert int(pairs["bytes_per_game"]) == max(sizes)
    text = "\n".join(lines)
    for title in ("The Big Idea (3/3 games)", "BiggieBills$$$ (3/3 games)", "Busine$$ GO (3/3"):
        assert title in text
    assert "record " in text and "log " in text and "dedupe " in text
    # The floor replays what the authority sent: the load script is counted, records have bytes.
    trips = re.search(r"round trips: (\d+) .*\bload (\d+).*record as saved (\d+) bytes", text)
    assert trips is not None, text
    assert int(trips.group(2)) > 0 and int(trips.group(3)) > 100
    assert f"floor: the same {trips.group(1)} round trips replayed" in text
    # On a shared server the bench removes its games and the floor's copies of them; only
    # dedupe keys (with a TTL) stay.
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        left = [key async for key in client.scan_iter("boardroom:{bench:*")]
        assert all(":dedupe:" in key for key in left), left[:5]
        assert all([await client.ttl(key) > 0 for key in left])
        assert [key async for key in client.scan_iter("boardroom:user:{bench:*")] == []
    finally:
        await client.aclose()


# --- what the table costs Redis ---------------------------------------------------------------


async def test_the_meter_counts_what_the_server_ran_scripts_once_and_not_the_benchs_reads(
    redis_url: str,
) -> None:
    store = GameStore.from_url(redis_url)
    observer = observer_store(redis_url)
    script = store.client.register_script("redis.call('SET', KEYS[1], 1) return 1")

    async def work() -> None:
        await store.client.set("k", "v")
        pipe = store.client.pipeline(transaction=True)
        pipe.incr("a")
        pipe.incr("b")
        await pipe.execute()
        await script(keys=["s"])  # runs SET inside: Redis's work, not a command sent
        await observer.load(GameKey("bench", "c"))  # the bench's own read

    try:
        async with CommandMeter(redis_url) as meter:
            await work()  # connects, and loads the script, before the window
            async with meter.window() as counted:
                await work()
                async with meter.part(counted, "later"):
                    await store.client.get("k")
            await store.client.get("k")  # after the window
    finally:
        await store.close()
        await observer.close()
    expected = {"SET": 1, "MULTI": 1, "INCRBY": 2, "EXEC": 1, f"EVALSHA:{script.sha[:8]}": 1}
    assert counted.parts[""] == Counter(expected)
    assert counted.parts["later"] == Counter({"GET": 1})
    assert counted.total == sum(counted.parts[""].values()) + 1
    assert "save" in script_names().values()  # the store's own scripts are named


def _figures(line: str) -> dict[str, str]:
    return dict(word.split("=", 1) for word in line.split() if "=" in word)


@pytest.mark.parametrize(("adapter", "game"), [("discord", "bigidea"), ("slack", "businessgo")])
async def test_the_table_bench_counts_redis_commands_per_press(
    capsys: pytest.CaptureFixture[str], adapter: str, game: str
) -> None:
    # No REDIS_URL: the bench starts a redis-server of its own and monitors it.
    code = await run_table_bench(Settings(REDIS_URL=""), adapter, 3, 0.0, games=(game,))

    lines = [line for line in capsys.readouterr().out.splitlines() if "=" in line]
    assert code == 0, lines
    played, breakdown, last = lines[-3], lines[-2], lines[-1]
    assert played.startswith(f"{game}: ")
    per_press = float(_figures(last)["redis_commands_per_press"])
    assert per_press == float(_figures(played)["redis_commands_per_press"]) > 0
    found = re.match(r"redis commands: (\d+) for (\d+) presses: (.*); of which (\d+) ", breakdown)
    assert found, breakdown
    total, presses = int(found.group(1)), int(found.group(2))
    assert presses == int(_figures(played)["presses"]) > 0
    by_name = {name: int(n) for name, n in (w.split("=") for w in found.group(3).split())}
    polled = int(found.group(4))
    assert sum(by_name.values()) == total and polled <= total
    # A press's own commands: the deadline loop's polling, which the bench does after each
    # pause, is counted apart (its own figure on the same line).
    assert round((total - polled) / presses, 2) == per_press
    assert f"deadline_commands_per_press={polled / presses:.2f}" in breakdown
    # Every press that changed the game saved it with one script (a save that arms its
    # deadline, with the arming in it); scripts' insides (HSET, XADD...) are not commands.
    saves = by_name.get("EVALSHA:save", 0) + by_name.get("EVALSHA:save_armed", 0)
    assert 0 < saves <= presses
    assert not {"HSET", "XADD", "PEXPIRE"} & set(by_name)


# --- a Slack that pushes back -----------------------------------------------------------------


def _slack_call(method: str, error: str | None = None, **args: Any) -> Call:
    call = Call(method, dict(args), channel=str(args.get("channel", "")), ts=args.get("ts"))
    call.error = error
    return call


def _bound(message: ui.Message) -> ui.Message:
    """``message`` as the table hands it to Slack's primitives: its controls bound to ids."""
    return codec.bind(message, "bigidea", None, ID_LIMIT)


def test_a_refused_call_is_dropped_unless_it_lands_or_is_superseded() -> None:
    def choices(version: int, title: str | None = None) -> list[dict[str, Any]]:
        vote = ui.Button(label="Vote", action={"type": "vote"}, version=version)
        return blocks(_bound(ui.Message(title=title, text="choose", buttons=[[vote]])))

    panel = blocks(ui.Message(title="The Big Idea: UALICE", text="hand"))
    log = {"channel": "C", "thread_ts": "1.0"}
    received = [
        _slack_call("chat.postMessage", "ratelimited", text="a", **log),
        _slack_call("chat.postMessage", text="a", **log),  # the retry lands
        _slack_call("chat.postMessage", "ratelimited", text="b", **log),  # never again: dropped
        _slack_call("chat.update", "ratelimited", channel="C", ts="2.0", text="x"),
        _slack_call("chat.update", channel="C", ts="2.0", text="y"),  # a newer state of it
        _slack_call("chat.postEphemeral", "ratelimited", channel="C", user="U", blocks=choices(2)),
        _slack_call("chat.postMessage", blocks=choices(3), **log),  # newer choices
        _slack_call("chat.update", "ratelimited", channel="DUALICE", ts="3.0", blocks=panel),
        _slack_call("chat.postMessage", channel="DUALICE", blocks=panel),  # the panel anew
        _slack_call("chat.delete", "message_not_found", channel="C", ts="4.0"),  # dropped
        _slack_call("users.info", "ratelimited", user="U"),  # shows nothing
    ]
    assert dropped(received) == [received[2], received[9]]


async def test_the_hostile_slack_run_counts_dms_drops_and_refusals_from_the_fakes_log(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = await run_hostile_bench(Settings(REDIS_URL=""), 5, games=("biggiebills",))

    lines = [line for line in capsys.readouterr().out.splitlines() if "=" in line]
    played, last = _figures(lines[0]), _figures(lines[-1])
    assert lines[0].startswith("biggiebills: ") and code in (0, 1)
    per_player = re.search(r"dms_per_player_max=\d+ \(([^)]*)\)", lines[0])
    assert per_player, lines[0]
    people = per_player.group(1).split(";")[0]  # (then what the messages were)
    dms = [int(word.split("=")[1]) for word in people.split()]
    assert len(dms) == 4 and max(dms) == int(last["dms_per_player_max"]) > 0
    for key in ("dropped", "refused", "rate_limited"):
        assert played[key] == last[key], key
    assert int(last["rate_limited"]) > 0  # the fake did push back
    assert last["unfinished"] == ("0" if played["finished"] == "yes" else "1")
    assert int(played["presses"]) > 0


async def test_history_bench_prints_record_and_leaderboard_costs(
    redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench.history import history_bench

    settings = Settings(REDIS_URL=redis_url)
    assert await history_bench(settings, seed=2, games=20) in (0, 1)
    printed = capsys.readouterr().out
    assert "a community of 10000 rated people" in printed
    assert re.search(r"record_ms_p99=\d+\.\d\d .*leaderboard_ms_p99=\d+\.\d\d", printed)
