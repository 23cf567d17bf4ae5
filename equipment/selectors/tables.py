"""Reads about one table: what its game requires, what is in play, when it last opened and closed,
its latest inspection, the dealers who may serve it, and what its page shows."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from compliance.models import Facility, GamingTable
from compliance.roles import Role
from compliance.selectors import people_holding
from equipment.models import (
    DeckSet,
    DeviceBackInService,
    DiceRegisterEntry,
    DiceSet,
    EquipmentAlert,
    EquipmentRequirement,
    Malfunction,
    OpeningInspection,
    TableDiceMethod,
    TableSession,
)
from equipment.selectors.logs import in_force

__all__ = [
    "back_in_service_of",
    "dealers_for",
    "decks_in_play",
    "devices_for",
    "devices_out_of_use",
    "dice_in_play",
    "dice_method_of",
    "dice_registered",
    "facility_tables",
    "last_closed_at",
    "last_opened_at",
    "marked_open",
    "requirement_for",
    "requirement_or_none",
    "requirements",
    "table_equipment",
]


def facility_tables(facility: Facility) -> QuerySet[GamingTable]:
    return GamingTable.objects.select_related("game").filter(facility=facility)


# --- what the game requires ------------------------------------------------------------------------------


def requirement_or_none(table: GamingTable) -> EquipmentRequirement | None:
    return EquipmentRequirement.objects.filter(game_id=table.game_id).first()


def requirement_for(table: GamingTable) -> EquipmentRequirement:
    requirement = requirement_or_none(table)
    if requirement is None:
        raise ValidationError(
            f"No equipment requirements are recorded for {table.game}; the equipment log is not used."
        )
    return requirement


def requirements() -> QuerySet[EquipmentRequirement]:
    return EquipmentRequirement.objects.select_related("game")


def devices_for(requirement: EquipmentRequirement) -> set[str]:
    """The devices of the game whose malfunction may be recorded."""
    devices: set[str] = set()
    if requirement.opening_inspection_required:
        devices |= {Malfunction.Device.SIC_BO_DISPLAY, Malfunction.Device.SIC_BO_SHAKER}
    if requirement.uses_decks:
        devices |= {Malfunction.Device.CARD_SHUFFLER, Malfunction.Device.DEALING_SHOE}
    return devices


def dice_method_of(table: GamingTable) -> TableDiceMethod | None:
    return TableDiceMethod.objects.filter(table=table).first()


def devices_out_of_use(table: GamingTable) -> list[Malfunction]:
    """The table's malfunctions whose device is not yet recorded back in service, oldest first."""
    return list(Malfunction.objects.filter(Malfunction.out_of_use(), table=table).order_by("occurred_at"))


def back_in_service_of(malfunction: Malfunction) -> DeviceBackInService | None:
    return DeviceBackInService.objects.filter(malfunction=malfunction).first()


def dice_registered(facility_id: int, key: str) -> DiceRegisterEntry | None:
    """The register's entry of a set's identifiers at the facility: where and when it was put in play."""
    return DiceRegisterEntry.objects.select_related("dice_set__table").filter(facility_id=facility_id, key=key).first()


# --- what is in play, openings and closings ----------------------------------------------------------------


def dice_in_play(table: GamingTable) -> DiceSet | None:
    return DiceSet.objects.filter(table=table, removed_at__isnull=True).first()


def decks_in_play(table: GamingTable) -> DeckSet | None:
    return DeckSet.objects.filter(table=table, removed_at__isnull=True).first()


def last_closed_at(table: GamingTable) -> datetime | None:
    last = TableSession.objects.filter(table=table, closed_at__isnull=False).order_by("-closed_at").first()
    return last.closed_at if last else None


def last_opened_at(table: GamingTable) -> datetime | None:
    last = TableSession.objects.filter(table=table).order_by("-opened_at").first()
    return last.opened_at if last else None


def marked_open(table: GamingTable, at: datetime) -> tuple[datetime, int | None]:
    """When (and by whom) the table was last marked open, from its history; ``at`` if unknown."""
    history = table.history.filter(history_date__lte=at)
    last_closed = history.filter(is_open=False).order_by("-history_date", "-history_id").first()
    opened = history.filter(is_open=True)
    if last_closed is not None:
        opened = opened.filter(history_date__gt=last_closed.history_date)
    row = opened.order_by("history_date", "history_id").first()
    return (row.history_date, row.history_user_id) if row is not None else (at, None)


# --- people and the table page -----------------------------------------------------------------------------


def dealers_for(facility: Facility) -> QuerySet[Any]:
    """Active dealers assigned to the facility: who may witness a placement or inspect cards."""
    return people_holding(facility, [Role.DEALER])


def table_equipment(table: GamingTable) -> dict[str, Any]:
    """What the table's page shows: requirement, sets in play, recent logs, sessions, open alerts."""
    out_of_use = devices_out_of_use(table)
    return {
        "requirement": requirement_or_none(table),
        "dice_in_play": dice_in_play(table),
        "decks_in_play": decks_in_play(table),
        "dice_log": in_force(DiceSet).filter(table=table)[:10],
        "deck_log": in_force(DeckSet).filter(table=table)[:10],
        "inspections": OpeningInspection.objects.filter(table=table)[:5],
        "malfunctions": Malfunction.objects.filter(table=table).select_related("back_in_service")[:5],
        "out_of_use": out_of_use,
        "gaming_stopped": any(m.device in Malfunction.STOPS_GAMING for m in out_of_use),
        "dice_method": dice_method_of(table),
        "sessions": TableSession.objects.filter(table=table).select_related("opened_by__profile", "closed_by__profile")[
            :5
        ],
        "alerts": EquipmentAlert.objects.filter(table=table, resolved_at__isnull=True),
    }
