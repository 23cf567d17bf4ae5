"""The monthly inventory of coupons not distributed to patrons, § 525.21(n), and its reminder."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from compliance.actors import acts_as_system, acts_as_user
from compliance.bounds import require_count
from compliance.models import Facility, regulated_bulk_create
from compliance.roles import Capability, require_capability
from compliance.services import record_sign
from coupons import ranges as spans_
from coupons.days import day_words
from coupons.days import today as gaming_today
from coupons.ledger import document_type, ledger_line
from coupons.models import (
    CouponInventory,
    CouponSeries,
    ExceptionReport,
    InventoryCount,
    InventoryReminder,
    LedgerLine,
)
from coupons.ranges import Span
from coupons.selectors import expected_inventory, expected_places, inventory_due_on
from coupons.services._common import create
from coupons.variances import inventory_difference

__all__ = ["inventory_record", "inventory_reminders_refresh"]


def _mark_reminder_done(inventory: CouponInventory, counted_on: date) -> None:
    reminder = InventoryReminder.objects.filter(facility=inventory.facility, month=counted_on.replace(day=1)).first()
    if reminder is not None and reminder.done_by_id is None:
        reminder.done_by = inventory
        reminder.save(update_fields=["done_by"])


@transaction.atomic
@acts_as_user
def inventory_record(
    *,
    facility: Facility,
    counted: dict[CouponSeries, Sequence[Span]],
    user: Any,
    password: str | None,
    counted_on: date | None = None,
) -> CouponInventory:
    """Record the monthly inventory in the ledger against what the ledger expects; flag discrepancies."""
    require_capability(user, Capability.TAKE_COUPON_INVENTORY)
    today = gaming_today(facility)
    if counted_on is not None and counted_on != today:
        # A count dated in the past would clear a month it was not taken in; one in the future is no count.
        raise ValidationError(
            f"The inventory is dated the gaming day it is taken ({day_words(today)}), not {day_words(counted_on)} "
            f"(§ 525.21(n)): count the coupons today and record the count now."
        )
    counted_on = today
    if any(series.facility_id != facility.pk for series in counted):
        raise ValidationError("A counted series belongs to another facility.")
    for series, spans in counted.items():
        require_count(spans_.count(spans_.merge(spans)), f"the count of {series.name}")
    expected = expected_inventory(facility)
    places = expected_places(facility)
    every_series = sorted(set(expected) | set(counted), key=lambda s: s.code)
    inventory = create(CouponInventory, user, facility=facility, gaming_date=counted_on)
    counts, lines, total = [], [], 0
    doc_type = document_type(inventory)
    for series in every_series:
        difference = inventory_difference(series, expected.get(series, []), counted.get(series, []))
        want, have = difference.expected, difference.counted
        total += difference.surplus
        counts.append(InventoryCount(
            inventory=inventory, series=series, expected_quantity=spans_.count(want),
            expected_ranges=spans_.describe(series, want), counted_quantity=spans_.count(have),
            counted_ranges=spans_.describe(series, have), expected_where=places.get(series.pk, ""),
        ))
        lines.append(ledger_line(inventory, series, LedgerLine.Kind.INVENTORY, have[0][0] if have else None,
                                 have[-1][1] if have else None, spans_.count(have), reason=difference.words,
                                 doc_type=doc_type))
    regulated_bulk_create(InventoryCount, counts)
    regulated_bulk_create(LedgerLine, lines)
    # Counted minus expected; when the totals agree but the serials do not, the number of series
    # whose serials differ, so a swapped serial is still flagged.
    inventory.discrepancy = total or sum(1 for c in counts if c.expected_ranges != c.counted_ranges)
    inventory.save(update_fields=["discrepancy"])
    record_sign(record=inventory, slot="counted", user=user, password=password)
    _mark_reminder_done(inventory, counted_on)
    if inventory.discrepancy:
        _exception_report_open(inventory, counts)
    return inventory


def _exception_report_open(inventory: CouponInventory, counts: list[InventoryCount]) -> ExceptionReport:
    """A count that differs from the ledger goes to internal audit like a daily variance, due in two days."""
    words = "; ".join(
        f"{c.series.name}: expected {c.expected_quantity:,} ({c.expected_ranges or 'none'}), counted "
        f"{c.counted_quantity:,} ({c.counted_ranges or 'none'})"
        for c in counts if c.expected_ranges != c.counted_ranges
    )
    report = ExceptionReport.objects.create(
        facility=inventory.facility, inventory=inventory, gaming_date=inventory.gaming_date,
        description=f"The monthly inventory differs from the ledger: {words}.", variance=abs(inventory.discrepancy),
        due_on=inventory.gaming_date + timedelta(days=ExceptionReport.DUE_DAYS),
    )
    from coupons.tasks import send_exception_report  # the one call upward: enqueue once committed

    transaction.on_commit(lambda: send_exception_report.delay(report.pk))
    return report


@acts_as_system
def inventory_reminders_refresh(*, today: date | None = None) -> int:
    """Create or refresh this month's reminder for every facility (idempotent: one per facility and month)."""
    changed = 0
    for facility in Facility.objects.all():
        month = (today or gaming_today(facility)).replace(day=1)  # each facility's own gaming day
        done = CouponInventory.objects.filter(
            facility=facility, gaming_date__gte=month, gaming_date__lte=inventory_due_on(month),
            signatures__slot="counted",
        ).order_by("gaming_date").first()
        reminder, created = InventoryReminder.objects.get_or_create(
            facility=facility, month=month, defaults={"due_on": inventory_due_on(month), "done_by": done}
        )
        if not created and reminder.done_by_id is None and done is not None:
            reminder.done_by = done
            reminder.checked_at = timezone.now()
            reminder.save()
        changed += int(created)
    return changed
