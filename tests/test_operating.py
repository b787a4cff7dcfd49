"""Operating a worker as the README starts it: every runtime (Discord, Slack Socket Mode, Slack
HTTP), in its own process against the fake platforms and a real redis-server, answers
``GET /healthz`` and serves ``boardroom_*`` metrics on ``BOARDROOM_METRICS_PORT`` that count the
presses it handled; its children die with it however it dies, and a picture process killed under
it is started again and counted.

Every wait has a generous bound (a guard against a hang, never a measure of speed).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from aiohttp import ClientSession
from prometheus_client.parser import text_string_to_metric_families
from redis.asyncio import Redis

from bot import metrics
from bot.commands.authority import Authority
from bot.deadlines import Heartbeat
from bot.health import health
from bot.ops import JsonLines
from bot.settings import Settings
from storage import GameKey, GameStore, StorageBusy
from testkit.discord.fake import FakeDiscord, FakeMessage, FakeUser
from testkit.local_server import free_port
from testkit.slack.fake import POSTS_PER_WORKSPACE, FakeSlackAPI, SignedClient
from testkit.slack.players import components_of
from tests.adapters.slack.socket_server import FakeSocketMode
from tests.test_startup import (  # the fixtures that start the real command and the fakes
    HANG_GUARD_S,
    ROOT,
    SLACK_TOKENS,
    Bot,
    discord_at,
    discord_fake,
    run_bot,
    slack_fake,
)

__all__ = ["discord_fake", "run_bot", "slack_fake"]  # (fixtures, used by name)

DISCORD_CHANNEL = 700_000_000_000_000_001
SLACK_CHANNELS = {"socket": "C0SOCKET", "http": "C0HTTP"}
"""A channel for each test (they share the session's Redis, where a game outlives its test)."""
ALICE, BOB, CAROL = (
    FakeUser(800_000_000_000_000_000 + i, name) for i, name in enumerate(["alice", "bob", "carol"])
)
Series = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(port: int) -> Series:
    """Every sample of ``GET /metrics``, by name and labels."""
    async with (
        ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/metrics") as response,
    ):
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        text = await response.text()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(series: Series, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    want = set(labels.items())
    return sum(v for (n, found), v in series.items() if n == name and want <= found)


async def healthz(port: int) -> tuple[int, dict[str, Any]]:
    async with (
        ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/healthz") as response,
    ):
        return response.status, await response.json()


async def until(
    check: Callable[[], Awaitable[bool]], what: str, within: float = HANG_GUARD_S
) -> None:
    """Wait until ``check()`` holds (polling), or fail saying ``what`` never happened."""
    deadline = time.monotonic() + within
    while not await check():
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.05)


async def counted(port: int, platform: str, presses: int) -> Series:
    """The scrape once it counts ``presses`` applied presses of ``platform``."""
    found: Series = {}

    async def enough() -> bool:
        nonlocal found
        found = await scrape(port)
        applied = value(
            found, "boardroom_requests_total", platform=platform, kind="press", outcome="applied"
        )
        answered = value(found, "boardroom_answer_seconds_count", platform=platform, kind="press")
        return min(applied, answered) >= presses

    await until(enough, f"{presses} presses counted")
    return found


def assert_counts(series: Series, platform: str) -> None:
    """What a start and two joins leave in the metrics of any runtime."""
    requests = "boardroom_requests_total"
    assert value(series, requests, platform=platform, kind="press", outcome="applied") == 2
    assert value(series, requests, platform=platform, kind="command", outcome="applied") == 1
    assert value(series, "boardroom_games_total", platform=platform, state="lobby") == 1
    assert value(series, "boardroom_answer_seconds_count", platform=platform, kind="press") == 2
    assert value(series, "boardroom_platform_calls_total", platform=platform) > 0
    assert value(series, "boardroom_redis_call_seconds_count", call="save", outcome="ok") >= 3
    assert value(series, "boardroom_redis_pool_size") == 64  # BOARDROOM_REDIS_POOL_SIZE's default
    assert value(series, "process_resident_memory_bytes") > 0


# --- Discord ---------------------------------------------------------------------------------


def button(message: FakeMessage, label: str) -> str:
    found = [c for c in message.components if str(c.get("label", "")).startswith(label)]
    assert found, f"no {label!r} button on {message.text!r}"
    return str(found[0]["custom_id"])


async def discord_lobby(fake: FakeDiscord) -> None:
    """alice starts a game; bob and carol press Join on its card."""
    started = await fake.slash(ALICE, DISCORD_CHANNEL, "bigidea", "start")
    await asyncio.wait_for(started.answered, HANG_GUARD_S)

    async def carded() -> bool:
        return any("Join" in m.text for m in fake.public(DISCORD_CHANNEL))

    await until(carded, "the lobby's card posted")
    for user in (BOB, CAROL):
        card = next(m for m in fake.public(DISCORD_CHANNEL) if "Join" in m.text)
        pressed = await fake.click(user, card, button(card, "Join"))
        await asyncio.wait_for(pressed.answered, HANG_GUARD_S)


async def test_discord_serves_health_and_metrics_that_count_presses(
    run_bot: Callable[..., Any], discord_fake: FakeDiscord
) -> None:
    port = free_port()
    env = discord_at(discord_fake, BOARDROOM_METRICS_PORT=str(port))
    async with run_bot("discord", **env) as bot:
        await bot.said("Discord: connected as Boardroom.")
        status, report = await healthz(port)
        assert status == 200 and report["ok"] is True, report
        assert (report["redis"], report["redis_pool"], report["deadlines"]) == (
            "ok",
            "ok",
            "running",
        )
        await discord_lobby(discord_fake)
        series = await counted(port, "discord", 2)
        assert value(
            series, "boardroom_platform_calls_total", method="POST /channels/{id}/messages"
        )
        await bot.stop()
    assert_counts(series, "discord")
    assert not any("Traceback" in line for line in bot.lines), bot.lines


# --- Slack -----------------------------------------------------------------------------------


Send = Callable[[bytes], Awaitable[None]]


def join_button(api: FakeSlackAPI, channel: str) -> tuple[dict[str, Any], str] | None:
    """The Join button of the lobby's card in ``channel``, and the card's ts."""
    for message in list(api.messages.values()):
        if message.channel != channel or message.deleted:
            continue
        found = components_of(message.blocks, channel, message.ts, False, commands=True)
        for component in found:
            if component.label.startswith("Join"):
                return component.action(random.Random(0)), message.ts
    return None


async def slack_lobby(client: SignedClient, api: FakeSlackAPI, send: Send, channel: str) -> None:
    """UALICE starts a game in ``channel``; UBOB and UCAROL press Join on its card."""
    await send(client.slash_body("/bigidea", "start", "UALICE", channel))

    async def carded() -> bool:
        return join_button(api, channel) is not None

    await until(carded, "the lobby's card posted")
    for user in ("UBOB", "UCAROL"):
        join = join_button(api, channel)
        assert join is not None
        await send(client.action_body(user, channel, join[0], join[1]))


def envelope(body: bytes, number: int) -> dict[str, Any]:
    """A signed HTTP body as Socket Mode delivers it instead."""
    form = {key: values[0] for key, values in parse_qs(body.decode()).items()}
    if "payload" in form:
        payload = json.loads(form["payload"])
        return {"envelope_id": f"e{number}", "type": "interactive", "payload": payload}
    return {"envelope_id": f"e{number}", "type": "slash_commands", "payload": form}


@contextlib.asynccontextmanager
async def slack_runtime(
    run_bot: Callable[..., Any],
    fakes: tuple[FakeSlackAPI, FakeSocketMode],
    mode: str,
    **env: str,
) -> AsyncIterator[tuple[Bot, SignedClient, Send]]:
    """``boardroom slack`` (``--http`` in mode ``http``) against the fakes, with a way to send
    it what Slack would (signed over HTTP, or an envelope on its socket)."""
    api, socket = fakes
    events = free_port()
    args = ("--http", "--port", str(events)) if mode == "http" else ()
    secret = SLACK_TOKENS["SLACK_SIGNING_SECRET"]
    async with (
        run_bot("slack", *args, **SLACK_TOKENS, SLACK_API_URL=api.url, **env) as bot,
        ClientSession() as session,
    ):
        await bot.said("listening on" if mode == "http" else "Socket Mode: connected.")
        client = SignedClient(f"http://127.0.0.1:{events}/slack/events", secret, session, api)
        sent = iter(range(1, 1_000_000))

        async def send(body: bytes) -> None:
            if mode == "http":
                assert await client.post(body) == 200
            else:
                await socket.send(envelope(body, next(sent)))

        yield bot, client, send


@pytest.mark.parametrize("mode", ["socket", "http"])
async def test_slack_serves_health_and_metrics_that_count_presses(
    run_bot: Callable[..., Any], slack_fake: tuple[FakeSlackAPI, FakeSocketMode], mode: str
) -> None:
    port = free_port()
    env = {"BOARDROOM_METRICS_PORT": str(port)}
    async with slack_runtime(run_bot, slack_fake, mode, **env) as (bot, client, send):
        status, report = await healthz(port)
        assert status == 200 and report["ok"] is True, report
        assert await health_command(port) == 0  # the image's HEALTHCHECK
        await slack_lobby(client, slack_fake[0], send, SLACK_CHANNELS[mode])
        series = await counted(port, "slack", 2)
        assert value(series, "boardroom_platform_calls_total", method="chat.postMessage") >= 1
        assert (
            value(series, "boardroom_platform_calls_total", method="auth.test") >= 1
        )  # (Bolt asks too)
        await bot.stop()
    assert_counts(series, "slack")
    assert not any("Traceback" in line for line in bot.lines), bot.lines
    assert await health_command(port) == 1  # nobody answers any more


async def health_command(port: int) -> int:
    """The exit status of ``boardroom health`` asking the worker on ``port``."""
    asking = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "health",
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "BOARDROOM_METRICS_PORT": str(port)},
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    return await asyncio.wait_for(asking.wait(), HANG_GUARD_S)


