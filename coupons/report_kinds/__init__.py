"""The coupon reports on the reports framework (docs/reports.md), one module each; importing this package registers
them (declared in ``coupons/apps.py``): the quarterly Match Play Coupon report (§ 525.21(o)), the redemptions at
the tables, and the reconciliation and exception reports of the coupon days."""

from coupons.report_kinds import coupon_reconciliation, quarterly_coupons, redemptions  # noqa: F401
