"""Undoing a movement keyed by mistake, § 525.21(j)(6)–(7): the original always stays visible.

* Before the day's reconciliation form is signed, a marketing supervisor reverses the movement with a
  reason: a :class:`CouponReversal`, whose reversing ledger lines are dated the same gaming day, so the
  day's figures net the mistake out.
* After the form is signed that day is closed: only a :class:`FormCorrection` linked to the form,
  requested by a marketing supervisor and approved by a finance supervisor; its lines are dated the
  gaming day it is approved, and the coupons it brings back count as received into marketing's hands
  that day.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.urls import reverse

from compliance.bounds import COUNT, ROW_ID
from compliance.models import Meaning, RegulatedRecord
from coupons.models._common import finance_supervisor_slot, marketing_supervisor_slot
from coupons.models.day import ReconciliationForm
from coupons.models.documents import CouponDocument

__all__ = ["CouponReversal", "FormCorrection"]


class _Undoes(CouponDocument):
    """A document that undoes another coupon movement document (``undoes``), with the reason."""

    undoes_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    undoes_id = models.PositiveBigIntegerField(validators=ROW_ID.validators)
    reason = models.TextField()
    quantity = models.PositiveIntegerField(default=0, validators=COUNT.validators)

    class Meta:
        abstract = True

    @property
    def undoes(self) -> Any:
        model = self.undoes_type.model_class()
        return model._default_manager.filter(pk=self.undoes_id).first() if model else None

    def get_absolute_url(self) -> str:
        return reverse("coupons:ledger") + f"?kind=&serial=&page=1#doc-{self.pk}"


class CouponReversal(_Undoes):
    """A marketing supervisor reverses a movement of an open day, with the reason, § 525.21(j)(6)–(7)."""

    citation = "525.21(j)"
    kind_label = "Reversal"
    signature_requirements = (
        marketing_supervisor_slot("reversed", Meaning.CORRECTED, "Marketing supervisor reversing the entry",
                                  "525.21(j)(7)"),
    )

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["undoes_type", "undoes_id"], name="coupon_reversal_once"),
            models.CheckConstraint(condition=~models.Q(reason=""), name="coupon_reversal_reason"),
            *ROW_ID.checks("undoes_id"),
            *COUNT.checks("quantity"),
        ]


class FormCorrection(_Undoes):
    """A correction of a movement on a day whose reconciliation form is signed, linked to that form:
    requested by a marketing supervisor, applied once a finance supervisor approves it."""

    citation = "525.21(j)"
    kind_label = "Correction"
    signature_requirements = (
        marketing_supervisor_slot("requested", Meaning.CORRECTED, "Marketing supervisor requesting the correction",
                                  "525.21(j)(7)"),
        finance_supervisor_slot("approved", Meaning.APPROVED, "Finance supervisor approving the correction",
                                "525.21(m)(1)"),
    )

    form = models.ForeignKey(ReconciliationForm, on_delete=models.PROTECT, related_name="corrections")
    applied_on = models.DateField(null=True, blank=True, help_text="The gaming day the correction moved the coupons")

    # What both people sign is the request (what is undone, why, against which form); the ledger lines
    # follow from the approval, so they and the day they were written are not part of the signed content.
    unsigned_fields: ClassVar[frozenset[str]] = frozenset({"applied_on"})

    def signable_content(self) -> dict[str, Any]:
        return RegulatedRecord.signable_content(self)

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["undoes_type", "undoes_id"], name="coupon_form_correction_once"),
            models.CheckConstraint(condition=~models.Q(reason=""), name="coupon_form_correction_reason"),
            *ROW_ID.checks("undoes_id"),
            *COUNT.checks("quantity"),
        ]
