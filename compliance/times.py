"""Times as a person at the facility reads them: on the facility's own clock, with the day whenever it is not today.

The database and Django hold instants in UTC (``TIME_ZONE`` is only the server's default); a floor supervisor
in Harrisburg reads "06:18", not "11:18", and "Due 06:15" with no date reads as already past when it means
tomorrow morning. Every page, audit line, CSV cell and PDF that shows an instant formats it here:

- ``local(dt, facility)``: the instant on the facility's wall clock (``Facility.time_zone``).
- ``when(dt, facility, now=None)``: short words relative to the facility's calendar today —
  ``"06:15"`` today, ``"yesterday 23:10"``, ``"tomorrow 06:15"``, ``"Sat 29 Nov 06:15"`` another day this year,
  ``"29 Nov 2025 06:15"`` another year.
- ``full(dt, facility)``: the unambiguous form for documents and exports, ``"Sat 29 Nov 2025 06:15 EST"``.

"Today" is the calendar date on the facility's clock, not the gaming day: a person reading a time at 02:00
means the date on the wall. Names of days and months are English and fixed (not the server's locale), as
the rest of the application's words are.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from django.utils import timezone

from compliance.gaming_day import facility_zone

__all__ = ["full", "local", "when"]

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def local(dt: datetime, facility: Any) -> datetime:
    """``dt`` on ``facility``'s wall clock (the default zone when ``facility`` is None or has none)."""
    if timezone.is_naive(dt):
        raise ValueError(f"{dt!r} has no time zone; the application stores aware datetimes only")
    return dt.astimezone(facility_zone(facility))


def _clock(moment: datetime) -> str:
    return f"{moment:%H:%M}"


def _day_month(day: date) -> str:
    return f"{day.day} {_MONTHS[day.month - 1]}"


def when(dt: datetime | None, facility: Any, now: datetime | None = None) -> str:
    """``dt`` in short words on the facility's clock, with the day whenever it is not today ("" for None)."""
    if dt is None:
        return ""
    moment = local(dt, facility)
    today = local(now or timezone.now(), facility).date()
    day = moment.date()
    if day == today:
        return _clock(moment)
    if day == today - timedelta(days=1):
        return f"yesterday {_clock(moment)}"
    if day == today + timedelta(days=1):
        return f"tomorrow {_clock(moment)}"
    if day.year == today.year:
        return f"{_DAYS[day.weekday()]} {_day_month(day)} {_clock(moment)}"
    return f"{_day_month(day)} {day.year} {_clock(moment)}"


def full(dt: datetime | None, facility: Any) -> str:
    """``dt`` with weekday, date, year and zone abbreviation, for documents and exports ("" for None)."""
    if dt is None:
        return ""
    moment = local(dt, facility)
    day = moment.date()
    return f"{_DAYS[day.weekday()]} {_day_month(day)} {day.year} {_clock(moment)} {moment.tzname()}"
