"""Reads of the equipment logs: the live table board, the logs, what is due, the compliance report.

Selectors never import services (services import selectors): one direction.
"""

from __future__ import annotations

from equipment.clocks import format_duration
from equipment.selectors.alerts import DueItem, due_in_play, open_alerts, resolved_alerts
from equipment.selectors.approvals import approvals_in_force, approvals_of
from equipment.selectors.board import BoardRow, Clock, board_rows, opening_facts, tables_with_facts
from equipment.selectors.logs import facility_records, in_force, set_log
from equipment.selectors.report import EquipmentReport, OverdueIncident, equipment_report
from equipment.selectors.tables import (
    back_in_service_of,
    dealers_for,
    decks_in_play,
    devices_for,
    devices_out_of_use,
    dice_in_play,
    dice_method_of,
    dice_registered,
    facility_tables,
    last_closed_at,
    last_opened_at,
    marked_open,
    requirement_for,
    requirement_or_none,
    requirements,
    table_equipment,
)

__all__ = [
    "BoardRow",
    "Clock",
    "DueItem",
    "EquipmentReport",
    "OverdueIncident",
    "approvals_in_force",
    "approvals_of",
    "back_in_service_of",
    "board_rows",
    "dealers_for",
    "decks_in_play",
    "devices_for",
    "devices_out_of_use",
    "dice_in_play",
    "dice_method_of",
    "dice_registered",
    "due_in_play",
    "equipment_report",
    "facility_records",
    "facility_tables",
    "format_duration",
    "in_force",
    "last_closed_at",
    "last_opened_at",
    "marked_open",
    "open_alerts",
    "opening_facts",
    "requirement_for",
    "requirement_or_none",
    "requirements",
    "resolved_alerts",
    "set_log",
    "table_equipment",
    "tables_with_facts",
]
