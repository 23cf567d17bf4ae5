"""Dice: the 24-hour clock, the set of each game, two people placing, every die accounted for."""

from __future__ import annotations

from datetime import UTC, timedelta

import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from compliance.models import SignedRecordError
from equipment import services
from equipment.models import DiceRemoval, DiceSet, EquipmentAlert
from tests.equipment.conftest import NY, T0, local
from tests.factories import PASSWORD, make_person

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("in_play", "overdue"),
    [(timedelta(hours=23, minutes=59), False), (timedelta(hours=24), False), (timedelta(hours=24, seconds=1), True)],
)
def test_dice_are_overdue_only_after_more_than_24_hours(tdf, place_dice, floorperson, in_play, overdue, open_at):
    place_dice(tdf, T0)
    open_at(tdf, floorperson, T0 + timedelta(minutes=5))
    now = T0 + in_play
    with time_machine.travel(now, tick=False):
        result = services.equipment_sweep(now=now)
    assert [i.kind for i in result.overdue] == (["dice"] if overdue else [])
    assert EquipmentAlert.objects.count() == (1 if overdue else 0)
    assert [i.kind for i in result.due] == ["dice"]  # due within 30 minutes in every case


def test_placement_is_signed_by_floorperson_and_dealer(tdf, place_dice, floorperson, dealer):
    dice = place_dice(tdf, T0)
    assert dice.is_complete
    assert {s.signer_id for s in dice.signatures.all()} == {floorperson.pk, dealer.pk}
    assert dice.due_at == T0 + timedelta(hours=24)
    with pytest.raises(SignedRecordError):
        dice.identifiers = "changed"
        dice.save()


def test_the_floorperson_cannot_witness_their_own_placement(tdf, floorperson, place_dice_alone):
    with pytest.raises(ValidationError, match="different person"):
        place_dice_alone(tdf, T0, dealer=floorperson)


def test_a_three_dice_football_set_is_four_green_and_two_red(tdf, place_dice):
    with pytest.raises(ValidationError, match="4 green, 2 red"):
        place_dice(tdf, T0, colours="6 white")
    with pytest.raises(ValidationError, match="6 dice"):
        place_dice(tdf, T0, dice_count=5)


def test_high_roll_dice_takes_ten_and_six_only_where_the_approved_submission_sets_the_variation(
        facility, place_dice, compliance_officer, shift_manager):
    from compliance.gaming_day import gaming_day
    from compliance.submissions import services as submissions
    from tests.equipment.conftest import make_table
    from tests.submissions.conftest import ASIA, approve

    table = make_table(facility, "high-roll-dice", "HRD-1")
    with pytest.raises(ValidationError, match=r"the standard game .* a set of 10 dice; this set has 6"):
        place_dice(table, T0, dice_count=6)
    with time_machine.travel(T0 - timedelta(days=1), tick=False):
        day = gaming_day(facility)
        sub = submissions.submission_draft(facility=facility, title="Six dice", user=compliance_officer)
        submissions.submission_game_set(submission=sub, code="asia-poker", values=ASIA, user=compliance_officer)
        submissions.submission_game_set(submission=sub, code="high-roll-dice", user=compliance_officer,
                                        values={"six_dice": "yes", "millionaire_row_max": "1.00"})
        approve(sub, compliance_officer, effective_on=day, decided_on=day)
        submissions.table_setting_set(table=table, options={"six_dice": "yes"}, user=shift_manager)
    with pytest.raises(ValidationError, match=r"the six-dice variation .* a set of 6 dice; this set has 10"):
        place_dice(table, T0, dice_count=10)
    assert place_dice(table, T0, dice_count=6).dice_count == 6


def test_the_database_holds_one_dice_set_in_play_per_table(tdf, place_dice, floorperson, dealer):
    first = place_dice(tdf, T0)
    with pytest.raises(IntegrityError), transaction.atomic():
        DiceSet.objects.create(
            facility=tdf.facility,
            table=tdf,
            placed_at=T0,
            due_at=T0 + timedelta(hours=24),
            floorperson=floorperson,
            dealer=dealer,
            identifiers="dup",
            dice_count=6,
            container="dice_cup",
        )
    assert DiceSet.objects.filter(removed_at__isnull=True).get() == first


def test_a_lost_die_forces_a_new_set_at_once(tdf, place_dice, floorperson, open_at):
    old = place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    # Removing alone from an open table is refused: the new set goes in within the same change.
    with pytest.raises(ValidationError, match="record the new set in the same change"):
        services.dice_set_remove(
            dice_set=old,
            user=floorperson,
            password=PASSWORD,
            reason="die_lost",
            dice_returned=5,
            dice_lost=1,
            at=T0 + timedelta(hours=3),
        )
    new = place_dice(tdf, T0 + timedelta(hours=3), reason="die_lost", dice_lost=1, identifiers="LOT-B")
    removal = DiceRemoval.objects.get(dice_set=old)
    assert (removal.reason, removal.dice_returned, removal.dice_lost) == ("die_lost", 5, 1)
    assert new.placed_because == DiceSet.PlacedBecause.REPLACEMENT
    assert new.due_at == T0 + timedelta(hours=27)
    old.refresh_from_db()
    assert old.removed_at == T0 + timedelta(hours=3)
    assert all(s.matches_record() for s in old.signatures.all())  # the in-play marker is not signed content


