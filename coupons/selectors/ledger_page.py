"""The ledger page: one query for the rows, running balances by a window function."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.utils import timezone

from compliance.chain import altered_ids, altered_records
from compliance.keyset import Keyset, KeysetPage, keyset_page
from compliance.models import Facility, Signature
from coupons.models import (
    CouponState,
    LedgerLine,
    format_cents,
)
from coupons.selectors.stock import LEDGER_STATES

S = CouponState
K = LedgerLine.Kind


LEDGER_CURSOR = "coupons.ledger"


@dataclass(frozen=True)
class LedgerPage(KeysetPage[dict[str, Any]]):
    """A page of the ledger read by keyset (issue 27): ``object_list`` newest first, as the pager walks it."""

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The page's entries in the ledger's own order, chronological."""
        return self.object_list[::-1]


def _instant(at: datetime) -> Any:
    """A cursor's instant as the column holds it: SQLite keeps naive UTC text, and an aware value sent as it is
    ("…+00:00") sorts after the same instant's text, so "Older" showed the same lines again, for ever."""
    return connection.ops.adapt_datetimefield_value(at)


def _ledger_sql(facility_id: int, filters: dict[str, Any], before: tuple[datetime, int] | None = None
                ) -> tuple[str, list[Any]]:
    """Rows of the facility's ledger with, on each, the balance of every state for its denomination
    after the line. The window runs over the whole ledger; the filters apply outside it, so a
    filtered page still shows true running balances. ``before``: only the lines before that (instant, id) — a
    line's balances come from the lines before it alone, so the window need not read the later ones."""
    balance_columns = ",\n".join(
        f"SUM(CASE WHEN l.to_state = '{state}' THEN l.quantity ELSE 0 END"
        f" - CASE WHEN l.from_state = '{state}' THEN l.quantity ELSE 0 END)"
        f" OVER (PARTITION BY l.denomination_cents ORDER BY l.occurred_at, l.id) AS bal_{state}"
        for state in LEDGER_STATES
    )
    inner = f"""
        SELECT l.id, l.occurred_at, l.gaming_date, l.kind, l.series_id, l.denomination_cents, l.from_state,
               l.to_state, l.first_serial, l.last_serial, l.quantity, l.reason, l.document_type_id, l.document_id,
               s.name AS series_name, s.code AS series_code, s.serial_prefix, s.serial_digits,
               {balance_columns}
        FROM coupons_ledgerline l JOIN coupons_couponseries s ON s.id = l.series_id
        WHERE l.facility_id = %s{" AND (l.occurred_at < %s OR (l.occurred_at = %s AND l.id < %s))" if before else ""}
    """  # noqa: S608 - state names are fixed choices, every value is a parameter
    at = _instant(before[0]) if before else None
    where, params = ["1 = 1"], [facility_id, *((at, at, before[1]) if before else ())]
    if filters.get("date_from"):
        where.append("t.gaming_date >= %s")
        params.append(filters["date_from"])
    if filters.get("date_to"):
        where.append("t.gaming_date <= %s")
        params.append(filters["date_to"])
    if filters.get("kind"):
        where.append("t.kind = %s")
        params.append(filters["kind"])
    if filters.get("series_id"):
        where.append("t.series_id = %s")
        params.append(filters["series_id"])
    if filters.get("denomination_cents"):
        where.append("t.denomination_cents = %s")
        params.append(filters["denomination_cents"])
    if filters.get("state"):
        where.append("(t.from_state = %s OR t.to_state = %s)")
        params.extend([filters["state"], filters["state"]])
    if filters.get("serial") is not None:
        where.append("t.first_serial <= %s AND t.last_serial >= %s")
        params.extend([filters["serial"], filters["serial"]])
    return f"SELECT * FROM ({inner}) t WHERE {' AND '.join(where)}", params  # noqa: S608


