"""The facility's gaming day: the one place that maps an instant to the day a record belongs to.

A casino's gaming day is not the calendar date: it runs from the facility's ``gaming_day_starts_at``
(commonly 6:00 a.m.) to just before that time the next morning, in the facility's own time zone
(``Facility.time_zone``). A coupon handled at 02:25 belongs to the gaming day that began at 6:00 the
morning before. Every service, form default, clock, report period and beat job asks here.

Daylight saving: the day's bounds are wall-clock times in the facility's zone (6:00 to 6:00), so the
gaming day that contains a change is 23 or 25 hours of real time; the 24-hour equipment clocks are
real time and do not use these bounds (``equipment.clocks``).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone

__all__ = ["DEFAULT_START", "day_bounds", "facility_zone", "gaming_day", "local_time"]

DEFAULT_START = time(6, 0)


def facility_zone(facility: Any) -> ZoneInfo:
    return ZoneInfo(getattr(facility, "time_zone", "") or timezone.get_default_timezone_name())


def _start(facility: Any) -> time:
    return getattr(facility, "gaming_day_starts_at", None) or DEFAULT_START


def local_time(facility: Any, instant: datetime | None = None) -> datetime:
    """``instant`` (default: now) on the facility's wall clock."""
    return (instant or timezone.now()).astimezone(facility_zone(facility))


def gaming_day(facility: Any, instant: datetime | None = None) -> date:
    """The gaming day ``instant`` (default: now) falls in at ``facility``."""
    local = local_time(facility, instant)
    start = _start(facility)
    return local.date() - timedelta(days=1) if local.time() < start else local.date()


def day_bounds(facility: Any, day: date) -> tuple[datetime, datetime]:
    """The instants a gaming day runs over: from its start (inclusive) to the next day's (exclusive), in
    UTC (two datetimes in one zone subtract as wall-clock times, an hour off across a DST change)."""
    zone, start = facility_zone(facility), _start(facility)
    return (
        datetime.combine(day, start, tzinfo=zone).astimezone(UTC),
        datetime.combine(day + timedelta(days=1), start, tzinfo=zone).astimezone(UTC),
    )
