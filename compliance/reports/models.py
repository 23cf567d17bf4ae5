"""The record of every report produced: runs (versions), their files, the sign-off and the filing.

* :class:`ReportRun`: one production of one report for one period — a *version*. Kind, facility, period
  (gaming days), who asked (or the schedule), status queued / running / succeeded / failed, attempts, the
  error in words, and the audit chain head at production. Producing the period again makes the next version;
  nothing is overwritten.
* :class:`ReportFile`: a file of a version (PDF, CSV, the page's data as JSON, the signed copy), its size and
  SHA-256. Append-only and sealed into the audit chain, so the hash of a filed report cannot be rewritten
  unseen; its bytes are in :class:`ReportFileContent` (append-only), checked against the hash when read.
* :class:`RunProgress`: how far a running job is, for the progress bar. Not evidence: a plain row updated in
  place, outside the audit trail (a progress tick is not a change anyone must answer for).
* :class:`ReportSignoff`: the prepared-by and approved-by signatures of a report that needs them (the
  quarterly report, § 525.21(o)); they vouch for the version's files by their SHA-256.
* :class:`ReportFiling`: the filing of one version with the Bureau (date, by whom, how sent, reference).
"""

from __future__ import annotations

import ast
import hashlib
from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from compliance.bounds import Bounds
from compliance.models import AppendOnly, AuditedModel, Job, RegulatedRecord, Sealed, SignedPart
from compliance.models.signatures import Meaning, SignatureRequirement
from compliance.roles import Role

__all__ = ["ReportFile", "ReportFileContent", "ReportFiling", "ReportRun", "ReportSignoff", "RunProgress"]

VERSION = Bounds(1, 10_000)
PERCENT = Bounds(0, 100)
ATTEMPTS = Bounds(0, 1_000)
FILE_SIZE = Bounds(0, 2_000_000_000)


class ReportRun(Job):
    """One version of one report for one period of one facility (see the module docstring); its status words and
    times are every job's (``compliance.models.Job``)."""

    class Trigger(models.TextChoices):
        ON_DEMAND = "on_demand", "On demand"
        SCHEDULE = "schedule", "On the schedule"

    # What a sign-off vouches for of its version (ReportSignoff.signable_content): frozen once signed.
    signed_part_of = SignedPart("signoff", columns=("kind", "period_start", "period_end", "version", "chain_digest"))

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=40, help_text="The report's code in the catalogue, e.g. 'quarterly-coupons'")
    period_start = models.DateField(help_text="First gaming day of the period")
    period_end = models.DateField(help_text="Last gaming day of the period")
    version = models.PositiveIntegerField(validators=VERSION.validators)
    trigger = models.CharField(max_length=10, choices=Trigger.choices, default=Trigger.ON_DEMAND)
    attempts = models.PositiveIntegerField(default=0, validators=ATTEMPTS.validators,
                                           help_text="Times a worker started it (a worker lost mid-report starts again)")
    chain_digest = models.CharField(max_length=64, blank=True,
                                    help_text="The audit chain head's digest when the report was produced")
    chain_head: Any = models.JSONField(default=dict, blank=True, help_text="Each chain's last link then")

    class Meta(Job.Meta):
        indexes = [models.Index(fields=["facility", "kind", "period_start", "period_end"], name="report_run_period")]
        constraints = [
            models.UniqueConstraint(fields=["facility", "kind", "period_start", "period_end", "version"],
                                    name="report_run_version_once"),
            # One job waiting or running per report and period: asking again while it runs answers with it.
            models.UniqueConstraint(fields=["facility", "kind", "period_start", "period_end"],
                                    condition=models.Q(status__in=["queued", "running"]), name="report_run_one_active"),
            # Beat produces a period once, however often it fires (a second beat, a restart).
            models.UniqueConstraint(fields=["facility", "kind", "period_start", "period_end"],
                                    condition=models.Q(trigger="schedule"), name="report_run_scheduled_once"),
            models.CheckConstraint(condition=models.Q(period_end__gte=models.F("period_start")),
                                   name="report_run_period_ordered"),
            *VERSION.checks("version"),
            *ATTEMPTS.checks("attempts"),
        ]

    def __str__(self) -> str:
        """In the Board's words (an audit row, a chain anchor's subject, a signature): the report's title, the period
        and the version — never the kind's code."""
        from compliance.reports.periods import Period

        return f"{self.kind_title}, {Period(self.period_start, self.period_end).label()}, version {self.version}"

    @property
    def kind_title(self) -> str:
        from compliance.reports.registry import kind_of

        kind = kind_of(self.kind)
        return kind.title if kind is not None else self.kind

    def get_absolute_url(self) -> str:
        return reverse("reports:run", args=[self.pk])


