"""The coupon program's gates, § 525.21(b) and (p): which approvals are recorded, and why coupons of a
series may not be issued or used yet; and the program's registers as the screens list them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from django.db.models import QuerySet

from compliance.models import Facility
from coupons.models import CouponProgram, CouponSeries, ProgramApproval, StorageLocation
from coupons.selectors.scan_reads import approvals_sql

__all__ = [
    "approvals_of",
    "facility_approvals",
    "locations_of",
    "program_gate_refusals",
    "programs",
    "series_of",
]


def facility_approvals(facility_id: int, on_date: date) -> list[ProgramApproval]:
    """Every signed, current approval of the facility dated on or before ``on_date`` (one query): a
    screen listing many series reads them once and passes them to :func:`program_gate_refusals`. The scan's
    hot path: SQL (:func:`coupons.selectors.scan_reads.approvals_sql`), on either database."""
    return approvals_sql(facility_id, on_date)


def _approvals(series: CouponSeries, on_date: date,
               approvals: Sequence[ProgramApproval] | None = None) -> dict[str, ProgramApproval]:
    found = facility_approvals(series.facility_id, on_date) if approvals is None else approvals
    return {
        a.kind: a for a in found
        if a.program_id == series.program_id and a.approved_on <= on_date
        and (a.kind != ProgramApproval.Kind.DESIGN or a.series_id == series.pk)
    }


def program_gate_refusals(series: CouponSeries, on_date: date, *, internal_print: bool = False,
                          approvals: Sequence[ProgramApproval] | None = None) -> list[str]:
    """Why coupons of ``series`` may not be issued or used on ``on_date`` (empty: they may).

    ``approvals``: the facility's approvals from :func:`facility_approvals`, when already read.
    """
    approvals_by_kind = _approvals(series, on_date, approvals)
    refusals = []
    if ProgramApproval.Kind.DESIGN not in approvals_by_kind:
        refusals.append(
            f"The design specifications of {series.name} have no recorded approval by the Bureau of Gaming "
            f"Operations (§ 525.21(b)(1))."
        )
    if ProgramApproval.Kind.INTERNAL_CONTROLS not in approvals_by_kind:
        refusals.append(
            f"The internal controls for the {series.program.name} program have no recorded approval (§ 525.21(b)(2))."
        )
    if internal_print and ProgramApproval.Kind.INTERNAL_PRINTING not in approvals_by_kind:
        refusals.append(
            "Coupons printed in house need approved internal controls for their production (§ 525.21(p))."
        )
    return refusals


def programs() -> QuerySet[CouponProgram]:
    return CouponProgram.objects.all()


def approvals_of(facility: Facility) -> QuerySet[ProgramApproval]:
    return (ProgramApproval.objects.filter(facility=facility)
            .select_related("program", "series").prefetch_related("signatures"))


def series_of(facility: Facility) -> QuerySet[CouponSeries]:
    return CouponSeries.objects.filter(facility=facility).select_related("program")


def locations_of(facility: Facility) -> QuerySet[StorageLocation]:
    return StorageLocation.objects.filter(facility=facility)
