"""The staffing and surveillance report rendered as CSV and PDF from :class:`report.StaffingReport`.

The content is plain data (``report_tables``); CSV and PDF are two renderings of the same rows. Times are on
the facility's clock.
"""

from __future__ import annotations

from datetime import datetime

from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.platypus import Flowable, Paragraph, Spacer

from compliance.citations import cite
from compliance.documents import DocumentMeta, data_table, render_pdf, styles
from compliance.exports import sections_csv
from compliance.gaming_day import local_time
from compliance.models import Facility
from compliance.staffing.report import StaffingReport, minutes_text

__all__ = ["CITATIONS", "filename", "report_csv", "report_pdf", "report_tables"]

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


def filename(report: StaffingReport, extension: str) -> str:
    return f"staffing-report-{report.facility.code}-{report.start:%Y%m%d}-{report.end:%Y%m%d}.{extension}"


def report_csv(report: StaffingReport) -> str:
    return sections_csv([f"Staffing and surveillance report — {report.facility.name}", ", ".join(cite(r).label for r in CITATIONS)],
                        report_tables(report))


# The two wide sections wrap their words inside the columns of a landscape page (10 inches of text).
_WIDTHS: dict[str, list[float]] = {
    "Violation periods": [w * inch for w in (0.7, 1.0, 0.8, 0.7, 2.6, 1.1, 1.1, 0.7, 1.3)],
    "Overrides": [w * inch for w in (0.7, 0.7, 0.9, 2.5, 2.1, 1.2, 1.1, 1.1)],
}


def report_pdf(report: StaffingReport, *, printed_for: str = "") -> bytes:
    story: list[Flowable] = []
    for title, header, rows in report_tables(report):
        story.append(Paragraph(title, styles["Heading2"]))
        if not rows:
            story.append(Paragraph("None in this period.", styles["Normal"]))
        elif title in _WIDTHS:
            story.append(data_table(header, rows, _WIDTHS[title], wrap=_CELL))
        else:
            story.append(data_table(header, rows))
        story.append(Spacer(1, 0.15 * inch))
    meta = DocumentMeta(
        title="Staffing and surveillance report",
        facility_name=report.facility.name,
        citation=CITATIONS,
        printed_for=printed_for,
        subtitle=f"Violation periods and overrides, gaming days {report.start:%d %B %Y} to {report.end:%d %B %Y}. "
        f"Generated {local_time(report.facility, report.generated_at):%d %B %Y %H:%M %Z}.",
        pagesize=landscape(letter),
    )
    return render_pdf(meta, story)
