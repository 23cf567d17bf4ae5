"""Staffing fixtures: a shift, a roster, Three Dice Football tables with their crews and cameras."""

from __future__ import annotations

from datetime import time
from typing import Any

import pytest
import time_machine

from compliance.models import Game
from compliance.roles import Role
from compliance.staffing import services
from tests.equipment.conftest import T0, local, make_table, next_lot  # noqa: F401 (shared clock and tables)
from tests.factories import make_person


@pytest.fixture(autouse=True)
def _staffing_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Staffing and surveillance's part of a table's readiness on its own (the other chapters' parts are tested
    in their apps and together in tests/compliance/test_readiness*.py)."""
    from compliance import readiness

    monkeypatch.setattr(readiness, "_SOURCES", [r for r in readiness._SOURCES if r.name == "staffing"])


@pytest.fixture
def internal_control(db: Any) -> Any:
    """A rule of the facility's own internal controls (not of the regulations): at least one dealer at a
    Blackjack table. Only such a rule may be overridden by a shift manager's signed decision."""
    from compliance.staffing.models import StaffingRule

    return StaffingRule.objects.create(game=Game.objects.get(code="blackjack"), code="ic-dealer", positions="dealer",
                                       minimum=1, words="a dealer at the table (internal controls)", clause="IC 7.2",
                                       internal_control=True)


@pytest.fixture(autouse=True)
def _clock() -> Any:
    with time_machine.travel(T0, tick=False):
        yield


@pytest.fixture
def shift(facility: Any, shift_manager: Any) -> Any:
    return services.shift_create(facility=facility, name="Swing", starts_at=time(14, 0), hours=8, user=shift_manager)


@pytest.fixture
def roster(facility: Any, shift: Any, shift_manager: Any) -> Any:
    from compliance.gaming_day import gaming_day

    return services.roster_create(facility=facility, gaming_date=gaming_day(facility, T0), shift=shift,
                                  user=shift_manager)


@pytest.fixture
def staff_table(roster: Any, shift_manager: Any, facility: Any) -> Any:
    """``staff_table(table, dealers=2, stick=1, floorperson="new")``: people placed at the table from T0; a new
    floorperson over it (§ 577.9(c) presupposes one), the person given, or none (``floorperson=None``)."""

    def place(table: Any, *, dealers: int = 2, stick: int = 1, floorperson: Any = "new") -> list[Any]:
        if floorperson == "new":
            floorperson = make_person(Role.FLOORPERSON, facility)
        made = []
        for position, count in (("dealer", dealers), ("stickperson", stick)):
            for _ in range(count):
                person = make_person(Role.DEALER, facility)
                made.append(services.assignment_add(roster=roster, person=person, position=position, table=table,
                                                    user=shift_manager, starts_at=T0))
        if floorperson is not None:
            made.append(services.assignment_add(roster=roster, person=floorperson, position="floorperson",
                                                table=table, user=shift_manager, starts_at=T0))
        return made

    return place


@pytest.fixture
def watch_table(facility: Any, surveillance: Any) -> Any:
    """``watch_table(table, "a", "b")``: a new stationary camera on each end given."""

    def watch(table: Any, *ends: str) -> list[Any]:
        cameras: list[Any] = []
        for end in ends:
            camera = services.camera_register(facility=facility, code=f"C-{table.number}-{end}-{len(cameras)}",
                                              user=surveillance)
            services.coverage_set(camera=camera, table=table, end=end, user=surveillance)
            cameras.append(camera)
        return cameras

    return watch


@pytest.fixture
def tdf_game() -> Any:
    return Game.objects.get(code="three-dice-football")
