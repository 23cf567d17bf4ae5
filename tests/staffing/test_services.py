"""Staffing and surveillance services on the database: rosters, cameras, violation periods, the opening check
and the shift manager's override (§ 577.9)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from compliance.readiness import open_refusal
from compliance.roles import Role
from compliance.staffing import selectors, services
from compliance.staffing.models import Assignment, StaffingOverride, ViolationPeriod
from compliance.staffing.rules import evaluate
from tests.equipment.conftest import T0
from tests.factories import PASSWORD, make_person
from tests.staffing.conftest import make_table

pytestmark = pytest.mark.django_db


def _open(table):
    table.is_open = True
    table.save()
    services.staffing_table_changed(table, T0)


def test_a_staffed_and_watched_tdf_table_may_open(facility, staff_table, watch_table, floorperson):
    table = make_table(facility, "three-dice-football", "TDF-1")
    staff_table(table, floorperson=floorperson)
    watch_table(table, "a", "b")
    assert open_refusal(table, T0, None) is None


def test_a_short_table_is_refused_with_the_clause(facility, staff_table, watch_table):
    table = make_table(facility, "three-dice-football", "TDF-1")
    staff_table(table, dealers=1, stick=1, floorperson=None)
    watch_table(table, "a")
    refusal = open_refusal(table, T0, None)
    assert "TDF-1 cannot open" in refusal
    assert "§ 577.9(b)" in refusal and "§ 577.9(a)" in refusal and "§ 577.9(c)" in refusal


def test_577_9_admits_no_override(facility, staff_table, watch_table, shift_manager):
    """A shift manager's signature never opens a Three Dice Football table with one dealer and no camera."""
    table = make_table(facility, "three-dice-football", "TDF-1")
    staff_table(table, dealers=0, stick=1, floorperson=None)
    with pytest.raises(ValidationError, match=r"no signature waives.*577\.9"), transaction.atomic():
        services.override_record(table=table, reason="Busy night", user=shift_manager, password=PASSWORD)
    assert not StaffingOverride.objects.exists()
    # Even an override signed for an internal control of the same table opens nothing while § 577.9 is broken.
    assert "§ 577.9(b)" in open_refusal(table, T0, None)


def test_only_a_shift_manager_overrides_and_the_override_is_signed_and_used_once(
    facility, shift_manager, dealer, floorperson, internal_control
):
    table = make_table(facility, "blackjack", "BJ-1")  # the facility's own rule: a dealer at the table
    for person in (dealer, floorperson):
        with pytest.raises((PermissionDenied, ValidationError)), transaction.atomic():
            services.override_record(table=table, reason="Short one dealer", user=person, password=PASSWORD)
    with pytest.raises(ValidationError, match="State why"), transaction.atomic():
        services.override_record(table=table, reason=" ", user=shift_manager, password=PASSWORD)
    override = services.override_record(table=table, reason="Relief dealer on the way", user=shift_manager,
                                        password=PASSWORD)
    assert override.is_signed() and override.violations[0]["clause"] == "IC 7.2"
    assert open_refusal(table, T0, None) is None  # the override lets it open, once
    override.refresh_from_db()
    assert override.used_at == T0
    assert open_refusal(table, T0, None) is not None


def test_an_override_is_refused_when_nothing_is_broken(facility, staff_table, watch_table, shift_manager):
    table = make_table(facility, "three-dice-football", "TDF-1")
    staff_table(table)
    watch_table(table, "a", "b")
    with pytest.raises(ValidationError, match="needs no override"):
        services.override_record(table=table, reason="Just in case", user=shift_manager, password=PASSWORD)


