"""The documents of a gaming day's close, § 525.21(j)–(m): marketing's reconciliation form and its
figures, returns, expiries, redemptions and finance's daily processing."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.urls import reverse

from compliance.bounds import COUNT, COUNT_FROM_ONE, DENOMINATION, ROW_POSITION, TOTAL
from compliance.models import (
    AuditedModel,
    Meaning,
    SignatureRequirement,
    SignedPart,
)
from compliance.roles import Role
from coupons.models._common import finance_supervisor_slot, format_cents, marketing_supervisor_slot
from coupons.models.documents import CouponDocument, rows_by_record
from coupons.models.program import CouponSeries, StorageLocation


class ReconciliationForm(CouponDocument):
    """Marketing's daily Match Play Coupon Reconciliation Form, § 525.21(j); closes the marketing day."""

    citation = "525.21(j)"
    kind_label = "Reconciliation form"
    url_name = "coupons:reconciliation-detail"
    signature_requirements = (
        marketing_supervisor_slot("completed", Meaning.COMPLETED, "Marketing supervisor completing the form",
                              "525.21(j)(8)"),
    )

    class Disposition(models.TextChoices):
        RETURN = "return", "Return undistributed coupons to finance"
        KEEP = "keep", "Keep them for the next gaming day in an approved locked area"

    variation_explanation = models.TextField(blank=True, help_text="(j)(7)")
    disposition = models.CharField(max_length=10, choices=Disposition.choices, default=Disposition.RETURN)
    kept_in = models.ForeignKey(StorageLocation, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    # The last ledger line when the form was completed: "remaining" ranges are read as of this point.
    ledger_position = models.BigIntegerField(default=0, validators=ROW_POSITION.validators)

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["facility", "gaming_date"], condition=models.Q(corrects__isnull=True),
                name="coupon_one_reconciliation_per_day",
            ),
            *ROW_POSITION.checks("ledger_position"),
        ]

    def signable_content(self) -> dict[str, Any]:
        content = super().signable_content()
        content["figures"] = self.content_part("figures")
        return content

    @classmethod
    def content_parts(cls) -> dict[str, Any]:
        return super().content_parts() | {"figures": lambda ids: rows_by_record(
            ReconciliationFigure.objects.filter(form_id__in=ids).order_by("denomination_cents").values_list(
                "form_id", "denomination_cents", "carried_in", "received", "distributed", "voided", "returned",
                "remaining_expected", "remaining_counted"))}


class ReconciliationFigure(AuditedModel):
    """One denomination's line of the reconciliation form, frozen when the form is completed."""

    facility_through = "form"
    signed_part_of = SignedPart("form")

    form = models.ForeignKey(ReconciliationForm, on_delete=models.PROTECT, related_name="figures")
    denomination_cents = models.PositiveIntegerField(validators=DENOMINATION.validators)
    carried_in = models.PositiveIntegerField(default=0, help_text="Kept from the previous day, (k)",
                                             validators=COUNT.validators)
    received = models.PositiveIntegerField(default=0, help_text="Received from finance today, (j)(2)",
                                           validators=COUNT.validators)
    distributed = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    voided = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    returned = models.PositiveIntegerField(default=0, help_text="Returned to finance before the form was completed",
                                           validators=COUNT.validators)
    remaining_expected = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    remaining_counted = models.PositiveIntegerField(default=0, validators=COUNT.validators)

    class Meta:
        ordering = ["denomination_cents"]
        constraints = [
            *DENOMINATION.checks("denomination_cents"),
            *COUNT.checks("carried_in", "received", "distributed", "voided", "returned", "remaining_expected",
                          "remaining_counted"),
        ]

    @property
    def to_distribute(self) -> int:
        return self.carried_in + self.received

    @property
    def variance(self) -> int:
        return self.remaining_counted - self.remaining_expected


class CouponReturn(CouponDocument):
    """Unused and expired coupons returned to finance, § 525.21(k)–(l)."""

    citation = "525.21(l)"
    kind_label = "Return"
    url_name = "coupons:return-detail"
    signature_requirements = (
        marketing_supervisor_slot("returned", Meaning.RETURNED, "Marketing supervisor returning the coupons",
                              "525.21(l)(5)"),
        finance_supervisor_slot("received", Meaning.RECEIVED, "Finance supervisor receiving the coupons", "525.21(l)(5)"),
    )
    returned_on = models.DateField(help_text="(l)(1)")
    quantity = models.PositiveIntegerField(validators=COUNT.validators)  # 0 until the coupons are moved
    expired_only = models.BooleanField(default=False, help_text="A daily return of expired coupons, (k)")
    reconciliation = models.ForeignKey(
        ReconciliationForm, on_delete=models.PROTECT, null=True, blank=True, related_name="returns",
        help_text="The form whose copy goes back with the coupons, (k)",
    )

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = COUNT.checks("quantity")


class CouponExpiry(CouponDocument):
    """Expired coupons in finance custody taken out of circulation."""

    citation = "525.21(k)"
    kind_label = "Expiry"
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    quantity = models.PositiveIntegerField(validators=COUNT_FROM_ONE.validators)

    class Meta:
        constraints = COUNT_FROM_ONE.checks("quantity")

    def get_absolute_url(self) -> str:
        return reverse("coupons:series-detail", args=[self.series_id])


