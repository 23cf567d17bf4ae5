"""Who is the floorperson assigned to a table at an instant, asked by the apps whose records that floorperson
signs (§ 539.5(a): "the floorperson assigned to the table" inspects the Sic Bo device; § 575.4(a): the cards
"verified by the floorperson assigned to the table"). The staffing app, which keeps the assignments, registers the
reader, so the equipment app never imports it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError

from compliance.models import GamingTable
from compliance.people import person_name

__all__ = ["assigned_floorpersons", "register_floorperson_reader", "require_assigned_floorperson"]

Reader = Callable[[GamingTable, datetime], "set[int]"]
_READERS: list[Reader] = []


def register_floorperson_reader(reader: Reader) -> None:
    if reader not in _READERS:
        _READERS.append(reader)


def assigned_floorpersons(table: GamingTable, at: datetime) -> set[int]:
    """The ids of the people assigned as floorperson over ``table`` at ``at``."""
    found: set[int] = set()
    for reader in _READERS:
        found |= reader(table, at)
    return found


def require_assigned_floorperson(table: GamingTable, person: Any, at: datetime, clause: str, what: str) -> None:
    """Refuse unless ``person`` is assigned as floorperson over ``table`` at ``at``."""
    if person is not None and person.pk in assigned_floorpersons(table, at):
        return
    name = person_name(person) or "That person"
    raise ValidationError(f"{name} is not the floorperson assigned to table {table.number}: {what} is signed by the "
                          f"floorperson assigned to the table (§ {clause}). Place them over the table on the roster "
                          f"first, or have the assigned floorperson sign.")
