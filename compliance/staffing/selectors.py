"""Reads of staffing and surveillance: the facts of a floor at one instant for the rules engine, in a fixed
number of queries however many tables, people and cameras there are."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime

from django.db.models import Exists, OuterRef, Q, QuerySet

from compliance.models import Facility, GamingTable
from compliance.people import person_name
from compliance.staffing.models import (
    Assignment,
    Camera,
    CameraCoverage,
    CameraOutage,
    CameraRule,
    Roster,
    Shift,
    SpanRule,
    StaffingOverride,
    StaffingRule,
    ViolationPeriod,
)
from compliance.staffing.rules import (
    CameraCover,
    CameraRuleData,
    Floor,
    Rules,
    SpanRuleData,
    Staff,
    StaffingRuleData,
    TableFacts,
)

__all__ = [
    "active_assignments",
    "assignment_in",
    "cameras_of",
    "floor_at",
    "floorpersons_over",
    "open_violations",
    "overrides_of",
    "recent_overrides",
    "roster_for",
    "rosters_of",
    "rules_in_force",
    "shifts_of",
    "unused_override",
]


def rules_in_force() -> Rules:
    """Every game's rules, as the engine reads them (three queries)."""
    staffing = tuple(
        StaffingRuleData(r.game.code, r.code, r.position_set, r.minimum, r.words, r.clause, r.internal_control)
        for r in StaffingRule.objects.select_related("game").order_by("game__code", "code")
    )
    cameras = tuple(CameraRuleData(r.game.code, r.minimum, r.each_end, r.clause, r.internal_control)
                    for r in CameraRule.objects.select_related("game"))
    spans = tuple(
        SpanRuleData(r.game.code, r.game.name, r.max_tables, r.max_other_tables, r.other_must_be_banking,
                     frozenset(g.code for g in r.excluded_games.all()),
                     tuple(sorted(g.name for g in r.excluded_games.all())), r.clause)
        for r in SpanRule.objects.select_related("game").prefetch_related("excluded_games")
    )
    return Rules(staffing=staffing, cameras=cameras, spans=spans)


def _table_facts(table: GamingTable) -> TableFacts:
    return TableFacts(table.pk, table.number, table.game.code, table.game.name, table.game.banking)


def active_assignments(facility: Facility, at: datetime) -> QuerySet[Assignment]:
    return (Assignment.objects.filter(roster__facility=facility, starts_at__lte=at)
            .filter(Q(ends_at__isnull=True) | Q(ends_at__gt=at))
            .select_related("person__profile"))


def floor_at(facility: Facility, at: datetime, *, also: GamingTable | Iterable[GamingTable] | None = None) -> Floor:
    """The open tables of the facility (and ``also``, tables about to open, judged as if open) at ``at``, who is
    at each and who supervises which, and the cameras covering them with whether each is in service then."""
    extra = [also] if isinstance(also, GamingTable) else list(also or [])
    tables = list(GamingTable.objects.filter(Q(facility=facility, is_open=True)
                                             | Q(facility=facility, pk__in=[t.pk for t in extra]))
                  .select_related("game"))
    ids = [t.pk for t in tables]
    staff = []
    names: dict[int, str] = {}
    for a in active_assignments(facility, at).filter(table_id__in=ids):
        staff.append(Staff(a.table_id, a.position, a.person_id, person_name(a.person)))
        names[a.person_id] = person_name(a.person)
    out = CameraOutage.objects.filter(camera=OuterRef("camera"), started_at__lte=at).filter(
        Q(ended_at__isnull=True) | Q(ended_at__gt=at))
    covers = [
        CameraCover(c.camera_id, c.camera.code, c.table_id, c.end, c.camera.stationary, not c.out)
        for c in CameraCoverage.objects.filter(table_id__in=ids, active=True).select_related("camera")
        .annotate(out=Exists(out))
    ]
    return Floor([_table_facts(t) for t in tables], staff, covers, names)


def open_violations(facility: Facility) -> QuerySet[ViolationPeriod]:
    return (ViolationPeriod.objects.filter(facility=facility, ended_at__isnull=True)
            .select_related("table__game").order_by("table__number", "rule"))


def unused_override(table: GamingTable, gaming_date: date) -> StaffingOverride | None:
    """A signed override for ``table`` on ``gaming_date`` not yet used to open it."""
    return (StaffingOverride.objects.filter(table=table, gaming_date=gaming_date, used_at__isnull=True,
                                            signatures__slot="shift_manager")
            .order_by("-pk").first())


def shifts_of(facility: Facility) -> QuerySet[Shift]:
    return Shift.objects.filter(facility=facility).order_by("starts_at")


def rosters_of(facility: Facility) -> QuerySet[Roster]:
    return Roster.objects.filter(facility=facility).select_related("shift").order_by("-gaming_date", "-shift__starts_at")


def roster_for(facility: Facility, gaming_date: date, shift: Shift) -> Roster | None:
    return Roster.objects.filter(facility=facility, gaming_date=gaming_date, shift=shift).first()


def assignment_in(facility: Facility, roster_pk: int, pk: int) -> Assignment | None:
    """A placement on a roster of ``facility``, or None."""
    return Assignment.objects.filter(roster__facility=facility, roster_id=roster_pk, pk=pk).first()


def cameras_of(facility: Facility) -> QuerySet[Camera]:
    return Camera.objects.filter(facility=facility).prefetch_related("coverage__table", "outages")


def overrides_of(facility: Facility) -> QuerySet[StaffingOverride]:
    return (StaffingOverride.objects.filter(facility=facility).select_related("table__game")
            .prefetch_related("signatures__signer__profile", "periods").order_by("-created_at", "-pk"))


def recent_overrides(facility: Facility, *, limit: int = 20) -> list[StaffingOverride]:
    return list(overrides_of(facility)[:limit])


def floorpersons_over(table: GamingTable, at: datetime) -> set[int]:
    """The people placed as floorperson over ``table`` at ``at`` (``compliance.floor_assignments``)."""
    return set(active_assignments(table.facility, at).filter(table=table, position="floorperson")
               .values_list("person_id", flat=True))
