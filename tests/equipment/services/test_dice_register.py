"""Issue 8, item 9: a new set is provably new. The register of dice refuses identifiers put in play
before at any table of the facility, however they are typed (§ 577.4(d), § 675a.3(b)(1),
§ 668a.3(b)(1), § 539.2(b), § 575.2(c)(1)(i))."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from equipment import services
from equipment.identifiers import dice_key
from equipment.models import DiceRegisterEntry, DiceSet
from tests.equipment.conftest import T0, make_table

pytestmark = pytest.mark.django_db


def test_the_same_identifiers_typed_differently_are_one_key():
    assert dice_key("LOT-A 001-006") == dice_key("lot-a 001–006") == dice_key(" Lot-A  001—006 ")
    assert dice_key("LOT-A 001-006") != dice_key("LOT-A 007-012")


def test_dice_removed_for_tampering_are_refused_at_any_table_in_words(tdf, facility, place_dice, floorperson, open_at):
    place_dice(tdf, T0, identifiers="LOT-A 001-006")
    open_at(tdf, floorperson, T0 + timedelta(minutes=1))
    place_dice(tdf, T0 + timedelta(minutes=10), identifiers="LOT-B 001-006", reason="tampering")
    other = make_table(facility, "three-dice-football", "TDF-2")
    with pytest.raises(ValidationError) as refused:
        place_dice(other, T0 + timedelta(minutes=20), identifiers="lot-a 001–006")
    words = " ".join(refused.value.messages)
    assert "not a new set" in words and "TDF-1" in words and "21:14" in words and "tampering" in words
    assert "never put in play again" in words and "§ 577.4(d)" in words
    assert not DiceSet.objects.filter(table=other).exists()


def test_a_table_cannot_reopen_with_its_own_dice_logged_again_as_a_new_set(tdf, place_dice, floorperson, open_at):
    place_dice(tdf, T0, identifiers="LOT-A 001-006")
    open_at(tdf, floorperson, T0 + timedelta(minutes=1))
    services.table_close(table=tdf, user=floorperson, at=T0 + timedelta(hours=2))
    with pytest.raises(ValidationError, match="not a new set"):
        place_dice(tdf, T0 + timedelta(hours=3), identifiers="LOT-A 001-006", reason="table_reopened")
    # nothing was written: the set is still the one in play, and the table stays closed
    assert DiceSet.objects.get(table=tdf, removed_at__isnull=True).identifiers == "LOT-A 001-006"
    with pytest.raises(ValidationError, match="new set of dice is used when a table is reopened"):
        open_at(tdf, floorperson, T0 + timedelta(hours=3, minutes=5))


def test_dice_still_in_play_at_one_table_are_refused_at_another(tdf, props, place_dice):
    place_dice(tdf, T0, identifiers="SET 42")
    with pytest.raises(ValidationError, match="still in play there"):
        place_dice(props, T0 + timedelta(minutes=1), identifiers="set 42", dice_count=2, colours="")


def test_the_database_holds_one_use_of_identifiers_per_facility(tdf, place_dice):
    dice = place_dice(tdf, T0, identifiers="LOT-A 001-006")
    entry = DiceRegisterEntry.objects.get(dice_set=dice)
    assert entry.key == "lot-a001-006"
    second = place_dice(tdf, T0 + timedelta(hours=1))
    with pytest.raises(IntegrityError), transaction.atomic():
        DiceRegisterEntry.objects.create(facility=tdf.facility, key="lot-a001-006", identifiers="x", dice_set=second)
