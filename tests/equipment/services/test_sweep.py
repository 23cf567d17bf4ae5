"""The sweep: one alert per overdue set, self-healing, mailed to the floor; clocks that run while closed."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine

from equipment import selectors, services
from equipment.models import DiceSet, EquipmentAlert
from equipment.services import sweep as sweep_service
from tests.equipment.conftest import T0, local

pytestmark = pytest.mark.django_db


def test_dice_due_more_than_30_minutes_away_are_not_reported(tdf, place_dice, floorperson, open_at):
    place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    assert services.equipment_sweep(now=T0 + timedelta(hours=23, minutes=29)).due == []
    assert len(services.equipment_sweep(now=T0 + timedelta(hours=23, minutes=30)).due) == 1


def test_closed_tables_are_not_swept(tdf, place_dice):
    place_dice(tdf, T0)
    assert services.equipment_sweep(now=T0 + timedelta(days=3)).due == []


def test_the_sweep_raises_one_alert_per_overdue_set_and_nothing_new_when_run_again(
    tdf, place_dice, floorperson, shift_manager, mailoutbox, django_capture_on_commit_callbacks, open_at
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


def test_an_alert_resolves_itself_when_the_change_is_logged(tdf, place_dice, floorperson, open_at):
    old = place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    late = T0 + timedelta(hours=24, minutes=2)
    services.equipment_sweep(now=late)
    new = place_dice(tdf, late + timedelta(minutes=3), identifiers="LOT-C")
    alert = EquipmentAlert.objects.get()
    assert alert.dice_set_id == old.pk and alert.resolved_at == late + timedelta(minutes=3)
    assert services.equipment_sweep(now=late + timedelta(minutes=4)).overdue == []
    assert new.placed_because == DiceSet.PlacedBecause.SCHEDULED


def test_the_beat_task_runs_the_sweep(tdf, place_dice, floorperson, django_capture_on_commit_callbacks, open_at):
    from equipment.tasks import sweep_equipment_clocks

    place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    with time_machine.travel(T0 + timedelta(hours=25), tick=False), django_capture_on_commit_callbacks(execute=True):
        assert sweep_equipment_clocks.delay().get() == {"due": 1, "overdue": 1, "raised": 1}
        assert sweep_equipment_clocks.delay().get()["raised"] == 0


def test_a_sweep_that_read_a_set_before_its_removal_raises_no_alert(tdf, place_dice, floorperson, monkeypatch, open_at):
    old = place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    late = T0 + timedelta(hours=25)
    stale = selectors.due_in_play(late)  # what the sweep read, before the change below committed
    place_dice(tdf, late, identifiers="LOT-B")
    monkeypatch.setattr(sweep_service, "due_in_play", lambda now, **kwargs: stale)
    result = services.equipment_sweep(now=late + timedelta(minutes=1))
    assert result.raised == [] and result.overdue == []
    assert not EquipmentAlert.objects.filter(dice_set=old).exists()


def test_the_sweep_resolves_alerts_left_open_for_sets_out_of_play(tdf, place_dice, floorperson, open_at):
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
    tdf, place_dice, floorperson, mailoutbox, django_capture_on_commit_callbacks, open_at
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


def test_an_alert_no_one_could_receive_is_not_marked_notified(
    tdf, place_dice, floorperson, shift_manager, mailoutbox, django_capture_on_commit_callbacks, open_at
):
    # No floorperson or shift manager with an e-mail address, and no notification address.
    for person in (floorperson, shift_manager):
        person.email = ""
        person.save()
    tdf.facility.notification_email = ""
    tdf.facility.save()
    place_dice(tdf, T0)
    open_at(tdf, floorperson, T0)
    late = T0 + timedelta(hours=25)
    with time_machine.travel(late, tick=False), django_capture_on_commit_callbacks(execute=True):
        assert len(services.equipment_sweep(now=late).raised) == 1
    alert = EquipmentAlert.objects.get()
    assert mailoutbox == [] and alert.notified_at is None
    assert services.alert_notify(alert_ids=[alert.pk]) == 0
    assert EquipmentAlert.objects.get().notified_at is None
    # Once someone can receive it, the next sweep queues it again, sends it and marks it notified.
    floorperson.email = "floor@example.test"
    floorperson.save()
    with time_machine.travel(late + timedelta(minutes=1), tick=False), django_capture_on_commit_callbacks(execute=True):
        services.equipment_sweep(now=late + timedelta(minutes=1))
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["floor@example.test"]
    assert EquipmentAlert.objects.get().notified_at is not None


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


def test_a_facility_already_mailed_is_not_mailed_again_when_another_facilitys_mail_fails(
    tdf, other_facility, place_dice, floorperson, dealer, mailoutbox, django_capture_on_commit_callbacks, open_at
):
    import smtplib
    from unittest import mock

    from django.core.mail import send_mail

    from tests.equipment.conftest import make_table

    for person in (floorperson, dealer):
        person.profile.facilities.add(other_facility)
    erie = make_table(other_facility, "three-dice-football", "TDF-E1")
    for table in (tdf, erie):
        place_dice(table, T0)
        open_at(table, floorperson, T0)
    late = T0 + timedelta(hours=25)
    with time_machine.travel(late, tick=False):
        with django_capture_on_commit_callbacks(execute=False):
            raised = services.equipment_sweep(now=late).raised
        assert len(raised) == 2

        def erie_is_down(**mail: object) -> int:
            if other_facility.name in str(mail["subject"]):
                raise smtplib.SMTPServerDisconnected("down")
            return send_mail(**mail)  # type: ignore[arg-type]

        with (
            mock.patch("compliance.notifications.send_mail", side_effect=erie_is_down),
            pytest.raises(smtplib.SMTPServerDisconnected),
        ):
            services.alert_notify(alert_ids=raised)
        notified = dict(EquipmentAlert.objects.values_list("facility_id", "notified_at"))
        assert notified[tdf.facility_id] is not None and notified[other_facility.pk] is None
        assert len(mailoutbox) == 1
        # The task's retry sends the one that failed, and only that one.
        assert services.alert_notify(alert_ids=raised) == 1
    assert len(mailoutbox) == 2 and other_facility.name in mailoutbox[1].subject
    assert not EquipmentAlert.objects.filter(notified_at__isnull=True).exists()
