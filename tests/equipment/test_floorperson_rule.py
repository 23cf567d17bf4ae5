"""Issue 8, item 12: who may stand as the floorperson is one rule everywhere (equipment/floor.py).
A duty the chapters give to "the floorperson" (§ 539.5(a), § 575.4(a), § 668a.3(d)) is refused to a
shift manager in words; "a floorperson or above" (§ 539.7(b)) accepts one."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError

from equipment import services
from equipment.floor import FLOORPERSON_OR_ABOVE, THE_FLOORPERSON
from equipment.models import DeckRemoval, DeckSet, DiceRemoval, DiceSet, Malfunction, OpeningInspection
from tests.equipment.conftest import T0
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def test_every_signature_naming_the_floorperson_reads_the_one_rule():
    for model in (DiceSet, DeckSet, DiceRemoval, DeckRemoval, OpeningInspection):
        assert model.requirement("floorperson").roles == THE_FLOORPERSON, model
    assert Malfunction.requirement("floorperson").roles == FLOORPERSON_OR_ABOVE


def test_a_shift_manager_does_not_load_dice_as_the_floorperson(props, place_dice, shift_manager):
    with pytest.raises(ValidationError, match="floorperson's duty"):
        place_dice(props, T0, user=shift_manager)
    assert not DiceSet.objects.exists()


def test_a_shift_manager_does_not_verify_the_cards_nor_inspect_sic_bo(
    asia, sic_bo, place_decks, inspect, shift_manager
):
    with pytest.raises(ValidationError, match="floorperson's duty"):
        place_decks(asia, T0, user=shift_manager)
    with pytest.raises(ValidationError, match="floorperson's duty"):
        inspect(sic_bo, T0, user=shift_manager)


def test_a_shift_manager_records_a_malfunction_as_a_floorperson_or_above(sic_bo, shift_manager):
    malfunction = services.malfunction_record(
        table=sic_bo,
        user=shift_manager,
        password=PASSWORD,
        device="sic_bo_shaker",
        description="Shaker did not fire",
        round_outcome="void_returned",
        at=T0 + timedelta(minutes=1),
    )
    assert malfunction.is_complete
