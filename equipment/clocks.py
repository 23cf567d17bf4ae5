"""Clock arithmetic of the equipment logs, and times and durations in the words the floor uses.

Limits are real time: a 24-hour limit is 24 hours of elapsed time, also across a daylight-saving
change (docs/equipment.md, "Limits are real time").
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.utils import timezone

from compliance.gaming_day import local_time

__all__ = [
    "DUE_SOON",
    "INSPECTION_VALID_FOR",
    "after",
    "format_duration",
    "local_words",
    "overdue_words",
]

# The sweep warns this long before a change falls due (issue 4: "due within 30 minutes").
DUE_SOON = timedelta(minutes=30)

# § 539.5(a) says only "prior to opening". Reading (docs/equipment.md): a passing inspection made
# after the table last closed and at most this long before the opening; the gaming day's midnight
# plays no part, so 23:50 opens a table at 00:10.
INSPECTION_VALID_FOR = timedelta(hours=4)


def after(at: datetime, duration: timedelta) -> datetime:
    """``at`` plus a span of real time: arithmetic on an aware local datetime adds wall-clock time,
    which is an hour off across a daylight-saving change (a 24-hour limit is 24 hours of real time)."""
    return at.astimezone(UTC) + duration


def local_words(dt: datetime, facility: Any = None) -> str:
    """A time as a floorperson says it after "at": "21:04", "21:04 yesterday", "06:15 tomorrow" or "21:04 on 3 Nov",
    on the facility's clock (``Facility.time_zone``), whatever zone the server or the request runs in; without a
    facility, the active zone. (A time shown alone, a due time on the board, reads as ``compliance.times.when``
    says it: "tomorrow 06:15".)"""
    if facility is None:
        local, today = timezone.localtime(dt), timezone.localdate()
    else:
        local, today = local_time(facility, dt), local_time(facility).date()
    if local.date() == today:
        return f"{local:%H:%M}"
    if local.date() == today - timedelta(days=1):
        return f"{local:%H:%M} yesterday"
    if local.date() == today + timedelta(days=1):
        return f"{local:%H:%M} tomorrow"
    return f"{local:%H:%M} on {local:%-d %b}" + (f" {local.year}" if local.year != today.year else "")


def format_duration(delta: timedelta) -> str:
    """A span either side of now, as the board and the report show it: "1 h 05 min", "12 min"."""
    seconds = int(abs(delta.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes = rest // 60
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


def overdue_words(delta: timedelta) -> str:
    """How long past due, for the alert e-mail: never negative ("0 min" for a clock not yet run out)."""
    minutes = max(0, int(delta.total_seconds() // 60))
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"
