"""Report periods in gaming days: quarters and months, with no database.

A period is a run of whole gaming days (``compliance.gaming_day``): the third quarter of 2026 is the gaming
days 1 July to 30 September, so a coupon redeemed at 02:00 on 1 October, before the 6:00 start of that
day, belongs to 30 September's gaming day and to the third quarter; one redeemed at 23:30 on 30 September
in Pennsylvania belongs there too, though it is 1 October in UTC. Records carry their gaming day
(``gaming_date``); records stamped with an instant are read between the first day's start and the day
after the last day's start (``compliance.gaming_day.day_bounds``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

__all__ = ["Period", "month_of", "previous_quarter", "quarter_of"]


@dataclass(frozen=True)
class Period:
    start: date
    end: date

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError("a period ends on or after the day it starts")

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    @property
    def quarter(self) -> tuple[int, int] | None:
        """(year, quarter) when the period is exactly one calendar quarter of gaming days."""
        whole = quarter_of(self.start)
        return (self.start.year, (self.start.month - 1) // 3 + 1) if whole == self else None

    def label(self) -> str:
        if (q := self.quarter) is not None:
            return f"Q{q[1]} {q[0]} ({self.start:%d %b} – {self.end:%d %b %Y})"
        if self.start == self.end:
            return f"{self.start:%d %b %Y}"
        return f"{self.start:%d %b %Y} – {self.end:%d %b %Y}"


def quarter_of(day: date) -> Period:
    """The calendar quarter of gaming days that ``day`` (a gaming day) falls in."""
    first_month = 3 * ((day.month - 1) // 3) + 1
    start = date(day.year, first_month, 1)
    next_start = date(day.year + 1, 1, 1) if first_month == 10 else date(day.year, first_month + 3, 1)
    return Period(start, next_start - timedelta(days=1))


def previous_quarter(day: date) -> Period:
    """The last quarter wholly before the gaming day ``day``: the one a report is due for."""
    return quarter_of(quarter_of(day).start - timedelta(days=1))


def month_of(day: date) -> Period:
    start = day.replace(day=1)
    next_start = date(day.year + 1, 1, 1) if day.month == 12 else date(day.year, day.month + 1, 1)
    return Period(start, next_start - timedelta(days=1))
