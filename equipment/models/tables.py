"""What each game's table needs (data), its openings and closings, and how an Asia Poker table
determines the starting position (§ 575.2(c))."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from compliance.bounds import DICE, DICE_FROM_ONE, DIE_SIZE_MM, HOURS_IN_PLAY, TABLE_DECKS
from compliance.models import AuditedModel

__all__ = ["Container", "DiceMethod", "EquipmentRequirement", "TableDiceMethod", "TableSession"]


class Container(models.TextChoices):
    DICE_CUP = "dice_cup", "Dice cup (held by the stickperson)"
    SHAKER = "shaker", "Dice shaker bearing the facility's name or logo"


class EquipmentRequirement(AuditedModel):
    """What the regulations require at a table of one game: dice, container, decks, clocks."""

    game = models.OneToOneField("compliance.Game", on_delete=models.PROTECT, related_name="equipment_requirement")
    dice_count = models.PositiveSmallIntegerField(default=0, help_text="Dice in a set; 0 when the game uses none",
                                                  validators=DICE.validators)
    variation_dice_count = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Dice in a set when a variation is offered (High Roll Dice: six)",
        validators=DICE_FROM_ONE.validators,
    )
    dice_colours = models.CharField(max_length=100, blank=True, help_text="e.g. 4 green, 2 red")
    die_size_mm = models.PositiveSmallIntegerField(null=True, blank=True, validators=DIE_SIZE_MM.validators)
    container = models.CharField(max_length=20, choices=Container.choices, blank=True)
    dice_max_hours = models.PositiveSmallIntegerField(default=24, help_text="Longest a set may stay in play",
                                                      validators=HOURS_IN_PLAY.validators)
    dice_required_to_open = models.BooleanField(default=True)
    new_dice_on_reopen = models.BooleanField(default=True, help_text="A new set must be put in play on reopening")
    clock_runs_while_closed = models.BooleanField(
        default=False,
        help_text="The dice clock runs while the table is closed too: the dice 'may not remain on a table' longer "
        "than the limit (§ 675a.3(b)(1), § 668a.3(b)(1), § 575.2(c)(1)(i)); off, the clock counts only time open "
        "for gaming (§ 577.4(d), § 539.2(b))",
    )
    dice_citation = models.CharField(max_length=60, blank=True)
    dice_method_per_table = models.BooleanField(
        default=False,
        help_text="Each table records how it determines the starting position: a shaker with dice, a random "
        "number generator or a flat button (Asia Poker, § 575.2(c)); a shaker table needs dice to open",
    )
    uses_decks = models.BooleanField(default=False)
    max_decks = models.PositiveSmallIntegerField(default=0, validators=TABLE_DECKS.validators)
    deck_hand_hours = models.PositiveSmallIntegerField(null=True, blank=True, validators=HOURS_IN_PLAY.validators)
    deck_shoe_hours = models.PositiveSmallIntegerField(null=True, blank=True, validators=HOURS_IN_PLAY.validators)
    deck_citation = models.CharField(max_length=60, blank=True)
    opening_inspection_required = models.BooleanField(default=False)
    inspection_citation = models.CharField(max_length=60, blank=True)
    notes = models.TextField(blank=True)

    class Meta:
        ordering = ["game__name"]
        constraints = [
            *DICE.checks("dice_count"),
            *DICE_FROM_ONE.checks("variation_dice_count"),
            *DIE_SIZE_MM.checks("die_size_mm"),
            *HOURS_IN_PLAY.checks("dice_max_hours", "deck_hand_hours", "deck_shoe_hours"),
            *TABLE_DECKS.checks("max_decks"),
        ]

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
        # A table's last opening and last closing (what the opening rule and the board read for every table,
        # equipment/selectors/board.py): one step down an index, however many sessions a year gives each table.
        indexes = [
            models.Index(fields=["table", "opened_at"], name="equipment_session_opened"),
            models.Index(fields=["table", "closed_at"], name="equipment_session_closed"),
        ]
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


class DiceMethod(models.TextChoices):
    """How an Asia Poker table determines the starting position for dealing (§ 575.2(c)(1)–(3))."""

    SHAKER = "shaker", "Asia Poker shaker with three dice (§ 575.2(c)(1))"
    RNG = (
        "rng",
        "Computerized random number generator, approved by the Bureau of Gaming Laboratory Operations (§ 575.2(c)(2))",
    )
    FLAT_BUTTON = "flat_button", "Flat button approved by the Bureau of Gaming Operations (§ 575.2(c)(3))"


class TableDiceMethod(AuditedModel):
    """The method a table uses (one row per table; every change kept in history)."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    table = models.OneToOneField("compliance.GamingTable", on_delete=models.PROTECT, related_name="dice_method")
    method = models.CharField(max_length=20, choices=DiceMethod.choices)
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    def __str__(self) -> str:
        return f"{self.table.number}: {self.get_method_display()}"
