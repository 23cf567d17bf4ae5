"""An extract of the audit trail: every change in the facility in the period, who made it, when, and what
changed, in words (§ 525.21(r)(1): a computerized system keeps an audit trail equivalent to the paper one).

Rows whose keyed seal no longer matches (changed outside the application) are marked, as on the audit page.
Three queries: the events with their people, the seal check, nothing per row."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Any

from django.utils import timezone

from compliance import selectors
from compliance.chain import altered_ids, integrity_cell
from compliance.gaming_day import facility_zone, gaming_day
from compliance.models import AuditEvent
from compliance.reports.content import Chart, ReportContent, Section, Series
from compliance.reports.kinds.common import day_label, instants, local, zone_words
from compliance.reports.periods import Period
from compliance.reports.registry import ReportKind, register
from compliance.roles import Capability

MAX_EVENTS = 200_000  # an extract a PDF can hold within the job's time limit


def _changes(event: AuditEvent) -> str:
    words = []
    for line in event.change_lines():
        if line.kind == "m2m":
            words.append(f"{line.label}: +{', '.join(line.added) or '—'} −{', '.join(line.removed) or '—'}")
        elif line.kind == "fact":
            words.append(f"{line.label}: {line.value}")
        else:
            words.append(f"{line.label}: {line.old or '—'} → {line.new or '—'}")
    return "; ".join(words)


def build(facility: Any, period: Period) -> ReportContent:
    begin, finish = instants(facility, period)
    chosen = selectors.audit_events(facility=facility).filter(occurred_at__gte=begin, occurred_at__lt=finish)
    if chosen.count() > MAX_EVENTS:
        from django.core.exceptions import ValidationError

        raise ValidationError(f"The period holds more than {MAX_EVENTS:,} changes: choose a shorter period for the "
                              "extract (the audit page and its CSV export filter by day, person and record).")
    events = list(chosen.order_by("occurred_at", "pk"))
    altered = altered_ids(AuditEvent, [e.pk for e in events])
    per_day: dict[str, dict[Any, int]] = defaultdict(lambda: defaultdict(int))
    for event in events:
        per_day[event.get_action_display()][gaming_day(facility, event.occurred_at)] += 1
    days = [period.start + timedelta(days=i) for i in range(period.days)]
    # A time among the changed values reads on the facility's clock too (the job runs in the server's zone).
    with timezone.override(facility_zone(facility)):
        rows = [[local(facility, e.occurred_at), e.actor_words(), e.changes["event"] if e.is_account_event
                 else e.get_action_display(), e.model_name, e.object_repr, _changes(e), e.reason,
                 integrity_cell(e.pk in altered)] for e in events]
    return ReportContent(
        title="Audit trail extract",
        citations=["525.21(r)(1)"],
        period=period.label(),
        landscape=True,
        summary=[("Changes recorded", f"{len(events):,}"), ("Rows altered since sealed", str(len(altered))),
                 *[(f"{action}", f"{sum(n.values()):,}") for action, n in sorted(per_day.items())]],
        charts=[Chart("Changes per gaming day, by action", [day_label(d) for d in days],
                      [Series(action, [n.get(d, 0) for d in days]) for action, n in sorted(per_day.items())])],
        sections=[Section("Every change in the period",
                          ["When", "Who", "Action", "Record type", "Record", "What changed", "Reason", "Integrity"],
                          rows, widths=[1.0, 1.4, 0.7, 1.1, 1.4, 2.8, 1.0, 0.8])],
        readings=["Every change to the facility's records, and to the shared registers every facility uses, from "
                  "the start of the first gaming day to the start of the day after the last, with the person who "
                  f"made it (the system for scheduled work). {zone_words(facility)}.",
                  "Integrity: a row marked 'altered since signed' no longer matches the keyed seal it was given "
                  "when written."],
        figures={"events": len(events), "altered": len(altered)},
    )


KIND = register(ReportKind(
    code="audit-extract",
    title="Audit trail extract",
    citations=("525.21(r)(1)",),
    description="Every change in the period: who, when, what changed in words, and whether the row still "
                "matches its seal.",
    build=build,
    capability=Capability.VIEW_AUDIT,
    max_days=31,
    live=False,  # a month of changes is hundreds of thousands of rows at casino scale: produced by a job only
))
