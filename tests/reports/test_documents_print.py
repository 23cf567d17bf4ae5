"""Every report kind in the registry printed as it is filed: produced by its job, and again with long values in
every cell (a name in three scripts, a 12-digit serial range, a large sum) — in embedded Unicode fonts, nothing
printed over anything else or off the page, and in the Board's words: the report's title and the period in words,
never its code, a model's label or a repository's document."""

from __future__ import annotations

import io
import os
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
import time_machine

from compliance.reports import selectors
from compliance.reports.models import ReportRun
from compliance.reports.periods import Period, previous_quarter
from compliance.reports.registry import all_kinds
from compliance.reports.render import Production, content_pdf
from compliance.reports.services import _Unsigned
from compliance.services import signature_sign
from coupons.models import Redemption
from tests.factories import PASSWORD
from tests.pdf_checks import assert_clean_pdf

pytestmark = pytest.mark.django_db

AFTER_Q3 = "2026-11-03 14:00:00+00:00"
Q3 = Period(date(2026, 7, 1), date(2026, 9, 30))
SEPTEMBER = Period(date(2026, 9, 1), date(2026, 9, 30))
LONG = ("Łukasz Żółć-Wiśniewska, Nguyễn Văn An and 王小明, for the marketing department's supervisor on the "
        "evening shift")
VALUES = ("$1,234,567,890.12", "MP-100000000001–MP-100999999999", LONG, "999,999,999,999")


def keep(name: str, pdf: bytes) -> None:
    if out := os.environ.get("DOCUMENTS_OUT"):
        Path(out, name).write_bytes(pdf)


def _period(kind: Any) -> Period:
    if kind.code == "audit-extract":
        return Period(date(2026, 11, 1), date(2026, 11, 3))  # the changes the test itself made, this month
    return Q3 if kind.quarters_only or kind.scheduled_quarterly else SEPTEMBER


@pytest.fixture
def quarter(denominations, redeemed):
    redeemed(denominations[500], datetime(2026, 7, 1, 15, 0, tzinfo=UTC), 3)
    redeemed(denominations[2500], datetime(2026, 9, 15, 1, 0, tzinfo=UTC), 2)
    redeemed(denominations[1000], datetime(2026, 9, 2, 20, 0, tzinfo=UTC), 4, channel=Redemption.Channel.COUNT)
    return denominations


def test_every_kind_produced_by_its_job_prints_clean(facility, quarter, compliance_officer, finance_supervisor,
                                                      produce):
    kinds = all_kinds()
    assert {"quarterly-coupons", "audit-extract", "staffing", "equipment"} <= {k.code for k in kinds}
    with time_machine.travel(AFTER_Q3, tick=True):
        for kind in kinds:
            period = _period(kind)
            run = produce(facility, kind.code, period.start, period.end, compliance_officer)
            assert run.status == ReportRun.Status.SUCCEEDED, (kind.code, run.error)
            pdf = selectors.file_bytes(selectors.file_of(run, "pdf"))
            keep(f"report-{kind.code}.pdf", pdf)
            text = " ".join(assert_clean_pdf(pdf).split())
            assert selectors.run_content(run).title in text, kind.code
            assert "-" not in kind.code or kind.code not in text  # a code, unless it is a word ("redemptions")
            assert str(run) == f"{kind.title}, {period.label()}, version 1"
            if kind.signed:
                signoff = run.signoff
                signature_sign(record=signoff, slot="prepared", user=finance_supervisor, password=PASSWORD)
                signature_sign(record=signoff, slot="approved", user=compliance_officer, password=PASSWORD)
                signed = selectors.file_bytes(selectors.file_of(run, "signed.pdf"))
                keep(f"report-{kind.code}-signed.pdf", signed)
                assert "not signed" not in assert_clean_pdf(signed)


@pytest.mark.parametrize("code", sorted(k.code for k in all_kinds()))
def test_every_kind_keeps_long_values_inside_their_cells(facility, code):
    kind = next(k for k in all_kinds() if k.code == code)
    content = kind.build(facility, _period(kind))
    for section in content.sections:
        section.rows[:] = [[VALUES[(n + i) % len(VALUES)] for i in range(len(section.header))] for n in range(3)]
    content.summary = [*content.summary, (LONG, VALUES[0])]
    production = Production(facility_name=f"{facility.name} — Łukasz Żółć Memorial Riverboat 王小明", version=12,
                            produced_at="3 November 2026 09:00 EST", requested_by=f"{LONG} (EMP-100000000001)",
                            chain_digest="f" * 64, chain_links=(("Facility records", 123_456_789, "e" * 64),))
    pdf = content_pdf(content, production, signoff=_Unsigned() if kind.signed else None)
    keep(f"report-{code}-long.pdf", pdf)
    text = assert_clean_pdf(pdf, allowed=(LONG,))
    assert "王小明" in text and "Łukasz Żółć" in text


def test_a_version_is_named_in_words(facility, compliance_officer):
    run = ReportRun(facility=facility, kind="quarterly-coupons", period_start=Q3.start, period_end=Q3.end, version=2,
                    requested_by=compliance_officer)
    assert str(run) == "Quarterly Match Play Coupon report, Q3 2026 (01 Jul – 30 Sep 2026), version 2"
    assert previous_quarter(date(2026, 11, 3)) == Q3


def test_a_version_downloads_its_csv_with_the_byte_order_mark_and_as_xlsx(facility, quarter, compliance_officer,
                                                                          produce, client_for):
    """The CSV stored with the version starts with the byte order mark and is served as UTF-8; the Excel workbook
    is made from the stored figures when asked for: the same rows, the counts and sums as numbers."""
    from openpyxl import load_workbook

    with time_machine.travel(AFTER_Q3, tick=True):
        run = produce(facility, "quarterly-coupons", Q3.start, Q3.end, compliance_officer)
        client = client_for(compliance_officer)
        response = client.get(f"/reports/runs/{run.pk}/files/csv")
        data = b"".join(response.streaming_content) if response.streaming else response.content
        assert response["Content-Type"] == "text/csv; charset=utf-8" and data.startswith("\ufeff".encode())
        workbook = client.get(f"/reports/runs/{run.pk}/files/xlsx")
        assert workbook.status_code == 200 and workbook["Content-Disposition"].endswith('-v1.xlsx"')
        cells = [list(row) for row in load_workbook(io.BytesIO(workbook.content)).active.iter_rows()]
        values = [[c.value for c in row] for row in cells]
        assert values[0][0] == "Quarterly report of Match Play Coupons redeemed" and cells[0][0].font.b
        assert ["Total", 5, 4, 9, 105] in [row[:5] for row in values]
        page = client.get(f"/reports/runs/{run.pk}/").content.decode()
        assert f"/reports/runs/{run.pk}/files/xlsx" in page
