"""Reads of the coupon ledger: the day's form as plain data, balances, paths, the ledger page."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.models import Q, QuerySet, Sum
from django.utils import timezone

from compliance.models import Facility, Signature
from coupons.models import (
    CouponRange,
    CouponSeries,
    CouponState,
    InventoryReminder,
    LedgerLine,
    ReconciliationForm,
    format_cents,
)

__all__ = [
    "LEDGER_STATES",
    "InventoryStatus",
    "LedgerPage",
    "ReconciliationData",
    "expired_held",
    "held_by_marketing",
    "inventory_status",
    "ledger_page",
    "ledger_rows",
    "reconciliation_data",
    "reconciliation_preview",
    "serial_path",
    "state_totals",
]

S = CouponState
K = LedgerLine.Kind
LEDGER_STATES: tuple[str, ...] = tuple(S.values)


def held_by_marketing(facility: Facility) -> QuerySet[CouponRange]:
    return (
        CouponRange.objects.filter(facility=facility, state=S.ISSUED, closed_by__isnull=True)
        .select_related("series", "since", "location")
        .order_by("series__code", "first_serial")
    )


def expired_held(facility: Facility, on_date: date) -> list[CouponRange]:
    """Coupons marketing still holds whose series has expired (to be returned today, § 525.21(k))."""
    return list(held_by_marketing(facility).filter(series__expires_on__lt=on_date))


def state_totals(facility: Facility) -> dict[int, dict[str, int]]:
    """Coupons by denomination and state, from the open ranges (one query)."""
    from django.db.models import F

    rows = (
        CouponRange.objects.filter(facility=facility, closed_by__isnull=True)
        .values("series__denomination_cents", "state")
        .annotate(total=Sum(F("last_serial") - F("first_serial") + 1))
        .order_by()
    )
    totals: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(LEDGER_STATES, 0))
    for row in rows:
        totals[row["series__denomination_cents"]][row["state"]] = int(row["total"])
    return dict(totals)


def serial_path(series: CouponSeries, serial: int) -> list[LedgerLine]:
    """Every ledger line that moved ``serial``, oldest first."""
    return list(
        LedgerLine.objects.filter(series=series, first_serial__lte=serial, last_serial__gte=serial)
        .exclude(kind=K.INVENTORY)
        .order_by("occurred_at", "pk")
    )


def series_ranges(series: CouponSeries, page: int | str | None = None, per_page: int = 100) -> tuple[Any, list[dict[str, Any]]]:
    """A page of the series' current ranges, each with the path of states its serials went through.

    Two queries a page: the open ranges, and the movement lines overlapping the page's serials. The
    path of a range is the lines that contain it, the same for every serial in it (a range is split
    whenever its serials part ways), so the work is bounded by the page, not the series' history.
    """
    from django.core.paginator import Paginator

    rows_page = Paginator(
        series.ranges.filter(closed_by__isnull=True).select_related("location", "since").order_by("first_serial"),
        per_page,
    ).get_page(page)
    rows = list(rows_page.object_list)
    if not rows:
        return rows_page, []
    lines = list(
        series.ledger_lines.filter(first_serial__lte=rows[-1].last_serial, last_serial__gte=rows[0].first_serial)
        .exclude(kind=K.INVENTORY)
        .order_by("occurred_at", "pk")
    )
    result = []
    for row in rows:
        path = [ln for ln in lines if ln.first_serial is not None and ln.last_serial is not None
                and ln.first_serial <= row.first_serial and ln.last_serial >= row.last_serial]
        result.append({"range": row, "span": series.span(row.first_serial, row.last_serial), "path": path})
    return rows_page, result


# --------------------------------------------------------------------------------------------
# The reconciliation form, § 525.21(j), as plain data (the screen and the PDF both read this)
# --------------------------------------------------------------------------------------------
@dataclass
class RangeRow:
    series: str
    span: str
    denomination: str
    quantity: int
    note: str = ""


@dataclass
class FigureRow:
    denomination_cents: int
    carried_in: int
    received: int
    distributed: int
    voided: int
    returned: int
    remaining_expected: int
    remaining_counted: int | None = None

    @property
    def denomination(self) -> str:
        return format_cents(self.denomination_cents)

    @property
    def to_distribute(self) -> int:
        return self.carried_in + self.received

    @property
    def remaining(self) -> int:
        return self.remaining_expected

    @property
    def variance(self) -> int:
        return 0 if self.remaining_counted is None else self.remaining_counted - self.remaining_expected


@dataclass
class ReconciliationData:
    facility_name: str
    certificate_holder: str
    gaming_date: date
    figures: list[FigureRow]
    received_ranges: list[RangeRow]
    carried_ranges: list[RangeRow]
    remaining_ranges: list[RangeRow]
    voided: list[RangeRow]
    variation_explanation: str = ""
    disposition: str = ""
    form_id: int | None = None
    signatures: list[Signature] = field(default_factory=list)
    expired_held: list[RangeRow] = field(default_factory=list)
    record: Any = None
    logo_path: str = ""

    citation: str = "58 Pa. Code § 525.21(j)"
    title: str = "Daily Match Play Coupon Reconciliation Form"

    @property
    def completed(self) -> bool:
        return self.form_id is not None

    @property
    def total_variance(self) -> int:
        return sum(abs(f.variance) for f in self.figures)


def _range_rows(rows: Any) -> list[RangeRow]:
    return [
        RangeRow(r.series.name, r.series.span(r.first_serial, r.last_serial), r.series.denomination,
                 r.last_serial - r.first_serial + 1)
        for r in rows
    ]


def _line_rows(lines: Any, *, with_reason: bool = False, with_document: bool = False) -> list[RangeRow]:
    return [
        RangeRow(
            ln.series.name, ln.span, format_cents(ln.denomination_cents), ln.quantity,
            ln.reason if with_reason else (f"issuance #{ln.document_id}" if with_document else ""),
        )
        for ln in lines
    ]


def reconciliation_preview(facility: Facility, gaming_date: date) -> ReconciliationData:
    """The day's form pre-filled from the ledger (or, once completed, as it was signed)."""
    form = (
        ReconciliationForm.objects.filter(facility=facility, gaming_date=gaming_date, corrects__isnull=True)
        .prefetch_related("figures", "signatures")
        .first()
    )
    return reconciliation_data(facility, gaming_date, form)