# --- children ------------------------------------------------------------------------------------


def children_of(pid: int) -> dict[int, str]:
    """The live processes whose parent is ``pid``, with their command lines."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_text()
            state, parent = stat.rsplit(")", 1)[1].split()[:2]
            if int(parent) == pid and state != "Z":
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
    return {child: line.decode(errors="replace") for child, line in found.items()}


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for a parent that does not reap it is dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def picture_children(bot: Bot) -> dict[int, str]:
    """The worker's picture process and multiprocessing's resource tracker, once both run."""
    found: dict[int, str] = {}

    async def started() -> bool:
        nonlocal found
        found = children_of(bot.process.pid)
        tracker = any("resource_tracker" in line for line in found.values())
        return tracker and any("spawn_main" in line for line in found.values())

    await until(started, "the picture process and the resource tracker started")
    return found


async def test_a_worker_killed_with_sigkill_leaves_no_child_running(
    run_bot: Callable[..., Any],
    slack_fake: tuple[FakeSlackAPI, FakeSocketMode],
    record_property: Callable[[str, object], None],
) -> None:
    async with slack_runtime(run_bot, slack_fake, "http") as (bot, _, _):
        children = await picture_children(bot)
        bot.process.send_signal(signal.SIGKILL)
        await asyncio.wait_for(bot.process.wait(), HANG_GUARD_S)
        killed = time.monotonic()
        while any(alive(child) for child in children) and time.monotonic() - killed < 5:
            await asyncio.sleep(0.05)
        left = {child: line for child, line in children.items() if alive(child)}
        record_property("children_gone_s", round(time.monotonic() - killed, 3))
    for child in left:  # (do not leave them to the next test either)
        os.kill(child, signal.SIGKILL)
    assert not left, f"still running 5 s after the worker was killed: {left}"


async def test_a_killed_picture_process_is_started_again_and_counted(
    run_bot: Callable[..., Any], slack_fake: tuple[FakeSlackAPI, FakeSocketMode]
) -> None:
    api, _ = slack_fake
    port, channel = free_port(), "C0PICTURE"
    env = {"BOARDROOM_METRICS_PORT": str(port)}
    async with slack_runtime(run_bot, slack_fake, "http", **env) as (bot, client, send):
        children = await picture_children(bot)
        (drawing,) = [child for child, line in children.items() if "spawn_main" in line]
        os.kill(drawing, signal.SIGKILL)
        for done, text in enumerate(("start", "addbot 2", "begin"), 1):
            await send(client.slash_body("/bigidea", text, "UALICE", channel))

            async def answered(done: int = done) -> bool:
                series = await scrape(port)
                return value(series, "boardroom_requests_total", kind="command") >= done

            await until(answered, f"{text} answered")

        async def pictured() -> bool:
            return any(
                call.method == "files.completeUploadExternal" and call.error is None
                for call in api.calls
            )

        await until(pictured, "the first board's picture uploaded")
        series = await scrape(port)
        status, report = await healthz(port)
        await bot.stop()
    assert value(series, "boardroom_picture_pool_rebuilds_total") == 1
    assert value(series, "boardroom_picture_render_seconds_count") >= 1
    assert status == 200 and report["picture_rebuilds"] == 1, report
    assert any("the picture process died" in line for line in bot.lines), bot.lines
    assert not any("Traceback" in line for line in bot.lines), bot.lines


# --- bounded by design ---------------------------------------------------------------------------

BURST = 400
IN_FLIGHT = 20


async def test_a_burst_of_starts_on_a_healthy_redis_tells_nobody_storage_is_unavailable(
    run_bot: Callable[..., Any],
    slack_fake: tuple[FakeSlackAPI, FakeSocketMode],
    record_property: Callable[[str, object], None],
) -> None:
    """400 people each start a game in their own channel, 20 requests in flight at a time:
    the worker works on a bounded number at once and waits for a pooled Redis connection
    rather than failing, and keeps within Slack's budgets (no call refused). (With redis-py's
    default pool, which fails at once past 100 connections, and no bound, 155 of 400 were
    told; 137-143 in the issue's runs.)"""
    api, _ = slack_fake
    port = free_port()
    env = {"BOARDROOM_METRICS_PORT": str(port), "BOARDROOM_PICTURES": "false"}
    async with slack_runtime(run_bot, slack_fake, "http", **env) as (bot, client, _send):
        bodies = [
            client.slash_body("/bigidea", "start", f"UBURST{n:03}", f"C0BURST{n:03}")
            for n in range(BURST)
        ]
        statuses: list[int] = []

        async def sender() -> None:
            while bodies:
                statuses.append(await client.post(bodies.pop()))

        sent = time.monotonic()
        await asyncio.gather(*(sender() for _ in range(IN_FLIGHT)))

        async def all_answered() -> bool:
            series = await scrape(port)
            return value(series, "boardroom_requests_total", kind="command") >= BURST

        # Each start posts its card: 400 posts in one workspace, which Slack takes a few
        # hundred a minute of (the fake: 300, a burst of 20; the bot keeps within it).
        posting_s = BURST / (POSTS_PER_WORKSPACE[0] / 60)
        await until(all_answered, f"{BURST} starts answered", within=posting_s + HANG_GUARD_S)
        record_property("burst_answered_s", round(time.monotonic() - sent, 2))
        series = await scrape(port)
        await bot.stop()
    said = [json.dumps(call.args) for call in api.calls]
    unavailable = sum("Storage is unavailable" in text for text in said)
    busy = sum("game store is busy" in text for text in said)
    record_property("told_unavailable", unavailable)
    record_property("told_busy", busy)
    assert statuses == [200] * BURST
    assert (unavailable, busy) == (0, 0)
    requests = "boardroom_requests_total"
    assert value(series, requests, kind="command", outcome="applied") == BURST
    assert value(series, "boardroom_redis_pool_exhausted_total") == 0
    assert not any("could not remember the table" in line for line in bot.lines), bot.lines[-5:]
    assert api.over_budget == 0, sorted(
        {(c.method, str(c.args.get("channel"))[:3]) for c in api.rate_limited}
    )


