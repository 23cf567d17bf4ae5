"""What the equipment services share: the checks before writing at a table, and the prologue and
epilogue of taking a set of dice or cards out of play."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from django.core.exceptions import ValidationError

from compliance.models import GamingTable
from compliance.roles import Capability, require_capability
from compliance.services import record_sign
from equipment import selectors
from equipment.clocks import local_words
from equipment.models import DiceSet, EquipmentAlert, InPlayRecord, Malfunction, RemovalReason, RemovalRecord

__all__ = [
    "RemovalWords",
    "check_gaming_not_stopped",
    "locked_table",
    "removal_checks",
    "removal_finish",
    "same_facility",
    "table_for_writing",
]

S = TypeVar("S", bound=InPlayRecord)


def locked_table(table: GamingTable) -> GamingTable:
    return GamingTable.objects.select_for_update(of=("self",)).select_related("game", "facility").get(pk=table.pk)


def same_facility(user: Any, table: GamingTable) -> None:
    profile = getattr(user, "profile", None)
    if profile is None or not profile.facilities.filter(pk=table.facility_id).exists():
        raise ValidationError(f"You are not assigned to the facility of table {table.number}.")


def table_for_writing(*, table: GamingTable, user: Any, capability: Capability) -> GamingTable:
    """The person may do this, works at the table's facility; the table, locked and re-read.

    Every service that writes at a table locks it first (then the set), in that order, so two
    changes, or a change and the sweep, cannot deadlock."""
    require_capability(user, capability)
    same_facility(user, table)
    return locked_table(table)


def check_gaming_not_stopped(table: GamingTable, what: str) -> None:
    """§ 539.7(b): once a device malfunction has stopped gaming at the table, nothing prepares it for
    play (``what``: "the dice change", "the opening inspection") until the device is back in service."""
    for malfunction in selectors.devices_out_of_use(table):
        if malfunction.device in Malfunction.STOPS_GAMING:
            raise ValidationError(
                f"Gaming at table {table.number} stopped when the {malfunction.get_device_display().lower()} "
                f"malfunctioned at {local_words(malfunction.occurred_at, table.facility)} "
                f"(§ {malfunction.clause}): record the device fixed and back in service before {what}; "
                "the table then opens after a passing opening inspection (§ 539.5(a))."
            )


# --- taking a set out of play ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RemovalWords:
    """How the refusals name the set: "dice" / "cards"."""

    things: str  # "These dice were already removed ..."
    placed: str  # "Dice cannot be removed before they were placed."
    new: str  # "record the new set in the same change"


def removal_checks(
    *,
    table: GamingTable,
    in_play: S,
    reason: str,
    at: datetime,
    replacing: bool,
    words: RemovalWords,
    check: Callable[[S], None],
    open_table_citation: Callable[[GamingTable], str | None],
) -> S:
    """The set, locked and re-read, once it may leave play: still in play, not before it was
    placed, a known reason, the kind's own ``check``; and on an open table that cannot play without
    it (``open_table_citation`` gives the clause, or None), only with its replacement in the same change.
    """
    locked = type(in_play)._default_manager.select_for_update().get(pk=in_play.pk)
    if locked.removed_at is not None:
        raise ValidationError(
            f"These {words.things} were already removed at {local_words(locked.removed_at, table.facility)}."
        )
    if at < locked.placed_at:
        raise ValidationError(f"{words.things.capitalize()} cannot be removed before they {words.placed}.")
    if reason not in RemovalReason.values:
        raise ValidationError(f"Unknown reason {reason!r}.")
    check(locked)
    citation = open_table_citation(table)
    if table.is_open and citation is not None and not replacing:
        raise ValidationError(f"Table {table.number} is open: record {words.new} in the same change (§ {citation}).")
    return locked


def removal_finish(*, removal: RemovalRecord, in_play: InPlayRecord, user: Any, password: str, at: datetime) -> None:
    """The floorperson signs the removal; the set leaves play and its alerts are resolved, in the
    transaction that logs the change."""
    record_sign(record=removal, slot="floorperson", user=user, password=password)
    in_play.mark_removed(at)
    alerts = EquipmentAlert.objects.filter(resolved_at__isnull=True)
    alerts = alerts.filter(dice_set=in_play) if isinstance(in_play, DiceSet) else alerts.filter(deck_set=in_play)
    for alert in alerts:
        alert.resolved_at = at
        alert.save()
