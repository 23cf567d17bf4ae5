"""The equipment compliance report rendered as CSV and PDF from :class:`selectors.EquipmentReport`.

The content is plain data (``report_tables``); CSV and PDF are two renderings of the same rows.
"""

from __future__ import annotations

from django.utils import timezone
from reportlab.lib.units import inch
from reportlab.platypus import Flowable, Paragraph, Spacer

from compliance.citations import cite
from compliance.documents import DocumentMeta, data_table, render_pdf, styles
from compliance.exports import sections_csv
from equipment.selectors import EquipmentReport

__all__ = ["filename", "report_csv", "report_pdf", "report_tables"]

CITATIONS = ("577.4(d)", "675a.3(b)(1)", "668a.3(b)(1)", "539.2(b)", "575.2(c)(1)(i)", "575.3(c)(1)–(2)")


def _when(dt: object) -> str:
    return f"{timezone.localtime(dt):%Y-%m-%d %H:%M}" if dt else "still in play"  # type: ignore[arg-type]


def report_tables(report: EquipmentReport) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) for each section of the report."""
    incidents = [
        [i.table, i.kind, _when(i.placed_at), _when(i.due_at), _when(i.ended_at), i.duration_text]
        for i in report.incidents
    ]
    return [
        ("Summary", ["Measure", "Value"], [list(row) for row in report.summary_rows()]),
        ("Changes by reason", ["Reason", "Changes"], [[r, str(n)] for r, n in report.changes_by_reason]),
        ("Forced changes by reason", ["Reason", "Changes"], [[r, str(n)] for r, n in report.forced_by_reason]),
        (
            "Overdue incidents",
            ["Table", "Equipment", "Put in play", "Due", "Removed", "Overdue while open"],
            incidents,
        ),
    ]


def filename(report: EquipmentReport, extension: str) -> str:
    return f"equipment-report-{report.facility.code}-{report.start:%Y%m%d}-{report.end:%Y%m%d}.{extension}"


def report_csv(report: EquipmentReport) -> str:
    return sections_csv([f"Equipment compliance report — {report.facility.name}", ", ".join(cite(r).label for r in CITATIONS)],
                        report_tables(report))


def report_pdf(report: EquipmentReport, *, printed_for: str = "") -> bytes:
    story: list[Flowable] = []
    for title, header, rows in report_tables(report):
        story.append(Paragraph(title, styles["Heading2"]))
        story.append(data_table(header, rows) if rows else Paragraph("None in this period.", styles["Normal"]))
        story.append(Spacer(1, 0.15 * inch))
    meta = DocumentMeta(
        title="Equipment compliance report",
        facility_name=report.facility.name,
        citation=CITATIONS,
        printed_for=printed_for,
        subtitle=f"Dice and deck changes, {report.start:%d %B %Y} to {report.end:%d %B %Y}. "
        f"Generated {timezone.localtime(report.generated_at):%d %B %Y %H:%M %Z}.",
    )
    return render_pdf(meta, story)