async def test_a_saturated_pool_waits_then_says_busy_and_health_tells_it_from_an_outage(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A worker whose every pooled connection is lent: a call waits for one (here, until its
    share of the timeout runs out: the store is busy, said as itself), and ``/healthz`` still
    reaches Redis on a connection of its own: Redis "ok", the pool "saturated"."""
    store = GameStore.from_url(redis_url, timeout_s=0.4, pool_size=1)
    seen: list[tuple[str, str]] = []
    store.observe = lambda call, outcome, _seconds: seen.append((call, outcome))
    authority = Authority(store, Settings())
    key = GameKey("console", "saturated")
    assert isinstance(store.client, Redis)
    pool = store.client.connection_pool
    lent = await pool.get_connection()  # type: ignore[no-untyped-call]  # (all it holds)
    try:
        waiting = asyncio.create_task(store.load(key))
        await asyncio.sleep(0.05)
        ok, report = await health(authority, Heartbeat(poll_seconds=1))
        assert ok and (report["redis"], report["redis_pool"]) == ("ok", "saturated"), report
        with pytest.raises(StorageBusy):
            await waiting
    finally:
        await pool.release(lent)
    assert await store.load(key) == (True, None)  # a connection free again: it answers
    ok, report = await health(authority, Heartbeat(poll_seconds=1))
    assert ok and report["redis_pool"] == "ok"
    assert ("load_table", "exhausted") in seen and ("load_table", "ok") in seen
    assert any("Redis connection pool exhausted (1 of 1" in r.getMessage() for r in caplog.records)
    await store.close()


def test_log_lines_as_json_carry_the_request_ids_and_no_text() -> None:
    record = logging.LogRecord(
        "bot.desk", logging.WARNING, __file__, 1, "answering %s", ("x",), None
    )
    with metrics.in_context(
        platform="slack", kind="press", channel="C1", game="bigidea", delivery="act:1"
    ):
        line = json.loads(JsonLines().format(record))
    assert line["message"] == "answering x" and line["level"] == "WARNING"
    assert {k: line[k] for k in ("platform", "kind", "channel", "game", "delivery")} == {
        "platform": "slack",
        "kind": "press",
        "channel": "C1",
        "game": "bigidea",
        "delivery": "act:1",
    }
    outside = json.loads(JsonLines().format(record))
    assert "channel" not in outside and "kind" not in outside
