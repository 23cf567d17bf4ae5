"""The Match Play Coupon ledger, § 525.21.

Shape (see docs/coupons.md):

* Registers: :class:`CouponProgram` (program types are data: Match Play, Direct Bet),
  :class:`CouponSeries` (what § 525.21(c) requires a coupon to carry) and :class:`StorageLocation`
  (approved locked areas, § 525.21(i) and (k)).
* Regulated documents, each a ``RegulatedRecord`` with its signatures: approvals (b)/(p), receipts
  (e)–(f), requisitions (g), issuances (h), distributions, voids, returns (k)–(l), the marketing
  reconciliation form (j), finance daily processing (m), expiries, redemptions (a seam for the
  redemption issue) and monthly inventories (n).
* :class:`LedgerLine`: the append-only Match Play Coupon ledger. Every movement of coupons writes one
  line per serial range moved (``from_state`` → ``to_state``); inventories write count lines. Lines
  are never changed (model and, on PostgreSQL, a trigger refuse it).
* :class:`CouponRange`: the current state of every serial, as non-overlapping *open* ranges. A move
  closes the ranges it touches (``closed_by``) and opens new ones; nothing is deleted, so the closed
  rows plus the ledger lines are each serial's full path. "Every serial is in exactly one state" is
  held by the database: an exclusion constraint (PostgreSQL) or a trigger (SQLite) refuses two open
  ranges of one series that share a serial.

Work never depends on the number of serials: a range of 100,000 coupons is one row.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.urls import reverse
from django.utils import timezone

from compliance.models import (
    AppendOnly,
    AuditedModel,
    Meaning,
    RegulatedRecord,
    RegulatedWriteError,
    SignatureRequirement,
)
from compliance.roles import Role

__all__ = [
    "CouponDistribution",
    "CouponExpiry",
    "CouponInventory",
    "CouponIssuance",
    "CouponProgram",
    "CouponRange",
    "CouponReceipt",
    "CouponRedemption",
    "CouponRequisition",
    "CouponReturn",
    "CouponSeries",
    "CouponState",
    "CouponVoid",
    "DeviationReport",
    "ExceptionReport",
    "FinanceDayProcessing",
    "InventoryCount",
    "InventoryReminder",
    "LedgerLine",
    "ProgramApproval",
    "ReconciliationFigure",
    "ReconciliationForm",
    "StorageLocation",
    "format_cents",
]


def format_cents(cents: int | None) -> str:
    if cents is None:
        return ""
    dollars, rest = divmod(int(cents), 100)
    return f"${dollars:,}" if rest == 0 else f"${dollars:,}.{rest:02d}"


class CouponState(models.TextChoices):
    IN_STOCK = "in_stock", "In finance stock"
    ISSUED = "issued", "Issued to marketing"
    DISTRIBUTED = "distributed", "Distributed to a patron"
    VOIDED = "voided", "Voided"
    RETURNED = "returned", "Returned to finance"
    EXPIRED = "expired", "Expired"
    REDEEMED = "redeemed", "Redeemed"
    CANCELLED = "cancelled", "Cancelled"


# Who has the coupons in each state (derived, not stored: § 525.21(d) splits custody this way).
HOLDER_OF_STATE = {
    CouponState.IN_STOCK: "Finance (locked storage)",
    CouponState.ISSUED: "Marketing",
    CouponState.DISTRIBUTED: "Patron",
    CouponState.VOIDED: "Voided, awaiting cancellation by finance",
    CouponState.RETURNED: "Finance, awaiting daily processing",
    CouponState.EXPIRED: "Finance (expired, out of circulation)",
    CouponState.REDEEMED: "Drop box / finance, awaiting cancellation",
    CouponState.CANCELLED: "Finance (cancelled)",
}


def _finance_supervisor(slot: str, meaning: Meaning, label: str, citation: str, distinct: bool = True) -> Any:
    return SignatureRequirement(
        slot, meaning, label, roles=frozenset({Role.FINANCE_SUPERVISOR}), distinct=distinct, citation=citation
    )


def _marketing_supervisor(slot: str, meaning: Meaning, label: str, citation: str) -> Any:
    return SignatureRequirement(slot, meaning, label, roles=frozenset({Role.MARKETING_SUPERVISOR}), citation=citation)


# --------------------------------------------------------------------------------------------
# Registers
# --------------------------------------------------------------------------------------------
class CouponProgram(AuditedModel):
    """A coupon program type. Match Play now; Direct Bet Coupons follow the same controls (data, not code)."""

    code = models.SlugField(max_length=32, unique=True)
    name = models.CharField(max_length=100, help_text="e.g. Match Play Coupon")
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class StorageLocation(AuditedModel):
    """A secured and locked area approved by the Bureau of Casino Compliance, § 525.21(i), (k)."""

    citation: ClassVar[tuple[str, ...]] = ("525.21(i)", "525.21(k)")

    class Department(models.TextChoices):
        FINANCE = "finance", "Finance"
        MARKETING = "marketing", "Marketing"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    name = models.CharField(max_length=120)
    department = models.CharField(max_length=20, choices=Department.choices)
    locked = models.BooleanField(default=True, help_text="A secured and locked area")
    bcc_approved_on = models.DateField(null=True, blank=True, help_text="Approval by the Bureau of Casino Compliance")
    bcc_approval_reference = models.CharField(max_length=100, blank=True)
    internal_controls_reference = models.CharField(
        max_length=100, blank=True, help_text="Where the internal controls name this location"
    )
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["department", "name"]
        constraints = [
            models.UniqueConstraint(fields=["facility", "name"], name="coupon_storage_name_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_department_display()})"

    @property
    def is_approved(self) -> bool:
        return bool(self.locked and self.active and self.bcc_approved_on and self.bcc_approval_reference.strip())


class CouponSeries(AuditedModel):
    """A printed series of coupons and what § 525.21(c) requires each coupon to show."""

    citation: ClassVar[str] = "525.21(c)"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    program = models.ForeignKey(CouponProgram, on_delete=models.PROTECT, related_name="series")
    code = models.SlugField(max_length=40, help_text="Short name of the series, e.g. mp25-2026")
    name = models.CharField(max_length=150)
    printed_name = models.CharField(max_length=200, help_text="Certificate holder name printed, § 525.21(c)(1)")
    shows_logo = models.BooleanField(default=True, help_text="The certificate holder's logo is printed")
    denomination_cents = models.PositiveIntegerField(help_text="Stated value, § 525.21(a), (c)(2)")
    serial_prefix = models.CharField(max_length=10, blank=True, help_text="Printed before the number, e.g. MP")
    serial_digits = models.PositiveSmallIntegerField(default=7, help_text="Printed width of the number")
    games = models.ManyToManyField("compliance.Game", related_name="+", help_text="Games it may be used on, (c)(4)")
    wager_restrictions = models.TextField(help_text="Wagers it may be used on and other restrictions, (c)(4)")
    expires_on = models.DateField(help_text="Expiry date printed on the coupon, (c)(5)")
    value_visible_on_surveillance = models.BooleanField(default=True, help_text="(c)(2)")
    has_chip_area = models.BooleanField(default=True, help_text="Area for the chips that does not hide the value, (c)(6)")
    design_specification = models.CharField(max_length=200, blank=True, help_text="Design document reference")

    class Meta:
        ordering = ["facility", "code"]
        verbose_name_plural = "coupon series"
        constraints = [
            models.UniqueConstraint(fields=["facility", "code"], name="coupon_series_code_unique"),
            models.CheckConstraint(condition=models.Q(denomination_cents__gt=0), name="coupon_series_denomination"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({format_cents(self.denomination_cents)})"

    def get_absolute_url(self) -> str:
        return reverse("coupons:series-detail", args=[self.pk])

    @property
    def denomination(self) -> str:
        return format_cents(self.denomination_cents)

    def serial(self, number: int) -> str:
        """A serial number as printed on the coupon."""
        body = str(number).zfill(self.serial_digits)
        return f"{self.serial_prefix}-{body}" if self.serial_prefix else body

    def span(self, first: int, last: int) -> str:
        return self.serial(first) if first == last else f"{self.serial(first)}–{self.serial(last)}"

    @property
    def serial_example(self) -> str:
        return self.serial(1)

    def is_expired_on(self, day: Any) -> bool:
        return day > self.expires_on


# --------------------------------------------------------------------------------------------
# Regulated documents
# --------------------------------------------------------------------------------------------
class CouponDocument(RegulatedRecord):
    """A regulated document that may move coupons; its ledger lines are part of what is signed."""

    gaming_date = models.DateField(db_index=True)

    kind_label: ClassVar[str] = "Document"
    url_name: ClassVar[str] = "coupons:document"

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.kind_label} #{self.pk} ({self.gaming_date:%d %b %Y})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self._state.adding and self.corrects_id:
            # A copy of a movement document would carry none of its ledger lines: in the coupon
            # ledger, a mistake is corrected by a compensating movement (void, return, inventory).
            raise RegulatedWriteError(
                f"A {self._meta.verbose_name} is corrected in the ledger by a new movement (a void, a return or "
                f"an inventory count), not by a copy of the document."
            )
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        if self.url_name == "coupons:document":
            return reverse("coupons:ledger") + f"?kind=&serial=&page=1#doc-{self.pk}"
        return reverse(self.url_name, args=[self.pk])

    def ledger_lines(self) -> models.QuerySet[LedgerLine]:
        return LedgerLine.objects.filter(
            document_type=ContentType.objects.get_for_model(type(self)), document_id=self.pk
        ).select_related("series")

    def signable_content(self) -> dict[str, Any]:
        content = super().signable_content()
        content["ledger_lines"] = [
            [line.kind, line.series_id, line.first_serial, line.last_serial, line.quantity, line.reason]
            for line in self.ledger_lines().order_by("pk")
        ]
        return content


class ProgramApproval(RegulatedRecord):
    """An approval the program needs before coupons are issued or used, § 525.21(b), (p)."""

    citation = "525.21(b)"

    class Kind(models.TextChoices):
        DESIGN = "design", "Design specifications approved by the Bureau of Gaming Operations, § 525.21(b)(1)"
        INTERNAL_CONTROLS = "internal_controls", "Internal controls for the program approved, § 525.21(b)(2)"
        INTERNAL_PRINTING = "internal_printing", "Internal controls for printing coupons in house approved, § 525.21(p)"

    signature_requirements = (
        SignatureRequirement(
            "recorded",
            Meaning.RECORDED,
            "Compliance officer recording the approval",
            roles=frozenset({Role.COMPLIANCE_OFFICER}),
            citation="525.21(b)",
        ),
    )

    program = models.ForeignKey(CouponProgram, on_delete=models.PROTECT, related_name="approvals")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    series = models.ForeignKey(
        CouponSeries, on_delete=models.PROTECT, null=True, blank=True, related_name="approvals",
        help_text="The series whose design was approved (design approvals only)",
    )
    approved_on = models.DateField()
    reference = models.CharField(max_length=120, help_text="Approval letter or reference number")
    notes = models.TextField(blank=True)

    class Meta:
        ordering = ["-approved_on", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(kind="design") | models.Q(series__isnull=False), name="coupon_design_needs_series"
            ),
            models.CheckConstraint(condition=~models.Q(reference=""), name="coupon_approval_reference"),
        ]

    def __str__(self) -> str:
        return f"Approval #{self.pk}: {self.get_kind_display().split(',')[0]} ({self.reference})"

    def get_absolute_url(self) -> str:
        return reverse("coupons:program")


class CouponReceipt(CouponDocument):
    """Coupons received from a gaming service provider or printed in house, § 525.21(e)–(f)."""

    citation = "525.21(f)"
    kind_label = "Receipt"
    url_name = "coupons:receipt-detail"

    class Source(models.TextChoices):
        PROVIDER = "provider", "Gaming service provider"
        INTERNAL = "internal", "Printed in house, § 525.21(p)"

    # § 525.21(e): at least one finance member and one marketing member open and examine;
    # § 525.21(f): a finance supervisor records. The recorder may also be the finance examiner
    # (the rule asks for two departments, not three people), so "recorded" is not a distinct slot.
    signature_requirements = (
        SignatureRequirement(
            "examined_finance", Meaning.EXAMINED, "Finance department member who opened and examined the coupons",
            departments=frozenset({"finance"}), citation="525.21(e)",
        ),
        SignatureRequirement(
            "examined_marketing", Meaning.EXAMINED, "Marketing department member who opened and examined the coupons",
            departments=frozenset({"marketing"}), citation="525.21(e)",
        ),
        _finance_supervisor("recorded", Meaning.RECORDED, "Finance supervisor recording the receipt", "525.21(f)",
                            distinct=False),
    )

    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="receipts")
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.PROVIDER)
    supplier = models.CharField(max_length=150, help_text="Gaming service provider, or the in-house print shop")
    invoice_number = models.CharField(max_length=60)
    invoice_quantity = models.PositiveIntegerField()
    invoice_first_serial = models.BigIntegerField()
    invoice_last_serial = models.BigIntegerField()
    quantity = models.PositiveIntegerField(help_text="Coupons actually received, (f)(2)")
    first_serial = models.BigIntegerField(help_text="(f)(3)")
    last_serial = models.BigIntegerField(help_text="(f)(3)")
    location = models.ForeignKey(StorageLocation, on_delete=models.PROTECT, related_name="+")
    custodian = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", help_text="Finance supervisor in control, (i)"
    )
    deviation = models.TextField(blank=True, help_text="How the coupons differ from the invoice, if they do")

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(first_serial__lte=models.F("last_serial")), name="coupon_receipt_serial_order"
            ),
        ]


class CouponRequisition(RegulatedRecord):
    """A marketing supervisor's estimate for a gaming day or promotion, § 525.21(g)."""

    citation = "525.21(g)"
    signature_requirements = (
        _marketing_supervisor("requisitioned", Meaning.REQUISITIONED, "Marketing supervisor completing the requisition",
                              "525.21(g)(4)"),
        _finance_supervisor("authorized", Meaning.AUTHORIZED, "Finance supervisor authorizing the requisition",
                            "525.21(g)(5)"),
    )

    program = models.ForeignKey(CouponProgram, on_delete=models.PROTECT, related_name="+")
    prepared_on = models.DateField(help_text="(g)(1)")
    needed_for = models.DateField(help_text="Gaming day or first day of the promotion, (g)(2)")
    promotion = models.CharField(max_length=150, blank=True)
    denomination_cents = models.PositiveIntegerField(help_text="(g)(3)")
    quantity = models.PositiveIntegerField(help_text="(g)(3)")

    class Meta:
        ordering = ["-needed_for", "-pk"]
        constraints = [models.CheckConstraint(condition=models.Q(quantity__gt=0), name="coupon_requisition_quantity")]

    def __str__(self) -> str:
        return f"Requisition #{self.pk}: {self.quantity:,} × {format_cents(self.denomination_cents)} for {self.needed_for:%d %b %Y}"

    def get_absolute_url(self) -> str:
        return reverse("coupons:requisition-detail", args=[self.pk])

    @property
    def denomination(self) -> str:
        return format_cents(self.denomination_cents)