def reconciliation_data(facility: Facility, gaming_date: date, form: ReconciliationForm | None) -> ReconciliationData:
    from coupons.services import day_figures

    lines = LedgerLine.objects.filter(facility=facility, gaming_date=gaming_date).select_related("series")
    if form is not None:
        lines = lines.filter(pk__lte=form.ledger_position)
        figures = [
            FigureRow(f.denomination_cents, f.carried_in, f.received, f.distributed, f.voided, f.returned,
                      f.remaining_expected, f.remaining_counted)
            for f in form.figures.all()
        ]
        remaining = CouponRange.objects.filter(
            Q(closed_by__isnull=True) | Q(closed_by_id__gt=form.ledger_position),
            facility=facility, state=S.ISSUED, opened_by_id__lte=form.ledger_position,
        )
    else:
        figures = [
            FigureRow(f.denomination_cents, f.carried_in, f.received, f.distributed, f.voided, f.returned,
                      f.remaining)
            for f in day_figures(facility, gaming_date)
        ]
        remaining = CouponRange.objects.filter(facility=facility, state=S.ISSUED, closed_by__isnull=True)
    carried = CouponRange.objects.filter(
        Q(closed_by__isnull=True) | Q(closed_by__gaming_date__gte=gaming_date),
        facility=facility, state=S.ISSUED, opened_by__gaming_date__lt=gaming_date,
    )
    logo = getattr(facility, "logo", None)
    data = ReconciliationData(
        logo_path=logo.path if logo else "",
        facility_name=facility.name,
        certificate_holder=facility.certificate_holder,
        gaming_date=gaming_date,
        figures=figures,
        received_ranges=_line_rows(lines.filter(kind=K.ISSUE).order_by("pk"), with_document=True),
        carried_ranges=_range_rows(carried.select_related("series").order_by("series__code", "first_serial")),
        remaining_ranges=_range_rows(remaining.select_related("series").order_by("series__code", "first_serial")),
        voided=_line_rows(lines.filter(kind=K.VOID, from_state=S.ISSUED).order_by("pk"), with_reason=True),
    )
    if form is not None:
        data.form_id = form.pk
        data.variation_explanation = form.variation_explanation
        data.disposition = form.get_disposition_display() + (f": {form.kept_in}" if form.kept_in_id else "")
        data.signatures = list(form.signatures.all())
        data.record = form
    else:
        data.expired_held = _range_rows(expired_held(facility, gaming_date))
    return data


