"""Marketing's gaming day, § 525.21(d), (j)–(l): coupons given to patrons, voided, returned to finance,
and the daily reconciliation form that closes the day."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from compliance.actors import acts_as_user
from compliance.bounds import require_day_between, years
from compliance.locks import lock_facility
from compliance.models import Facility, regulated_bulk_create
from compliance.roles import Capability, has_capability, require_capability
from compliance.services import CoSigner, record_cosign, record_sign
from coupons import ranges as spans_
from coupons.days import day_words, not_in_future, today
from coupons.ledger import by_series, lock_open_rows, move, move_rows, overlapping
from coupons.models import (
    CouponDistribution,
    CouponIssuance,
    CouponRange,
    CouponReturn,
    CouponSeries,
    CouponState,
    CouponVoid,
    LedgerLine,
    ReconciliationFigure,
    ReconciliationForm,
    StorageLocation,
)
from coupons.ranges import Span
from coupons.selectors import (
    DayFigure,
    day_figures,
    expired_held,
    expiring_held,
    first_day_owing_a_form,
    held_at_end_of,
)
from coupons.services._common import (
    create,
    marketing_day_open,
    require_day_open,
    require_facility,
    require_gates,
    require_location,
)
from coupons.variances import count_variations, uncounted

__all__ = ["coupons_void", "distribution_record", "reconciliation_complete", "return_record"]

S = CouponState
K = LedgerLine.Kind


def _require_received_by_marketing(series: CouponSeries, spans: Sequence[Span]) -> None:
    """Marketing gives out only coupons whose hand-over it signed ("received" on the issuance)."""
    if not spans:
        return
    ids = set(
        CouponRange.objects.filter(overlapping(spans), series=series, closed_by__isnull=True, state=S.ISSUED,
                                   since__kind=K.ISSUE).values_list("since__document_id", flat=True)
    )
    for issuance in CouponIssuance.objects.filter(pk__in=ids).prefetch_related("signatures").order_by("pk"):
        if any(r.slot == "received" for r in issuance.missing_signatures):
            raise ValidationError(
                f"Issuance #{issuance.pk} of these coupons has not been signed as received by a marketing "
                f"supervisor: the coupons can be given to patrons once the hand-over is signed (§ 525.21(h))."
            )


@transaction.atomic
@acts_as_user
def distribution_record(
    *, facility: Facility, series: CouponSeries, spans: Sequence[Span], user: Any, gaming_date: date | None = None
) -> CouponDistribution:
    """Coupons handed to patrons, by range or one scan (a range of one)."""
    require_capability(user, Capability.DISTRIBUTE_COUPONS)
    require_facility(series, facility)
    gaming_date = gaming_date or today(facility)
    not_in_future(facility, gaming_date, "Coupons are recorded as distributed when they are handed to patrons, not")
    require_gates(series, gaming_date)
    if series.is_expired_on(gaming_date):
        raise ValidationError(
            f"{series.name} expired on {day_words(series.expires_on)}: it cannot be given to patrons and must be "
            f"returned to finance today (§ 525.21(k))."
        )
    marketing_day_open(facility, gaming_date)
    spans = spans_.merge(spans)
    _require_received_by_marketing(series, spans)
    distribution = create(CouponDistribution, user, facility=facility, series=series, gaming_date=gaming_date,
                          quantity=spans_.count(spans))
    move(document=distribution, series=series, spans=spans, kind=K.DISTRIBUTE, from_states=[S.ISSUED],
         to_state=S.DISTRIBUTED, step="only coupons issued to marketing can be distributed")
    return distribution


def _require_custodian_may_void(series: CouponSeries, spans: Sequence[Span], rows: Sequence[CouponRange], *,
                                can_finance: bool, can_marketing: bool) -> bool:
    """Who may void depends on who holds the coupons; answers whether marketing holds any of them."""
    def inside(state: str) -> list[Span]:
        return spans_.merge([piece for r in rows if r.state == state
                             for piece in spans_.clip(spans, r.first_serial, r.last_serial)])

    in_stock, held = inside(S.IN_STOCK), inside(S.ISSUED)
    if in_stock and not can_finance:
        raise ValidationError(
            f"Serials {spans_.describe(series, in_stock)} of {series.name} are in finance stock: coupons not issued "
            f"are controlled by a finance department supervisor (§ 525.21(i)), who voids them."
        )
    if held and not can_marketing:
        raise ValidationError(
            f"Serials {spans_.describe(series, held)} of {series.name} are held by marketing: a marketing "
            f"supervisor voids them on the reconciliation form's day (§ 525.21(j)(6))."
        )
    return bool(held)


@transaction.atomic
@acts_as_user
def coupons_void(
    *,
    facility: Facility,
    series: CouponSeries,
    spans: Sequence[Span],
    reason: str,
    user: Any,
    password: str | None,
    gaming_date: date | None = None,
) -> CouponVoid:
    """Void coupons held by marketing (or in finance stock), with the reason, § 525.21(j)(6).

    Who may void depends on who holds the coupons, checked before anything is written: coupons in
    finance stock are controlled by a finance supervisor (§ 525.21(i)); coupons marketing holds, by a
    marketing supervisor, while the marketing day is open (§ 525.21(j)(6)).
    """
    can_finance = has_capability(user, Capability.ISSUE_COUPONS)
    can_marketing = has_capability(user, Capability.RECONCILE_MARKETING_DAY)
    if not (can_finance or can_marketing):
        require_capability(user, Capability.ISSUE_COUPONS)
    if not reason.strip():
        raise ValidationError("Explain why the coupons are voided (§ 525.21(j)(6)).")
    require_facility(series, facility)
    gaming_date = gaming_date or today(facility)
    not_in_future(facility, gaming_date, "Coupons are voided on the gaming day they are voided, not")
    spans = spans_.merge(spans)
    lock_facility(facility)
    rows = list(CouponRange.objects.select_for_update(of=("self",)).filter(
        overlapping(spans), series=series, closed_by__isnull=True, state__in=[S.IN_STOCK, S.ISSUED]))
    held = _require_custodian_may_void(series, spans, rows, can_finance=can_finance, can_marketing=can_marketing)
    require_day_open(facility, gaming_date, marketing=held)
    void = create(CouponVoid, user, facility=facility, series=series, gaming_date=gaming_date,
                  quantity=spans_.count(spans_.merge(spans)), reason=reason.strip())
    move(document=void, series=series, spans=spans, kind=K.VOID, from_states=[S.ISSUED, S.IN_STOCK],
         to_state=S.VOIDED, reason=reason.strip(),
         step="only coupons in finance stock or held by marketing can be voided")
    record_sign(record=void, slot="voided", user=user, password=password)
    return void


def _return_moves(document: CouponReturn, facility: Facility, *, gaming_date: date, expired_only: bool,
                  spans: dict[CouponSeries, Sequence[Span]] | None) -> int:
    """Move what goes back to finance; the number of coupons moved."""
    moved = 0
    if spans is None:
        # What marketing held at the end of the gaming day (nothing handed over on a later day).
        filters: dict[str, Any] = {"opened_by__gaming_date__lte": gaming_date}
        if expired_only:
            filters["series__expires_on__lt"] = gaming_date
        for series, rows in by_series(lock_open_rows(facility, [S.ISSUED], **filters)).items():
            lines = move_rows(document=document, series=series, rows=rows, spans=None, kind=K.RETURN,
                              to_state=S.RETURNED)
            moved += sum(line.quantity for line in lines)
        return moved
    for series, wanted in spans.items():
        require_facility(series, facility)
        lines = move(document=document, series=series, spans=wanted, kind=K.RETURN, from_states=[S.ISSUED],
                     to_state=S.RETURNED, step="only coupons held by marketing can be returned")
        moved += sum(line.quantity for line in lines)
    return moved


@transaction.atomic
@acts_as_user
def return_record(
    *,
    facility: Facility,
    user: Any,
    password: str | None,
    gaming_date: date | None = None,
    returned_on: date | None = None,
    expired_only: bool = False,
    spans: dict[CouponSeries, Sequence[Span]] | None = None,
    reconciliation: ReconciliationForm | None = None,
    receiver: CoSigner | None = None,
) -> CouponReturn:
    """Coupons marketing holds go back to finance, § 525.21(k)–(l): all, only the expired, or given ranges.

    ``user`` is the marketing supervisor returning them (signs "returned"); the receiving finance
    supervisor signs "received" inline (``receiver``) or on the signing page.
    """
    require_capability(user, Capability.RETURN_COUPONS)
    gaming_date = gaming_date or today(facility)
    returned_on = returned_on or today(facility)
    not_in_future(facility, gaming_date, "Coupons are returned on the gaming day they go back to finance, not")
    not_in_future(facility, returned_on, "Coupons are returned on the day they go back to finance, not")
    require_day_between(gaming_date, today(facility) - years(1), today(facility), "the gaming day of the return")
    require_day_between(returned_on, gaming_date, today(facility), "the date returned")
    if reconciliation is None:
        # The form's own return is part of closing the day; any other return needs the day open.
        marketing_day_open(facility, gaming_date)
    document = create(CouponReturn, user, facility=facility, gaming_date=gaming_date, returned_on=returned_on,
                      quantity=0, expired_only=expired_only, reconciliation=reconciliation)
    moved = _return_moves(document, facility, gaming_date=gaming_date, expired_only=expired_only, spans=spans)
    if moved == 0:
        raise ValidationError("Marketing holds no coupons to return." if not expired_only
                              else "Marketing holds no expired coupons.")
    document.quantity = moved
    document.save(update_fields=["quantity"])
    record_sign(record=document, slot="returned", user=user, password=password)
    record_cosign(record=document, slot="received", co_signer=receiver)
    return document


def _require_day_closable(facility: Facility, gaming_date: date) -> None:
    """Expired coupons went back (§ 525.21(k)) and every hand-over of the day was signed as received."""
    expired = expired_held(facility, gaming_date)
    if expired:
        raise ValidationError(
            "Expired coupons must be returned to finance every day before the day is closed (§ 525.21(k)): "
            + "; ".join(f"{r.series.span(r.first_serial, r.last_serial)} ({r.series.name}, expired "
                        f"{day_words(r.series.expires_on)})" for r in expired)
        )
    unreceived = [
        i for i in CouponIssuance.objects.filter(facility=facility, gaming_date=gaming_date).prefetch_related(
            "signatures") if i.requirement("received") and any(r.slot == "received" for r in i.missing_signatures)
    ]
    if unreceived:
        raise ValidationError(
            f"Issuance #{unreceived[0].pk} has not been signed as received by a marketing supervisor; sign it first "
            f"so the form shows what marketing received."
        )


def _require_nothing_expiring_kept(facility: Facility, gaming_date: date, disposition: str) -> None:
    """§ 525.21(k) lets marketing keep undistributed coupons "for use during the next gaming day", and says "All
    expired coupons must be returned to the finance department on a daily basis". Our reading: a coupon whose
    series expires on this gaming day cannot be used during the next one, so it is not among those marketing may
    keep; it goes back to finance with this day's close, never carried into a day on which it is expired (and on
    which the closed day's return could no longer be recorded)."""
    if disposition != ReconciliationForm.Disposition.KEEP:
        return  # the form's own return takes every coupon left back to finance
    expiring = expiring_held(facility, gaming_date)
    if not expiring:
        return
    serials = "; ".join(f"{r.series.span(r.first_serial, r.last_serial)} ({r.series.name})" for r in expiring)
    raise ValidationError(
        f"Marketing holds coupons that expire at the end of {day_words(gaming_date)}: {serials}. They cannot be kept "
        f"for the next gaming day, when they are expired (§ 525.21(k)). Return serials {serials} to finance first, "
        f"or choose “{ReconciliationForm.Disposition.RETURN.label}” on this form."
    )


