"""The Match Play Coupon ledger itself: append-only lines, and the open ranges that hold every serial's
current state (see the package docstring)."""

from __future__ import annotations

from typing import Any, ClassVar

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils import timezone

from compliance.bounds import COUNT, DENOMINATION, ROW_ID, SERIAL
from compliance.models import (
    AppendOnly,
    AuditedModel,
    Sealed,
)
from coupons.models._common import CouponState, format_cents
from coupons.models.program import CouponSeries, StorageLocation


class LedgerLine(Sealed, AppendOnly, AuditedModel):
    """One line of the Match Play Coupon ledger: a serial range moved from one state to another."""

    append_only_what = "Ledger lines"
    append_only_hint = "; record a new movement instead"

    citation: ClassVar[tuple[str, ...]] = ("525.21(d)", "525.21(f)", "525.21(h)", "525.21(l)", "525.21(n)")

    class Kind(models.TextChoices):
        RECEIVE = "receive", "Received"
        EXAMINE = "examine", "Examined into finance stock"
        ISSUE = "issue", "Issued to marketing"
        DISTRIBUTE = "distribute", "Distributed to patrons"
        VOID = "void", "Voided"
        RETURN = "return", "Returned to finance"
        RESTOCK = "restock", "Restocked for reissuance"
        EXPIRE = "expire", "Expired"
        REDEEM = "redeem", "Redeemed"
        CANCEL = "cancel", "Cancelled"
        INVENTORY = "inventory", "Monthly inventory count"
        REVERSE = "reverse", "Reversed the same day"
        CORRECT = "correct", "Corrected after the form"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    occurred_at = models.DateTimeField(default=timezone.now)
    gaming_date = models.DateField()
    kind = models.CharField(max_length=12, choices=Kind.choices)
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="ledger_lines")
    denomination_cents = models.PositiveIntegerField(validators=DENOMINATION.validators)
    from_state = models.CharField(max_length=12, choices=CouponState.choices, blank=True)
    to_state = models.CharField(max_length=12, choices=CouponState.choices, blank=True)
    first_serial = models.BigIntegerField(null=True, blank=True, validators=SERIAL.validators)
    last_serial = models.BigIntegerField(null=True, blank=True, validators=SERIAL.validators)
    # An inventory line of a series none of which was counted moves no coupons.
    quantity = models.PositiveIntegerField(validators=COUNT.validators)
    reason = models.TextField(blank=True, help_text="Reason for a void; expected vs counted for an inventory")
    document_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    document_id = models.PositiveBigIntegerField(validators=ROW_ID.validators)
    location = models.ForeignKey(StorageLocation, on_delete=models.PROTECT, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["occurred_at", "pk"]
        indexes = [
            models.Index(fields=["facility", "occurred_at", "id"], name="coupon_ledger_chrono"),
            models.Index(fields=["facility", "gaming_date", "kind"], name="coupon_ledger_day"),
            models.Index(fields=["document_type", "document_id"], name="coupon_ledger_document"),
            models.Index(fields=["series", "kind", "first_serial"], name="coupon_ledger_series"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(first_serial__isnull=True)
                | models.Q(last_serial__isnull=True)
                | models.Q(first_serial__lte=models.F("last_serial")),
                name="coupon_ledger_serial_order",
            ),
            *DENOMINATION.checks("denomination_cents"),
            *SERIAL.checks("first_serial", "last_serial"),
            *COUNT.checks("quantity"),
            *ROW_ID.checks("document_id"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.span} ({self.quantity:,} × {format_cents(self.denomination_cents)})"

    @property
    def span(self) -> str:
        if self.first_serial is None or self.last_serial is None:
            return ""
        return self.series.span(self.first_serial, self.last_serial)

    @classmethod
    def belongs_to(cls, content: dict[str, Any]) -> str:
        from compliance.models.signatures import record_label

        serials = f"serials {content.get('first_serial')}–{content.get('last_serial')}"
        return (f"{record_label(content.get('document_type_id'))} #{content.get('document_id')} "
                f"(its ledger line: {content.get('kind')} {serials} of series #{content.get('series_id')})")


class CouponRange(AuditedModel):
    """The current state of a run of serials. Open rows are the state; closed rows are history."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="ranges")
    first_serial = models.BigIntegerField(validators=SERIAL.validators)
    last_serial = models.BigIntegerField(validators=SERIAL.validators)
    state = models.CharField(max_length=12, choices=CouponState.choices)
    location = models.ForeignKey(StorageLocation, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    # The line whose movement created this row (a split creates the untouched remainders too), and
    # the line that put these serials into their state. "As of" queries use opened_by/closed_by.
    opened_by = models.ForeignKey(LedgerLine, on_delete=models.PROTECT, related_name="opened_ranges")
    since = models.ForeignKey(LedgerLine, on_delete=models.PROTECT, related_name="+")
    closed_by = models.ForeignKey(
        LedgerLine, on_delete=models.PROTECT, null=True, blank=True, related_name="closed_ranges"
    )

    class Meta:
        ordering = ["series", "first_serial"]
        indexes = [
            models.Index(fields=["series", "first_serial"], condition=models.Q(closed_by__isnull=True),
                         name="coupon_range_open"),
            models.Index(fields=["facility", "state"], condition=models.Q(closed_by__isnull=True),
                         name="coupon_range_open_state"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(first_serial__lte=models.F("last_serial")), name="coupon_range_serial_order"
            ),
            *SERIAL.checks("first_serial", "last_serial"),
            # The exclusion constraint on open rows is created by migration 0002 (PostgreSQL), with a
            # trigger for SQLite: both refuse two open ranges of one series that share a serial.
        ]

    def __str__(self) -> str:
        return f"{self.series.span(self.first_serial, self.last_serial)}: {self.get_state_display()}"

    @property
    def quantity(self) -> int:
        return self.last_serial - self.first_serial + 1

    @property
    def span(self) -> str:
        return self.series.span(self.first_serial, self.last_serial)