def test_a_camera_going_out_of_service_flags_the_open_table_at_once_and_by_mail(
    facility, staff_table, watch_table, surveillance, django_capture_on_commit_callbacks
):
    table = make_table(facility, "three-dice-football", "TDF-1")
    staff_table(table)
    end_a, _ = watch_table(table, "a", "b")
    _open(table)
    assert not ViolationPeriod.objects.exists()
    boss = make_person(Role.SHIFT_MANAGER, facility)
    boss.email = "pit.boss@example.com"
    boss.save()
    with django_capture_on_commit_callbacks(execute=True):
        began = services.camera_out_of_service(camera=end_a, reason="Lens fogged", user=surveillance,
                                               at=T0 + timedelta(minutes=30))
    assert [(p.table_id, p.rule, p.clause) for p in began] == [(table.pk, "cameras", "577.9(a)")]
    assert began[0].started_at == T0 + timedelta(minutes=30)
    assert selectors.open_violations(facility).count() == 1
    assert len(mail.outbox) == 1 and "TDF-1" in mail.outbox[0].body and "577.9(a)" in mail.outbox[0].body
    services.camera_back_in_service(camera=end_a, user=surveillance, at=T0 + timedelta(minutes=50))
    period = ViolationPeriod.objects.get()
    assert period.ended_at == T0 + timedelta(minutes=50)  # 20 minutes short, on record for the report


def test_a_dealer_on_break_opens_a_period_and_the_relief_closes_it(facility, staff_table, watch_table, roster,
                                                                   shift_manager):
    table = make_table(facility, "three-dice-football", "TDF-1")
    crew = staff_table(table)
    watch_table(table, "a", "b")
    _open(table)
    later = time_machine.travel(T0 + timedelta(hours=1, minutes=10), tick=False)  # recorded as they happen
    later.start()
    services.assignment_end(assignment=crew[0], user=shift_manager, ends_at=T0 + timedelta(hours=1), note="break")
    period = ViolationPeriod.objects.get()
    assert period.clause == "577.9(b)" and period.started_at == T0 + timedelta(hours=1)
    relief = make_person(Role.DEALER, facility)
    services.assignment_add(roster=roster, person=relief, position="dealer", table=table, user=shift_manager,
                            starts_at=T0 + timedelta(hours=1, minutes=5), note="relief")
    later.stop()
    period.refresh_from_db()
    assert period.ended_at == T0 + timedelta(hours=1, minutes=5)


def test_a_floorperson_over_tdf_and_craps_breaks_the_span(facility, staff_table, watch_table, floorperson, roster,
                                                          shift_manager):
    tdf = make_table(facility, "three-dice-football", "TDF-1")
    craps = make_table(facility, "craps", "CR-1")
    staff_table(tdf, floorperson=floorperson)
    watch_table(tdf, "a", "b")
    _open(tdf)
    craps.is_open = True
    craps.save()
    services.assignment_add(roster=roster, person=floorperson, position="floorperson", table=craps,
                            user=shift_manager, starts_at=T0)
    rules = {(p.table_id, p.clause) for p in ViolationPeriod.objects.filter(ended_at__isnull=True)}
    assert rules == {(tdf.pk, "577.9(c)"), (craps.pk, "577.9(c)")}


def test_a_dealer_cannot_supervise_and_a_floorperson_cannot_deal(facility, roster, shift_manager, floorperson, dealer):
    table = make_table(facility, "three-dice-football", "TDF-1")
    with pytest.raises(ValidationError, match="not a floorperson"):
        services.assignment_add(roster=roster, person=dealer, position="floorperson", table=table, user=shift_manager)
    with pytest.raises(ValidationError, match="not a dealer"):
        services.assignment_add(roster=roster, person=floorperson, position="dealer", table=table, user=shift_manager)


def test_the_next_roster_starts_from_the_people_still_assigned(facility, staff_table, roster, shift_manager):
    table = make_table(facility, "three-dice-football", "TDF-1")
    crew = staff_table(table)
    with time_machine.travel(T0 + timedelta(minutes=30), tick=False):
        services.assignment_end(assignment=crew[0], user=shift_manager, ends_at=T0 + timedelta(minutes=30))  # 21:34
    grave = services.shift_create(facility=facility, name="Grave", starts_at=crew[0].starts_at.time().replace(
        hour=22, minute=0), hours=8, user=shift_manager)
    nxt = services.roster_create(facility=facility, gaming_date=roster.gaming_date, shift=grave, user=shift_manager)
    assert nxt.copied_from == roster
    assert Assignment.objects.filter(roster=nxt).count() == len(crew) - 1  # the one who left at 21:34 is not carried
    # The hand-over at 22:00: the swing shift's places end as the grave shift's begin.
    assert {a.ends_at for a in Assignment.objects.filter(roster=roster)} == {
        T0 + timedelta(minutes=30), T0 + timedelta(minutes=56)}
    with pytest.raises(ValidationError, match="already has a roster"):
        services.roster_create(facility=facility, gaming_date=roster.gaming_date, shift=grave, user=shift_manager)


