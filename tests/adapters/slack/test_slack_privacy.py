"""Consent and erasure through the real Bolt app against the strict fake Slack and a real
redis-server: Rematch seats and messages nobody who did not ask, and forget-me leaves no trace
of its asker in Redis, the table's refs included, and changes nobody else's."""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import parse_qs, urlencode

from bot.commands.community.forget import AFTER_END_S
from bot.commands.community.upkeep import EVERY_S
from testkit.clock import VirtualClock
from testkit.slack.fake import TEAM, Call
from testkit.slack.loopback import Loopback
from testkit.slack.players import SlackTable
from tests.adapters.slack.conftest import CHANNEL, stored
from tests.authority_support import everything

USERS = ["UALICE", "UBOB", "UCAROL"]
STRANGER = "UZED"
NAMES = {
    "UALICE": "Alice Liddell",
    "UBOB": "Robert Tables",
    "UCAROL": "Carol Danvers",
    STRANGER: "Zed Quill",
}
QUICK = "pick_seconds=0 vote_seconds=0 turn_seconds=0"


async def _played(loop: Loopback, names: dict[str, str] = NAMES) -> SlackTable:
    for user, name in names.items():
        loop.api.add_user(user, display_name=name)
    table = SlackTable.on(loop, CHANNEL, [*USERS, STRANGER], random.Random(5), "bigidea")
    await table.command(USERS[0], f"start {QUICK}")
    for user in USERS[1:]:
        await table.command(user, "join")
    await table.command(USERS[0], "begin")
    await table.play(max_presses=2_000)
    await loop.adapter.settled()
    finished = await stored(loop)
    assert finished is not None and finished.status == "finished"
    return table


def _to_whom(loop: Loopback, call: Call) -> set[str]:
    """The people a call reaches privately (a DM, an ephemeral post, a response URL); a post
    or edit in the game's channel or thread reaches nobody in particular."""
    if call.method == "conversations.open":
        return set(str(call.args.get("users", "")).split(","))
    if call.method == "chat.postEphemeral":
        return {str(call.args["user"])}
    if call.method == "response_url":
        issued = [r for r in loop.api.response_urls.values() if r.url == call.url]
        return {str(issued[0].user)} if issued else {"?"}
    if call.method == "views.publish":
        return {str(call.args["user_id"])}
    channel = str(call.args.get("channel") or call.channel or "")
    return {f"DM {channel}"} if channel.startswith("D") else set()


async def test_a_strangers_rematch_seats_nobody_and_messages_nobody(loop: Loopback) -> None:
    table = await _played(loop)
    finished = await stored(loop)
    since = len(loop.api.calls)
    await table.press_label(STRANGER, "Rematch", commands=True)
    await loop.adapter.settled()
    assert await stored(loop) == finished  # nobody seated, nothing saved
    reached = set().union(*(_to_whom(loop, c) for c in loop.api.calls[since:]))
    assert reached == {STRANGER}
    assert not [c for c in loop.api.calls[since:] if c.method == "chat.postMessage"]


async def test_a_players_rematch_seats_only_them_and_each_other_joins_with_one_press(
    loop: Loopback,
) -> None:
    table = await _played(loop)
    since, notified = len(loop.api.calls), len(loop.api.notifications)
    await table.press_label(USERS[1], "Rematch", commands=True)
    await loop.adapter.settled()
    lobby = await stored(loop)
    assert lobby is not None and lobby.status == "lobby" and lobby.host == USERS[1]
    assert [s.users for s in lobby.seats] == [[USERS[1]]]
    assert [i.user for i in lobby.invited] == [USERS[0], USERS[2]]
    reached = set().union(*(_to_whom(loop, c) for c in loop.api.calls[since:]))
    assert reached <= {USERS[1]}  # no DM, no private message, no Home tab for the others
    assert not loop.api.notifications[notified:]  # nobody pinged
    await table.press_label(USERS[2], "Join", commands=True)
    lobby = await stored(loop)
    assert lobby is not None and [s.users for s in lobby.seats] == [[USERS[1]], [USERS[2]]]


async def _forget(loop: Loopback, clock: VirtualClock, user: str, team: str = TEAM) -> None:
    """``/boardroom forget-me yes`` from ``user`` (the request saying workspace ``team``),
    then time enough for the job's last chore (the ended game's table)."""
    slack = SlackTable.on(loop, CHANNEL, [user], random.Random(1), "boardroom").slack
    form = parse_qs(slack.slash_body("/boardroom", "forget-me yes", user, CHANNEL).decode())
    form["team_id"] = [team]
    status = await slack.post(urlencode({k: v[0] for k, v in form.items()}).encode())
    assert status == 200
    await loop.adapter.settled()
    clock.skipped += AFTER_END_S + EVERY_S + 1
    for out in await loop.authority.fire_due("slack"):
        await loop.adapter.deliver(out)
    await loop.adapter.settled()


async def _snapshot(loop: Loopback) -> dict[str, Any]:
    client: Any = loop.store.client
    found: dict[str, Any] = {}
    async for key in client.scan_iter(match="*"):
        kind = await client.type(key)
        if kind == "hash":
            found[key] = await client.hgetall(key)
        elif kind == "string":
            found[key] = await client.get(key)
    return found


async def test_forget_me_over_slack_leaves_no_trace_in_redis_refs_included(
    loop: Loopback, clock: VirtualClock
) -> None:
    await _played(loop)
    refs = loop.store.client.hget(f"boardroom:{{slack:{CHANNEL}}}:refs", "data")
    assert await refs
    assert any("UBOB" in text for _, text in await everything(loop.store))
    await _forget(loop, clock, "UBOB")
    for key, text in await everything(loop.store):
        assert "UBOB" not in key and "UBOB" not in text, key
        assert NAMES["UBOB"] not in text, key
    record = await stored(loop)
    assert record is not None and "a former player" in [s.name for s in record.seats]


async def test_forget_me_from_another_workspace_erases_in_the_games_own(
    loop: Loopback, clock: VirtualClock
) -> None:
    """The request names another team id: the erasure is scoped to the person, so it happens
    where their games are kept, and they are told so."""
    await _played(loop)
    since = len(loop.api.calls)
    await _forget(loop, clock, "UBOB", team="T0THER")
    said = [
        str(c.args.get("text", "")) for c in loop.api.calls[since:] if _to_whom(loop, c) == {"UBOB"}
    ]
    assert any("nothing of yours in this community" in text for text in said), said
    for key, text in await everything(loop.store):
        assert "UBOB" not in key and "UBOB" not in text, key


async def test_a_namesake_forgotten_over_slack_changes_no_one_elses_game(
    loop: Loopback, clock: VirtualClock
) -> None:
    """Zed calls himself "Alice Liddell" and has played nothing: his forget-me leaves the
    game, its log and its table's refs byte for byte, and the community's records."""
    await _played(loop, {**NAMES, STRANGER: NAMES["UALICE"]})
    before = await _snapshot(loop)
    await _forget(loop, clock, STRANGER)
    after = await _snapshot(loop)
    # (The platform's call budgets are the workspace's, not anyone's record: answering him
    # spends them.)
    passing = (":dedupe:", "chores", "{budget:")
    kept_before = {k: v for k, v in before.items() if not any(p in k for p in passing)}
    kept_after = {k: v for k, v in after.items() if not any(p in k for p in passing)}
    assert kept_after == kept_before
