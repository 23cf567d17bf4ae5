"""Database sessions side by side for the generator's heaviest statements (``manage.py generate_casino``, issue 27).

A gaming day's redemptions are written an hour at a time in one statement a batch
(:func:`compliance.scale_sql.rows_as_saved_sql`): the work is the database's (building each row's canonical content
and seal, inserting three rows and their index entries, then the foreign keys checked at commit), one core's. Here
each hour's rows are split between :data:`SESSIONS` threads, each with its own connection (Django's connections are
per thread) and its own transaction, so the database's work runs on both cores while the generator's process waits.

What each batch leaves to be linked (its rows' and audit events' digests) comes back to the caller, who files it once
every batch has committed, in id order (:func:`compliance.scale_sql.file_digests`): no session links what another
is still writing. The batches' ids interleave (each takes its ids from the shared sequences as its statement runs);
the rows themselves, their values and their order within each batch, follow from the seed alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from django.db import connections, transaction

__all__ = ["SESSIONS", "Sessions", "split_in_turns"]

SESSIONS = 2  # the machine's cores (issue 27's machine has two)

T = TypeVar("T")
R = TypeVar("R")


def split_in_turns(groups: Sequence[Sequence[T]], parts: int) -> list[list[T]]:
    """``groups`` (each kept whole, in order) dealt to ``parts`` lists, each group to the list with the fewest rows
    so far: the parts about equal in rows, each group's rows together and in their order."""
    dealt: list[list[T]] = [[] for _ in range(parts)]
    for group in groups:
        min(dealt, key=len).extend(group)
    return [part for part in dealt if part]


class Sessions:
    """:data:`SESSIONS` threads, each with its own database connection, kept for the run (``with Sessions() as s``);
    :meth:`each` runs a function on each batch, each in its own thread and transaction, and gives the results in
    the batches' order once all have committed. A failure in any batch is raised here (the others' transactions
    are whole: each commits or rolls back alone)."""

    def __init__(self, count: int = SESSIONS) -> None:
        self.count = count
        self._pool = ThreadPoolExecutor(max_workers=count, thread_name_prefix="generate_casino-session")

    def __enter__(self) -> Sessions:
        return self

    def __exit__(self, *exc: object) -> None:
        # Each thread closes its own connection (a connection belongs to the thread that opened it): the barrier
        # holds each thread's task until every thread has taken one.
        barrier = threading.Barrier(self.count, timeout=60)

        def close() -> None:
            barrier.wait()
            connections.close_all()

        for closed in [self._pool.submit(close) for _ in range(self.count)]:
            closed.result()
        self._pool.shutdown(wait=True)

    def each(self, function: Callable[[Sequence[Any]], R], batches: Sequence[Sequence[Any]]) -> list[R]:
        def in_its_transaction(batch: Sequence[Any]) -> R:
            with transaction.atomic():
                return function(batch)

        futures = [self._pool.submit(in_its_transaction, batch) for batch in batches]
        return [future.result() for future in futures]
