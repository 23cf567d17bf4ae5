"""Business days for the age of a list (§ 503a.3(d)): weekdays; holidays count, which is the stricter reading."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from compliance.exclusion.business_days import business_days_after

FRIDAY = date(2026, 10, 30)


@pytest.mark.parametrize(("days_later", "age"), [(0, 0), (1, 0), (2, 0), (3, 1), (4, 2), (5, 3), (7, 5), (14, 10)])
def test_a_friday_list_ages_only_on_weekdays(days_later, age):
    assert business_days_after(FRIDAY, FRIDAY + timedelta(days=days_later)) == age


def test_counting_matches_a_day_by_day_count_over_a_year():
    start = date(2026, 1, 1)
    for offset in range(0, 400, 3):
        end = start + timedelta(days=offset)
        naive = sum(1 for n in range(1, offset + 1) if (start + timedelta(days=n)).weekday() < 5)
        assert business_days_after(start, end) == naive


def test_a_public_holiday_counts_as_a_business_day():
    # Thanksgiving, Thu 26 Nov 2026: a list of Wednesday is 2 business days old on Friday, as on any week.
    assert business_days_after(date(2026, 11, 25), date(2026, 11, 27)) == 2
