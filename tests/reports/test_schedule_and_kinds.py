"""Beat produces each quarter's report once after the quarter ends on the facility's clock; the period reports'
content (reconciliation, audit extract) from their records."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import time_machine

from compliance.reports import services
from compliance.reports.models import ReportRun
from compliance.reports.periods import Period

pytestmark = pytest.mark.django_db


def scheduled(facility, django_capture_on_commit_callbacks, at: str) -> list[tuple[date, date, str]]:
    with time_machine.travel(at, tick=False), django_capture_on_commit_callbacks(execute=True):
        services.quarterly_reports_schedule()
    return [(r.period_start, r.period_end, r.status) for r in ReportRun.objects.filter(facility=facility,
                                                                                     trigger="schedule")
            .order_by("period_start")]


def test_the_quarter_is_produced_once_its_last_gaming_day_has_ended(facility, monkeypatch,
                                                                   django_capture_on_commit_callbacks):
    from coupons import selectors as coupon_selectors
    from coupons.selectors import ClosedDays

    # Finance has processed every day (the coupon report waits for that: see the next tests).
    monkeypatch.setattr(coupon_selectors, "closed_days",
                        lambda f: ClosedDays(last_form=date(2026, 12, 31), last_processed=date(2026, 12, 31)))
    # 05:45 on 1 October in Pennsylvania is still 30 September's gaming day: the third quarter is not over.
    assert scheduled(facility, django_capture_on_commit_callbacks, "2026-10-01 09:45:00+00:00") == [
        (date(2026, 4, 1), date(2026, 6, 30), "succeeded")]
    # 06:30: the fourth quarter's first gaming day has begun; the third is produced, once, by the system.
    after = scheduled(facility, django_capture_on_commit_callbacks, "2026-10-01 10:30:00+00:00")
    assert after[-1] == (date(2026, 7, 1), date(2026, 9, 30), "succeeded")
    assert scheduled(facility, django_capture_on_commit_callbacks, "2026-10-01 11:30:00+00:00") == after
    run = ReportRun.objects.get(trigger="schedule", period_start=date(2026, 7, 1))
    assert run.requested_by.username == "system" and run.kind == "quarterly-coupons"
    assert run.history.first().history_user.username == "system"


def test_a_facility_in_another_time_zone_has_its_own_quarter_end(facility, other_facility, monkeypatch,
                                                                 django_capture_on_commit_callbacks):
    from coupons import selectors as coupon_selectors
    from coupons.selectors import ClosedDays

    monkeypatch.setattr(coupon_selectors, "closed_days",
                        lambda f: ClosedDays(last_form=date(2026, 12, 31), last_processed=date(2026, 12, 31)))
    other_facility.time_zone = "America/Los_Angeles"
    other_facility.save()
    # 07:00 in Pennsylvania, 04:00 in California: only the Pennsylvanian quarter has ended.
    with time_machine.travel("2026-10-01 11:00:00+00:00", tick=False), django_capture_on_commit_callbacks(execute=True):
        services.quarterly_reports_schedule()
    ends = {(r.facility_id, r.period_end) for r in ReportRun.objects.filter(trigger="schedule")}
    assert (facility.pk, date(2026, 9, 30)) in ends and (other_facility.pk, date(2026, 9, 30)) not in ends
    assert (other_facility.pk, date(2026, 6, 30)) in ends


def test_the_audit_extract_lists_each_change_with_its_person(facility, compliance_officer, as_user):
    from compliance.gaming_day import gaming_day
    from compliance.reports.kinds.audit_extract import build
    from compliance.reports.periods import month_of

    with as_user(compliance_officer):
        facility.notification_email = "floor@keystone.example"
        facility.save()
    content = build(facility, month_of(gaming_day(facility)))
    (section,) = content.sections
    rows = [r for r in section.rows if "floor@keystone.example" in r[5]]
    assert rows and compliance_officer.profile.full_name in rows[0][1] and rows[0][7] == ""
    assert content.figures["events"] >= 1


def test_the_reconciliation_report_lists_exceptions_and_their_resolution(facility, compliance_officer):
    from coupons.report_kinds.coupon_reconciliation import build

    content = build(facility, Period(date(2026, 9, 1), date(2026, 9, 30)))
    titles = [s.title for s in content.sections]
    assert titles[0].startswith("Daily processing") and "Exception reports and their resolution" in titles
    assert dict(content.summary)["Gaming days processed by finance"] == "0 of 30"


def test_the_staffing_chart_counts_violations_per_shift(facility):
    from compliance.staffing.models import Shift
    from compliance.staffing.report_kinds import OUTSIDE, shift_of

    shifts = [Shift(facility=facility, name="Day", starts_at=datetime(2026, 1, 1, 6).time(), hours=8),
              Shift(facility=facility, name="Swing", starts_at=datetime(2026, 1, 1, 14).time(), hours=8),
              Shift(facility=facility, name="Grave", starts_at=datetime(2026, 1, 1, 22).time(), hours=8)]
    at = lambda h: datetime(2026, 9, 2, h, 30, tzinfo=UTC)  # noqa: E731  (EDT is UTC−4)
    assert [shift_of(facility, shifts, at(h)) for h in (10, 18, 2, 5)] == ["Day", "Swing", "Grave", "Grave"]
    assert shift_of(facility, shifts[:1], at(20)) == OUTSIDE


def test_the_coupon_report_waits_for_finance_to_process_the_quarters_last_day(facility, monkeypatch,
                                                                              django_capture_on_commit_callbacks):
    from coupons import selectors as coupon_selectors
    from coupons.selectors import ClosedDays

    last = {"day": date(2026, 9, 29)}
    monkeypatch.setattr(coupon_selectors, "closed_days",
                        lambda f: ClosedDays(last_form=last["day"], last_processed=last["day"]))
    quarter_three = (date(2026, 7, 1), date(2026, 9, 30))
    # 1 October, 06:30: the quarter is over, but 30 September's drop boxes are not yet counted and processed.
    assert quarter_three not in [r[:2] for r in scheduled(facility, django_capture_on_commit_callbacks,
                                                        "2026-10-01 10:30:00+00:00")]
    last["day"] = date(2026, 9, 30)
    assert quarter_three in [r[:2] for r in scheduled(facility, django_capture_on_commit_callbacks,
                                                    "2026-10-01 18:30:00+00:00")]


def test_a_week_after_the_quarter_it_is_produced_whatever_finance_did(facility, django_capture_on_commit_callbacks):
    assert (date(2026, 7, 1), date(2026, 9, 30)) not in [
        r[:2] for r in scheduled(facility, django_capture_on_commit_callbacks, "2026-10-07 09:30:00+00:00")]
    assert (date(2026, 7, 1), date(2026, 9, 30)) in [
        r[:2] for r in scheduled(facility, django_capture_on_commit_callbacks, "2026-10-07 10:30:00+00:00")]


def test_a_run_retried_long_after_it_was_asked_for_is_not_failed_as_lost(facility, compliance_officer,
                                                                           django_capture_on_commit_callbacks):
    from datetime import timedelta

    from django.utils import timezone

    with time_machine.travel("2026-11-03 14:00:00+00:00", tick=False):
        with django_capture_on_commit_callbacks(execute=False):
            run = services.run_request(facility=facility, kind="redemptions", start=date(2026, 10, 1),
                                       end=date(2026, 10, 31), user=compliance_officer)
        services._fail(run.pk, "Stopped: a test.")
    with time_machine.travel("2026-11-04 09:00:00+00:00", tick=False):
        with django_capture_on_commit_callbacks(execute=False):
            retried = services.run_retry(run=ReportRun.objects.get(pk=run.pk), user=compliance_officer)
        assert retried.status == ReportRun.Status.QUEUED and retried.requested_at == timezone.now()
        assert services.runs_fail_stuck(now=timezone.now() + timedelta(minutes=5)) == 0
    assert ReportRun.objects.get(pk=run.pk).status == ReportRun.Status.QUEUED
