"""The marketing day and finance's daily reconciliation, § 525.21(g)(2), (h), (j)–(m): figures that agree
with what marketing physically holds, and a reconciliation that finds a real discrepancy."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core.exceptions import ValidationError

from compliance.actors import acting_as
from compliance.models import regulated_bulk_create
from coupons import selectors, services
from coupons.models import CouponIssuance, CouponState, ExceptionReport, LedgerLine
from tests.coupons.conftest import PASSWORD, TODAY

pytestmark = pytest.mark.django_db
S = CouponState
TOMORROW = TODAY + timedelta(days=1)


def _next_day() -> Any:
    return time_machine.travel("2026-11-04 14:00:00+00:00", tick=True)


def _figure(facility: Any, day: Any) -> selectors.DayFigure:
    (figure,) = selectors.day_figures(facility, day)
    return figure


def test_coupons_issued_today_for_tomorrow_are_on_todays_form_and_carried_into_tomorrow(
    program, receive, issue, requisition, finance_supervisor, marketing_supervisor, finance_staff
):
    receive(1, 100)
    issue(1, 10)
    ahead = requisition(20, needed_for=TOMORROW)
    issuance = services.issuance_record(
        requisition=ahead, series=program.series, issued=[(11, 30)], user=finance_supervisor, password=PASSWORD,
        receiver=services.CoSigner(marketing_supervisor, PASSWORD),
    )
    # Handed over today: today's gaming day; the requisition keeps its "needed for" date, (g)(2).
    assert issuance.gaming_date == TODAY
    ahead.refresh_from_db()
    assert ahead.needed_for == TOMORROW
    today = _figure(program.facility, TODAY)
    assert (today.received, today.remaining) == (30, 30)
    services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 30}, user=marketing_supervisor,
        password=PASSWORD, disposition="keep", kept_in=program.marketing_safe,
    )
    processing = services.finance_day_process(
        facility=program.facility, gaming_date=TODAY, counted={2500: {"returned": 0, "voided": 0, "redeemed": 0}},
        user=finance_staff, password=PASSWORD,
    )
    assert (processing.variance, processing.given_to_marketing, processing.carried_forward) == (0, 30, 30)
    with _next_day():
        tomorrow = _figure(program.facility, TOMORROW)
        assert (tomorrow.carried_in, tomorrow.received, tomorrow.remaining) == (30, 0, 30)
        services.reconciliation_complete(
            facility=program.facility, gaming_date=TOMORROW, counted_remaining={2500: 30}, user=marketing_supervisor,
            password=PASSWORD, receiver=services.CoSigner(finance_supervisor, PASSWORD),
        )
        processing = services.finance_day_process(
            facility=program.facility, gaming_date=TOMORROW, counted={2500: {"returned": 30, "voided": 0, "redeemed": 0}},
            user=finance_staff, password=PASSWORD, restock_location=program.vault,
        )
    assert (processing.variance, processing.given_to_marketing, processing.returned) == (0, 30, 30)
    assert not ExceptionReport.objects.exists()


def test_returning_at_todays_close_what_was_issued_ahead_processes_without_error(
    program, receive, issue, requisition, finance_supervisor, marketing_supervisor, finance_staff
):
    # The review's path: issued today for tomorrow, today's form completed with "return".
    receive(1, 100)
    issue(1, 10)
    services.issuance_record(
        requisition=requisition(20, needed_for=TOMORROW), series=program.series, issued=[(11, 30)],
        user=finance_supervisor, password=PASSWORD, receiver=services.CoSigner(marketing_supervisor, PASSWORD),
    )
    services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 30}, user=marketing_supervisor,
        password=PASSWORD, receiver=services.CoSigner(finance_supervisor, PASSWORD),
    )
    processing = services.finance_day_process(
        facility=program.facility, gaming_date=TODAY, counted={2500: {"returned": 30, "voided": 0, "redeemed": 0}},
        user=finance_staff, password=PASSWORD, restock_location=program.vault,
    )
    assert (processing.variance, processing.returned, processing.carried_forward) == (0, 30, 0)
    assert selectors.day_figures(program.facility, TOMORROW) == []


def test_an_issuance_cannot_be_dated_on_a_gaming_day_that_has_not_started(
    program, receive, requisition, finance_supervisor
):
    receive(1, 100)
    with pytest.raises(ValidationError, match="when they are handed over"):
        services.issuance_record(
            requisition=requisition(20, needed_for=TOMORROW), series=program.series, issued=[(1, 20)],
            user=finance_supervisor, password=PASSWORD, gaming_date=TOMORROW,
        )
    assert not CouponIssuance.objects.exists()


def test_a_return_after_the_day_was_closed_is_refused(program, receive, issue, marketing_supervisor, finance_supervisor):
    receive(1, 100)
    issue(1, 10)
    services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 10}, user=marketing_supervisor,
        password=PASSWORD, disposition="keep", kept_in=program.marketing_safe,
    )
    with pytest.raises(ValidationError, match="that marketing day is closed"):
        services.return_record(facility=program.facility, user=marketing_supervisor, password=PASSWORD,
                               gaming_date=TODAY, receiver=services.CoSigner(finance_supervisor, PASSWORD))
    with pytest.raises(ValidationError, match="has not started"):
        services.return_record(facility=program.facility, user=marketing_supervisor, password=PASSWORD,
                               gaming_date=TOMORROW)
    assert _figure(program.facility, TODAY).remaining == 10


def _stray_distribution_line(program: Any, document: Any, first: int, last: int) -> None:
    """A ledger line of the day that no range movement matches (an entry made outside the services)."""
    line = LedgerLine(
        facility=program.facility, gaming_date=TODAY, kind=LedgerLine.Kind.DISTRIBUTE, series=program.series,
        denomination_cents=2500, from_state=S.ISSUED, to_state=S.DISTRIBUTED, first_serial=first, last_serial=last,
        quantity=last - first + 1, document_type=document.ledger_lines().first().document_type,
        document_id=document.pk,
    )
    with acting_as(document.created_by):
        regulated_bulk_create(LedgerLine, [line])


def test_finance_finds_a_ledger_movement_the_signed_form_and_the_holdings_do_not_show(
    program, receive, issue, marketing_supervisor, finance_staff, client_for
):
    receive(1, 100)
    issuance = issue(1, 10)
    services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 10}, user=marketing_supervisor,
        password=PASSWORD, disposition="keep", kept_in=program.marketing_safe,
    )
    _stray_distribution_line(program, issuance, 1, 3)
    processing = services.finance_day_process(
        facility=program.facility, gaming_date=TODAY, counted={2500: {"returned": 0, "voided": 0, "redeemed": 0}},
        user=finance_staff, password=PASSWORD,
    )
    # Marketing still holds all ten (the ranges): three "distributed" coupons are not accounted for.
    assert processing.carried_forward == 10
    assert processing.distributed == 3
    assert processing.given_to_marketing != (
        processing.returned + processing.voided + processing.distributed + processing.carried_forward
    )
    assert processing.variance == 6  # off by 3 in the balance, and 3 against the signed form
    report = ExceptionReport.objects.get()
    assert "off by -3" in report.description
    assert "distributed: the signed form has 0, the ledger 3" in report.description
    page = client_for(finance_staff).get(processing.get_absolute_url()).content.decode()
    assert "the signed form has 0, the ledger 3" in page


def test_a_form_whose_count_disagrees_with_the_coupons_kept_shows_as_a_variance(
    program, receive, issue, marketing_supervisor, finance_staff
):
    receive(1, 100)
    issue(1, 10)
    services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 8}, user=marketing_supervisor,
        password=PASSWORD, disposition="keep", kept_in=program.marketing_safe, variation_explanation="two missing",
    )
    processing = services.finance_day_process(
        facility=program.facility, gaming_date=TODAY, counted={2500: {"returned": 0, "voided": 0, "redeemed": 0}},
        user=finance_staff, password=PASSWORD,
    )
    assert processing.variance == 2
    assert "two missing" in ExceptionReport.objects.get().description
