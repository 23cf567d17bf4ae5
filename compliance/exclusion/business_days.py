"""Business days, for the age of the facility's copy of an exclusion list (§ 503a.3(d)). Pure: no Django.

A business day here is a weekday, Monday to Friday. Public holidays are *not* skipped: counting a holiday
as a business day makes a list go stale sooner, never later, so the rule can refuse an export a day early
but never lets a list older than the regulation allows through. (A facility that wants holidays skipped
would pass its own calendar; none is kept here, so no one has to maintain one for the rule to be safe.)
"""

from __future__ import annotations

from datetime import date, timedelta

__all__ = ["MAX_LIST_AGE_BUSINESS_DAYS", "business_days_after", "is_business_day"]

# § 503a.3(d): the facility's copy of the Board's list is refreshed at least every 2 business days.
MAX_LIST_AGE_BUSINESS_DAYS = 2


def is_business_day(day: date) -> bool:
    return day.weekday() < 5


def business_days_after(start: date, end: date) -> int:
    """How many business days fall after ``start`` up to and including ``end`` (0 when ``end`` is not
    after ``start``). A list of Friday is 0 business days old on Saturday and Sunday, 1 on Monday, 2 on
    Tuesday and 3 — too old — on Wednesday."""
    if end <= start:
        return 0
    days = (end - start).days
    weeks, extra = divmod(days, 7)
    count = weeks * 5
    day = start + timedelta(days=weeks * 7)
    for _ in range(extra):
        day += timedelta(days=1)
        count += is_business_day(day)
    return count
