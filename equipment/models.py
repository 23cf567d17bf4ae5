"""Dice and deck logs, table sessions, opening inspections, malfunctions and equipment alerts.

Design decisions (see also docs/equipment.md):

* What each game needs is data (:class:`EquipmentRequirement`, seeded by migration 0002), so the
  next game is a row, not code.
* A set of dice or decks put into play is a :class:`DiceSet` / :class:`DeckSet` record, signed at
  placement by the floorperson and the dealer (two people). Its removal is a separate signed record
  (:class:`DiceRemoval` / :class:`DeckRemoval`) with the reason and the accounting of the dice.
  The placement record also carries ``removed_at``: a derived "still in play?" marker that the
  removal service sets in the same transaction. It is left out of the signed content
  (``unsigned_fields``) and written only through :meth:`InPlayRecord.mark_removed`, which keeps
  history, so the database can hold the rule "at most one set in play per table" with a partial
  unique index, and the sweep can find every set in play with an index.
* ``due_at`` is computed once, at placement, from the requirement in force (24 h for dice; 4 h or
  8 h for decks) and is part of the signed content, so the clock a set runs against never changes
  behind its back and the sweep compares one indexed column.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone

from compliance.models import AuditedModel, Meaning, RegulatedRecord, SignatureRequirement
from compliance.roles import Role

__all__ = [
    "DeckRemoval",
    "DeckSet",
    "DiceRemoval",
    "DiceSet",
    "EquipmentAlert",
    "EquipmentRequirement",
    "Malfunction",
    "OpeningInspection",
    "TableSession",
]

_FLOOR = frozenset({Role.FLOORPERSON, Role.SHIFT_MANAGER})
_DEALER = frozenset({Role.DEALER})


class Container(models.TextChoices):
    DICE_CUP = "dice_cup", "Dice cup (held by the stickperson)"
    SHAKER = "shaker", "Dice shaker bearing the facility's name or logo"


class EquipmentRequirement(AuditedModel):
    """What the regulations require at a table of one game: dice, container, decks, clocks."""

    game = models.OneToOneField("compliance.Game", on_delete=models.PROTECT, related_name="equipment_requirement")
    dice_count = models.PositiveSmallIntegerField(default=0, help_text="Dice in a set; 0 when the game uses none")
    variation_dice_count = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Dice in a set when a variation is offered (High Roll Dice: six)"
    )
    dice_colours = models.CharField(max_length=100, blank=True, help_text="e.g. 4 green, 2 red")
    die_size_mm = models.PositiveSmallIntegerField(null=True, blank=True)
    container = models.CharField(max_length=20, choices=Container.choices, blank=True)
    dice_max_hours = models.PositiveSmallIntegerField(default=24, help_text="Longest a set may stay in play")
    dice_required_to_open = models.BooleanField(default=True)
    new_dice_on_reopen = models.BooleanField(default=True, help_text="A new set must be put in play on reopening")
    clock_runs_while_closed = models.BooleanField(
        default=False,
        help_text="The dice clock runs while the table is closed too: the dice 'may not remain on a table' longer "
        "than the limit (§ 675a.3(b)(1), § 668a.3(b)(1), § 575.2(c)(1)(i)); off, the clock counts only time open "
        "for gaming (§ 577.4(d), § 539.2(b))",
    )
    dice_citation = models.CharField(max_length=60, blank=True)
    uses_decks = models.BooleanField(default=False)
    max_decks = models.PositiveSmallIntegerField(default=0)
    deck_hand_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    deck_shoe_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    deck_citation = models.CharField(max_length=60, blank=True)
    opening_inspection_required = models.BooleanField(default=False)
    inspection_citation = models.CharField(max_length=60, blank=True)
    notes = models.TextField(blank=True)

    class Meta:
        ordering = ["game__name"]

    def __str__(self) -> str:
        return f"Equipment for {self.game}"

    @property
    def uses_dice(self) -> bool:
        return self.dice_count > 0

    def allowed_dice_counts(self) -> set[int]:
        return {n for n in (self.dice_count, self.variation_dice_count) if n}


class TableSession(AuditedModel):
    """One opening of a table for gaming, and its closing; the history of ``GamingTable.is_open``."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="sessions")
    opened_at = models.DateTimeField()
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    opening_unrecorded = models.BooleanField(
        default=False,
        help_text="The table was marked open outside the log (no opening recorded); the session was written when "
        "it closed, from the table's history, so the reopening rule still applies",
    )

    class Meta:
        ordering = ["-opened_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["table"], condition=models.Q(closed_at__isnull=True), name="equipment_one_open_session"
            ),
            models.CheckConstraint(
                condition=models.Q(closed_at__isnull=True) | models.Q(closed_at__gte=models.F("opened_at")),
                name="equipment_session_closes_after_opening",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table.number} opened {timezone.localtime(self.opened_at):%d %b %H:%M}"


