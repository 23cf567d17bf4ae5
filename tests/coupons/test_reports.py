"""The reconciliation form as data, as a PDF that reads like the paper form, and the ledger's exports."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest
from django.urls import reverse
from pypdf import PdfReader

from coupons import reports, selectors, services
from tests.coupons.conftest import PASSWORD, TODAY

pytestmark = pytest.mark.django_db


@pytest.fixture
def closed_day(program, receive, issue, marketing_supervisor, marketing_staff, finance_supervisor):
    receive(100001, 101000)
    issue(100001, 100200)
    services.distribution_record(
        facility=program.facility, series=program.series, spans=[(100001, 100050)], user=marketing_staff
    )
    services.coupons_void(
        facility=program.facility,
        series=program.series,
        spans=[(100051, 100052)],
        reason="Coffee spilled on them",
        user=marketing_supervisor,
        password=PASSWORD,
    )
    return services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 147},
        user=marketing_supervisor,
        password=PASSWORD,
        variation_explanation="One coupon missing; surveillance review requested.",
        receiver=services.CoSigner(finance_supervisor, PASSWORD),
    )


def test_the_form_content_is_plain_data(program, closed_day, marketing_supervisor):
    data = selectors.reconciliation_preview(program.facility, TODAY)
    assert data.completed and data.citation == "58 Pa. Code § 525.21(j)"
    (figure,) = data.figures
    assert (figure.to_distribute, figure.distributed, figure.voided, figure.remaining, figure.remaining_counted) == (
        200,
        50,
        2,
        148,
        147,
    )
    assert [r.span for r in data.received_ranges] == ["MP-0100001–MP-0100200"]
    assert [r.span for r in data.remaining_ranges] == ["MP-0100053–MP-0100200"]
    assert [(r.span, r.note) for r in data.voided] == [("MP-0100051–MP-0100052", "Coffee spilled on them")]
    assert data.total_variance == 1 and "surveillance" in data.variation_explanation
    (signature,) = data.signatures
    assert signature.credential_number == marketing_supervisor.profile.credential_number


def test_the_pdf_reads_like_the_paper_form(program, closed_day, marketing_supervisor):
    pdf = reports.reconciliation_pdf(selectors.reconciliation_preview(program.facility, TODAY))
    assert pdf.startswith(b"%PDF-")
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    for expected in (
        "Daily Match Play Coupon Reconciliation Form",
        "525.21(j)",
        "Keystone Downs Casino",
        "03 November 2026",
        "MP-0100001–MP-0100200",
        "MP-0100053–MP-0100200",
        "Coffee spilled",
        "surveillance review",
        marketing_supervisor.profile.full_name,
        marketing_supervisor.profile.credential_number,
    ):
        assert expected in text, expected
    for item in range(1, 9):
        assert f"({item})" in text
    if shutil.which("pdftoppm"):
        out = Path("/tmp/coupons-reconciliation")
        Path(f"{out}.pdf").write_bytes(pdf)
        subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "1", f"{out}.pdf", str(out)], check=True)


def test_a_draft_form_prints_as_a_draft_with_a_blank_signature_block(program, receive, issue):
    receive(1, 100)
    issue(1, 10)
    pdf = reports.reconciliation_pdf(selectors.reconciliation_preview(program.facility, TODAY))
    text = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert "DRAFT" in text and "Board-issued credential number" in text


def test_the_ledger_exports_as_csv_and_pdf(program, closed_day, client_for, finance_supervisor):
    client = client_for(finance_supervisor)
    csv_text = b"".join(client.get(reverse("coupons:ledger-csv")).streaming_content).decode("utf-8-sig")
    header, *rows = csv_text.strip().splitlines()
    assert header.startswith("occurred_at,gaming_date,entry") and "balance_in_stock" in header
    assert any("MP-0100053–MP-0100200" in row for row in rows)
    # Running balances: the receipt's coupons await examination, then the examination puts them in stock.
    assert rows[0].split(",")[-9] == "1000" and rows[0].split(",")[-8] == "0"
    assert rows[1].split(",")[-9] == "0" and rows[1].split(",")[-8] == "1000"
    pdf = client.get(reverse("coupons:ledger-pdf"), {"date_from": "2026-11-01", "date_to": "2026-11-30"}).content
    text = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert pdf.startswith(b"%PDF-") and "Match Play Coupon ledger" in text and "Received" in text


def test_the_ledger_pdf_keeps_long_values_inside_their_columns():
    """A long series name, a 12-digit serial range, a large denomination and nine-digit balances: each stays in its
    column (the counts as wide as their widest figure, never broken; the text wrapping), nothing printed over the
    next column or off the page — the ledger printed over its neighbours before."""
    from types import SimpleNamespace

    from tests.pdf_checks import assert_clean_pdf

    rows = [{"gaming_date": TODAY, "kind_label": "Received from the printer", "altered": n == 1,
             "series_name": "Match Play $25 — Łukasz Żółć's Autumn Extravaganza Weekend Special 王小明",
             "denomination": "$1,000,000.00", "span": "MP-100000000001–MP-100999999999", "quantity": 999_999_999,
             "balances": [123_456_789 + n] * 9} for n in range(3)]
    pdf = reports.ledger_pdf(SimpleNamespace(name="Keystone Downs Casino"),
                             {"date_from": TODAY.replace(day=1), "date_to": TODAY}, rows)
    text = assert_clean_pdf(pdf)
    assert "999,999,999" in text and "123,456,791" in text and "$1,000,000.00" in text
    assert "ALTERED SINCE SIGNED" in text and "1 November 2026 to 3 November 2026" in text


def test_the_ledger_downloads_as_csv_with_the_mark_and_as_xlsx_with_a_formula_reason_kept_as_text(
        program, receive, issue, marketing_supervisor, client_for, finance_supervisor):
    from tests.compliance.test_exports import HOSTILE, assert_csv, workbook_rows

    receive(100001, 101000)
    issue(100001, 100200)
    services.coupons_void(facility=program.facility, series=program.series, spans=[(100051, 100052)], reason=HOSTILE,
                          user=marketing_supervisor, password=PASSWORD)
    client = client_for(finance_supervisor)
    rows = assert_csv(client.get(reverse("coupons:ledger-csv")))
    reason = rows[0].index("reason")
    assert [row[reason] for row in rows if row[reason].startswith("'=")] == [f"'{HOSTILE}"]
    sheet, cells = workbook_rows(client.get(reverse("coupons:ledger-xlsx")))
    header = [c.value for c in cells[0]]
    assert header[:3] == ["occurred_at", "gaming_date", "entry"] and all(c.font.b for c in cells[0])
    voided = next(row for row in cells if row[header.index("reason")].value == HOSTILE)
    assert voided[header.index("reason")].data_type == "s"  # text, never a formula
    assert voided[header.index("quantity")].value == 2  # a count: a number
    assert sheet.freeze_panes == "A2"
    assert reverse("coupons:ledger-xlsx") in client.get(reverse("coupons:ledger")).content.decode()
