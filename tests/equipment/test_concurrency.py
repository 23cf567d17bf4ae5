"""Two floorpersons at one table at once: the database keeps one set in play; two sweeps raise one alert."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from compliance.roles import Role
from equipment import services
from equipment.models import DiceSet, EquipmentAlert
from tests.equipment.conftest import T0, make_table
from tests.factories import PASSWORD, make_person
from tests.threads import at_once

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)  # keeps content types intact


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
def test_two_placements_at_once_leave_one_set_in_play(facility):
    table = make_table(facility, "props-and-hops", "PH-1")
    floor_a, floor_b = make_person(Role.FLOORPERSON, facility), make_person(Role.FLOORPERSON, facility)
    dealer = make_person(Role.DEALER, facility)

    def place(user: Any, lot: str) -> Any:
        return lambda: services.dice_set_place(
            table=table, user=user, password=PASSWORD, dealer=dealer, dealer_password=PASSWORD,
            identifiers=lot, dice_count=2, at=T0,
        )  # fmt: skip

    outcomes = at_once(place(floor_a, "A"), place(floor_b, "B"))
    assert sum(isinstance(o, DiceSet) for o in outcomes) == 1
    assert sum(isinstance(o, ValidationError) for o in outcomes) == 1
    assert DiceSet.objects.filter(table=table, removed_at__isnull=True).count() == 1


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="needs concurrent transactions")
def test_two_sweeps_at_once_raise_one_alert(facility):
    table = make_table(facility, "props-and-hops", "PH-1")
    floor, dealer = make_person(Role.FLOORPERSON, facility), make_person(Role.DEALER, facility)
    services.dice_set_place(
        table=table, user=floor, password=PASSWORD, dealer=dealer, dealer_password=PASSWORD, identifiers="A",
        dice_count=2, at=T0,
    )  # fmt: skip
    services.table_open(table=table, user=floor, at=T0)
    late = T0 + timedelta(hours=25)
    outcomes = at_once(lambda: services.equipment_sweep(now=late), lambda: services.equipment_sweep(now=late))
    assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
    assert EquipmentAlert.objects.count() == 1
    assert sum(len(o.raised) for o in outcomes) == 1


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="needs concurrent transactions")
def test_a_sweep_and_a_change_at_once_leave_no_open_alert_for_the_removed_set(facility):
    table = make_table(facility, "props-and-hops", "PH-1")
    floor, dealer = make_person(Role.FLOORPERSON, facility), make_person(Role.DEALER, facility)
    old = services.dice_set_place(
        table=table, user=floor, password=PASSWORD, dealer=dealer, dealer_password=PASSWORD, identifiers="A",
        dice_count=2, at=T0,
    )  # fmt: skip
    services.table_open(table=table, user=floor, at=T0)
    late = T0 + timedelta(hours=25)

    def change() -> Any:
        return services.dice_set_change(
            table=table, user=floor, password=PASSWORD, dealer=dealer, dealer_password=PASSWORD, identifiers="B",
            dice_count=2, at=late,
        )  # fmt: skip

    outcomes = at_once(lambda: services.equipment_sweep(now=late), change)
    assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
    assert not EquipmentAlert.objects.filter(dice_set=old, resolved_at__isnull=True).exists()