def test_the_hand_over_writes_each_place_s_history_and_audit_event_in_a_few_queries(
        facility, staff_table, roster, shift_manager):
    """The copy is written in bulk (a 200-table floor's roster made 400 saves one by one), each ended place with its
    history row and a "changed" audit event naming the hand-over, each new place with its own "created" ones, by the
    shift manager, and the number of queries does not grow with the floor."""
    from compliance.actors import acting_as
    from compliance.models import AuditEvent

    def copy(name: str, hour: int) -> tuple[Any, int]:
        shift = services.shift_create(facility=facility, name=name, starts_at=T0.time().replace(hour=hour, minute=0),
                                      hours=8, user=shift_manager)
        with acting_as(shift_manager), CaptureQueriesContext(connection) as captured:
            made = services.roster_create(facility=facility, gaming_date=roster.gaming_date, shift=shift,
                                          user=shift_manager)
        return made, len(captured)

    staff_table(make_table(facility, "three-dice-football", "TDF-1"))
    first, few = copy("Grave", 22)
    ended = list(Assignment.objects.filter(roster=roster, ends_at__isnull=False))
    assert ended and all(a.history.first().history_user == shift_manager for a in ended)
    events = AuditEvent.objects.filter(model_label="staffing.Assignment", action="changed",
                                       object_id__in=[str(a.pk) for a in ended])
    assert events.count() == len(ended) and {e.actor for e in events} == {shift_manager}
    assert all(list(e.changes) == ["ends_at"] and e.changes["ends_at"][0] is None for e in events)
    new = list(Assignment.objects.filter(roster=first))
    assert AuditEvent.objects.filter(model_label="staffing.Assignment", action="created",
                                     object_id__in=[str(a.pk) for a in new]).count() == len(new)
    for n in range(10):  # ten more tables on the grave shift's roster, then its hand-over to the next
        table = make_table(facility, "blackjack", f"BJ-{n}")
        services.assignment_add(roster=first, person=make_person(Role.DEALER, facility), position="dealer",
                                table=table, user=shift_manager, starts_at=first.created_at)
    second, many = copy("Dawn", 23)
    assert Assignment.objects.filter(roster=second).count() == len(new) + 10
    assert many == few


def test_the_inspector_and_the_floor_change_nothing(facility, roster, inspector, dealer, floorperson):
    table = make_table(facility, "three-dice-football", "TDF-1")
    for person in (inspector, dealer, floorperson):
        with pytest.raises((PermissionDenied, ValidationError)), transaction.atomic():
            services.camera_register(facility=facility, code="C-9", user=person)
        with pytest.raises((PermissionDenied, ValidationError)), transaction.atomic():
            services.assignment_add(roster=roster, person=dealer, position="dealer", table=table, user=person)
    assert not StaffingOverride.objects.exists()


def test_the_floor_is_read_in_a_constant_number_of_queries(facility, staff_table, watch_table, floorperson):
    def floor_queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            floor = selectors.floor_at(facility, T0)
            evaluate(floor, selectors.rules_in_force())
        return len(captured.captured_queries)

    first = make_table(facility, "three-dice-football", "TDF-1")
    staff_table(first, floorperson=floorperson)
    watch_table(first, "a", "b")
    _open(first)
    few = floor_queries()
    for n in range(2, 6):
        table = make_table(facility, "three-dice-football", f"TDF-{n}")
        staff_table(table)
        watch_table(table, "a", "b")
        _open(table)
    assert floor_queries() == few


