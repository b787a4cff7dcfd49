"""The rationing the fake platforms enforce: Slack's token buckets and Discord's windows.

Both fakes refuse a call past its budget before doing anything (a refused call changes nothing),
with the platform's own answer: Slack's HTTP 429 ``ratelimited`` with ``Retry-After`` in whole
seconds, Discord's 429 with ``retry_after`` and the ``X-RateLimit-*`` headers discord.py reads.

- :class:`TokenBucket`: Slack's tiers ("Tier 3: 50+ per minute, sporadic bursts welcome"): a
  bucket of ``burst`` calls refilled at the minute rate; a call takes one or is refused until
  one is back.
- :class:`Window`: Discord's per-route buckets and its global limit: ``limit`` calls in a window
  of ``window_s`` that opens with the first call and resets whole (what ``X-RateLimit-Limit``,
  ``-Remaining`` and ``-Reset-After`` describe).

Time is whatever the fake's clock says (monotonic seconds), so that a test's virtual clock runs
the windows as it runs the bot's own pacing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["TokenBucket", "Window", "WindowState"]


@dataclass
class TokenBucket:
    """``burst`` calls at once, refilled at ``per_minute`` a minute."""

    per_minute: float
    burst: int
    tokens: float = -1.0
    at: float = 0.0

    def _refill(self, now: float) -> None:
        if self.tokens < 0:
            self.tokens, self.at = float(self.burst), now
            return
        elapsed = max(0.0, now - self.at)
        self.tokens = min(float(self.burst), self.tokens + elapsed * self.per_minute / 60.0)
        self.at = now

    def take(self, now: float) -> float:
        """Take a call's token: 0 when granted, else the seconds until one is back (nothing
        taken)."""
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) * 60.0 / self.per_minute

    @staticmethod
    def retry_after(wait: float) -> int:
        """Slack's ``Retry-After``: whole seconds, at least one."""
        return max(1, math.ceil(wait))


@dataclass(frozen=True)
class WindowState:
    """What Discord's headers say of a bucket after a call."""

    granted: bool
    limit: int
    remaining: int
    reset_after: float


@dataclass
class Window:
    """``limit`` calls per ``window_s``, the window opening with its first call."""

    limit: int
    window_s: float
    used: int = 0
    opened: float = -math.inf

    def take(self, now: float) -> WindowState:
        if now - self.opened >= self.window_s:
            self.opened, self.used = now, 0
        reset_after = max(0.0, self.opened + self.window_s - now)
        if self.used >= self.limit:
            return WindowState(False, self.limit, 0, reset_after)
        self.used += 1
        return WindowState(True, self.limit, self.limit - self.used, reset_after)

    def give_back(self) -> None:
        """A call counted here was refused by another bucket before it was made."""
        self.used = max(0, self.used - 1)
