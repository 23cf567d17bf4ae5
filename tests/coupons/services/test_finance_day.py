"""Finance's daily processing, § 525.21(m): exception reports, signatures reviewed, expired stock."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.core.exceptions import PermissionDenied, ValidationError

from compliance.services import signature_sign
from coupons import services
from coupons.models import (
    CouponState,
    ExceptionReport,
    FinanceDayProcessing,
)
from tests.coupons.conftest import PASSWORD, TODAY, states

pytestmark = pytest.mark.django_db
S = CouponState


def test_a_variance_in_finance_processing_opens_an_exception_report_due_in_two_days(
    program,
    returned_day,
    marketing_supervisor,
    finance_supervisor,
    finance_staff,
    django_capture_on_commit_callbacks,
    compliance_officer,
):
    nineteen = {2500: {"returned": 19, "voided": 0, "redeemed": 0}}
    with django_capture_on_commit_callbacks(execute=True):
        processing = services.finance_day_process(
            facility=program.facility,
            gaming_date=TODAY,
            counted=nineteen,
            first_count=nineteen,
            count_explanation="One coupon missing from the return envelope",
            user=finance_staff,
            password=PASSWORD,
            restock_location=program.vault,
        )
    report = ExceptionReport.objects.get(processing=processing)
    assert report.due_on == TODAY + timedelta(days=2) and report.variance == 1
    assert "$25: 19 returned coupons counted, the ledger has 20" in report.description
    assert "One coupon missing from the return envelope" in report.description
    assert compliance_officer.email in mail.outbox[0].to
    with pytest.raises(ValidationError, match="already processed"):
        services.finance_day_process(
            facility=program.facility,
            gaming_date=TODAY,
            counted={2500: {"returned": 20, "voided": 0, "redeemed": 0}},
            user=finance_staff,
            password=PASSWORD,
        )
    # Finance, whose count is in question, cannot close the exception itself (segregation of duties).
    with pytest.raises(PermissionDenied):
        services.exception_report_resolve(report=report, resolution="Fine.", user=finance_supervisor)
    services.exception_report_resolve(report=report, resolution="Recounted: 20.", user=compliance_officer)
    assert ExceptionReport.objects.get().status == "resolved"


def test_a_count_that_differs_is_counted_again_before_it_is_signed_525_21_m(
    program, returned_day, marketing_supervisor, finance_supervisor, finance_staff
):
    """§ 525.21(m)(1), (3): a count differing from the ledger is refused once, by denomination, and asked again;
    the same count a second time, explained, is signed and becomes the exception report to internal audit."""

    def process(counted: dict, **more: Any) -> Any:
        return services.finance_day_process(
            facility=program.facility, gaming_date=TODAY, counted=counted, user=finance_staff, password=PASSWORD,
            restock_location=program.vault, **more)

    nineteen = {2500: {"returned": 19, "voided": 0, "redeemed": 0}}
    with pytest.raises(services.CountDiffers, match="Count these coupons again") as first:
        process(nineteen, count_explanation="Short by one")  # an explanation does not skip the second count
    assert "$25: 19 returned coupons counted, the ledger has 20" in first.value.messages[0]
    assert first.value.counts == nineteen
    eighteen = {2500: {"returned": 18}}
    with pytest.raises(services.CountDiffers, match="Count these coupons again") as second:
        process(eighteen, first_count=nineteen)  # a different second count is a new first count
    assert second.value.counts == eighteen
    with pytest.raises(services.CountDiffers, match="Explain the difference"):
        process(nineteen, first_count=nineteen)
    assert not FinanceDayProcessing.objects.exists() and not ExceptionReport.objects.exists()
    assert states(program.series)[0] == (1, 20, S.RETURNED)  # nothing moved

    processing = process(nineteen, first_count=nineteen, count_explanation="One missing from the envelope")
    assert processing.count_explanation == "One missing from the envelope" and processing.variance == 1
    assert ExceptionReport.objects.get(processing=processing).variance == 1
    assert not processing.altered_since_signed


def test_a_count_that_matches_is_signed_at_once_with_its_figures_by_denomination(
    program, returned_day, marketing_supervisor, finance_supervisor, finance_staff
):
    processing = services.finance_day_process(
        facility=program.facility, gaming_date=TODAY, counted={2500: {"returned": 20}}, user=finance_staff,
        password=PASSWORD, restock_location=program.vault)
    assert processing.variance == 0 and processing.count_explanation == ""
    (figure,) = processing.figures.all()
    assert (figure.denomination_cents, figure.given_to_marketing, figure.returned, figure.awaiting_returned,
            figure.counted_returned, figure.given_to_date) == (2500, 20, 20, 20, 20, 20)
    assert not processing.altered_since_signed


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
            counted={2500: {"returned": 20, "voided": 0, "redeemed": 0}},
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
                facility=program.facility, gaming_date=TODAY + timedelta(days=1),
                counted={2500: {"voided": 2}}, user=finance_staff, password=PASSWORD,
            )
        signature_sign(record=void, slot="voided", user=finance_supervisor, password=PASSWORD)
        processing = services.finance_day_process(
            facility=program.facility, gaming_date=TODAY + timedelta(days=1), counted={2500: {"voided": 2}},
            user=finance_staff, password=PASSWORD,
        )
    assert processing.variance == 0


def test_finances_password_is_checked_once_and_before_the_facility_is_locked(
    program, returned_day, finance_staff, monkeypatch
):
    """Issue 27 (the busy floor): the processing holds the facility's exclusive lock, every scan waiting on it; the
    signer's password (a third of a second of hashing) is checked before the lock, once, and the signature takes that
    answer. A wrong password is still refused by the signature, with nothing written."""
    from coupons.services import finance_day

    happened: list[str] = []
    locking, checking = finance_day.lock_facility, type(finance_staff).check_password
    monkeypatch.setattr(finance_day, "lock_facility", lambda facility: (happened.append("lock"), locking(facility)))
    monkeypatch.setattr(type(finance_staff), "check_password",
                        lambda user, raw: (happened.append("hash"), checking(user, raw))[1])
    counted = {2500: {"returned": 20, "voided": 0, "redeemed": 0}}
    with pytest.raises(ValidationError, match="password is not correct"):
        services.finance_day_process(facility=program.facility, gaming_date=TODAY, counted=counted,
                                     user=finance_staff, password="not the password", restock_location=program.vault)
    assert not FinanceDayProcessing.objects.exists()
    happened.clear()
    services.finance_day_process(facility=program.facility, gaming_date=TODAY, counted=counted, user=finance_staff,
                                 password=PASSWORD, restock_location=program.vault)
    assert happened == ["hash", "lock"]
    assert FinanceDayProcessing.objects.get().signatures.filter(slot="reviewed", signer=finance_staff).exists()
