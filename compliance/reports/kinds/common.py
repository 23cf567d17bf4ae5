"""Small helpers the kinds share: money in words, a period's instants, a gaming day's label."""

from __future__ import annotations

from datetime import date, datetime

from compliance.gaming_day import day_bounds, facility_zone
from compliance.reports.periods import Period

__all__ = ["dollars", "instants", "local", "zone_words"]


def dollars(cents: int | None) -> str:
    return f"${(cents or 0) / 100:,.2f}"


def instants(facility: object, period: Period) -> tuple[datetime, datetime]:
    """From the start of the period's first gaming day to the start of the day after its last."""
    return day_bounds(facility, period.start)[0], day_bounds(facility, period.end)[1]


def local(facility: object, instant: datetime | None, missing: str = "") -> str:
    return f"{instant.astimezone(facility_zone(facility)):%Y-%m-%d %H:%M}" if instant else missing


def zone_words(facility: object) -> str:
    start = getattr(facility, "gaming_day_starts_at", None)
    return (f"A gaming day begins at {start:%H:%M}" if start else "A gaming day begins at 06:00") + \
        f" on the facility's clock ({facility_zone(facility).key})"


def day_label(day: date) -> str:
    return f"{day:%d %b}"
