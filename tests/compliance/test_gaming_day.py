"""The facility's gaming day (compliance/gaming_day.py): 6:00 a.m. to 5:59 a.m. on its own clock."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import pytest
import time_machine

from compliance.gaming_day import day_bounds, gaming_day
from tests.factories import FacilityFactory

pytestmark = pytest.mark.django_db


def _utc(year: int, month: int, day: int, hour: int, minute: int) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def test_a_coupon_handled_at_2_25_belongs_to_the_gaming_day_that_began_the_morning_before():
    facility = FacilityFactory(time_zone="America/New_York")
    assert gaming_day(facility, _utc(2026, 11, 4, 7, 25)) == date(2026, 11, 3)  # 02:25 EST
    assert gaming_day(facility, _utc(2026, 11, 4, 10, 59)) == date(2026, 11, 3)  # 05:59 EST
    assert gaming_day(facility, _utc(2026, 11, 4, 11, 0)) == date(2026, 11, 4)  # 06:00 EST


def test_now_is_read_from_the_clock():
    facility = FacilityFactory(time_zone="America/New_York")
    with time_machine.travel(_utc(2026, 11, 4, 7, 25), tick=False):
        assert gaming_day(facility) == date(2026, 11, 3)


def test_two_facilities_in_different_time_zones_have_different_gaming_days_at_one_instant():
    harrisburg = FacilityFactory(time_zone="America/New_York")
    vegas = FacilityFactory(time_zone="America/Los_Angeles")
    instant = _utc(2026, 11, 4, 12, 30)  # 07:30 in Harrisburg, 04:30 in Las Vegas
    assert gaming_day(harrisburg, instant) == date(2026, 11, 4)
    assert gaming_day(vegas, instant) == date(2026, 11, 3)


def test_a_facility_may_start_its_gaming_day_at_another_hour():
    facility = FacilityFactory(time_zone="America/New_York", gaming_day_starts_at=time(4, 0))
    assert gaming_day(facility, _utc(2026, 11, 4, 9, 30)) == date(2026, 11, 4)  # 04:30 EST


def test_the_gaming_day_across_the_daylight_saving_change_runs_6_00_to_6_00_on_the_wall_clock():
    facility = FacilityFactory(time_zone="America/New_York")
    start, end = day_bounds(facility, date(2026, 10, 31))  # clocks go back at 02:00 on 1 Nov 2026
    assert start == _utc(2026, 10, 31, 10, 0) and end == _utc(2026, 11, 1, 11, 0)
    assert end - start == timedelta(hours=25)
    assert gaming_day(facility, end - timedelta(seconds=1)) == date(2026, 10, 31)
    assert gaming_day(facility, end) == date(2026, 11, 1)
    spring_start, spring_end = day_bounds(facility, date(2027, 3, 13))  # clocks go forward on 14 Mar 2027
    assert spring_end - spring_start == timedelta(hours=23)
