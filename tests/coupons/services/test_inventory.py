"""The monthly inventory, § 525.21(n): discrepancies flagged, the reminder satisfied, what is counted."""

from __future__ import annotations

from datetime import date

import pytest

from coupons import selectors, services
from coupons.models import (
    CouponState,
    InventoryReminder,
    LedgerLine,
)
from tests.coupons.conftest import PASSWORD, TODAY, make_series

pytestmark = pytest.mark.django_db
S = CouponState


def test_the_monthly_inventory_flags_discrepancies_and_satisfies_the_reminder(program, receive, issue, finance_staff):
    receive(1, 100)
    issue(1, 10)
    services.inventory_reminders_refresh(today=TODAY)
    services.inventory_reminders_refresh(today=TODAY)  # idempotent
    assert InventoryReminder.objects.count() == 1
    inventory = services.inventory_record(
        facility=program.facility, counted={program.series: [(1, 49), (51, 100)]}, user=finance_staff, password=PASSWORD
    )
    (count,) = inventory.counts.all()
    assert (count.expected_quantity, count.counted_quantity, inventory.discrepancy) == (100, 99, -1)
    line = LedgerLine.objects.get(kind="inventory")
    assert "not found: MP-0000050" in line.reason
    assert InventoryReminder.objects.get().done_by == inventory


def test_inventory_overdue_rule(program, finance_staff):
    assert selectors.inventory_status(program.facility, date(2026, 11, 3)).overdue is False
    services.inventory_reminders_refresh(today=date(2026, 11, 3))
    # November passed without an inventory: overdue after the grace day of 1 December.
    assert selectors.inventory_status(program.facility, date(2026, 12, 2)).overdue is True
    assert selectors.inventory_status(program.facility, date(2026, 12, 1)).overdue is False


def test_the_monthly_inventory_expects_the_voided_and_expired_coupons_finance_holds(
    program, receive, issue, finance_supervisor, finance_staff
):
    receive(1, 100)
    issue(1, 10)
    services.void_record(facility=program.facility, series=program.series, spans=[(91, 95)], reason="Misprint",
                         user=finance_supervisor, password=PASSWORD)
    short = make_series(program.facility, program.program, finance_supervisor, code="mp10", prefix="MS",
                        denomination_cents=1000, expires_on=date(2026, 11, 1))
    receive(1, 20, series=short)
    services.stock_expire(series=short, user=finance_staff)
    expected = selectors.expected_inventory(program.facility)
    # § 525.21(n): every coupon not distributed to patrons, the voided and expired ones included.
    assert expected[program.series] == [(1, 100)]
    assert expected[short] == [(1, 20)]
