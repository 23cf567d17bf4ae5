"""Issue 8, item 11: each Asia Poker table records how it determines the starting position
(§ 575.2(c)(1)–(3)); a shaker table cannot open without dice in play."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from equipment import services
from tests.equipment.conftest import T0, make_table

pytestmark = pytest.mark.django_db


def test_a_shaker_table_cannot_open_without_dice(facility, place_decks, place_dice, floorperson, open_at):
    table = make_table(facility, "asia-poker", "AP-S", dice_method="shaker")
    place_decks(table, T0)
    with pytest.raises(ValidationError, match=r"without a set of dice in play .*shaker"):
        open_at(table, floorperson, T0 + timedelta(minutes=1))
    place_dice(table, T0 + timedelta(minutes=2), dice_count=3, colours="")
    assert open_at(table, floorperson, T0 + timedelta(minutes=3))


def test_a_random_number_generator_table_opens_without_dice(facility, place_decks, floorperson, open_at):
    table = make_table(facility, "asia-poker", "AP-R", dice_method="rng")
    place_decks(table, T0)
    assert open_at(table, floorperson, T0 + timedelta(minutes=1))


def test_a_table_without_its_method_recorded_does_not_open(facility, place_decks, floorperson, open_at, shift_manager):
    table = make_table(facility, "asia-poker", "AP-N", dice_method="")
    place_decks(table, T0, dealt_from="automated_shoe")  # the flat button needs shuffler and shoe, § 575.5(g)(3)
    with pytest.raises(ValidationError, match=r"Record how table AP-N determines the starting position .*575.2\(c\)"):
        open_at(table, floorperson, T0 + timedelta(minutes=1))
    services.dice_method_record(table=table, user=shift_manager, method="flat_button")
    assert open_at(table, floorperson, T0 + timedelta(minutes=2))
    with pytest.raises(ValidationError, match="is open"):
        services.dice_method_record(table=table, user=shift_manager, method="shaker")


def test_the_method_is_recorded_by_table_management(asia, floorperson, shift_manager):
    with pytest.raises(PermissionDenied):
        services.dice_method_record(table=asia, user=floorperson, method="shaker")
    record = services.dice_method_record(table=asia, user=shift_manager, method="shaker")
    assert record.method == "shaker" and record.history.count() == 2  # set up as rng, then changed