class CouponIssuance(CouponDocument):
    """Coupons issued by finance to the marketing supervisor against a requisition, § 525.21(h)."""

    citation = "525.21(h)"
    kind_label = "Issuance"
    url_name = "coupons:issuance-detail"
    # (h)(3) names the issuing finance supervisor; the marketing supervisor's receiving signature
    # is our addition: it marks the hand-over and opens the coupons to the reconciliation form.
    signature_requirements = (
        _finance_supervisor("issued", Meaning.ISSUED, "Finance supervisor issuing the coupons", "525.21(h)(3)"),
        _marketing_supervisor("received", Meaning.RECEIVED, "Marketing supervisor receiving the coupons", "525.21(h)"),
    )

    requisition = models.ForeignKey(CouponRequisition, on_delete=models.PROTECT, related_name="issuances")
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    quantity = models.PositiveIntegerField()
    voided_quantity = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-gaming_date", "-pk"]


class CouponDistribution(CouponDocument):
    """Coupons handed to patrons by marketing (by serial range or one scan at a time), § 525.21(d), (j)(4)."""

    citation = "525.21(j)"
    kind_label = "Distribution"
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    quantity = models.PositiveIntegerField()

    class Meta:
        ordering = ["-gaming_date", "-pk"]

    def get_absolute_url(self) -> str:
        return reverse("coupons:today")


