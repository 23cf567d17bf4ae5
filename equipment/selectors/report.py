"""The equipment compliance report of a period: changes, on-time share, overdue incidents, reasons."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db.models import F, OuterRef, Q, Subquery
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
    # A change is counted when the new set goes into play (its placement), on the gaming day it was placed:
    # dice and decks put in play a minute ago are changes made today, not changes to come when they leave.
    dice_changes: int = 0
    deck_changes: int = 0
    on_time: int = 0
    incidents: list[OverdueIncident] = field(default_factory=list)
    forced_by_reason: list[tuple[str, int]] = field(default_factory=list)
    # Why sets left play in the period (every removal, forced or not).
    removals_by_reason: list[tuple[str, int]] = field(default_factory=list)
    # Per gaming day of the placement: [changes on time, changes late] (the chart of the report).
    changes_by_day: dict[date, list[int]] = field(default_factory=dict)

    citation = ("577.4(d)", "675a.3(b)(1)", "668a.3(a)–(d)", "539.2(a)–(b)", "575.2(c)(1)(i)", "575.3(c)(1)–(2)")

    @property
    def changes(self) -> int:
        return self.dice_changes + self.deck_changes

    @property
    def on_time_percent(self) -> Decimal | None:
        """Share of changes made no later than the replaced set's due time; exact decimal, one place."""
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
            ("Dice changes made (sets put in play)", str(self.dice_changes)),
            ("Deck changes made (decks put in play)", str(self.deck_changes)),
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


def _placements(set_model: type[DiceSet] | type[DeckSet], facility: Facility, begin: datetime, finish: datetime
                ) -> list[tuple[datetime, datetime | None, datetime | None]]:
    """``(placed_at, replaced set's removed_at, replaced set's due_at)`` of each set put in play in the period (one
    query): the set replaced is the one placed last before it at the same table (``None`` for a table's first).
    A corrected set counts once, as its correction (which keeps the placement and removal times)."""
    current = set_model.objects.filter(corrected_by__isnull=True)
    replaced = current.filter(table_id=OuterRef("table_id"), placed_at__lt=OuterRef("placed_at")).order_by("-placed_at")
    return list(
        current.filter(facility=facility, placed_at__gte=begin, placed_at__lt=finish)
        .annotate(replaced_removed_at=Subquery(replaced.values("removed_at")[:1]),
                  replaced_due_at=Subquery(replaced.values("due_at")[:1]))
        .values_list("placed_at", "replaced_removed_at", "replaced_due_at")
    )


def equipment_report(facility: Facility, start: date, end: date, *, now: datetime | None = None) -> EquipmentReport:
    """Changes made, on-time share, overdue incidents with durations, forced changes by reason.

    A change is counted when the new set goes into play (its placement), on the gaming day of the placement.
    It is on time when the set it replaced left play no later than its due time (24:00:00 in play is on
    time); a table's first set replaces none and is on time. Removals are grouped by reason (forced ones apart).

    An overdue incident is a set kept past its due time while its table was open for gaming
    (a set left in a closed table is not in use); its duration is that overlap, within the period.
    For the dice of games whose clock runs while closed (``clock_runs_while_closed``) the whole time
    past the limit counts. Records superseded by a correction are left out (the correction counts).
    """
    now = now or timezone.now()
    begin, finish = _period(facility, start, end)
    report = EquipmentReport(facility=facility, start=start, end=end, generated_at=now)
    for set_model in (DiceSet, DeckSet):
        placed = _placements(set_model, facility, begin, finish)
        for placed_at, replaced_removed_at, replaced_due_at in placed:
            # On time unless the set it replaced stayed in play past its due time (24:00:00 is on time); the
            # first set at a table replaces none.
            on_time = replaced_due_at is None or (replaced_removed_at or placed_at) <= replaced_due_at
            report.on_time += on_time
            tally = report.changes_by_day.setdefault(gaming_day(facility, placed_at), [0, 0])
            tally[0 if on_time else 1] += 1
        if set_model is DiceSet:
            report.dice_changes = len(placed)
        else:
            report.deck_changes = len(placed)
    reasons: Counter[str] = Counter()
    for removal_model in (DiceRemoval, DeckRemoval):
        # A corrected removal is counted once, as its correction says.
        reasons.update(removal_model.objects.filter(
            facility=facility, removed_at__gte=begin, removed_at__lt=finish, corrected_by__isnull=True
        ).values_list("reason", flat=True))
    labels = dict(RemovalReason.choices)
    report.removals_by_reason = [(labels[r], n) for r, n in reasons.most_common()]
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
