"""The equipment compliance report of a period: changes, on-time share, overdue incidents, reasons."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db.models import F, Q
from django.utils import timezone

from compliance.gaming_day import day_bounds, gaming_day
from compliance.models import Facility
from equipment.clocks import format_duration
from equipment.models import DeckRemoval, DeckSet, DiceRemoval, DiceSet, RemovalReason, TableSession

__all__ = ["EquipmentReport", "OverdueIncident", "equipment_report"]


@dataclass(frozen=True)
class OverdueIncident:
    table: str
    kind: str
    placed_at: datetime
    due_at: datetime
    ended_at: datetime | None  # removal, or None while still in play
    overdue_open_for: timedelta  # time overdue while the table was open for gaming

    @property
    def duration_text(self) -> str:
        return format_duration(self.overdue_open_for)


@dataclass
class EquipmentReport:
    facility: Facility
    start: date
    end: date
    generated_at: datetime
    dice_changes: int = 0
    deck_changes: int = 0
    on_time: int = 0
    incidents: list[OverdueIncident] = field(default_factory=list)
    forced_by_reason: list[tuple[str, int]] = field(default_factory=list)
    changes_by_reason: list[tuple[str, int]] = field(default_factory=list)
    # Per gaming day of the removal: [changes on time, changes late] (the chart of the report).
    changes_by_day: dict[date, list[int]] = field(default_factory=dict)

    citation = ("577.4(d)", "675a.3(b)(1)", "668a.3(a)–(d)", "539.2(a)–(b)", "575.2(c)(1)(i)", "575.3(c)(1)–(2)")

    @property
    def changes(self) -> int:
        return self.dice_changes + self.deck_changes

    @property
    def on_time_percent(self) -> Decimal | None:
        """Share of changes logged no later than the set's due time; exact decimal, one place."""
        if not self.changes:
            return None
        return (Decimal(100 * self.on_time) / Decimal(self.changes)).quantize(Decimal("0.1"), ROUND_HALF_UP)

    @property
    def total_overdue(self) -> timedelta:
        return sum((i.overdue_open_for for i in self.incidents), timedelta(0))

    def summary_rows(self) -> list[tuple[str, str]]:
        pct = self.on_time_percent
        return [
            ("Period", f"{self.start:%d %b %Y} – {self.end:%d %b %Y}"),
            ("Dice changes made", str(self.dice_changes)),
            ("Deck changes made", str(self.deck_changes)),
            ("Changes on time", f"{self.on_time} of {self.changes}"),
            ("On-time percentage", "—" if pct is None else f"{pct}%"),
            ("Overdue incidents", str(len(self.incidents))),
            ("Total time overdue while open", format_duration(self.total_overdue)),
            ("Forced changes", str(sum(n for _, n in self.forced_by_reason))),
        ]


def _period(facility: Facility, start: date, end: date) -> tuple[datetime, datetime]:
    """From the start of the first gaming day to the end of the last, on the facility's clock."""
    return day_bounds(facility, start)[0], day_bounds(facility, end)[1]


def _overlap(a: tuple[datetime, datetime], b: tuple[datetime, datetime]) -> timedelta:
    start, end = max(a[0], b[0]), min(a[1], b[1])
    return end - start if end > start else timedelta(0)


def equipment_report(facility: Facility, start: date, end: date, *, now: datetime | None = None) -> EquipmentReport:
    """Changes made, on-time share, overdue incidents with durations, forced changes by reason.

    A change is on time when the set left play no later than its due time (24:00:00 in play is on
    time). An overdue incident is a set kept past its due time while its table was open for gaming
    (a set left in a closed table is not in use); its duration is that overlap, within the period.
    For the dice of games whose clock runs while closed (``clock_runs_while_closed``) the whole time
    past the limit counts. Records superseded by a correction are left out (the correction counts).
    """
    now = now or timezone.now()
    begin, finish = _period(facility, start, end)
    report = EquipmentReport(facility=facility, start=start, end=end, generated_at=now)
    reasons: Counter[str] = Counter()
    for removal_model, set_field in ((DiceRemoval, "dice_set"), (DeckRemoval, "deck_set")):
        # A corrected removal is counted once, as its correction says.
        removals = removal_model.objects.filter(
            facility=facility, removed_at__gte=begin, removed_at__lt=finish, corrected_by__isnull=True
        ).values_list("reason", "removed_at", f"{set_field}__due_at")
        count = 0
        for reason, removed_at, due_at in removals:
            count += 1
            reasons[reason] += 1
            report.on_time += removed_at <= due_at
            tally = report.changes_by_day.setdefault(gaming_day(facility, removed_at), [0, 0])
            tally[0 if removed_at <= due_at else 1] += 1
        if set_field == "dice_set":
            report.dice_changes = count
        else:
            report.deck_changes = count
    labels = dict(RemovalReason.choices)
    report.changes_by_reason = [(labels[r], n) for r, n in reasons.most_common()]
    report.forced_by_reason = [(labels[r], n) for r, n in reasons.most_common() if r in RemovalReason.forced()]

    horizon = min(now, finish)
    # A corrected set is one incident: the correction (a copy with its removal time) stands for it.
    late = Q(facility=facility, due_at__lt=horizon, corrected_by__isnull=True) & (
        Q(removed_at__isnull=True, due_at__lt=now) | (Q(removed_at__gt=begin) & Q(removed_at__gt=F("due_at")))
    )
    candidates: list[tuple[str, Any]] = [
        ("Dice", s)
        for s in DiceSet.objects.filter(late)
        .select_related("table")
        .annotate(runs_while_closed=F("table__game__equipment_requirement__clock_runs_while_closed"))
    ]
    candidates += [("Cards", s) for s in DeckSet.objects.filter(late).select_related("table")]
    if candidates:
        sessions: dict[int, list[tuple[datetime, datetime]]] = {}
        for table_id, opened, closed in TableSession.objects.filter(
            table_id__in={s.table_id for _, s in candidates}, opened_at__lt=horizon
        ).values_list("table_id", "opened_at", "closed_at"):
            sessions.setdefault(table_id, []).append((opened, closed or now))
        for kind, item in candidates:
            overdue = (max(item.due_at, begin), min(item.removed_at or now, horizon))
            if getattr(item, "runs_while_closed", False):
                # § 675a.3(b)(1), § 668a.3(b)(1), § 575.2(c)(1)(i): the dice "may not remain on a table for
                # more than 24 hours", open or closed: every minute past the limit counts.
                open_for = _overlap(overdue, overdue)
            else:
                open_for = sum((_overlap(overdue, s) for s in sessions.get(item.table_id, [])), timedelta(0))
            if open_for > timedelta(0):
                report.incidents.append(
                    OverdueIncident(item.table.number, kind, item.placed_at, item.due_at, item.removed_at, open_for)
                )
    report.incidents.sort(key=lambda i: (i.due_at, i.table))
    return report