class CouponVoid(CouponDocument):
    """Coupons voided by a supervisor, with the reason, § 525.21(h)(4), (j)(6), (l)(4)."""

    citation = "525.21(j)"
    kind_label = "Void"
    signature_requirements = (
        SignatureRequirement(
            "voided", Meaning.VOIDED, "Supervisor voiding the coupons",
            roles=frozenset({Role.MARKETING_SUPERVISOR, Role.FINANCE_SUPERVISOR}), citation="525.21(j)(6)",
        ),
    )
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    quantity = models.PositiveIntegerField()
    reason = models.TextField()

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = [models.CheckConstraint(condition=~models.Q(reason=""), name="coupon_void_reason")]

    def get_absolute_url(self) -> str:
        return reverse("coupons:today")


class ReconciliationForm(CouponDocument):
    """Marketing's daily Match Play Coupon Reconciliation Form, § 525.21(j); closes the marketing day."""

    citation = "525.21(j)"
    kind_label = "Reconciliation form"
    url_name = "coupons:reconciliation-detail"
    signature_requirements = (
        _marketing_supervisor("completed", Meaning.COMPLETED, "Marketing supervisor completing the form",
                              "525.21(j)(8)"),
    )

    class Disposition(models.TextChoices):
        RETURN = "return", "Return undistributed coupons to finance"
        KEEP = "keep", "Keep them for the next gaming day in an approved locked area"

    variation_explanation = models.TextField(blank=True, help_text="(j)(7)")
    disposition = models.CharField(max_length=10, choices=Disposition.choices, default=Disposition.RETURN)
    kept_in = models.ForeignKey(StorageLocation, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    # The last ledger line when the form was completed: "remaining" ranges are read as of this point.
    ledger_position = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["facility", "gaming_date"], condition=models.Q(corrects__isnull=True),
                name="coupon_one_reconciliation_per_day",
            ),
        ]

    def signable_content(self) -> dict[str, Any]:
        content = super().signable_content()
        content["figures"] = [
            [f.denomination_cents, f.carried_in, f.received, f.distributed, f.voided, f.returned,
             f.remaining_expected, f.remaining_counted]
            for f in self.figures.order_by("denomination_cents")
        ]
        return content


