"""A person's second factor reset, asked by one administrator and approved by another (issue 22, item 2)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from compliance.models.base import AuditedModel

__all__ = ["SecondFactorReset"]


class SecondFactorReset(AuditedModel):
    """Removing a person's authenticator app and backup codes lets whoever knows their password enrol a new one:
    one administrator asks, with the reason; a second administrator approves or refuses; the person is told.
    A decision is final (the row then never changes: the model refuses and history keeps every version)."""

    class Outcome(models.TextChoices):
        PENDING = "pending", "Waiting for a second administrator"
        APPROVED = "approved", "Approved: the second factor was removed"
        REFUSED = "refused", "Refused"

    person = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.TextField(help_text="Why: a lost or replaced phone, as the person reported it")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(default=timezone.now)
    outcome = models.CharField(max_length=10, choices=Outcome.choices, default=Outcome.PENDING)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                   related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["person"], condition=models.Q(outcome="pending"),
                                    name="second_factor_reset_one_pending"),
            models.CheckConstraint(
                condition=models.Q(outcome="pending", decided_by__isnull=True, decided_at__isnull=True)
                | (~models.Q(outcome="pending") & models.Q(decided_by__isnull=False, decided_at__isnull=False)),
                name="second_factor_reset_decided_with_who_and_when"),
            models.CheckConstraint(condition=~models.Q(decided_by=models.F("requested_by")),
                                   name="second_factor_reset_decided_by_another"),
            models.CheckConstraint(condition=~models.Q(person=models.F("requested_by")),
                                   name="second_factor_reset_not_asked_by_the_person"),
            models.CheckConstraint(condition=~models.Q(person=models.F("decided_by")),
                                   name="second_factor_reset_not_decided_by_the_person"),
        ]

    def __str__(self) -> str:
        return f"Second-factor reset of {self.person} ({self.get_outcome_display()})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            before = type(self)._default_manager.filter(pk=self.pk).values_list("outcome", flat=True).first()
            if before is not None and before != self.Outcome.PENDING:
                raise ValueError("A decided second-factor reset does not change; ask anew.")
        super().save(*args, **kwargs)
