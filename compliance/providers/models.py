"""Gaming related gaming service providers, 58 Pa. Code ch. 528.

The register is shared by every facility, as the Board's list is statewide (§ 528.6): a
:class:`GamingProvider`, its :class:`ProviderOffering` s (a game, wager or feature, with the Bureau of Gaming
Laboratory Operations' approval, § 528.7(1)) and its :class:`Certification` terms (the Board's approval, the
renewal filed against it and the Board's decision, § 528.4). What is each certificate holder's own is kept per
facility: the permission to conduct business with it before certification and its rescission
(:class:`BusinessPermission`, § 528.8), the Executive Director's written approval to use an offering
(:class:`OfferingApproval`, § 528.7(3)), which tables carry which offering (:class:`TableOffering`) and the
renewal reminders sent to its compliance officers (:class:`RenewalReminder`), and what it filed and did about a
provider under §§ 528.2, 528.3, 528.7(2), 528.8(a) and 528.9, each with its document (:class:`ProviderFiling`,
append-only: a correction is a new filing linked to the one it corrects).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from compliance.bounds import Bounds
from compliance.models import AppendOnly, AuditedModel, Game
from compliance.newgames.rules import MAX_PICTURE_BYTES
from compliance.providers.filing_kinds import FINDINGS, KINDS, QUALIFICATIONS, SUBJECT_ROLES, FilingKind, kind_of
from compliance.providers.rules import APPROVED, DENIED, TermFacts

__all__ = [
    "BusinessPermission",
    "Certification",
    "Decision",
    "GamingProvider",
    "OfferingApproval",
    "ProviderFiling",
    "ProviderFilingDocument",
    "ProviderOffering",
    "RenewalReminder",
    "TableOffering",
]


class GamingProvider(AuditedModel):
    """A gaming related gaming service provider (§ 528.1), as the Board files it."""

    name = models.CharField(max_length=200, unique=True)
    board_file_number = models.CharField(max_length=40, unique=True, verbose_name="Board file number",
                                         help_text="The Board's file or certification number")
    contact = models.CharField(max_length=300, blank=True, help_text="Who to call, and how")
    registered_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ProviderOffering(AuditedModel):
    """A game, wager or feature the provider offers (§ 528.1(1)); usable only once the Bureau of Gaming
    Laboratory Operations approved it (§ 528.7(1))."""

    provider = models.ForeignKey(GamingProvider, on_delete=models.PROTECT, related_name="offerings")
    game = models.ForeignKey(Game, on_delete=models.PROTECT, null=True, blank=True, related_name="+",
                             help_text="The game it is, or belongs to")
    name = models.CharField(max_length=120, blank=True, help_text="A named wager or feature, e.g. a side bet")
    lab_approved_on = models.DateField(null=True, blank=True, verbose_name="Approved by the Gaming Laboratory on")

    class Meta:
        ordering = ["provider", "name"]
        constraints = [models.CheckConstraint(condition=Q(game__isnull=False) | ~Q(name=""),
                                              name="provider_offering_names_something")]

    def __str__(self) -> str:
        game = self.game.name if self.game is not None else ""
        return " — ".join(part for part in (game, self.name) if part) + f" ({self.provider.name})"


class Decision(models.TextChoices):
    APPROVED = APPROVED, "Approved"
    DENIED = DENIED, "Denied"


class Certification(AuditedModel):
    """One term of the provider's certification: valid 4 years from the Board's approval (§ 528.4(a)), the
    renewal filed against it (§ 528.4(b)) and the Board's written decision on it (§ 528.4(c)). An approved
    renewal is the next term, from the day of that approval."""

    provider = models.ForeignKey(GamingProvider, on_delete=models.PROTECT, related_name="certifications")
    approved_on = models.DateField(verbose_name="Board approval")
    expires_on = models.DateField(help_text="Four years from the Board's approval (computed)")
    certificate_number = models.CharField(max_length=40, blank=True)
    renews = models.OneToOneField("self", on_delete=models.PROTECT, null=True, blank=True, related_name="renewed_by")
    renewal_filed_on = models.DateField(null=True, blank=True)
    decision = models.CharField(max_length=10, choices=Decision.choices, blank=True)
    decided_on = models.DateField(null=True, blank=True, help_text="The day the Board sent its written decision")

    class Meta:
        ordering = ["provider", "-approved_on"]
        constraints = [
            models.UniqueConstraint(fields=["provider", "approved_on"], name="certification_once_per_approval"),
            models.CheckConstraint(condition=Q(expires_on__gt=models.F("approved_on")),
                                   name="certification_expires_after_approval"),
            models.CheckConstraint(condition=Q(decision="", decided_on__isnull=True)
                                   | (~Q(decision="") & Q(decided_on__isnull=False)),
                                   name="certification_decision_dated"),
        ]

    def __str__(self) -> str:
        return f"{self.provider.name}: certified {self.approved_on:%-d %b %Y} to {self.expires_on:%-d %b %Y}"

    @property
    def facts(self) -> TermFacts:
        return TermFacts(self.approved_on, self.renewal_filed_on, self.decision, self.decided_on)


class BusinessPermission(AuditedModel):
    """The Bureau of Licensing's permission for the provider, an applicant, to conduct business with this
    certificate holder before certification (§ 528.8(a)), and its rescission with the date to cease
    (§ 528.8(b)–(c))."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    provider = models.ForeignKey(GamingProvider, on_delete=models.PROTECT, related_name="permissions")
    granted_on = models.DateField()
    reference = models.CharField(max_length=100, blank=True, help_text="The Bureau's letter or file reference")
    rescinded_on = models.DateField(null=True, blank=True, help_text="Date of the notice of rescission")
    cease_by = models.DateField(null=True, blank=True, help_text="The date to cease conducting business")

    class Meta:
        ordering = ["facility", "-granted_on"]
        constraints = [
            models.CheckConstraint(condition=Q(rescinded_on__isnull=True, cease_by__isnull=True)
                                   | Q(rescinded_on__isnull=False, cease_by__gte=models.F("rescinded_on")),
                                   name="permission_cease_after_notice"),
        ]

    def __str__(self) -> str:
        return f"{self.provider.name}: permitted from {self.granted_on:%-d %b %Y}"