def _chain_head_in_words(value: Any) -> str:
    """A version's chain head as the audit trail prints it: each chain by the records it seals, and its last link
    ("Audit events: link 6"), never "{'compliance.AuditEvent@3': [6, '…']}"."""
    from compliance.reports.render import chain_words

    if isinstance(value, str):  # the audit trail keeps a changed JSON value as its text
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return value
    if not isinstance(value, dict):
        return str(value)
    if not value:
        return "none yet"
    return "; ".join(f"{chain_words(str(label))}: link {head[0] if isinstance(head, list | tuple) and head else head}"
                     for label, head in sorted(value.items()))


ReportRun._meta.get_field("chain_head").in_words = _chain_head_in_words  # type: ignore[attr-defined]


def _kind_in_words(value: Any) -> str:
    """A report kind by its title ("Quarterly Match Play Coupon report"), never its code."""
    from compliance.reports.registry import kind_of

    kind = kind_of(str(value))
    return kind.title if kind is not None else str(value)


ReportRun._meta.get_field("kind").in_words = _kind_in_words  # type: ignore[attr-defined]


class RunProgress(models.Model):
    """How far a job has gone, for the progress bar (not evidence: see the module docstring)."""

    run = models.OneToOneField(ReportRun, on_delete=models.CASCADE, primary_key=True, related_name="progress")
    percent = models.PositiveSmallIntegerField(default=0, validators=PERCENT.validators)
    stage = models.CharField(max_length=120, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [*PERCENT.checks("percent")]

    def __str__(self) -> str:
        return f"{self.percent}% {self.stage}"


class ReportFile(Sealed, AppendOnly):
    """A file of a version: never changed or deleted (the database refuses), sealed into the audit chain."""

    append_only_what = "Report files"
    append_only_hint = "; produce the period again for a new version"
    # The sign-off vouches for the version's files by their SHA-256: no file is added once it is signed,
    # but the signed copy its approval makes.
    signed_part_of: ClassVar[SignedPart] = SignedPart("run__signoff", insert_allowed_if=(("format", "signed.pdf"),))
    chain_facility: ClassVar[str] = "run__facility"

    class Format(models.TextChoices):
        PDF = "pdf", "PDF"
        CSV = "csv", "CSV"
        DATA = "json", "Page data (JSON)"
        SIGNED_PDF = "signed.pdf", "Signed copy (PDF)"

    CONTENT_TYPES: ClassVar[dict[str, str]] = {
        "pdf": "application/pdf", "csv": "text/csv; charset=utf-8", "json": "application/json",
        "signed.pdf": "application/pdf",
    }

    run = models.ForeignKey(ReportRun, on_delete=models.PROTECT, related_name="files")
    format = models.CharField(max_length=12, choices=Format.choices)
    name = models.CharField(max_length=200)
    size = models.BigIntegerField(validators=FILE_SIZE.validators)
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["run", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["run", "format"], name="report_file_format_once"),
            *FILE_SIZE.checks("size"),
        ]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def belongs_to(cls, content: dict[str, Any]) -> str:
        return f"report version #{content.get('run_id')} (its file {content.get('name')})"

    @property
    def content_type(self) -> str:
        return self.CONTENT_TYPES.get(self.format, "application/octet-stream")

    def get_absolute_url(self) -> str:
        return reverse("reports:file", args=[self.run_id, self.format])


