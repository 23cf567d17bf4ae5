"""Reads of the facility's copies of the Board's lists: which is in force, how old, and its entries."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from compliance.exclusion.business_days import MAX_LIST_AGE_BUSINESS_DAYS, business_days_after
from compliance.exclusion.matching import ExclusionIndex, ListEntry, collector_paused
from compliance.exclusion.models import KEYS_VERSION, ExclusionEntry, ExclusionList, ListKind
from compliance.exclusion.names import address_key, entry_names
from compliance.gaming_day import local_time
from compliance.key_pages import KeyPage, key_page
from compliance.models import Facility

__all__ = [
    "ListStatus",
    "already_imported",
    "entries_page",
    "facility_today",
    "list_in",
    "list_in_force",
    "list_statuses",
    "lists_of",
    "require_lists_current",
    "screening_index",
]


def facility_today(facility: Facility) -> date:
    """Today's calendar date on the facility's clock. Business days are calendar days, not gaming days."""
    return local_time(facility).date()


def lists_of(facility: Facility) -> QuerySet[ExclusionList]:
    return (ExclusionList.objects.filter(facility=facility)
            .select_related("created_by__profile").prefetch_related("signatures"))


def list_in(facility: Facility, pk: int) -> ExclusionList | None:
    return lists_of(facility).filter(pk=pk).first()


def list_in_force(facility: Facility, kind: str) -> ExclusionList | None:
    """The newest imported list of ``kind``: by the Board's date, then by when it was imported."""
    return lists_of(facility).filter(kind=kind).order_by("-board_list_date", "-created_at", "-pk").first()


def already_imported(facility: Facility, kind: str, board_list_date: date, sha256: str) -> ExclusionList | None:
    return (ExclusionList.objects.filter(facility=facility, kind=kind, board_list_date=board_list_date,
                                         sha256=sha256).select_related("created_by__profile").first())


@dataclass(frozen=True)
class ListStatus:
    """One kind of list at a facility on a day: the copy in force, its age, and whether it may be used."""

    kind: ListKind
    in_force: ExclusionList | None
    age: int | None  # business days since the Board's list date

    @property
    def current(self) -> bool:
        return self.age is not None and self.age <= MAX_LIST_AGE_BUSINESS_DAYS

    @property
    def label(self) -> str:
        return str(self.kind.label)

    @property
    def refusal(self) -> str:
        """Why a mailing cannot be screened against this kind of list ("" when it can)."""
        if self.in_force is None:
            return (f"No {self.label} has been imported for this facility; a compliance officer imports the "
                    f"Board's list before any mailing is screened (§ 525.21(q)(7)).")
        if not self.current:
            return (f"The facility's copy of the {self.label} is of {self.in_force.board_list_date:%a %-d %b %Y}, "
                    f"{self.age} business days old; the copy must be refreshed at least every "
                    f"{MAX_LIST_AGE_BUSINESS_DAYS} business days (§ 503a.3(d)). Import the Board's current list.")
        return ""


def list_statuses(facility: Facility, on: date) -> list[ListStatus]:
    statuses = []
    for kind in ListKind:
        in_force = list_in_force(facility, kind)
        age = business_days_after(in_force.board_list_date, on) if in_force is not None else None
        statuses.append(ListStatus(kind, in_force, age))
    return statuses


def require_lists_current(facility: Facility, on: date) -> dict[ListKind, ExclusionList]:
    """The lists in force of every kind, or a ``ValidationError`` saying which is missing or too old
    (older than 2 business days on ``on``, § 503a.3(d); weekends are not business days, holidays are)."""
    statuses = list_statuses(facility, on)
    refusals = [s.refusal for s in statuses if s.refusal]
    if refusals:
        raise ValidationError(refusals)
    return {s.kind: s.in_force for s in statuses if s.in_force is not None}


def entries_page(exclusion_list: ExclusionList, start: int | None, per_page: int = 100) -> KeyPage[ExclusionEntry]:
    """A page of the list's entries in the order of its file, from line ``start`` (issue 27: 200,000 entries; by
    keyset on (list, line), no count)."""
    return key_page(ExclusionEntry.objects.filter(exclusion_list=exclusion_list), "line", start, per_page)


_SCREENING_COLUMNS = ("id", "name_keys", "date_of_birth", "address_key", "block_keys", "short_names")
_RAW_COLUMNS = ("id", "first_name", "middle_name", "last_name", "aliases", "date_of_birth", "address", "city",
                "state", "zip")


def _entries_of(exclusion_list: ExclusionList) -> list[Any]:
    """The list's entries as the engine reads them: rows of :class:`ListEntry`'s fields, in one query."""
    rows = ExclusionEntry.objects.filter(exclusion_list=exclusion_list).order_by()
    if exclusion_list.keys_version == KEYS_VERSION:
        return list(rows.values_list(*_SCREENING_COLUMNS))
    # Keyed under an older normalisation: key the entries again from the Board's columns.
    entries = []
    for pk, first, middle, last, aliases, born, address, city, state, zip_code in rows.values_list(*_RAW_COLUMNS):
        names = entry_names(first, middle, last, [a for a in aliases.split(";") if a.strip()])
        line = ", ".join(p for p in (address, city, state, zip_code) if p)
        entries.append(ListEntry.of(pk, names, born, address_key(line)))
    return entries


def screening_index(lists: Iterable[ExclusionList]) -> ExclusionIndex:
    """The entries of ``lists``, indexed for the screening engine (read in one pass, no query per entry)."""
    with collector_paused():
        return ExclusionIndex(entry for exclusion_list in lists for entry in _entries_of(exclusion_list))
