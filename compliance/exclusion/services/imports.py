"""Importing the Board's lists (§ 525.21(q)(7); ch. 503a self-exclusion, ch. 511a exclusion): a file is read
whole first and refused whole if any line is malformed; a good one becomes a new signed list version."""

from __future__ import annotations

import hashlib
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from psycopg import sql

from compliance.actors import acts_as_user
from compliance.bounds import EARLIEST_DAY, require_day_between, require_within_bounds
from compliance.exclusion import selectors
from compliance.exclusion.csv_format import MAX_FILE_BYTES, ListFileError, ListRow, parse_list_file
from compliance.exclusion.matching import block_keys, short_names
from compliance.exclusion.models import KEYS_VERSION, ExclusionEntry, ExclusionList, ListKind
from compliance.exclusion.names import address_key, entry_names, serialise_names
from compliance.models import Facility
from compliance.roles import Capability, require_capability
from compliance.services import record_sign

__all__ = ["list_import"]

_BATCH = 5000


def _kind(kind: str) -> ListKind:
    try:
        return ListKind(kind)
    except ValueError:
        raise ValidationError(f"{kind!r} is not a list this system imports: choose the self-exclusion list "
                              f"(ch. 503a) or the exclusion list (ch. 511a).") from None


def _require_newer(facility: Facility, kind: ListKind, board_list_date: date, sha256: str) -> None:
    same = selectors.already_imported(facility, kind, board_list_date, sha256)
    if same is not None:
        raise ValidationError(f"This file was already imported as the {kind.label} of {board_list_date:%-d %b %Y} "
                              f"on {same.created_at:%-d %b %Y}; nothing was imported.")
    in_force = selectors.list_in_force(facility, kind)
    if in_force is not None and board_list_date < in_force.board_list_date:
        raise ValidationError(f"The {kind.label} in force is of {in_force.board_list_date:%-d %b %Y}; a list of "
                              f"{board_list_date:%-d %b %Y} is older and would not refresh the facility's copy "
                              f"(§ 503a.3(d)). Nothing was imported.")


def _parsed(data: bytes, board_list_date: date) -> list[ListRow]:
    try:
        return parse_list_file(data, latest_birth=board_list_date)
    except ListFileError as error:
        more = error.total - len(error.problems)
        raise ValidationError([
            "The file was refused whole; nothing of it was imported. Correct these lines and import it again:",
            *error.problems,
            *([f"… and {more:,} more line(s) with problems."] if more > 0 else []),
        ]) from None


_ENTRY_FIELDS = ("exclusion_list_id", "line", "board_id", "last_name", "first_name", "middle_name", "aliases",
                 "date_of_birth", "address", "city", "state", "zip", "description", "name_keys", "address_key",
                 "block_keys", "short_names")


def _entry_values(list_id: int, row: ListRow) -> tuple[Any, ...]:
    """One entry's values, in the order of ``_ENTRY_FIELDS``: the Board's columns and the screening keys."""
    names = entry_names(row.first_name, row.middle_name, row.last_name, list(row.aliases))
    line = ", ".join(p for p in (row.address, row.city, row.state, row.zip) if p)
    return (list_id, row.line, row.board_id, row.last_name, row.first_name, row.middle_name, "; ".join(row.aliases),
            row.date_of_birth, row.address, row.city, row.state, row.zip, row.description, serialise_names(names),
            address_key(line), " ".join(block_keys(names)), short_names(names))


def _entries_insert(list_id: int, rows: list[ListRow]) -> None:
    """Insert the entries in bulk. On PostgreSQL through ``COPY … FROM STDIN`` (the application's role holds
    INSERT, which is all COPY needs): 200,000 entries in seconds, where building and binding as many model
    instances takes minutes. The rows are append-only evidence with no history, so nothing is skipped."""
    if connection.vendor != "postgresql":
        for start in range(0, len(rows), _BATCH):
            ExclusionEntry.objects.bulk_create([
                ExclusionEntry(**dict(zip(_ENTRY_FIELDS, _entry_values(list_id, row), strict=True)))
                for row in rows[start:start + _BATCH]
            ])
        return
    meta = ExclusionEntry._meta
    column_of = {field.attname: str(field.column) for field in meta.concrete_fields}
    columns = [sql.Identifier(column_of[name]) for name in _ENTRY_FIELDS]
    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(sql.Identifier(meta.db_table), sql.SQL(", ").join(columns))
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(_entry_values(list_id, row))


@transaction.atomic
@acts_as_user
def list_import(
    *,
    facility: Facility,
    kind: str,
    board_list_date: date,
    data: bytes,
    file_name: str,
    user: Any,
    password: str,
) -> ExclusionList:
    """Import one of the Board's lists from its CSV file (columns: :mod:`compliance.exclusion.csv_format`)
    as a new version in force, signed by the importing compliance officer. Every line is read before
    anything is written; a malformed line refuses the whole file, naming the line and the problem."""
    require_capability(user, Capability.IMPORT_EXCLUSION_LISTS)
    list_kind = _kind(kind)
    require_day_between(board_list_date, EARLIEST_DAY, selectors.facility_today(facility),
                        "the date of the Board's list")
    if len(data) > MAX_FILE_BYTES:
        raise ValidationError(f"The file is {len(data):,} bytes; a list file is at most {MAX_FILE_BYTES:,} bytes. "
                              f"Nothing was imported.")
    sha256 = hashlib.sha256(data).hexdigest()
    _require_newer(facility, list_kind, board_list_date, sha256)
    rows = _parsed(data, board_list_date)
    exclusion_list = ExclusionList(
        facility=facility, kind=list_kind, board_list_date=board_list_date, file_name=file_name[:255],
        sha256=sha256, row_count=len(rows), keys_version=KEYS_VERSION, created_by=user,
    )
    require_within_bounds(exclusion_list)
    exclusion_list.save(force_insert=True)
    record_sign(record=exclusion_list, slot="imported", user=user, password=password)
    _entries_insert(exclusion_list.pk, rows)
    return exclusion_list
