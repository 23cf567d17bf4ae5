"""The live table board: every table of a facility, open ones with their clocks, closed ones with what
they need before opening, in one query. The same query gives the opening service its facts for one
table (:func:`opening_facts`), so the board and the refusal cannot disagree."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from compliance.models import Facility, GamingTable
from compliance.readiness import Readiness, Unmet, facility_readiness_now, tables_readiness
from compliance.times import when
from equipment.clocks import DUE_SOON, INSPECTION_VALID_FOR, format_duration
from equipment.models import (
    DeckSet,
    DeviceBackInService,
    DiceSet,
    EquipmentAlert,
    EquipmentRequirement,
    Malfunction,
    OpeningInspection,
    TableSession,
)
from equipment.opening import OpeningFacts, dice_required

__all__ = ["BoardRow", "Clock", "board_rows", "opening_facts", "tables_with_facts"]


@dataclass
class Clock:
    label: str  # "Dice" or "Cards"
    placed_at: datetime | None
    due_at: datetime | None
    now: datetime
    required: bool = True
    facility: Any = None  # whose clock the due time is read on

    @property
    def due_words(self) -> str:
        """The due time on the facility's clock, with the day when it is not today: "06:15", "tomorrow 06:15"."""
        return when(self.due_at, self.facility, now=self.now)

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
    readiness: Readiness | None = None  # every chapter's requirements (compliance.readiness)

    @property
    def needs(self) -> list[Unmet]:
        """Closed: what it lacks before opening; open: what it is in breach of."""
        return list(self.readiness.unmet) if self.readiness is not None else []

    @property
    def flags(self) -> list[Unmet]:
        return self.needs if self.table.is_open else []

    @property
    def tone(self) -> str:
        tones = {c.tone for c in self.clocks}
        return "alert" if "alert" in tones or self.flags else "warn" if "warn" in tones else "ok"

    @property
    def next_due(self) -> datetime | None:
        dues = [c.due_at for c in self.clocks if c.due_at is not None]
        return min(dues) if dues else None

    @property
    def ready_to_open(self) -> bool:
        return self.readiness is not None and self.readiness.verdict == "ready"

    def needs_code(self, code: str) -> bool:
        return any(n.code == f"equipment:{code}" for n in self.needs)

    @property
    def needs_dice(self) -> bool:
        return self.needs_code("dice")

    @property
    def needs_inspection(self) -> bool:
        return self.needs_code("inspection")

    @property
    def needs_device(self) -> bool:
        return self.needs_code("device")


def _with_facts(tables: QuerySet[GamingTable], at: datetime) -> QuerySet[GamingTable]:
    """Annotate each table with what is in play, its last opening and closing, its latest inspection,
    a device that stopped gaming, and its dice method: subqueries, so one query for any number."""
    dice = DiceSet.objects.filter(table=OuterRef("pk"), removed_at__isnull=True).order_by()
    decks = DeckSet.objects.filter(table=OuterRef("pk"), removed_at__isnull=True).order_by()
    closed = TableSession.objects.filter(table=OuterRef("pk"), closed_at__isnull=False).order_by("-closed_at")
    opened = TableSession.objects.filter(table=OuterRef("pk")).order_by("-opened_at")
    window = at.astimezone(UTC) - INSPECTION_VALID_FOR
    inspections = OpeningInspection.objects.filter(
        table=OuterRef("pk"), inspected_at__gte=window, inspected_at__lte=at
    ).order_by("-inspected_at")
    stopping = Q(device__in=list(Malfunction.STOPS_GAMING))
    stopped = Malfunction.objects.filter(Malfunction.out_of_use() & stopping, table=OuterRef("pk")).order_by(
        "occurred_at"
    )
    fixed = DeviceBackInService.objects.filter(
        table=OuterRef("pk"), malfunction__device__in=list(Malfunction.STOPS_GAMING), returned_at__lte=at
    ).order_by("-returned_at")
    return tables.select_related("game", "game__equipment_requirement", "dice_method").annotate(
        dice_placed=Subquery(dice.values("placed_at")[:1]),
        dice_due=Subquery(dice.values("due_at")[:1]),
        deck_placed=Subquery(decks.values("placed_at")[:1]),
        deck_due=Subquery(decks.values("due_at")[:1]),
        deck_dealt_from=Subquery(decks.values("dealt_from")[:1]),
        deck_shuffler=Subquery(decks.values("automated_shuffler")[:1]),
        open_alert=Exists(EquipmentAlert.objects.filter(table=OuterRef("pk"), resolved_at__isnull=True)),
        last_closed=Subquery(closed.values("closed_at")[:1]),
        last_opened=Subquery(opened.values("opened_at")[:1]),
        inspected_at=Subquery(inspections.values("inspected_at")[:1]),
        inspection_passed=Subquery(inspections.values("passed")[:1]),
        stopped_device=Subquery(stopped.values("device")[:1]),
        stopped_since=Subquery(stopped.values("occurred_at")[:1]),
        back_in_service_at=Subquery(fixed.values("returned_at")[:1]),
    )


