"""Demo data of staffing and surveillance for `make run`: the demo facility's shifts, cameras on its Three Dice
Football tables (each end of each covered by its own camera, § 577.9(a)), and the floor crew of the shift under way
placed on its roster by the shift manager — three dealers at each Three Dice Football table, one of them as
stickperson (§ 577.9(b)), a craps crew, a dealer at each other table that opens today, and a floorperson over
every table within the span of § 577.9(c) — so every table can open lawfully once its equipment is in play."""

from __future__ import annotations

from datetime import time
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from compliance.actors import acts_as_system
from compliance.gaming_day import gaming_day
from compliance.models import Facility, GamingTable
from compliance.roles import Role
from compliance.selectors import people_holding
from compliance.staffing import selectors, services
from compliance.staffing.models import Assignment, Camera, CameraCoverage, Position, Roster, Shift

__all__ = ["CREW", "staffing_demo_seed"]

SHIFTS = [("Day", time(6, 0)), ("Swing", time(14, 0)), ("Grave", time(22, 0))]
CAMERAS = [("C-101", "TDF-1", "a"), ("C-102", "TDF-1", "b"), ("C-103", "TDF-2", "a"), ("C-104", "TDF-2", "b")]

D, STICK, BOX, FLOOR = Position.DEALER, Position.STICKPERSON, Position.BOXPERSON, Position.FLOORPERSON
# Table: its places on the roster, (position, demo username) (compliance/demo.py). Floyd supervises the two Three
# Dice Football tables (at most two, § 577.9(c)); Fiona the Sic Bo and Asia Poker tables, whose opening inspection
# and cards the floorperson assigned to the table signs (§ 539.5(a), § 575.4(a)); Frank the rest. TDF-2 is staffed
# but closed: it waits for its dice.
CREW: dict[str, list[tuple[str, str]]] = {
    "TDF-1": [(STICK, "dealer5"), (D, "dealer6"), (D, "dealer7"), (FLOOR, "floor")],
    "TDF-2": [(STICK, "dealer8"), (D, "dealer9"), (D, "dealer10"), (FLOOR, "floor")],
    "SB-1": [(D, "dealer11"), (FLOOR, "floor2")],
    "SB-2": [(FLOOR, "floor2")],
    "AP-1": [(D, "dealer12"), (FLOOR, "floor2")],
    "AP-2": [(FLOOR, "floor2")],
    "CR-1": [(BOX, "dealer3"), (STICK, "dealer2"), (D, "dealer"), (FLOOR, "floor3")],
    "RL-1": [(D, "dealer4"), (FLOOR, "floor3")],
    "HRD-1": [(FLOOR, "floor3")],
    "PH-1": [(FLOOR, "floor3")],
}


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
    return made + _crew_placed(facility, tables)


def _current_roster(facility: Facility, manager: Any) -> Roster:
    """The roster of the shift under way (the latest that has begun on today's gaming day), made if missing."""
    day, now = gaming_day(facility), timezone.now()
    shifts = list(selectors.shifts_of(facility))
    begun = [s for s in shifts if services.shift_start(facility, day, s) <= now] or shifts[:1]
    shift = max(begun, key=lambda s: services.shift_start(facility, day, s))
    return selectors.roster_for(facility, day, shift) or services.roster_create(
        facility=facility, gaming_date=day, shift=shift, user=manager)


def _crew_placed(facility: Facility, tables: dict[str, GamingTable]) -> int:
    """The shift manager places the crew on the roster, the whole pit at one instant (nothing when anyone is
    already placed: the floor is the shift manager's then). The number of places taken."""
    manager = people_holding(facility, [Role.SHIFT_MANAGER]).order_by("pk").first()
    if manager is None or Assignment.objects.filter(roster__facility=facility, ends_at__isnull=True).exists():
        return 0
    wanted_names = {username for places in CREW.values() for _, username in places}
    people = {u.username: u for u in get_user_model().objects.filter(username__in=wanted_names)}
    wanted = {tables[number]: [(position, people[username]) for position, username in places if username in people]
              for number, places in CREW.items() if number in tables}
    if not any(wanted.values()):
        return 0
    roster = _current_roster(facility, manager)
    _ended, placed = services.roster_fill(roster=roster, wanted=wanted, user=manager)
    return placed
