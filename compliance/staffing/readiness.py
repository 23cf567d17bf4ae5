"""Staffing and surveillance's part of a table's readiness (``compliance.readiness``): the rules engine's verdict
on the floor at the instant. An open table is judged as it stands; a closed one as if it opened now beside the
open ones (the span of its floorpersons counts it). A fixed number of queries for any number of tables.

Only a rule of the facility's own internal controls (``internal_control``) may be met by a shift manager's
signed override: every rule of § 577.9 is a regulation's and admits no exception.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.urls import reverse

from compliance.gaming_day import gaming_day
from compliance.models import Facility, GamingTable
from compliance.readiness import Unmet
from compliance.staffing import selectors
from compliance.staffing.rules import FLOORPERSON, Floor, Violation, evaluate

__all__ = ["staffing_override_consumer", "staffing_unmet"]


def _unmet(v: Violation) -> Unmet:
    if v.rule == "cameras":
        return Unmet(v.rule, v.clause, v.words, "cameras", "surveillance", reverse("staffing:surveillance"),
                     v.internal_control)
    if v.rule.startswith("span:"):
        return Unmet(v.rule, v.clause, v.words, "floorperson's span", "the shift manager", reverse("staffing:floor"),
                     v.internal_control)
    short = v.rule.split(":", 1)[-1].replace("-", " ")
    return Unmet(v.rule, v.clause, v.words, short, "the shift manager", reverse("staffing:floor"), v.internal_control)


class _Index:
    """Where each table's rows are in the floor (by position, so a sub-floor keeps the floor's order), and the tables
    each floorperson is over: a closed table's sub-floor is read from these, not by scanning the whole floor once per
    closed table (that was quadratic: a second for a 200-table floor, issue 27)."""

    def __init__(self, floor: Floor) -> None:
        self.floor = floor
        self.table_at = {t.id: n for n, t in enumerate(floor.tables)}
        self.staff_at: dict[int, list[int]] = defaultdict(list)
        self.cameras_at: dict[int, list[int]] = defaultdict(list)
        self.over: dict[int, set[int]] = defaultdict(set)
        for n, s in enumerate(floor.staff):
            self.staff_at[s.table_id].append(n)
            if s.position == FLOORPERSON:
                self.over[s.person_id].add(s.table_id)
        for n, c in enumerate(floor.cameras):
            self.cameras_at[c.table_id].append(n)

    def related(self, table_id: int) -> set[int]:
        """The tables the floorpersons of ``table_id`` are over."""
        related: set[int] = set()
        for n in self.staff_at.get(table_id, ()):
            s = self.floor.staff[n]
            if s.position == FLOORPERSON:
                related |= self.over[s.person_id]
        return related

    def sub_floor(self, keep: set[int]) -> Floor:
        """The floor of the tables ``keep`` only, in the floor's order."""
        floor = self.floor
        return Floor([floor.tables[n] for n in sorted(self.table_at[t] for t in keep if t in self.table_at)],
                     [floor.staff[n] for n in sorted(n for t in keep for n in self.staff_at.get(t, ()))],
                     [floor.cameras[n] for n in sorted(n for t in keep for n in self.cameras_at.get(t, ()))],
                     floor.floorperson_names)


def staffing_unmet(facility: Facility, tables: Sequence[GamingTable], at: datetime) -> dict[int, list[Unmet]]:
    closed = [t for t in tables if not t.is_open]
    floor = selectors.floor_at(facility, at, also=closed)
    rules = selectors.rules_in_force()
    found: dict[int, list[Unmet]] = {t.pk: [] for t in tables}
    open_ids = {t.id for t in floor.tables} - {t.pk for t in closed}
    whole = evaluate(Floor([t for t in floor.tables if t.id in open_ids], floor.staff, floor.cameras,
                           floor.floorperson_names), rules)
    for table in tables:
        if table.is_open:
            found[table.pk] = [_unmet(v) for v in whole.get(table.pk, [])]
    # A closed table: judged with the open tables only, as if it alone opened now (the open tables plus it). Only
    # its own floorpersons' other tables matter to its span, so the sub-floor is small.
    index = _Index(floor)
    for table in closed:
        verdict = evaluate(index.sub_floor((open_ids & index.related(table.pk)) | {table.pk}), rules)
        found[table.pk] = [_unmet(v) for v in verdict.get(table.pk, [])]
    return found


def staffing_override_consumer(table: GamingTable, at: datetime, user: Any, overridable: Sequence[Unmet]
                               ) -> list[str]:
    """A signed override of the gaming day for ``table`` meets its internal-control breaches; marked used now."""
    codes = [u.code for u in overridable if u.code == "cameras" or u.code.startswith(("staffing:", "span:"))]
    if not codes:
        return []
    override = selectors.unused_override(table, gaming_day(table.facility, at))
    if override is None:
        return []
    override.used_at = at
    override.save_unsigned_fields("used_at")
    return codes