class ReconciliationFigure(AuditedModel):
    """One denomination's line of the reconciliation form, frozen when the form is completed."""

    facility_through = "form"

    form = models.ForeignKey(ReconciliationForm, on_delete=models.PROTECT, related_name="figures")
    denomination_cents = models.PositiveIntegerField()
    carried_in = models.PositiveIntegerField(default=0, help_text="Kept from the previous day, (k)")
    received = models.PositiveIntegerField(default=0, help_text="Received from finance today, (j)(2)")
    distributed = models.PositiveIntegerField(default=0)
    voided = models.PositiveIntegerField(default=0)
    returned = models.PositiveIntegerField(default=0, help_text="Returned to finance before the form was completed")
    remaining_expected = models.PositiveIntegerField(default=0)
    remaining_counted = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["denomination_cents"]

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
        _marketing_supervisor("returned", Meaning.RETURNED, "Marketing supervisor returning the coupons",
                              "525.21(l)(5)"),
        _finance_supervisor("received", Meaning.RECEIVED, "Finance supervisor receiving the coupons", "525.21(l)(5)"),
    )
    returned_on = models.DateField(help_text="(l)(1)")
    quantity = models.PositiveIntegerField()
    expired_only = models.BooleanField(default=False, help_text="A daily return of expired coupons, (k)")
    reconciliation = models.ForeignKey(
        ReconciliationForm, on_delete=models.PROTECT, null=True, blank=True, related_name="returns",
        help_text="The form whose copy goes back with the coupons, (k)",
    )

    class Meta:
        ordering = ["-gaming_date", "-pk"]


