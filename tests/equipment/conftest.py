"""Equipment fixtures: tables of each dice game at the persona facility, and helpers to log sets
and open tables."""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from compliance.models import Game
from compliance.roles import Role
from equipment import selectors, services
from equipment.models import TableDiceMethod
from tests.factories import PASSWORD, GamingTableFactory, make_person


@pytest.fixture(autouse=True)
def _equipment_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The equipment logs tested on their own: only the equipment's part of a table's readiness counts here.
    The other chapters' requirements (staffing and cameras, limits and the Rules Submission, providers) and the
    rule that only the floorperson assigned to the table signs are tested in tests/compliance/test_readiness*.py
    and tests/staffing; here every floorperson stands as the table's assigned one."""
    from compliance import floor_assignments, opening_checks, readiness

    monkeypatch.setattr(opening_checks, "_LISTENERS", [])
    monkeypatch.setattr(readiness, "_SOURCES", [r for r in readiness._SOURCES if r.name == "equipment"])
    monkeypatch.setattr(readiness, "_CONSUMERS", [])
    monkeypatch.setattr(floor_assignments, "_READERS", [_every_floorperson])


def _every_floorperson(table: Any, at: datetime) -> set[int]:
    from compliance.selectors import people_holding

    return set(people_holding(table.facility, [Role.FLOORPERSON]).values_list("pk", flat=True))

NY = ZoneInfo("America/New_York")


def local(*args: int) -> datetime:
    """An aware datetime in the facility's time zone."""
    return datetime(*args, tzinfo=NY)  # type: ignore[arg-type,misc]


# A Monday evening in March: "21:04" is the time the rules' examples use (24:00:00 later is on time).
T0 = local(2026, 3, 2, 21, 4)


# Every set of dice is new (the register refuses identifiers used before): each placement in a
# test takes the next lot unless the test names its own.
_LOTS = itertools.count(1)


def next_lot() -> str:
    return f"LOT-{next(_LOTS):05d} 001-006"


def approve_equipment(facility: Any, game_code: str) -> None:
    """The register holds an approval for every device the game's chapter requires approved (as a facility
    running the game would); tests of the register itself withdraw or leave them out."""
    from datetime import date

    from equipment.approval_kinds import kinds_for
    from equipment.models import EquipmentApproval

    officer = None
    for kind in list(kinds_for(game_code)) + [k for m in ("shaker", "rng", "flat_button")
                                                          for k in kinds_for(game_code, m)]:
        if EquipmentApproval.objects.filter(facility=facility, kind=kind.code).exists():
            continue
        officer = officer or make_person(Role.COMPLIANCE_OFFICER, facility)
        EquipmentApproval.objects.create(facility=facility, kind=kind.code, device=f"Test {kind.code}",
                                         bureau=kind.bureau, reference=f"REF-{kind.code}", approved_on=date(2020, 1, 1),
                                         bears_logo=True, has_lockout=True, recorded_by=officer)


def make_table(facility: Any, game_code: str, number: str, dice_method: str = "rng") -> Any:
    """A table of the game; an Asia Poker table records its dice method (``dice_method``) as it is set up."""
    table = GamingTableFactory(facility=facility, game=Game.objects.get(code=game_code), number=number)
    approve_equipment(facility, game_code)
    if game_code == "asia-poker" and dice_method:
        TableDiceMethod.objects.create(
            facility=facility, table=table, method=dice_method, recorded_by=make_person(Role.SHIFT_MANAGER, facility)
        )
    return table


@pytest.fixture
def sic_bo(facility: Any) -> Any:
    return make_table(facility, "sic-bo", "SB-1")


@pytest.fixture
def tdf(facility: Any) -> Any:
    return make_table(facility, "three-dice-football", "TDF-1")


@pytest.fixture
def props(facility: Any) -> Any:
    return make_table(facility, "props-and-hops", "PH-1")


@pytest.fixture
def asia(facility: Any) -> Any:
    return make_table(facility, "asia-poker", "AP-1")


@pytest.fixture
def place_dice(floorperson: Any, dealer: Any) -> Any:
    """``place_dice(table, at)``: the floorperson puts the game's standard set in play."""

    def place(table: Any, at: datetime, **kwargs: Any) -> Any:
        requirement = selectors.requirement_for(table)
        values: dict[str, Any] = {
            "table": table,
            "user": floorperson,
            "password": PASSWORD,
            "dealer": dealer,
            "dealer_password": PASSWORD,
            "identifiers": next_lot(),
            "dice_count": requirement.dice_count,
            "colours": requirement.dice_colours,
            "at": at,
        }
        values.update(kwargs)
        return services.dice_set_change(**values)

    return place


@pytest.fixture
def place_dice_alone(floorperson: Any, dealer: Any) -> Any:
    """``place_dice_alone(table, at)``: the floorperson puts a set in play with ``dice_set_place`` alone
    (no change of the set in play), the game's count and colours, a new lot; any argument overridden."""

    def place(table: Any, at: datetime, **kwargs: Any) -> Any:
        requirement = selectors.requirement_for(table)
        values: dict[str, Any] = {
            "table": table,
            "user": floorperson,
            "password": PASSWORD,
            "dealer": dealer,
            "dealer_password": PASSWORD,
            "identifiers": next_lot(),
            "dice_count": requirement.dice_count,
            "colours": requirement.dice_colours,
            "at": at,
        }
        values.update(kwargs)
        return services.dice_set_place(**values)

    return place


@pytest.fixture
def place_decks(floorperson: Any, dealer: Any) -> Any:
    def place(table: Any, at: datetime, **kwargs: Any) -> Any:
        values: dict[str, Any] = {
            "table": table,
            "user": floorperson,
            "password": PASSWORD,
            "dealer": dealer,
            "dealer_password": PASSWORD,
            "deck_count": 1,
            "back_colours": "red",
            "dealt_from": "hand",
            "automated_shuffler": True,  # § 575.9(a)(1): cards dealt from the hand are shuffled by a machine
            "at": at,
        }
        values.update(kwargs)
        return services.deck_set_change(**values)

    return place


@pytest.fixture
def inspect(floorperson: Any) -> Any:
    def run(table: Any, at: datetime, **kwargs: Any) -> Any:
        values: dict[str, Any] = {
            "table": table,
            "user": floorperson,
            "password": PASSWORD,
            "values_entered": [1, 4, 4],
            "combinations_illuminated": True,
            "at": at,
        }
        values.update(kwargs)
        return services.inspection_record(**values)

    return run


@pytest.fixture
def open_at() -> Any:
    """``open_at(table, user, at)``: the table opened through ``table_open`` with time frozen at ``at``."""

    def run(table: Any, user: Any, at: datetime) -> Any:
        with time_machine.travel(at, tick=False):
            return services.table_open(table=table, user=user, at=at)

    return run


# The usual malfunction of each device, as a floorperson records it (round outcome as its clause requires).
_MALFUNCTIONS = {
    "dealing_shoe": ("Stopped dealing", "void_reshuffled"),
    "sic_bo_display": ("Layout lights stayed dark after the values were entered", "settled_ceased"),
}


def record_malfunction(table: Any, user: Any, device: str, at: Any, **kwargs: Any) -> Any:
    """``services.malfunction_record`` with the device's usual description and round outcome."""
    description, round_outcome = _MALFUNCTIONS[device]
    values: dict[str, Any] = {"description": description, "round_outcome": round_outcome, **kwargs}
    return services.malfunction_record(table=table, user=user, password=PASSWORD, device=device, at=at, **values)
