"""The reports' part of a generated year (``manage.py generate_casino``, :mod:`compliance.scale`): the runs its
compliance office would have made, through the reports service, each produced as a worker produces it
(:func:`compliance.reports.services.run_execute`; with Celery eager, as in the tests and a bare ``manage.py``, it
was produced when the request committed, and the second call finds it done).

* Each quarter that ended within the plan: at 08:25 the morning after its last gaming day (finance processed that
  day at 07:00), the hourly beat's :func:`~compliance.reports.services.quarterly_reports_schedule` produces every
  kind the schedule produces; a quarters-only kind the schedule leaves out is requested by the compliance officer.
  A kind that is signed is prepared by the finance supervisor and approved by the compliance officer that day, and
  one that is filed is filed with the Bureau that afternoon (§ 525.21(o)).
* Each month that ended within the plan: at 16:00 the day after, the compliance officer requests every monthly
  kind the page computes (``ReportKind.live``; a kind produced only as a job, such as the audit extract of a month,
  is left for a person to ask for).
* The morning after the plan's last day, the month so far of each monthly kind, as the officer looks at it.

Which kinds exist is the registry's (:func:`compliance.reports.registry.all_kinds`): each app registers its own.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from django.test.utils import override_settings

from compliance.demo import signing_passwords
from compliance.gaming_day import day_bounds
from compliance.reports import services
from compliance.reports.models import ReportFiling, ReportRun, ReportSignoff
from compliance.reports.periods import Period, month_of, quarter_of
from compliance.reports.registry import ReportKind, all_kinds
from compliance.roles import Role
from compliance.scale import ScalePlan, travel
from compliance.services import signature_sign

__all__ = ["reports_scale_seed"]

_KEPT = "django.core.mail.backends.locmem.EmailBackend"


def _at(plan: ScalePlan, day: date, hours: float) -> datetime:
    return day_bounds(plan.facility, day)[0] + timedelta(hours=hours)


def _monthly(kind: ReportKind) -> bool:
    period = kind.default_period(date(2025, 3, 15))
    return kind.live and not kind.quarters_only and period == month_of(period.start)


def _quarterly(kind: ReportKind) -> bool:
    return kind.scheduled_quarterly or kind.quarters_only


def _produced(run: ReportRun) -> ReportRun:
    produced = services.run_execute(run.pk) or run
    produced.refresh_from_db()
    if produced.status != ReportRun.Status.SUCCEEDED:
        raise RuntimeError(f"generate_casino: {produced} was not produced: {produced.error}")
    return produced


class _Office:
    """The compliance officer and finance supervisor who ask for, sign and file reports, with their password."""

    def __init__(self, plan: ScalePlan, password: str) -> None:
        self.plan, self.password = plan, password
        self.officer, self.finance = plan.people[Role.COMPLIANCE_OFFICER], plan.people[Role.FINANCE_SUPERVISOR]
        self.runs: list[ReportRun] = []
        self.signed = self.filed = 0

    def request(self, kind: ReportKind, period: Period, at: datetime) -> None:
        with travel(at):
            run = services.run_request(facility=self.plan.facility, kind=kind.code, start=period.start,
                                       end=period.end, user=self.officer)
            self.runs.append(_produced(run))

    def quarter(self, quarter: Period) -> None:
        """The quarter's reports, the morning after its last gaming day."""
        morning = quarter.end + timedelta(days=1)
        with travel(_at(self.plan, morning, 2 + 25 / 60)):
            scheduled = [_produced(run) for run in services.quarterly_reports_schedule()
                         if run.facility_id == self.plan.facility.pk]
        self.runs += scheduled
        made = {run.kind for run in scheduled}
        for kind in all_kinds():
            if _quarterly(kind) and kind.code not in made:
                self.request(kind, quarter, _at(self.plan, morning, 3))
        for run in self.runs:
            if run.period_start == quarter.start and run.period_end == quarter.end:
                self._signed_and_filed(run, morning)

    def _signed_and_filed(self, run: ReportRun, day: date) -> None:
        signoff = ReportSignoff.objects.filter(run=run).first()
        if signoff is not None:
            for hours, slot, user in ((4, "prepared", self.finance), (8, "approved", self.officer)):
                with travel(_at(self.plan, day, hours)):
                    signature_sign(record=signoff, slot=slot, user=user, password=self.password)
            self.signed += 1
        kind = next(k for k in all_kinds() if k.code == run.kind)
        if kind.filed:
            with travel(_at(self.plan, day, 9)):
                services.filing_record(run=run, filed_on=day, method=ReportFiling.Method.PORTAL,
                                       reference=f"BCC-{run.period_end:%Y}Q{(run.period_end.month + 2) // 3}"
                                                 f"-{self.plan.facility.code.upper()}", user=self.officer)
            self.filed += 1


def _periods(plan: ScalePlan) -> tuple[list[Period], list[Period]]:
    """The quarters and the months whose last gaming day is within the plan."""
    quarters = [quarter_of(day) for day in plan.each_day() if quarter_of(day).end == day]
    months = [month_of(day) for day in plan.each_day() if month_of(day).end == day]
    return quarters, months


def reports_scale_seed(*, plan: ScalePlan) -> str:
    quarters, months = _periods(plan)
    monthly = [kind for kind in all_kinds() if _monthly(kind)]
    people: list[Any] = [plan.people[Role.COMPLIANCE_OFFICER], plan.people[Role.FINANCE_SUPERVISOR]]
    # Each report anchors the audit chain and e-mails the heads to the Board: a generated casino's are kept in memory
    # (recorded as delivered, as they would have been), never sent to anyone.
    with signing_passwords(people) as password, override_settings(EMAIL_BACKEND=_KEPT):
        office = _Office(plan, password)
        for period in sorted([*quarters, *months], key=lambda p: (p.end, -p.days)):  # a quarter, then its month
            if period in quarters:
                office.quarter(period)
            else:
                for kind in monthly:
                    office.request(kind, period, _at(plan, period.end + timedelta(days=1), 10))
        so_far = Period(month_of(plan.last_day).start, plan.last_day)
        if so_far not in months:
            for kind in monthly:
                office.request(kind, so_far, _at(plan, plan.last_day + timedelta(days=1), 3.5))
    kinds = sorted({run.kind for run in office.runs})
    return (f"{len(office.runs)} report versions produced ({', '.join(kinds)}) for {len(quarters)} quarter(s) and "
            f"{len(months)} month(s) ended and the month so far; {office.signed} signed off, {office.filed} filed with "
            f"the Bureau")
