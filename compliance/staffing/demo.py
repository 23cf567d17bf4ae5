"""Demo data of staffing and surveillance for `make run`: the demo facility's shifts, and cameras on its Three
Dice Football tables — TDF-1 watched on both ends, TDF-2 on one end only, so the rules have something to say."""

from __future__ import annotations

from datetime import time

from compliance.actors import acts_as_system
from compliance.models import Facility, GamingTable
from compliance.staffing.models import Camera, CameraCoverage, Shift

__all__ = ["staffing_demo_seed"]

SHIFTS = [("Day", time(6, 0)), ("Swing", time(14, 0)), ("Grave", time(22, 0))]
CAMERAS = [("C-101", "TDF-1", "a"), ("C-102", "TDF-1", "b"), ("C-103", "TDF-2", "a")]


@acts_as_system
def staffing_demo_seed(facility: Facility) -> int:
    """Create what is missing (run it again: nothing changes); the number of rows made."""
    made = 0
    for name, starts_at in SHIFTS:
        _, created = Shift.objects.get_or_create(facility=facility, name=name, defaults={"starts_at": starts_at})
        made += created
    tables = {t.number: t for t in GamingTable.objects.filter(facility=facility)}
    for code, number, end in CAMERAS:
        camera, created = Camera.objects.get_or_create(facility=facility, code=code,
                                                       defaults={"location": f"Over {number}, end {end.upper()}"})
        made += created
        if number in tables and not CameraCoverage.objects.filter(camera=camera, table=tables[number], end=end,
                                                                  active=True).exists():
            CameraCoverage.objects.create(camera=camera, table=tables[number], end=end)
            made += 1
    return made