class FinanceDayProcessing(CouponDocument):
    """Finance's daily count, review, cancellation and reconciliation, § 525.21(m)."""

    citation = "525.21(m)"
    kind_label = "Finance daily processing"
    url_name = "coupons:processing-detail"
    signature_requirements = (
        SignatureRequirement(
            "reviewed", Meaning.REVIEWED, "Finance member who counted, reviewed and cancelled",
            roles=frozenset({Role.FINANCE_STAFF, Role.FINANCE_SUPERVISOR}), departments=frozenset({"finance"}),
            citation="525.21(m)",
        ),
    )
    given_to_marketing = models.PositiveIntegerField(help_text="Carried in + issued for the day",
                                                     validators=COUNT.validators)
    returned = models.PositiveIntegerField(validators=COUNT.validators)
    voided = models.PositiveIntegerField(validators=COUNT.validators)
    distributed = models.PositiveIntegerField(validators=COUNT.validators)
    carried_forward = models.PositiveIntegerField(help_text="Kept by marketing for the next gaming day",
                                                  validators=COUNT.validators)
    redeemed = models.PositiveIntegerField(help_text="Redeemed coupons received for cancellation",
                                           validators=COUNT.validators)
    # Totals over the facility's whole history, and the sum of every difference found: not one count.
    distributed_to_date = models.PositiveIntegerField(default=0, validators=TOTAL.validators)
    redeemed_to_date = models.PositiveIntegerField(default=0, validators=TOTAL.validators)
    counted_returned = models.PositiveIntegerField(validators=COUNT.validators)
    counted_voided = models.PositiveIntegerField(validators=COUNT.validators)
    counted_redeemed = models.PositiveIntegerField(validators=COUNT.validators)
    variance = models.IntegerField(default=0, help_text="Sum of the differences found", validators=TOTAL.validators)
    restock_location = models.ForeignKey(StorageLocation, on_delete=models.PROTECT, null=True, blank=True,
                                         related_name="+")
    notes = models.TextField(blank=True)
    count_explanation = models.TextField(
        blank=True, help_text="Why finance's count, taken twice, still differs from the ledger, (m)(3)")

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["facility", "gaming_date"], condition=models.Q(corrects__isnull=True),
                name="coupon_one_processing_per_day",
            ),
            *COUNT.checks("given_to_marketing", "returned", "voided", "distributed", "carried_forward", "redeemed",
                          "counted_returned", "counted_voided", "counted_redeemed"),
            *TOTAL.checks("distributed_to_date", "redeemed_to_date", "variance"),
        ]

    def signable_content(self) -> dict[str, Any]:
        content = super().signable_content()
        # Processings signed before the figures by denomination and the count explanation existed have neither:
        # left out when absent, their signed content (and so their signatures) stays as it was.
        if not content.get("count_explanation"):
            content.pop("count_explanation", None)
        figures = self.content_part("figures")
        if figures:
            content["figures"] = figures
        return content

    @classmethod
    def content_parts(cls) -> dict[str, Any]:
        return super().content_parts() | {"figures": lambda ids: rows_by_record(
            FinanceDayFigure.objects.filter(processing_id__in=ids).order_by("denomination_cents").values_list(
                "processing_id", "denomination_cents", "given_to_marketing", "returned", "voided", "distributed",
                "kept", "awaiting_returned", "awaiting_voided", "awaiting_redeemed", "counted_returned",
                "counted_voided", "counted_redeemed", "given_to_date", "distributed_to_date", "redeemed_to_date"))}


class FinanceDayFigure(AuditedModel):
    """One denomination's line of finance's daily processing, frozen with it, § 525.21(m)(1), (3): the day's
    custody figures, the coupons awaiting processing and finance's count of them, and the totals to date."""

    facility_through = "processing"
    signed_part_of = SignedPart("processing")

    processing = models.ForeignKey(FinanceDayProcessing, on_delete=models.PROTECT, related_name="figures")
    denomination_cents = models.PositiveIntegerField(validators=DENOMINATION.validators)
    given_to_marketing = models.PositiveIntegerField(default=0, help_text="Carried in + issued for the day",
                                                     validators=COUNT.validators)
    returned = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    voided = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    distributed = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    kept = models.PositiveIntegerField(default=0, help_text="Kept by marketing for the next gaming day",
                                       validators=COUNT.validators)
    awaiting_returned = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    awaiting_voided = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    awaiting_redeemed = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    counted_returned = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    counted_voided = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    counted_redeemed = models.PositiveIntegerField(default=0, validators=COUNT.validators)
    given_to_date = models.PositiveIntegerField(default=0, validators=TOTAL.validators)
    distributed_to_date = models.PositiveIntegerField(default=0, validators=TOTAL.validators)
    redeemed_to_date = models.PositiveIntegerField(default=0, validators=TOTAL.validators)

    class Meta:
        ordering = ["denomination_cents"]
        constraints = [
            models.UniqueConstraint(fields=["processing", "denomination_cents"],
                                    name="coupon_finance_figure_per_denomination"),
            *DENOMINATION.checks("denomination_cents"),
            *COUNT.checks("given_to_marketing", "returned", "voided", "distributed", "kept", "awaiting_returned",
                          "awaiting_voided", "awaiting_redeemed", "counted_returned", "counted_voided",
                          "counted_redeemed"),
            *TOTAL.checks("given_to_date", "distributed_to_date", "redeemed_to_date"),
        ]

    @property
    def denomination(self) -> str:
        return format_cents(self.denomination_cents)