class CouponExpiry(CouponDocument):
    """Expired coupons in finance custody taken out of circulation."""

    citation = "525.21(k)"
    kind_label = "Expiry"
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    quantity = models.PositiveIntegerField()

    def get_absolute_url(self) -> str:
        return reverse("coupons:series-detail", args=[self.series_id])


class CouponRedemption(CouponDocument):
    """Coupons redeemed at a banking table (the redemption issue will add its screens and checks)."""

    citation = "525.21(m)"
    kind_label = "Redemption"
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    quantity = models.PositiveIntegerField()
    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, null=True, blank=True,
                              related_name="+")

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
            roles=frozenset({Role.FINANCE_STAFF, Role.FINANCE_SUPERVISOR}), citation="525.21(m)",
        ),
    )
    given_to_marketing = models.PositiveIntegerField(help_text="Carried in + issued for the day")
    returned = models.PositiveIntegerField()
    voided = models.PositiveIntegerField()
    distributed = models.PositiveIntegerField()
    carried_forward = models.PositiveIntegerField(help_text="Kept by marketing for the next gaming day")
    redeemed = models.PositiveIntegerField(help_text="Redeemed coupons received for cancellation")
    distributed_to_date = models.PositiveIntegerField(default=0)
    redeemed_to_date = models.PositiveIntegerField(default=0)
    counted_returned = models.PositiveIntegerField()
    counted_voided = models.PositiveIntegerField()
    counted_redeemed = models.PositiveIntegerField()
    variance = models.IntegerField(default=0, help_text="Sum of the differences found")
    restock_location = models.ForeignKey(StorageLocation, on_delete=models.PROTECT, null=True, blank=True,
                                         related_name="+")
    notes = models.TextField(blank=True)

    class Meta:
        ordering = ["-gaming_date", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["facility", "gaming_date"], condition=models.Q(corrects__isnull=True),
                name="coupon_one_processing_per_day",
            ),
        ]