class ReportFileContent(AppendOnly):
    """A file's bytes, kept apart so lists of files never load them; checked against the file's SHA-256."""

    append_only_what = "Report files"

    file = models.OneToOneField(ReportFile, on_delete=models.PROTECT, related_name="content")
    data = models.BinaryField()

    def __str__(self) -> str:
        return f"Content of {self.file_id}"

    def intact(self, sha256: str) -> bool:
        return hashlib.sha256(bytes(self.data)).hexdigest() == sha256


FINANCE_SUPERVISOR = frozenset({Role.FINANCE_SUPERVISOR})
COMPLIANCE_OFFICER = frozenset({Role.COMPLIANCE_OFFICER})


class ReportSignoff(RegulatedRecord):
    """Prepared by and approved by, for a report that needs them, vouching for a version's files.

    § 525.21(o) names no one. The figures come from the Match Play Coupon ledger, which is "recorded,
    maintained and controlled by the finance department" (§ 525.21(m)(4)): a finance supervisor prepares the
    report; a compliance officer — another department, another person — approves it before it is filed with
    the Bureau (segregation of duties, § 525.21(r)(2))."""

    citation: ClassVar[str] = "525.21(o)"
    named_with: ClassVar[tuple[str, ...]] = ("run",)
    signature_requirements = (
        SignatureRequirement("prepared", Meaning.PREPARED, "Prepared by (finance supervisor)",
                             roles=FINANCE_SUPERVISOR, citation="525.21(o)"),
        SignatureRequirement("approved", Meaning.APPROVED, "Approved by (compliance officer)",
                             roles=COMPLIANCE_OFFICER, citation="525.21(o)", after="prepared"),
    )

    run = models.OneToOneField(ReportRun, on_delete=models.PROTECT, related_name="signoff")

    def __str__(self) -> str:
        return f"Sign-off of {self.run}"

    @classmethod
    def still_awaited(cls, pending: models.QuerySet[Any]) -> models.QuerySet[Any]:
        """A version overtaken by a newer succeeded version of the same report and period is not signed."""
        newer = ReportRun.objects.filter(
            facility_id=models.OuterRef("run__facility_id"), kind=models.OuterRef("run__kind"),
            period_start=models.OuterRef("run__period_start"), period_end=models.OuterRef("run__period_end"),
            version__gt=models.OuterRef("run__version"), status=ReportRun.Status.SUCCEEDED,
        )
        return pending.exclude(models.Exists(newer))

    def signable_content(self) -> dict[str, Any]:
        """The version signed for: its period and the SHA-256 of each file it was produced with (the signed
        copy, made when the approval completes, is not part of what is signed)."""
        files = sorted((f.format, f.sha256) for f in self.run.files.all() if f.format != ReportFile.Format.SIGNED_PDF)
        run = self.run
        return super().signable_content() | {
            "report": [run.kind, run.period_start.isoformat(), run.period_end.isoformat(), run.version],
            "files": files,
            "chain_digest": run.chain_digest,
        }

    def get_absolute_url(self) -> str:
        return self.run.get_absolute_url()


class ReportFiling(AppendOnly, AuditedModel):
    """A version filed with the Bureau (§ 525.21(o): "prepare and file with the Bureau of Casino Compliance").
    Append-only: a filing is never changed; filing another version is another record."""

    append_only_what = "Report filings"
    append_only_hint = "; file the corrected version as a new filing"
    citation: ClassVar[str] = "525.21(o)"

    class Method(models.TextChoices):
        PORTAL = "portal", "The Board's electronic filing portal"
        EMAIL = "email", "E-mail"
        MAIL = "mail", "Mail or courier"
        HAND = "hand", "Hand delivery"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    run = models.OneToOneField(ReportRun, on_delete=models.PROTECT, related_name="filing")
    filed_on = models.DateField(help_text="The date it was sent to the Bureau")
    method = models.CharField(max_length=10, choices=Method.choices)
    recipient = models.CharField(max_length=200, default="Bureau of Casino Compliance")
    reference = models.CharField(max_length=200, blank=True, help_text="A confirmation or tracking number, if any")
    notes = models.TextField(blank=True)
    filed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-filed_on", "-pk"]

    def __str__(self) -> str:
        return f"Filing of {self.run}"

    def get_absolute_url(self) -> str:
        return self.run.get_absolute_url()
