from typing import Any, ClassVar

from celery.schedules import crontab

from compliance import registry
from compliance.registry import DemoSeeder, NavItem, ScaleSeeder
from compliance.roles import FINANCE, MARKETING, OVERSIGHT, Role

_FS, _MS = Role.FINANCE_SUPERVISOR, Role.MARKETING_SUPERVISOR


class CouponsConfig(registry.PluggableApp):
    """Match Play Coupons, § 525.21–525.22 (docs/coupons.md)."""

    name = "coupons"
    verbose_name = "Match Play Coupons"

    depends_on = ("compliance.exclusion", "compliance.reports")
    # Each screen in the menu of those whose work it is (compliance/navigation.py), in the order of the coupon's day.
    navigation = (
        NavItem("Marketing today", "coupons:today", "Coupons", MARKETING),
        NavItem("Requisitions", "coupons:requisition-list", "Coupons", frozenset({_MS, _FS}) | OVERSIGHT),
        NavItem("Reconciliation form", "coupons:reconciliation-today", "Coupons", MARKETING | OVERSIGHT),
        NavItem("Mailed coupons", "coupons:mailings", "Coupons", MARKETING | {_FS} | OVERSIGHT),
        NavItem("Coupon stock", "coupons:home", "Coupons", FINANCE | OVERSIGHT),
        NavItem("Finance processing", "coupons:process", "Coupons", FINANCE | OVERSIGHT),
        NavItem("Drop-box counts", "coupons:drop-counts", "Coupons", FINANCE | OVERSIGHT),
        NavItem("Redemptions", "coupons:redemptions-today", "Coupons",
                FINANCE | {Role.SHIFT_MANAGER} | OVERSIGHT),
        NavItem("Coupon ledger", "coupons:ledger", "Coupons", FINANCE | OVERSIGHT),
        NavItem("Coupon reports", "coupons:reports", "Coupons", OVERSIGHT | {_FS}),
        NavItem("Coupon program", "coupons:program", "Coupons", OVERSIGHT),
        NavItem("Redeem at a table", "coupons:redeem-tables", "Floor", frozenset({Role.DEALER})),
        NavItem("Table scanners", "coupons:scanners", "Floor", frozenset({Role.SHIFT_MANAGER})),
    )
    panels = ("coupons.panels.dealer_panel", "coupons.panels.coupon_panel")
    beat: ClassVar[dict[str, dict[str, Any]]] = {
        # The monthly inventory reminder (§ 525.21(n)), refreshed daily; idempotent.
        "coupons-monthly-inventory-reminder": {"task": "coupons.tasks.monthly_inventory_reminder",
                                               "schedule": crontab(minute=5, hour=6)},
        # The ledger's move distributed -> redeemed, posted in batches (docs/coupons.md, "Redemption"): every minute;
        # finance's daily processing posts first as well, so it always sees every redemption.
        "coupons-post-redemptions": {"task": "coupons.tasks.post_redemptions", "schedule": crontab(minute="*")},
    }
    demo = (
        DemoSeeder("coupons.demo.past_quarter_demo_seed", stage=1),  # last quarter's days, for its report
        DemoSeeder("coupons.demo.coupons_demo_seed", stage=1),
        DemoSeeder("coupons.demo.mailing_demo_seed", stage=1),
        DemoSeeder("coupons.demo.redemptions_demo_seed", stage=4),
    )
    scale = (ScaleSeeder("coupons.scale.coupons_scale_seed", stage=4),  # a year of coupons (generate_casino)
             ScaleSeeder("coupons.scale_mailing.mailing_scale_seed", stage=5))  # its quarterly mailings
    report_kinds = ("coupons.report_kinds",)
    reference_data = ("coupons.reference.seed_coupon_programs",)
    # The verification replays the sealed ledger against the coupons' state.
    verify_checks = ("coupons.selectors.ledger_replay.ledger_replay_check",)
    signed = {
        "coupons.CouponReceipt": "coupons.services.receipts.receipt_signed",
        "coupons.FormCorrection": "coupons.services.corrections.form_correction_signed",
    }
    administered = True
