"""The Slack adapter: an async Bolt app that translates slash commands and Block Kit presses for
the authority and delivers its Outboxes through the Web API. No game rule lives here."""

from __future__ import annotations

from bot.adapters.slack.app import PLATFORM, SlackAdapter

__all__ = ["PLATFORM", "SlackAdapter"]
