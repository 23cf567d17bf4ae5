"""Importing the Board's lists (§ 525.21(q)(7); ch. 503a, ch. 511a): refused whole, or a new signed version."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from compliance.exclusion import selectors, services
from compliance.exclusion.models import ExclusionEntry, ExclusionList, ListKind
from compliance.models import Signature
from tests.exclusion.conftest import LIST_DAY, SELF_EXCLUDED, TODAY, list_file
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def _import(facility, user, data: bytes, *, board_list_date: date = LIST_DAY, password: str = PASSWORD,
            kind: str = ListKind.SELF_EXCLUSION) -> ExclusionList:
    return services.list_import(facility=facility, kind=kind, board_list_date=board_list_date, data=data,
                                file_name="board.csv", user=user, password=password)


def _nothing_saved() -> tuple[int, int, int]:
    return ExclusionList.objects.count(), ExclusionEntry.objects.count(), Signature.objects.count()


def test_a_list_is_imported_whole_signed_and_in_force(facility, compliance_officer):
    data = list_file(SELF_EXCLUDED)
    imported = _import(facility, compliance_officer, data)
    assert imported.row_count == len(SELF_EXCLUDED) == imported.entries.count()
    assert imported.imported_by == compliance_officer
    assert len(imported.sha256) == 64
    assert imported.signatures.get().signer == compliance_officer
    assert selectors.list_in_force(facility, ListKind.SELF_EXCLUSION) == imported
    smith = imported.entries.get(board_id="SE-1")
    assert (smith.line, smith.aliases, smith.date_of_birth, smith.zip) == (2, "Bobby Smith", date(1970, 3, 4),
                                                                           "17101")
    assert smith.address_key == "12 main st|17101"
    assert "name|robert|james|smith" in smith.name_keys


def test_a_malformed_line_refuses_the_whole_file_naming_the_line(facility, compliance_officer):
    rows = [*SELF_EXCLUDED, ("SE-9", "Lee", "Ann", "", "", "1970-02-30", "", "", "", "")]
    before = _nothing_saved()
    with pytest.raises(ValidationError) as refused:
        _import(facility, compliance_officer, list_file(rows))
    assert refused.value.messages == [
        "The file was refused whole; nothing of it was imported. Correct these lines and import it again:",
        "Line 7: the date of birth '1970-02-30' is not a date.",
    ]
    assert _nothing_saved() == before


def test_a_file_with_many_bad_lines_names_the_first_twenty_and_counts_the_rest(facility, compliance_officer):
    rows = [(f"B-{n}", "", "Ann", "", "", "", "", "", "", "") for n in range(25)]
    with pytest.raises(ValidationError) as refused:
        _import(facility, compliance_officer, list_file(rows))
    assert len(refused.value.messages) == 22
    assert refused.value.messages[1] == "Line 2: the last_name is empty."
    assert refused.value.messages[-1] == "… and 5 more line(s) with problems."
    assert ExclusionList.objects.count() == 0


def test_a_wrong_password_saves_nothing(facility, compliance_officer):
    with pytest.raises(ValidationError, match="password"):
        _import(facility, compliance_officer, list_file(SELF_EXCLUDED), password="wrong")
    assert (ExclusionList.objects.count(), ExclusionEntry.objects.count()) == (0, 0)


def test_the_same_file_for_the_same_day_is_not_imported_twice(facility, compliance_officer):
    _import(facility, compliance_officer, list_file(SELF_EXCLUDED))
    with pytest.raises(ValidationError, match="already imported"):
        _import(facility, compliance_officer, list_file(SELF_EXCLUDED))
    # The Board's list unchanged two days later is a refresh all the same.
    again = _import(facility, compliance_officer, list_file(SELF_EXCLUDED), board_list_date=TODAY)
    assert selectors.list_in_force(facility, ListKind.SELF_EXCLUSION) == again
    assert ExclusionList.objects.count() == 2  # the older copy stays


def test_an_older_list_than_the_one_in_force_is_refused(facility, compliance_officer):
    _import(facility, compliance_officer, list_file(SELF_EXCLUDED), board_list_date=TODAY)
    with pytest.raises(ValidationError, match="older and would not refresh"):
        _import(facility, compliance_officer, list_file(SELF_EXCLUDED[:2]), board_list_date=LIST_DAY)


def test_a_list_dated_in_the_future_is_refused(facility, compliance_officer):
    with pytest.raises(ValidationError, match=r"The date of the Board's list \(5 Nov 2026\) must be between"):
        _import(facility, compliance_officer, list_file(SELF_EXCLUDED), board_list_date=date(2026, 11, 5))


@pytest.mark.parametrize("who", ["marketing_supervisor", "inspector", "finance_supervisor"])
def test_only_a_compliance_officer_imports(who, facility, request):
    with pytest.raises(PermissionDenied):
        _import(facility, request.getfixturevalue(who), list_file(SELF_EXCLUDED))
    assert ExclusionList.objects.count() == 0
