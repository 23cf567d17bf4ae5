"""The Sic Bo opening inspection (§ 539.5(a)): made and signed by the floorperson before opening;
a failed inspection is recorded too, and blocks the opening."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from compliance.actors import acts_as_user
from compliance.floor_assignments import require_assigned_floorperson
from compliance.models import GamingTable
from compliance.roles import Capability
from compliance.services import record_sign
from equipment import selectors
from equipment.clocks import local_words
from equipment.floor import check_floorperson
from equipment.models import Malfunction, OpeningInspection
from equipment.services._common import check_gaming_not_stopped, table_for_writing

__all__ = ["inspection_record"]


def _check_shaker_in_service(table: GamingTable, automated_shaker_in_use: bool) -> None:
    """§ 539.7(d): an automated shaker signed out of order is removed from the table; it is not
    inspected for use until it is recorded back in service."""
    if not automated_shaker_in_use:
        return
    for malfunction in selectors.devices_out_of_use(table):
        if malfunction.device == Malfunction.Device.SIC_BO_SHAKER:
            raise ValidationError(
                f"The automated shaker of table {table.number} was signed out of order at "
                f"{local_words(malfunction.occurred_at, table.facility)} (§ 539.7(d)): record it back in service "
                "before it is inspected for use, or inspect the table with the manual shaker."
            )


@transaction.atomic
@acts_as_user
def inspection_record(
    *,
    table: GamingTable,
    user: Any,
    password: str,
    values_entered: Sequence[int],
    combinations_illuminated: bool,
    automated_shaker_in_use: bool = False,
    shaker_operations: int = 0,
    shaker_tossed_properly: bool = False,
    note: str = "",
    at: datetime | None = None,
) -> OpeningInspection:
    """Record the floorperson's opening inspection (§ 539.5(a)); a failed one is recorded too."""
    table = table_for_writing(table=table, user=user, capability=Capability.VERIFY_EQUIPMENT)
    at = at or timezone.now()
    requirement = selectors.requirement_for(table)
    if not requirement.opening_inspection_required:
        raise ValidationError(f"{table.game} has no opening inspection of an electrical device.")
    # Said on the form, before anything is written, rather than a refused signature (403).
    check_floorperson(user, duty="the opening inspection by the floorperson assigned to the table", citation="539.5(a)")
    require_assigned_floorperson(table, user, at, "539.5(a)", "the opening inspection")
    check_gaming_not_stopped(table, "the opening inspection")
    _check_shaker_in_service(table, automated_shaker_in_use)
    if table.is_open:
        raise ValidationError(f"Table {table.number} is open; the inspection is made before opening (§ 539.5(a)).")
    values = list(values_entered)
    # § 539.5(a)(1): "at a minimum ... entering three numeric values": three die values, 1 to 6.
    if len(values) != 3 or any(not 1 <= v <= 6 for v in values):
        raise ValidationError("Enter the three die values (1 to 6) entered into the electrical device (§ 539.5(a)(1)).")
    # § 539.5(a)(2): the automated shaker, if one is in use, is operated at least three times.
    shaker_ok = not automated_shaker_in_use or (shaker_operations >= 3 and shaker_tossed_properly)
    passed = bool(combinations_illuminated) and shaker_ok
    inspection = OpeningInspection.objects.create(
        facility_id=table.facility_id,
        table=table,
        inspected_at=at,
        values_entered="-".join(str(v) for v in values),
        combinations_illuminated=combinations_illuminated,
        automated_shaker_in_use=automated_shaker_in_use,
        shaker_operations=shaker_operations if automated_shaker_in_use else 0,
        shaker_tossed_properly=shaker_tossed_properly if automated_shaker_in_use else False,
        passed=passed,
        note=note,
    )
    record_sign(record=inspection, slot="floorperson", user=user, password=password)
    return inspection
