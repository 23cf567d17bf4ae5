"""Requisition and issuance of coupons to marketing, § 525.21(g)–(h)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from compliance.actors import acts_as_user
from compliance.bounds import require_count, require_day_between, years
from compliance.models import Facility
from compliance.numbers import how_many
from compliance.roles import Capability, has_capability, require_capability
from compliance.services import CoSigner, record_cosign, record_sign
from coupons import ranges as spans_
from coupons.days import day_words, not_in_future, today
from coupons.ledger import move, overlapping
from coupons.models import (
    CouponIssuance,
    CouponProgram,
    CouponReceipt,
    CouponRequisition,
    CouponSeries,
    CouponState,
    LedgerLine,
    RequisitionCancellation,
    format_cents,
)
from coupons.ranges import Span
from coupons.selectors import issuable_series
from coupons.services._common import create, marketing_day_open, require_gates

__all__ = ["issuance_record", "requisition_cancel", "requisition_prepare"]

S = CouponState
K = LedgerLine.Kind


@transaction.atomic
@acts_as_user
def requisition_prepare(
    *,
    facility: Facility,
    program: CouponProgram,
    denomination_cents: int,
    quantity: int,
    needed_for: date,
    user: Any,
    password: str | None,
    prepared_on: date | None = None,
    promotion: str = "",
) -> CouponRequisition:
    require_capability(user, Capability.REQUISITION_COUPONS)
    prepared_on = prepared_on or today(facility)
    if quantity <= 0:
        raise ValidationError("Enter how many coupons are needed.")
    require_count(quantity, "the quantity requested", minimum=1)
    if needed_for < prepared_on:
        raise ValidationError("The date the coupons are needed is before the date the requisition is prepared.")
    # An estimate for a gaming day or a promotion (§ 525.21(g)): within the coming year.
    require_day_between(needed_for, prepared_on, prepared_on + years(1), "the date the coupons are needed")
    _require_issuable(facility, program, denomination_cents, needed_for)
    requisition = create(
        CouponRequisition, user, facility=facility, program=program, prepared_on=prepared_on, needed_for=needed_for,
        promotion=promotion, denomination_cents=denomination_cents, quantity=quantity,
    )
    record_sign(record=requisition, slot="requisitioned", user=user, password=password)
    return requisition


def _require_issuable(facility: Facility, program: CouponProgram, denomination_cents: int, needed_for: date) -> None:
    """A requisition finance can fill (§ 525.21(g)–(h)): the program has a series finance may issue now
    (approved, not expired, coupons in stock), of the denomination asked for, valid on the day they are needed.
    Otherwise it would be signed and authorized, then found to have nothing to issue from."""
    offered = issuable_series(facility, today(facility))
    of_program = [s for s in offered if s.program_id == program.pk]
    if not of_program:
        others = sorted({s.program.name for s in offered})
        raise ValidationError(
            f"No {program.name} series can be issued now: none is approved, unexpired and in finance stock "
            f"(§ 525.21(b), (i)). "
            + (f"Choose {' or '.join(others)}, or ask finance to receive {program.name} coupons first." if others
               else f"Ask finance to receive and record {program.name} coupons first.")
        )
    fitting = [s for s in of_program if s.denomination_cents == denomination_cents]
    if not fitting:
        held = ", ".join(format_cents(c) for c in sorted({s.denomination_cents for s in of_program}))
        raise ValidationError(
            f"No {format_cents(denomination_cents)} {program.name} coupons can be issued now; finance can issue "
            f"{held}. Choose one of those, or ask finance to receive {format_cents(denomination_cents)} coupons first."
        )
    if all(s.is_expired_on(needed_for) for s in fitting):
        latest = max(s.expires_on for s in fitting)
        raise ValidationError(
            f"The {format_cents(denomination_cents)} {program.name} coupons in stock expire on {day_words(latest)}, "
            f"before {day_words(needed_for)}, when they are needed. Choose a day up to {day_words(latest)}."
        )


def _require_cancellable(requisition: CouponRequisition, user: Any) -> None:
    """Not cancelled, not corrected, nothing issued against it, and the person may: the marketing supervisor who
    completed it, or a finance supervisor (who would authorize and issue it)."""
    if RequisitionCancellation.objects.filter(requisition=requisition).exists():
        raise ValidationError(f"Requisition #{requisition.pk} is already cancelled.")
    if requisition.is_superseded:
        newest = _newest_correction(requisition)
        raise ValidationError(f"Requisition #{requisition.pk} was corrected by requisition #{newest.pk}; cancel "
                              f"that one instead.")
    if _issued_so_far(requisition) or CouponIssuance.objects.filter(requisition=requisition).exists():
        raise ValidationError(
            f"Coupons were already issued against requisition #{requisition.pk}: it cannot be cancelled. Marketing "
            f"returns what it does not need (§ 525.21(k)–(l))."
        )
    prepared_by = next((sig.signer_id for sig in requisition.signature_list() if sig.slot == "requisitioned"),
                       requisition.created_by_id)
    if prepared_by != user.pk and not has_capability(user, Capability.ISSUE_COUPONS):
        raise PermissionDenied(
            f"Only the marketing supervisor who completed requisition #{requisition.pk} or a finance supervisor "
            f"can cancel it."
        )


@transaction.atomic
@acts_as_user
def requisition_cancel(*, requisition: CouponRequisition, reason: str, user: Any,
                       password: str | None) -> RequisitionCancellation:
    """Cancel a requisition nothing was issued against, with the reason, so it waits for no one (§ 525.21(g)).

    The requisition is never changed: the cancellation is a record of its own, linked to it and signed by the
    person cancelling, as a correction is in the ledger."""
    if not (has_capability(user, Capability.REQUISITION_COUPONS) or has_capability(user, Capability.ISSUE_COUPONS)):
        require_capability(user, Capability.REQUISITION_COUPONS)
    if not reason.strip():
        raise ValidationError("Say why the requisition is cancelled.")
    if not password:
        raise ValidationError("Enter your password: it signs the cancellation.")
    requisition = CouponRequisition.objects.select_for_update().get(pk=requisition.pk)
    _require_cancellable(requisition, user)
    cancellation = create(RequisitionCancellation, user, facility=requisition.facility, requisition=requisition,
                          cancelled_on=today(requisition.facility), reason=reason.strip())
    record_sign(record=cancellation, slot="cancelled", user=user, password=password)
    return cancellation


def _correction_chain(requisition: CouponRequisition) -> list[int]:
    """The ids of a requisition and of every requisition it corrects, directly or through others."""
    chain, current = [requisition.pk], requisition
    while current.corrects_id is not None:
        chain.append(current.corrects_id)
        current = CouponRequisition.objects.only("pk", "corrects_id").get(pk=current.corrects_id)
    return chain


def _newest_correction(requisition: CouponRequisition) -> CouponRequisition:
    current = requisition
    while current.is_superseded:
        current = CouponRequisition.objects.get(corrects=current)
    return current


def _issued_so_far(requisition: CouponRequisition) -> int:
    """Coupons issued against the requisition and against the versions it corrects: a correction
    restates the need (e.g. 120 instead of 100), it does not add to what was already handed over."""
    return sum(CouponIssuance.objects.filter(requisition_id__in=_correction_chain(requisition))
               .values_list("quantity", flat=True))


def _require_examined_receipts(series: CouponSeries, spans: Sequence[Span]) -> None:
    ids = set(LedgerLine.objects.filter(overlapping(spans), series=series, kind=K.RECEIVE)
              .values_list("document_id", flat=True))
    receipts = CouponReceipt.objects.filter(pk__in=ids).prefetch_related("signatures")
    for receipt in receipts:
        if receipt.missing_signatures:
            who = ", ".join(r.label.lower() for r in receipt.missing_signatures)
            raise ValidationError(
                f"Receipt #{receipt.pk} of these coupons is not complete: it still needs the signature of the {who} "
                f"(§ 525.21(e)–(f))."
            )


def _locked_authorized(requisition: CouponRequisition) -> CouponRequisition:
    """The requisition, locked: the one in force (not corrected) and authorized, § 525.21(g)."""
    requisition = CouponRequisition.objects.select_for_update().get(pk=requisition.pk)
    cancellation = RequisitionCancellation.objects.filter(requisition=requisition).first()
    if cancellation is not None:
        raise ValidationError(
            f"Requisition #{requisition.pk} was cancelled on {day_words(cancellation.cancelled_on)} "
            f"({cancellation.reason}); nothing is issued against it. Ask marketing for a new requisition."
        )
    if requisition.is_superseded:
        newest = _newest_correction(requisition)
        raise ValidationError(
            f"Requisition #{requisition.pk} was corrected by requisition #{newest.pk}; issue against the "
            f"correction (§ 525.21(g))."
        )
    if requisition.missing_signatures:
        raise ValidationError(
            f"Requisition #{requisition.pk} is not authorized yet: it needs the signature of the "
            f"{', '.join(r.label.lower() for r in requisition.missing_signatures)} (§ 525.21(g))."
        )
    return requisition


def _require_series_fits(requisition: CouponRequisition, series: CouponSeries, gaming_date: date) -> None:
    """The series is the facility's, of the denomination and program asked for, approved, and valid
    until the coupons are needed."""
    if series.facility_id != requisition.facility_id:
        raise ValidationError("That series belongs to another facility.")
    if series.denomination_cents != requisition.denomination_cents or series.program_id != requisition.program_id:
        raise ValidationError(
            f"Requisition #{requisition.pk} asks for {format_cents(requisition.denomination_cents)} "
            f"{requisition.program.name}s; {series.name} is {series.denomination}."
        )
    require_gates(series, gaming_date)
    if series.is_expired_on(max(gaming_date, requisition.needed_for)):
        raise ValidationError(
            f"{series.name} expires on {day_words(series.expires_on)}, before the coupons are needed "
            f"({day_words(requisition.needed_for)}); it cannot be issued."
            if not series.is_expired_on(gaming_date)
            else f"{series.name} expired on {day_words(series.expires_on)}; it cannot be issued."
        )


def _issue_and_void_spans(requisition: CouponRequisition, issued: Sequence[Span],
                          voids: Sequence[tuple[Sequence[Span], str]]) -> tuple[list[Span], list[tuple[list[Span], str]]]:
    """The serials issued and voided, merged and checked against the requisition, § 525.21(h)(4)."""
    issued = spans_.merge(issued)
    if not issued and not voids:
        raise ValidationError("Enter the serials issued (or voided).")
    quantity = spans_.count(issued)
    outstanding = requisition.quantity - _issued_so_far(requisition)
    if quantity > outstanding:
        raise ValidationError(
            f"Requisition #{requisition.pk} leaves {how_many(outstanding)} to issue; you entered {quantity:,}."
        )
    void_spans = [(spans_.merge(s), reason.strip()) for s, reason in voids]
    if any(not reason for _, reason in void_spans):
        raise ValidationError("Explain why the coupons were voided (§ 525.21(h)(4)).")
    every = [*issued, *(sp for s, _ in void_spans for sp in s)]
    if spans_.count(spans_.merge(every)) != spans_.count(every):
        raise ValidationError("A serial is both issued and voided; list it once.")
    return issued, void_spans


@transaction.atomic
@acts_as_user
def issuance_record(
    *,
    requisition: CouponRequisition,
    series: CouponSeries,
    issued: Sequence[Span],
    user: Any,
    password: str | None,
    gaming_date: date | None = None,
    voids: Sequence[tuple[Sequence[Span], str]] = (),
    receiver: CoSigner | None = None,
) -> CouponIssuance:
    """Record the coupons issued to marketing before handing them over, § 525.21(h).

    The issuance is dated the gaming day of the hand-over (default: today), never the requisition's
    "needed for" date: from the hand-over marketing holds the coupons, so they are on that day's form
    (received) and, if kept, carried into the next. The requisition keeps its date, § 525.21(g)(2).
    """
    require_capability(user, Capability.ISSUE_COUPONS)
    if not password:
        # (h): recorded and signed "before the coupons are issued": no coupon reaches marketing unsigned.
        raise ValidationError(
            "The finance supervisor issuing the coupons signs the issuance as it is recorded, before the hand-over "
            "(§ 525.21(h)(3)): enter your password."
        )
    facility = requisition.facility
    gaming_date = gaming_date or today(facility)
    not_in_future(facility, gaming_date, "Coupons are issued to marketing when they are handed over, not")
    requisition = _locked_authorized(requisition)
    _require_series_fits(requisition, series, gaming_date)
    marketing_day_open(facility, gaming_date)
    issued, void_spans = _issue_and_void_spans(requisition, issued, voids)
    _require_examined_receipts(series, [*issued, *(sp for s, _ in void_spans for sp in s)])
    issuance = create(
        CouponIssuance, user, facility=facility, requisition=requisition, series=series, gaming_date=gaming_date,
        quantity=spans_.count(issued), voided_quantity=sum(spans_.count(s) for s, _ in void_spans),
    )
    if issued:
        move(document=issuance, series=series, spans=issued, kind=K.ISSUE, from_states=[S.IN_STOCK],
             to_state=S.ISSUED, step="only coupons in finance stock can be issued")
    for void, reason in void_spans:
        move(document=issuance, series=series, spans=void, kind=K.VOID, from_states=[S.IN_STOCK],
             to_state=S.VOIDED, reason=reason, step="only coupons in finance stock can be voided at issuance")
    record_sign(record=issuance, slot="issued", user=user, password=password)
    record_cosign(record=issuance, slot="received", co_signer=receiver)
    return issuance
