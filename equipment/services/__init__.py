"""Writes of the equipment logs: tables opened and closed, dice and decks in and out of play,
opening inspections, malfunctions, and the sweep that raises and resolves overdue alerts.

Every rule is applied here, with a message that says what to do and cites the clause. One module
per regulated step; reads come from :mod:`equipment.selectors`, clock arithmetic from
:mod:`equipment.clocks`.
"""

from __future__ import annotations

from equipment.clocks import DUE_SOON
from equipment.selectors import devices_for
from equipment.selectors import due_in_play as due_in_play
from equipment.selectors import requirement_for as requirement_for
from equipment.services.approvals import approval_record, approval_withdraw
from equipment.services.decks import deck_set_change, deck_set_place
from equipment.services.dice import dice_set_change, dice_set_place, dice_set_remove
from equipment.services.inspections import inspection_record
from equipment.services.malfunctions import device_back_in_service, malfunction_record
from equipment.services.sweep import SweepResult, alert_notify, equipment_sweep
from equipment.services.tables import dice_method_record, table_close, table_open

__all__ = [
    "DUE_SOON",
    "SweepResult",
    "alert_notify",
    "approval_record",
    "approval_withdraw",
    "deck_set_change",
    "deck_set_place",
    "device_back_in_service",
    "devices_for",
    "dice_method_record",
    "dice_set_change",
    "dice_set_place",
    "dice_set_remove",
    "equipment_sweep",
    "inspection_record",
    "malfunction_record",
    "table_close",
    "table_open",
]
