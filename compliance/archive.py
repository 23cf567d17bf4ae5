"""The yearly archive of the tables that only grow: a closed year's rows moved out of the live tables, read as before.

PostgreSQL only (the embedded SQLite keeps every row where it is). Run by the database's owner
(``manage.py archive_year --year 2025``, ``DATABASE_OWNER_URL``), once a year has ended and its rows are linked:

* each archived table gets, per year, a table of its own in the ``archive`` schema (``archive.<table>_<year>``):
  the same columns, CHECK constraints, indexes and foreign keys, a CHECK that its rows are of that year (so a
  query of recent rows skips it: constraint exclusion) and the append-only trigger;
* it *inherits* the live table, so every read of the live table — the pages, the exports, the linker, the
  verification, the evidence bundle — reads the archived rows too, in the same id order: the rows, their ids,
  seals and chain links are unchanged, and ``verify_audit_chain`` proves it as before;
* the rows are moved in batches of :data:`BATCH`, each by one statement that deletes them from the live table and
  inserts exactly what it deleted (``DELETE … RETURNING`` feeding the ``INSERT``), in a transaction of its own
  (short: the live table's inserts never wait); the append-only trigger lets the owner's DELETE through only
  under :data:`~compliance.db_guards.ARCHIVE_SETTING`, which this step sets for its own transaction;
* the application's role may only read the archive (``SELECT``; ``db_roles`` keeps it so): it cannot change,
  delete or add an archived row, directly or through the live table, and the archive's trigger refuses even the
  owner's UPDATE and DELETE (the owner, who could drop it, is held by the chain and the Board's anchors).

What is archived (:func:`archived_tables`): the audit events (by ``occurred_at``; sealed, so only rows already
linked into their chain) and every history table (by ``history_date``). Not archived, and why
(docs/operations.md, "Archive"): ledger lines and redemptions (coupon ranges, drop-count items and redemption
answers refer to them by foreign key, which PostgreSQL checks against the live table alone) and signatures
(their one-per-slot and two-person unique constraints hold within one table, and the records they sign stay live).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.apps import apps
from django.conf import settings
from django.db import connection, models, transaction
from django.utils import timezone
from psycopg import sql

from compliance.db_guards import ARCHIVE_SETTING
from compliance.models import AuditEvent, ChainLink, Sealed

__all__ = ["ARCHIVE_SCHEMA", "BATCH", "ArchiveRefused", "Archived", "archive_grants", "archived_tables",
           "year_archive"]

ARCHIVE_SCHEMA = "archive"
BATCH = 50_000


class ArchiveRefused(Exception):
    """The year cannot be archived (not ended, rows not linked yet, not PostgreSQL)."""


@dataclass(frozen=True)
class Archived:
    """A table archived by year: its model, the column giving a row's moment."""

    model: type[models.Model]
    column: str

    @property
    def table(self) -> str:
        return str(self.model._meta.db_table)

    def archive_table(self, year: int) -> str:
        return f"{self.table}_{year}"


def archived_tables() -> list[Archived]:
    """The audit events and every history table (see the module docstring for those left live, and why)."""
    found = [Archived(AuditEvent, "occurred_at")]
    found += [Archived(model, "history_date") for model in apps.get_models()
              if hasattr(model, "instance_type") and model.__name__.startswith("Historical")]
    return sorted(found, key=lambda archived: archived.table)


def _year_bounds(year: int) -> tuple[datetime, datetime]:
    zone = ZoneInfo(settings.TIME_ZONE)
    return datetime(year, 1, 1, tzinfo=zone), datetime(year + 1, 1, 1, tzinfo=zone)


def _linked_floor(model: type[Sealed]) -> int:
    """Every row of the model with an id at or below this is linked into its chain."""
    return ChainLink.objects.filter(model=model._meta.label, scheme=2).order_by("-pk").values_list(
        "floor", flat=True).first() or 0


def _columns(table: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
                       "AND NOT attisdropped ORDER BY attnum", [f'public."{table}"'])
        return [row[0] for row in cursor.fetchall()]


def _prepare(archived: Archived, year: int, role: str) -> None:
    """The year's table in the archive schema, inheriting the live one (idempotent)."""
    live = sql.Identifier("public", archived.table)
    name = archived.archive_table(year)
    target = sql.Identifier(ARCHIVE_SCHEMA, name)
    start, end = _year_bounds(year)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(ARCHIVE_SCHEMA)))
        cursor.execute(sql.SQL("REVOKE ALL ON SCHEMA {} FROM PUBLIC").format(sql.Identifier(ARCHIVE_SCHEMA)))
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [f'{ARCHIVE_SCHEMA}."{name}"'])
        if not cursor.fetchone()[0]:
            cursor.execute(sql.SQL("CREATE TABLE {} (LIKE {} INCLUDING DEFAULTS INCLUDING CONSTRAINTS "
                                   "INCLUDING INDEXES)").format(target, live))
            cursor.execute(sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} CHECK ({} >= {} AND {} < {})").format(
                target, sql.Identifier(f"{name}_of_the_year"), sql.Identifier(archived.column), sql.Literal(start),
                sql.Identifier(archived.column), sql.Literal(end)))
            cursor.execute("SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s::regclass "
                           "AND contype = 'f'", [f'public."{archived.table}"'])
            for constraint, definition in cursor.fetchall():  # the live table's foreign keys hold archived rows too
                cursor.execute(sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} ").format(target, sql.Identifier(constraint))
                               + sql.SQL(definition))
            cursor.execute(sql.SQL("ALTER TABLE {} INHERIT {}").format(target, live))
            cursor.execute(sql.SQL("CREATE TRIGGER {} BEFORE UPDATE OR DELETE ON {} FOR EACH ROW EXECUTE FUNCTION "
                                   "public.compliance_refuse_change()").format(
                sql.Identifier(f"{name}_append_only"[:63]), target))
        archive_grants(cursor, role)


