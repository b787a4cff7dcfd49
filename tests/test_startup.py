"""Starting and stopping ``boardroom discord`` and ``boardroom slack`` as an operator or a
supervisor does: the real command in its own process, pointed at 127.0.0.1 (a closed port, a
port that accepts and never answers, or the fake platforms), and signalled.

A start that cannot go on ends in one sentence on stderr and a non-zero exit (1: the platform
cannot be reached; 2: a token it refuses), never a traceback; SIGTERM and SIGINT end the process
whatever the start is waiting for, with status 0. Every wait on the process has a generous bound
(:data:`HANG_GUARD_S`): a guard against a hang, not a measure of speed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import discord
import pytest
from aiohttp import ClientSession

from bot.adapters.discord.adapter import INVITE_PERMISSIONS
from bot.adapters.discord.cli import TOKEN_REFUSED
from testkit.discord.fake import FakeDiscord
from testkit.local_server import free_port
from testkit.slack.fake import FakeSlackAPI, sign
from tests.adapters.slack.socket_server import FakeSocketMode

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD_S = 60.0
"""How long any wait on the bot's process may take before the test calls it a hang (the
interpreter alone takes seconds to start on a busy machine)."""
VOICE_AND_INTENT_WARNINGS = ("Guilds intent", "PyNaCl", "davey")
STOPPED = "Stopped."


class Bot:
    """``python -m bot <args>`` running, its stderr read line by line as it comes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._grew = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stderr is not None
        async for raw in self.process.stderr:
            self.lines.append(raw.decode().rstrip("\n"))
            self._grew.set()
        self._grew.set()

    async def said(self, text: str) -> None:
        """Wait until a line of stderr holds ``text`` (or fail if the process ends first)."""

        async def seen() -> None:
            while not any(text in line for line in self.lines):
                assert not self._reader.done(), f"exited without saying {text!r}: {self.lines}"
                self._grew.clear()
                await self._grew.wait()

        await asyncio.wait_for(seen(), HANG_GUARD_S)

    async def exited(self) -> int:
        """The exit status of a process that ends by itself."""
        status = await asyncio.wait_for(self.process.wait(), HANG_GUARD_S)
        await asyncio.wait_for(self._reader, HANG_GUARD_S)
        return status

    async def stop(self, sig: signal.Signals = signal.SIGTERM) -> tuple[int, float]:
        """Send ``sig``; the exit status, and the seconds until the process ended (recorded for
        the report, never asserted)."""
        sent = time.monotonic()
        self.process.send_signal(sig)
        status = await self.exited()
        return status, time.monotonic() - sent

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()

    @property
    def sentences(self) -> list[str]:
        """What stderr said beside the progress log (INFO lines): the bot's own sentences, and
        any warning or error a library logged."""
        return [line for line in self.lines if not line.startswith(("INFO ", "DEBUG "))]

    def only_sentence(self) -> str:
        """The one sentence the process ended with, checking there was nothing else to read."""
        assert not any("Traceback" in line for line in self.lines), "\n".join(self.lines)
        assert len(self.sentences) == 1, self.lines
        return self.sentences[0]


@pytest.fixture
async def run_bot(
    tmp_path: Path, redis_url: str
) -> AsyncIterator[Callable[..., contextlib.AbstractAsyncContextManager[Bot]]]:
    """Start the real ``boardroom`` command (on the session's Redis, so that stderr holds only
    what starting says; in an empty directory, so that no ``.env`` is read)."""
    started: list[Bot] = []

    @contextlib.asynccontextmanager
    async def run(*args: str, **env: str) -> AsyncIterator[Bot]:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            *args,
            cwd=tmp_path,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "REDIS_URL": redis_url, **env},
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        bot = Bot(process)
        started.append(bot)
        yield bot

    yield run
    for bot in started:
        bot.kill()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(bot.process.wait(), HANG_GUARD_S)