class CouponInventory(CouponDocument):
    """The monthly inventory of coupons not distributed to patrons, § 525.21(n)."""

    citation = "525.21(n)"
    kind_label = "Monthly inventory"
    url_name = "coupons:inventory-detail"
    signature_requirements = (
        SignatureRequirement(
            "counted", Meaning.COUNTED, "Finance member who took the inventory",
            roles=frozenset({Role.FINANCE_STAFF, Role.FINANCE_SUPERVISOR}), citation="525.21(n)",
        ),
    )
    discrepancy = models.IntegerField(default=0, help_text="Counted minus expected, all series")

    def signable_content(self) -> dict[str, Any]:
        content = super().signable_content()
        content["counts"] = [
            [c.series_id, c.expected_quantity, c.counted_quantity, c.counted_ranges] for c in self.counts.order_by("pk")
        ]
        return content


class InventoryCount(AuditedModel):
    facility_through = "inventory"

    inventory = models.ForeignKey(CouponInventory, on_delete=models.PROTECT, related_name="counts")
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="+")
    expected_quantity = models.PositiveIntegerField()
    expected_ranges = models.TextField(blank=True)
    counted_quantity = models.PositiveIntegerField()
    counted_ranges = models.TextField(blank=True)

    class Meta:
        ordering = ["pk"]

    @property
    def discrepancy(self) -> int:
        return self.counted_quantity - self.expected_quantity


# --------------------------------------------------------------------------------------------
# The ledger and the current state
# --------------------------------------------------------------------------------------------
class LedgerLine(AppendOnly, AuditedModel):
    """One line of the Match Play Coupon ledger: a serial range moved from one state to another."""

    append_only_what = "Ledger lines"
    append_only_hint = "; record a new movement instead"

    citation: ClassVar[tuple[str, ...]] = ("525.21(d)", "525.21(f)", "525.21(h)", "525.21(l)", "525.21(n)")

    class Kind(models.TextChoices):
        RECEIVE = "receive", "Received"
        ISSUE = "issue", "Issued to marketing"
        DISTRIBUTE = "distribute", "Distributed to patrons"
        VOID = "void", "Voided"
        RETURN = "return", "Returned to finance"
        RESTOCK = "restock", "Restocked for reissuance"
        EXPIRE = "expire", "Expired"
        REDEEM = "redeem", "Redeemed"
        CANCEL = "cancel", "Cancelled"
        INVENTORY = "inventory", "Monthly inventory count"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    occurred_at = models.DateTimeField(default=timezone.now)
    gaming_date = models.DateField()
    kind = models.CharField(max_length=12, choices=Kind.choices)
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="ledger_lines")
    denomination_cents = models.PositiveIntegerField()
    from_state = models.CharField(max_length=12, choices=CouponState.choices, blank=True)
    to_state = models.CharField(max_length=12, choices=CouponState.choices, blank=True)
    first_serial = models.BigIntegerField(null=True, blank=True)
    last_serial = models.BigIntegerField(null=True, blank=True)
    quantity = models.PositiveIntegerField()
    reason = models.TextField(blank=True, help_text="Reason for a void; expected vs counted for an inventory")
    document_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    document_id = models.PositiveBigIntegerField()
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
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.span} ({self.quantity:,} × {format_cents(self.denomination_cents)})"

    @property
    def span(self) -> str:
        if self.first_serial is None or self.last_serial is None:
            return ""
        return self.series.span(self.first_serial, self.last_serial)


class CouponRange(AuditedModel):
    """The current state of a run of serials. Open rows are the state; closed rows are history."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    series = models.ForeignKey(CouponSeries, on_delete=models.PROTECT, related_name="ranges")
    first_serial = models.BigIntegerField()
    last_serial = models.BigIntegerField()
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


# --------------------------------------------------------------------------------------------
# Reports with a status (tracked until resolved)
# --------------------------------------------------------------------------------------------
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