def test_removed_dice_are_accounted_for(tdf, place_dice, floorperson):
    old = place_dice(tdf, T0)
    with pytest.raises(ValidationError, match="do not account"):
        services.dice_set_remove(dice_set=old, user=floorperson, password=PASSWORD, reason="damaged", dice_returned=5)
    with pytest.raises(ValidationError, match="lost die"):
        services.dice_set_remove(
            dice_set=old, user=floorperson, password=PASSWORD, reason="damaged", dice_returned=5, dice_lost=1
        )


def test_a_dealer_cannot_place_dice(tdf, dealer, floorperson, place_dice_alone):
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        place_dice_alone(tdf, T0, user=dealer, dealer=floorperson)


def test_people_of_another_facility_cannot_log_equipment(tdf, other_facility, dealer, place_dice_alone):
    from compliance.roles import Role

    stranger = make_person(Role.FLOORPERSON, other_facility)
    with pytest.raises(ValidationError, match="not assigned"):
        place_dice_alone(tdf, T0, user=stranger)


@pytest.mark.parametrize("lost", [7, -1])
def test_lost_dice_outside_the_set_are_refused_with_a_message(tdf, place_dice, floorperson, lost):
    old = place_dice(tdf, T0)
    with pytest.raises(ValidationError, match="Dice lost must be between 0 and 6"):
        place_dice(tdf, T0 + timedelta(hours=1), reason="die_lost", dice_lost=lost, identifiers="LOT-B")
    with pytest.raises(ValidationError, match="Dice lost must be between 0 and 6"):
        services.dice_set_remove(
            dice_set=old, user=floorperson, password=PASSWORD, reason="die_lost", dice_returned=6 - lost, dice_lost=lost
        )
    assert not DiceRemoval.objects.exists()


def test_the_dealers_wrong_password_names_the_dealer_and_saves_nothing(sic_bo, place_dice, dealer):
    from equipment.models import DiceSet

    with pytest.raises(ValidationError, match=f"{dealer.profile.full_name}'s password is not correct"):
        place_dice(sic_bo, T0, dealer_password="typo")
    assert not DiceSet.objects.exists()


@pytest.mark.parametrize(
    ("placed", "due_local"),
    [
        (local(2026, 3, 7, 21, 0), local(2026, 3, 8, 22, 0)),  # EST → EDT: 21:00 + 24 h is 22:00
        (local(2026, 10, 31, 21, 0), local(2026, 11, 1, 20, 0)),  # EDT → EST: 21:00 + 24 h is 20:00
    ],
    ids=["spring-forward-8-mar", "fall-back-1-nov"],
)
def test_the_dice_clock_is_24_hours_of_real_time_across_a_clock_change(
    tdf, place_dice, floorperson, placed, due_local, open_at
):
    with time_machine.travel(placed, tick=False):
        dice = place_dice(tdf, placed)
        open_at(tdf, floorperson, placed)
    dice.refresh_from_db()
    assert dice.due_at == due_local and dice.due_at - dice.placed_at == timedelta(hours=24)
    for offset, overdue in ((timedelta(0), False), (timedelta(seconds=1), True)):
        now = (due_local.astimezone(UTC) + offset).astimezone(NY)
        with time_machine.travel(now, tick=False):
            assert [i.kind for i in services.equipment_sweep(now=now).overdue] == (["dice"] if overdue else [])


def test_a_set_in_play_is_corrected_only_after_it_leaves_play(tdf, place_dice, shift_manager, floorperson):
    from compliance.services import record_correct

    in_play = place_dice(tdf, T0)
    with pytest.raises(ValidationError, match="after it leaves play"):
        record_correct(original=in_play, reason="Typo in the lot", user=shift_manager, changes={"identifiers": "LOT-X"})
    place_dice(tdf, T0 + timedelta(hours=2), identifiers="LOT-B")
    in_play.refresh_from_db()
    correction = record_correct(
        original=in_play, reason="Typo in the lot", user=shift_manager, changes={"identifiers": "LOT-A 001-006 (corr.)"}
    )
    assert correction.removed_at == in_play.removed_at and correction.corrects == in_play


def test_a_removal_can_be_corrected_and_the_correction_is_the_one_in_force(tdf, place_dice, shift_manager):
    from compliance.services import record_correct

    old = place_dice(tdf, T0)
    place_dice(tdf, T0 + timedelta(hours=2), identifiers="LOT-B")
    removal = DiceRemoval.objects.get(dice_set=old)
    correction = record_correct(
        original=removal, reason="Wrong reason", user=shift_manager, changes={"reason": "damaged"}
    )
    assert correction.dice_set_id == old.pk and correction.corrects == removal
    old = DiceSet.objects.get(pk=old.pk)
    assert old.removal == correction
    with pytest.raises(IntegrityError), transaction.atomic():
        DiceRemoval.objects.create(
            facility=tdf.facility, dice_set=old, removed_at=T0 + timedelta(hours=2), reason="scheduled",
            dice_returned=6,
        )  # fmt: skip
