"""Undoing a movement keyed by mistake, § 525.21(j)(6)–(7): a reversing entry while the day is open, a
correction linked to the signed form (approved by finance) once it is closed. The original is never
changed; the ledger shows both."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from compliance.actors import acts_as_system, acts_as_user
from compliance.models import Facility
from compliance.roles import Capability, require_capability
from compliance.services import record_sign
from coupons.days import day_words, today
from coupons.ledger import document_type, move
from coupons.models import (
    CouponDistribution,
    CouponReturn,
    CouponReversal,
    CouponState,
    CouponVoid,
    FormCorrection,
    LedgerLine,
    ReconciliationForm,
)
from coupons.services._common import create, require_day_open
from coupons.services.redemption_posting import pending_redemptions_post

__all__ = ["form_correction_apply", "form_correction_request", "form_correction_signed", "movement_reverse"]

S = CouponState
K = LedgerLine.Kind
# Marketing's own movements of coupons it held: what it can take back.
UNDOABLE = (CouponDistribution, CouponVoid, CouponReturn)


def _undoable_lines(facility: Facility, document: Any) -> list[LedgerLine]:
    if not isinstance(document, UNDOABLE) or document.facility_id != facility.pk:
        raise ValidationError("Only marketing's own movements of this facility (a distribution, a void of coupons it "
                              "held, a return) can be reversed or corrected.")
    if isinstance(document, CouponReturn) and document.reconciliation_id is not None:
        raise ValidationError(f"{document} went back with the reconciliation form: it is part of closing the day "
                              f"and is not reversed on its own.")
    lines = [line for line in document.ledger_lines() if line.from_state == S.ISSUED
             and line.kind in (K.DISTRIBUTE, K.VOID, K.RETURN)]
    if not lines:
        raise ValidationError(f"{document} moved no coupons marketing held; there is nothing to take back.")
    return lines


def _undo(document: Any, lines: list[LedgerLine], *, by: Any, kind: str, reason: str, on: Any = None) -> int:
    """Move each line's serials back from where it put them to marketing, refusing in words if they
    moved on since (a distributed coupon already redeemed: its redemption is posted into the ledger first,
    under the facility's exclusive lock the caller holds, so the ranges say so)."""
    pending_redemptions_post(by.facility)
    moved = 0
    for line in lines:
        assert line.first_serial is not None and line.last_serial is not None
        state_words = str(S(line.to_state).label).lower()
        back = move(document=by, series=line.series, spans=[(line.first_serial, line.last_serial)], kind=kind,
                    from_states=[line.to_state], to_state=S.ISSUED, reason=reason, on=on,
                    step=f"only coupons still {state_words} by {document} can be taken back")
        moved += sum(x.quantity for x in back)
    return moved


@transaction.atomic
@acts_as_user
def movement_reverse(*, facility: Facility, document: Any, reason: str, user: Any, password: str | None
                     ) -> CouponReversal:
    """Reverse a movement of a day whose form is not signed yet: reversing lines dated the same gaming day,
    signed by the marketing supervisor with the reason; the original stays in the ledger."""
    require_capability(user, Capability.RECONCILE_MARKETING_DAY)
    if not reason.strip():
        raise ValidationError("Say why the entry is reversed (§ 525.21(j)(7)).")
    lines = _undoable_lines(facility, document)
    require_day_open(facility, document.gaming_date, marketing=True)
    if CouponReversal.objects.filter(undoes_type=document_type(document), undoes_id=document.pk).exists():
        raise ValidationError(f"{document} was already reversed.")
    reversal = create(CouponReversal, user, facility=facility, gaming_date=document.gaming_date,
                      undoes_type=document_type(document), undoes_id=document.pk, reason=reason.strip())
    reversal.quantity = _undo(document, lines, by=reversal, kind=K.REVERSE, reason=reason.strip())
    reversal.save(update_fields=["quantity"])
    record_sign(record=reversal, slot="reversed", user=user, password=password)
    return reversal


@transaction.atomic
@acts_as_user
def form_correction_request(*, facility: Facility, document: Any, reason: str, user: Any, password: str | None
                            ) -> FormCorrection:
    """A correction of a movement on a day whose reconciliation form is signed, linked to that form; the
    coupons move once a finance supervisor approves it (:func:`form_correction_apply`)."""
    require_capability(user, Capability.RECONCILE_MARKETING_DAY)
    if not reason.strip():
        raise ValidationError("Say what was recorded by mistake and why it is corrected (§ 525.21(j)(7)).")
    lines = _undoable_lines(facility, document)
    form = ReconciliationForm.objects.filter(facility=facility, gaming_date=document.gaming_date).first()
    if form is None:
        raise ValidationError(f"The reconciliation form for {day_words(document.gaming_date)} is not signed: reverse "
                              f"the entry instead, before the form is completed.")
    if FormCorrection.objects.filter(undoes_type=document_type(document), undoes_id=document.pk).exists():
        raise ValidationError(f"A correction of {document} was already requested.")
    correction = create(FormCorrection, user, facility=facility, gaming_date=today(facility), form=form,
                        undoes_type=document_type(document), undoes_id=document.pk, reason=reason.strip(),
                        quantity=sum(line.quantity for line in lines))
    record_sign(record=correction, slot="requested", user=user, password=password)
    return correction


def form_correction_signed(sender: Any, record: FormCorrection, signature: Any, **kwargs: Any) -> None:
    """Connected to ``compliance.services.record_signed``: the approval applies the correction."""
    if record.is_complete:
        form_correction_apply(correction=record)


@acts_as_system
def form_correction_apply(*, correction: FormCorrection) -> int:
    """Bring the coupons back into marketing's hands on the gaming day the correction is approved (that
    day must be open); they count as received on that day's form. Harmless twice."""
    if correction.applied_on is not None:
        return 0
    facility = correction.facility
    on = today(facility)
    require_day_open(facility, on, marketing=True)
    moved = _undo(correction.undoes, _undoable_lines(facility, correction.undoes), by=correction, kind=K.CORRECT,
                  reason=f"{correction.reason} (correction of the form for {day_words(correction.form.gaming_date)})",
                  on=on)
    correction.applied_on = on
    correction.save_unsigned_fields("applied_on")
    return moved
