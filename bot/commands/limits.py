"""Per-person limits on what the bot posts or uploads on someone's behalf.

| kind | what counts | most in :data:`WINDOW_S` (setting) |
| --- | --- | --- |
| ``lobby`` | a lobby opened (``start``, Rematch) | 10 (``BOARDROOM_LIMIT_LOBBIES``) |
| ``share`` | a leaderboard shown to the channel | 3 (``BOARDROOM_LIMIT_SHARES``) |
| ``upload`` | a whole rules page sent as a file (``rules all``) | 5 (``BOARDROOM_LIMIT_UPLOADS``) |

A person past a limit is told, privately, when they may again; nothing is posted. The counts
are kept in Redis (``storage.limits``: a sliding window per person), so every worker shares
them; a platform's retry of one delivery counts once, and what ended up posting nothing (a
``start`` refused because the channel holds a game) is given back. 0 turns a limit off.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from bot.commands.step import Request
from bot.settings import Settings
from core import text as markup
from storage import GameStore
from storage import limits as counted

__all__ = ["WINDOW_S", "Limits", "Taken"]

WINDOW_S = 600.0
"""The window every limit counts in: ten minutes."""

_SAYS = {
    "lobby": ("opened {n}", ("lobby", "lobbies"), "open another"),
    "share": ("shown {n} to the channel", ("leaderboard", "leaderboards"), "show another"),
    "upload": ("asked for {n}", ("whole rules page", "whole rules pages"), "have another"),
}
"""Per kind: what the person did, what they did it with, what they may do again."""


@dataclass(frozen=True)
class Taken:
    """One count taken for a request, to give back if it posted nothing."""

    kind: str
    token: str


class Limits:
    """Counts what each person has the bot post or upload, and refuses past a limit."""

    def __init__(self, store: GameStore, settings: Settings, clock: Callable[[], float]) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock

    def most(self, kind: str) -> int:
        return {
            "lobby": self.settings.limit_lobbies,
            "share": self.settings.limit_shares,
            "upload": self.settings.limit_uploads,
        }[kind]

    async def take(self, req: Request, kind: str) -> Taken | str:
        """Count ``kind`` for the requester: the count taken, or the sentence refusing it."""
        most = self.most(kind)
        token = req.delivery or secrets.token_hex(8)
        if most <= 0 or not req.user:
            return Taken(kind, token)
        now = self.clock()
        again = await counted.take(
            self.store,
            req.platform,
            req.user,
            kind,
            token,
            most=most,
            window_s=WINDOW_S,
            now=now,
        )
        if again is None:
            return Taken(kind, token)
        return refusal(kind, most, again - now)

    async def give_back(self, req: Request, taken: Taken) -> None:
        """What ``taken`` counted posted nothing after all."""
        if self.most(taken.kind) > 0 and req.user:
            await counted.give_back(self.store, req.platform, req.user, taken.kind, taken.token)


def refusal(kind: str, most: int, wait_s: float) -> str:
    """The sentence a person past the limit of ``kind`` reads."""
    done, (one, many), again = _SAYS[kind]
    wait = max(1, math.ceil(wait_s))
    when = (
        markup.plural(wait, "second")
        if wait < 90
        else markup.plural(math.ceil(wait / 60), "minute")
    )
    return (
        f"You have {done.format(n=markup.plural(most, one, many))} in the last "
        f"{round(WINDOW_S / 60)} minutes, the most I allow; you can {again} in {when}."
    )
