"""Staffing and surveillance records.

* Rules as data, per game, each citing its clause (the next game is rows, not code):
  :class:`StaffingRule` (at least N people in some table positions), :class:`CameraRule` (at least N
  stationary cameras in service, one on each end), :class:`SpanRule` (how many tables, and of which other
  games, one floorperson may supervise).
* The facility's :class:`Shift` s within its gaming day; a :class:`Roster` per gaming day and shift, its
  :class:`Assignment` s (a person at a table in a position, or a floorperson over a table) with the times
  each began and ended, so breaks and relief dealers are on record.
* The :class:`Camera` registry of the surveillance department, what each camera covers
  (:class:`CameraCoverage`: a table and which end) and when it was out of service (:class:`CameraOutage`).
* :class:`ViolationPeriod`: a rule broken at an open table, from when it was found until it was put right;
  :class:`StaffingOverride`: a shift manager's signed decision to open a table that breaks a rule.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from compliance.models import AuditedModel, Game, RegulatedRecord
from compliance.models.signatures import Meaning, SignatureRequirement
from compliance.roles import Role

__all__ = [
    "Assignment",
    "Camera",
    "CameraCoverage",
    "CameraOutage",
    "CameraRule",
    "Position",
    "Roster",
    "Shift",
    "SpanRule",
    "StaffingOverride",
    "StaffingRule",
    "TableEnd",
    "ViolationPeriod",
]


class Position(models.TextChoices):
    DEALER = "dealer", "Dealer"
    STICKPERSON = "stickperson", "Dealer acting as stickperson"
    BOXPERSON = "boxperson", "Boxperson"
    FLOORPERSON = "floorperson", "Floorperson (supervising)"


TABLE_POSITIONS = (Position.DEALER, Position.STICKPERSON, Position.BOXPERSON)


class TableEnd(models.TextChoices):
    END_A = "a", "End A"
    END_B = "b", "End B"


# --- Rules as data ---------------------------------------------------------------------------------------


class StaffingRule(AuditedModel):
    """At each open table of ``game``, at least ``minimum`` people in ``positions`` (comma-separated)."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="staffing_rules")
    code = models.SlugField(max_length=40, help_text="Stable name of the rule, e.g. tdf-three-dealers")
    positions = models.CharField(max_length=80, help_text="Table positions counted, comma-separated")
    minimum = models.PositiveSmallIntegerField()
    words = models.CharField(max_length=200, help_text="The rule in words: 'three dealers'")
    clause = models.CharField(max_length=40, help_text="e.g. 577.9(b)")
    internal_control = models.BooleanField(
        default=False, help_text="The facility's own internal control, not a clause of the regulations: only such a "
                                 "rule may be overridden by a shift manager's signed decision")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "code"], name="staffing_rule_code_unique"),
                       models.CheckConstraint(condition=Q(minimum__gte=1, minimum__lte=20),
                                              name="staffing_rule_minimum_bounds")]

    def __str__(self) -> str:
        return f"{self.game.name}: {self.words} (§ {self.clause})"

    @property
    def position_set(self) -> frozenset[str]:
        return frozenset(p.strip() for p in self.positions.split(",") if p.strip())


class CameraRule(AuditedModel):
    """At least ``minimum`` stationary cameras in service on each open table of ``game``; with
    ``each_end``, one of them covering each end."""

    game = models.OneToOneField(Game, on_delete=models.PROTECT, related_name="camera_rule")
    minimum = models.PositiveSmallIntegerField()
    each_end = models.BooleanField(default=True)
    clause = models.CharField(max_length=40)
    internal_control = models.BooleanField(default=False, help_text="The facility's own internal control (may be "
                                                                    "overridden); a regulation's rule never is")

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(minimum__gte=1, minimum__lte=20),
                                              name="camera_rule_minimum_bounds")]

    def __str__(self) -> str:
        return f"{self.game.name}: {self.minimum} cameras (§ {self.clause})"


class SpanRule(AuditedModel):
    """A floorperson supervising a table of ``game`` supervises at most ``max_tables`` tables in all, of which
    at most ``max_other_tables`` of another game, and that one of a banking game not in ``excluded_games``."""

    game = models.OneToOneField(Game, on_delete=models.PROTECT, related_name="span_rule")
    max_tables = models.PositiveSmallIntegerField()
    max_other_tables = models.PositiveSmallIntegerField()
    other_must_be_banking = models.BooleanField(default=True)
    excluded_games = models.ManyToManyField(Game, blank=True, related_name="+")
    clause = models.CharField(max_length=40)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(max_tables__gte=1, max_tables__lte=50,
                                                          max_other_tables__lte=50),
                                              name="span_rule_bounds")]

    def __str__(self) -> str:
        return f"{self.game.name}: a floorperson supervises at most {self.max_tables} tables (§ {self.clause})"


# --- Shifts and rosters ------------------------------------------------------------------------------------


class Shift(AuditedModel):
    """One of the facility's shifts within its gaming day, e.g. Day 06:00–14:00."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    name = models.CharField(max_length=40)
    starts_at = models.TimeField()
    hours = models.PositiveSmallIntegerField(default=8)

    class Meta:
        ordering = ["facility", "starts_at"]
        constraints = [models.UniqueConstraint(fields=["facility", "name"], name="shift_name_unique"),
                       models.CheckConstraint(condition=Q(hours__gte=1, hours__lte=24), name="shift_hours_bounds")]

    def __str__(self) -> str:
        return f"{self.name} ({self.starts_at:%H:%M}, {self.hours} h)"


class Roster(AuditedModel):
    """Who works which table in one shift of one gaming day."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    gaming_date = models.DateField()
    shift = models.ForeignKey(Shift, on_delete=models.PROTECT, related_name="rosters")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    copied_from = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["facility", "gaming_date", "shift"],
                                               name="roster_one_per_shift")]

    def __str__(self) -> str:
        return f"Roster {self.gaming_date} {self.shift.name}"


