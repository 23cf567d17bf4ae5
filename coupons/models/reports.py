"""Reports the regulations send on: a shipment's deviation, § 525.21(e), and finance's exceptions, § 525.21(m)."""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from compliance.bounds import TOTAL
from compliance.models import (
    AuditedModel,
)
from coupons.models.day import FinanceDayProcessing
from coupons.models.documents import CouponReceipt
from coupons.models.inventory import CouponInventory


class DeviationReport(AuditedModel):
    """A deviation between the invoice and the coupons received, § 525.21(e)."""

    citation: ClassVar[str] = "525.21(e)"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    receipt = models.OneToOneField(CouponReceipt, on_delete=models.PROTECT, related_name="deviation_report")
    description = models.TextField()
    reported_to = models.TextField(help_text="Finance supervisors and the Bureau of Casino Compliance")
    emailed_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    resolution = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Deviation report #{self.pk} (receipt #{self.receipt_id})"

    def get_absolute_url(self) -> str:
        return reverse("coupons:reports")

    def mail_words(self) -> str:
        """Where the report stands as mail, in words: it is e-mailed only once the receipt carries every
        examination signature (§ 525.21(e)), so a deviation found is not yet a deviation *reported*."""
        from compliance.times import when

        if self.emailed_at is not None:
            return f"e-mailed to {self.reported_to} ({when(self.emailed_at, self.facility)})"
        if not self.reported_to:
            return "not sent: no finance supervisor or Bureau e-mail address is recorded to send it to"
        if not self.receipt.is_complete:
            return f"not sent yet: it is e-mailed to {self.reported_to} once both examiners have signed the receipt"
        return f"not sent yet: being e-mailed to {self.reported_to}"


class ExceptionReport(AuditedModel):
    """A variance found by finance's daily processing (§ 525.21(m)) or by the monthly inventory (§ 525.21(n)),
    reported to internal audit and tracked until resolved."""

    citation: ClassVar[tuple[str, ...]] = ("525.21(m)", "525.21(n)")
    DUE_DAYS: ClassVar[int] = 2

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        RESOLVED = "resolved", "Resolved"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    processing = models.OneToOneField(FinanceDayProcessing, on_delete=models.PROTECT, null=True, blank=True,
                                      related_name="exception_report")
    inventory = models.OneToOneField(CouponInventory, on_delete=models.PROTECT, null=True, blank=True,
                                     related_name="exception_report")
    gaming_date = models.DateField()
    description = models.TextField()
    variance = models.IntegerField(validators=TOTAL.validators)  # coupons found different, all counts
    due_on = models.DateField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    emailed_at = models.DateTimeField(null=True, blank=True)
    resolution = models.TextField(blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(processing__isnull=False, inventory__isnull=True)
                | models.Q(processing__isnull=True, inventory__isnull=False),
                name="coupon_exception_one_source",
            ),
            *TOTAL.checks("variance"),
        ]

    def __str__(self) -> str:
        return f"Exception report #{self.pk} for {self.gaming_date:%d %b %Y}"

    @property
    def source(self) -> Any:
        """The processing or the inventory that found the variance."""
        return self.processing or self.inventory

    @property
    def source_words(self) -> str:
        return "the monthly inventory (§ 525.21(n))" if self.inventory_id else "finance's daily processing (§ 525.21(m))"

    def get_absolute_url(self) -> str:
        return reverse("coupons:reports")