def _as_row(columns: list[str], values: tuple[Any, ...]) -> dict[str, Any]:
    row = dict(zip(columns, values, strict=True))
    first, last, prefix, digits = row["first_serial"], row["last_serial"], row["serial_prefix"], row["serial_digits"]

    def printed(n: int) -> str:
        return f"{prefix}-{str(n).zfill(digits)}" if prefix else str(n).zfill(digits)

    row["span"] = "" if first is None else (printed(first) if first == last else f"{printed(first)}–{printed(last)}")
    row["denomination"] = format_cents(row["denomination_cents"])
    row["kind_label"] = str(K(row["kind"]).label)
    if isinstance(row["occurred_at"], str):  # SQLite returns text from a subquery
        row["occurred_at"] = datetime.fromisoformat(row["occurred_at"])
    if isinstance(row["gaming_date"], str):
        row["gaming_date"] = date.fromisoformat(row["gaming_date"])
    if row["occurred_at"] is not None and timezone.is_naive(row["occurred_at"]):
        row["occurred_at"] = timezone.make_aware(row["occurred_at"], UTC)
    row["balances"] = [int(row[f"bal_{state}"] or 0) for state in LEDGER_STATES]
    return row


def _with_documents(facility: Facility, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Name each row's document ("Receipt #2") and its signers as printed, with their Board-issued
    credential numbers (§ 525.21(f)(4), (h)(3)): one query for the rows' signatures; and whether each line
still matches its seal, and its document what its signatures vouch for (compliance.chain): a line is marked
altered when either changed."""
    keys = {(row["document_type_id"], row["document_id"]) for row in rows}
    signers: dict[tuple[int, int], list[str]] = defaultdict(list)
    if keys:
        signatures = (
            Signature.objects.filter(facility=facility, content_type_id__in={k[0] for k in keys},
                                     object_id__in={k[1] for k in keys})
            .order_by("signed_at").values_list("content_type_id", "object_id", "printed_name", "credential_number")
        )
        for type_id, object_id, name, credential in signatures:
            if (type_id, object_id) in keys:
                signers[(type_id, object_id)].append(f"{name} ({credential})")
    altered = altered_ids(LedgerLine, [row["id"] for row in rows])
    altered_documents = altered_records(keys)  # the receipt, the issuance… changed since it was signed
    for row in rows:
        row["altered"] = row["id"] in altered or (row["document_type_id"], row["document_id"]) in altered_documents
        model = ContentType.objects.get_for_id(row["document_type_id"]).model_class()
        label = getattr(model, "kind_label", "") or (str(model._meta.verbose_name).capitalize() if model else "Document")
        row["document_name"] = f"{label} #{row['document_id']}"
        row["signers"] = signers.get((row["document_type_id"], row["document_id"]), [])
    return rows


def _ledger_read(facility: Facility, filters: dict[str, Any], keyset: Keyset, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` filtered rows from where ``keyset`` starts, in :meth:`Keyset.applied`'s order."""
    before = (keyset.at, keyset.pk) if keyset.at is not None and keyset.pk is not None else None
    sql, params = _ledger_sql(facility.pk, filters, None if keyset.newer else before)
    if before and keyset.newer:
        sql += " AND (t.occurred_at > %s OR (t.occurred_at = %s AND t.id > %s))"
        params += [_instant(before[0]), _instant(before[0]), before[1]]
    order = "t.occurred_at, t.id" if keyset.newer else "t.occurred_at DESC, t.id DESC"
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} ORDER BY {order} LIMIT %s", [*params, limit])
        columns = [c[0] for c in cursor.description]
        return [_as_row(columns, values) for values in cursor.fetchall()]


def ledger_page(facility: Facility, filters: dict[str, Any], keyset: Keyset, per_page: int = 50) -> LedgerPage:
    """A page of the ledger by keyset (issue 27: no count, no OFFSET); with no cursor, the latest entries. Three
    queries: the rows, their documents' signatures, their seals."""
    page = keyset_page(lambda at, limit: _ledger_read(facility, filters, at, limit), keyset, size=per_page,
                       key=lambda row: (row["occurred_at"], row["id"]), purpose=LEDGER_CURSOR)
    return LedgerPage(_with_documents(facility, page.object_list), page.newer, page.older, page.at_newest)


def ledger_rows(facility: Facility, filters: dict[str, Any]) -> Any:
    """Every filtered row, chronological, streamed in chunks (CSV and PDF exports)."""
    sql, params = _ledger_sql(facility.pk, filters)
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} ORDER BY t.occurred_at, t.id", params)
        columns = [c[0] for c in cursor.description]
        while True:
            chunk = cursor.fetchmany(2000)
            if not chunk:
                break
            yield from _with_documents(facility, [_as_row(columns, values) for values in chunk])
