"""Writes of staffing and surveillance: shifts, rosters and their assignments, cameras, their coverage and
outages, the rules' findings as violation periods, and the shift manager's override.

After every change that can make a table compliant or not (a person placed or relieved, a camera out of or
back in service, a table opened or closed) :func:`violations_sync` compares the rules' verdict on the open
tables with the violation periods on record: a new breach opens a period at once (and a camera's is
e-mailed), one put right is closed. The periods are what the board, the dashboards and the report show.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, time, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from compliance.actors import acts_as_user
from compliance.gaming_day import day_bounds, gaming_day
from compliance.models import Facility, GamingTable, regulated_bulk_create, regulated_bulk_update
from compliance.people import person_name
from compliance.roles import Capability, Role, require_capability, roles_of
from compliance.service_checks import require_at_facility
from compliance.services import signature_sign
from compliance.staffing import selectors
from compliance.staffing.models import (
    Assignment,
    Camera,
    CameraCoverage,
    CameraOutage,
    Position,
    Roster,
    Shift,
    StaffingOverride,
    TableEnd,
    ViolationPeriod,
)
from compliance.staffing.rules import Violation, evaluate

__all__ = [
    "assignment_add",
    "assignment_end",
    "camera_back_in_service",
    "camera_out_of_service",
    "camera_register",
    "coverage_set",
    "override_record",
    "roster_create",
    "roster_fill",
    "shift_create",
    "violations_sync",
]


def _same_facility(user: Any, facility: Facility) -> None:
    require_at_facility(user, facility)


# --- Shifts and rosters ----------------------------------------------------------------------------------


@transaction.atomic
@acts_as_user
def shift_create(*, facility: Facility, name: str, starts_at: time, hours: int, user: Any) -> Shift:
    require_capability(user, Capability.MANAGE_ROSTERS)
    _same_facility(user, facility)
    if not name.strip():
        raise ValidationError("Name the shift, e.g. Day, Swing or Grave.")
    if not 1 <= hours <= 24:
        raise ValidationError("A shift lasts 1 to 24 hours.")
    if Shift.objects.filter(facility=facility, name__iexact=name.strip()).exists():
        raise ValidationError(f"{facility.name} already has a shift named {name.strip()}.")
    return Shift.objects.create(facility=facility, name=name.strip(), starts_at=starts_at, hours=hours)


def shift_start(facility: Facility, gaming_date: date, shift: Shift) -> datetime:
    """When ``shift`` of ``gaming_date`` begins (the shifts run within the facility's gaming day)."""
    begins, _ = day_bounds(facility, gaming_date)
    day_start = facility.gaming_day_starts_at
    offset = (datetime.combine(gaming_date, shift.starts_at) - datetime.combine(gaming_date, day_start))
    return begins + (offset if offset >= timedelta(0) else offset + timedelta(days=1))


@transaction.atomic
@acts_as_user
def roster_create(*, facility: Facility, gaming_date: date, shift: Shift, user: Any, copy_previous: bool = True
                  ) -> Roster:
    """The roster of ``shift`` on ``gaming_date``; with ``copy_previous``, starting from the people still
    assigned at the end of the facility's latest earlier roster, each from this shift's start."""
    require_capability(user, Capability.MANAGE_ROSTERS)
    _same_facility(user, facility)
    if shift.facility_id != facility.pk:
        raise ValidationError("That shift is another facility's.")
    if selectors.roster_for(facility, gaming_date, shift) is not None:
        raise ValidationError(f"The {shift.name} shift of {gaming_date:%-d %b %Y} already has a roster.")
    start = shift_start(facility, gaming_date, shift)
    # A roster is a plan: made after its shift began, it hands over now, never in the past — a past hand-over
    # would end places that were still held and re-place people who had already left.
    handover = max(start, timezone.now())
    previous = (Roster.objects.filter(facility=facility).exclude(gaming_date__gt=gaming_date)
                .select_related("shift").order_by("-gaming_date", "-shift__starts_at").first()) if copy_previous else None
    roster = Roster.objects.create(facility=facility, gaming_date=gaming_date, shift=shift, created_by=user,
                                   copied_from=previous)
    if previous is not None:
        # Only places still held are carried: one that ended (a dealer who left) stays ended.
        carried = list(previous.assignments.filter(ends_at__isnull=True).select_related("roster"))
        # The hand-over: the old shift's places end as this one's begin. In bulk, each with its history row and audit
        # event (a 200-table floor's roster took 400 saves one by one, seconds for the shift manager, issue 27).
        ending = [a for a in carried if a.starts_at < handover]
        before = {a.pk: {"ends_at": a.ends_at} for a in ending}
        for a in ending:
            a.ends_at = handover
        regulated_bulk_update(Assignment, ending, ["ends_at"], before=before)
        regulated_bulk_create(Assignment, [
            Assignment(roster=roster, person_id=a.person_id, position=a.position, table_id=a.table_id,
                       starts_at=max(handover, a.starts_at), note=f"Copied from the roster of {previous}")
            for a in carried])
        if carried and handover <= timezone.now():
            violations_sync(facility=facility, at=handover)
    return roster


def _require_person_for(position: str, person: Any) -> None:
    roles = roles_of(person)
    wanted = {Role.FLOORPERSON, Role.SHIFT_MANAGER} if position == Position.FLOORPERSON else {Role.DEALER}
    if not roles & wanted:
        what = "a floorperson" if position == Position.FLOORPERSON else "a dealer"
        raise ValidationError(f"{person_name(person)} is not {what}; "
                              f"only {what} can take that place.")


AHEAD = timedelta(minutes=5)  # a clock a little fast; a change is recorded when it happens, not planned
LATE = timedelta(minutes=15)  # how late a change may be entered: who stood where is recorded as it happens


def _not_ahead(at: datetime) -> datetime:
    """Staffing is facts in time: a change is recorded when it happens (a few minutes' slack either way), so a
    late entry never rewrites what the floor, the breach periods and the report already say."""
    now = timezone.now()
    if at > now + AHEAD:
        raise ValidationError("Record a change when it happens: that time is still to come.")
    if at < now - LATE:
        raise ValidationError(f"Record a change when it happens: {timezone.localtime(at):%H:%M} is more than "
                              f"{int(LATE.total_seconds() // 60)} minutes ago, and the breach periods and the staffing "
                              "report already stand for that time. Record it now, with the time it happened in the "
                              "note.")
    return at


def _place(roster: Roster, person: Any, position: str, table: GamingTable, at: datetime, note: str) -> Assignment:
    """Place ``person`` (checks, no re-evaluation: the caller syncs the violation periods once)."""
    if position not in Position.values:
        raise ValidationError("Choose dealer, stickperson, boxperson or floorperson.")
    if table.facility_id != roster.facility_id:
        raise ValidationError(f"Table {table.number} is another facility's.")
    _require_person_for(position, person)
    busy = (Assignment.objects.filter(roster__facility=roster.facility, person=person, ends_at__isnull=True)
            .exclude(position=Position.FLOORPERSON).select_related("table").first())
    if position != Position.FLOORPERSON and busy is not None:
        raise ValidationError(f"{_person_words(person)} is still at table {busy.table.number}; end that place "
                              f"(a break, or moved) first.")
    if Assignment.objects.filter(roster=roster, person=person, table=table, ends_at__isnull=True).exists():
        raise ValidationError(f"{_person_words(person)} is already placed at table {table.number}.")
    return Assignment.objects.create(roster=roster, person=person, position=position, table=table, starts_at=at,
                                     note=note.strip()[:200])


def _relieve(assignment: Assignment, at: datetime, note: str) -> Assignment:
    assignment = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if assignment.ends_at is not None:
        raise ValidationError("That assignment has already ended.")
    if at <= assignment.starts_at:
        raise ValidationError("An assignment ends after it began.")
    assignment.ends_at = at
    if note.strip():
        assignment.note = ((f"{assignment.note}; " if assignment.note else "") + note.strip())[:200]
    assignment.save()
    return assignment


def _person_words(person: Any) -> str:
    return person_name(person) or "That person"


@transaction.atomic
@acts_as_user
def assignment_add(*, roster: Roster, person: Any, position: str, table: GamingTable, user: Any,
                   starts_at: datetime | None = None, note: str = "") -> Assignment:
    """Place ``person`` in ``position`` at ``table`` (a floorperson: over it) from ``starts_at``."""
    require_capability(user, Capability.MANAGE_ROSTERS)
    _same_facility(user, roster.facility)
    at = _not_ahead(starts_at or timezone.now())
    made = _place(roster, person, position, table, at, note)
    violations_sync(facility=roster.facility, at=at)
    return made


@transaction.atomic
@acts_as_user
def assignment_end(*, assignment: Assignment, user: Any, ends_at: datetime | None = None, note: str = "") -> Assignment:
    """End an assignment (a break, relieved, moved, end of shift)."""
    require_capability(user, Capability.MANAGE_ROSTERS)
    _same_facility(user, assignment.roster.facility)
    at = _not_ahead(ends_at or timezone.now())
    ended = _relieve(assignment, at, note)
    violations_sync(facility=assignment.roster.facility, at=at)
    return ended


Place = tuple[str, Any]  # (position, person)


@transaction.atomic
@acts_as_user
def roster_fill(*, roster: Roster, wanted: dict[GamingTable, list[Place]], user: Any, at: datetime | None = None
                ) -> tuple[int, int]:
    """The whole pit at once: for each table of ``wanted``, end the places no longer wanted and take the new
    ones, at one instant (every ending first, so a dealer moved between two tables is free to move); the
    violation periods synced once. All or nothing: a refusal names the table. Returns (ended, placed)."""
    require_capability(user, Capability.MANAGE_ROSTERS)
    _same_facility(user, roster.facility)
    at = _not_ahead(at or timezone.now())
    current: dict[int, list[Assignment]] = {}
    for a in roster.assignments.filter(ends_at__isnull=True).select_related("person"):
        current.setdefault(a.table_id, []).append(a)
    to_end, to_add = [], []
    for table, places in wanted.items():
        want = {(position, getattr(person, "pk", None)) for position, person in places if person is not None}
        have = current.get(table.pk, [])
        to_end += [a for a in have if (a.position, a.person_id) not in want]
        kept = {(a.position, a.person_id) for a in have}
        to_add += [(table, position, person) for position, person in places
                   if person is not None and (position, person.pk) not in kept]
    for assignment in to_end:
        _relieve(assignment, at, "changed on the pit's roster")
    for table, position, person in to_add:
        try:
            _place(roster, person, position, table, at, "")
        except ValidationError as refusal:
            raise ValidationError([f"Table {table.number}: {m}" for m in refusal.messages]) from None
    violations_sync(facility=roster.facility, at=at)
    return len(to_end), len(to_add)


# --- Cameras -----------------------------------------------------------------------------------------------


@transaction.atomic
@acts_as_user
def camera_register(*, facility: Facility, code: str, user: Any, stationary: bool = True, location: str = "") -> Camera:
    require_capability(user, Capability.MANAGE_CAMERAS)
    _same_facility(user, facility)
    code = code.strip().upper()
    if not code:
        raise ValidationError("Give the camera's code as the surveillance room names it, e.g. C-114.")
    if Camera.objects.filter(facility=facility, code=code).exists():
        raise ValidationError(f"Camera {code} is already registered.")
    return Camera.objects.create(facility=facility, code=code, stationary=stationary, location=location.strip())


@transaction.atomic
@acts_as_user
def coverage_set(*, camera: Camera, table: GamingTable, end: str, user: Any, covers: bool = True) -> CameraCoverage | None:
    """Record that ``camera`` covers (or no longer covers) ``end`` of ``table``."""
    require_capability(user, Capability.MANAGE_CAMERAS)
    _same_facility(user, camera.facility)
    if end not in TableEnd.values:
        raise ValidationError("Choose end A or end B of the table.")
    if table.facility_id != camera.facility_id:
        raise ValidationError(f"Table {table.number} is another facility's.")
    current = CameraCoverage.objects.filter(camera=camera, table=table, end=end, active=True).first()
    if covers and current is None:
        current = CameraCoverage.objects.create(camera=camera, table=table, end=end)
    elif not covers and current is not None:
        current.active = False
        current.save()
        current = None
    violations_sync(facility=camera.facility, at=timezone.now())
    return current


@transaction.atomic
@acts_as_user
def camera_out_of_service(*, camera: Camera, reason: str, user: Any, at: datetime | None = None) -> list[ViolationPeriod]:
    """Mark the camera out of service; every open table it leaves short is flagged at once (and e-mailed).
    Returns the violation periods that began."""
    require_capability(user, Capability.MANAGE_CAMERAS)
    _same_facility(user, camera.facility)
    if not reason.strip():
        raise ValidationError("Say why the camera is out of service.")
    if CameraOutage.objects.filter(camera=camera, ended_at__isnull=True).exists():
        raise ValidationError(f"Camera {camera.code} is already out of service.")
    at = at or timezone.now()
    CameraOutage.objects.create(camera=camera, started_at=at, reason=reason.strip()[:200], recorded_by=user)
    return violations_sync(facility=camera.facility, at=at)


@transaction.atomic
@acts_as_user
def camera_back_in_service(*, camera: Camera, user: Any, at: datetime | None = None) -> CameraOutage:
    require_capability(user, Capability.MANAGE_CAMERAS)
    _same_facility(user, camera.facility)
    outage = CameraOutage.objects.select_for_update().filter(camera=camera, ended_at__isnull=True).first()
    if outage is None:
        raise ValidationError(f"Camera {camera.code} is in service.")
    at = at or timezone.now()
    outage.ended_at, outage.ended_by = max(at, outage.started_at), user
    outage.save()
    violations_sync(facility=camera.facility, at=at)
    return outage


# --- Findings ------------------------------------------------------------------------------------------------


def violations_sync(*, facility: Facility, at: datetime) -> list[ViolationPeriod]:
    """Open a period for each rule newly broken at an open table, close each one put right (or whose table
    closed); returns the periods that began. Camera breaches are e-mailed to surveillance and the shift
    managers once the transaction commits."""
    found = evaluate(selectors.floor_at(facility, at), selectors.rules_in_force())
    now = {(v.table_id, v.rule): v for violations in found.values() for v in violations}
    current = {(p.table_id, p.rule): p for p in ViolationPeriod.objects.filter(facility=facility, ended_at__isnull=True)}
    for key, period in current.items():
        if key not in now:
            period.ended_at = max(at, period.started_at)
            period.save()
    began = [ViolationPeriod.objects.create(facility=facility, table_id=v.table_id, rule=v.rule, clause=v.clause,
                                            words=v.words[:300], started_at=at)
             for key, v in now.items() if key not in current]
    flagged = [p for p in began if p.rule == "cameras"]
    if flagged:
        from compliance.staffing.tasks import notify_camera_violations

        ids = [p.pk for p in flagged]
        transaction.on_commit(lambda: notify_camera_violations.delay(ids))
    return began


# --- Opening a table -----------------------------------------------------------------------------------------


@transaction.atomic
@acts_as_user
def override_record(*, table: GamingTable, reason: str, user: Any, password: str, at: datetime | None = None
                    ) -> StaffingOverride:
    """A shift manager's signed decision to open ``table`` although it breaks a rule of the facility's own
    internal controls now; used by the next opening of the table that gaming day. A rule of the regulations
    (§ 577.9) admits no exception: no override is recorded for it and none opens a table that breaks it."""
    require_capability(user, Capability.OVERRIDE_STAFFING)
    _same_facility(user, table.facility)
    if not reason.strip():
        raise ValidationError("State why the table opens although it breaks a rule of the facility's internal "
                              "controls.")
    at = at or timezone.now()
    found = evaluate(selectors.floor_at(table.facility, at, also=table), selectors.rules_in_force())[table.pk]
    if not found:
        raise ValidationError(f"Table {table.number} breaks no staffing or surveillance rule: it needs no override.")
    ours = [v for v in found if v.internal_control]
    theirs = [v for v in found if not v.internal_control]
    if not ours:
        raise ValidationError(f"Table {table.number} breaks {_clauses(theirs)}, which the regulations set and no "
                              f"signature waives: {_words(theirs)} Meet the rule, then open the table.")
    override = StaffingOverride.objects.create(
        facility=table.facility, table=table, gaming_date=gaming_day(table.facility, at),
        violations=[{"rule": v.rule, "clause": v.clause, "words": v.words} for v in ours], reason=reason.strip(),
    )
    signature_sign(record=override, slot="shift_manager", user=user, password=password)
    return override


def _clauses(violations: Iterable[Violation]) -> str:
    return ", ".join(sorted({f"§ {v.clause}" for v in violations}))


def _words(violations: Iterable[Violation]) -> str:
    return " ".join(v.words for v in violations)


def staffing_table_changed(table: GamingTable, at: datetime) -> None:
    """Registered with :mod:`compliance.opening_checks`: a table opened or closed."""
    began = violations_sync(facility=table.facility, at=at)
    if table.is_open:
        override = (StaffingOverride.objects.filter(table=table, used_at=at).order_by("-pk").first())
        if override is not None:
            for period in [p for p in began if p.table_id == table.pk]:
                period.override = override
                period.save()
