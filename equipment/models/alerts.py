"""Overdue alerts raised by the sweep."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from compliance.models import AuditedModel
from compliance.times import when
from equipment.models.sets import DeckSet, DiceSet

__all__ = ["EquipmentAlert"]


class EquipmentAlert(AuditedModel):
    """One alert per overdue set; raised by the sweep, resolved when the change is logged."""

    class Kind(models.TextChoices):
        OVERDUE = "overdue", "Change overdue"

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.OVERDUE)
    dice_set = models.ForeignKey(DiceSet, on_delete=models.PROTECT, null=True, blank=True, related_name="alerts")
    deck_set = models.ForeignKey(DeckSet, on_delete=models.PROTECT, null=True, blank=True, related_name="alerts")
    due_at = models.DateTimeField()
    raised_at = models.DateTimeField(default=timezone.now)
    resolved_at = models.DateTimeField(null=True, blank=True)
    notified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-raised_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["dice_set", "kind"], condition=models.Q(dice_set__isnull=False), name="alert_one_per_dice_set"
            ),
            models.UniqueConstraint(
                fields=["deck_set", "kind"], condition=models.Q(deck_set__isnull=False), name="alert_one_per_deck_set"
            ),
            models.CheckConstraint(
                condition=models.Q(dice_set__isnull=True) ^ models.Q(deck_set__isnull=True),
                name="alert_for_dice_or_deck",
            ),
        ]
        indexes = [models.Index(fields=["facility", "resolved_at"], name="alert_open_idx")]

    def __str__(self) -> str:
        what = "Dice" if self.dice_set_id else "Deck"
        return f"{what} change overdue at {self.table.number} since {when(self.due_at, self.facility)}"

    @property
    def equipment(self) -> DiceSet | DeckSet | None:
        return self.dice_set or self.deck_set
