"""The table layer: what each surface of a game shows, on every platform.

An :class:`~bot.commands.outbox.Outbox` says what the card, the board, the log, the prompt, the
panels and the turn notice should show now. :class:`Table` compares that with what was last
shown (message refs and digests kept in Redis beside the game, so a restart or another worker
carries on with the same messages) and decides per surface: post, edit, move, delete, or nothing.
It is the same for Discord, Slack and the console; each implements the few primitives of
:class:`Platform` (and, for the interaction being answered, :class:`Answer`) for its SDK.

Three parts: the refs and the platform's primitives (:mod:`bot.table.model`), a pure plan of
what a delivery does to each surface (:mod:`bot.table.plan`, where the table's rules are), and
the delivery that carries it out and writes the refs with a compare-and-set
(:mod:`bot.table.deliver`), and the platforms' budgets every call is taken from
(:mod:`bot.table.budget`).
"""

from bot.table.clock import Clock, MonotonicClock
from bot.table.deliver import Table
from bot.table.model import (
    Answer,
    Closed,
    Delivered,
    Gone,
    Place,
    Platform,
    Refs,
    Refused,
    Shown,
    Stuck,
    digest,
)
from bot.table.plan import (
    CLOSED_NOTE,
    COALESCE_S,
    LOG_FLUSH,
    LOG_MESSAGE,
    LOG_ON_BOARD,
    MAX_BELOW,
    MOVE_AT,
    NO_THREAD,
    PENDING_S,
    YOUR_MOVE,
    plan,
)

__all__ = [
    "CLOSED_NOTE",
    "COALESCE_S",
    "LOG_FLUSH",
    "LOG_MESSAGE",
    "LOG_ON_BOARD",
    "MAX_BELOW",
    "MOVE_AT",
    "NO_THREAD",
    "PENDING_S",
    "YOUR_MOVE",
    "Answer",
    "Clock",
    "Closed",
    "Delivered",
    "Gone",
    "MonotonicClock",
    "Place",
    "Platform",
    "Refs",
    "Refused",
    "Shown",
    "Stuck",
    "Table",
    "digest",
    "plan",
]
