"""Demo data for the reports: a few coupons redeemed today at the demo's craps table (through the redemption
service), the quarterly report of the last quarter as the schedule makes it, and this month's redemptions."""

from __future__ import annotations

from django.db import transaction

from compliance.actors import acting_as
from compliance.gaming_day import gaming_day
from compliance.models import Facility, GamingTable
from compliance.reports import services
from compliance.reports.models import ReportRun
from compliance.reports.periods import month_of
from compliance.roles import Role
from compliance.selectors import people_holding

__all__ = ["reports_demo_seed"]


def _redeem_some(facility: Facility) -> int:
    from coupons.models import CouponSeries, Redemption
    from coupons.redemption_rules import Refusal
    from coupons.services.redemption import Scan, redemption_record

    series = CouponSeries.objects.filter(facility=facility).order_by("pk").first()
    table = GamingTable.objects.filter(facility=facility, game__code="craps").order_by("pk").first()
    dealer = people_holding(facility, [Role.DEALER]).order_by("pk").first()
    if series is None or table is None or dealer is None or Redemption.objects.filter(facility=facility).exists():
        return 0
    redeemed = 0
    for serial in range(100_001, 100_025):
        try:
            redemption_record(facility=facility, user=dealer, scan=Scan(
                serial=series.serial(serial), table=table, position="pass_line" if serial % 3 else "dont_pass",
                chips_cents=series.denomination_cents + (serial % 4) * 500))
        except Refusal:
            continue
        redeemed += 1
    return redeemed


@transaction.atomic
def reports_demo_seed(*, facility: Facility) -> int:
    """Idempotent: nothing when the facility already has report runs. Returns the runs made."""
    if ReportRun.objects.filter(facility=facility).exists():
        return 0
    _redeem_some(facility)
    officer = people_holding(facility, [Role.COMPLIANCE_OFFICER]).order_by("pk").first()
    made = len(services.quarterly_reports_schedule())
    if officer is not None:
        with acting_as(officer):
            month = month_of(gaming_day(facility))
            services.run_request(facility=facility, kind="redemptions", start=month.start, end=gaming_day(facility),
                                 user=officer)
            made += 1
    return made
