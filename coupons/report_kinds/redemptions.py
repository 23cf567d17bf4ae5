"""Coupons redeemed in a period by table, by game and by denomination, with a chart per gaming day (§ 525.22).

One aggregate (gaming day × table × game × denomination), folded into the three tables and the chart."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Any

from django.db.models import Count, Sum

from compliance.reports.content import Chart, ReportContent, Section, Series
from compliance.reports.kinds.common import day_label, dollars, zone_words
from compliance.reports.periods import Period
from compliance.reports.registry import ReportKind, register
from coupons.models import Redemption


def build(facility: Any, period: Period) -> ReportContent:
    groups = (
        Redemption.objects.filter(facility=facility, gaming_date__range=(period.start, period.end))
        .values_list("gaming_date", "table__number", "game__name", "denomination_cents")
        .annotate(n=Count("pk"), value=Sum("denomination_cents"))
        .order_by()
    )
    tables: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    games: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    denominations: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    per_day: dict[int, dict[Any, int]] = defaultdict(lambda: defaultdict(int))
    for day, table, game, cents, n, value in groups:
        for bucket in (tables[(table, game)], games[game], denominations[cents]):
            bucket[0] += n
            bucket[1] += value
        per_day[cents][day] += n
    days = [period.start + timedelta(days=i) for i in range(period.days)]
    coupons, value = sum(n for n, _ in games.values()), sum(v for _, v in games.values())
    return ReportContent(
        title="Match Play Coupon redemptions",
        citations=["525.22", "525.21(q)(6)"],
        period=period.label(),
        summary=[("Coupons redeemed", f"{coupons:,}"), ("Face value redeemed", dollars(value)),
                 ("Tables", str(len(tables))), ("Games", str(len(games)))],
        charts=[Chart("Coupons redeemed per gaming day, by denomination", [day_label(d) for d in days],
                      [Series(dollars(cents), [per_day[cents].get(d, 0) for d in days])
                       for cents in sorted(per_day)])],
        sections=[
            Section("By denomination", ["Denomination", "Coupons", "Face value"],
                    [[dollars(c), f"{n:,}", dollars(v)] for c, (n, v) in sorted(denominations.items())]),
            Section("By game", ["Game", "Coupons", "Face value"],
                    [[g, f"{n:,}", dollars(v)] for g, (n, v) in sorted(games.items())]),
            Section("By table", ["Table", "Game", "Coupons", "Face value"],
                    [[t, g, f"{n:,}", dollars(v)] for (t, g), (n, v) in sorted(tables.items())]),
        ],
        readings=["Every coupon redeemed at a table or cancelled at the drop-box count, by the gaming day it was "
                  f"redeemed on. The game is the table's game when the coupon was redeemed. {zone_words(facility)}."],
        figures={"coupons": coupons, "value_cents": value,
                 "by_denomination": [[c, n, v] for c, (n, v) in sorted(denominations.items())]},
    )


KIND = register(ReportKind(
    code="redemptions",
    title="Coupon redemptions by table, game and denomination",
    citations=("525.22", "525.21(q)(6)"),
    description="Coupons redeemed at the tables and at the count, by table, game and denomination, with a chart "
                "per gaming day.",
    build=build,
))
