"""Redemption at the table, § 525.22, with electronic cancellation, § 525.21(q)(6), (r).

* :class:`ScannerDevice`: a table's barcode scanner. It signs in to the API with a token bound to one
  table; only the token's SHA-256 is stored; a revoked device is refused. Each device acts as its own
  service account, so every row it writes names it in the history.
* :class:`Redemption`: one coupon honoured, append-only and sealed. ``UniqueConstraint(series,
  serial)`` is what makes a coupon honoured once: two scans at the same moment race on it in the
  database, and the loser is refused. A wager carries one coupon (§ 525.22(d)): a partial unique
  constraint on (table, gaming day, wager reference) when the scanner names the wager.
* :class:`RedemptionAnswer`: the first answer to a request carrying an ``Idempotency-Key``, so a
  scanner's retry after a timeout gets that answer back, not a second redemption or an error. It is the
  API's copy of its own response, derived wholly from the redemption (whose row, history and audit event
  are the record): append-only, kept outside the audit trail, so a scan does not write it three times.
* :class:`RedemptionPosting`: the document of the ledger lines that move redeemed serials from *distributed*
  to *redeemed* in batches after their scans committed (``coupons.services.redemption_posting``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone

from compliance.bounds import COUNT_FROM_ONE, DENOMINATION, SERIAL, Bounds
from compliance.models import AppendOnly, AuditedModel, Sealed
from compliance.people import person_name
from coupons.models._common import format_cents
from coupons.models.documents import CouponDocument
from coupons.models.program import CouponSeries

__all__ = ["CHIPS", "Position", "Redemption", "RedemptionAnswer", "RedemptionPosting", "ScannerDevice"]

CHIPS = Bounds(1, 1_000_000_000)  # cents of chips on one wager: $10,000,000 is past any table's maximum


class Position(models.TextChoices):
    """Where the coupon and the chips lie, § 525.22(c)."""

    BETTING_AREA = "betting_area", "The patron's betting area"
    PASS_LINE = "pass_line", "Pass Line"
    DONT_PASS = "dont_pass", "Don't Pass Line"
    BLACK = "black", "Black"
    RED = "red", "Red"
    ODD = "odd", "Odd"
    EVEN = "even", "Even"
    LOW = "1-18", "1-18"
    HIGH = "19-36", "19-36"
    FIRST_12 = "1st-12", "1st 12"
    SECOND_12 = "2nd-12", "2nd 12"
    THIRD_12 = "3rd-12", "3rd 12"


class ScannerDevice(AuditedModel):
    """A barcode scanner at one table, signing in to the redemption API with its own token."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="scanners")
    name = models.CharField(max_length=80, help_text="As labelled on the device, e.g. 'TDF-2 scanner'")
    account = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="scanner",
                                   help_text="The device's own service account: history names it")
    token_sha256 = models.CharField(max_length=64, unique=True, editable=False)
    token_hint = models.CharField(max_length=8, editable=False, help_text="The token's first characters")
    registered_at = models.DateTimeField(default=timezone.now)
    registered_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                   related_name="+")
    revoked_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["table__number", "name"]

    def __str__(self) -> str:
        return f"{self.name} (table {self.table.number})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class Redemption(Sealed, AppendOnly, AuditedModel):
    """One Match Play Coupon redeemed and electronically cancelled (§ 525.22; § 525.21(q)(6))."""

    append_only_what = "Redemptions"
    append_only_hint = "; a coupon is honoured once and its record stays as it was"
    citation: ClassVar[tuple[str, ...]] = ("525.22", "525.21(q)(5)", "525.21(q)(6)")
    # The busiest table there is (55,000 rows a gaming day at a large casino): its history carries no index on
    # each foreign key (compliance.models.base._AuditedHistory), and the facility, series and table have none of
    # their own, since the indexes and the constraint below begin with them and serve every lookup by one of them,
    # the foreign keys' checks included (issue 27).
    history_keys_indexed = False

    class Channel(models.TextChoices):
        TABLE = "table", "Scanned at the table"
        COUNT = "count", "Cancelled at the drop-box count"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+", db_index=False)
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="redemptions", db_index=False)
    serial = models.BigIntegerField(validators=SERIAL.validators)
    denomination_cents = models.PositiveIntegerField(validators=DENOMINATION.validators)
    gaming_date = models.DateField()
    redeemed_at = models.DateTimeField(default=timezone.now)
    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+", db_index=False)
    game = models.ForeignKey("compliance.Game", on_delete=models.PROTECT, related_name="+",
                             help_text="The table's game when the coupon was redeemed")
    position = models.CharField(max_length=16, choices=Position.choices, blank=True,
                                help_text="Empty for a coupon cancelled at the count (not known there)")
    chips_cents = models.PositiveIntegerField(validators=CHIPS.validators, null=True, blank=True,
                                              help_text="Chips wagered with the coupon (unknown at a count)")
    wager = models.CharField(max_length=40, blank=True, help_text="The scanner's reference of the wager, § 525.22(d)")
    channel = models.CharField(max_length=8, choices=Channel.choices, default=Channel.TABLE)
    device = models.ForeignKey(ScannerDevice, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    redeemed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    drop_count = models.ForeignKey("coupons.DropCount", on_delete=models.PROTECT, null=True, blank=True,
                                   related_name="redemptions", db_index=False)  # indexed where set: Meta

    class Meta:
        ordering = ["-redeemed_at", "-pk"]
        indexes = [
            # A table's redemptions of one gaming day, newest first (the table screen, the API's list, the day's
            # page for one table): the day's rows alone, in order. On (table, redeemed_at) the database walked back
            # through every later redemption of the table (issue 27: 157,000 rows, 0.3-0.7 s a view, on a year).
            models.Index(fields=["table", "gaming_date", "redeemed_at"], name="coupon_redemption_table_day"),
            models.Index(fields=["facility", "gaming_date"], name="coupon_redemption_day"),
            # The coupons cancelled at a count alone (a table's scans name none: no entry for each of them).
            models.Index(fields=["drop_count"], condition=models.Q(drop_count__isnull=False),
                         name="coupon_redemption_counted"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["series", "serial"], name="coupon_redeemed_once"),
            models.UniqueConstraint(fields=["table", "gaming_date", "wager"], condition=~models.Q(wager=""),
                                    name="coupon_one_per_wager"),
            *SERIAL.checks("serial"),
            *DENOMINATION.checks("denomination_cents"),
            *CHIPS.checks("chips_cents"),
        ]

    def __str__(self) -> str:
        return f"{self.coupon} redeemed at table {self.table.number}"

    @classmethod
    def belongs_to(cls, content: dict[str, Any]) -> str:
        return (f"the redemption of serial {content.get('serial')} of series #{content.get('series_id')} "
                f"at table #{content.get('table_id')} on {content.get('gaming_date')}")

    @property
    def coupon(self) -> str:
        return self.series.serial(self.serial)

    @property
    def denomination(self) -> str:
        return format_cents(self.denomination_cents)

    @property
    def chips(self) -> str:
        return format_cents(self.chips_cents) if self.chips_cents else "—"

    @property
    def redeemer(self) -> str:
        """Who redeemed it, as a page shows it: the scanner, or the person."""
        if self.device is not None:
            return f"Scanner {self.device.name}"
        return person_name(self.redeemed_by)

    @property
    def quantity(self) -> int:
        return 1

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("coupons:redemption-detail", args=[self.pk])


class RedemptionAnswer(AppendOnly):
    """The answer given to the first request with an ``Idempotency-Key``, per account (device or person).

    Append-only (the database refuses a change); no history of its own: it is never changed, and the
    redemption it answers carries the history and the audit event."""

    append_only_what = "Stored answers to an Idempotency-Key"

    account = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    key = models.CharField(max_length=80)
    request_sha256 = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField(validators=Bounds(100, 599).validators)
    body = models.JSONField()
    redemption = models.ForeignKey(Redemption, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "key"], name="coupon_answer_key_once"),
            *Bounds(100, 599).checks("status"),
        ]

    def __str__(self) -> str:
        return f"Answer to {self.key}"

    def as_tuple(self) -> tuple[int, Any]:
        return self.status, self.body


class RedemptionPosting(CouponDocument):
    """Redemptions already recorded (each its own electronic cancellation) posted into the ledger's ranges:
    one line per run of consecutive serials of one series and gaming day, dated that gaming day
    (§ 525.21(q)(6), (m)). Written by the beat job every minute and first in finance's daily processing."""

    citation = "525.21(q)(6)"
    kind_label = "Redemptions posted to the ledger"
    quantity = models.PositiveIntegerField(validators=COUNT_FROM_ONE.validators)

    class Meta:
        constraints = COUNT_FROM_ONE.checks("quantity")
