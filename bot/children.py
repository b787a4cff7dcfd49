"""What runs inside a worker's picture process besides the drawing itself (kept small: the
process imports this module, not the worker's).

A child process outlives a parent killed with SIGKILL: it is handed to PID 1 and runs on, and so
does multiprocessing's resource tracker, which waits for every process holding its pipe (the
picture process among them) to end. :func:`die_with_parent` ends the picture process as soon as
its parent is gone, however it went, and the tracker ends with it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["WATCH_S", "die_with_parent", "timed"]

P = ParamSpec("P")
R = TypeVar("R")

WATCH_S = 0.25
"""How often a child looks whether its parent is still there."""


def die_with_parent(parent: int) -> None:
    """The picture process's initializer: exit at once when the process that started it
    (``parent``) is no longer its parent (it died: the child was handed to another).

    A thread polls :func:`os.getppid` (Linux's ``PR_SET_PDEATHSIG`` fires when the *thread* that
    started the child ends, and the pool may start one from a thread that ends soon after)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_S)
        os._exit(0)

    if os.getppid() != parent:
        os._exit(0)
    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def timed(work: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> tuple[float, R]:
    """``work``'s result and the seconds it took, measured where it ran."""
    started = time.perf_counter()
    result = work(*args, **kwargs)
    return time.perf_counter() - started, result
