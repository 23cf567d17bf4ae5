"""The register of dice: every set of dice ever put in play at a facility, by its identifiers.

§ 577.4(d) ("a new set of dice shall be used when ... reopened", "if the dice show signs of
tampering"), § 675a.3(b)(1), § 668a.3(b)(1), § 539.2(b), § 575.2(c)(1)(i): a set leaves play for
good. The register makes "new" provable: a set is new only if its identifiers (normalized by
:func:`equipment.identifiers.dice_key`) were never put in play at the facility, and the database
holds it with a unique constraint on (facility, key), also against two placements at once.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from compliance.models import AuditedModel
from equipment.models.sets import DiceSet

__all__ = ["DiceRegisterEntry"]


class DiceRegisterEntry(AuditedModel):
    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    key = models.CharField(max_length=300, help_text="The identifiers, normalized (case, spaces, dashes)")
    identifiers = models.CharField(max_length=300, help_text="The identifiers as first entered")
    dice_set = models.OneToOneField(DiceSet, on_delete=models.PROTECT, related_name="register_entry")
    registered_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-registered_at"]
        constraints = [
            models.UniqueConstraint(fields=["facility", "key"], name="dice_register_one_use_per_facility"),
        ]

    def __str__(self) -> str:
        return f"Dice {self.identifiers}"
