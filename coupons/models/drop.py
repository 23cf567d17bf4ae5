"""The drop-box count, § 525.21(q)(6): coupons not cancelled at the table are cancelled here.

A :class:`DropCount` is one table's drop box for one gaming day, counted by finance: every coupon in
it is scanned; each scan becomes a :class:`DropCountItem` saying what was found — already cancelled at
this table, cancelled now (the same checks as at the table), or an exception — and every coupon
redeemed at the table that day but absent from the box is an exception too.
"""

from __future__ import annotations

from typing import ClassVar

from django.db import models
from django.urls import reverse

from compliance.bounds import SERIAL
from compliance.models import AppendOnly, AuditedModel, Meaning, SignatureRequirement
from compliance.roles import Role
from coupons.models._common import FINANCE
from coupons.models.documents import CouponDocument
from coupons.models.program import CouponSeries

__all__ = ["DropCount", "DropCountItem"]


class DropCount(CouponDocument):
    """One table's drop box of one gaming day, counted and its coupons cancelled (§ 525.21(q)(6), (m))."""

    citation = "525.21(q)(6)"
    kind_label = "Drop-box count"
    url_name = "coupons:drop-count-detail"
    signature_requirements = (
        SignatureRequirement(
            "counted", Meaning.COUNTED, "Finance member who counted the drop box and cancelled its coupons",
            roles=frozenset({Role.FINANCE_STAFF, Role.FINANCE_SUPERVISOR}), departments=FINANCE,
            citation="525.21(q)(6)",
        ),
    )
    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-gaming_date", "-pk"]

    def get_absolute_url(self) -> str:
        return reverse("coupons:drop-count-detail", args=[self.pk])


class DropCountItem(AppendOnly, AuditedModel):
    """What one scan at the count found, or a coupon the table redeemed that the box did not hold."""

    append_only_what = "Drop-box count lines"
    facility_through: ClassVar[str] = "count"

    class Outcome(models.TextChoices):
        CANCELLED_AT_TABLE = "at_table", "Cancelled at the table"
        CANCELLED_NOW = "now", "Cancelled at the count"
        EXCEPTION = "exception", "Exception"
        MISSING = "missing", "Redeemed at the table, not in the drop box"

    count = models.ForeignKey(DropCount, on_delete=models.PROTECT, related_name="items")
    scanned = models.CharField(max_length=40, blank=True, help_text="As scanned; empty for a missing coupon")
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    serial = models.BigIntegerField(null=True, blank=True, validators=SERIAL.validators)
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    code = models.CharField(max_length=32, blank=True, help_text="The refusal code of an exception")
    message = models.CharField(max_length=300, blank=True)
    redemption = models.ForeignKey("coupons.Redemption", on_delete=models.PROTECT, null=True, blank=True,
                                   related_name="+")

    class Meta:
        ordering = ["count", "pk"]
        constraints = [*SERIAL.checks("serial")]

    def __str__(self) -> str:
        return f"{self.scanned or self.serial}: {self.get_outcome_display()}"

    @property
    def is_exception(self) -> bool:
        return self.outcome in (self.Outcome.EXCEPTION, self.Outcome.MISSING)
