"""The monthly inventory, § 525.21(n): the count, its lines per series, and the month's reminder."""

from __future__ import annotations

from typing import Any, ClassVar

from django.db import models
from django.utils import timezone

from compliance.bounds import COUNT, DIFFERENCE
from compliance.models import (
    AuditedModel,
    Meaning,
    SignatureRequirement,
    SignedPart,
)
from compliance.roles import Role
from coupons.models.documents import CouponDocument, rows_by_record
from coupons.models.program import CouponSeries


class CouponInventory(CouponDocument):
    """The monthly inventory of coupons not distributed to patrons, § 525.21(n)."""

    citation = "525.21(n)"
    kind_label = "Monthly inventory"
    url_name = "coupons:inventory-detail"
    signature_requirements = (
        SignatureRequirement(
            "counted", Meaning.COUNTED, "Finance member who took the inventory",
            roles=frozenset({Role.FINANCE_STAFF, Role.FINANCE_SUPERVISOR}), departments=frozenset({"finance"}),
            citation="525.21(n)",
        ),
    )
    discrepancy = models.IntegerField(default=0, help_text="Counted minus expected, all series",
                                      validators=DIFFERENCE.validators)

    class Meta:
        constraints = DIFFERENCE.checks("discrepancy")

    def signable_content(self) -> dict[str, Any]:
        content = super().signable_content()
        content["counts"] = self.content_part("counts")
        return content

    @classmethod
    def content_parts(cls) -> dict[str, Any]:
        return super().content_parts() | {"counts": lambda ids: rows_by_record(
            InventoryCount.objects.filter(inventory_id__in=ids).order_by("pk").values_list(
                "inventory_id", "series_id", "expected_quantity", "counted_quantity", "counted_ranges"))}


class InventoryCount(AuditedModel):
    facility_through = "inventory"
    signed_part_of = SignedPart("inventory")

    inventory = models.ForeignKey(CouponInventory, on_delete=models.PROTECT, related_name="counts")
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    expected_quantity = models.PositiveIntegerField(validators=COUNT.validators)
    expected_ranges = models.TextField(blank=True)
    counted_quantity = models.PositiveIntegerField(validators=COUNT.validators)
    counted_ranges = models.TextField(blank=True)
    expected_where = models.TextField(blank=True, help_text="Where the expected coupons were, by place and state")

    class Meta:
        ordering = ["pk"]
        constraints = COUNT.checks("expected_quantity", "counted_quantity")

    @property
    def discrepancy(self) -> int:
        return self.counted_quantity - self.expected_quantity


class InventoryReminder(AuditedModel):
    """The monthly inventory reminder, kept up to date by a Celery beat task (idempotent per month)."""

    citation: ClassVar[str] = "525.21(n)"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    month = models.DateField(help_text="First day of the month")
    due_on = models.DateField()
    done_by = models.ForeignKey(CouponInventory, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    checked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-month"]
        constraints = [models.UniqueConstraint(fields=["facility", "month"], name="coupon_inventory_reminder_month")]

    def __str__(self) -> str:
        return f"Monthly coupon inventory {self.month:%B %Y}"