class InPlayRecord(RegulatedRecord):
    """A set of dice or cards put into play at a table; removed by a separate signed record."""

    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    placed_at = models.DateTimeField(default=timezone.now)
    due_at = models.DateTimeField(help_text="When the set must be out of play at the latest")
    floorperson = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    removed_at = models.DateTimeField(null=True, blank=True, editable=False)

    unsigned_fields: ClassVar[frozenset[str]] = frozenset({"removed_at"})
    kind_label: ClassVar[str] = "set"

    class Meta:
        abstract = True

    @property
    def in_play(self) -> bool:
        return self.removed_at is None

    def overdue_at(self, now: Any) -> bool:
        """Overdue means in play strictly longer than the limit: 24:00:00 is fine, 24:00:01 is not."""
        end = self.removed_at or now
        return end > self.due_at

    def remaining(self, now: Any) -> timedelta:
        return self.due_at - now

    @property
    def removal(self) -> Any:
        """The removal in force for this set, or None while in play.

        A removal stays linked to the set first logged; a correction of the set copies its
        ``removed_at``, so on a correction this is the original's removal. Of a corrected removal,
        the latest correction is the one in force. Logs prefetch ``current_removals``.
        """
        prefetched = self.__dict__.get("current_removals")
        if prefetched is not None and not self.corrects_id:
            return prefetched[0] if prefetched else None
        if "_removal" not in self.__dict__:
            root: Any = self
            while root.corrects_id:
                root = root.corrects
            self.__dict__["_removal"] = root.removals.filter(corrected_by__isnull=True).order_by("-pk").first()
        return self.__dict__["_removal"]

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self._state.adding and self.corrects_id and self.removed_at is None:
            # Two rows "in play" for one table would break the one-set-in-play rule: a set is
            # corrected once it is out of play (its removal is then copied to the correction).
            raise ValidationError(
                f"Correct this {self.kind_label} record after it leaves play; while it is in play, change it instead."
            )
        super().save(*args, **kwargs)

    def mark_removed(self, removed_at: Any) -> None:
        """Set the derived in-play marker; the removal itself is its own signed record.

        ``removed_at`` is not part of the signed content (``unsigned_fields``), so it may change
        after signing; the change is kept in history.
        """
        self.removed_at = removed_at
        self.save_unsigned_fields("removed_at")


def _placement_signatures(citation: str, dealer_label: str) -> tuple[SignatureRequirement, ...]:
    return (
        SignatureRequirement(
            "floorperson", Meaning.PLACED, "Floorperson placing the set in play", roles=_FLOOR, citation=citation
        ),
        SignatureRequirement("dealer", Meaning.VERIFIED, dealer_label, roles=_DEALER, citation=citation),
    )