class Assignment(AuditedModel):
    """A person in a position at a table (a floorperson: over a table) from ``starts_at`` until ``ends_at``
    (open while working). A break or a relief dealer ends one assignment and begins another."""

    facility_through = "roster"  # its changes are its roster's facility's (compliance.selectors._audit_branches)

    roster = models.ForeignKey(Roster, on_delete=models.PROTECT, related_name="assignments")
    person = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    position = models.CharField(max_length=20, choices=Position.choices)
    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True, help_text="Why it began or ended: break, relief, ...")

    class Meta:
        # Who works now (every readiness verdict asks): the assignments not ended, found by their end, not by
        # reading every assignment of the year (issue 27: 219,000 rows, 22-40 ms a verdict of the floor, a year).
        indexes = [models.Index(fields=["roster", "table"]), models.Index(fields=["ends_at"], name="assignment_ends_at")]
        constraints = [
            models.CheckConstraint(condition=Q(ends_at__isnull=True) | Q(ends_at__gt=models.F("starts_at")),
                                   name="assignment_ends_after_it_starts"),
            # A person holds one position at one table at a time; a floorperson may supervise several tables.
            models.UniqueConstraint(fields=["roster", "person", "table"], condition=Q(ends_at__isnull=True),
                                    name="assignment_open_once_per_table"),
        ]

    def __str__(self) -> str:
        return f"{self.get_position_display()} at {self.table_id}"


# --- Cameras ----------------------------------------------------------------------------------------------


class Camera(AuditedModel):
    """A surveillance camera of the facility."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    code = models.CharField(max_length=30, help_text="As the surveillance room names it, e.g. C-114")
    stationary = models.BooleanField(default=True, help_text="Fixed camera (not pan-tilt-zoom)")
    location = models.CharField(max_length=120, blank=True)

    class Meta:
        ordering = ["facility", "code"]
        constraints = [models.UniqueConstraint(fields=["facility", "code"], name="camera_code_unique")]

    def __str__(self) -> str:
        return self.code


class CameraCoverage(AuditedModel):
    """The camera covers ``end`` of ``table``."""

    facility_through = "camera"

    camera = models.ForeignKey(Camera, on_delete=models.PROTECT, related_name="coverage")
    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    end = models.CharField(max_length=1, choices=TableEnd.choices)
    active = models.BooleanField(default=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["camera", "table", "end"], condition=Q(active=True),
                                               name="camera_coverage_once")]

    def __str__(self) -> str:
        return f"{self.camera_id} on table {self.table_id} end {self.end}"


class CameraOutage(AuditedModel):
    """The camera out of service from ``started_at`` until ``ended_at`` (open: still out)."""

    facility_through = "camera"

    camera = models.ForeignKey(Camera, on_delete=models.PROTECT, related_name="outages")
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=200)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    ended_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                 related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["camera"], condition=Q(ended_at__isnull=True),
                                    name="camera_one_open_outage"),
            models.CheckConstraint(condition=Q(ended_at__isnull=True) | Q(ended_at__gte=models.F("started_at")),
                                   name="camera_outage_ends_after_it_starts"),
        ]

    def __str__(self) -> str:
        return f"{self.camera_id} out of service since {timezone.localtime(self.started_at):%-d %b %Y %H:%M}"


# --- What was found, and what was decided ----------------------------------------------------------------


class ViolationPeriod(AuditedModel):
    """A rule broken at an open table, from when it was found until it was put right (or the table closed)."""

    facility = models.ForeignKey("compliance.Facility", on_delete=models.PROTECT, related_name="+")
    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    rule = models.CharField(max_length=60, help_text="The rule's code, e.g. staffing:tdf-three-dealers")
    clause = models.CharField(max_length=40)
    words = models.CharField(max_length=300)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    override = models.ForeignKey("StaffingOverride", on_delete=models.PROTECT, null=True, blank=True,
                                 related_name="periods")

    class Meta:
        indexes = [models.Index(fields=["facility", "started_at"])]
        constraints = [
            models.UniqueConstraint(fields=["table", "rule"], condition=Q(ended_at__isnull=True),
                                    name="violation_open_once"),
        ]

    def __str__(self) -> str:
        return f"{self.words} (§ {self.clause})"


SHIFT_MANAGER: frozenset[Role] = frozenset({Role.SHIFT_MANAGER})


class StaffingOverride(RegulatedRecord):
    """A shift manager's decision to open a table that breaks a rule of the facility's own internal controls,
    with the reason; signed, reported and visible to the Board's inspectors. A rule of the regulations
    (§ 577.9) admits no exception and is never overridden."""

    citation: ClassVar[str] = "577.9"
    signature_requirements = (
        SignatureRequirement("shift_manager", Meaning.APPROVED, "Table games shift manager", roles=SHIFT_MANAGER),
    )

    table = models.ForeignKey("compliance.GamingTable", on_delete=models.PROTECT, related_name="+")
    gaming_date = models.DateField()
    violations: Any = models.JSONField(help_text="The rules broken when the override was given, in words")
    reason = models.TextField()
    used_at = models.DateTimeField(null=True, blank=True, help_text="When the table opened under it")

    unsigned_fields = frozenset({"used_at"})
    named_with: ClassVar[tuple[str, ...]] = ("table",)

    def __str__(self) -> str:
        """The table by its number, as the floor calls it (its row id meant nothing to the shift manager)."""
        return f"Override for table {self.table.number} on {self.gaming_date:%-d %b %Y}"
