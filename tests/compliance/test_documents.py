"""The PDF frame: title, clause, facility, page numbers and a signature block that reads like paper."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from compliance.documents import DocumentMeta, render_pdf, signature_block
from compliance.services import signature_sign
from tests.testapp.models import TwoPersonForm

pytestmark = pytest.mark.django_db


def test_a_signed_record_prints_with_its_clause_and_signatures(facility, marketing_supervisor, password):
    form = TwoPersonForm.objects.create(facility=facility, note="promo", quantity=5)
    signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=password)
    pdf = render_pdf(
        DocumentMeta(
            title="Coupon Requisition", facility_name=facility.name, citation="525.21(g)", printed_for="I. Inspector"
        ),
        [signature_block(form)],
    )
    assert pdf.startswith(b"%PDF-")
    text = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    for expected in (
        "Keystone Downs Casino",
        "Coupon Requisition",
        "58 Pa. Code § 525.21(g)",
        marketing_supervisor.profile.full_name,
        marketing_supervisor.profile.credential_number,
        "not signed",
        "Page 1 of 1",
        "for I. Inspector",
    ):
        assert expected in text, expected