class DiceSet(InPlayRecord):
    """A set of dice put into play at a table (§ 577.4(d), § 675a.3(b)(1), § 668a.3, § 539.2, § 575.2(c))."""

    class PlacedBecause(models.TextChoices):
        OPENING = "opening", "Table opening / reopened for gaming"
        SCHEDULED = "scheduled", "Scheduled 24-hour change"
        REPLACEMENT = "replacement", "Replacing a set removed for cause"

    citation = "577.4(d)"
    signature_requirements = _placement_signatures(
        "668a.3(d)", "Dealer present when the dice were placed (stickperson at Three Dice Football)"
    )
    kind_label = "dice"

    identifiers = models.CharField(max_length=300, help_text="Serial numbers or lot of the dice")
    colours = models.CharField(max_length=100, blank=True)
    dice_count = models.PositiveSmallIntegerField()
    container = models.CharField(max_length=20, choices=Container.choices)
    placed_because = models.CharField(max_length=20, choices=PlacedBecause.choices, default=PlacedBecause.SCHEDULED)

    class Meta:
        ordering = ["-placed_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["table"], condition=models.Q(removed_at__isnull=True), name="equipment_one_dice_set_in_play"
            ),
            models.CheckConstraint(condition=models.Q(due_at__gt=models.F("placed_at")), name="dice_due_after_placed"),
            models.CheckConstraint(condition=models.Q(dice_count__gt=0), name="dice_set_has_dice"),
        ]
        indexes = [
            models.Index(fields=["due_at"], condition=models.Q(removed_at__isnull=True), name="dice_due_in_play_idx"),
            models.Index(fields=["facility", "placed_at"], name="dice_facility_placed_idx"),
        ]

    def __str__(self) -> str:
        return f"Dice {self.identifiers} at {self.table.number}"

    def get_absolute_url(self) -> str:
        return reverse("equipment:dice-detail", args=[self.pk])


class DeckSet(InPlayRecord):
    """One or two decks put into play at an Asia Poker table (§ 575.3, § 575.4)."""

    class DealtFrom(models.TextChoices):
        HAND = "hand", "Dealt by hand"
        MANUAL_SHOE = "manual_shoe", "Manual dealing shoe"
        AUTOMATED_SHOE = "automated_shoe", "Automated dealing shoe"

    citation = "575.3(c)(1)–(2)"
    signature_requirements = (
        SignatureRequirement(
            "dealer", Meaning.INSPECTED, "Dealer who inspected the cards", roles=_DEALER, citation="575.4(a)"
        ),
        SignatureRequirement(
            "floorperson", Meaning.VERIFIED, "Floorperson verifying the inspection", roles=_FLOOR, citation="575.4(a)"
        ),
    )
    kind_label = "deck"

    deck_count = models.PositiveSmallIntegerField(default=1)
    back_colours = models.CharField(max_length=100, help_text="Back colour of each deck, e.g. red / blue")
    identifiers = models.CharField(max_length=300, blank=True, help_text="Deck serials or lot")
    dealt_from = models.CharField(max_length=20, choices=DealtFrom.choices)
    automated_shuffler = models.BooleanField(default=False)
    jokers_per_deck = models.PositiveSmallIntegerField(default=1)
    second_joker_torn = models.BooleanField(default=False)

    class Meta:
        ordering = ["-placed_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["table"], condition=models.Q(removed_at__isnull=True), name="equipment_one_deck_set_in_play"
            ),
            models.CheckConstraint(condition=models.Q(due_at__gt=models.F("placed_at")), name="deck_due_after_placed"),
            models.CheckConstraint(condition=models.Q(deck_count__in=[1, 2]), name="deck_one_or_two"),
            # § 575.3(b): two decks only with an automated card shuffling device.
            models.CheckConstraint(
                condition=models.Q(deck_count=1) | models.Q(automated_shuffler=True), name="two_decks_need_shuffler"
            ),
            # § 575.4(b): a deck made with two jokers has the second one torn in half.
            models.CheckConstraint(
                condition=models.Q(jokers_per_deck=1) | models.Q(second_joker_torn=True), name="second_joker_torn"
            ),
        ]
        indexes = [
            models.Index(fields=["due_at"], condition=models.Q(removed_at__isnull=True), name="deck_due_in_play_idx"),
            models.Index(fields=["facility", "placed_at"], name="deck_facility_placed_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.deck_count} deck(s) ({self.back_colours}) at {self.table.number}"

    def get_absolute_url(self) -> str:
        return reverse("equipment:deck-detail", args=[self.pk])


class RemovalReason(models.TextChoices):
    SCHEDULED = "scheduled", "Scheduled change (clock)"
    TABLE_REOPENED = "table_reopened", "Table reopened for gaming"
    DIE_LOST = "die_lost", "Die went off the table and was lost"
    TAMPERING = "tampering", "Signs of tampering or alteration, or marked"
    DAMAGED = "damaged", "Chipped, scratched or no longer suitable for play"
    DEFECTIVE_CARDS = "defective_cards", "Cards defective"
    TABLE_CLOSED = "table_closed", "Table closed"
    DEVICE_OUT_OF_ORDER = "device_out_of_order", "Shoe or shuffler out of order (§ 575.13(n))"

    @classmethod
    def forced(cls) -> set[str]:
        """Reasons that force a change before the clock runs out."""
        return {cls.DIE_LOST, cls.TAMPERING, cls.DAMAGED, cls.DEFECTIVE_CARDS, cls.DEVICE_OUT_OF_ORDER}


class RemovalRecord(RegulatedRecord):
    removed_at = models.DateTimeField(default=timezone.now)
    reason = models.CharField(max_length=20, choices=RemovalReason.choices)
    note = models.TextField(blank=True)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"Removal ({self.get_reason_display()}) at {timezone.localtime(self.removed_at):%d %b %H:%M}"


class DiceRemoval(RemovalRecord):
    """Dice taken out of play, why, and what became of every die (§ 577.4(d))."""

    citation = "577.4(d)"
    signature_requirements = (
        SignatureRequirement("floorperson", Meaning.REMOVED, "Floorperson removing the dice", roles=_FLOOR),
    )

    # A foreign key, not one-to-one: a correction of the removal points at the same set. The
    # database still holds "one removal per set" for the records that are not corrections.
    dice_set = models.ForeignKey(DiceSet, on_delete=models.PROTECT, related_name="removals")
    dice_returned = models.PositiveSmallIntegerField(help_text="Dice of the set accounted for on removal")
    dice_lost = models.PositiveSmallIntegerField(default=0, help_text="Dice that went off the table and were lost")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["dice_set"], condition=models.Q(corrects__isnull=True), name="dice_removal_one_per_set"
            ),
        ]

    def get_absolute_url(self) -> str:
        return self.dice_set.get_absolute_url()


