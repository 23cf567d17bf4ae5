"""The Sic Bo opening inspection (§ 539.5(a)): by the floorperson, before opening, within 4 hours."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError

from equipment import services
from equipment.models import OpeningInspection
from tests.equipment.conftest import T0, local

pytestmark = pytest.mark.django_db


def test_sic_bo_opens_only_after_a_passing_inspection_before_opening(sic_bo, place_dice, inspect, floorperson, open_at):
    place_dice(sic_bo, T0)
    with pytest.raises(ValidationError, match="has not been inspected since it last closed"):
        open_at(sic_bo, floorperson, T0)
    failed = inspect(sic_bo, T0, automated_shaker_in_use=True, shaker_operations=2, shaker_tossed_properly=True)
    assert not failed.passed
    with pytest.raises(ValidationError, match="failed its last inspection"):
        open_at(sic_bo, floorperson, T0 + timedelta(minutes=1))
    passed = inspect(
        sic_bo,
        T0 + timedelta(minutes=2),
        automated_shaker_in_use=True,
        shaker_operations=3,
        shaker_tossed_properly=True,
    )
    assert passed.passed and passed.values_entered == "1-4-4" and passed.is_complete
    open_at(sic_bo, floorperson, T0 + timedelta(minutes=3))


def test_an_inspection_at_23_50_opens_the_table_at_00_10(sic_bo, place_dice, inspect, floorperson, open_at):
    # § 539.5(a) says "prior to opening": the gaming day's midnight plays no part.
    inspect(sic_bo, local(2026, 3, 2, 23, 50))
    place_dice(sic_bo, local(2026, 3, 3, 0, 5))
    assert open_at(sic_bo, floorperson, local(2026, 3, 3, 0, 10)).opened_at == local(2026, 3, 3, 0, 10)


def test_an_inspection_before_the_last_closing_or_too_long_ago_does_not_open(
    sic_bo, place_dice, inspect, floorperson, open_at
):
    inspect(sic_bo, T0)
    place_dice(sic_bo, T0)
    open_at(sic_bo, floorperson, T0 + timedelta(minutes=1))
    services.table_close(table=sic_bo, user=floorperson, at=T0 + timedelta(minutes=30))
    place_dice(sic_bo, T0 + timedelta(minutes=40), reason="table_reopened")
    with pytest.raises(ValidationError, match="not been inspected since it last closed and within 4 hours"):
        open_at(sic_bo, floorperson, T0 + timedelta(minutes=45))  # the inspection came before the closing
    inspect(sic_bo, T0 + timedelta(minutes=50))
    with pytest.raises(ValidationError, match="within 4 hours before opening"):
        open_at(sic_bo, floorperson, T0 + timedelta(hours=4, minutes=51))
    open_at(sic_bo, floorperson, T0 + timedelta(hours=4, minutes=50))


def test_only_a_floorperson_records_the_opening_inspection(sic_bo, inspect, shift_manager):
    with pytest.raises(ValidationError, match="is the floorperson's duty"):
        inspect(sic_bo, T0, user=shift_manager)
    assert not OpeningInspection.objects.exists()


def test_an_inspection_needs_three_die_values(sic_bo, inspect):
    with pytest.raises(ValidationError, match="three die values"):
        inspect(sic_bo, T0, values_entered=[1, 2])
    with pytest.raises(ValidationError, match="three die values"):
        inspect(sic_bo, T0, values_entered=[1, 2, 7])
