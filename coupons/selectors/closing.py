"""Which gaming days are closed, and which documents are owed, § 525.21(j), (m).

A day is closed for marketing once its reconciliation form (j) is signed, and for everyone once
finance's daily processing (m) is signed; closing a day closes every day before it. Marketing owes a
form for every gaming day on which it held coupons (carried in, received, or handed back that day),
signed in day order; finance processes days in day order.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from django.db.models import Max, Min, Q

from compliance.models import Facility
from coupons.models import CouponRange, CouponState, FinanceDayProcessing, ReconciliationForm

__all__ = ["ClosedDays", "closed_days", "days_owing_a_form", "first_day_owing_a_form", "first_unprocessed_day"]


@dataclass(frozen=True)
class ClosedDays:
    last_form: date | None  # the latest day whose reconciliation form is signed
    last_processed: date | None  # the latest day finance processed

    @property
    def marketing_through(self) -> date | None:
        """Marketing's movements dated on or before this day are refused."""
        days = [d for d in (self.last_form, self.last_processed) if d is not None]
        return max(days) if days else None

    @property
    def finance_through(self) -> date | None:
        """Every movement dated on or before this day is refused."""
        return self.last_processed


def closed_days(facility: Facility) -> ClosedDays:
    forms = ReconciliationForm.objects.filter(facility=facility).aggregate(last=Max("gaming_date"))
    processed = FinanceDayProcessing.objects.filter(facility=facility).aggregate(last=Max("gaming_date"))
    return ClosedDays(last_form=forms["last"], last_processed=processed["last"])


def _held_rows(facility: Facility, since: date | None, before: date) -> Q:
    """Ranges marketing held at some time between ``since`` and the day before ``before``."""
    held = Q(facility=facility, state=CouponState.ISSUED, opened_by__gaming_date__lt=before)
    if since is not None:
        held &= Q(closed_by__isnull=True) | Q(closed_by__gaming_date__gte=since)
    return held


def first_day_owing_a_form(facility: Facility, before: date) -> date | None:
    """The earliest gaming day before ``before``, after the last signed form, on which marketing held
    coupons: its form is owed before any later day's (one aggregate query, and one for the last form)."""
    last_form = ReconciliationForm.objects.filter(facility=facility).aggregate(last=Max("gaming_date"))["last"]
    since = last_form + timedelta(days=1) if last_form is not None else None
    first = CouponRange.objects.filter(_held_rows(facility, since, before)).aggregate(
        first=Min("opened_by__gaming_date"))["first"]
    if first is None:
        return None
    owed = max(first, since) if since is not None else first
    return owed if owed < before else None


def days_owing_a_form(facility: Facility, before: date, *, limit: int = 31) -> list[date]:
    """Every gaming day before ``before`` on which marketing held coupons and no form is signed, oldest
    first (at most ``limit``): what the dashboards list until it is done."""
    first = first_day_owing_a_form(facility, before)
    if first is None:
        return []
    rows = list(
        CouponRange.objects.filter(_held_rows(facility, first, before))
        .values_list("opened_by__gaming_date", "closed_by__gaming_date")
    )
    owed: list[date] = []
    day = first
    while day < before and len(owed) < limit:
        if any(opened <= day and (closed is None or closed >= day) for opened, closed in rows):
            owed.append(day)
        day += timedelta(days=1)
    return owed


def first_unprocessed_day(facility: Facility, before: date) -> date | None:
    """The earliest gaming day before ``before`` with a signed form that finance has not processed."""
    processed = FinanceDayProcessing.objects.filter(facility=facility, gaming_date__lt=before).values("gaming_date")
    return (
        ReconciliationForm.objects.filter(facility=facility, gaming_date__lt=before)
        .exclude(gaming_date__in=processed)
        .aggregate(first=Min("gaming_date"))["first"]
    )
