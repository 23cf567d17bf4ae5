"""Every coupon document printed with long values — a series name and a person's name in three scripts, 12-digit
serial ranges, nine-digit counts, a long void reason: in embedded Unicode fonts, each value inside its cell
(nothing printed over the next column or off the page), in the Board's words. The ledger: tests/coupons/
test_reports.py."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from coupons import reports
from coupons.drop_report import drop_count_pdf
from coupons.mailing_proofs import proofs_pdf
from coupons.selectors import FigureRow, RangeRow, ReconciliationData
from tests.pdf_checks import assert_clean_pdf

DAY = date(2026, 11, 3)
PERSON = "Łukasz Żółć-Wiśniewska Nguyễn Văn An 王小明"
SERIES = "Match Play $25 — Łukasz Żółć's Autumn Extravaganza Weekend Special 王小明"
SPAN = "MP-100000000001–MP-100999999999"
REASON = ("Coffee spilled over the whole bundle at the marketing desk during the evening rush; surveillance "
          "reviewed the tape and the supervisor Nguyễn Văn An witnessed the destruction")


def keep(name: str, pdf: bytes) -> None:
    if out := os.environ.get("DOCUMENTS_OUT"):
        Path(out, name).write_bytes(pdf)


class _Signed:
    """A record with one slot signed by a person with a long name and one not signed, as signature_block reads it."""

    altered_since_signed = True

    def signature_slots(self) -> list[tuple[Any, Any]]:
        signature = SimpleNamespace(get_meaning_display=lambda: "Completed by", printed_name=PERSON,
                                    credential_number="PGCB-100000000001",
                                    signed_at=datetime(2026, 11, 4, 3, 0, tzinfo=UTC))
        return [(SimpleNamespace(label="Marketing department supervisor completing the form"), signature),
                (SimpleNamespace(label="Finance department, receiving the undistributed coupons"), None)]


def _ranges(note: str = "") -> list[RangeRow]:
    return [RangeRow(series=SERIES, span=SPAN, denomination="$1,000,000.00", quantity=999_999_999, note=note)] * 2


@pytest.mark.parametrize("completed", [False, True])
def test_the_reconciliation_form_keeps_long_values_in_their_cells(completed):
    data = ReconciliationData(
        facility_name="Keystone Downs Casino — Łukasz Żółć Memorial Riverboat",
        certificate_holder=f"Keystone Downs Gaming Partners of {PERSON}, certificate holder",
        gaming_date=DAY,
        figures=[FigureRow(100_000_000, 999_999_999, 999_999_999, 999_999_999, 999_999_999, 999_999_999,
                           999_999_999, 999_999_998)],
        received_ranges=_ranges("Issuance #123456789 of 3 Nov 2026"), carried_ranges=_ranges(),
        remaining_ranges=_ranges(), voided=_ranges(REASON),
        variation_explanation=REASON, disposition=f"returned to the finance department by {PERSON}",
        form_id=123_456_789 if completed else None, record=_Signed() if completed else None,
    )
    pdf = reports.reconciliation_pdf(data, printed_for=f"{PERSON} (PGCB-100000000001)")
    keep(f"reconciliation-{completed}.pdf", pdf)
    text = " ".join(assert_clean_pdf(pdf).split())
    assert "999,999,999" in text and "王小明" in text and "$1,000,000.00" in text


def test_the_drop_count_report_keeps_long_values_in_their_cells():
    table = SimpleNamespace(number="CR-100000000001", game=SimpleNamespace(name="Craps — high-limit pit"))
    count = SimpleNamespace(pk=123_456_789, table=table, gaming_date=DAY,
                            facility=SimpleNamespace(name="Keystone Downs Casino"),
                            signature_slots=_Signed().signature_slots, altered_since_signed=False)
    items = [SimpleNamespace(scanned=f"MP-10000000000{n}", series=None, serial=None, code="not-distributed",
                             message=REASON, is_exception=n % 2 == 0,
                             get_outcome_display=lambda: "Refused: not distributed to a patron") for n in range(4)]
    pdf = drop_count_pdf(count, items, printed_for=PERSON)
    keep("drop-count.pdf", pdf)
    assert "MP-100000000001" in assert_clean_pdf(pdf, allowed=("not-distributed",))


def test_the_mailing_proofs_keep_a_long_serial_and_name_in_their_box():
    series = SimpleNamespace(printed_name=SERIES, denomination="$1,000,000.00", expires_on=DAY,
                             wager_restrictions="Even-money wagers only; " * 10,
                             serial=lambda n: f"MP-{n:012d}")
    coupons = [SimpleNamespace(series=series, serial=100_000_000_000 + n,
                               recipient=SimpleNamespace(full_name=PERSON,
                                                         one_line_address="1234 Very Long Boulevard of the "
                                                                          "Commonwealth, Apartment 100000000001, "
                                                                          "Harrisburg, PA 17101-1234"))
               for n in range(3)]
    campaign = SimpleNamespace(name=f"Autumn mailing to {PERSON}", facility=SimpleNamespace(name="Keystone Downs"),
                               provider=SimpleNamespace(name="Commonwealth Direct Mail & Printing Services, LLC"),
                               series=SimpleNamespace(name=SERIES))
    pdf = proofs_pdf(campaign, coupons, part=1, parts=1, printed_for=PERSON)
    keep("mailing-proofs.pdf", pdf)
    assert "MP-100000000002" in assert_clean_pdf(pdf)
    from coupons.mailing_proofs import _BARCODE_WIDTH, _barcode

    assert _barcode("MP-100000000002", _BARCODE_WIDTH - 16).width <= _BARCODE_WIDTH - 16
