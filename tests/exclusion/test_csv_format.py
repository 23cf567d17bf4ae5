"""The Board's list file: read whole, refused whole with each bad line named (pure, no database)."""

from __future__ import annotations

from datetime import date

import pytest

from compliance.exclusion.csv_format import ListFileError, parse_list_file
from tests.exclusion.conftest import SELF_EXCLUDED, list_file

LATEST = date(2026, 11, 2)


def _problems(data: bytes) -> list[str]:
    with pytest.raises(ListFileError) as refused:
        parse_list_file(data, latest_birth=LATEST)
    return refused.value.problems


def test_a_good_file_gives_every_entry_with_its_line():
    rows = parse_list_file(list_file(SELF_EXCLUDED), latest_birth=LATEST)
    assert [r.line for r in rows] == [2, 3, 4, 5, 6]
    assert rows[0].aliases == ("Bobby Smith",)
    assert rows[0].date_of_birth == date(1970, 3, 4)
    assert rows[2].date_of_birth is None


def test_columns_may_come_in_any_order_and_optional_ones_may_be_absent():
    rows = parse_list_file(b"first_name,board_id,last_name\nAnn,B-1,Lee\n", latest_birth=LATEST)
    assert (rows[0].board_id, rows[0].first_name, rows[0].last_name) == ("B-1", "Ann", "Lee")


def test_each_malformed_line_is_named_with_its_problem():
    rows = [*SELF_EXCLUDED[:2],
            ("SE-9", "Lee", "Ann", "", "", "1970-13-01", "", "", "", ""),
            ("SE-10", "", "Ann", "", "", "", "", "", "", ""),
            ("SE-11", "Lee", "Ann", "", "", "04/03/1970", "", "", "PA", "1710"),
            ("SE-1", "Lee", "Ann", "", "", "", "", "", "", "")]
    problems = _problems(list_file(rows))
    assert problems == [
        "Line 4: the date of birth '1970-13-01' is not a date.",
        "Line 5: the last_name is empty.",
        "Line 6: the zip '1710' is not 5 digits (or 5+4 digits); the date of birth '04/03/1970' is not written "
        "YYYY-MM-DD.",
        "Line 7: the board_id 'SE-1' is already on line 2.",
    ]


def test_a_line_with_too_few_fields_is_named():
    data = list_file(SELF_EXCLUDED) + b"SE-9,Lee\n"
    assert _problems(data) == ["Line 7: it has 2 fields where the header names 10 columns."]


def test_a_file_without_its_header_row_is_refused():
    data = b"SE-1,Smith,Robert\n"
    assert _problems(data)[0].startswith("Line 1: unknown column(s) 'se-1', 'smith', 'robert'")


def test_a_file_that_is_not_utf8_names_the_line():
    data = list_file(SELF_EXCLUDED[:1]) + "SE-2,Müller,Hans\n".encode("latin-1")
    assert _problems(data)[0].startswith("Line 3: the file is not UTF-8 text")


def test_an_unterminated_quote_is_refused_naming_the_line():
    data = b'board_id,last_name,first_name\nB-1,"Lee,Ann\n'
    assert _problems(data)[0].startswith("Line 2:")


def test_an_empty_file_and_a_header_alone_are_refused():
    assert _problems(b"")[0].startswith("Line 1: the header row lacks")
    assert _problems(b"board_id,last_name,first_name\n") == [
        "The file has a header row but no entries; a list of the Board has at least one."]


def test_a_birth_date_after_the_list_is_refused():
    data = list_file([("SE-9", "Lee", "Ann", "", "", "2026-11-03", "", "", "", "")])
    assert _problems(data) == ["Line 2: the date of birth 2026-11-03 is not between 1900-01-01 and 2026-11-02."]
