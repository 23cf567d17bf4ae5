"""CSV and Excel exports that a spreadsheet opens as data, never as formulas.

A cell beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to Excel and
LibreOffice ("CSV injection"): a patron's or an employee's name, a void reason or an audit note typed
that way would run when an inspector opens the export. In a CSV such a cell is written with a leading
apostrophe, which spreadsheets show as text and which a person reading the file understands; in an .xlsx it is
stored as text (a string cell with Excel's quote prefix), shown exactly as typed and never evaluated.

Every CSV starts with a UTF-8 byte order mark and is served as ``text/csv; charset=utf-8`` (:func:`csv_response`),
so Excel reads "§" and "Żółć" as such rather than "Â§". Every table with a CSV also downloads as .xlsx
(:func:`xlsx_bytes`, :func:`xlsx_response`): the same rows, numbers as numbers, the header row in bold.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from decimal import Decimal
from itertools import chain
from typing import Any, overload

from django.http import HttpResponse, StreamingHttpResponse

__all__ = [
    "BOM",
    "CSV_TYPE",
    "FORMULA_STARTS",
    "XLSX_TYPE",
    "Section",
    "csv_cell",
    "csv_response",
    "safe_csv_writer",
    "sections_csv",
    "xlsx_bytes",
    "xlsx_response",
]

BOM = "\ufeff"
CSV_TYPE = "text/csv; charset=utf-8"
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """The value, neutralised when it is text that a spreadsheet would read as a formula. Numbers stay
    numbers (a negative balance is a number, not a formula)."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class _SafeWriter:
    def __init__(self, buffer: Any, **kwargs: Any) -> None:
        self._writer = csv.writer(buffer, **kwargs)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow([csv_cell(cell) for cell in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def safe_csv_writer(buffer: Any, **kwargs: Any) -> _SafeWriter:
    """``csv.writer`` whose every text cell is neutralised with :func:`csv_cell`."""
    return _SafeWriter(buffer, **kwargs)


Section = tuple[str, list[str], list[list[Any]]]  # (title, header, rows)


def sections_csv(heading: list[str], sections: Iterable[Section]) -> str:
    """A report of several titled tables as one CSV: the heading row, then each section after a blank row
    (its title, its header, its rows), every cell made safe for a spreadsheet."""
    buffer = io.StringIO()
    writer = safe_csv_writer(buffer)
    writer.writerow(heading)
    for title, header, rows in sections:
        writer.writerow([])
        writer.writerow([title])
        writer.writerow(header)
        writer.writerows(rows)
    return buffer.getvalue()


@overload
def csv_response(  # type: ignore[overload-overlap]  # a str is an Iterable[str]: the text, not lines
    filename: str, content: str | bytes, *, inline: bool = False) -> HttpResponse: ...


@overload
def csv_response(filename: str, content: Iterable[str], *, inline: bool = False) -> StreamingHttpResponse: ...


def csv_response(filename: str, content: str | bytes | Iterable[str], *,
                 inline: bool = False) -> HttpResponse | StreamingHttpResponse:
    """The CSV as a download: a UTF-8 byte order mark first (once), ``text/csv; charset=utf-8``. ``content``: the
    whole text, or lines to stream (a long audit or ledger export is written as it is read)."""
    disposition = f'{"inline" if inline else "attachment"}; filename="{filename}"'
    if isinstance(content, bytes):
        content = content.decode("utf-8")
    response: HttpResponse | StreamingHttpResponse
    if isinstance(content, str):
        response = HttpResponse(BOM + content.removeprefix(BOM), content_type=CSV_TYPE)
    else:
        response = StreamingHttpResponse(chain([BOM], content), content_type=CSV_TYPE)
    response["Content-Disposition"] = disposition
    return response


_COUNT = re.compile(r"-?(?:0|[1-9]\d{0,14})")
_GROUPED = re.compile(r"-?[1-9]\d{0,2}(?:,\d{3})+")
_MONEY = re.compile(r"(-)?\$(\d{1,3}(?:,\d{3})*|\d+)(\.\d{2})?")
_PERCENT = re.compile(r"-?\d{1,9}(?:\.\d+)?%")


def _number(value: Any) -> tuple[Any, str] | None:
    """A value a spreadsheet should hold as a number, with its display format; None for text. A count ("1,234",
    "57"), a sum of money ("$1,234.50"), a percentage ("5.2632%"); never a code with leading zeros ("007"), a
    fraction ("1/38", which Excel would read as a date) or more than 15 digits (past Excel's precision)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value, "#,##0"
    if isinstance(value, (float, Decimal)):
        return value, "General"
    if not isinstance(value, str):
        return None
    text = value.strip()
    if _COUNT.fullmatch(text):
        return int(text), "0"
    if _GROUPED.fullmatch(text):
        return int(text.replace(",", "")), "#,##0"
    if money := _MONEY.fullmatch(text):
        amount = Decimal(money.group(2).replace(",", "") + (money.group(3) or ""))
        return (-amount if money.group(1) else amount), '"$"#,##0.00'
    if _PERCENT.fullmatch(text):
        return Decimal(text[:-1]) / 100, "0.00##%"
    return None


def _xlsx_cell(sheet: Any, value: Any, *, bold: bool = False) -> Any:
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    number = None if bold else _number(value)
    if number is not None:
        cell = WriteOnlyCell(sheet, number[0])
        cell.number_format = number[1]
    else:
        text = "" if value is None else str(value)
        cell = WriteOnlyCell(sheet, text)
        if text.startswith(FORMULA_STARTS):
            cell.data_type = "s"  # openpyxl would store "=…" as a formula: text, as typed
            cell.quotePrefix = True  # and Excel keeps it text when the cell is edited
    if bold:
        cell.font = Font(bold=True)
    return cell


def _sheet_title(title: str) -> str:
    """A worksheet's name: at most 31 characters, none of the characters Excel refuses in one (brackets, colon,
    asterisk, question mark, slashes)."""
    return re.sub(r"[\[\]:*?/\\]", " ", title).strip()[:31] or "Sheet"


def xlsx_bytes(heading: list[str], sections: Iterable[Section], *, sheet: str = "Report") -> bytes:
    """The sections of :func:`sections_csv` as an Excel workbook of one sheet laid out as the CSV: the heading row,
    then each section after a blank row (its title, its header in bold, its rows). With no heading and one untitled
    section, a plain table: its header in the first row, frozen. Numbers are numbers; text a spreadsheet would
    read as a formula is stored as text (the formula guard of :func:`csv_cell`)."""
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    ws = book.create_sheet(_sheet_title(sheet))
    written = False
    if heading:
        ws.append([_xlsx_cell(ws, cell, bold=True) for cell in heading])
        written = True
    for title, header, rows in sections:
        if written:
            ws.append([])
        if title:
            ws.append([_xlsx_cell(ws, title, bold=True)])
        elif not written:
            ws.freeze_panes = "A2"
        ws.append([_xlsx_cell(ws, cell, bold=True) for cell in header])
        for row in rows:
            ws.append([_xlsx_cell(ws, cell) for cell in row])
        written = True
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def xlsx_response(filename: str, data: bytes) -> HttpResponse:
    response = HttpResponse(data, content_type=XLSX_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
