"""The facility's Rules Submission and what the tables, signs and guides take from it (58 Pa. Code ch. 521).

* :class:`RulesSubmission` — one version of the whole submission: every game's choices as filed
  (``{game code: {option: value}}``, :mod:`compliance.submissions.catalogue`). A draft is edited; signing it
  files it with the Board and freezes it (the model, and on PostgreSQL the signed-record trigger). An amendment
  (§ 521.8(b)) is a new version naming the one it amends.
* :class:`BoardDecision` — the Board's approval (with the date it takes effect) or rejection: append-only.
  The rules in force on a day are those of the approved version with the latest effective date on or before it.
* :class:`TableSetting` — what one table runs of the permissions the submission grants (six dice, the Bonus
  Wager, adjacent areas), from a time: append-only, the latest row is the table's setting.
* :class:`WagerLimitChange` — a table's minimum and maximum wager (§ 521.7) from the time it takes effect;
  the latest applied row is in force. With patrons playing, at least 30 minutes' notice (§ 521.8(c)(2)), which
  the database holds too.
* :class:`GamingGuide` and :class:`GuideApproval` — the abridged guide per game (§ 521.9(b)) and the Bureau of
  Gaming Operations' approval of its sample (§ 521.9(c)–(d)).
* :class:`SignApproval` — the Bureau of Gaming Operations' approval of the location, size and language of each kind
  of sign (§ 521.8(d)): append-only, the latest approval of a kind supersedes the earlier ones.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.db.models import F, Q
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
    "NOTICE",
    "SIGN_LANGUAGES",
    "BoardDecision",
    "GamingGuide",
    "GuideApproval",
    "RulesSubmission",
    "SignApproval",
    "SignKind",
    "SignSize",
    "TableSetting",
    "WagerLimitChange",
]

NOTICE = timedelta(minutes=30)  # § 521.8(c)(2)(i)
_COMPLIANCE = frozenset({Role.COMPLIANCE_OFFICER})


class RulesSubmission(RegulatedRecord):
    citation: ClassVar[str] = "521.8(b)"
    signature_requirements = (
        SignatureRequirement("submitted", Meaning.PREPARED, "Compliance officer filing it with the Board",
                             roles=_COMPLIANCE, citation="521.8(b)"),
    )

    number = models.PositiveIntegerField(help_text="Version, counted per facility")
    amends = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True, related_name="amendments",
                               help_text="The approved version this amendment changes (§ 521.8(b))")
    title = models.CharField(max_length=200)
    summary = models.TextField(blank=True, help_text="What it changes and why")
    rules = models.JSONField(default=dict)

    class Meta:
        ordering = ["facility", "-number"]
        constraints = [models.UniqueConstraint(fields=["facility", "number"], name="submission_number_once")]

    def __str__(self) -> str:
        return f"Rules Submission v{self.number}: {self.title}"

    def signable_content(self) -> dict[str, Any]:
        return {"number": self.number, "amends": self.amends_id, "title": self.title, "summary": self.summary,
                "rules": self.rules}

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("submissions:detail", args=[self.pk])

    def after_signature(self, signature: Any) -> None:
        """However it is signed (this app's page or the generic one), a version that breaks a rule is not filed."""
        from django.core.exceptions import ValidationError

        from compliance.submissions.selectors import submission_refusals

        refusals = submission_refusals(self)
        if refusals:
            raise ValidationError(refusals)


class Decision(models.TextChoices):
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"


class BoardDecision(AppendOnly, AuditedModel):
    append_only_what = "The Board's decisions"
    append_only_hint = "; file an amendment instead"
    citation: ClassVar[str] = "521.8(b)"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    submission = models.OneToOneField(RulesSubmission, on_delete=models.PROTECT, related_name="decision")
    decision = models.CharField(max_length=10, choices=Decision.choices)
    decided_on = models.DateField(help_text="The date of the Board's written decision")
    effective_on = models.DateField(null=True, blank=True, help_text="Gaming day the approved rules take effect")
    reference = models.CharField(max_length=200, blank=True, help_text="The Board's letter or file reference")
    reason = models.TextField(blank=True, help_text="The Board's reasons, for a rejection")
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-effective_on", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(decision=Decision.APPROVED, effective_on__gte=F("decided_on"))
                | Q(decision=Decision.REJECTED, effective_on__isnull=True),
                name="board_decision_effective_when_approved"),
        ]

    def __str__(self) -> str:
        return f"{self.get_decision_display()} {self.decided_on:%-d %b %Y}: {self.submission}"


