"""The reads of a coupon scan at the table as SQL (:mod:`compliance.raw_reads`), on SQLite and PostgreSQL alike.

Each function returns what the ORM would — the same instances with the same related objects loaded — in one
statement and without compiling a queryset (prepared once per connection on PostgreSQL);
:mod:`coupons.selectors.redemption` and :mod:`coupons.selectors.program` answer with them.
``tests/coupons/test_scan_reads.py`` holds each beside the ORM's answer, on both databases.
"""

from __future__ import annotations

import json
from datetime import date
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.models import BooleanField

from compliance.models import Facility, Game, GamingTable, Signature
from compliance.raw_reads import Columns, fetch
from coupons.models import (
    CouponProgram,
    CouponRange,
    CouponSeries,
    LedgerLine,
    ProgramApproval,
    RedemptionAnswer,
    ScannerDevice,
)

__all__ = ["answer_sql", "approvals_sql", "coupon_ranges_and_approvals_sql", "coupon_ranges_sql", "scanner_sql"]


def _table(model: Any) -> str:
    return f'"{model._meta.db_table}"'


def _games_json(through: str, own: str, other: str) -> str:
    """The series' games as one JSON array of rows (by name): the aggregate is the one word the two dialects
    spell differently."""
    fields = ", ".join(f"g.{f.column}" for f in Game._meta.concrete_fields)
    if connection.vendor == "postgresql":
        return (f"(SELECT json_agg(json_build_array({fields}) ORDER BY g.name, g.id) FROM {_table(Game)} g "  # noqa: S608
                f"JOIN {through} sg ON sg.{other} = g.id WHERE sg.{own} = s.id)")
    return (f"(SELECT json_group_array(json_array({fields})) FROM (SELECT g.* FROM {_table(Game)} g "  # noqa: S608
            f"JOIN {through} sg ON sg.{other} = g.id WHERE sg.{own} = s.id ORDER BY g.name, g.id) g)")


def _nulls(columns: Columns) -> str:
    """NULL for each of ``columns``, typed as the column (a UNION's other part then agrees on every type)."""
    return ", ".join(f"CAST(NULL AS {_cast_type(f)})" for f in columns.model._meta.concrete_fields)


def _cast_type(field: Any) -> str:
    return str(field.cast_db_type(connection)).split(" GENERATED", 1)[0]


@cache
def _ranges(vendor: str, then: str = "") -> tuple[str, list[Columns]]:
    parts = [Columns(CouponRange, "r"), Columns(CouponSeries, "s"), Columns(CouponProgram, "p"),
             Columns(LedgerLine, "since"), Columns(LedgerLine, "opened")]
    field = CouponSeries._meta.get_field("games")
    through = f'"{field.remote_field.through._meta.db_table}"'  # type: ignore[union-attr]
    games = _games_json(through, field.m2m_column_name(), field.m2m_reverse_name())
    statement = (
        f"SELECT {', '.join(c.sql for c in parts)}, {games}{then} "  # noqa: S608 - names from the models, values bound
        f"FROM {_table(CouponSeries)} s "
        f"JOIN {_table(CouponRange)} r ON r.id = (SELECT r0.id FROM {_table(CouponRange)} r0 WHERE r0.series_id = s.id "
        f"AND r0.closed_by_id IS NULL AND r0.first_serial <= %s ORDER BY r0.first_serial DESC LIMIT 1) "
        f"AND r.last_serial >= %s "
        f"JOIN {_table(CouponProgram)} p ON p.id = s.program_id "
        f"JOIN {_table(LedgerLine)} since ON since.id = r.since_id "
        f"JOIN {_table(LedgerLine)} opened ON opened.id = r.opened_by_id "
        f"WHERE s.facility_id = %s AND upper(s.serial_prefix) = upper(%s) ORDER BY s.id LIMIT 5"
    )
    return statement, parts


def _games(value: Any) -> list[Game]:
    rows = json.loads(value) if isinstance(value, str) else (value or [])
    fields = Game._meta.concrete_fields
    flags = [index for index, f in enumerate(fields) if isinstance(f, BooleanField)]
    for row in rows:  # SQLite's JSON says 1 and 0 for its booleans
        for index in flags:
            row[index] = None if row[index] is None else bool(row[index])
    return [Game.from_db("default", [f.attname for f in fields], row) for row in rows]


def _prefetched(series: CouponSeries, games: list[Game]) -> None:
    """``series.games.all()`` answers from ``games`` without a query, as ``prefetch_related`` leaves it."""
    manager = series.games
    queryset = manager.get_queryset()
    queryset._result_cache = games
    queryset._prefetch_done = True  # type: ignore[attr-defined]
    series._prefetched_objects_cache = {manager.prefetch_cache_name: queryset}  # type: ignore[attr-defined]


def coupon_ranges_sql(facility_id: int, prefix: str, number: int) -> list[CouponRange]:
    """:func:`coupons.selectors.redemption.coupon_ranges_at`: per series, the open range starting nearest at or
    below the serial (one step down ``coupon_range_open``, a subquery the two databases both plan as such), kept
    if it reaches the serial."""
    statement, parts = _ranges(connection.vendor)
    return [_range_of(row, parts) for row in fetch(statement, [number, number, facility_id, prefix])]


