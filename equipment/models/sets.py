"""Sets of dice and cards put into play and their removals (signed records).

A set of dice or decks put into play is a :class:`DiceSet` / :class:`DeckSet` record, signed at
placement; ``removed_at`` is the derived "still in play?" marker, left out of the signed content, so the
database holds "at most one set in play per table" (see the package docstring).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone

from compliance.bounds import DECKS_IN_PLAY, DICE, DICE_FROM_ONE, JOKERS_PER_DECK
from compliance.models import Meaning, RegulatedRecord, SignatureRequirement
from compliance.roles import Role
from equipment.floor import THE_FLOORPERSON
from equipment.models.tables import Container

__all__ = [
    "DeckRemoval",
    "DeckSet",
    "DiceRemoval",
    "DiceSet",
    "InPlayRecord",
    "RemovalReason",
    "RemovalRecord",
]

_DEALER = frozenset({Role.DEALER})


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
    named_with: ClassVar[tuple[str, ...]] = ("table",)

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
            "floorperson",
            Meaning.PLACED,
            "Floorperson placing the set in play",
            roles=THE_FLOORPERSON,
            citation=citation,
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
    dice_count = models.PositiveSmallIntegerField(validators=DICE_FROM_ONE.validators)
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
            *DICE_FROM_ONE.checks("dice_count"),
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
            "floorperson",
            Meaning.VERIFIED,
            "Floorperson verifying the inspection",
            roles=THE_FLOORPERSON,
            citation="575.4(a)",
        ),
    )
    kind_label = "deck"

    deck_count = models.PositiveSmallIntegerField(default=1, validators=DECKS_IN_PLAY.validators)
    back_colours = models.CharField(max_length=100, help_text="Back colour of each deck, e.g. red / blue")
    identifiers = models.CharField(max_length=300, blank=True, help_text="Deck serials or lot")
    dealt_from = models.CharField(max_length=20, choices=DealtFrom.choices)
    automated_shuffler = models.BooleanField(default=False)
    jokers_per_deck = models.PositiveSmallIntegerField(default=1, validators=JOKERS_PER_DECK.validators)
    second_joker_torn = models.BooleanField(default=False)

    class Meta:
        ordering = ["-placed_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["table"], condition=models.Q(removed_at__isnull=True), name="equipment_one_deck_set_in_play"
            ),
            models.CheckConstraint(condition=models.Q(due_at__gt=models.F("placed_at")), name="deck_due_after_placed"),
            # deck_one_or_two is deck_count's range (DECKS_IN_PLAY): no second check for it.
            models.CheckConstraint(condition=models.Q(deck_count__in=[1, 2]), name="deck_one_or_two"),
            # § 575.3(b): two decks only with an automated card shuffling device.
            models.CheckConstraint(
                condition=models.Q(deck_count=1) | models.Q(automated_shuffler=True), name="two_decks_need_shuffler"
            ),
            # § 575.4(b): a deck made with two jokers has the second one torn in half.
            models.CheckConstraint(
                condition=models.Q(jokers_per_deck=1) | models.Q(second_joker_torn=True), name="second_joker_torn"
            ),
            *JOKERS_PER_DECK.checks("jokers_per_deck"),
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

    removed_what: ClassVar[str] = "set"

    def removed_set(self) -> InPlayRecord:
        raise NotImplementedError(f"{type(self).__name__} must say which set it removes")

    def __str__(self) -> str:
        """Which set, at which table, why and when: a floorperson's list of removals to sign names each."""
        return (f"Removal of {self.removed_what} at {self.removed_set().table.number} ({self.get_reason_display()}), "
                f"{timezone.localtime(self.removed_at):%d %b %H:%M}")


class DiceRemoval(RemovalRecord):
    """Dice taken out of play, why, and what became of every die (§ 577.4(d))."""

    citation = "577.4(d)"
    signature_requirements = (
        SignatureRequirement("floorperson", Meaning.REMOVED, "Floorperson removing the dice", roles=THE_FLOORPERSON),
    )
    removed_what = "dice"
    named_with: ClassVar[tuple[str, ...]] = ("dice_set__table",)

    # A foreign key, not one-to-one: a correction of the removal points at the same set. The
    # database still holds "one removal per set" for the records that are not corrections.
    dice_set = models.ForeignKey(DiceSet, on_delete=models.PROTECT, related_name="removals")
    dice_returned = models.PositiveSmallIntegerField(help_text="Dice of the set accounted for on removal",
                                                     validators=DICE.validators)
    dice_lost = models.PositiveSmallIntegerField(default=0, help_text="Dice that went off the table and were lost",
                                                 validators=DICE.validators)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["dice_set"], condition=models.Q(corrects__isnull=True), name="dice_removal_one_per_set"
            ),
            *DICE.checks("dice_returned", "dice_lost"),
        ]

    def removed_set(self) -> DiceSet:
        return self.dice_set

    def get_absolute_url(self) -> str:
        return self.dice_set.get_absolute_url()


class DeckRemoval(RemovalRecord):
    citation = "575.3(c)(1)–(2)"
    signature_requirements = (
        SignatureRequirement("floorperson", Meaning.REMOVED, "Floorperson removing the cards", roles=THE_FLOORPERSON),
    )
    removed_what = "cards"
    named_with: ClassVar[tuple[str, ...]] = ("deck_set__table",)

    deck_set = models.ForeignKey(DeckSet, on_delete=models.PROTECT, related_name="removals")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["deck_set"], condition=models.Q(corrects__isnull=True), name="deck_removal_one_per_set"
            ),
        ]

    def removed_set(self) -> DeckSet:
        return self.deck_set

    def get_absolute_url(self) -> str:
        return self.deck_set.get_absolute_url()