class Silent:
    """A port that accepts connections and never answers: a network that swallows requests."""

    def __init__(self) -> None:
        self.accepted = asyncio.Event()
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> Silent:
        self._server = await asyncio.start_server(self._hold, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _hold(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted.set()
        await reader.read()  # until the client gives up; nothing is ever answered
        writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def connected(self) -> None:
        await asyncio.wait_for(self.accepted.wait(), HANG_GUARD_S)


@pytest.fixture
async def silent() -> AsyncIterator[Silent]:
    server = await Silent().start()
    yield server
    await server.close()


@pytest.fixture
async def discord_fake() -> AsyncIterator[FakeDiscord]:
    server = await FakeDiscord().start()
    yield server
    await server.close()


@pytest.fixture
async def slack_fake() -> AsyncIterator[tuple[FakeSlackAPI, FakeSocketMode]]:
    api = FakeSlackAPI()
    await api.start()
    socket = FakeSocketMode()
    api.socket_url = await socket.start()
    yield api, socket
    await socket.close()
    await api.close()


def discord_at(fake: FakeDiscord, **env: str) -> dict[str, str]:
    return {
        "DISCORD_TOKEN": "test-token",
        "DISCORD_API_URL": fake.api_url,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "DISCORD_GUILD_IDS": str(fake.guild_id),
        **env,
    }


SLACK_TOKENS = {
    "SLACK_BOT_TOKEN": "xoxb-test",
    "SLACK_APP_TOKEN": "xapp-test",
    "SLACK_SIGNING_SECRET": "test-secret",
}
MODES = {"socket": (), "http": ("--http", "--port", "0")}


# --- the invite ----------------------------------------------------------------------------------


def listed_permissions(path: str, section: str) -> discord.Permissions:
    """The permissions ``path`` lists as "permissions (View Channel, ...)" in ``section``, as
    Discord's settings name them (which name discord.py's flags, in lower case with _)."""
    text = (ROOT / path).read_text()
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    found = re.findall(r"permissions\s+\(([^)]*)\)", body)
    assert len(found) == 1, f"{path} ({section}) lists the invite's permissions {len(found)} times"
    names = [" ".join(name.split()) for name in found[0].split(",")]
    flags = [name.lower().replace(" ", "_") for name in names]
    unknown = [
        name
        for name, flag in zip(names, flags, strict=True)
        if flag not in discord.Permissions.VALID_FLAGS
    ]
    assert not unknown, f"{path} names permissions Discord does not have: {unknown}"
    return discord.Permissions(**dict.fromkeys(flags, True))


@pytest.mark.parametrize(
    ("path", "section"), [("docs/running.md", "Running on Discord"), ("docs/discord.md", "Set up")]
)
def test_the_docs_list_exactly_the_permissions_the_invite_asks_for(path: str, section: str) -> None:
    assert listed_permissions(path, section) == INVITE_PERMISSIONS
    for value in re.findall(r"permissions=(\d+)", (ROOT / path).read_text()):
        assert int(value) == INVITE_PERMISSIONS.value  # an invite URL quoted as an example


def test_the_invite_url_asks_for_the_permissions_the_readme_lists(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bot", "discord", "invite", "--client-id", "123456789012345678"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    url = urlparse(result.stdout.strip())
    query = parse_qs(url.query)
    assert (url.scheme, url.netloc, url.path) == ("https", "discord.com", "/oauth2/authorize")
    assert query["client_id"] == ["123456789012345678"]
    assert query["scope"] == ["bot applications.commands"]
    asked = discord.Permissions(int(query["permissions"][0]))
    assert asked == listed_permissions("docs/running.md", "Running on Discord")
    assert asked.create_public_threads and asked.send_messages_in_threads


# --- Discord -------------------------------------------------------------------------------------


async def test_discord_without_a_network_says_so_and_exits_1(run_bot: Callable[..., Any]) -> None:
    closed = free_port()
    api = f"http://127.0.0.1:{closed}/api/v10"
    env = {"DISCORD_TOKEN": "test-token", "DISCORD_API_URL": api}
    async with run_bot("discord", **env, DISCORD_GATEWAY_URL=f"ws://127.0.0.1:{closed}/") as bot:
        assert await bot.exited() == 1
    assert bot.only_sentence() == (
        f"Could not reach Discord at {api}: connection refused. Check the network, or "
        "DISCORD_API_URL."
    )


async def test_discord_on_a_silent_network_stops_on_sigterm(
    run_bot: Callable[..., Any], silent: Silent, record_property: Callable[[str, object], None]
) -> None:
    api = f"http://127.0.0.1:{silent.port}/api/v10"
    async with run_bot("discord", DISCORD_TOKEN="test-token", DISCORD_API_URL=api) as bot:
        await silent.connected()  # the bot is waiting for Discord's answer to its login
        status, seconds = await bot.stop()
    record_property("sigterm_to_exit_s", round(seconds, 3))
    assert status == 0
    assert bot.only_sentence() == "Stopped before the bot had connected to Discord."


async def test_discord_on_a_silent_network_gives_up_after_the_timeout(
    run_bot: Callable[..., Any], silent: Silent
) -> None:
    api = f"http://127.0.0.1:{silent.port}/api/v10"
    env = {"DISCORD_TOKEN": "test-token", "BOARDROOM_CONNECT_TIMEOUT_SECONDS": "1"}
    async with run_bot("discord", **env, DISCORD_API_URL=api) as bot:
        assert await bot.exited() == 1
    assert bot.only_sentence().startswith(f"Discord at {api} did not answer within 1 s: ")


async def test_discord_refusing_the_token_says_which_setting_and_exits_2(
    run_bot: Callable[..., Any], discord_fake: FakeDiscord
) -> None:
    discord_fake.token = "the-current-token"
    async with run_bot("discord", **discord_at(discord_fake, DISCORD_TOKEN="an-old-one")) as bot:
        assert await bot.exited() == 2
    assert bot.only_sentence() == TOKEN_REFUSED
    assert [c.code for c in discord_fake.refused] == [0]  # one 401, then nothing more was tried


async def test_discord_without_its_gateway_says_so_and_exits_1(
    run_bot: Callable[..., Any], discord_fake: FakeDiscord
) -> None:
    gateway = f"ws://127.0.0.1:{free_port()}/"
    async with run_bot("discord", **discord_at(discord_fake, DISCORD_GATEWAY_URL=gateway)) as bot:
        assert await bot.exited() == 1
    assert bot.only_sentence() == (
        f"Could not open Discord's gateway at {gateway}: connection refused. Check the network, "
        "or DISCORD_GATEWAY_URL."
    )


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_discord_starts_without_warnings_and_stops_on_a_signal(
    run_bot: Callable[..., Any],
    discord_fake: FakeDiscord,
    sig: signal.Signals,
    record_property: Callable[[str, object], None],
) -> None:
    async with run_bot("discord", **discord_at(discord_fake)) as bot:
        await bot.said("Discord: connected as Boardroom.")
        assert str(discord_fake.guild_id) in discord_fake.commands  # synced, then connected
        status, seconds = await bot.stop(sig)
    record_property("signal_to_exit_s", round(seconds, 3))
    assert status == 0
    for warning in VOICE_AND_INTENT_WARNINGS:
        assert not any(warning in line for line in bot.lines), bot.lines
    assert not any("Traceback" in line for line in bot.lines), bot.lines
    assert bot.sentences == ["Discord: connected as Boardroom.", STOPPED]


# --- Slack ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", sorted(MODES))
async def test_slack_without_a_network_says_so_and_exits_1(
    run_bot: Callable[..., Any], mode: str
) -> None:
    api = f"http://127.0.0.1:{free_port()}/api/"
    async with run_bot("slack", *MODES[mode], **SLACK_TOKENS, SLACK_API_URL=api) as bot:
        assert await bot.exited() == 1
    assert bot.only_sentence() == (
        f"Could not reach Slack at {api}: connection refused. Check the network, or SLACK_API_URL."
    )


@pytest.mark.parametrize(
    ("mode", "sig"),
    [("socket", signal.SIGTERM), ("socket", signal.SIGINT), ("http", signal.SIGTERM)],
)
async def test_slack_on_a_silent_network_stops_on_a_signal(
    run_bot: Callable[..., Any],
    silent: Silent,
    mode: str,
    sig: signal.Signals,
    record_property: Callable[[str, object], None],
) -> None:
    api = f"http://127.0.0.1:{silent.port}/api/"
    async with run_bot("slack", *MODES[mode], **SLACK_TOKENS, SLACK_API_URL=api) as bot:
        await silent.connected()  # waiting for Slack's answer to auth.test
        status, seconds = await bot.stop(sig)
    record_property("signal_to_exit_s", round(seconds, 3))
    assert status == 0
    assert bot.only_sentence() == "Stopped before the bot had connected to Slack."


async def test_slack_on_a_silent_network_gives_up_after_the_timeout(
    run_bot: Callable[..., Any], silent: Silent
) -> None:
    api = f"http://127.0.0.1:{silent.port}/api/"
    env = {**SLACK_TOKENS, "BOARDROOM_CONNECT_TIMEOUT_SECONDS": "1"}
    async with run_bot("slack", **env, SLACK_API_URL=api) as bot:
        assert await bot.exited() == 1
    assert bot.only_sentence().startswith(f"Slack at {api} did not answer within 1 s: ")


@pytest.mark.parametrize(
    ("method", "error", "setting", "says"),
    [
        ("auth.test", "invalid_auth", "SLACK_BOT_TOKEN", "Slack refused SLACK_BOT_TOKEN"),
        ("auth.test", "token_revoked", "SLACK_BOT_TOKEN", "no longer works"),
        ("auth.test", "account_inactive", "SLACK_BOT_TOKEN", "no longer works"),
        ("apps.connections.open", "invalid_auth", "SLACK_APP_TOKEN", "Slack refused"),
    ],
)
async def test_slack_refusing_a_token_says_which_and_exits_2(
    run_bot: Callable[..., Any],
    slack_fake: tuple[FakeSlackAPI, FakeSocketMode],
    method: str,
    error: str,
    setting: str,
    says: str,
) -> None:
    api, socket = slack_fake
    api.fail[method] = error  # what Slack answers for a bad, revoked or uninstalled token
    async with run_bot("slack", **SLACK_TOKENS, SLACK_API_URL=api.url) as bot:
        assert await bot.exited() == 2
    sentence = bot.only_sentence()
    assert setting in sentence and f"({error})" in sentence and says in sentence, sentence
    assert not socket.connected.is_set()


async def test_slack_without_its_socket_says_so_and_exits_1(
    run_bot: Callable[..., Any], slack_fake: tuple[FakeSlackAPI, FakeSocketMode]
) -> None:
    api, _ = slack_fake
    api.socket_url = f"ws://127.0.0.1:{free_port()}/link"  # Slack answers; its websocket does not
    async with run_bot("slack", **SLACK_TOKENS, SLACK_API_URL=api.url) as bot:
        assert await bot.exited() == 1
    assert bot.only_sentence().startswith(
        "Could not open Slack's Socket Mode connection: connection refused."
    )


@pytest.mark.parametrize(
    ("mode", "sig", "connected"),
    [
        ("socket", signal.SIGTERM, "Slack Socket Mode: connected."),
        ("socket", signal.SIGINT, "Slack Socket Mode: connected."),
        ("http", signal.SIGTERM, "Slack HTTP mode: listening on 127.0.0.1:"),
    ],
)
async def test_slack_starts_without_warnings_and_stops_on_a_signal(
    run_bot: Callable[..., Any],
    slack_fake: tuple[FakeSlackAPI, FakeSocketMode],
    mode: str,
    sig: signal.Signals,
    connected: str,
    record_property: Callable[[str, object], None],
) -> None:
    api, socket = slack_fake
    args = ("--http", "--port", str(free_port())) if mode == "http" else ()
    async with run_bot("slack", *args, **SLACK_TOKENS, SLACK_API_URL=api.url) as bot:
        await bot.said(connected)
        assert socket.connected.is_set() == (mode == "socket")
        status, seconds = await bot.stop(sig)
    record_property("signal_to_exit_s", round(seconds, 3))
    assert status == 0
    assert not any("Traceback" in line for line in bot.lines), bot.lines
    assert [s for s in bot.sentences if connected not in s] == [STOPPED], bot.lines
    assert [c.method for c in api.calls][:1] == ["auth.test"]  # the bot token, checked first


async def test_slack_http_answers_hostile_requests_in_a_few_short_log_lines(
    run_bot: Callable[..., Any],
    slack_fake: tuple[FakeSlackAPI, FakeSocketMode],
    record_property: Callable[[str, object], None],
) -> None:
    """``boardroom slack --http`` as deployed, at its default log level: unsigned megabytes,
    bodies that crashed the parser, signed payloads missing what the listeners read."""
    api, _ = slack_fake
    port = free_port()
    args = ("--http", "--port", str(port))
    async with run_bot("slack", *args, **SLACK_TOKENS, SLACK_API_URL=api.url) as bot:
        await bot.said(f"Slack HTTP mode: listening on 127.0.0.1:{port}/")
        before = sum(len(line.encode()) + 1 for line in bot.lines)
        url = f"http://127.0.0.1:{port}/slack/events"
        statuses: dict[str, list[int]] = {}
        async with ClientSession() as session:

            async def post(what: str, body: bytes, headers: dict[str, str]) -> None:
                sent = {"Content-Type": "application/x-www-form-urlencoded", **headers}
                async with session.post(url, data=body, headers=sent) as response:
                    statuses.setdefault(what, []).append(response.status)

            def signed(body: bytes) -> dict[str, str]:
                now = int(time.time())
                return {
                    "X-Slack-Request-Timestamp": str(now),
                    "X-Slack-Signature": sign(SLACK_TOKENS["SLACK_SIGNING_SECRET"], body, now),
                }

            for _ in range(50):
                await post("unsigned 1 MB", b"x" * 1_000_000, {})
            bad_ts = {"X-Slack-Signature": "v0=" + "0" * 64}
            for what, body, headers in [
                ("{ not JSON", b"{not json", {}),
                ("payload= not JSON", b"payload=%7Bnope", {}),
                ("not UTF-8", b"\xff\xfe\x80", {}),
                ("a JSON array", b"[1]", {"Content-Type": "application/json"}),
                ("200,000-deep", b"[" * 200_000 + b"]" * 200_000, {}),
                ("timestamp abc", b"command=x", {**bad_ts, "X-Slack-Request-Timestamp": "abc"}),
                (
                    "400-digit timestamp",
                    b"command=x",
                    {**bad_ts, "X-Slack-Request-Timestamp": "9" * 400},
                ),
            ]:
                await post(what, body, headers)
            user = {"id": "UALICE", "name": "alice"}
            for what, payload in [
                ("a user that is a string", {"type": "block_actions", "user": "UALICE"}),
                ("actions=[]", {"type": "block_actions", "user": user, "actions": []}),
                ("a view that is a string", {"type": "view_submission", "user": user, "view": "x"}),
            ]:
                body = urlencode({"payload": json.dumps(payload)}).encode()
                await post(what, body, signed(body))
            command = urlencode({"command": "/bigidea", "user_id": "UALICE"}).encode()
            await post("a command without channel_id", command, signed(command))
        status, _ = await bot.stop()
    grown = sum(len(line.encode()) + 1 for line in bot.lines) - before
    record_property("log_bytes", grown)
    assert status == 0
    assert statuses.pop("unsigned 1 MB") == [401] * 50
    assert all(400 <= s < 500 for codes in statuses.values() for s in codes), statuses
    assert grown < 100_000, grown
    assert not any("Traceback" in line for line in bot.lines), bot.lines[-20:]
