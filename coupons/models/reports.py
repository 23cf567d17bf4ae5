"""Reports the regulations send on: a shipment's deviation, § 525.21(e), and finance's exceptions, § 525.21(m)."""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from compliance.models import (
    AuditedModel,
)
from coupons.models.day import FinanceDayProcessing
from coupons.models.documents import CouponReceipt


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


class ExceptionReport(AuditedModel):
    """A variance found by finance's daily processing, reported to internal audit, § 525.21(m)."""

    citation: ClassVar[str] = "525.21(m)"
    DUE_DAYS: ClassVar[int] = 2

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        RESOLVED = "resolved", "Resolved"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    processing = models.OneToOneField(FinanceDayProcessing, on_delete=models.PROTECT, related_name="exception_report")
    gaming_date = models.DateField()
    description = models.TextField()
    variance = models.IntegerField()
    due_on = models.DateField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    emailed_at = models.DateTimeField(null=True, blank=True)
    resolution = models.TextField(blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-gaming_date", "-pk"]

    def __str__(self) -> str:
        return f"Exception report #{self.pk} for {self.gaming_date:%d %b %Y}"

    def get_absolute_url(self) -> str:
        return reverse("coupons:reports")
