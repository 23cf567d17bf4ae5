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

Modules by subject: ``tables`` (requirements, sessions, dice method), ``sets`` (dice and cards in
play, removals), ``register`` (every set of dice ever put in play), ``devices`` (inspections,
malfunctions, back in service), ``alerts``, ``approvals`` (the register of approved devices).
"""

from equipment.models.alerts import EquipmentAlert
from equipment.models.approvals import ApprovalWithdrawal, EquipmentApproval
from equipment.models.devices import DeviceBackInService, Malfunction, OpeningInspection
from equipment.models.register import DiceRegisterEntry
from equipment.models.sets import (
    DeckRemoval,
    DeckSet,
    DiceRemoval,
    DiceSet,
    InPlayRecord,
    RemovalReason,
    RemovalRecord,
)
from equipment.models.tables import Container, DiceMethod, EquipmentRequirement, TableDiceMethod, TableSession

__all__ = [
    "ApprovalWithdrawal",
    "Container",
    "DeckRemoval",
    "DeckSet",
    "DeviceBackInService",
    "DiceMethod",
    "DiceRegisterEntry",
    "DiceRemoval",
    "DiceSet",
    "EquipmentAlert",
    "EquipmentApproval",
    "EquipmentRequirement",
    "InPlayRecord",
    "Malfunction",
    "OpeningInspection",
    "RemovalReason",
    "RemovalRecord",
    "TableDiceMethod",
    "TableSession",
]
