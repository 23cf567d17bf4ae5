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


NAMES = ("Łukasz Żółć", "Nguyễn Văn An", "王小明")


def test_names_in_any_script_print_as_letters_in_an_embedded_unicode_font(facility):
    from reportlab.platypus import Paragraph

    from compliance.documents import CELL, data_table, markup_safe
    from tests.pdf_checks import fonts_of, pdf_text

    pdf = render_pdf(
        DocumentMeta(title="Names", facility_name=facility.name, citation="525.21(g)", printed_for=NAMES[2]),
        [*(Paragraph(f"<b>{markup_safe(name)}</b>", CELL) for name in NAMES),
         data_table(["Name", "Credential"], [[name, "EMP-1"] for name in NAMES])],
    )
    text = pdf_text(pdf)
    for name in NAMES:
        assert text.count(name) >= 2, name  # in a paragraph and in a table cell
    assert f"for {NAMES[2]}" in text  # the stamp at the foot
    fonts = fonts_of(pdf)
    assert fonts and all(fonts.values()), fonts  # every font embedded (/FontFile2)
    assert b"/FontFile2" in pdf
    assert {"DejaVuSans", "DejaVuSans-Bold"} <= set(fonts)
    assert not any(name.startswith(("Helvetica", "Courier", "Times")) for name in fonts)
    assert b"Helvetica" not in pdf


def test_a_run_dejavu_cannot_draw_is_set_in_the_fallback_font():
    from compliance.documents import FALLBACK_NAME, markup_safe

    assert markup_safe("Wang <王小明> & co") == f'Wang &lt;<font name="{FALLBACK_NAME}">王小明</font>&gt; &amp; co'
    assert markup_safe("Łukasz Żółć") == "Łukasz Żółć"


def test_without_the_font_package_documents_fall_back_to_helvetica_and_say_so(tmp_path, caplog):
    from compliance.documents import _register_family

    assert _register_family(tmp_path) == {}
    assert "fonts-dejavu-core" in caplog.text
