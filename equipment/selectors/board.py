"""The live table board: every open table of a facility with its clocks, in one query."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Exists, OuterRef, Subquery
from django.utils import timezone

from compliance.models import Facility, GamingTable
from equipment.clocks import DUE_SOON, format_duration
from equipment.models import DeckSet, DiceSet, EquipmentAlert, EquipmentRequirement

__all__ = ["BoardRow", "Clock", "board_rows"]


@dataclass
class Clock:
    label: str  # "Dice" or "Cards"
    placed_at: datetime | None
    due_at: datetime | None
    now: datetime
    required: bool = True

    @property
    def remaining(self) -> timedelta | None:
        return None if self.due_at is None else self.due_at - self.now

    @property
    def tone(self) -> str:
        """ "alert" when overdue (in play strictly longer than the limit) or missing, "warn" within 30 min."""
        if self.due_at is None:
            return "alert" if self.required else ""
        if self.now > self.due_at:
            return "alert"
        if self.due_at - self.now <= DUE_SOON:
            return "warn"
        return "ok"

    @property
    def text(self) -> str:
        remaining = self.remaining
        if remaining is None:
            return "none in play" if self.required else "not used"
        if remaining < timedelta(0):
            return f"OVERDUE by {format_duration(remaining)}"
        return f"{format_duration(remaining)} left"


@dataclass
class BoardRow:
    table: GamingTable
    clocks: list[Clock]
    has_open_alert: bool

    @property
    def tone(self) -> str:
        tones = {c.tone for c in self.clocks}
        return "alert" if "alert" in tones else "warn" if "warn" in tones else "ok"

    @property
    def next_due(self) -> datetime | None:
        dues = [c.due_at for c in self.clocks if c.due_at is not None]
        return min(dues) if dues else None


def board_rows(facility: Facility, now: datetime | None = None) -> list[BoardRow]:
    """Every open table of the facility with its clocks, in ONE query whatever the number of tables."""
    now = now or timezone.now()
    dice = DiceSet.objects.filter(table=OuterRef("pk"), removed_at__isnull=True).order_by()
    decks = DeckSet.objects.filter(table=OuterRef("pk"), removed_at__isnull=True).order_by()
    alerts = EquipmentAlert.objects.filter(table=OuterRef("pk"), resolved_at__isnull=True)
    tables = (
        GamingTable.objects.filter(facility=facility, is_open=True)
        .select_related("game", "game__equipment_requirement")
        .annotate(
            dice_placed=Subquery(dice.values("placed_at")[:1]),
            dice_due=Subquery(dice.values("due_at")[:1]),
            deck_placed=Subquery(decks.values("placed_at")[:1]),
            deck_due=Subquery(decks.values("due_at")[:1]),
            open_alert=Exists(alerts),
        )
        .order_by("pit", "number")
    )
    rows = []
    for table in tables:
        requirement: EquipmentRequirement | None = getattr(table.game, "equipment_requirement", None)
        clocks = []
        if requirement is None or requirement.uses_dice:
            required = requirement is not None and requirement.dice_required_to_open
            if required or table.dice_due is not None:
                clocks.append(Clock("Dice", table.dice_placed, table.dice_due, now, required))
        if requirement is not None and requirement.uses_decks:
            clocks.append(Clock("Cards", table.deck_placed, table.deck_due, now))
        rows.append(BoardRow(table, clocks, table.open_alert))
    return rows
