from typing import Any, ClassVar

from celery.schedules import crontab

from compliance import registry
from compliance.registry import DemoSeeder, NavItem
from compliance.roles import Role

_FLOOR = frozenset({Role.DEALER, Role.FLOORPERSON, Role.SHIFT_MANAGER, Role.SURVEILLANCE})
_MARKETING = frozenset({Role.MARKETING_STAFF, Role.MARKETING_SUPERVISOR})
_FINANCE = frozenset({Role.FINANCE_STAFF, Role.FINANCE_SUPERVISOR})
_COUPONS = _MARKETING | _FINANCE


class CouponsConfig(registry.PluggableApp):
    """Match Play Coupons, § 525.21–525.22 (docs/coupons.md)."""

    name = "coupons"
    verbose_name = "Match Play Coupons"

    depends_on = ("compliance.exclusion", "compliance.reports")
    navigation = (
        NavItem("Coupons", "coupons:home", "Coupons", _COUPONS),
        NavItem("Marketing today", "coupons:today", "Coupons", _COUPONS),
        NavItem("Coupon ledger", "coupons:ledger", "Coupons", _COUPONS),
        # Redemption at the table, the drop-box count and mailed coupons (issue 10)
        NavItem("Redeem at a table", "coupons:redeem-tables", "Floor", frozenset({Role.DEALER})),
        NavItem("Redemptions", "coupons:redemptions-today", "Coupons", _COUPONS | _FLOOR),
        NavItem("Drop-box counts", "coupons:drop-counts", "Coupons", _FINANCE),
        NavItem("Table scanners", "coupons:scanners", "Floor", frozenset({Role.SHIFT_MANAGER})),
        NavItem("Mailed coupons", "coupons:mailings", "Coupons", _MARKETING | _FINANCE),
    )
    panels = ("coupons.panels.coupon_panel",)
    beat: ClassVar[dict[str, dict[str, Any]]] = {
        # The monthly inventory reminder (§ 525.21(n)), refreshed daily; idempotent.
        "coupons-monthly-inventory-reminder": {"task": "coupons.tasks.monthly_inventory_reminder",
                                               "schedule": crontab(minute=5, hour=6)},
        # The ledger's move distributed -> redeemed, posted in batches (docs/coupons.md, "Redemption"): every minute;
        # finance's daily processing posts first as well, so it always sees every redemption.
        "coupons-post-redemptions": {"task": "coupons.tasks.post_redemptions", "schedule": crontab(minute="*")},
    }
    demo = (
        DemoSeeder("coupons.demo.coupons_demo_seed", stage=1),
        DemoSeeder("coupons.demo.redemptions_demo_seed", stage=4),
    )
    report_kinds = ("coupons.report_kinds",)
    reference_data = ("coupons.reference.seed_coupon_programs",)
    # The verification replays the sealed ledger against the coupons' state.
    verify_checks = ("coupons.selectors.ledger_replay.ledger_replay_check",)
    signed = {
        "coupons.CouponReceipt": "coupons.services.receipts.receipt_signed",
        "coupons.FormCorrection": "coupons.services.corrections.form_correction_signed",
    }
    administered = True