def test_the_demo_seed_adds_shifts_and_cameras_once(facility):
    """Each end of each Three Dice Football table under its own camera (§ 577.9(a)); no crew without the demo's
    people."""
    from compliance.actors import acting_as, system_user
    from compliance.staffing.demo import staffing_demo_seed
    from compliance.staffing.models import Camera, Shift

    make_table(facility, "three-dice-football", "TDF-1")
    make_table(facility, "three-dice-football", "TDF-2")
    with acting_as(system_user()):
        assert staffing_demo_seed(facility) == 3 + 4 + 4
        assert staffing_demo_seed(facility) == 0
    assert Shift.objects.filter(facility=facility).count() == 3 and Camera.objects.count() == 4


def test_a_change_to_come_is_refused(facility, roster, shift_manager, dealer):
    table = make_table(facility, "three-dice-football", "TDF-1")
    with pytest.raises(ValidationError, match="when it happens"):
        services.assignment_add(roster=roster, person=dealer, position="dealer", table=table, user=shift_manager,
                                starts_at=T0 + timedelta(hours=1))
    placed = services.assignment_add(roster=roster, person=dealer, position="dealer", table=table, user=shift_manager,
                                     starts_at=T0)
    with pytest.raises(ValidationError, match="when it happens"):
        services.assignment_end(assignment=placed, user=shift_manager, ends_at=T0 + timedelta(hours=1))


def test_a_change_entered_long_after_is_refused_and_rewrites_nothing(facility, staff_table, watch_table, roster,
                                                                      shift_manager):
    """Staffing is facts in time: a break entered an hour late would close or shorten breach periods already on
    record; it is refused and the floor's history stays as recorded."""
    table = make_table(facility, "three-dice-football", "TDF-1")
    crew = staff_table(table)
    watch_table(table, "a", "b")
    _open(table)
    with (time_machine.travel(T0 + timedelta(hours=2), tick=False),
          pytest.raises(ValidationError, match="Record a change when it happens"), transaction.atomic()):
        services.assignment_end(assignment=crew[0], user=shift_manager, ends_at=T0 + timedelta(hours=1))
    crew[0].refresh_from_db()
    assert crew[0].ends_at is None and not ViolationPeriod.objects.exists()


def test_a_late_roster_leaves_history_and_open_breaches_unchanged(facility, staff_table, watch_table, roster,
                                                                  shift_manager):
    """A roster made after its shift began hands over now: a dealer who left stays gone, and the breach his leaving
    opened stays open until someone is placed — the roster does not close it by re-placing him in the past."""
    table = make_table(facility, "three-dice-football", "TDF-1")
    crew = staff_table(table)
    watch_table(table, "a", "b")
    _open(table)
    with time_machine.travel(T0 + timedelta(minutes=20), tick=False):
        services.assignment_end(assignment=crew[0], user=shift_manager, ends_at=T0 + timedelta(minutes=20),
                                note="went home")
    breach = ViolationPeriod.objects.get(ended_at__isnull=True)
    before = {(a.pk, a.starts_at, a.ends_at) for a in Assignment.objects.all()}
    grave = services.shift_create(facility=facility, name="Grave", starts_at=crew[0].starts_at.time().replace(
        hour=21, minute=30), hours=8, user=shift_manager)  # began at 21:30; the roster is made at 22:04
    late = T0 + timedelta(hours=1)
    with time_machine.travel(late, tick=False):
        nxt = services.roster_create(facility=facility, gaming_date=roster.gaming_date, shift=grave,
                                     user=shift_manager)
    carried = Assignment.objects.filter(roster=nxt)
    assert crew[0].person_id not in {a.person_id for a in carried}  # the one who left is not re-placed
    assert {a.starts_at for a in carried} == {late}  # the hand-over is when the roster was made, not 21:30
    for pk, starts_at, ends_at in before:  # nothing recorded earlier moved, other than the hand-over now
        row = Assignment.objects.get(pk=pk)
        assert row.starts_at == starts_at and row.ends_at in (ends_at, late)
    breach.refresh_from_db()
    assert breach.ended_at is None and breach.started_at == T0 + timedelta(minutes=20)
