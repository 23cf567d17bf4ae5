"""Breach periods (compliance.breaches): a requirement that stops holding at an open table flags it at once and
opens a period with its start, end and who was told; the table must be closed or the breach cured."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail

from compliance import readiness
from compliance.breaches import breaches_sync, breaches_sync_all
from compliance.models import TableBreach
from compliance.readiness import table_readiness
from compliance.roles import Role
from compliance.staffing import services as staffing
from equipment import services as equipment
from tests.equipment.conftest import T0, make_table
from tests.factories import make_person
from tests.staffing.conftest import roster, shift, staff_table, watch_table  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _two_chapters(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Equipment's and staffing's parts (the others are tested with their apps and in test_readiness.py)."""
    monkeypatch.setattr(readiness, "_SOURCES", [r for r in readiness._SOURCES if r.name in ("equipment", "staffing")])
    with time_machine.travel(T0, tick=False):
        yield


@pytest.fixture
def open_tdf(facility, staff_table, watch_table, floorperson, dealer, django_capture_on_commit_callbacks):  # noqa: F811
    """TDF-1 staffed, watched, new dice in play, opened at T0.

    Each write's work at commit (its facility's breach sync) runs, as each would commit in life: a sync left queued
    and never run would stand for the facility's later writes in the test's one transaction (``_sync_after_commit``
    queues one a facility), and their breaches would never be opened."""
    from tests.factories import PASSWORD

    with django_capture_on_commit_callbacks(execute=True):
        table = make_table(facility, "three-dice-football", "TDF-1")
        staff_table(table, floorperson=floorperson)
        cameras = watch_table(table, "a", "b")
        equipment.dice_set_change(table=table, user=floorperson, password=PASSWORD, dealer=dealer,
                                  dealer_password=PASSWORD, identifiers="LOT-B 1-6", dice_count=6,
                                  colours="4 green, 2 red", at=T0)
    with django_capture_on_commit_callbacks(execute=True):
        equipment.table_open(table=table, user=floorperson, at=T0)
    return table, cameras


def test_a_camera_out_flags_the_open_table_and_opens_a_period_with_who_was_told(
    facility, open_tdf, surveillance, django_capture_on_commit_callbacks
):
    table, (end_a, _) = open_tdf
    assert table_readiness(table).verdict == "open" and not TableBreach.objects.exists()
    boss = make_person(Role.SHIFT_MANAGER, facility)
    boss.email = "boss@example.com"
    boss.save()
    with django_capture_on_commit_callbacks(execute=True):
        staffing.camera_out_of_service(camera=end_a, reason="No signal", user=surveillance, at=T0)
    state = table_readiness(table)
    assert state.in_breach and [u.clause for u in state.unmet] == ["577.9(a)"]
    breach = TableBreach.objects.get()
    assert (breach.code, breach.clause, breach.started_at, breach.ended_at) == ("cameras", "577.9(a)", T0, None)
    assert "boss@example.com" in breach.told and breach.told_at is not None
    assert any("in breach" in m.subject for m in mail.outbox)
    later = T0 + timedelta(minutes=12)
    with time_machine.travel(later, tick=False), django_capture_on_commit_callbacks(execute=True):
        staffing.camera_back_in_service(camera=end_a, user=surveillance, at=later)
    breach.refresh_from_db()
    assert breach.ended_at == later and breach.ended_because == "cured"


def test_closing_the_table_ends_the_breach_and_reopening_is_refused_while_unmet(
    facility, open_tdf, surveillance, floorperson, django_capture_on_commit_callbacks
):
    table, (end_a, _) = open_tdf
    with django_capture_on_commit_callbacks(execute=True):
        staffing.camera_out_of_service(camera=end_a, reason="No signal", user=surveillance, at=T0)
    with django_capture_on_commit_callbacks(execute=True):
        equipment.table_close(table=table, user=floorperson, at=T0)
    breach = TableBreach.objects.get()
    assert breach.ended_because == "table closed" and breach.ended_at == T0
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match=r"577\.9\(a\)"):
        equipment.table_open(table=table, user=floorperson, at=T0)


def test_dice_overdue_are_found_by_the_minute_sweep(facility, open_tdf):
    table, _ = open_tdf
    due = T0 + timedelta(hours=24, minutes=1)
    with time_machine.travel(due, tick=False):
        assert breaches_sync_all(due) == 1
        state = table_readiness(table, due)
    assert [u.code for u in state.unmet] == ["equipment:dice"] and "OVERDUE" in state.unmet[0].short
    assert TableBreach.objects.get().started_at == due
    assert breaches_sync(facility, due) == []  # once: a second sweep opens nothing new



def test_a_transaction_of_several_service_calls_syncs_the_facility_once_and_a_rolled_back_one_not_at_all(
    facility, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks
):
    """Each write queues a sync of its facility at commit; a transaction making several writes, each in a savepoint
    of its own (one service call each), runs one (issue 27: a day of dice changes evaluated the floor after each).
    A sync queued in a savepoint that rolls back goes with it, and a later write queues it again."""
    from django.db import transaction

    from compliance import breaches

    synced: list[int] = []
    monkeypatch.setattr(breaches, "_sync_as_system", lambda f: synced.append(f.pk))
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        for number in ("T-1", "T-2", "T-3"):
            with transaction.atomic():
                make_table(facility, "three-dice-football", number)
    assert synced == [facility.pk]
    synced.clear()
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        try:
            with transaction.atomic():
                make_table(facility, "three-dice-football", "T-4")
                raise RuntimeError("the call failed")
        except RuntimeError:
            pass
        with transaction.atomic():
            make_table(facility, "three-dice-football", "T-5")
    assert synced == [facility.pk]


def test_a_camera_outage_syncs_its_cameras_facility_and_no_other(
    facility, other_facility, open_tdf, surveillance, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks
):
    """An outage has no facility of its own: its camera's is the one synced at commit, not every facility's (the
    sync of every facility ran for each outage, and stood for the facility's own in a transaction)."""
    from compliance import breaches

    _table, (end_a, _) = open_tdf
    synced: list[int] = []
    monkeypatch.setattr(breaches, "_sync_as_system", lambda f: synced.append(f.pk))
    with django_capture_on_commit_callbacks(execute=True):
        staffing.camera_out_of_service(camera=end_a, reason="No signal", user=surveillance, at=T0)
    assert synced == [facility.pk] and other_facility.pk not in synced
