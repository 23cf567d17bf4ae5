"""Every report kind, one module each; importing this package registers them all (``ReportsConfig.ready``)."""

from compliance.reports.kinds import (  # noqa: F401
    audit_extract,
    coupon_reconciliation,
    equipment,
    quarterly_coupons,
    redemptions,
    staffing,
)
