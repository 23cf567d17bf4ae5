"""Finance's daily processing, § 525.21(m): exception reports, signatures reviewed, expired stock."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
import time_machine
from django.core import mail
from django.core.exceptions import PermissionDenied, ValidationError

from compliance.services import signature_sign
from coupons import services
from coupons.models import (
    CouponState,
    ExceptionReport,
)
from tests.coupons.conftest import PASSWORD, TODAY, states

pytestmark = pytest.mark.django_db
S = CouponState


def test_a_variance_in_finance_processing_opens_an_exception_report_due_in_two_days(
    program,
    receive,
    issue,
    marketing_supervisor,
    finance_supervisor,
    finance_staff,
    django_capture_on_commit_callbacks,
    compliance_officer,
):
    receive(1, 100)
    issue(1, 20)
    services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 20},
        user=marketing_supervisor,
        password=PASSWORD,
        receiver=services.CoSigner(finance_supervisor, PASSWORD),
    )
    with django_capture_on_commit_callbacks(execute=True):
        processing = services.finance_day_process(
            facility=program.facility,
            gaming_date=TODAY,
            counted_returned=19,
            counted_voided=0,
            counted_redeemed=0,
            user=finance_staff,
            password=PASSWORD,
            restock_location=program.vault,
        )
    report = ExceptionReport.objects.get(processing=processing)
    assert report.due_on == TODAY + timedelta(days=2) and report.variance == 1
    assert "19 returned coupons counted, the ledger has 20" in report.description
    assert compliance_officer.email in mail.outbox[0].to
    with pytest.raises(ValidationError, match="already processed"):
        services.finance_day_process(
            facility=program.facility,
            gaming_date=TODAY,
            counted_returned=20,
            counted_voided=0,
            counted_redeemed=0,
            user=finance_staff,
            password=PASSWORD,
        )
    # Finance, whose count is in question, cannot close the exception itself (segregation of duties).
    with pytest.raises(PermissionDenied):
        services.exception_report_resolve(report=report, resolution="Fine.", user=finance_supervisor)
    services.exception_report_resolve(report=report, resolution="Recounted: 20.", user=compliance_officer)
    assert ExceptionReport.objects.get().status == "resolved"


def test_finance_cannot_process_a_day_before_the_return_is_signed_as_received(
    program, receive, issue, marketing_supervisor, finance_staff
):
    receive(1, 100)
    issue(1, 20)
    services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 20},
        user=marketing_supervisor,
        password=PASSWORD,
    )
    with pytest.raises(ValidationError, match="finance supervisor receiving"):
        services.finance_day_process(
            facility=program.facility,
            gaming_date=TODAY,
            counted_returned=20,
            counted_voided=0,
            counted_redeemed=0,
            user=finance_staff,
            password=PASSWORD,
            restock_location=program.vault,
        )


def test_expired_stock_leaves_circulation(program, receive, finance_staff):
    receive(1, 100)
    with pytest.raises(ValidationError, match="not expired yet"):
        services.stock_expire(series=program.series, user=finance_staff)
    services.stock_expire(series=program.series, user=finance_staff, on_date=date(2027, 1, 1))
    assert states(program.series) == [(1, 100, S.EXPIRED)]


def test_processing_refuses_coupons_brought_in_by_an_unsigned_document_of_an_earlier_day(
    program, receive, finance_supervisor, finance_staff
):
    receive(1, 100)
    void = services.coupons_void(facility=program.facility, series=program.series, spans=[(5, 6)], reason="torn",
                                user=finance_supervisor, password=None)  # to be signed later: not yet
    with time_machine.travel("2026-11-04 14:00:00+00:00", tick=True):
        with pytest.raises(ValidationError, match=rf"Void #{void.pk} .* still needs the signature"):
            services.finance_day_process(
                facility=program.facility, gaming_date=TODAY + timedelta(days=1), counted_returned=0,
                counted_voided=2, counted_redeemed=0, user=finance_staff, password=PASSWORD,
            )
        signature_sign(record=void, slot="voided", user=finance_supervisor, password=PASSWORD)
        processing = services.finance_day_process(
            facility=program.facility, gaming_date=TODAY + timedelta(days=1), counted_returned=0, counted_voided=2,
            counted_redeemed=0, user=finance_staff, password=PASSWORD,
        )
    assert processing.variance == 0
