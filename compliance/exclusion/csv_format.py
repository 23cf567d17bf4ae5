"""The CSV file of an exclusion list, as this system imports it (docs/exclusion.md). Pure: no Django.

One file per list (the Board's self-exclusion list, ch. 503a; its exclusion list of persons required to
be excluded, ch. 511a), UTF-8 (a byte-order mark is allowed), comma-separated, fields quoted as RFC 4180
quotes them, and a header row naming the columns in any order:

=================  ========  ===================================================================
column             required  content
=================  ========  ===================================================================
``board_id``       yes       the Board's identifier of the person on the list; unique in the file
``last_name``      yes       surname as the Board lists it (``van Beethoven``, ``Garcia-Lopez``)
``first_name``     yes       given name
``middle_name``    no        middle name(s) or initial
``aliases``        no        other names the person uses, separated by ``;`` (``Bobby Smith; Rob``)
``date_of_birth``  no        ``YYYY-MM-DD``; empty when the Board gives none
``address``        no        street line (house number, street, apartment)
``city``           no        city
``state``          no        2-letter postal code
``zip``            no        ``12345`` or ``12345-6789``
``description``    no        physical description (the involuntary exclusion list gives one)
=================  ========  ===================================================================

A file with any malformed line is refused whole: :func:`parse_list_file` reads every line first and
raises :class:`ListFileError` naming each line and its problem (the first :data:`MAX_PROBLEMS`), so
nothing of a damaged or truncated file is ever imported. Blank lines are skipped.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import date

__all__ = [
    "COLUMNS",
    "MAX_FILE_BYTES",
    "MAX_PROBLEMS",
    "MAX_ROWS",
    "REQUIRED_COLUMNS",
    "ListFileError",
    "ListRow",
    "parse_list_file",
]

MAX_FILE_BYTES = 64 * 1024 * 1024  # 200,000 entries take about 30 MB; a file past this is not a list
MAX_ROWS = 1_000_000
MAX_PROBLEMS = 20
EARLIEST_BIRTH = date(1900, 1, 1)

# column: longest value accepted (characters)
COLUMNS: dict[str, int] = {
    "board_id": 40,
    "last_name": 100,
    "first_name": 100,
    "middle_name": 100,
    "aliases": 1000,
    "date_of_birth": 10,
    "address": 200,
    "city": 100,
    "state": 2,
    "zip": 10,
    "description": 1000,
}
REQUIRED_COLUMNS = ("board_id", "last_name", "first_name")
_ZIP = re.compile(r"^\d{5}(-\d{4})?$")
_STATE = re.compile(r"^[A-Za-z]{2}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class ListFileError(ValueError):
    """The file cannot be imported: ``problems`` name each line and what is wrong with it."""

    def __init__(self, problems: list[str], total: int | None = None) -> None:
        self.problems = problems
        self.total = total if total is not None else len(problems)
        super().__init__("; ".join(problems))


@dataclass(frozen=True, slots=True)
class ListRow:
    line: int
    board_id: str
    last_name: str
    first_name: str
    middle_name: str = ""
    aliases: tuple[str, ...] = ()
    date_of_birth: date | None = None
    address: str = ""
    city: str = ""
    state: str = ""
    zip: str = ""
    description: str = ""


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ListFileError([f"Line {line}: the file is not UTF-8 text (byte {error.start + 1} cannot be read); "
                             f"save it as CSV UTF-8 and import it again."]) from None


def _header(fields: list[str]) -> list[str]:
    names = [f.strip().lower() for f in fields]
    problems = []
    unknown = [n for n in names if n not in COLUMNS]
    if unknown:
        problems.append(f"Line 1: unknown column(s) {', '.join(repr(n) for n in unknown)}; the columns are "
                        f"{', '.join(COLUMNS)}.")
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        problems.append(f"Line 1: column(s) {', '.join(doubled)} appear more than once.")
    missing = [c for c in REQUIRED_COLUMNS if c not in names]
    if missing:
        problems.append(f"Line 1: the header row lacks the required column(s) {', '.join(missing)} (the first line "
                        f"must name the columns).")
    if problems:
        raise ListFileError(problems)
    return names


def _birth(value: str, latest: date) -> tuple[date | None, str]:
    if not value:
        return None, ""
    if not _DATE.match(value):
        return None, f"the date of birth {value!r} is not written YYYY-MM-DD"
    try:
        born = date.fromisoformat(value)
    except ValueError:
        return None, f"the date of birth {value!r} is not a date"
    if not EARLIEST_BIRTH <= born <= latest:
        return None, f"the date of birth {value} is not between {EARLIEST_BIRTH} and {latest}"
    return born, ""


def _field_problems(values: dict[str, str]) -> list[str]:
    problems = []
    for column in REQUIRED_COLUMNS:
        if not values.get(column):
            problems.append(f"the {column} is empty")
    for column, value in values.items():
        if len(value) > COLUMNS[column]:
            problems.append(f"the {column} is longer than {COLUMNS[column]} characters")
        if _CONTROL.search(value):
            problems.append(f"the {column} contains a control character")
    if values.get("zip") and not _ZIP.match(values["zip"]):
        problems.append(f"the zip {values['zip']!r} is not 5 digits (or 5+4 digits)")
    if values.get("state") and not _STATE.match(values["state"]):
        problems.append(f"the state {values['state']!r} is not a 2-letter postal code")
    return problems


def _row(line: int, names: list[str], fields: list[str], latest: date) -> tuple[ListRow | None, list[str]]:
    if len(fields) != len(names):
        return None, [f"it has {len(fields)} fields where the header names {len(names)} columns"]
    values = {name: field.strip() for name, field in zip(names, fields, strict=True)}
    problems = _field_problems(values)
    born, birth_problem = _birth(values.get("date_of_birth", ""), latest)
    if birth_problem:
        problems.append(birth_problem)
    if problems:
        return None, problems
    aliases = tuple(a.strip() for a in values.get("aliases", "").split(";") if a.strip())
    return ListRow(
        line=line, board_id=values["board_id"], last_name=values["last_name"], first_name=values["first_name"],
        middle_name=values.get("middle_name", ""), aliases=aliases, date_of_birth=born,
        address=values.get("address", ""), city=values.get("city", ""), state=values.get("state", "").upper(),
        zip=values.get("zip", ""), description=values.get("description", ""),
    ), []


def parse_list_file(data: bytes, *, latest_birth: date) -> list[ListRow]:
    """Every entry of the file, or :class:`ListFileError` naming the lines that are wrong.

    ``latest_birth``: the latest plausible date of birth (the list's own date).
    """
    if len(data) > MAX_FILE_BYTES:
        raise ListFileError([f"The file is {len(data):,} bytes; a list file is at most {MAX_FILE_BYTES:,} bytes."])
    reader = csv.reader(io.StringIO(_text(data), newline=""), strict=True)
    problems: list[str] = []
    rows: list[ListRow] = []
    seen: dict[str, int] = {}
    total = 0
    try:
        names = _header(next(reader, []))
        start = reader.line_num + 1
        for fields in reader:
            line, start = start, reader.line_num + 1
            if not fields or fields == [""]:
                continue
            row, row_problems = _row(line, names, fields, latest_birth)
            if row is not None and row.board_id in seen:
                row_problems = [f"the board_id {row.board_id!r} is already on line {seen[row.board_id]}"]
            if row_problems:
                total += 1
                if len(problems) < MAX_PROBLEMS:
                    problems.append(f"Line {line}: {'; '.join(row_problems)}.")
                continue
            assert row is not None
            seen[row.board_id] = line
            rows.append(row)
            if len(rows) > MAX_ROWS:
                raise ListFileError([f"Line {line}: the file has more than {MAX_ROWS:,} entries."])
    except csv.Error as error:
        raise ListFileError([*problems, f"Line {reader.line_num}: {error}."], total + 1) from None
    if problems:
        raise ListFileError(problems, total)
    if not rows:
        raise ListFileError(["The file has a header row but no entries; a list of the Board has at least one."])
    return rows
