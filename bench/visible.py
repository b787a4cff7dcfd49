"""When players saw a game's state: the first platform call showing it, from a fake Slack's log.

A save of a game is *seen* at the first call the fake Slack accepted that shows its effect to
someone: a post, an edit or an ephemeral message of that game carrying choices built at that
state version or a later one (every choice names the version it was offered at: see
:mod:`bot.commands.codec`), or, for the save that ended the game, the result posted in the
channel or a player's panel saying the game is over. A call showing a later state shows this
save's effect too (a board drawn at a newer version includes it).

Seeing means seeing the choices: a line of the story saying that time ran out, posted before
them, does not count, as nobody can act on it. (A decision whose only choice is typed, a form
button with no version, would be seen late, at the next call carrying choices: a limit of this
measure, not of the bot.)

It reads only what the platform received (the calls' channels, blocks and texts, and the
times the fake logged them), never what the bot meant to do, so a delivery that was lost (a
worker killed after its save and before its calls) is seen when some later call repairs it,
or never.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from bot.commands.outbox import GAME_OVER
from testkit.slack.fake import Call
from testkit.slack.players import components_of, texts

__all__ = ["SHOWING", "Sightings"]

SHOWING = ("chat.postMessage", "chat.update", "chat.postEphemeral", "response_url")
"""The calls that show a message to someone."""


@dataclass(frozen=True)
class _Seen:
    at: float
    version: int | None
    """The newest version of the game's choices it carried (None: none)."""
    over: bool
    """It said the game is over (the result in the channel)."""


class Sightings:
    """What the accepted ``calls`` showed of each game, to answer :meth:`first`."""

    def __init__(self, calls: Iterable[Call]) -> None:
        self._games: defaultdict[str, list[_Seen]] = defaultdict(list)
        self._over: defaultdict[str, list[float]] = defaultdict(list)
        """User -> when a DM said their game is over (a panel closed at the end)."""
        top: set[str] = set()
        """Channels with a top-level post already (the card): the next is the result."""
        for call in calls:
            if call.method not in SHOWING or call.error is not None:
                continue
            where = str(call.channel or call.args.get("channel") or "")
            ephemeral = call.method == "chat.postEphemeral"
            presses = [
                c.press
                for c in components_of(call.blocks, where, call.ts or "", ephemeral)
                if c.press is not None
            ]
            over = GAME_OVER in texts(call)
            if where.startswith("D"):
                # A DM's choices name their game's channel.
                for game in {p.channel for p in presses if p.channel}:
                    versions = [
                        p.version for p in presses if p.channel == game and p.version is not None
                    ]
                    self._games[game].append(_Seen(call.at, max(versions, default=None), False))
                if over:
                    self._over[where[1:]].append(call.at)
                continue
            versions = [p.version for p in presses if p.version is not None]
            if call.method == "chat.postMessage" and not call.args.get("thread_ts"):
                over = over or where in top
                top.add(where)
            self._games[where].append(_Seen(call.at, max(versions, default=None), over))

    def first(
        self, channel: str, version: int, ended: bool, players: Iterable[str], since: float
    ) -> float | None:
        """When the save of ``channel``'s game at ``version`` was first seen (None: never);
        ``ended``: that save ended the game, whose ``players`` may have been told so in a DM
        (counted from ``since``, the save's time, so another game's end is not taken)."""
        times = [
            seen.at
            for seen in self._games.get(channel, [])
            if (seen.version is not None and seen.version >= version) or (ended and seen.over)
        ]
        if ended:
            times += [at for user in players for at in self._over.get(user, []) if at >= since]
        return min(times, default=None)
