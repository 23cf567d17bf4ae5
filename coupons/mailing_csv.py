"""The patron list of a mailing, as marketing uploads it (docs/coupons.md, "Mailed coupons"). Pure.

UTF-8 CSV (a byte-order mark is allowed) with a header row naming these columns in any order:

``patron_id`` (required; the club number, unique in the file), ``first_name``, ``last_name`` (required),
``middle_name``, ``date_of_birth`` (``YYYY-MM-DD``, optional: screening uses it when given), ``address``,
``city``, ``state`` (2 letters), ``zip`` (all four required: a coupon is mailed to that address).

A file with any malformed line is refused whole, naming each line and its problem; nothing is saved.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

__all__ = ["MAX_PATRONS", "PatronListError", "PatronRow", "check_patron_file", "parse_patron_list"]

MAX_PATRONS = 200_000
MAX_BYTES = 64 * 1024 * 1024
REQUIRED = ("patron_id", "first_name", "last_name", "address", "city", "state", "zip")
LIMITS = {"patron_id": 60, "first_name": 100, "last_name": 100, "middle_name": 100, "date_of_birth": 10,
          "address": 200, "city": 100, "state": 2, "zip": 10}
_ZIP = re.compile(r"^[0-9]{5}(-[0-9]{4})?$")  # ASCII digits: \d would take other scripts' too
_STATE = re.compile(r"^[A-Za-z]{2}$")


class PatronListError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class PatronRow:
    key: str
    full_name: str
    date_of_birth: date | None
    address: str
    city: str
    state: str
    zip_code: str


def _birth(text: str) -> date | None:
    if not text:
        return None
    born = date.fromisoformat(text)
    if not date(1900, 1, 1) <= born <= datetime.now(UTC).date():
        raise ValueError(f"date of birth {text} is not plausible")
    return born


def _row(values: dict[str, str]) -> PatronRow:
    for column in REQUIRED:
        if not values.get(column):
            raise ValueError(f"{column} is empty")
    for column, limit in LIMITS.items():
        if len(values.get(column, "")) > limit:
            raise ValueError(f"{column} is longer than {limit} characters")
    if not _ZIP.match(values["zip"]):
        raise ValueError(f"zip {values['zip']!r} is not 12345 or 12345-6789")
    if not _STATE.match(values["state"]):
        raise ValueError(f"state {values['state']!r} is not a 2-letter postal code")
    try:
        born = _birth(values.get("date_of_birth", ""))
    except ValueError as problem:
        raise ValueError(str(problem) if "plausible" in str(problem) else
                         f"date_of_birth {values.get('date_of_birth')!r} is not YYYY-MM-DD") from None
    name = " ".join(p for p in (values["first_name"], values.get("middle_name", ""), values["last_name"]) if p)
    return PatronRow(values["patron_id"], name, born, values["address"], values["city"], values["state"].upper(),
                     values["zip"])


def _text(data: bytes) -> str:
    if len(data) > MAX_BYTES:
        raise PatronListError([f"The file is larger than {MAX_BYTES // 1024 // 1024} MB; split the mailing."])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PatronListError(["The file is not UTF-8 text; save it from the spreadsheet as CSV UTF-8."]) from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise PatronListError([f"Line {line}: the file holds a NUL character (a binary file, or one saved as "
                               "UTF-16); save it from the spreadsheet as CSV UTF-8."])
    return text


def _line(number: int, fields: list[str], header: list[str], seen: set[str]) -> PatronRow:
    if len(fields) != len(header):
        raise ValueError(f"{len(fields)} fields where the header has {len(header)}")
    row = _row({h: f.strip() for h, f in zip(header, fields, strict=True)})
    if row.key in seen:
        raise ValueError(f"patron_id {row.key} appears twice")
    seen.add(row.key)
    return row


def check_patron_file(data: bytes) -> None:
    """What is refused at once, before the file is kept: its size, its encoding, a NUL, its header."""
    text = _text(data)
    try:
        header = next(csv.reader(io.StringIO(text[:65536], newline="")), [])
    except csv.Error as error:
        raise PatronListError([f"Line 1: the file is not valid CSV ({error})."]) from None
    missing = [c for c in REQUIRED if c not in [h.strip().lower() for h in header]]
    if missing:
        raise PatronListError([f"Line 1: the header lacks the column(s) {', '.join(missing)}."])


def parse_patron_list(data: bytes) -> list[PatronRow]:
    """Every patron of the file, or :class:`PatronListError` naming each bad line (the first 20)."""
    try:
        return _parse(csv.reader(io.StringIO(_text(data), newline="")))
    except csv.Error as error:
        raise PatronListError([f"Line {getattr(error, 'line_num', '?')}: the file is not valid CSV ({error})."]) from None


def _parse(reader: Any) -> list[PatronRow]:
    header = [h.strip().lower() for h in next(reader, [])]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise PatronListError([f"Line 1: the header lacks the column(s) {', '.join(missing)}."])
    rows: list[PatronRow] = []
    problems: list[str] = []
    seen: set[str] = set()
    for number, fields in enumerate(reader, start=2):
        if not any(f.strip() for f in fields):
            continue
        try:
            rows.append(_line(number, fields, header, seen))
        except ValueError as problem:
            problems.append(f"Line {number}: {problem}.")
        if len(problems) >= 20:
            break
        if len(rows) > MAX_PATRONS:
            raise PatronListError([f"More than {MAX_PATRONS:,} patrons; split the mailing."])
    if problems:
        raise PatronListError(problems)
    if not rows:
        raise PatronListError(["The file lists no patrons."])
    return rows
