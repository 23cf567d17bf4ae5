"""The staffing and surveillance report's columns, from :class:`report.StaffingReport` as plain rows (times on
the facility's clock). The report is produced on the report framework (``compliance.reports``, kind
"staffing"), which renders these sections as page, CSV and PDF and keeps each version.
"""

from __future__ import annotations

from datetime import datetime

from reportlab.lib.styles import ParagraphStyle

from compliance.documents import styles
from compliance.gaming_day import local_time
from compliance.models import Facility
from compliance.staffing.report import StaffingReport, minutes_text

__all__ = ["CITATIONS", "report_tables"]

CITATIONS = ("577.9(a)", "577.9(b)", "577.9(c)")

Section = tuple[str, list[str], list[list[str]]]
_CELL = ParagraphStyle("staffing-cell", parent=styles["Normal"], fontSize=8, leading=10)


def _when(facility: Facility, dt: datetime | None, missing: str = "") -> str:
    return f"{local_time(facility, dt):%Y-%m-%d %H:%M}" if dt else missing


def report_tables(report: StaffingReport) -> list[Section]:
    """(title, header, rows) for each section of the report."""
    facility = report.facility
    violations = [
        [v.table, v.game, v.rule_label, f"§ {v.clause}", v.words, _when(facility, v.started_at),
         _when(facility, v.ended_at, "ongoing"), str(v.minutes), v.override_text]
        for v in report.violations
    ]
    overrides = [
        [f"#{o.id}", o.table, f"{o.gaming_date:%Y-%m-%d}", o.violations, o.reason, o.signer or "not signed",
         _when(facility, o.signed_at), _when(facility, o.used_at, "not used")]
        for o in report.overrides
    ]
    by_clause = [[f"§ {c.clause}", str(c.count), str(c.minutes)] for c in report.by_clause]
    if report.violations:
        by_clause.append(["All", str(len(report.violations)), minutes_text(report.total)])
    return [
        ("Summary", ["Measure", "Value"], [list(row) for row in report.summary_rows()]),
        ("Violations by clause", ["Clause", "Violation periods", "Minutes in the period"], by_clause),
        ("Violation periods",
         ["Table", "Game", "Rule", "Clause", "What was wrong", "Began", "Ended", "Minutes in the period",
          "Override"],
         violations),
        ("Overrides",
         ["Override", "Table", "Gaming day", "Rules broken", "Reason", "Shift manager", "Signed", "Used"],
         overrides),
    ]
