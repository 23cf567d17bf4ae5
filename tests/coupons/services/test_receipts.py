"""Receipts, § 525.21(e)–(f): serials received once, deviations reported, two departments examining."""

from __future__ import annotations

import pytest
from django.core import mail
from django.core.exceptions import PermissionDenied, ValidationError

from compliance.services import signature_sign
from coupons import services
from coupons.models import (
    CouponState,
    DeviationReport,
    LedgerLine,
)
from tests.coupons.conftest import PASSWORD

pytestmark = pytest.mark.django_db
S = CouponState


def test_receiving_serials_already_received_is_refused_in_words(program, receive):
    first = receive(100001, 100600)
    with pytest.raises(ValidationError) as refused:
        receive(100501, 100700)
    assert (
        f"Serials MP-0100501–MP-0100600 of {program.series.name} were already received on 3 Nov 2026 "
        f"(receipt #{first.pk})" in str(refused.value)
    )
    assert LedgerLine.objects.filter(kind="receive").count() == 1


def test_a_deviation_from_the_invoice_is_reported_and_emailed(
    program, receive, finance_supervisor, settings, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        receipt = receive(1, 999, invoice_quantity=1000)
    report = DeviationReport.objects.get(receipt=receipt)
    assert "the invoice lists 1,000 coupons but 999 were received" in report.description.lower()
    (message,) = mail.outbox
    assert settings.BCC_BUREAU_EMAIL in message.to and finance_supervisor.email in message.to
    assert "525.21(e)" in message.subject
    report.refresh_from_db()
    assert report.emailed_at is not None


def test_a_receipt_needs_one_finance_and_one_marketing_examiner(program, receive, finance_staff, finance_supervisor):
    receipt = receive(1, 100, examined=False)
    signature_sign(record=receipt, slot="examined_finance", user=finance_supervisor, password=PASSWORD)
    with pytest.raises(PermissionDenied, match="marketing department"):
        signature_sign(record=receipt, slot="examined_marketing", user=finance_staff, password=PASSWORD)


def test_a_deviation_report_no_one_could_receive_stays_unsent(
    program, receive, finance_supervisor, settings, django_capture_on_commit_callbacks
):
    settings.BCC_BUREAU_EMAIL = ""
    finance_supervisor.email = ""
    finance_supervisor.save()
    with django_capture_on_commit_callbacks(execute=True):
        receipt = receive(1, 999, invoice_quantity=1000)
    report = DeviationReport.objects.get(receipt=receipt)
    assert mail.outbox == [] and report.emailed_at is None


def test_a_deviation_report_whose_mail_failed_is_not_recorded_as_sent(program, receive, settings):
    import smtplib
    from unittest import mock

    from coupons.tasks import send_deviation_report

    receipt = receive(1, 999, invoice_quantity=1000)
    report = DeviationReport.objects.get(receipt=receipt)
    failing = mock.patch("compliance.notifications.send_mail", side_effect=smtplib.SMTPServerDisconnected("down"))
    with failing, pytest.raises(smtplib.SMTPServerDisconnected):
        services.deviation_report_send(report=report)
    report.refresh_from_db()
    assert report.emailed_at is None
    # The task is the shared regulated-notification task: it retries a failed delivery with back-off.
    assert smtplib.SMTPException in send_deviation_report.autoretry_for and send_deviation_report.retry_backoff
    send_deviation_report.run(report.pk)
    report.refresh_from_db()
    assert report.emailed_at is not None and len(mail.outbox) == 1


def test_coupons_examined_by_one_department_are_not_stock_until_the_other_examines_them(
    program, receive, finance_supervisor, marketing_staff, django_capture_on_commit_callbacks
):
    from coupons import selectors
    from coupons.models import CouponState

    with django_capture_on_commit_callbacks(execute=True):
        receipt = receive(1, 999, invoice_quantity=1000, examined=False)
        signature_sign(record=receipt, slot="examined_finance", user=finance_supervisor, password=PASSWORD)
    totals = selectors.state_totals(program.facility)[2500]
    assert totals[CouponState.RECEIVED] == 999 and totals[CouponState.IN_STOCK] == 0
    # Not voidable (nor issuable) while awaiting the marketing member's examination, § 525.21(e).
    with pytest.raises(ValidationError, match="received, awaiting examination"):
        services.coupons_void(facility=program.facility, series=program.series, spans=[(5, 5)], reason="torn",
                             user=finance_supervisor, password=PASSWORD)
    # The deviation report waits for the examination too.
    assert mail.outbox == [] and DeviationReport.objects.get(receipt=receipt).emailed_at is None
    with django_capture_on_commit_callbacks(execute=True):
        signature_sign(record=receipt, slot="examined_marketing", user=marketing_staff, password=PASSWORD)
    totals = selectors.state_totals(program.facility)[2500]
    assert totals[CouponState.RECEIVED] == 0 and totals[CouponState.IN_STOCK] == 999
    assert len(mail.outbox) == 1 and DeviationReport.objects.get(receipt=receipt).emailed_at is not None