def _require_count(figures: Sequence[DayFigure], counted_remaining: dict[int, int], explanation: str) -> None:
    """Every denomination held is counted, no count is negative, and a variation is explained, (j)(5), (7)."""
    missing = uncounted(figures, counted_remaining)
    if missing:
        raise ValidationError(
            f"Count the coupons remaining ({', '.join(missing)}) and enter what you counted; the form records the "
            f"physical count against the ledger (§ 525.21(j)(5))."
        )
    if any(counted_remaining.get(f.denomination_cents, 0) < 0 for f in figures):
        raise ValidationError("A count cannot be negative.")
    variations = count_variations(figures, counted_remaining)
    if variations and not explanation.strip():
        raise ValidationError(
            "The count differs from the ledger (" + "; ".join(variations) + "). Explain the variation before "
            "signing (§ 525.21(j)(7))."
        )


def _kept_in(facility: Facility, gaming_date: date, figures: Sequence[DayFigure], disposition: str,
             kept_in: StorageLocation | None) -> StorageLocation | None:
    """Where the coupons left go (§ 525.21(k)): back with the form, if none moved since; else a locked
    marketing area."""
    remaining = sum(f.remaining for f in figures)
    if disposition == ReconciliationForm.Disposition.RETURN and remaining:
        held = held_at_end_of(facility, gaming_date, still_held=True)
        moved_since = [f.denomination for f in figures if held.get(f.denomination_cents, 0) != f.remaining]
        if moved_since:
            raise ValidationError(
                f"Some {', '.join(moved_since)} coupons left at the end of {day_words(gaming_date)} were moved on a "
                f"later gaming day, so they cannot all go back with this form; keep them for the next day instead."
            )
    if disposition == ReconciliationForm.Disposition.KEEP and remaining:
        return require_location(kept_in, StorageLocation.Department.MARKETING, "§ 525.21(k)")
    return None