def _facts(table: Any) -> OpeningFacts:
    device = table.stopped_device or ""
    method = getattr(table, "dice_method", None)
    return OpeningFacts(
        number=table.number,
        dice_placed_at=table.dice_placed,
        dice_due_at=table.dice_due,
        deck_placed_at=table.deck_placed,
        deck_due_at=table.deck_due,
        last_closed_at=table.last_closed,
        last_opened_at=table.last_opened,
        inspected_at=table.inspected_at,
        inspection_passed=bool(table.inspection_passed),
        stopped_device=Malfunction.Device(device).label if device else "",
        stopped_since=table.stopped_since,
        stopped_clause=Malfunction.STOPS_GAMING.get(device, ""),
        back_in_service_at=table.back_in_service_at,
        dice_method=method.method if method is not None else None,
        deck_dealt_from=table.deck_dealt_from or "",
        deck_shuffler=bool(table.deck_shuffler),
    )


def tables_with_facts(table_ids: list[int], at: datetime) -> list[tuple[Any, OpeningFacts]]:
    """Each table of ``table_ids`` with what the opening rule knows of it at ``at``: one query."""
    rows = _with_facts(GamingTable.objects.filter(pk__in=table_ids), at)
    return [(table, _facts(table)) for table in rows]


def opening_facts(table: GamingTable, at: datetime) -> OpeningFacts:
    """What the opening rule needs to know about one table at ``at`` (the board's query, one row)."""
    return _facts(_with_facts(GamingTable.objects.filter(pk=table.pk), at).get())


def _clocks(table: Any, requirement: EquipmentRequirement | None, facts: OpeningFacts, now: datetime,
            facility: Facility) -> list[Clock]:
    clocks = []
    if requirement is None or requirement.uses_dice:
        required = requirement is not None and dice_required(requirement, facts.dice_method)
        if required or table.dice_due is not None:
            clocks.append(Clock("Dice", table.dice_placed, table.dice_due, now, required, facility))
    if requirement is not None and requirement.uses_decks:
        clocks.append(Clock("Cards", table.deck_placed, table.deck_due, now, facility=facility))
    return clocks


def board_rows(facility: Facility, now: datetime | None = None) -> list[BoardRow]:
    """Every table of the facility, open ones first, in a fixed number of queries whatever the number of tables:
    open tables with their clocks and any breach, closed ones with what each needs before it may open — both
    from the one readiness service (``compliance.readiness``) that Open obeys."""
    live, now = now is None, now or timezone.now()
    tables = list(_with_facts(GamingTable.objects.filter(facility=facility), now).order_by("-is_open", "pit", "number"))
    # The live board shares the facility's verdict of the last few seconds (compliance.readiness); a board asked
    # at an instant computes it at that instant.
    states = facility_readiness_now(facility, tables) if live else tables_readiness(facility, tables, now)
    rows = []
    table: Any
    for table in tables:
        requirement: EquipmentRequirement | None = getattr(table.game, "equipment_requirement", None)
        facts = _facts(table)
        rows.append(BoardRow(table, _clocks(table, requirement, facts, now, facility), table.open_alert,
                             states.get(table.pk)))
    return rows
