"""Exclusion screening at a facility: CSV files of the Board's lists, imported lists in force, a mailing."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator, Sequence
from datetime import date
from typing import Any

import pytest
import time_machine

from compliance.exclusion import services
from compliance.exclusion.models import ExclusionList, ListKind
from tests.factories import PASSWORD
from tests.testapp.models import TwoPersonForm

# Wednesday 4 Nov 2026, 09:00 in Harrisburg. Lists of Monday 2 Nov are 2 business days old: current.
TODAY = date(2026, 11, 4)
LIST_DAY = date(2026, 11, 2)
HEADER = ("board_id", "last_name", "first_name", "middle_name", "aliases", "date_of_birth", "address", "city",
          "state", "zip")

# People on the self-exclusion list of the tests, as the Board's file gives them.
SELF_EXCLUDED = [
    ("SE-1", "Smith", "Robert", "James", "Bobby Smith", "1970-03-04", "12 Main Street", "Harrisburg", "PA", "17101"),
    ("SE-2", "Álvarez", "José", "", "", "1980-01-02", "", "", "", ""),
    ("SE-3", "Smyth", "Stephen", "", "", "", "5 Oak Avenue", "Erie", "PA", "16501"),
    ("SE-4", "Walsh", "Katherine", "", "Kay Brennan", "1965-07-08", "", "", "", ""),
    ("SE-5", "O'Brien", "Seán", "", "", "1959-12-01", "", "", "", ""),
]
INVOLUNTARY = [
    ("EX-1", "Moretti", "Elizabeth", "", "Liz Moretti; Beth Moore", "1975-05-06", "88 Pine Rd", "Scranton", "PA",
     "18503"),
]


def list_file(rows: Sequence[Sequence[str]], header: Sequence[str] = HEADER) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode()


@pytest.fixture(autouse=True)
def _frozen_day() -> Iterator[None]:
    with time_machine.travel("2026-11-04 14:00:00+00:00", tick=True):
        yield


@pytest.fixture
def import_list(facility: Any, compliance_officer: Any) -> Callable[..., ExclusionList]:
    def run(kind: str = ListKind.SELF_EXCLUSION, rows: Sequence[Sequence[str]] = SELF_EXCLUDED,
            board_list_date: date = LIST_DAY, user: Any = None, name: str = "list.csv") -> ExclusionList:
        return services.list_import(facility=facility, kind=kind, board_list_date=board_list_date,
                                    data=list_file(rows), file_name=name, user=user or compliance_officer,
                                    password=PASSWORD)

    return run


@pytest.fixture
def lists_in_force(import_list: Callable[..., ExclusionList]) -> dict[str, ExclusionList]:
    return {ListKind.SELF_EXCLUSION: import_list(), ListKind.INVOLUNTARY: import_list(ListKind.INVOLUNTARY, INVOLUNTARY)}


@pytest.fixture
def mailing(facility: Any) -> TwoPersonForm:
    """The record a mailing campaign would be (the campaign app is another engineer's): any saved record."""
    return TwoPersonForm.objects.create(facility=facility, note="November mailing", quantity=1)
