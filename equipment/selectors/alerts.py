"""What is due: the sets whose clock is about to run out or has run out, and the alerts raised."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import CharField, Q, QuerySet, Value

from compliance.models import Facility
from equipment.clocks import DUE_SOON, after
from equipment.models import DeckSet, DiceSet, EquipmentAlert

__all__ = ["DueItem", "due_in_play", "open_alerts", "resolved_alerts"]


@dataclass(frozen=True)
class DueItem:
    kind: str  # "dice" or "deck"
    pk: int
    table_id: int
    table_number: str
    facility_id: int
    due_at: datetime

    def overdue(self, now: datetime) -> bool:
        return now > self.due_at


def due_in_play(now: datetime, *, facility_id: int | None = None) -> list[DueItem]:
    """Every set in play whose clock is running and due within 30 minutes or overdue: ONE query.

    A UNION of the dice and deck logs, each filtered on the indexed ``due_at`` of sets still in
    play (partial index ``*_due_in_play_idx``). A clock runs while the table is open; a dice clock
    also runs while it is closed for the games whose clause says the dice "may not remain on a
    table" longer than the limit (``clock_runs_while_closed``: § 675a.3(b)(1), § 668a.3(b)(1),
    § 575.2(c)(1)(i)); § 577.4(d) and § 539.2(b) count time open for gaming only.
    """
    horizon = after(now, DUE_SOON)
    columns = ("kind", "pk", "table_id", "table__number", "facility_id", "due_at")
    dice_running = Q(table__is_open=True) | Q(table__game__equipment_requirement__clock_runs_while_closed=True)

    def part(model: type[DiceSet] | type[DeckSet], kind: str, running: Q) -> Any:
        qs = model.objects.filter(running, removed_at__isnull=True, due_at__lte=horizon)
        if facility_id is not None:
            qs = qs.filter(facility_id=facility_id)
        return qs.annotate(kind=Value(kind, output_field=CharField())).values_list(*columns).order_by()

    rows = part(DiceSet, "dice", dice_running).union(part(DeckSet, "deck", Q(table__is_open=True)), all=True)
    items = [DueItem(*row) for row in rows]
    return sorted(items, key=lambda i: (i.due_at, i.table_number))


def open_alerts(facility: Facility) -> QuerySet[EquipmentAlert]:
    return (
        EquipmentAlert.objects.filter(facility=facility, resolved_at__isnull=True)
        .select_related("table", "dice_set", "deck_set")
        .order_by("due_at")
    )


def resolved_alerts(facility: Facility) -> QuerySet[EquipmentAlert]:
    """Resolved alerts of the facility, latest first."""
    return (
        EquipmentAlert.objects.filter(facility=facility, resolved_at__isnull=False)
        .select_related("table")
        .order_by("-resolved_at")
    )
