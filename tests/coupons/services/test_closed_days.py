"""A closed day is never rewritten, § 525.21(j), (m): forms and processings in day order, no movement dated
on or before a signed day, and every day still owing a document shown until it is done."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.urls import reverse

from coupons import selectors, services
from tests.coupons.conftest import PASSWORD, TODAY

pytestmark = pytest.mark.django_db
TOMORROW = TODAY + timedelta(days=1)


def _next_day() -> Any:
    return time_machine.travel("2026-11-04 14:00:00+00:00", tick=True)


def _close(program: Any, day: Any, marketing_supervisor: Any, finance_supervisor: Any, counted: int) -> Any:
    return services.reconciliation_complete(
        facility=program.facility, gaming_date=day, counted_remaining={2500: counted} if counted else {},
        user=marketing_supervisor, password=PASSWORD, receiver=services.CoSigner(finance_supervisor, PASSWORD),
    )


def _process(program: Any, day: Any, finance_staff: Any, returned: int = 0) -> Any:
    return services.finance_day_process(
        facility=program.facility, gaming_date=day, counted={2500: {"returned": returned, "voided": 0, "redeemed": 0}},
        user=finance_staff, password=PASSWORD, restock_location=program.vault,
    )


def test_a_later_days_form_waits_for_every_day_marketing_held_coupons(
    program, receive, issue, marketing_supervisor, finance_supervisor
):
    receive(1, 100)
    issue(1, 10)  # marketing holds coupons on 3 Nov and no form is completed for it
    with _next_day(), pytest.raises(ValidationError, match="Complete the form for 3 Nov 2026 first"):
        _close(program, TOMORROW, marketing_supervisor, finance_supervisor, counted=10)
    assert selectors.days_owing_a_form(program.facility, TOMORROW) == [TODAY]


def test_a_day_marketing_held_nothing_owes_no_form(program, receive, marketing_supervisor, finance_supervisor):
    receive(1, 100)
    assert selectors.first_day_owing_a_form(program.facility, TOMORROW) is None
    with _next_day():
        _close(program, TOMORROW, marketing_supervisor, finance_supervisor, counted=0)


def test_finance_stock_cannot_be_moved_on_a_day_finance_processed(
    program, receive, issue, marketing_supervisor, finance_supervisor, finance_staff
):
    receive(1, 100)
    issue(1, 10)
    _close(program, TODAY, marketing_supervisor, finance_supervisor, counted=10)
    _process(program, TODAY, finance_staff, returned=10)
    with pytest.raises(ValidationError, match="finance's daily processing of 3 Nov 2026 is signed"):
        services.coupons_void(facility=program.facility, series=program.series, spans=[(50, 51)], reason="torn",
                             user=finance_supervisor, password=PASSWORD, gaming_date=TODAY)
    with pytest.raises(ValidationError, match="is closed"):
        receive(101, 200, received_on=TODAY)
    with _next_day():  # the next gaming day is open
        services.coupons_void(facility=program.facility, series=program.series, spans=[(50, 51)], reason="torn",
                             user=finance_supervisor, password=PASSWORD, gaming_date=TOMORROW)


def test_a_return_backdated_before_a_signed_form_is_refused(
    program, receive, issue, marketing_supervisor, finance_supervisor
):
    receive(1, 100)
    issue(1, 10)
    services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 10}, user=marketing_supervisor,
        password=PASSWORD, disposition="keep", kept_in=program.marketing_safe,
    )
    with _next_day():
        _close(program, TOMORROW, marketing_supervisor, finance_supervisor, counted=10)
        with pytest.raises(ValidationError, match="that marketing day is closed"):
            services.return_record(facility=program.facility, user=marketing_supervisor, password=PASSWORD,
                                   gaming_date=TODAY, spans={program.series: [(1, 1)]})


def test_finance_processes_the_days_in_order(
    program, receive, issue, marketing_supervisor, finance_supervisor, finance_staff
):
    receive(1, 100)
    issue(1, 10)
    services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 10}, user=marketing_supervisor,
        password=PASSWORD, disposition="keep", kept_in=program.marketing_safe,
    )
    with _next_day():
        _close(program, TOMORROW, marketing_supervisor, finance_supervisor, counted=10)
        with pytest.raises(ValidationError, match="Process 3 Nov 2026 first"):
            _process(program, TOMORROW, finance_staff, returned=10)
        _process(program, TODAY, finance_staff)
        _process(program, TOMORROW, finance_staff, returned=10)
        with pytest.raises(ValidationError, match="already processed"):
            _process(program, TODAY, finance_staff)


def test_the_dashboards_list_every_day_still_owing_a_form_or_a_processing(
    program, receive, issue, marketing_supervisor, finance_supervisor, finance_staff, compliance_officer, client_for
):
    receive(1, 100)
    issue(1, 10)
    # Three weeks later: marketing held the coupons every day since 3 Nov and no form was completed.
    with time_machine.travel("2026-11-24 15:00:00+00:00", tick=False):
        for person in (marketing_supervisor, finance_staff, compliance_officer):
            page = client_for(person).get(reverse("dashboard")).content.decode()
            assert "No reconciliation form for Tue 03 Nov" in page and "No reconciliation form for Mon 23 Nov" in page
