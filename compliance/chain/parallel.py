"""A large table's row scan shared by processes, one range of ids each, all in one snapshot of the database.

The full verification of a big table is bound by the CPU (each row's canonical content, its seal, its
digest): the verifying process exports its snapshot (``pg_export_snapshot``), splits the ids into as many ranges
as the machine has cores, scans the first itself and gives each other range to a process of its own (started
afresh: nothing of the parent's connection is shared), which scans it with
:class:`compliance.chain.scan.RowScan` inside that same snapshot; then it adds up what they found. A link whose rows straddle two ranges is checked by both, each from its own offset in the link.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

from django.conf import settings
from django.db import connection

from compliance.chain.report import ChainReport, Clock, OutOfTime
from compliance.chain_worker import scan_part, start_child
from compliance.models import Sealed

__all__ = ["PARALLEL_ABOVE", "parallel_worth_it", "scan_in_parallel"]

PARALLEL_ABOVE = 400_000  # rows of one model: below, starting processes costs more than it saves
_DATABASE_KEYS = ("NAME", "USER", "PASSWORD", "HOST", "PORT")


def _workers() -> int:
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 8))


def parallel_worth_it(model: type[Sealed]) -> bool:
    """PostgreSQL, several cores, a snapshot to share (the verification's own transaction) and a big table."""
    if connection.vendor != "postgresql" or _workers() < 2 or not getattr(connection, "_verify_snapshot_ok", False):
        return False
    if multiprocessing.current_process().daemon:  # a Celery pool process may not start processes of its own
        return False
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT max(id) - min(id) FROM "{model._meta.db_table}"')  # noqa: S608 - our table
        span = cursor.fetchone()[0]
    return bool(span and span >= PARALLEL_ABOVE)


def _bounds(model: type[Sealed], parts: int) -> list[tuple[int | None, int | None]]:
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT count(*) FROM "{table}"')  # noqa: S608 - our table
        total = cursor.fetchone()[0]
        cuts = []
        for part in range(1, parts):
            cursor.execute(f'SELECT id FROM "{table}" ORDER BY id OFFSET %s LIMIT 1', [total * part // parts])  # noqa: S608
            found = cursor.fetchone()
            if found:
                cuts.append(found[0])
    edges: list[int | None] = [None, *sorted(set(cuts)), None]
    return [(edges[n] if n else None, edges[n + 1] - 1 if edges[n + 1] is not None else None)  # type: ignore[operator]
            for n in range(len(edges) - 1)]


def scan_in_parallel(model: type[Sealed], report: ChainReport, clock: Clock, snapshot_pk: int, floor: int) -> None:
    """The first range of ids is scanned here, the others each by a process of its own, all at once."""
    from compliance.chain.rows import read_values
    from compliance.chain.scan import RowScan, links_by_first_row

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_export_snapshot()")
        snapshot = cursor.fetchone()[0]
    database = {key: connection.settings_dict.get(key) for key in _DATABASE_KEYS}
    keys = (settings.AUDIT_CHAIN_KEY_ID, settings.AUDIT_CHAIN_KEY, dict(settings.AUDIT_CHAIN_RETIRED_KEYS))
    (low, high), *others = _bounds(model, _workers())
    label = model._meta.label
    with ProcessPoolExecutor(max(1, len(others)), mp_context=multiprocessing.get_context("spawn"),
                             initializer=start_child, initargs=(database, keys)) as pool:
        futures = [pool.submit(scan_part, label, other_low, other_high, snapshot_pk, floor, snapshot,
                               clock.remaining()) for other_low, other_high in others]
        complete = True
        try:
            RowScan(model, report, clock).run(read_values(model, above=None if low is None else low - 1, upto=high),
                                              links_by_first_row(label, snapshot_pk, None, low=low, high=high), floor)
        except OutOfTime:
            complete = False
        results = [future.result() for future in futures]
    for result in results:
        for line in result["findings"]:
            kind, _, text = line.partition(": ")
            report.add(kind, text)
        report.finding_count += result["finding_count"] - len(result["findings"])
        report.rows += result["rows"]
        report.pending += result["pending"]
    if not complete or not all(result["complete"] for result in results):
        raise OutOfTime
