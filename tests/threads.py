"""Calls made at the same moment from real threads, for the tests of what PostgreSQL decides in a race."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections

__all__ = ["at_once"]


def at_once(*calls: Callable[[], Any], timeout: float = 60) -> list[Any]:
    """Start every call at the same moment (a barrier), each on a thread and database connection of its own;
    each call's result, or the exception it raised (a test looks at the outcome)."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            outcomes[index] = call()
        except Exception as error:
            outcomes[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    return outcomes
