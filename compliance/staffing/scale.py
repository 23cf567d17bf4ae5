"""Staffing and surveillance's part of a generated year (``manage.py generate_casino``, :mod:`compliance.scale`).

Through the services, the clock set to each moment: the floorpersons a large floor needs (two tables each, within
every span of § 577.9(c) and the facility's others), the three shifts, a camera over each end of each Three Dice
Football table (§ 577.9(a)); on the first day the shift manager places a floorperson over every table; then each
shift of each gaming day its roster made from the one before, as the shift manager makes it (the places carried over
at the hand-over); and once a week a camera out of service for twenty minutes and back (§ 577.9(a)'s coverage
broken and restored, with the violation periods the sync records).
"""

from __future__ import annotations

from datetime import time, timedelta
from typing import Any

from compliance.gaming_day import day_bounds
from compliance.models import Department, GamingTable
from compliance.roles import Role
from compliance.scale import ScalePlan, travel
from compliance.scale_turns import beside_writes
from compliance.services import profile_create
from compliance.staffing import services
from compliance.staffing.models import Position, Shift

__all__ = ["staffing_scale_seed"]

SHIFTS = (("Day", time(6, 0)), ("Swing", time(14, 0)), ("Grave", time(22, 0)))
TABLES_PER_FLOORPERSON = 2


def _floorpersons(plan: ScalePlan, tables: int) -> None:
    have = plan.people["floorpersons"]
    for n in range(len(have), -(-tables // TABLES_PER_FLOORPERSON)):
        have.append(profile_create(
            username=f"floor-{n:03d}", full_name=f"Floorperson {n:03d}", credential_number=f"PGCB-7{n:05d}",
            department_code=Department.TABLE_GAMES, roles=[Role.FLOORPERSON], facilities=[plan.facility]))


def staffing_scale_seed(*, plan: ScalePlan) -> str:
    tables = list(GamingTable.objects.filter(facility=plan.facility).select_related("game").order_by("number"))
    manager, surveillance = plan.people[Role.SHIFT_MANAGER], plan.people[Role.SURVEILLANCE]
    start = day_bounds(plan.facility, plan.first_day)[0]
    with travel(start - timedelta(days=2)), beside_writes():
        _floorpersons(plan, len(tables))
        shifts = [Shift.objects.get_or_create(facility=plan.facility, name=name, defaults={"starts_at": at})[0]
                  for name, at in SHIFTS]
        cameras = []
        for table in (t for t in tables if t.game.code == "three-dice-football"):
            for end in ("a", "b"):
                camera = services.camera_register(facility=plan.facility, code=f"C-{table.number}-{end}", user=surveillance,
                                                  location=f"Over {table.number}, end {end.upper()}")
                services.coverage_set(camera=camera, table=table, end=end, user=surveillance)
                cameras.append(camera)
    floor = plan.people["floorpersons"]
    wanted: dict[GamingTable, list[tuple[str, Any]]] = {
        t: [(Position.FLOORPERSON.value, floor[n // TABLES_PER_FLOORPERSON])] for n, t in enumerate(tables)}
    plan.shared["floorperson_of"] = {t.pk: places[0][1] for t, places in wanted.items()}  # the equipment's signers
    rosters = outages = 0
    for number, day in enumerate(plan.each_day()):
        for shift in shifts:
            at = services.shift_start(plan.facility, day, shift)
            with travel(at), beside_writes():
                roster = services.roster_create(facility=plan.facility, gaming_date=day, shift=shift, user=manager)
                if rosters == 0:
                    services.roster_fill(roster=roster, wanted=wanted, user=manager, at=at)
            rosters += 1
        if cameras and number % 7 == 3:
            camera = cameras[number // 7 % len(cameras)]
            out = day_bounds(plan.facility, day)[0] + timedelta(hours=9)
            with travel(out), beside_writes():
                services.camera_out_of_service(camera=camera, reason="Lens fogged: cleaned", user=surveillance,
                                              at=out)
            with travel(out + timedelta(minutes=20)), beside_writes():
                services.camera_back_in_service(camera=camera, user=surveillance, at=out + timedelta(minutes=20))
            outages += 1
        if (number + 1) % 30 == 0:
            plan.say(f"    staffing: {number + 1} of {plan.days} gaming days, {rosters:,} rosters")
    return (f"{len(floor)} floorpersons over {len(tables)} tables, {rosters:,} shift rosters, {len(cameras)} cameras, "
            f"{outages} camera outages")