class TableSetting(AppendOnly, AuditedModel):
    append_only_what = "Table settings"
    append_only_hint = "; record the table's new setting instead"
    citation: ClassVar[str] = "521.8(b)"
    facility_through = "table"

    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    options = models.JSONField(default=dict, help_text="The submission's permissions this table runs")
    since = models.DateTimeField(default=timezone.now)
    set_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["table", "-since", "-pk"]
        indexes = [models.Index(fields=["table", "-since"])]

    def __str__(self) -> str:
        return f"Table {self.table.number} settings from {timezone.localtime(self.since):%-d %b %Y %H:%M}"


class WagerLimitChange(AuditedModel):
    """A table's minimum and maximum wager from ``effective_at`` (§ 521.7(a)–(b), § 521.8(c))."""

    citation: ClassVar[str] = "521.8(c)(1)–(2)"
    facility_through = "table"

    class State(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        APPLIED = "applied", "In force"
        CANCELLED = "cancelled", "Cancelled"
        LAPSED = "lapsed", "Not applied"

    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    minimum = models.DecimalField(max_digits=12, decimal_places=2)
    maximum = models.DecimalField(max_digits=12, decimal_places=2)
    patrons_playing = models.BooleanField(help_text="Patrons were playing at the table when it was asked")
    requested_at = models.DateTimeField(default=timezone.now)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    effective_at = models.DateTimeField()
    posted_at = models.DateTimeField(null=True, blank=True, help_text="When the sign was posted at the table")
    posted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                                  null=True, blank=True)
    announced_at = models.DateTimeField(null=True, blank=True)
    announced_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                                     null=True, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.SCHEDULED)
    applied_at = models.DateTimeField(null=True, blank=True)
    closed_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["table", "-effective_at", "-pk"]
        indexes = [models.Index(fields=["state", "effective_at"]), models.Index(fields=["table", "-applied_at"])]
        constraints = [
            models.CheckConstraint(condition=Q(minimum__gt=0, maximum__gte=F("minimum")),
                                   name="wager_limits_ordered"),
            # § 521.8(c)(2)(i): with patrons playing, at least 30 minutes between the notice and the change.
            models.CheckConstraint(condition=Q(patrons_playing=False) | Q(effective_at__gte=F("requested_at") + NOTICE),
                                   name="wager_limit_notice_30_minutes"),
            models.CheckConstraint(condition=Q(posted_at__isnull=True) | Q(effective_at__gte=F("posted_at") + NOTICE),
                                   name="wager_limit_sign_30_minutes"),
            models.CheckConstraint(condition=~Q(state="applied") | Q(applied_at__isnull=False),
                                   name="wager_limit_applied_dated"),
            models.UniqueConstraint(fields=["table"], condition=Q(state="scheduled"), name="wager_limit_one_pending"),
        ]

    def __str__(self) -> str:
        return f"Table {self.table.number}: ${self.minimum:,.2f}–${self.maximum:,.2f}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Final once it leaves "scheduled" (PostgreSQL holds it too, migration 0002)."""
        if not self._state.adding:
            stored = type(self).objects.filter(pk=self.pk).values_list("state", flat=True).first()
            if stored is not None and stored != self.State.SCHEDULED:
                raise RegulatedWriteError(f"This wager limit change is {stored}: it can no longer change.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        raise RegulatedWriteError("Wager limit changes are never deleted; cancel a scheduled one instead.")


class GamingGuide(RegulatedRecord):
    """One version of the abridged guide of one game (§ 521.9(b)), generated from the catalogue and the rules
    of a Rules Submission version; signing it sends the sample to the Bureau of Gaming Operations."""

    citation: ClassVar[str] = "521.9(a)–(f)"
    signature_requirements = (
        SignatureRequirement("submitted", Meaning.PREPARED, "Compliance officer sending the sample to the Bureau",
                             roles=_COMPLIANCE, citation="521.9(c)"),
    )

    game = models.ForeignKey("compliance.Game", on_delete=models.PROTECT, related_name="+")
    version = models.PositiveIntegerField()
    submission = models.ForeignKey(RulesSubmission, on_delete=models.PROTECT, related_name="guides")
    body = models.JSONField(default=dict, help_text="Title, sections and lines as printed")
    material_hash = models.CharField(max_length=64, help_text="SHA-256 of the rules the guide states")

    class Meta:
        ordering = ["facility", "game", "-version"]
        constraints = [models.UniqueConstraint(fields=["facility", "game", "version"], name="guide_version_once")]

    def __str__(self) -> str:
        return f"{self.body.get('title', 'Gaming guide')} (version {self.version})"

    def signable_content(self) -> dict[str, Any]:
        return {"game": self.game_id, "version": self.version, "submission": self.submission_id, "body": self.body,
                "material_hash": self.material_hash}


class GuideApproval(AppendOnly, AuditedModel):
    append_only_what = "Guide approvals"
    append_only_hint = "; a changed guide is a new version, approved anew"
    citation: ClassVar[str] = "521.9(a)–(f)"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    guide = models.OneToOneField(GamingGuide, on_delete=models.PROTECT, related_name="approval")
    approved_on = models.DateField(help_text="The date of the Bureau of Gaming Operations' approval")
    reference = models.CharField(max_length=200, blank=True)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-approved_on", "-pk"]

    def __str__(self) -> str:
        return f"{self.guide} approved {self.approved_on:%-d %b %Y}"


class SignKind(models.TextChoices):
    """The signs § 521.8 requires at a table, each approved by the Bureau of Gaming Operations (§ 521.8(d))."""

    RULES = "rules", "The rules and payout odds in effect at the table (§ 521.8(a))"
    LIMITS = "limits", "The minimum and maximum wagers in effect at the table (§ 521.7(b), § 521.8(a))"
    LIMIT_CHANGE = "limit-change", "Notice of a change of the minimum or maximum wager (§ 521.8(c)(2)(ii))"


class SignSize(models.TextChoices):
    """The paper sizes the system prints a sign on: an approved sign prints at its approved size."""

    LETTER = "letter", "Letter, 8.5 × 11 in"
    LEGAL = "legal", "Legal, 8.5 × 14 in"
    TABLOID = "tabloid", "Tabloid, 11 × 17 in"


# The language the system prints its signs in: a sign in another language is not one this system prints.
SIGN_LANGUAGES = ("English",)


class SignApproval(AppendOnly, AuditedModel):
    """The Bureau of Gaming Operations approved the location, size and language of one kind of sign before its use
    (§ 521.8(d)). The latest approval of a kind (by its date) is the one in force; an earlier one is superseded."""

    append_only_what = "Sign approvals"
    append_only_hint = "; record the Bureau's newer approval instead"
    citation: ClassVar[str] = "521.8(d)"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=20, choices=SignKind.choices)
    location = models.CharField(max_length=300, help_text="Where at the table the sign is posted, as approved")
    size = models.CharField(max_length=20, choices=SignSize.choices)
    language = models.CharField(max_length=40, default="English")
    approved_on = models.DateField(help_text="The date of the Bureau of Gaming Operations' approval")
    reference = models.CharField(max_length=200, help_text="The Bureau's letter or file reference")
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["facility", "kind", "-approved_on", "-pk"]
        indexes = [models.Index(fields=["facility", "kind", "-approved_on"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: approved {self.approved_on:%-d %b %Y} ({self.reference})"
