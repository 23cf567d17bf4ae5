"""The coupon reconciliation report of a period: finance's daily variances (§ 525.21(m)), the exception
reports and their resolution, the monthly inventories and their discrepancies (§ 525.21(n)), and the
deviation reports of shipments (§ 525.21(e)). Four queries however long the period."""

from __future__ import annotations

from collections import Counter
from typing import Any

from compliance.people import person_name
from compliance.reports.content import Chart, ReportContent, Section, Series
from compliance.reports.kinds.common import day_label, instants, local, zone_words
from compliance.reports.periods import Period
from compliance.reports.registry import ReportKind, register
from coupons.models import CouponInventory, DeviationReport, ExceptionReport, FinanceDayProcessing


def build(facility: Any, period: Period) -> ReportContent:
    begin, finish = instants(facility, period)
    days = list(
        FinanceDayProcessing.objects.filter(facility=facility, gaming_date__range=(period.start, period.end),
                                            corrected_by__isnull=True)
        .select_related("exception_report").order_by("gaming_date")
    )
    exceptions = list(
        ExceptionReport.objects.filter(facility=facility, gaming_date__range=(period.start, period.end))
        .select_related("resolved_by__profile").order_by("gaming_date", "pk")
    )
    inventories = list(
        CouponInventory.objects.filter(facility=facility, gaming_date__range=(period.start, period.end),
                                       corrected_by__isnull=True)
        .select_related("exception_report").order_by("gaming_date")
    )
    deviations = list(
        DeviationReport.objects.filter(facility=facility, created_at__gte=begin, created_at__lt=finish)
        .select_related("receipt").order_by("created_at")
    )
    status: Counter[str] = Counter(e.get_status_display() for e in exceptions)

    def exception_words(record: Any) -> str:
        report = getattr(record, "exception_report", None)
        return f"#{report.pk} ({report.get_status_display().lower()})" if report else ""

    return ReportContent(
        title="Match Play Coupon reconciliation",
        citations=["525.21(m)(1)", "525.21(n)", "525.21(e)"],
        period=period.label(),
        landscape=True,
        summary=[
            ("Gaming days processed by finance", f"{len(days)} of {period.days}"),
            ("Days with a variance", str(sum(1 for d in days if d.variance))),
            ("Exception reports", ", ".join(f"{n} {s.lower()}" for s, n in sorted(status.items())) or "none"),
            ("Monthly inventories", str(len(inventories))),
            ("Inventories with a discrepancy", str(sum(1 for i in inventories if i.discrepancy))),
            ("Shipment deviation reports", str(len(deviations))),
        ],
        charts=[Chart("Finance's daily variance (coupons)", [day_label(d.gaming_date) for d in days],
                      [Series("Variance", [abs(d.variance) for d in days])])],
        sections=[
            Section("Daily processing by finance (§ 525.21(m))",
                    ["Gaming day", "Given to marketing", "Distributed", "Returned / counted", "Voided / counted",
                     "Redeemed / counted", "Variance", "Exception report"],
                    [[f"{d.gaming_date:%Y-%m-%d}", str(d.given_to_marketing), str(d.distributed),
                      f"{d.returned} / {d.counted_returned}", f"{d.voided} / {d.counted_voided}",
                      f"{d.redeemed} / {d.counted_redeemed}", str(d.variance), exception_words(d)] for d in days],
                    note="Processed days only; a gaming day missing here has not been processed."),
            Section("Exception reports and their resolution",
                    ["#", "Gaming day", "Found by", "Variance", "Due", "Status", "Resolution", "Resolved"],
                    [[str(e.pk), f"{e.gaming_date:%Y-%m-%d}", e.source_words, str(e.variance), f"{e.due_on:%Y-%m-%d}",
                      e.get_status_display(), e.resolution,
                      (f"{local(facility, e.resolved_at)} by {person_name(e.resolved_by)}" if e.resolved_at else "")]
                     for e in exceptions],
                    widths=[0.4, 0.9, 1.6, 0.7, 0.9, 0.8, 2.4, 1.6]),
            Section("Monthly inventories (§ 525.21(n))", ["Gaming day", "Discrepancy (counted − expected)",
                                                           "Exception report"],
                    [[f"{i.gaming_date:%Y-%m-%d}", str(i.discrepancy), exception_words(i)] for i in inventories]),
            Section("Shipment deviation reports (§ 525.21(e))",
                    ["#", "Reported", "Receipt", "Description", "Status", "Resolution"],
                    [[str(r.pk), local(facility, r.created_at), f"#{r.receipt_id}", r.description,
                      r.get_status_display(), r.resolution] for r in deviations],
                    widths=[0.4, 1.2, 0.7, 3.2, 0.8, 2.4]),
        ],
        readings=["Corrected records are shown as their corrections say. Deviation reports are listed by when they "
                  f"were raised; everything else by its gaming day. {zone_words(facility)}."],
        figures={"days_processed": len(days), "exceptions": len(exceptions), "inventories": len(inventories),
                 "deviations": len(deviations)},
    )


KIND = register(ReportKind(
    code="coupon-reconciliation",
    title="Coupon reconciliation",
    citations=("525.21(m)(1)", "525.21(n)", "525.21(e)"),
    description="Finance's daily variances, exception reports and their resolution, monthly inventories and "
                "their discrepancies, shipment deviation reports.",
    build=build,
))
