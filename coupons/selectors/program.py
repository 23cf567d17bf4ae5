"""The coupon program's gates, § 525.21(b) and (p): which approvals are recorded, and why coupons of a
series may not be issued or used yet (or no longer: expired, § 525.21(k)); and the program's registers as the
screens list them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import date

from django.db.models import F, QuerySet, Sum

from compliance.models import Facility
from coupons.days import day_words
from coupons.models import CouponProgram, CouponRange, CouponSeries, CouponState, ProgramApproval, StorageLocation
from coupons.selectors.scan_reads import approvals_sql

__all__ = [
    "approvals_of",
    "expired_words",
    "facility_approvals",
    "held_of_series",
    "issue_refusals",
    "locations_of",
    "program_gate_refusals",
    "programs",
    "series_of",
]

# Coupons of an expired series still to be returned to finance (marketing's) or taken out of circulation
# (finance's): § 525.21(k) "All expired coupons must be returned to the finance department on a daily basis",
# and finance cancels them, (m)(2).
_WITH_MARKETING = (CouponState.ISSUED,)
_WITH_FINANCE = (CouponState.RECEIVED, CouponState.IN_STOCK, CouponState.RETURNED)
EXPIRED_CLAUSES = "§ 525.21(k), (m)(2)"


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


def held_of_series(series: Iterable[CouponSeries]) -> dict[int, dict[str, int]]:
    """Coupons of each series still held by marketing or finance and not yet out of circulation, by state
    (one query over the open ranges)."""
    ids = [s.pk for s in series]
    rows = (
        CouponRange.objects.filter(series_id__in=ids, closed_by__isnull=True, state__in=_WITH_MARKETING + _WITH_FINANCE)
        .values("series_id", "state")
        .annotate(total=Sum(F("last_serial") - F("first_serial") + 1))
        .order_by()
    )
    held: dict[int, dict[str, int]] = defaultdict(dict)
    for row in rows:
        held[row["series_id"]][row["state"]] = row["total"]
    return dict(held)


def expired_words(series: CouponSeries, on_date: date, held: Mapping[str, int] | None = None) -> str:
    """How an expired series reads wherever its status shows ("" while it has not expired): it may not be
    issued, and what it still has in stock goes back to finance and out of circulation (§ 525.21(k), (m)(2)).
    ``held``: the series' entry of :func:`held_of_series`, when already read."""
    if not series.is_expired_on(on_date):
        return ""
    if held is None:
        held = held_of_series([series]).get(series.pk, {})
    marketing = sum(held.get(state, 0) for state in _WITH_MARKETING)
    finance = sum(held.get(state, 0) for state in _WITH_FINANCE)
    words = f"Expired on {day_words(series.expires_on)} — may not be issued; "
    if not marketing and not finance:
        return words + f"none of its stock is left to return or cancel ({EXPIRED_CLAUSES})."
    where = [f"{n:,} coupon{'s' if n != 1 else ''} {place}"
             for n, place in ((marketing, "with marketing"), (finance, "in finance's custody")) if n]
    return words + f"return and cancel its stock ({EXPIRED_CLAUSES}): {' and '.join(where)}."


def issue_refusals(series: CouponSeries, on_date: date, *, approvals: Sequence[ProgramApproval] | None = None,
                   held: Mapping[str, int] | None = None) -> list[str]:
    """Why coupons of ``series`` may not be issued on ``on_date`` (empty: they may): expired first, then the
    approvals of § 525.21(b) and (p) not recorded. What "May be issued" shows."""
    expired = expired_words(series, on_date, held)
    return ([expired] if expired else []) + program_gate_refusals(series, on_date, approvals=approvals)


def programs() -> QuerySet[CouponProgram]:
    return CouponProgram.objects.all()


def approvals_of(facility: Facility) -> QuerySet[ProgramApproval]:
    return (ProgramApproval.objects.filter(facility=facility)
            .select_related("program", "series").prefetch_related("signatures"))


def series_of(facility: Facility) -> QuerySet[CouponSeries]:
    return CouponSeries.objects.filter(facility=facility).select_related("program")


def locations_of(facility: Facility) -> QuerySet[StorageLocation]:
    return StorageLocation.objects.filter(facility=facility)
