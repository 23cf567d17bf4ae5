"""What a process of a parallel verification runs (``compliance.chain.parallel``).

Outside the ``compliance.chain`` package on purpose: a process started afresh imports this module before
Django is set up, so it imports nothing that needs the app registry until :func:`start_child` has set it up.
"""

from __future__ import annotations

from typing import Any

__all__ = ["scan_part", "start_child"]


def start_child(database: dict[str, Any], keys: tuple[str, str, dict[str, str]]) -> None:
    """Set Django up in the new process, on the parent's database and with the parent's keys."""
    import django

    django.setup()
    from django.conf import settings
    from django.db import connections

    connections["default"].settings_dict.update(database)
    settings.AUDIT_CHAIN_KEY_ID, settings.AUDIT_CHAIN_KEY, settings.AUDIT_CHAIN_RETIRED_KEYS = keys


def scan_part(label: str, low: int | None, high: int | None, snapshot_pk: int, floor: int, snapshot: str,
              seconds: float | None) -> dict[str, Any]:
    """Scan the model's rows with ids in ``low``–``high`` against their links, in the parent's snapshot."""
    from django.apps import apps
    from django.db import connection, transaction

    from compliance.chain.report import ChainReport, Clock, OutOfTime
    from compliance.chain.rows import read_values
    from compliance.chain.scan import RowScan, links_by_first_row

    model = apps.get_model(label)
    report, complete = ChainReport(), True
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        cursor.execute("SET TRANSACTION SNAPSHOT %s", [snapshot])
        try:
            RowScan(model, report, Clock(seconds)).run(
                read_values(model, above=None if low is None else low - 1, upto=high),
                links_by_first_row(label, snapshot_pk, None, low=low, high=high), floor)
        except OutOfTime:
            complete = False
    return {"findings": report.findings, "finding_count": report.finding_count, "rows": report.rows,
            "pending": report.pending, "complete": complete}
