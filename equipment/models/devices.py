"""The Sic Bo opening inspection, device malfunctions and devices recorded back in service."""

from __future__ import annotations

from typing import ClassVar

from django.db import models
from django.urls import reverse
from django.utils import timezone

from compliance.bounds import SHAKER_OPERATIONS
from compliance.models import Meaning, RegulatedRecord, SignatureRequirement
from equipment.floor import FLOORPERSON_OR_ABOVE, THE_FLOORPERSON

__all__ = ["DeviceBackInService", "Malfunction", "OpeningInspection"]


class OpeningInspection(RegulatedRecord):
    """The floorperson's check of the Sic Bo electrical device and automated shaker (§ 539.5(a))."""

    citation = "539.5(a)(1)–(2)"
    named_with: ClassVar[tuple[str, ...]] = ("table",)
    signature_requirements = (
        SignatureRequirement(
            "floorperson",
            Meaning.INSPECTED,
            "Floorperson assigned to the table",
            roles=THE_FLOORPERSON,
            citation="539.5(a)(1)–(2)",
        ),
    )

    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    inspected_at = models.DateTimeField(default=timezone.now)
    values_entered = models.CharField(max_length=20, help_text="The three die values entered, e.g. 1-4-4")
    combinations_illuminated = models.BooleanField(help_text="Every winning combination lit correctly")
    automated_shaker_in_use = models.BooleanField(default=False)
    shaker_operations = models.PositiveSmallIntegerField(default=0, validators=SHAKER_OPERATIONS.validators)
    shaker_tossed_properly = models.BooleanField(default=False)
    passed = models.BooleanField()
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["-inspected_at"]
        indexes = [models.Index(fields=["table", "inspected_at"], name="inspection_table_idx")]
        constraints = SHAKER_OPERATIONS.checks("shaker_operations")

    def __str__(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        return f"Opening inspection of {self.table.number} {verdict}"

    def get_absolute_url(self) -> str:
        return reverse("equipment:inspection-detail", args=[self.pk])


class Malfunction(RegulatedRecord):
    """A device malfunction and what happened to the round (§ 539.7, § 575.13(l)–(n))."""

    named_with: ClassVar[tuple[str, ...]] = ("table",)

    class Device(models.TextChoices):
        SIC_BO_DISPLAY = "sic_bo_display", "Sic Bo electrical device / layout display"
        SIC_BO_SHAKER = "sic_bo_shaker", "Automated Sic Bo shaker"
        CARD_SHUFFLER = "card_shuffler", "Automated card shuffling device"
        DEALING_SHOE = "dealing_shoe", "Automated dealing shoe"

    class RoundOutcome(models.TextChoices):
        SETTLED_GAMING_CEASED = "settled_ceased", "Wagers settled before a floorperson; gaming ceased until fixed"
        VOID_RETURNED = "void_returned", "Round void; wagers returned to the players"
        RESHUFFLED = "reshuffled", "Cards reshuffled"
        VOID_RESHUFFLED = "void_reshuffled", "Round void, wagers returned, cards removed and reshuffled"

    # What each device's malfunction requires of the round; data, cited (see services).
    OUTCOMES: ClassVar[dict[str, tuple[str, str]]] = {
        Device.SIC_BO_DISPLAY: (RoundOutcome.SETTLED_GAMING_CEASED, "539.7(b)"),
        Device.SIC_BO_SHAKER: (RoundOutcome.VOID_RETURNED, "539.7(c)"),
        Device.CARD_SHUFFLER: (RoundOutcome.RESHUFFLED, "575.13(l)"),
        Device.DEALING_SHOE: (RoundOutcome.VOID_RESHUFFLED, "575.13(m)"),
    }

    # What takes a device out of use until it is recorded back in service (DeviceBackInService):
    # § 539.7(b) stops all gaming at the table until the electrical device or layout display is fixed;
    # § 575.13(n) and § 539.7(d): a shoe, shuffler or automated shaker signed out of order.
    STOPS_GAMING: ClassVar[dict[str, str]] = {Device.SIC_BO_DISPLAY: "539.7(b)"}
    OUT_OF_ORDER_CLAUSES: ClassVar[dict[str, str]] = {
        Device.SIC_BO_SHAKER: "539.7(d)",
        Device.CARD_SHUFFLER: "575.13(n)",
        Device.DEALING_SHOE: "575.13(n)",
    }

    citation = "539.7(b)–(d)"
    signature_requirements = (
        SignatureRequirement(
            "floorperson", Meaning.RECORDED, "Floorperson or above present", roles=FLOORPERSON_OR_ABOVE
        ),
    )

    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    occurred_at = models.DateTimeField(default=timezone.now)
    device = models.CharField(max_length=20, choices=Device.choices)
    description = models.TextField()
    round_outcome = models.CharField(max_length=20, choices=RoundOutcome.choices)
    out_of_order = models.BooleanField(
        default=False, help_text="Device covered or signed out of order before another method was used"
    )

    class Meta:
        ordering = ["-occurred_at"]

    def __str__(self) -> str:
        return f"{self.get_device_display()} malfunction at {self.table.number}"

    def get_absolute_url(self) -> str:
        return reverse("equipment:malfunction-detail", args=[self.pk])

    @classmethod
    def out_of_use(cls) -> models.Q:
        """The malfunctions that keep their device out of use (until a back-in-service record)."""
        return models.Q(back_in_service__isnull=True) & (
            models.Q(device__in=list(cls.STOPS_GAMING))
            | models.Q(out_of_order=True, device__in=list(cls.OUT_OF_ORDER_CLAUSES))
        )

    @property
    def takes_out_of_use(self) -> bool:
        return self.device in self.STOPS_GAMING or (self.out_of_order and self.device in self.OUT_OF_ORDER_CLAUSES)

    @property
    def clause(self) -> str:
        return self.STOPS_GAMING.get(self.device) or self.OUT_OF_ORDER_CLAUSES.get(self.device) or self.citation


class DeviceBackInService(RegulatedRecord):
    """A device taken out of use by a malfunction, recorded fixed and back in service (§ 539.7(b),
    § 575.13(n)); signed by a floorperson or above. One per malfunction (the database holds it)."""

    citation = "539.7(b)–(d)"
    named_with: ClassVar[tuple[str, ...]] = ("malfunction", "table")
    signature_requirements = (
        SignatureRequirement(
            "floorperson",
            Meaning.RECORDED,
            "Floorperson or above recording the device back in service",
            roles=FLOORPERSON_OR_ABOVE,
        ),
    )

    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    malfunction = models.OneToOneField(Malfunction, on_delete=models.PROTECT, related_name="back_in_service")
    returned_at = models.DateTimeField(default=timezone.now)
    repair = models.TextField(help_text="What was done: fixed, replaced, tested")

    class Meta:
        ordering = ["-returned_at"]

    def __str__(self) -> str:
        return f"{self.malfunction.get_device_display()} back in service at {self.table.number}"

    def get_absolute_url(self) -> str:
        return reverse("equipment:malfunction-detail", args=[self.malfunction_id])