def archive_grants(cursor: Any, role: str) -> None:
    """The application's role may read the archive and nothing else (``db_roles`` runs this too)."""
    cursor.execute("SELECT to_regnamespace(%s) IS NOT NULL", [ARCHIVE_SCHEMA])
    if not cursor.fetchone()[0]:
        return
    schema, r = sql.Identifier(ARCHIVE_SCHEMA), sql.Identifier(role)
    for statement in ("GRANT USAGE ON SCHEMA {} TO {}", "REVOKE CREATE ON SCHEMA {} FROM {}",
                      "REVOKE ALL ON ALL TABLES IN SCHEMA {} FROM {}", "GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}"):
        cursor.execute(sql.SQL(statement).format(schema, r))


def _move_batch(archived: Archived, year: int, columns: list[str], upto: int | None) -> int:
    """One batch moved, in a transaction of its own: the rows the DELETE removed are the rows the INSERT adds."""
    start, end = _year_bounds(year)
    live = sql.Identifier("public", archived.table)
    key, moment = sql.Identifier(str(archived.model._meta.pk.column)), sql.Identifier(archived.column)
    listed = sql.SQL(", ").join(map(sql.Identifier, columns))
    linked = sql.SQL(" AND {} <= {}").format(key, sql.Literal(upto)) if upto is not None else sql.SQL("")
    statement = sql.SQL(
        "WITH moved AS (DELETE FROM ONLY {live} WHERE {key} IN (SELECT {key} FROM ONLY {live} WHERE {moment} >= %s "
        "AND {moment} < %s{linked} ORDER BY {key} LIMIT %s) RETURNING {listed}) "
        "INSERT INTO {target} ({listed}) SELECT {listed} FROM moved"
    ).format(live=live, key=key, moment=moment, linked=linked, listed=listed,
             target=sql.Identifier(ARCHIVE_SCHEMA, archived.archive_table(year)))
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config(%s, %s, true)", [ARCHIVE_SETTING, archived.table])
        cursor.execute(statement, [start, end, BATCH])
        return int(cursor.rowcount)


def _has_rows(archived: Archived, year: int) -> bool:
    """Rows of the year still in the live table (none: no archive table made for nothing)."""
    start, end = _year_bounds(year)
    with connection.cursor() as cursor:
        cursor.execute(sql.SQL("SELECT EXISTS (SELECT 1 FROM ONLY {} WHERE {} >= %s AND {} < %s)").format(
            sql.Identifier("public", archived.table), sql.Identifier(archived.column),
            sql.Identifier(archived.column)), [start, end])
        return bool(cursor.fetchone()[0])


def _unlinked(archived: Archived, year: int) -> int:
    """Rows of the year not yet linked into their chain (a sealed table's): they stay until they are."""
    model = archived.model
    if not issubclass(model, Sealed):
        return 0
    start, end = _year_bounds(year)
    return model._base_manager.filter(**{f"{archived.column}__gte": start, f"{archived.column}__lt": end,
                                         "pk__gt": _linked_floor(model)}).count()


def year_archive(*, year: int, role: str, tables: list[Archived] | None = None,
                 progress: Callable[[str], None] | None = None) -> dict[str, int]:
    """Move the rows of ``year`` (ended) of every archived table into the archive; the rows moved, by table.
    ``role``: the application's, granted SELECT on the archive. Run as the owner."""
    if connection.vendor != "postgresql":
        raise ArchiveRefused("The embedded SQLite keeps every row in its table: the archive is PostgreSQL's "
                             "(docs/operations.md, \"Archive\").")
    if year >= timezone.localtime().year:
        raise ArchiveRefused(f"{year} has not ended: only a closed year is archived.")
    chosen = tables if tables is not None else archived_tables()
    waiting = {a.table: n for a in chosen if (n := _unlinked(a, year))}
    if waiting:
        raise ArchiveRefused(f"Rows of {year} are not linked into their chain yet ({waiting}): run link_audit_chain "
                             "first; nothing was moved.")
    moved: dict[str, int] = {}
    for archived in chosen:
        if not _has_rows(archived, year):
            continue
        _prepare(archived, year, role)
        columns = _columns(archived.table)
        upto = _linked_floor(archived.model) if issubclass(archived.model, Sealed) else None
        total = 0
        while count := _move_batch(archived, year, columns, upto):
            total += count
            if progress:
                progress(f"{archived.table}: {total:,} rows of {year} moved")
        with connection.cursor() as cursor:
            cursor.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(ARCHIVE_SCHEMA, archived.archive_table(year))))
        moved[archived.table] = total
    return moved
