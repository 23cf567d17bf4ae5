"""A facility whose tables can be made to meet, or miss, each chapter's requirements through the services people
use (for tests/compliance/test_readiness*.py and the browser test)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import time
from decimal import Decimal
from typing import Any

from compliance.gaming_day import gaming_day
from compliance.models import Facility, Game
from compliance.roles import Role
from compliance.staffing import services as staffing
from compliance.submissions import limits as wager_limits
from compliance.submissions import services as submissions
from equipment import services as equipment
from tests.equipment.conftest import approve_equipment
from tests.factories import PASSWORD, GamingTableFactory, make_person


@dataclass
class World:
    facility: Facility
    officer: Any
    manager: Any
    floorperson: Any
    surveillance: Any
    dealers: list[Any]
    roster: Any = None
    cameras: int = 0
    made: list[Any] = field(default_factory=list)

    # --- chapter 521 ------------------------------------------------------------------------------------------

    def approve_rules(self, at: Any) -> Any:
        from tests.submissions.conftest import ASIA

        sub = submissions.submission_draft(facility=self.facility, title="Rules", user=self.officer)
        submissions.submission_game_set(submission=sub, code="asia-poker", values=ASIA, user=self.officer)
        sub.refresh_from_db()
        submissions.submission_submit(submission=sub, user=self.officer, password=PASSWORD)
        day = gaming_day(self.facility, at)
        submissions.board_decision_record(submission=sub, decision="approved", decided_on=day, effective_on=day,
                                          reference="BGO-R", user=self.officer)
        return sub

    def set_limits(self, table: Any, minimum: str = "10", maximum: str = "500") -> Any:
        return wager_limits.limit_change_request(table=table, minimum=Decimal(minimum), maximum=Decimal(maximum),
                                                 patrons_playing=False, user=self.floorperson)

    # --- staffing -----------------------------------------------------------------------------------------------

    def start_roster(self, at: Any) -> Any:
        shift = staffing.shift_create(facility=self.facility, name="Swing", starts_at=time(14, 0), hours=8,
                                      user=self.manager)
        self.roster = staffing.roster_create(facility=self.facility, gaming_date=gaming_day(self.facility, at),
                                             shift=shift, user=self.manager)
        return self.roster

    def staff(self, table: Any, at: Any, *, dealers: int = 2, stick: bool = True, floor: bool = True) -> None:
        for person in self.dealers[:dealers]:
            staffing.assignment_add(roster=self.roster, person=person, position="dealer", table=table,
                                    user=self.manager, starts_at=at)
        if stick:
            staffing.assignment_add(roster=self.roster, person=self.dealers[3], position="stickperson", table=table,
                                    user=self.manager, starts_at=at)
        if floor:
            staffing.assignment_add(roster=self.roster, person=self.floorperson, position="floorperson", table=table,
                                    user=self.manager, starts_at=at)

    def watch(self, table: Any, ends: str) -> list[Any]:
        made = []
        for end in ends:
            self.cameras += 1
            camera = staffing.camera_register(facility=self.facility, code=f"C-{self.cameras}", user=self.surveillance)
            staffing.coverage_set(camera=camera, table=table, end=end, user=self.surveillance)
            made.append(camera)
        return made

    def tdf_awaiting_its_crew(self, at: Any, lot: str, number: str = "TDF-1") -> Any:
        """A Three Dice Football table with its rules, limits, new dice and a roster: only § 577.9 left to meet."""
        table = self.table("three-dice-football", number)
        self.approve_rules(at)
        self.set_limits(table)
        self.new_dice(table, at, lot)
        self.start_roster(at)
        return table

    # --- equipment ----------------------------------------------------------------------------------------------

    def table(self, game_code: str, number: str) -> Any:
        table = GamingTableFactory(facility=self.facility, number=number, game=Game.objects.get(code=game_code))
        approve_equipment(self.facility, game_code)
        return table

    def new_dice(self, table: Any, at: Any, lot: str) -> Any:
        return equipment.dice_set_change(table=table, user=self.floorperson, password=PASSWORD, dealer=self.dealers[0],
                                         dealer_password=PASSWORD, identifiers=lot, dice_count=6,
                                         colours="4 green, 2 red", at=at)


def world_for(facility: Facility) -> World:
    return World(facility=facility, officer=make_person(Role.COMPLIANCE_OFFICER, facility),
                 manager=make_person(Role.SHIFT_MANAGER, facility), floorperson=make_person(Role.FLOORPERSON, facility),
                 surveillance=make_person(Role.SURVEILLANCE, facility),
                 dealers=[make_person(Role.DEALER, facility) for _ in range(4)])
