"""Demo data for the coupon ledger: an approved program, a series, storage and a gaming day in progress."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction

from compliance.actors import acting_as
from compliance.demo import demo_person, signing_passwords
from compliance.gaming_day import gaming_day
from compliance.models import Facility, Game, GamingTable
from compliance.reports.periods import month_of
from compliance.reports.services import run_request
from compliance.roles import Role
from compliance.selectors import people_holding
from compliance.services import signature_sign
from coupons import services
from coupons.models import CouponProgram, CouponSeries, Redemption
from coupons.redemption_rules import Refusal
from coupons.services.redemption import Scan, redemption_record

__all__ = ["coupons_demo_seed", "redemptions_demo_seed"]


_person = demo_person


@transaction.atomic
def coupons_demo_seed(*, facility: Facility) -> CouponSeries | None:
    """Idempotent: does nothing when the facility already has a series. Needs the foundation's demo people.

    Signatures need passwords: the demo people sign with a throwaway one (``compliance.demo.signing_passwords``).
    """
    if CouponSeries.objects.filter(facility=facility).exists():
        return None
    roles = [Role.COMPLIANCE_OFFICER, Role.FINANCE_SUPERVISOR, Role.FINANCE_STAFF, Role.MARKETING_SUPERVISOR,
             Role.MARKETING_STAFF]
    people = {role: _person(facility, role) for role in roles}
    with signing_passwords(people.values()) as temporary:
        return _seed_series(facility, people, temporary)


def _seed_series(facility: Facility, people: dict[Role, Any], temporary: str) -> CouponSeries:
    officer, finsup = people[Role.COMPLIANCE_OFFICER], people[Role.FINANCE_SUPERVISOR]
    mktsup = people[Role.MARKETING_SUPERVISOR]
    today = gaming_day(facility)
    program = CouponProgram.objects.get(code="match-play")
    with acting_as(finsup):
        series = services.series_create(
            facility=facility, program=program, code="mp25", name="$25 Match Play (winter)", denomination_cents=2500,
            expires_on=today + timedelta(days=60), games=list(Game.objects.filter(code__in=["craps", "roulette",
                                                                                             "blackjack"])),
            wager_restrictions="Even-money wagers only; Craps: Pass or Don't Pass line.", even_money_only=True,
            user=finsup,
            serial_prefix="MP",
        )
    for kind in ("design", "internal_controls"):
        services.approval_record(facility=facility, program=program, kind=kind, approved_on=today - timedelta(days=30),
                                 reference=f"BGO-2026-{kind[:3].upper()}-17", series=series, user=officer,
                                 password=temporary)
    vault = services.location_create(facility=facility, name="Finance vault, cage 2", department="finance",
                                     user=officer, bcc_approved_on=today - timedelta(days=90),
                                     bcc_approval_reference="BCC-LOC-0042")
    services.location_create(facility=facility, name="Marketing locked cabinet", department="marketing",
                             user=officer, bcc_approved_on=today - timedelta(days=90),
                             bcc_approval_reference="BCC-LOC-0043")
    receipt = services.receipt_record(
        facility=facility, series=series, received_on=today, supplier="Keystone Gaming Printers",
        invoice_number="KGP-4471", invoice_quantity=10_000, invoice_first_serial=100_001, invoice_last_serial=110_000,
        received=[(100_001, 110_000)], location=vault, user=finsup, password=temporary,
        examiners=[("examined_finance", services.CoSigner(people[Role.FINANCE_STAFF], temporary)),
                   ("examined_marketing", services.CoSigner(people[Role.MARKETING_STAFF], temporary))],
    )
    requisition = services.requisition_prepare(facility=facility, program=program, denomination_cents=2500,
                                               quantity=500, needed_for=today, user=mktsup, password=temporary)
    signature_sign(record=requisition, slot="authorized", user=finsup, password=temporary)
    services.issuance_record(requisition=requisition, series=series, issued=[(100_001, 100_500)], user=finsup,
                             password=temporary, receiver=services.CoSigner(mktsup, temporary))
    services.distribution_record(facility=facility, series=series, spans=[(100_001, 100_120)],
                                 user=people[Role.MARKETING_STAFF])
    services.coupons_void(facility=facility, series=series, spans=[(100_121, 100_121)], reason="Torn at the desk",
                         user=mktsup, password=temporary)
    assert receipt.pk
    return series


def redemptions_demo_seed(*, facility: Facility) -> int:
    """A few coupons redeemed today at the demo's craps table, through the redemption service (each refusal, such as
    a table not ready, is skipped). Idempotent: nothing when the facility has redemptions. Returns how many."""
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
    officer = people_holding(facility, [Role.COMPLIANCE_OFFICER]).order_by("pk").first()
    if officer is not None:  # this month's redemptions as a report on the reports framework
        with acting_as(officer):
            month = month_of(gaming_day(facility))
            run_request(facility=facility, kind="redemptions", start=month.start, end=gaming_day(facility),
                        user=officer)
    return redeemed