class OfferingApproval(AuditedModel):
    """The Board's Executive Director's written approval for this certificate holder to use the offering
    (§ 528.7(3), requested under § 521.4)."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    offering = models.ForeignKey(ProviderOffering, on_delete=models.PROTECT, related_name="approvals")
    approved_on = models.DateField()
    reference = models.CharField(max_length=100, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["facility", "offering"], name="offering_approved_once")]

    def __str__(self) -> str:
        return f"{self.offering} approved for use {self.approved_on:%-d %b %Y}"


class TableOffering(AuditedModel):
    """A provider's offering configured at a table, from ``assigned_on`` until ``removed_on``."""

    facility_through = "table"

    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    offering = models.ForeignKey(ProviderOffering, on_delete=models.PROTECT, related_name="tables")
    assigned_on = models.DateField(help_text="Gaming day")
    assigned_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    removed_on = models.DateField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "offering"], condition=Q(removed_on__isnull=True),
                                               name="table_offering_once")]

    def __str__(self) -> str:
        return f"{self.offering} at table {self.table_id}"


class RenewalReminder(AuditedModel):
    """A reminder to renew (§ 528.4(b)) for one term, facility and stage: written once (the unique key), and
    marked sent only once the mail went."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    certification = models.ForeignKey(Certification, on_delete=models.PROTECT, related_name="reminders")
    stage = models.CharField(max_length=8, help_text="90, 75, 61 (days before the expiry) or late")
    due_on = models.DateField()
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["certification", "facility", "stage"],
                                               name="renewal_reminder_once")]

    def __str__(self) -> str:
        return f"Renewal reminder ({self.stage}) for {self.certification}"


DOCUMENT_SIZE = Bounds(1, MAX_PICTURE_BYTES)
DOCUMENT_TYPES = ("image/png", "image/jpeg", "application/pdf")


class ProviderFiling(AppendOnly, AuditedModel):
    """One thing this certificate holder filed or did about a provider under §§ 528.2, 528.3, 528.7(2), 528.8(a)
    or 528.9 (``kind``, each citing its clause), with its date, reference, notes and document. Never changed: a
    correction is a new filing of the same kind linked to the one it corrects (``corrects``), which then no
    longer counts."""

    append_only_what = "A provider's filings"
    append_only_hint = "; record a correction linked to the filing instead"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    provider = models.ForeignKey(GamingProvider, on_delete=models.PROTECT, related_name="filings")
    kind = models.CharField(max_length=24, choices=[(k.code, k.label) for k in KINDS])
    filed_on = models.DateField(verbose_name="date", help_text="The facility's gaming day it was filed, paid or done")
    reference = models.CharField(max_length=100, blank=True, help_text="The Board's, the Bureau's or your reference")
    subject_name = models.CharField(max_length=200, blank=True, verbose_name="individual or entity")
    subject_role = models.CharField(max_length=32, blank=True, verbose_name="role",
                                    choices=[(code, label) for code, label, _ in SUBJECT_ROLES])
    qualification = models.CharField(max_length=12, blank=True, verbose_name="outcome", choices=QUALIFICATIONS)
    finding = models.CharField(max_length=12, blank=True, verbose_name="conclusion", choices=FINDINGS)
    summary = models.TextField(blank=True, help_text="The findings of an investigation, or the action reported")
    notes = models.TextField(blank=True)
    document_name = models.CharField(max_length=200, verbose_name="document")
    content_type = models.CharField(max_length=40)
    size = models.PositiveIntegerField(validators=DOCUMENT_SIZE.validators, help_text="Bytes")
    sha256 = models.CharField(max_length=64, verbose_name="SHA-256")
    corrects = models.OneToOneField("self", on_delete=models.PROTECT, null=True, blank=True,
                                    related_name="corrected_by", help_text="The filing this one corrects")
    correction_reason = models.CharField(max_length=300, blank=True)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["facility", "provider", "filed_on", "pk"]
        constraints = [
            *DOCUMENT_SIZE.checks("size"),
            models.CheckConstraint(condition=Q(kind__in=[k.code for k in KINDS]), name="provider_filing_kind"),
            models.CheckConstraint(condition=Q(sha256__regex=r"^[0-9a-f]{64}$"), name="provider_filing_sha256"),
            models.CheckConstraint(condition=Q(content_type__in=DOCUMENT_TYPES), name="provider_filing_content_type"),
            models.CheckConstraint(condition=Q(corrects__isnull=True, correction_reason="")
                                   | (Q(corrects__isnull=False) & ~Q(correction_reason="")),
                                   name="provider_filing_correction_says_why"),
            models.CheckConstraint(condition=~Q(kind="qualification")
                                   | (~Q(subject_name="") & ~Q(subject_role="") & ~Q(qualification="")),
                                   name="provider_filing_qualification_named"),
            models.CheckConstraint(condition=~Q(kind="investigation") | (~Q(summary="") & ~Q(finding="")),
                                   name="provider_filing_investigation_concluded"),
            models.CheckConstraint(condition=~Q(kind="violation_report") | ~Q(summary=""),
                                   name="provider_filing_report_says_what"),
        ]

    if TYPE_CHECKING:
        provider_id: int
        corrects_id: int | None

    def __str__(self) -> str:
        return f"{self.what.cited} {self.provider.name}, {self.filed_on:%-d %b %Y} (#{self.pk})"

    @property
    def what(self) -> FilingKind:
        found = kind_of(self.kind)
        if found is None:  # the check constraint keeps every row to a known kind
            raise ValueError(f"Unknown filing kind {self.kind!r}")
        return found

    @property
    def is_image(self) -> bool:
        return self.content_type.startswith("image/")

    def get_absolute_url(self) -> str:
        return reverse("providers:detail", args=[self.provider_id]) + f"#filing-{self.pk}"


class ProviderFilingDocument(AppendOnly):
    """A filing's document as uploaded, kept apart so lists of filings never load it; checked against its SHA-256."""

    append_only_what = "A provider's filings"

    filing = models.OneToOneField(ProviderFiling, on_delete=models.PROTECT, related_name="document")
    data = models.BinaryField()

    if TYPE_CHECKING:
        filing_id: int

    def __str__(self) -> str:
        return f"Document of filing {self.filing_id}"

    def intact(self, sha256: str) -> bool:
        return hashlib.sha256(bytes(self.data)).hexdigest() == sha256
