"""The staffing and surveillance report of a period (§ 577.9): every violation period and every override, as
plain data for the page, the CSV and the PDF (:mod:`compliance.staffing.report_render`).

A period is the gaming days ``start`` to ``end`` on the facility's clock. A violation period is listed when it
overlaps them; its duration is the part inside them (an ongoing one counts up to now). An override is listed
when it was given inside them. Four queries however many rows: the periods with their tables, games and
overrides; the overrides' signatures; the overrides of the period; their signatures.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from django.db.models import Prefetch, Q
from django.utils import timezone

from compliance.gaming_day import day_bounds
from compliance.models import Facility, Signature
from compliance.staffing.models import StaffingOverride, ViolationPeriod

__all__ = ["ClauseTotal", "OverrideRow", "StaffingReport", "ViolationRow", "minutes_text", "staffing_report"]

SIGNING_SLOT = "shift_manager"


def minutes_text(span: timedelta) -> str:
    """Whole minutes, rounded half up (a violation of 29.5 s is 0 min, of 30 s 1 min)."""
    return str(whole_minutes(span))


def whole_minutes(span: timedelta) -> int:
    return int((span.total_seconds() + 30) // 60)


def _rule_label(rule: str) -> str:
    if rule == "cameras":
        return "Cameras"
    if rule.startswith("span:"):
        return "Floorperson's span"
    if rule.startswith("staffing:"):
        return "Staffing"
    return rule


@dataclass(frozen=True)
class ViolationRow:
    table: str
    game: str
    rule: str  # the rule's code, e.g. "staffing:three-dealers"
    clause: str
    words: str
    started_at: datetime
    ended_at: datetime | None  # None: still broken when the report was made
    within_period: timedelta  # the part of the violation inside the report's period
    override_id: int | None = None
    override_signer: str = ""

    @property
    def rule_label(self) -> str:
        return _rule_label(self.rule)

    @property
    def ongoing(self) -> bool:
        return self.ended_at is None

    @property
    def minutes(self) -> int:
        return whole_minutes(self.within_period)

    @property
    def override_text(self) -> str:
        if self.override_id is None:
            return ""
        return f"Override #{self.override_id}" + (f", {self.override_signer}" if self.override_signer else "")


@dataclass(frozen=True)
class OverrideRow:
    id: int
    table: str
    gaming_date: date
    violations: str  # the rules broken when it was given, in words
    reason: str
    signer: str  # the shift manager's printed name; empty if not signed
    signed_at: datetime | None
    created_at: datetime
    used_at: datetime | None  # when the table opened under it; None: not used


@dataclass(frozen=True)
class ClauseTotal:
    clause: str
    count: int
    total: timedelta

    @property
    def minutes(self) -> int:
        return whole_minutes(self.total)


@dataclass
class StaffingReport:
    facility: Facility
    start: date
    end: date
    generated_at: datetime
    violations: list[ViolationRow] = field(default_factory=list)
    overrides: list[OverrideRow] = field(default_factory=list)

    citation = ("577.9(a)", "577.9(b)", "577.9(c)")

    @property
    def by_clause(self) -> list[ClauseTotal]:
        counts: dict[str, int] = defaultdict(int)
        totals: dict[str, timedelta] = defaultdict(timedelta)
        for row in self.violations:
            counts[row.clause] += 1
            totals[row.clause] += row.within_period
        return [ClauseTotal(clause, counts[clause], totals[clause]) for clause in sorted(counts)]

    @property
    def total(self) -> timedelta:
        return sum((row.within_period for row in self.violations), timedelta(0))

    @property
    def ongoing(self) -> int:
        return sum(row.ongoing for row in self.violations)

    @property
    def overrides_used(self) -> int:
        return sum(row.used_at is not None for row in self.overrides)

    def summary_rows(self) -> list[tuple[str, str]]:
        return [
            ("Period", f"{self.start:%d %b %Y} – {self.end:%d %b %Y} (gaming days)"),
            ("Violation periods", str(len(self.violations))),
            ("Still ongoing", str(self.ongoing)),
            ("Minutes in violation", minutes_text(self.total)),
            ("Overrides given", str(len(self.overrides))),
            ("Overrides used to open a table", str(self.overrides_used)),
        ]


def _period(facility: Facility, start: date, end: date) -> tuple[datetime, datetime]:
    """From the start of the first gaming day to the end of the last, on the facility's clock."""
    return day_bounds(facility, start)[0], day_bounds(facility, end)[1]


def _overlap(a: tuple[datetime, datetime], b: tuple[datetime, datetime]) -> timedelta:
    begin, finish = max(a[0], b[0]), min(a[1], b[1])
    return finish - begin if finish > begin else timedelta(0)


def _signature(override: Any) -> Signature | None:
    # Prefetched: filtering the queryset here would query again, once per override.
    return next((s for s in override.signatures.all() if s.slot == SIGNING_SLOT), None)


def _signatures(lookup: str = "signatures") -> Prefetch:
    return Prefetch(lookup, queryset=Signature.objects.filter(slot=SIGNING_SLOT).order_by("pk"))


def staffing_report(facility: Facility, start: date, end: date, *, now: datetime | None = None) -> StaffingReport:
    """The violation periods overlapping the gaming days ``start`` to ``end`` and the overrides given in them."""
    now = now or timezone.now()
    begin, finish = _period(facility, start, end)
    report = StaffingReport(facility=facility, start=start, end=end, generated_at=now)
    periods = (
        ViolationPeriod.objects.filter(facility=facility, started_at__lt=finish)
        # A period that ended inside (or exactly at the start of, when it lasted no time) the period.
        .filter(Q(ended_at__isnull=True) | Q(ended_at__gt=begin) | Q(started_at__gte=begin))
        .select_related("table__game", "override")
        .prefetch_related(_signatures("override__signatures"))
        .order_by("started_at", "table__number", "rule")
    )
    for p in periods:
        signature = _signature(p.override) if p.override is not None else None
        report.violations.append(ViolationRow(
            table=p.table.number, game=p.table.game.name, rule=p.rule, clause=p.clause, words=p.words,
            started_at=p.started_at, ended_at=p.ended_at,
            within_period=_overlap((p.started_at, p.ended_at or max(now, p.started_at)), (begin, finish)),
            override_id=p.override_id, override_signer=signature.printed_name if signature else "",
        ))
    overrides = (
        StaffingOverride.objects.filter(facility=facility, created_at__gte=begin, created_at__lt=finish)
        .select_related("table").prefetch_related(_signatures()).order_by("created_at", "pk")
    )
    for o in overrides:
        signature = _signature(o)
        words = " ".join(str(v.get("words", "")) for v in o.violations or [] if isinstance(v, dict))
        report.overrides.append(OverrideRow(
            id=o.pk, table=o.table.number, gaming_date=o.gaming_date, violations=words, reason=o.reason,
            signer=signature.printed_name if signature else "", signed_at=signature.signed_at if signature else None,
            created_at=o.created_at, used_at=o.used_at,
        ))
    return report
