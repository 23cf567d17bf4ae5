"""What marketing may requisition and finance may issue now, § 525.21(b), (g)–(i): the series approved, not
expired and with coupons in finance stock; the requisitions as their pages list them."""

from __future__ import annotations

from datetime import date

from compliance.models import Facility
from coupons.models import CouponProgram, CouponRange, CouponRequisition, CouponSeries, CouponState
from coupons.selectors.program import facility_approvals, program_gate_refusals

__all__ = ["issuable_programs", "issuable_series", "requisition_in"]


def issuable_series(facility: Facility, on_date: date) -> list[CouponSeries]:
    """The series finance may issue coupons of on ``on_date``: of an active program, approved (§ 525.21(b)),
    not expired, and with coupons in finance stock (§ 525.21(i)); soonest-expiring first. Three queries."""
    in_stock = CouponRange.objects.filter(facility=facility, state=CouponState.IN_STOCK,
                                          closed_by__isnull=True).values("series_id")
    candidates = (CouponSeries.objects.filter(facility=facility, program__active=True, expires_on__gte=on_date,
                                              pk__in=in_stock)
                  .select_related("program").order_by("expires_on", "denomination_cents", "code"))
    approvals = facility_approvals(facility.pk, on_date)
    return [s for s in candidates if not program_gate_refusals(s, on_date, approvals=approvals)]


def issuable_programs(facility: Facility, on_date: date) -> list[CouponProgram]:
    """The programs with a series finance may issue now (:func:`issuable_series`), by name."""
    programs = {s.program_id: s.program for s in issuable_series(facility, on_date)}
    return sorted(programs.values(), key=lambda p: p.name)


def requisition_in(facility: Facility, pk: object) -> CouponRequisition | None:
    """A requisition of the facility with its program, signatures, issuances and cancellation."""
    return (CouponRequisition.objects.filter(pk=pk, facility=facility)
            .select_related("program", "cancellation", "cancellation__created_by")
            .prefetch_related("signatures", "issuances", "cancellation__signatures").first())

