"""The coupon ledger's "today" is the facility's gaming day (coupons/days.py), across a daylight-saving
change and for facilities in different time zones."""

from __future__ import annotations

from datetime import date

import pytest
import time_machine

from coupons.days import not_in_future, today
from tests.factories import FacilityFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("instant", "gaming_day"), [
    ("2026-11-01 05:30:00+00:00", date(2026, 10, 31)),  # 01:30 EDT, before the clocks go back
    ("2026-11-01 06:30:00+00:00", date(2026, 10, 31)),  # 01:30 EST, the same wall time an hour later
    ("2026-11-01 10:59:00+00:00", date(2026, 10, 31)),  # 05:59 EST
    ("2026-11-01 11:00:00+00:00", date(2026, 11, 1)),  # 06:00 EST: the next gaming day begins
])
def test_the_gaming_day_across_the_autumn_change(instant, gaming_day):
    facility = FacilityFactory(time_zone="America/New_York")
    with time_machine.travel(instant, tick=False):
        assert today(facility) == gaming_day


def test_two_facilities_see_their_own_gaming_day_and_future_days_are_refused_by_it():
    from django.core.exceptions import ValidationError

    east = FacilityFactory(time_zone="America/New_York")
    west = FacilityFactory(time_zone="America/Los_Angeles")
    with time_machine.travel("2026-11-04 12:30:00+00:00", tick=False):  # 07:30 east, 04:30 west
        assert (today(east), today(west)) == (date(2026, 11, 4), date(2026, 11, 3))
        not_in_future(east, date(2026, 11, 4), "Recorded")
        with pytest.raises(ValidationError, match="has not started"):
            not_in_future(west, date(2026, 11, 4), "Recorded")