# --------------------------------------------------------------------------------------------
# Monthly inventory status, § 525.21(n)
# --------------------------------------------------------------------------------------------
@dataclass
class InventoryStatus:
    month: date
    done: bool
    overdue: bool
    due_soon: bool
    missed_month: date | None = None


def inventory_status(facility: Facility, today: date) -> InventoryStatus:
    """Rule: at least one inventory each calendar month. Overdue once a month ended without one and
    the grace day (the 1st of the next month) has passed; "due soon" in the last 7 days of a month."""
    from coupons.models import CouponInventory
    from coupons.services import INVENTORY_GRACE_DAYS, inventory_due_on

    month = today.replace(day=1)
    previous = (month - timedelta(days=1)).replace(day=1)
    done_months = set(
        CouponInventory.objects.filter(facility=facility, gaming_date__gte=previous, signatures__slot="counted")
        .values_list("gaming_date", flat=True)
    )
    done_this = any(d >= month for d in done_months)
    done_previous = any(previous <= d < month for d in done_months)
    # Only months the system has been in use for count: a reminder exists from the month's start.
    tracked_previous = InventoryReminder.objects.filter(facility=facility, month=previous).exists()
    overdue = tracked_previous and not done_previous and (today - month).days >= INVENTORY_GRACE_DAYS
    due = inventory_due_on(month)
    return InventoryStatus(
        month=month, done=done_this, overdue=overdue, due_soon=not done_this and (due - today).days < 7,
        missed_month=previous if overdue else None,
    )


# --------------------------------------------------------------------------------------------
# The ledger page: one query for the rows, running balances by a window function
# --------------------------------------------------------------------------------------------
@dataclass
class LedgerPage:
    rows: list[dict[str, Any]]
    number: int
    num_pages: int
    count: int

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    def previous_page_number(self) -> int:
        return self.number - 1

    def next_page_number(self) -> int:
        return self.number + 1

    def has_other_pages(self) -> bool:
        return self.num_pages > 1

    @property
    def paginator(self) -> LedgerPage:
        return self


def _ledger_sql(facility_id: int, filters: dict[str, Any]) -> tuple[str, list[Any]]:
    """Rows of the facility's ledger with, on each, the balance of every state for its denomination
    after the line. The window runs over the whole ledger; the filters apply outside it, so a
    filtered page still shows true running balances."""
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
        WHERE l.facility_id = %s
    """  # noqa: S608 - state names are fixed choices, every value is a parameter
    where, params = ["1 = 1"], [facility_id]
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


def ledger_page(facility: Facility, filters: dict[str, Any], page: int | None, per_page: int = 50) -> LedgerPage:
    """A page of the ledger, chronological; with no page asked for, the latest page. Two queries."""
    sql, params = _ledger_sql(facility.pk, filters)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM ({sql}) c", params)  # noqa: S608
        count = int(cursor.fetchone()[0])
        num_pages = max(1, -(-count // per_page))
        number = num_pages if page is None else min(max(1, page), num_pages)
        cursor.execute(f"{sql} ORDER BY t.occurred_at, t.id LIMIT %s OFFSET %s",
                       [*params, per_page, (number - 1) * per_page])
        columns = [c[0] for c in cursor.description]
        rows = [_as_row(columns, values) for values in cursor.fetchall()]
    return LedgerPage(rows=rows, number=number, num_pages=num_pages, count=count)


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
            for values in chunk:
                yield _as_row(columns, values)


def document_url(document_type_id: int, document_id: int) -> str:
    from django.urls import reverse

    return reverse("coupons:document", args=[document_type_id, document_id])


def content_type_for(model: type[Any]) -> ContentType:
    return ContentType.objects.get_for_model(model)
