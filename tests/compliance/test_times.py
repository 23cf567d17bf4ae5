"""Times on the facility's clock with the day whenever it is not today (compliance/times.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import time_machine

from compliance.models import Facility
from compliance.times import full, local, when

HARRISBURG = Facility(code="hbg", name="Harrisburg", time_zone="America/New_York")
VEGAS = Facility(code="lv", name="Las Vegas", time_zone="America/Los_Angeles")

# Friday 28 November 2025, 14:00 in Harrisburg (19:00 UTC).
NOW = datetime(2025, 11, 28, 19, 0, tzinfo=UTC)


def _utc(year: int, month: int, day: int, hour: int, minute: int) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def test_local_is_the_facility_wall_clock_not_utc():
    assert local(_utc(2025, 11, 28, 11, 18), HARRISBURG).strftime("%H:%M") == "06:18"
    assert local(_utc(2025, 11, 28, 11, 18), VEGAS).strftime("%H:%M") == "03:18"


def test_a_naive_datetime_is_refused_rather_than_guessed():
    with pytest.raises(ValueError, match="no time zone"):
        local(datetime(2025, 11, 28, 6, 15), HARRISBURG)  # a naive datetime is the point of the test


def test_today_is_the_time_alone():
    assert when(_utc(2025, 11, 28, 11, 15), HARRISBURG, now=NOW) == "06:15"


def test_yesterday_and_tomorrow_say_so():
    assert when(_utc(2025, 11, 28, 4, 10), HARRISBURG, now=NOW) == "yesterday 23:10"
    assert when(_utc(2025, 11, 29, 11, 15), HARRISBURG, now=NOW) == "tomorrow 06:15"


def test_another_day_this_year_has_weekday_day_and_month():
    assert when(_utc(2025, 11, 30, 11, 15), HARRISBURG, now=NOW) == "Sun 30 Nov 06:15"
    assert when(_utc(2025, 3, 5, 14, 0), HARRISBURG, now=NOW) == "Wed 5 Mar 09:00"


def test_another_year_has_the_year_and_no_weekday():
    assert when(_utc(2024, 11, 29, 11, 15), HARRISBURG, now=NOW) == "29 Nov 2024 06:15"
    assert when(_utc(2026, 1, 2, 11, 15), HARRISBURG, now=NOW) == "2 Jan 2026 06:15"


def test_today_is_the_facility_calendar_day_not_utc():
    # 01:30 UTC on the 29th is 20:30 on the 28th in Harrisburg: today there, not tomorrow.
    assert when(_utc(2025, 11, 29, 1, 30), HARRISBURG, now=NOW) == "20:30"
    # Just after midnight in Harrisburg (05:30 UTC on the 29th): 23:10 on the 28th is yesterday.
    assert when(_utc(2025, 11, 29, 4, 10), HARRISBURG, now=_utc(2025, 11, 29, 5, 30)) == "yesterday 23:10"


def test_one_instant_reads_differently_at_two_facilities():
    instant = _utc(2025, 11, 29, 6, 30)  # 01:30 on the 29th in Harrisburg, 22:30 on the 28th in Las Vegas
    assert when(instant, HARRISBURG, now=NOW) == "tomorrow 01:30"
    assert when(instant, VEGAS, now=NOW) == "22:30"


def test_now_defaults_to_the_clock():
    with time_machine.travel(NOW, tick=False):
        assert when(_utc(2025, 11, 29, 11, 15), HARRISBURG) == "tomorrow 06:15"


def test_none_reads_as_nothing():
    assert when(None, HARRISBURG) == ""
    assert full(None, HARRISBURG) == ""


def test_without_a_facility_the_default_zone_is_used():
    assert when(_utc(2025, 11, 28, 11, 15), None, now=NOW) == "06:15"


def test_full_is_unambiguous_for_documents_and_names_the_zone_across_daylight_saving():
    assert full(_utc(2025, 11, 29, 11, 15), HARRISBURG) == "Sat 29 Nov 2025 06:15 EST"
    assert full(_utc(2025, 7, 4, 10, 15), HARRISBURG) == "Fri 4 Jul 2025 06:15 EDT"


def test_the_template_filter_reads_the_same_words():
    from django.template import Context, Template

    with time_machine.travel(NOW, tick=False):
        rendered = Template("{% load times %}Due {{ due|when:facility }}").render(
            Context({"due": _utc(2025, 11, 29, 11, 15), "facility": HARRISBURG})
        )
    assert rendered == "Due tomorrow 06:15"


def test_the_template_filter_reads_a_wall_clock_time_or_a_date_as_it_is():
    from datetime import date as _date
    from datetime import time as _time

    from compliance.templatetags.times import when as when_filter

    assert when_filter(_time(6, 0)) == "06:00"
    assert when_filter(_date(2026, 11, 3)) == "3 Nov 2026"
    assert when_filter(None) == ""