def _form_create(*, facility: Facility, gaming_date: date, user: Any, figures: Sequence[DayFigure],
                 counted_remaining: dict[int, int], **fields: Any) -> ReconciliationForm:
    """The form with its frozen figures; a second supervisor completing the same day is refused in words."""
    position = LedgerLine.objects.filter(facility=facility).order_by("-pk").values_list("pk", flat=True).first() or 0
    try:
        with transaction.atomic():
            form = create(ReconciliationForm, user, facility=facility, gaming_date=gaming_date,
                          ledger_position=position, **fields)
    except IntegrityError:
        raise ValidationError(
            f"Another supervisor completed the reconciliation form for {day_words(gaming_date)} just now; that "
            f"marketing day is closed. Reload the page to see their form."
        ) from None
    regulated_bulk_create(ReconciliationFigure, [
        ReconciliationFigure(
            form=form, denomination_cents=f.denomination_cents, carried_in=f.carried_in, received=f.received,
            distributed=f.distributed, voided=f.voided, returned=f.returned, remaining_expected=f.remaining,
            remaining_counted=counted_remaining.get(f.denomination_cents, 0),
        )
        for f in figures
    ])
    return form


@transaction.atomic
@acts_as_user
def reconciliation_complete(
    *,
    facility: Facility,
    gaming_date: date,
    counted_remaining: dict[int, int],
    user: Any,
    password: str,
    variation_explanation: str = "",
    disposition: str = ReconciliationForm.Disposition.RETURN,
    kept_in: StorageLocation | None = None,
    receiver: CoSigner | None = None,
) -> ReconciliationForm:
    """Complete and sign the day's reconciliation form, closing the marketing day, § 525.21(j)–(k).

    ``counted_remaining``: coupons physically left, by denomination in cents. A difference from the
    ledger is a variation that must be explained. Undistributed coupons then go back to finance
    (a return is recorded and signed "returned") or stay in an approved locked marketing area and
    are carried onto the next day's form.
    """
    require_capability(user, Capability.RECONCILE_MARKETING_DAY)
    marketing_day_open(facility, gaming_date)
    owed = first_day_owing_a_form(facility, gaming_date)
    if owed is not None:
        raise ValidationError(
            f"Marketing held coupons on {day_words(owed)} and its reconciliation form is not completed: forms are "
            f"completed in day order (§ 525.21(j), (k)). Complete the form for {day_words(owed)} first."
        )
    _require_day_closable(facility, gaming_date)
    _require_nothing_expiring_kept(facility, gaming_date, disposition)
    figures = day_figures(facility, gaming_date)
    _require_count(figures, counted_remaining, variation_explanation)
    kept_in = _kept_in(facility, gaming_date, figures, disposition, kept_in)
    form = _form_create(facility=facility, gaming_date=gaming_date, user=user, figures=figures,
                        counted_remaining=counted_remaining, variation_explanation=variation_explanation.strip(),
                        disposition=disposition, kept_in=kept_in)
    record_sign(record=form, slot="completed", user=user, password=password)
    remaining = sum(f.remaining for f in figures)
    if disposition == ReconciliationForm.Disposition.RETURN and remaining != 0:
        return_record(facility=facility, user=user, password=password, gaming_date=gaming_date,
                      reconciliation=form, receiver=receiver)
    return form
