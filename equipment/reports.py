"""The equipment compliance report's columns, from :class:`selectors.EquipmentReport` as plain rows.

The report is produced on the report framework (``compliance.reports``, kind "equipment"), which renders
these sections as page, CSV and PDF and keeps each version.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from compliance.times import local
from equipment.selectors import EquipmentReport

__all__ = ["CITATIONS", "report_tables"]

CITATIONS = ("577.4(d)", "675a.3(b)(1)", "668a.3(b)(1)", "539.2(b)", "575.2(c)(1)(i)", "575.3(c)(1)–(2)")


def _when(dt: datetime | None, facility: Any) -> str:
    """A time of the report on the facility's clock, with its date (a report is read on other days); the zone is
    named once, in the report's readings."""
    return f"{local(dt, facility):%-d %b %Y %H:%M}" if dt else "still in play"


def report_tables(report: EquipmentReport) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) for each section of the report."""
    facility = report.facility
    incidents = [
        [i.table, i.kind, _when(i.placed_at, facility), _when(i.due_at, facility), _when(i.ended_at, facility),
         i.duration_text]
        for i in report.incidents
    ]
    return [
        ("Summary", ["Measure", "Value"], [list(row) for row in report.summary_rows()]),
        ("Sets taken out of play, by reason", ["Reason", "Sets"],
         [[r, str(n)] for r, n in report.removals_by_reason]),
        ("Forced changes by reason", ["Reason", "Changes"], [[r, str(n)] for r, n in report.forced_by_reason]),
        (
            "Overdue incidents",
            ["Table", "Equipment", "Put in play", "Due", "Removed", "Overdue while open"],
            incidents,
        ),
    ]
