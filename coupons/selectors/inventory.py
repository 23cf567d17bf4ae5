"""Monthly inventory status, § 525.21(n)."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, timedelta

from compliance.models import Facility
from coupons.models import (
    CouponInventory,
    CouponState,
    InventoryReminder,
    LedgerLine,
)

S = CouponState
K = LedgerLine.Kind


INVENTORY_GRACE_DAYS = 1


def inventory_due_on(month: date) -> date:
    """Rule: at least one inventory in every calendar month; due by the month's last day."""
    return month.replace(day=calendar.monthrange(month.year, month.month)[1])


@dataclass
class InventoryStatus:
    month: date
    done: bool
    overdue: bool
    due_soon: bool
    missed_month: date | None = None


def inventory_status(facility: Facility, today: date) -> InventoryStatus:
    """Rule: at least one inventory each calendar month. Overdue once a month ended without one and
    the grace day (the 1st of the next month) has passed; "due soon" in the last 7 days of a month."""
    month = today.replace(day=1)
    previous = (month - timedelta(days=1)).replace(day=1)
    done_months = set(
        CouponInventory.objects.filter(facility=facility, gaming_date__gte=previous, signatures__slot="counted")
        .values_list("gaming_date", flat=True)
    )
    done_this = any(d >= month for d in done_months)
    done_previous = any(previous <= d < month for d in done_months)
    # Only months the system has been in use for count: a reminder exists from the month's start.
    tracked_previous = InventoryReminder.objects.filter(facility=facility, month=previous).exists()
    overdue = tracked_previous and not done_previous and (today - month).days >= INVENTORY_GRACE_DAYS
    due = inventory_due_on(month)
    return InventoryStatus(
        month=month, done=done_this, overdue=overdue, due_soon=not done_this and (due - today).days < 7,
        missed_month=previous if overdue else None,
    )
