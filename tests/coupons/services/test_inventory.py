"""The monthly inventory, § 525.21(n): discrepancies flagged, the reminder satisfied, what is counted."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
import time_machine
from django.core import mail
from django.core.exceptions import ValidationError
from django.urls import reverse

from coupons import selectors, services
from coupons.models import (
    CouponState,
    ExceptionReport,
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
    services.coupons_void(facility=program.facility, series=program.series, spans=[(91, 95)], reason="Misprint",
                         user=finance_supervisor, password=PASSWORD)
    # (A series is not recorded already expired: this one expires tonight and is taken out tomorrow.)
    short = make_series(program.facility, program.program, finance_supervisor, code="mp10", prefix="MS",
                        denomination_cents=1000, expires_on=TODAY)
    receive(1, 20, series=short)
    with time_machine.travel("2026-11-04 14:00:00+00:00", tick=True):
        services.stock_expire(series=short, user=finance_staff)
    expected = selectors.expected_inventory(program.facility)
    # § 525.21(n): every coupon not distributed to patrons, the voided and expired ones included.
    assert expected[program.series] == [(1, 100)]
    assert expected[short] == [(1, 20)]


def test_the_inventory_is_dated_the_gaming_day_it_is_taken(program, receive, finance_staff):
    receive(1, 10)
    for when in (TODAY - timedelta(days=40), date(2027, 11, 3)):
        with pytest.raises(ValidationError, match="dated the gaming day it is taken"):
            services.inventory_record(facility=program.facility, counted={program.series: [(1, 10)]},
                                      user=finance_staff, password=PASSWORD, counted_on=when)
    inventory = services.inventory_record(facility=program.facility, counted={program.series: [(1, 10)]},
                                          user=finance_staff, password=PASSWORD)
    assert inventory.gaming_date == TODAY


def test_the_expected_figures_say_where_the_coupons_are(program, receive, issue, finance_staff):
    receive(1, 100)
    issue(1, 20)
    inventory = services.inventory_record(facility=program.facility, counted={program.series: [(1, 100)]},
                                          user=finance_staff, password=PASSWORD)
    (count,) = inventory.counts.all()
    assert f"finance stock 80 ({program.vault.name})" in count.expected_where
    assert "held by marketing 20" in count.expected_where


def test_an_inventory_discrepancy_goes_to_internal_audit_until_resolved(
    program, receive, finance_staff, compliance_officer, client_for, django_capture_on_commit_callbacks
):
    receive(1, 100)
    with django_capture_on_commit_callbacks(execute=True):
        inventory = services.inventory_record(facility=program.facility, counted={program.series: [(1, 98)]},
                                              user=finance_staff, password=PASSWORD)
    report = ExceptionReport.objects.get(inventory=inventory)
    assert report.variance == 2 and report.status == "open" and "MP-0000099–MP-0000100" not in report.description
    assert "counted 98" in report.description and report.due_on == TODAY + timedelta(days=2)
    assert len(mail.outbox) == 1 and "monthly inventory" in mail.outbox[0].body
    page = client_for(compliance_officer).get(reverse("dashboard")).content.decode()
    assert "Exception report for 03 Nov" in page
