"""Equipment change compliance (dice and decks) of a period, moved onto the framework from the equipment app:
its query and columns stay there (``equipment.selectors.equipment_report``, ``equipment.reports.report_tables``);
this module adds the chart of changes on time and late per gaming day."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from compliance.reports.content import Chart, ReportContent, Section, Series
from compliance.reports.kinds.common import day_label, zone_words
from compliance.reports.periods import Period
from compliance.reports.registry import ReportKind, register
from compliance.roles import Capability
from equipment.reports import CITATIONS, report_tables
from equipment.selectors import equipment_report


def build(facility: Any, period: Period) -> ReportContent:
    report = equipment_report(facility, period.start, period.end)
    sections = report_tables(report)
    days = [period.start + timedelta(days=i) for i in range(period.days)]
    by_day = report.changes_by_day
    return ReportContent(
        title="Equipment change compliance",
        citations=list(CITATIONS),
        period=period.label(),
        summary=[tuple(row) for row in sections[0][2]],  # type: ignore[misc]
        charts=[Chart("Dice and deck changes per gaming day: on time and late", [day_label(d) for d in days],
                      [Series("On time", [by_day.get(d, [0, 0])[0] for d in days]),
                       Series("Late", [by_day.get(d, [0, 0])[1] for d in days])])],
        sections=[Section(title, header, rows, widths=[1.0, 0.8, 1.3, 1.3, 1.3, 1.2] if len(header) == 6 else None)
                  for title, header, rows in sections[1:]],
        readings=[
            "A change is counted when the new set of dice or deck goes into play (its placement), on the gaming day "
            "it was placed; a table's first set counts too. It is on time when the set it replaced left play no "
            "later than its due time (24:00:00 in play is on time).",
            "An overdue incident is a set kept past its due time while its table was open for gaming; for dice "
            "that may not remain on a table more than 24 hours open or closed (§ 675a.3(b)(1), § 668a.3(b)(1), "
            "§ 575.2(c)(1)(i)) every minute past the limit counts.",
            f"Sets taken out of play are grouped by the reason for their removal. {zone_words(facility)}.",
        ],
        figures={"changes": report.changes, "on_time": report.on_time, "incidents": len(report.incidents)},
    )


KIND = register(ReportKind(
    code="equipment",
    title="Equipment change compliance",
    citations=CITATIONS,
    description="Dice and deck changes made (counted when the new set goes into play), the share on time, overdue "
                "incidents with their durations, and forced changes by reason, with a chart of changes on time and "
                "late.",
    build=build,
    capability=Capability.VIEW_RECORDS,
))
