"""The rules of the dice and deck logs, each at its boundary, with time frozen (time-machine)."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any

import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from compliance.models import SignedRecordError
from equipment import services
from equipment.models import (
    DeckRemoval,
    DeckSet,
    DiceRemoval,
    DiceSet,
    EquipmentAlert,
    Malfunction,
    OpeningInspection,
    TableSession,
)
from tests.equipment.conftest import NY, local
from tests.factories import PASSWORD, make_person

pytestmark = pytest.mark.django_db

T0 = local(2026, 3, 2, 21, 4)


def open_at(table: Any, user: Any, at: Any) -> Any:
    with time_machine.travel(at, tick=False):
        return services.table_open(table=table, user=user, at=at)


# --- 24-hour dice clock --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("in_play", "overdue"),
    [(timedelta(hours=23, minutes=59), False), (timedelta(hours=24), False), (timedelta(hours=24, seconds=1), True)],
)
def test_dice_are_overdue_only_after_more_than_24_hours(tdf, place_dice, floorperson, in_play, overdue):
    place_dice(tdf, T0)
    open_at(tdf, floorperson, T0 + timedelta(minutes=5))
    now = T0 + in_play
    with time_machine.travel(now, tick=False):
        result = services.equipment_sweep(now=now)
    assert [i.kind for i in result.overdue] == (["dice"] if overdue else [])
    assert EquipmentAlert.objects.count() == (1 if overdue else 0)
    assert [i.kind for i in result.due] == ["dice"]  # due within 30 minutes in every case


def test_dice_due_more_than_30_minutes_away_are_not_reported(tdf, place_dice, floorperson):
    place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    assert services.equipment_sweep(now=T0 + timedelta(hours=23, minutes=29)).due == []
    assert len(services.equipment_sweep(now=T0 + timedelta(hours=23, minutes=30)).due) == 1


def test_placement_is_signed_by_floorperson_and_dealer(tdf, place_dice, floorperson, dealer):
    dice = place_dice(tdf, T0)
    assert dice.is_complete
    assert {s.signer_id for s in dice.signatures.all()} == {floorperson.pk, dealer.pk}
    assert dice.due_at == T0 + timedelta(hours=24)
    with pytest.raises(SignedRecordError):
        dice.identifiers = "changed"
        dice.save()


def test_the_floorperson_cannot_witness_their_own_placement(tdf, floorperson):
    with pytest.raises(ValidationError, match="different person"):
        services.dice_set_place(
            table=tdf,
            user=floorperson,
            password=PASSWORD,
            dealer=floorperson,
            dealer_password=PASSWORD,
            identifiers="X",
            dice_count=6,
            colours="4 green, 2 red",
            at=T0,
        )


def test_a_three_dice_football_set_is_four_green_and_two_red(tdf, place_dice):
    with pytest.raises(ValidationError, match="4 green, 2 red"):
        place_dice(tdf, T0, colours="6 white")
    with pytest.raises(ValidationError, match="6 dice"):
        place_dice(tdf, T0, dice_count=5)


def test_high_roll_dice_takes_ten_or_six_in_the_variation(facility, place_dice):
    from tests.equipment.conftest import make_table

    table = make_table(facility, "high-roll-dice", "HRD-1")
    assert place_dice(table, T0, dice_count=6).dice_count == 6
    with pytest.raises(ValidationError, match=r"6 or 10"):
        place_dice(table, T0 + timedelta(hours=1), dice_count=5)


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


# --- reopening and forced changes -----------------------------------------------------------------------


def test_reopening_with_the_previous_set_is_refused(sic_bo, place_dice, inspect, floorperson):
    place_dice(sic_bo, T0)
    inspect(sic_bo, T0)
    open_at(sic_bo, floorperson, T0 + timedelta(minutes=1))
    services.table_close(table=sic_bo, user=floorperson, at=T0 + timedelta(hours=2))
    next_morning = local(2026, 3, 3, 9, 0)
    inspect(sic_bo, next_morning)
    with time_machine.travel(next_morning, tick=False), pytest.raises(ValidationError) as refused:
        services.table_open(table=sic_bo, user=floorperson, at=next_morning)
    message = refused.value.messages[0]
    assert "Table SB-1 cannot reopen with the dice placed at 21:04 yesterday" in message
    assert "§ 539.2(b)" in message and "put a new set in play" in message.lower()

    place_dice(sic_bo, next_morning, reason="table_reopened")
    session = open_at(sic_bo, floorperson, next_morning + timedelta(minutes=2))
    sic_bo.refresh_from_db()
    assert sic_bo.is_open and session.closed_at is None
    assert TableSession.objects.filter(table=sic_bo).count() == 2


def test_a_table_cannot_open_without_dice(tdf, floorperson):
    with pytest.raises(ValidationError, match="without a set of dice"):
        open_at(tdf, floorperson, T0)


def test_a_lost_die_forces_a_new_set_at_once(tdf, place_dice, floorperson):
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


def test_a_dealer_cannot_place_dice(tdf, dealer, floorperson):
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        services.dice_set_place(
            table=tdf,
            user=dealer,
            password=PASSWORD,
            dealer=floorperson,
            dealer_password=PASSWORD,
            identifiers="X",
            dice_count=6,
            colours="4 green, 2 red",
            at=T0,
        )


# --- Sic Bo opening inspection --------------------------------------------------------------------------


def test_sic_bo_opens_only_after_a_passing_inspection_before_opening(sic_bo, place_dice, inspect, floorperson):
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


def test_an_inspection_at_23_50_opens_the_table_at_00_10(sic_bo, place_dice, inspect, floorperson):
    # § 539.5(a) says "prior to opening": the gaming day's midnight plays no part.
    inspect(sic_bo, local(2026, 3, 2, 23, 50))
    place_dice(sic_bo, local(2026, 3, 3, 0, 5))
    assert open_at(sic_bo, floorperson, local(2026, 3, 3, 0, 10)).opened_at == local(2026, 3, 3, 0, 10)


def test_an_inspection_before_the_last_closing_or_too_long_ago_does_not_open(sic_bo, place_dice, inspect, floorperson):
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
    with pytest.raises(ValidationError, match="signed by the floorperson assigned to the table"):
        inspect(sic_bo, T0, user=shift_manager)
    assert not OpeningInspection.objects.exists()


def test_an_inspection_needs_three_die_values(sic_bo, inspect):
    with pytest.raises(ValidationError, match="three die values"):
        inspect(sic_bo, T0, values_entered=[1, 2])
    with pytest.raises(ValidationError, match="three die values"):
        inspect(sic_bo, T0, values_entered=[1, 2, 7])


def test_a_malfunction_records_what_the_clause_requires_of_the_round(sic_bo, asia, floorperson):
    with pytest.raises(ValidationError, match=r"539.7\(c\)"):
        services.malfunction_record(
            table=sic_bo,
            user=floorperson,
            password=PASSWORD,
            device="sic_bo_shaker",
            description="Jammed",
            round_outcome="settled_ceased",
        )
    record = services.malfunction_record(
        table=sic_bo,
        user=floorperson,
        password=PASSWORD,
        device="sic_bo_shaker",
        description="Jammed",
        round_outcome="void_returned",
        out_of_order=True,
    )
    assert record.is_complete
    with pytest.raises(ValidationError, match="has no"):
        services.malfunction_record(
            table=sic_bo,
            user=floorperson,
            password=PASSWORD,
            device="dealing_shoe",
            description="x",
            round_outcome="void_reshuffled",
        )
    shoe = services.malfunction_record(
        table=asia,
        user=floorperson,
        password=PASSWORD,
        device="dealing_shoe",
        description="Stopped dealing",
        round_outcome="void_reshuffled",
        out_of_order=True,
    )
    assert shoe.get_round_outcome_display().startswith("Round void")
    assert Malfunction.objects.count() == 2


# --- Asia Poker decks ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dealt_from", "in_play", "overdue"),
    [
        ("hand", timedelta(hours=3, minutes=59), False),
        ("hand", timedelta(hours=4, minutes=1), True),
        ("manual_shoe", timedelta(hours=7, minutes=59), False),
        ("automated_shoe", timedelta(hours=8), False),
        ("automated_shoe", timedelta(hours=8, minutes=1), True),
    ],
)
def test_deck_clocks_are_4_hours_by_hand_and_8_from_a_shoe(
    asia, place_decks, floorperson, dealt_from, in_play, overdue
):
    place_decks(asia, T0, dealt_from=dealt_from)
    open_at(asia, floorperson, T0)
    now = T0 + in_play
    with time_machine.travel(now, tick=False):
        result = services.equipment_sweep(now=now)
    assert [i.kind for i in result.overdue] == (["deck"] if overdue else [])


def test_two_decks_need_a_shuffler_and_different_backs(asia, place_decks):
    with pytest.raises(ValidationError, match=r"575.3\(b\)"):
        place_decks(asia, T0, deck_count=2, back_colours="red / blue")
    with pytest.raises(ValidationError, match="different colour"):
        place_decks(asia, T0, deck_count=2, back_colours="red / red", automated_shuffler=True)
    decks = place_decks(
        asia, T0, deck_count=2, back_colours="Red, Blue", automated_shuffler=True, dealt_from="automated_shoe"
    )
    assert decks.back_colours == "red / blue" and decks.due_at == T0 + timedelta(hours=8)


def test_a_second_joker_must_be_torn(asia, place_decks):
    with pytest.raises(ValidationError, match=r"575.4\(b\)"):
        place_decks(asia, T0, jokers_per_deck=2)
    assert place_decks(asia, T0, jokers_per_deck=2, second_joker_torn=True).is_complete


def test_deck_inspection_is_signed_by_dealer_then_verified_by_floorperson(asia, place_decks, dealer, floorperson):
    deck = place_decks(asia, T0)
    meanings = {s.slot: (s.signer_id, s.meaning) for s in deck.signatures.all()}
    assert meanings == {"dealer": (dealer.pk, "inspected"), "floorperson": (floorperson.pk, "verified")}


def test_asia_poker_opens_without_dice_but_not_without_cards(asia, place_decks, floorperson):
    with pytest.raises(ValidationError, match=r"575.4\(a\)"):
        open_at(asia, floorperson, T0)
    place_decks(asia, T0)
    open_at(asia, floorperson, T0 + timedelta(minutes=1))


# --- alerts ----------------------------------------------------------------------------------------------


def test_the_sweep_raises_one_alert_per_overdue_set_and_nothing_new_when_run_again(
    tdf, place_dice, floorperson, shift_manager, mailoutbox, django_capture_on_commit_callbacks
):
    place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    late = T0 + timedelta(hours=24, minutes=1)
    with time_machine.travel(late, tick=False), django_capture_on_commit_callbacks(execute=True):
        first = services.equipment_sweep(now=late)
        second = services.equipment_sweep(now=late + timedelta(minutes=1))
    assert len(first.raised) == 1 and second.raised == []
    alert = EquipmentAlert.objects.get()
    assert alert.resolved_at is None and alert.notified_at is not None
    assert len(mailoutbox) == 1
    assert {floorperson.email, shift_manager.email} <= set(mailoutbox[0].to)
    assert "TDF-1" in mailoutbox[0].body


def test_an_alert_resolves_itself_when_the_change_is_logged(tdf, place_dice, floorperson):
    old = place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    late = T0 + timedelta(hours=24, minutes=2)
    services.equipment_sweep(now=late)
    new = place_dice(tdf, late + timedelta(minutes=3), identifiers="LOT-C")
    alert = EquipmentAlert.objects.get()
    assert alert.dice_set_id == old.pk and alert.resolved_at == late + timedelta(minutes=3)
    assert services.equipment_sweep(now=late + timedelta(minutes=4)).overdue == []
    assert new.placed_because == DiceSet.PlacedBecause.SCHEDULED


def test_closed_tables_are_not_swept(tdf, place_dice):
    place_dice(tdf, T0)
    assert services.equipment_sweep(now=T0 + timedelta(days=3)).due == []


def test_the_beat_task_runs_the_sweep(tdf, place_dice, floorperson, django_capture_on_commit_callbacks):
    from equipment.tasks import sweep_equipment_clocks

    place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    with time_machine.travel(T0 + timedelta(hours=25), tick=False), django_capture_on_commit_callbacks(execute=True):
        assert sweep_equipment_clocks.delay().get() == {"due": 1, "overdue": 1, "raised": 1}
        assert sweep_equipment_clocks.delay().get()["raised"] == 0


def test_people_of_another_facility_cannot_log_equipment(tdf, other_facility, dealer):
    from compliance.roles import Role

    stranger = make_person(Role.FLOORPERSON, other_facility)
    with pytest.raises(ValidationError, match="not assigned"):
        services.dice_set_place(
            table=tdf,
            user=stranger,
            password=PASSWORD,
            dealer=dealer,
            dealer_password=PASSWORD,
            identifiers="X",
            dice_count=6,
            colours="4 green, 2 red",
            at=T0,
        )


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


# --- review fixes ----------------------------------------------------------------------------------------


def test_a_table_marked_open_outside_the_log_records_its_closing_and_cannot_reopen_with_the_same_dice(
    tdf, place_dice, floorperson
):
    place_dice(tdf, T0)
    tdf.is_open = True  # e.g. in the admin: no session was opened
    tdf.save()
    session = services.table_close(table=tdf, user=floorperson, at=T0 + timedelta(hours=2))
    assert session.opening_unrecorded and session.closed_at == T0 + timedelta(hours=2)
    assert TableSession.objects.filter(table=tdf, closed_at__isnull=False).count() == 1
    with pytest.raises(ValidationError, match=r"cannot reopen with the dice placed at .*577\.4\(d\)"):
        open_at(tdf, floorperson, T0 + timedelta(hours=3))
    place_dice(tdf, T0 + timedelta(hours=3), reason="table_reopened", identifiers="LOT-B")
    open_at(tdf, floorperson, T0 + timedelta(hours=3, minutes=1))


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


def test_a_sweep_that_read_a_set_before_its_removal_raises_no_alert(tdf, place_dice, floorperson, monkeypatch):
    old = place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    late = T0 + timedelta(hours=25)
    stale = services.due_in_play(late)  # what the sweep read, before the change below committed
    place_dice(tdf, late, identifiers="LOT-B")
    monkeypatch.setattr(services, "due_in_play", lambda now, **kwargs: stale)
    result = services.equipment_sweep(now=late + timedelta(minutes=1))
    assert result.raised == [] and result.overdue == []
    assert not EquipmentAlert.objects.filter(dice_set=old).exists()


def test_the_sweep_resolves_alerts_left_open_for_sets_out_of_play(tdf, place_dice, floorperson):
    old = place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    place_dice(tdf, T0 + timedelta(hours=25), identifiers="LOT-B")
    # An alert written by a sweep that raced the removal (before the fix), left open.
    EquipmentAlert.objects.create(
        facility=tdf.facility, table=tdf, dice_set=old, due_at=old.due_at, raised_at=T0 + timedelta(hours=25)
    )
    first = services.equipment_sweep(now=T0 + timedelta(hours=26))
    alert = EquipmentAlert.objects.get()
    assert first.healed == 1 and alert.resolved_at == T0 + timedelta(hours=25)
    assert services.equipment_sweep(now=T0 + timedelta(hours=27)).healed == 0


def test_an_alert_whose_e_mail_never_went_is_notified_by_the_next_sweep(
    tdf, place_dice, floorperson, mailoutbox, django_capture_on_commit_callbacks
):
    place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    late = T0 + timedelta(hours=25)
    with time_machine.travel(late, tick=False):
        with django_capture_on_commit_callbacks(execute=False):  # the notification task was lost / failed
            assert len(services.equipment_sweep(now=late).raised) == 1
        assert mailoutbox == [] and EquipmentAlert.objects.get().notified_at is None
        with django_capture_on_commit_callbacks(execute=True):
            assert services.equipment_sweep(now=late + timedelta(minutes=1)).raised == []
        with django_capture_on_commit_callbacks(execute=True):
            services.equipment_sweep(now=late + timedelta(minutes=2))
    assert len(mailoutbox) == 1 and EquipmentAlert.objects.get().notified_at is not None


def test_the_sweep_raises_alerts_in_a_constant_number_of_queries(facility, place_dice, floorperson):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.equipment.conftest import make_table

    def sweep_with(count: int, day: int) -> int:
        start = local(2026, 3, day, 8, 0)
        for n in range(count):
            table = make_table(facility, "props-and-hops", f"PH-{day}-{n}")
            place_dice(table, start)
            services.table_open(table=table, user=floorperson, at=start)
        with CaptureQueriesContext(connection) as queries:
            result = services.equipment_sweep(now=start + timedelta(hours=25))
        assert len(result.raised) == count
        for alert in EquipmentAlert.objects.all():
            alert.resolved_at = start
            alert.save()
        return len(queries)

    assert sweep_with(2, 10) == sweep_with(8, 20)


# --- daylight saving: limits are real time ------------------------------------------------------------


@pytest.mark.parametrize(
    ("placed", "due_local"),
    [
        (local(2026, 3, 7, 21, 0), local(2026, 3, 8, 22, 0)),  # EST → EDT: 21:00 + 24 h is 22:00
        (local(2026, 10, 31, 21, 0), local(2026, 11, 1, 20, 0)),  # EDT → EST: 21:00 + 24 h is 20:00
    ],
    ids=["spring-forward-8-mar", "fall-back-1-nov"],
)
def test_the_dice_clock_is_24_hours_of_real_time_across_a_clock_change(tdf, place_dice, floorperson, placed, due_local):
    with time_machine.travel(placed, tick=False):
        dice = place_dice(tdf, placed)
        open_at(tdf, floorperson, placed)
    dice.refresh_from_db()
    assert dice.due_at == due_local and dice.due_at - dice.placed_at == timedelta(hours=24)
    for offset, overdue in ((timedelta(0), False), (timedelta(seconds=1), True)):
        now = (due_local.astimezone(UTC) + offset).astimezone(NY)
        with time_machine.travel(now, tick=False):
            assert [i.kind for i in services.equipment_sweep(now=now).overdue] == (["dice"] if overdue else [])


@pytest.mark.parametrize(
    ("placed", "due_local"),
    [
        (local(2026, 3, 8, 0, 30), local(2026, 3, 8, 5, 30)),  # 4 h real time: 02:00 EST is 03:00 EDT
        (local(2026, 11, 1, 0, 30), local(2026, 11, 1, 3, 30)),  # 01:00–02:00 is lived twice
    ],
    ids=["spring-forward-8-mar", "fall-back-1-nov"],
)
def test_the_hand_dealt_deck_clock_is_4_hours_of_real_time_across_a_clock_change(
    asia, place_decks, floorperson, placed, due_local
):
    with time_machine.travel(placed, tick=False):
        deck = place_decks(asia, placed)
    deck.refresh_from_db()
    assert deck.due_at == due_local and deck.due_at - deck.placed_at == timedelta(hours=4)


# --- dice left on a closed table ------------------------------------------------------------------------


def test_props_and_hops_dice_left_on_a_closed_table_are_overdue_after_24_hours(props, tdf, place_dice):
    # § 668a.3(b)(1): dice "may not remain on a table for more than 24 hours", open or closed.
    place_dice(props, T0)
    place_dice(tdf, T0)  # § 577.4(d): Three Dice Football counts time open for gaming only
    now = T0 + timedelta(hours=24, minutes=1)
    with time_machine.travel(now, tick=False):
        result = services.equipment_sweep(now=now)
    assert [(i.table_number, i.kind) for i in result.overdue] == [("PH-1", "dice")]
    assert EquipmentAlert.objects.get().table == props


def test_the_requirements_say_which_dice_clocks_run_while_closed():
    from equipment.models import EquipmentRequirement

    flags = dict(EquipmentRequirement.objects.values_list("game__code", "clock_runs_while_closed"))
    assert flags == {
        "three-dice-football": False,
        "sic-bo": False,
        "high-roll-dice": True,
        "props-and-hops": True,
        "asia-poker": True,
    }


# --- shoe or shuffler out of order ----------------------------------------------------------------------


def _shoe_out_of_order(table: Any, user: Any, at: Any, **kwargs: Any) -> Any:
    return services.malfunction_record(
        table=table,
        user=user,
        password=PASSWORD,
        device="dealing_shoe",
        description="Stopped dealing",
        round_outcome="void_reshuffled",
        out_of_order=True,
        at=at,
        **kwargs,
    )


def test_a_shoe_out_of_order_needs_the_change_to_hand_dealing_in_the_same_step(asia, place_decks, floorperson, dealer):
    shoe_deck = place_decks(asia, T0, dealt_from="automated_shoe")
    open_at(asia, floorperson, T0)
    at = T0 + timedelta(hours=2)
    with pytest.raises(ValidationError, match=r"575\.13\(n\).*dealt by hand.*575\.3\(c\)\(1\)"):
        _shoe_out_of_order(asia, floorperson, at)
    hand = {"dealer": dealer, "dealer_password": PASSWORD, "deck_count": 1, "back_colours": "blue"}
    with pytest.raises(ValidationError, match="dealt by hand"):
        _shoe_out_of_order(asia, floorperson, at, replacement={**hand, "dealt_from": "automated_shoe"})
    assert not Malfunction.objects.exists()
    record = _shoe_out_of_order(asia, floorperson, at, replacement={**hand, "dealt_from": "hand"})
    assert record.is_complete
    assert DeckRemoval.objects.get(deck_set=shoe_deck).reason == "device_out_of_order"
    new = DeckSet.objects.get(removed_at__isnull=True)
    assert new.dealt_from == "hand" and new.due_at == at + timedelta(hours=4)


def test_a_shuffler_out_of_order_ends_two_deck_play(asia, place_decks, floorperson, dealer):
    place_decks(asia, T0, deck_count=2, back_colours="red / blue", automated_shuffler=True)
    with pytest.raises(ValidationError, match=r"575\.3\(b\)"):
        services.malfunction_record(
            table=asia, user=floorperson, password=PASSWORD, device="card_shuffler", description="Jammed",
            round_outcome="reshuffled", out_of_order=True, at=T0 + timedelta(hours=1),
        )  # fmt: skip
    with pytest.raises(ValidationError, match="one deck"):
        services.malfunction_record(
            table=asia, user=floorperson, password=PASSWORD, device="card_shuffler", description="Jammed",
            round_outcome="reshuffled", out_of_order=True, at=T0 + timedelta(hours=1),
            replacement={"dealer": dealer, "dealer_password": PASSWORD, "deck_count": 2, "back_colours": "red / blue",
                         "dealt_from": "hand", "automated_shuffler": True},
        )  # fmt: skip
    # A shuffler that jams but is not signed out of order needs no change of cards.
    services.malfunction_record(
        table=asia, user=floorperson, password=PASSWORD, device="card_shuffler", description="Jammed once",
        round_outcome="reshuffled", at=T0 + timedelta(hours=1),
    )  # fmt: skip


# --- corrections ----------------------------------------------------------------------------------------


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


def test_a_table_marked_closed_outside_the_log_cannot_reopen_with_the_same_dice(tdf, place_dice, floorperson):
    place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    tdf.refresh_from_db()
    tdf.is_open = False  # e.g. in the admin: the session was never closed
    tdf.save()
    with pytest.raises(ValidationError, match=r"cannot reopen with the dice placed at .*577\.4\(d\)"):
        open_at(tdf, floorperson, T0 + timedelta(hours=3))
    place_dice(tdf, T0 + timedelta(hours=3), reason="table_reopened", identifiers="LOT-B")
    session = open_at(tdf, floorperson, T0 + timedelta(hours=3, minutes=1))
    assert TableSession.objects.filter(table=tdf, closed_at__isnull=True).get() == session
    assert TableSession.objects.filter(table=tdf).count() == 2


def test_the_dealers_wrong_password_names_the_dealer_and_saves_nothing(sic_bo, place_dice, dealer):
    from equipment.models import DiceSet

    with pytest.raises(ValidationError, match=f"{dealer.profile.full_name}'s password is not correct"):
        place_dice(sic_bo, T0, dealer_password="typo")
    assert not DiceSet.objects.exists()