class DeckRemoval(RemovalRecord):
    citation = "575.3(c)(1)–(2)"
    signature_requirements = (
        SignatureRequirement("floorperson", Meaning.REMOVED, "Floorperson removing the cards", roles=_FLOOR),
    )

    deck_set = models.ForeignKey(DeckSet, on_delete=models.PROTECT, related_name="removals")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["deck_set"], condition=models.Q(corrects__isnull=True), name="deck_removal_one_per_set"
            ),
        ]

    def get_absolute_url(self) -> str:
        return self.deck_set.get_absolute_url()


class OpeningInspection(RegulatedRecord):
    """The floorperson's check of the Sic Bo electrical device and automated shaker (§ 539.5(a))."""

    citation = "539.5(a)(1)–(2)"
    signature_requirements = (
        SignatureRequirement(
            "floorperson",
            Meaning.INSPECTED,
            "Floorperson assigned to the table",
            roles=frozenset({Role.FLOORPERSON}),
            citation="539.5(a)(1)–(2)",
        ),
    )

    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    inspected_at = models.DateTimeField(default=timezone.now)
    values_entered = models.CharField(max_length=20, help_text="The three die values entered, e.g. 1-4-4")
    combinations_illuminated = models.BooleanField(help_text="Every winning combination lit correctly")
    automated_shaker_in_use = models.BooleanField(default=False)
    shaker_operations = models.PositiveSmallIntegerField(default=0)
    shaker_tossed_properly = models.BooleanField(default=False)
    passed = models.BooleanField()
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["-inspected_at"]
        indexes = [models.Index(fields=["table", "inspected_at"], name="inspection_table_idx")]

    def __str__(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        return f"Opening inspection of {self.table.number} {verdict}"

    def get_absolute_url(self) -> str:
        return reverse("equipment:inspection-detail", args=[self.pk])


class Malfunction(RegulatedRecord):
    """A device malfunction and what happened to the round (§ 539.7, § 575.13(l)–(n))."""

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

    citation = "539.7(b)–(d)"
    signature_requirements = (
        SignatureRequirement("floorperson", Meaning.RECORDED, "Floorperson present", roles=_FLOOR),
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
        return f"{what} change overdue at {self.table.number} since {timezone.localtime(self.due_at):%d %b %H:%M}"

    @property
    def equipment(self) -> DiceSet | DeckSet | None:
        return self.dice_set or self.deck_set
