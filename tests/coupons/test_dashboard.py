"""What the compliance dashboard says about the coupon ledger, and the monthly reminder beat task."""

from __future__ import annotations

import pytest
import time_machine
from django.urls import reverse

from coupons import services
from coupons.models import InventoryReminder
from coupons.tasks import monthly_inventory_reminder
from tests.coupons.conftest import PASSWORD, TODAY

pytestmark = pytest.mark.django_db


def test_the_beat_task_creates_one_reminder_per_facility_and_month(program, other_facility):
    assert monthly_inventory_reminder.delay().get() == 2
    assert monthly_inventory_reminder.delay().get() == 0
    assert InventoryReminder.objects.filter(month=TODAY.replace(day=1)).count() == 2


def test_an_overdue_inventory_shows_on_the_dashboard(program, client_for, finance_staff):
    monthly_inventory_reminder.delay()
    with time_machine.travel("2026-12-02 15:00:00+00:00", tick=False):
        page = client_for(finance_staff).get(reverse("dashboard")).content.decode()
    assert "Monthly inventory overdue: none recorded in November 2026" in page


def test_expired_coupons_held_and_overdue_exception_reports_show_on_the_dashboard(
    program, returned_day, marketing_supervisor, finance_staff, finance_supervisor, client_for
):
    services.finance_day_process(
        facility=program.facility,
        gaming_date=TODAY,
        counted={2500: {"returned": 18, "voided": 0, "redeemed": 0}},
        first_count={2500: {"returned": 18, "voided": 0, "redeemed": 0}},
        count_explanation="Two missing from the return envelope",
        user=finance_staff,
        password=PASSWORD,
        restock_location=program.vault,
    )
    with time_machine.travel("2026-11-06 15:00:00+00:00", tick=False):
        page = client_for(finance_supervisor).get(reverse("dashboard")).content.decode()
    assert "Exception report for 03 Nov overdue since 05 Nov" in page


def test_marketing_sees_expired_coupons_to_return(
    program, finance_supervisor, compliance_officer, receive, requisition, marketing_supervisor, client_for,
    monkeypatch,
):
    from coupons.services import marketing_day
    from tests.coupons.conftest import approve, make_series

    # Coupons expiring tonight are no longer kept overnight (§ 525.21(k), coupons.services.marketing_day); expired
    # coupons in marketing's hands come from a day closed before that rule (or a correction approved later).
    monkeypatch.setattr(marketing_day, "_require_nothing_expiring_kept", lambda *args: None)

    short = make_series(
        program.facility, program.program, finance_supervisor, code="mpx", prefix="MX", expires_on=TODAY
    )
    approve(program.facility, program.program, compliance_officer, short, kinds=("design",))
    receive(1, 10, series=short)
    services.issuance_record(
        requisition=requisition(10),
        series=short,
        issued=[(1, 10)],
        user=finance_supervisor,
        password=PASSWORD,
        receiver=services.CoSigner(marketing_supervisor, PASSWORD),
    )
    services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 10},
        user=marketing_supervisor,
        password=PASSWORD,
        disposition="keep",
        kept_in=program.marketing_safe,
    )
    with time_machine.travel("2026-11-04 15:00:00+00:00", tick=False):
        client = client_for(marketing_supervisor)
        dashboard = client.get(reverse("dashboard")).content.decode()
        today = client.get(reverse("coupons:today")).content.decode()
    assert "10 expired coupons still held by marketing: return them today" in dashboard
    assert "MX-0000001–MX-0000010" in today and "must go back to finance today" in today


def test_the_regulations_page_lists_the_coupon_screens(client_for, compliance_officer):
    page = client_for(compliance_officer).get(reverse("regulation-list")).content.decode()
    assert "Daily Match Play Coupon Reconciliation Form" in page and "Finance daily processing" in page
