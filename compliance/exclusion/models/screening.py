"""Screening runs, their matches and the compliance officer's signed decisions (§ 525.21(q)(7)).

A :class:`ScreeningRun` records one screening of a mailing (its subject: the mailing campaign record,
through a generic key so this app imports nothing of the app that mails): the list versions used, who
ran it and when, and how many patrons came out clear, excluded or for review. Each patron who did not
come out clear has one :class:`ScreeningMatch`. A match for review waits for a :class:`MatchDecision`,
which a compliance officer signs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from compliance.bounds import COUNT, ROW_ID, Bounds
from compliance.exclusion.models.lists import ExclusionEntry, ExclusionList
from compliance.models import AppendOnly, AuditedModel, Meaning, RegulatedRecord, SignatureRequirement
from compliance.roles import Role

__all__ = ["SCORE", "Decision", "MatchDecision", "MatchOutcome", "ScreeningMatch", "ScreeningRun"]

SCORE = Bounds(0, 100)  # how alike two names are, out of 100


class ScreeningRun(AppendOnly, AuditedModel):
    """One screening of a mailing against the lists in force; written once, never changed."""

    citation: ClassVar[str] = "525.21(q)(7)"
    append_only_what: ClassVar[str] = "Screening runs"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    content_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    object_id = models.PositiveBigIntegerField(validators=ROW_ID.validators)
    subject = GenericForeignKey("content_type", "object_id")
    self_exclusion_list = models.ForeignKey(ExclusionList, on_delete=models.PROTECT, related_name="+",
                                            verbose_name="self-exclusion list used")
    involuntary_list = models.ForeignKey(ExclusionList, on_delete=models.PROTECT, related_name="+",
                                         verbose_name="exclusion list used")
    candidate_count = models.PositiveIntegerField("patrons screened", validators=COUNT.validators)
    clear_count = models.PositiveIntegerField("clear", validators=COUNT.validators)
    excluded_count = models.PositiveIntegerField("excluded", validators=COUNT.validators)
    review_count = models.PositiveIntegerField("for review", validators=COUNT.validators)
    candidates_sha256 = models.CharField("SHA-256 of the patrons screened", max_length=64)
    created_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    if TYPE_CHECKING:
        matches: Any

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = "exclusion screening run"
        indexes = [models.Index(fields=["content_type", "object_id"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(candidate_count=F("clear_count") + F("excluded_count") + F("review_count")),
                name="exclusion_run_counts_add_up",
            ),
            *ROW_ID.checks("object_id"),
            *COUNT.checks("candidate_count", "clear_count", "excluded_count", "review_count"),
        ]

    def __str__(self) -> str:
        return f"Exclusion screening #{self.pk} of {self.candidate_count:,} patrons"

    def get_absolute_url(self) -> str:
        return reverse("exclusion:run-detail", args=[self.pk])


class MatchOutcome(models.TextChoices):
    EXCLUDED = "excluded", "Excluded (exact match)"
    REVIEW = "review", "For review (possible match)"


class ScreeningMatch(AppendOnly):
    """A patron of a run who is, or may be, the person of a list entry; written once, never changed."""

    append_only_what: ClassVar[str] = "Screening matches"

    run = models.ForeignKey(ScreeningRun, on_delete=models.PROTECT, related_name="matches")
    candidate_key = models.CharField("patron key", max_length=120)
    candidate_name = models.CharField("patron name", max_length=300)
    candidate_aliases = models.TextField("patron aliases", blank=True)
    candidate_date_of_birth = models.DateField("patron date of birth", null=True, blank=True)
    candidate_address = models.CharField("patron address", max_length=400, blank=True)
    entry = models.ForeignKey(ExclusionEntry, on_delete=models.PROTECT, related_name="+")
    outcome = models.CharField(max_length=10, choices=MatchOutcome.choices)
    score = models.PositiveSmallIntegerField("name score", validators=SCORE.validators)
    reasons = models.TextField(help_text="Why, one reason a line")

    if TYPE_CHECKING:
        decisions: Any
        run_id: int

    class Meta:
        ordering = ["run", "pk"]
        verbose_name = "exclusion screening match"
        verbose_name_plural = "exclusion screening matches"
        constraints = [
            models.UniqueConstraint(fields=["run", "candidate_key"], name="exclusion_match_one_per_patron"),
            *SCORE.checks("score"),
        ]

    def __str__(self) -> str:
        return f"{self.candidate_name} ({self.candidate_key}) — {self.get_outcome_display()}"

    def get_absolute_url(self) -> str:
        return reverse("exclusion:match-decide", args=[self.pk])

    @property
    def reason_lines(self) -> list[str]:
        return [line for line in self.reasons.splitlines() if line.strip()]


class Decision(models.TextChoices):
    EXCLUDED = "excluded", "Excluded — the same person"
    NOT_SAME_PERSON = "not_same_person", "Not the same person"


class MatchDecision(RegulatedRecord):
    """A compliance officer's decision on a possible match, with the reason, signed (§ 525.21(q)(7))."""

    citation = "525.21(q)(7)"
    named_with: ClassVar[tuple[str, ...]] = ("match",)
    signature_requirements = (
        SignatureRequirement(
            "decided", Meaning.REVIEWED, "Compliance officer deciding whether the patron is the listed person",
            roles=frozenset({Role.COMPLIANCE_OFFICER}), citation="525.21(q)(7)",
        ),
    )

    match = models.ForeignKey(ScreeningMatch, on_delete=models.PROTECT, related_name="decisions")
    decision = models.CharField(max_length=20, choices=Decision.choices)
    reason = models.TextField()

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = "exclusion match decision"
        constraints = [
            models.UniqueConstraint(fields=["match"], condition=models.Q(corrects__isnull=True),
                                    name="exclusion_decision_once_per_match"),
        ]

    def __str__(self) -> str:
        return f"Decision on {self.match.candidate_name}: {self.get_decision_display()}"

    def get_absolute_url(self) -> str:
        return reverse("exclusion:match-decide", args=[self.match_id])

    if TYPE_CHECKING:
        match_id: int
