"""The equipment compliance report rendered as CSV and PDF from :class:`selectors.EquipmentReport`.

The content is plain data (``report_tables``); CSV and PDF are two renderings of the same rows.
"""

from __future__ import annotations

import csv
import io

from django.utils import timezone
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from equipment.selectors import EquipmentReport

__all__ = ["filename", "report_csv", "report_pdf", "report_tables"]

CITATION_TEXT = (
    "58 Pa. Code § 577.4(d), § 675a.3(b)(1), § 668a.3(b)(1), § 539.2(b), § 575.2(c)(1)(i), § 575.3(c)(1)–(2)"
)


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
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([f"Equipment compliance report — {report.facility.name}", CITATION_TEXT])
    for title, header, rows in report_tables(report):
        writer.writerow([])
        writer.writerow([title])
        writer.writerow(header)
        writer.writerows(rows)
    return buffer.getvalue()


def report_pdf(report: EquipmentReport) -> bytes:
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(
        buffer,
        pagesize=letter,
        leftMargin=0.7 * inch,
        rightMargin=0.7 * inch,
        topMargin=0.7 * inch,
        bottomMargin=0.7 * inch,
        title=f"Equipment compliance report — {report.facility.name}",
    )
    styles = getSampleStyleSheet()
    story: list[object] = [
        Paragraph(f"Equipment compliance report — {report.facility.name}", styles["Title"]),
        Paragraph(
            f"Dice and deck changes, {report.start:%d %B %Y} to {report.end:%d %B %Y}. "
            f"Generated {timezone.localtime(report.generated_at):%d %B %Y %H:%M %Z}.",
            styles["Normal"],
        ),
        Paragraph(CITATION_TEXT, styles["Italic"]),
        Spacer(1, 0.2 * inch),
    ]
    for title, header, rows in report_tables(report):
        story.append(Paragraph(title, styles["Heading2"]))
        if not rows:
            story.append(Paragraph("None in this period.", styles["Normal"]))
            continue
        table = Table([header, *rows], repeatRows=1, hAlign="LEFT")
        table.setStyle(
            TableStyle(
                [
                    ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 9),
                    ("FONT", (0, 1), (-1, -1), "Helvetica", 9),
                    ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8edf3")),
                    ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#9aa5b1")),
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ]
            )
        )
        story.append(table)
        story.append(Spacer(1, 0.15 * inch))
    doc.build(story)
    return buffer.getvalue()
