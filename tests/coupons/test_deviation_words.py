"""§ 525.21(e): a deviation found at receipt is *reported* when its report is e-mailed to the finance supervisors and
the Bureau of Casino Compliance — once both examiners have signed the receipt. Nothing says "reported" before."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.core import mail
from django.urls import reverse

from compliance.services import signature_sign
from coupons.models import CouponReceipt, DeviationReport
from tests.coupons.conftest import PASSWORD, TODAY

pytestmark = pytest.mark.django_db


def _receipt_form(program: Any, **extra: Any) -> dict[str, Any]:
    return {
        "series": program.series.pk,
        "source": "provider",
        "supplier": "Gaming Printers Inc.",
        "invoice_number": "INV-9",
        "invoice_quantity": 1000,
        "invoice_first_serial": 1,
        "invoice_last_serial": 1000,
        "received": "1-999",
        "received_on": TODAY.isoformat(),
        "location": program.vault.pk,
        "password": PASSWORD,
        **extra,
    }


def _said(response: Any) -> str:
    return " ".join(str(m) for m in get_messages(response.wsgi_request))


def test_a_deviation_is_not_said_reported_before_its_report_is_mailed(
    program, client_for, finance_supervisor, finance_staff, marketing_staff, django_capture_on_commit_callbacks
):
    client = client_for(finance_supervisor)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("coupons:receipt-create"), _receipt_form(program))
    assert response.status_code == 302
    receipt = CouponReceipt.objects.get()
    said = _said(response)
    assert "reported" not in said.lower() and mail.outbox == []
    assert "Deviation found: The invoice lists 1,000 coupons but 999 were received;" in said
    assert "once both examiners have signed the receipt (§ 525.21(e))" in said
    page = html.unescape(client.get(receipt.get_absolute_url()).content.decode())
    assert "not sent yet: it is e-mailed to" in page and "once both examiners have signed the receipt" in page
    reports = html.unescape(client.get(reverse("coupons:reports")).content.decode())
    assert "Not sent yet: it is e-mailed to" in reports

    with django_capture_on_commit_callbacks(execute=True):
        signature_sign(record=receipt, slot="examined_finance", user=finance_staff, password=PASSWORD)
        signature_sign(record=receipt, slot="examined_marketing", user=marketing_staff, password=PASSWORD)
    assert len(mail.outbox) == 1
    report = DeviationReport.objects.get()
    page = html.unescape(client.get(receipt.get_absolute_url()).content.decode())
    assert f"e-mailed to {report.reported_to} (" in page and "not sent" not in page


def test_a_receipt_examined_on_the_form_says_its_report_is_being_mailed(
    program, client_for, finance_supervisor, finance_staff, marketing_staff
):
    response = client_for(finance_supervisor).post(
        reverse("coupons:receipt-create"),
        _receipt_form(
            program,
            examiner_finance=finance_staff.pk,
            examiner_finance_password=PASSWORD,
            examiner_marketing=marketing_staff.pk,
            examiner_marketing_password=PASSWORD,
        ),
    )
    assert response.status_code == 302
    said = _said(response)
    assert "The deviation report is not sent yet: being e-mailed to" in said and "reported" not in said.lower()


def test_a_receipt_that_matches_its_invoice_says_nothing_of_a_deviation(program, client_for, finance_supervisor):
    response = client_for(finance_supervisor).post(
        reverse("coupons:receipt-create"), _receipt_form(program, received="1-1000")
    )
    assert response.status_code == 302 and "eviation" not in _said(response)