def _range_of(row: Any, parts: list[Columns]) -> CouponRange:
    at = 0
    objects = []
    for columns in parts:
        objects.append(columns.build(row, at))
        at += columns.width
    coupon_range, series, program, since_line, opened_line = objects
    series.program = program
    _prefetched(series, _games(row[at]))
    coupon_range.series, coupon_range.since, coupon_range.opened_by = series, since_line, opened_line
    return coupon_range


@cache
def _scanner() -> tuple[str, list[Columns]]:
    user = get_user_model()
    parts = [Columns(ScannerDevice, "d"), Columns(Facility, "f"), Columns(GamingTable, "t"), Columns(Game, "g"),
             Columns(Facility, "tf"), Columns(user, "u")]
    statement = (
        f"SELECT {', '.join(c.sql for c in parts)} FROM {_table(ScannerDevice)} d "  # noqa: S608
        f"JOIN {_table(Facility)} f ON f.id = d.facility_id JOIN {_table(GamingTable)} t ON t.id = d.table_id "
        f"JOIN {_table(Game)} g ON g.id = t.game_id JOIN {_table(Facility)} tf ON tf.id = t.facility_id "
        f"JOIN {_table(user)} u ON u.id = d.account_id WHERE d.token_sha256 = %s LIMIT 1"
    )
    return statement, parts


def scanner_sql(digest: str) -> ScannerDevice | None:
    """:func:`coupons.selectors.redemption.scanner_by_token_sha256`, with its table, game, facilities and account."""
    statement, parts = _scanner()
    rows = fetch(statement, [digest])
    if not rows:
        return None
    at, objects = 0, []
    for columns in parts:
        objects.append(columns.build(rows[0], at))
        at += columns.width
    device, facility, table, game, table_facility, account = objects
    table.game, table.facility = game, table_facility
    device.facility, device.table, device.account = facility, table, account
    return device


@cache
def _approvals(first: str = "") -> tuple[str, Columns]:
    columns = Columns(ProgramApproval, "a")
    statement = (
        f"SELECT {first}{columns.sql} FROM {_table(ProgramApproval)} a "  # noqa: S608
        f"WHERE a.facility_id = %s AND a.approved_on <= %s "
        f"AND NOT EXISTS (SELECT 1 FROM {_table(ProgramApproval)} c WHERE c.corrects_id = a.id) "
        f"AND EXISTS (SELECT 1 FROM {_table(Signature)} sig WHERE sig.content_type_id = %s "
        f"AND sig.object_id = a.id AND sig.slot = 'recorded') ORDER BY a.approved_on, a.id"
    )
    return statement, columns


def approvals_sql(facility_id: int, on_date: date) -> list[ProgramApproval]:
    """:func:`coupons.selectors.program.facility_approvals`: signed, current, dated on or before ``on_date``."""
    statement, columns = _approvals()
    content_type = ContentType.objects.get_for_model(ProgramApproval)  # cached by Django after the first call
    return [columns.build(row) for row in fetch(statement, [facility_id, on_date, content_type.pk])]


@cache
def _ranges_and_approvals(vendor: str) -> tuple[str, list[Columns], Columns]:
    """The two reads above as one statement, ``UNION ALL``: each part's rows padded with typed NULLs where the
    other's columns stand (each part in a subquery of its own: SQLite takes no ``ORDER BY`` or ``LIMIT`` on a
    part of a ``UNION``)."""
    approval = Columns(ProgramApproval, "a")
    ranges, parts = _ranges(vendor, then=f", {_nulls(approval)}")
    games = "CAST(NULL AS json)" if vendor == "postgresql" else "NULL"
    approvals, _ = _approvals(first=f"{', '.join(_nulls(c) for c in parts)}, {games}, ")
    return f"SELECT * FROM ({ranges}) q UNION ALL SELECT * FROM ({approvals}) q", parts, approval  # noqa: S608


def coupon_ranges_and_approvals_sql(facility_id: int, prefix: str, number: int, on_date: date,
                                    ) -> tuple[list[CouponRange], list[ProgramApproval]]:
    """:func:`coupon_ranges_sql` and :func:`approvals_sql` in one round trip: what a scan reads before it writes
    (issue 27: each round trip to the database costs a scan about as much Python as the statement it carries)."""
    statement, parts, approval = _ranges_and_approvals(connection.vendor)
    content_type = ContentType.objects.get_for_model(ProgramApproval)  # cached by Django after the first call
    width = sum(c.width for c in parts) + 1
    ranges, approvals = [], []
    for row in fetch(statement, [number, number, facility_id, prefix, facility_id, on_date, content_type.pk]):
        if parts[0].found(row):
            ranges.append(_range_of(row, parts))
        else:
            approvals.append(approval.build(row, width))
    approvals.sort(key=lambda a: (a.approved_on, a.pk))
    ranges.sort(key=lambda r: r.series_id)
    return ranges, approvals


@cache
def _answer() -> tuple[str, Columns]:
    columns = Columns(RedemptionAnswer, "a")
    return (f"SELECT {columns.sql} FROM {_table(RedemptionAnswer)} a "  # noqa: S608
            f"WHERE a.account_id = %s AND a.key = %s ORDER BY a.id LIMIT 1", columns)


def answer_sql(account_id: int, key: str) -> RedemptionAnswer | None:
    """The stored answer to an ``Idempotency-Key`` of ``account_id``, if any."""
    statement, columns = _answer()
    rows = fetch(statement, [account_id, key])
    return columns.build(rows[0]) if rows else None
