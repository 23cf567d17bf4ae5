"""Staffing and surveillance violations and overrides of a period (§ 577.9), moved onto the framework from the
staffing app (its query and columns stay there: ``compliance.staffing.report``, ``report_render.report_tables``);
this module adds the chart of violation periods per shift."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from compliance.gaming_day import local_time
from compliance.reports.content import Chart, ReportContent, Section, Series
from compliance.reports.kinds.common import zone_words
from compliance.reports.periods import Period
from compliance.reports.registry import ReportKind, register
from compliance.staffing.models import Shift
from compliance.staffing.report import staffing_report
from compliance.staffing.report_render import CITATIONS, report_tables

OUTSIDE = "Outside every shift"


def shift_of(facility: Any, shifts: list[Shift], instant: datetime) -> str:
    """The name of the shift whose hours hold ``instant`` on the facility's clock (a shift may run past
    midnight); the first listed when shifts overlap."""
    clock = local_time(facility, instant)
    minute = clock.hour * 60 + clock.minute
    for shift in shifts:
        start = shift.starts_at.hour * 60 + shift.starts_at.minute
        if (minute - start) % (24 * 60) < shift.hours * 60:
            return shift.name
    return OUTSIDE


def build(facility: Any, period: Period) -> ReportContent:
    report = staffing_report(facility, period.start, period.end)
    shifts = list(Shift.objects.filter(facility=facility).order_by("starts_at", "name"))
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in report.violations:
        counts[row.rule_label][shift_of(facility, shifts, row.started_at)] += 1
    names = [s.name for s in shifts] + ([OUTSIDE] if any(OUTSIDE in c for c in counts.values()) else [])
    sections = report_tables(report)
    return ReportContent(
        title="Staffing and surveillance violations and overrides",
        citations=list(CITATIONS),
        period=period.label(),
        landscape=True,
        summary=[tuple(row) for row in sections[0][2]],  # type: ignore[misc]
        charts=[Chart("Violation periods per shift, by rule", names,
                      [Series(rule, [per_shift.get(n, 0) for n in names]) for rule, per_shift in sorted(counts.items())],
                      stacked=True)],
        sections=[Section(title, header, rows) for title, header, rows in sections[1:]],
        readings=[
            "A violation period is listed when it overlaps the period; its minutes are the part inside the period "
            "(an ongoing one counts up to when the report was produced). An override is listed when it was given "
            "inside the period.",
            f"A violation belongs to the shift whose hours hold the minute it began. {zone_words(facility)}.",
        ],
        figures={"violations": len(report.violations), "overrides": len(report.overrides),
                 "minutes": int((report.total + timedelta(seconds=30)).total_seconds() // 60)},
    )


KIND = register(ReportKind(
    code="staffing",
    title="Staffing and surveillance violations and overrides",
    citations=CITATIONS,
    description="Every violation period of the § 577.9 rules with its minutes, and every shift manager's "
                "override, with a chart of violations per shift.",
    build=build,
))
