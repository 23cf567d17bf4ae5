"""The quarterly Match Play Coupon report to the Bureau of Casino Compliance, § 525.21(o).

"Each certificate holder shall prepare and file with the Bureau of Casino Compliance a quarterly report which
lists, by denomination of Match Play Coupon, the total value of the coupons redeemed by patrons."

The figures are one SQL aggregate over the redemptions of the quarter's gaming days (index
``coupon_redemption_day``): per denomination and channel, the number and the total face value.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import connection

from compliance.numbers import how_many
from compliance.reports.content import ReportContent, Section
from compliance.reports.kinds.common import dollars, zone_words
from compliance.reports.periods import Period, previous_quarter
from compliance.reports.registry import ReportKind, register

__all__ = ["FIGURES_SQL", "quarterly_figures"]

# One aggregate: the face value of every coupon redeemed by a patron on a gaming day of the quarter.
FIGURES_SQL = (
    "SELECT denomination_cents, channel, count(*), sum(CAST(denomination_cents AS bigint)) FROM coupons_redemption "
    "WHERE facility_id = %s AND gaming_date BETWEEN %s AND %s GROUP BY denomination_cents, channel"
)


def quarterly_figures(facility: Any, period: Period) -> list[tuple[int, str, int, int]]:
    """(denomination in cents, channel, coupons, total value in cents) for the period's gaming days."""
    with connection.cursor() as cursor:
        cursor.execute(FIGURES_SQL, [facility.pk, period.start, period.end])
        return [(int(d), str(c), int(n), int(v)) for d, c, n, v in cursor.fetchall()]


def build(facility: Any, period: Period) -> ReportContent:
    by_denomination: dict[int, dict[str, int]] = {}
    for cents, channel, count, value in quarterly_figures(facility, period):
        row = by_denomination.setdefault(cents, {"table": 0, "count": 0, "coupons": 0, "value": 0})
        row[channel] = row.get(channel, 0) + count
        row["coupons"] += count
        row["value"] += value
    rows = [[dollars(cents), f"{r['table']:,}", f"{r['count']:,}", f"{r['coupons']:,}", dollars(r["value"])]
            for cents, r in sorted(by_denomination.items())]
    coupons = sum(r["coupons"] for r in by_denomination.values())
    value = sum(r["value"] for r in by_denomination.values())
    rows.append(["Total", f"{sum(r['table'] for r in by_denomination.values()):,}",
                 f"{sum(r['count'] for r in by_denomination.values()):,}", f"{coupons:,}", dollars(value)])
    return ReportContent(
        title="Quarterly report of Match Play Coupons redeemed",
        citations=["525.21(o)"],
        period=period.label(),
        summary=[("Coupons redeemed by patrons", f"{coupons:,}"), ("Total value redeemed", dollars(value)),
                 ("Denominations", str(len(by_denomination)))],
        sections=[Section(
            "Coupons redeemed by patrons, by denomination",
            ["Denomination", "Scanned at the tables", "Cancelled at the count", "Coupons redeemed", "Total value"],
            rows, widths=[1.2, 1.3, 1.3, 1.2, 1.4],
        )],
        readings=[
            "Redeemed by patrons: every coupon honoured on a wager at a gaming table (§ 525.22) — electronically "
            "cancelled when scanned there, or at the drop-box count for a table without a scanner "
            "(§ 525.21(q)(6)). A coupon is counted once: the database allows one redemption per coupon.",
            "Value: the face value the coupon states (its denomination, § 525.21(c)(2)), not the chips wagered "
            "with it nor what a winning wager paid.",
            f"The quarter is its calendar months' gaming days. {zone_words(facility)}: a coupon redeemed before "
            "that hour belongs to the previous gaming day, and so to the previous quarter on the quarter's "
            "first morning.",
        ],
        figures={"by_denomination": [[c, r["coupons"], r["value"]] for c, r in sorted(by_denomination.items())],
                 "coupons": coupons, "value_cents": value},
    )


def ready(facility: Any, period: Period, today: Any) -> bool:
    """Finance has processed the quarter's last gaming day (its drop boxes are counted the next morning, and
    coupons cancelled there are dated to it), or a week has passed since the quarter ended."""
    from coupons.selectors import closed_days

    processed = closed_days(facility).last_processed
    return (processed is not None and processed >= period.end) or today >= period.end + timedelta(days=7)


def closed_before(facility: Any, period: Period, instant: datetime) -> bool:
    """Finance had processed a gaming day on or after the quarter's last before ``instant``, so the quarter's
    redemptions were final by then. From that processing on the database refuses every redemption of a day on or
    before it (``coupon_day_closed``: coupons migrations 0024 on SQLite, 0031 on PostgreSQL), and every redemption
    recorded before it had committed (the processing holds the facility's exclusive lock, which waits for every
    scan's share lock, § 525.21(m)); redemptions are append-only. A version produced afterwards holds the figures
    for good."""
    from coupons.models import FinanceDayProcessing

    return FinanceDayProcessing.objects.filter(facility=facility, gaming_date__gte=period.end,
                                               created_at__lt=instant).exists()


def stale(facility: Any, period: Period, figures: dict[str, Any], produced_from: datetime | None = None) -> str:
    """The records' figures now against the version's: one aggregate, unless the quarter was closed before the
    version began (:func:`closed_before`: one indexed read, where the aggregate reads every redemption of the
    quarter — 0.9 s at 5,000,000 — on each view of the version's page)."""
    if produced_from is not None and closed_before(facility, period, produced_from):
        return ""
    now: dict[int, list[int]] = {}
    for cents, _channel, count, value in quarterly_figures(facility, period):
        row = now.setdefault(cents, [cents, 0, 0])
        row[1] += count
        row[2] += value
    if [list(r) for r in sorted(now.values())] == [list(r) for r in figures.get("by_denomination", [])]:
        return ""
    coupons = sum(r[1] for r in now.values())
    return (f"The records changed since this version was produced: {how_many(coupons)} redeemed in the quarter now, "
            f"{figures.get('coupons', 0):,} in this version.")


KIND = register(ReportKind(
    code="quarterly-coupons",
    title="Quarterly Match Play Coupon report",
    citations=("525.21(o)",),
    description="By denomination, the number and total value of the coupons redeemed by patrons in the quarter; "
                "prepared, approved and filed with the Bureau of Casino Compliance.",
    build=build,
    default_period=previous_quarter,
    quarters_only=True,
    scheduled_quarterly=True,
    signed=True,
    filed=True,
    max_days=92,
    ready=ready,
    stale=stale,
))
