"""Checks and helpers the coupon services share: the facility's own series, approved storage, the
program gates, an open marketing day, and creating a document attributed to its author."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone

from compliance.bounds import require_within_bounds
from compliance.locks import lock_facility
from compliance.models import Facility
from compliance.notifications import Notification, notification_send
from coupons.days import day_words, today
from coupons.models import CouponSeries, StorageLocation
from coupons.selectors import closed_days, program_gate_refusals

__all__ = [
    "create",
    "marketing_day_open",
    "report_email",
    "require_day_open",
    "require_facility",
    "require_gates",
    "require_location",
]


def create(model: type[Any], user: Any, **fields: Any) -> Any:
    """A new document of ``model`` written by ``user``. Its quantities are often counted from serials typed
    in: one past its field's bounds is refused here in words, before the database's check refuses it."""
    document = model(created_by=user, **fields)
    require_within_bounds(document)
    document.save(force_insert=True)
    return document


def report_email(report: Any, notification: Notification) -> bool:
    """Send a report's regulated notification and record ``emailed_at`` only once it went: with no one
    to send it to it stays unsent, and a failed delivery raises for the task to retry."""
    if not notification_send(notification):
        return False
    report.emailed_at = timezone.now()
    report.save(update_fields=["emailed_at"])
    return True


def require_facility(series: CouponSeries, facility: Facility) -> None:
    if series.facility_id != facility.pk:
        raise ValidationError(f"{series.name} belongs to another facility.")


def require_location(location: StorageLocation | None, department: str, clause: str) -> StorageLocation:
    """An approved, locked storage area of ``department`` (§ 525.21(i) for finance, (k) for marketing)."""
    if location is None:
        raise ValidationError(f"Choose the approved locked {department} storage area ({clause}).")
    if location.department != department or not location.is_approved:
        raise ValidationError(
            f"{location.name} is not a {department} area approved by the Bureau of Casino Compliance and locked "
            f"({clause}); choose an approved area."
        )
    return location


def require_gates(series: CouponSeries, on_date: date, *, internal_print: bool = False) -> None:
    """The program approvals of § 525.21(b) (and (p) for coupons printed in house) are recorded."""
    refusals = program_gate_refusals(series, on_date, internal_print=internal_print)
    if refusals:
        raise ValidationError(refusals)


def require_day_open(facility: Facility, gaming_date: date, *, marketing: bool) -> None:
    """A closed day is never rewritten (§ 525.21(j), (m)): refuse a movement dated on or before the latest
    day whose reconciliation form (for marketing's movements) or finance processing (for any) is signed.

    Takes the facility's lock first, so a form or a processing cannot be signed while this movement
    commits into its day."""
    lock_facility(facility)
    closed = closed_days(facility)
    through = closed.marketing_through if marketing else closed.finance_through
    if through is None or gaming_date > through:
        return
    if closed.last_processed is not None and through == closed.last_processed:
        signed = f"finance's daily processing of {day_words(through)} is signed"
    else:
        signed = f"the reconciliation form for {day_words(through)} was completed"
    now = today(facility)
    raise ValidationError(
        f"{day_words(gaming_date)} is closed: {signed}, so that marketing day is closed, with every day before it. "
        + (f"Record this on today's gaming day ({day_words(now)})." if now > through
           else "Record this on the next gaming day.")
    )


def marketing_day_open(facility: Facility, gaming_date: date) -> None:
    """Marketing's day is open: no reconciliation form (or processing) is signed for it or a later day."""
    require_day_open(facility, gaming_date, marketing=True)
