"""The program's registers and approvals, § 525.21(b), (c), (i), (p): program types, storage areas,
coupon series, and the approvals that open them to use."""

from __future__ import annotations

from typing import Any, ClassVar

from django.db import models
from django.urls import reverse

from compliance.bounds import DENOMINATION, SERIAL_WIDTH
from compliance.models import (
    AuditedModel,
    Meaning,
    RegulatedRecord,
    SignatureRequirement,
)
from compliance.roles import Role
from coupons.models._common import format_cents


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
    denomination_cents = models.PositiveIntegerField(help_text="Stated value, § 525.21(a), (c)(2)",
                                                     validators=DENOMINATION.validators)
    serial_prefix = models.CharField(max_length=10, blank=True, help_text="Printed before the number, e.g. MP")
    serial_digits = models.PositiveSmallIntegerField(default=7, help_text="Printed width of the number",
                                                     validators=SERIAL_WIDTH.validators)
    games = models.ManyToManyField("compliance.Game", related_name="+", help_text="Games it may be used on, (c)(4)")
    wager_restrictions = models.TextField(help_text="Wagers it may be used on and other restrictions, (c)(4)")
    # The machine-checkable part of the restrictions: positions (§ 525.22(c) names) a coupon of the series may be
    # wagered on; empty means any position the game allows. The redemption check enforces it.
    positions = models.JSONField(default=list, blank=True,
                                 help_text="Positions it may be wagered on (empty: any the game allows), (c)(4)")
    even_money_only = models.BooleanField(default=False, help_text="Its restrictions allow even-money wagers only, "
                                                                   "(c)(4): the redemption refuses any other")
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
            *DENOMINATION.checks("denomination_cents"),
            *SERIAL_WIDTH.checks("serial_digits"),
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

    @property
    def allowed_positions(self) -> frozenset[str]:
        return frozenset(str(p) for p in (self.positions or ()))

    @property
    def positions_words(self) -> str:
        from coupons.models.redemption import Position

        return ", ".join(str(Position(p).label) for p in Position.values if p in self.allowed_positions)

    def is_expired_on(self, day: Any) -> bool:
        return day > self.expires_on


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
