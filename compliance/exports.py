"""CSV exports that a spreadsheet opens as data, never as formulas.

A cell beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to Excel and
LibreOffice ("CSV injection"): a patron's or an employee's name, a void reason or an audit note typed
that way would run when an inspector opens the export. Such a cell is written with a leading
apostrophe, which spreadsheets show as text and which a person reading the file understands.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any

__all__ = ["FORMULA_STARTS", "Section", "csv_cell", "safe_csv_writer", "sections_csv"]

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


Section = tuple[str, list[str], list[list[str]]]  # (title, header, rows)


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
