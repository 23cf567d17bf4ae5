"""Staffing and surveillance's part of a table's readiness (``compliance.readiness``): the rules engine's verdict
on the floor at the instant. An open table is judged as it stands; a closed one as if it opened now beside the
open ones (the span of its floorpersons counts it). A fixed number of queries for any number of tables.

Only a rule of the facility's own internal controls (``internal_control``) may be met by a shift manager's
signed override: every rule of § 577.9 is a regulation's and admits no exception.
"""

from __future__ import annotations

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


def _sub_floor(floor: Floor, table: Any, open_ids: set[int]) -> Floor:
    """The open tables plus ``table``, as if it opened now (its floorpersons' span counts it)."""
    keep = open_ids | {table.pk}
    return Floor([t for t in floor.tables if t.id in keep], [s for s in floor.staff if s.table_id in keep],
                 [c for c in floor.cameras if c.table_id in keep], floor.floorperson_names)


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
    # A closed table: judged with the open tables only, as if it alone opened now. Only its own floorpersons'
    # other tables matter to its span, so the sub-floor is small.
    for table in closed:
        supervisors = {s.person_id for s in floor.staff if s.table_id == table.pk and s.position == FLOORPERSON}
        related = {s.table_id for s in floor.staff if s.person_id in supervisors and s.position == FLOORPERSON}
        verdict = evaluate(_sub_floor(floor, table, open_ids & related), rules)
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
