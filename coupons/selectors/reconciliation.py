"""The daily reconciliation form, § 525.21(j), as plain data: the screen and the PDF both read this."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.db.models import Q

from compliance.models import Facility, Signature
from compliance.storage import logo_bytes
from coupons.models import (
    CouponRange,
    CouponState,
    LedgerLine,
    ReconciliationForm,
    format_cents,
)
from coupons.selectors.day import day_figures
from coupons.selectors.stock import expired_held

S = CouponState
K = LedgerLine.Kind


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
    corrections: list[Any] = field(default_factory=list)  # FormCorrection linked to the signed form
    logo: bytes = b""

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


def _document_words(line: Any) -> str:
    return f"correction #{line.document_id}" if line.kind == K.CORRECT else f"issuance #{line.document_id}"


def _line_rows(lines: Any, *, with_reason: bool = False, with_document: bool = False) -> list[RangeRow]:
    return [
        RangeRow(
            ln.series.name, ln.span, format_cents(ln.denomination_cents), ln.quantity,
            ln.reason if with_reason else (_document_words(ln) if with_document else ""),
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
    data = ReconciliationData(
        logo=logo_bytes(facility),
        facility_name=facility.name,
        certificate_holder=facility.certificate_holder,
        gaming_date=gaming_date,
        figures=figures,
        received_ranges=_line_rows(lines.filter(Q(kind=K.ISSUE) | Q(kind=K.CORRECT, to_state=S.ISSUED)).order_by("pk"),
                                   with_document=True),
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
        data.corrections = list(form.corrections.prefetch_related("signatures").order_by("pk"))
    else:
        data.expired_held = _range_rows(expired_held(facility, gaming_date))
    return data
