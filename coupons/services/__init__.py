"""Writes of the Match Play Coupon ledger, § 525.21. Each validates in words, then writes, atomically.

Services that create a document take the acting person's ``password`` and give their signature in
the same transaction (a wrong password saves nothing). Other people's signatures are given on the
generic signing page, or inline where both people stand at the same window (``co_signer``).

One module per regulated step: ``program`` (b), (c), (i), (p); ``receipts`` (e)–(f); ``issuance``
(g)–(h); ``marketing_day`` (d), (j)–(l); ``finance_day`` (m); ``redemption`` (§ 525.22);
``inventory`` (n). Coupons move through the range engine, :mod:`coupons.ledger`; the comparisons are
pure functions in :mod:`coupons.variances`; reads come from :mod:`coupons.selectors`.
"""

from compliance.services import CoSigner
from coupons.services.corrections import form_correction_request, movement_reverse
from coupons.services.finance_day import (
    CountDiffers,
    exception_report_resolve,
    exception_report_send,
    finance_day_process,
    stock_expire,
)
from coupons.services.inventory import inventory_record, inventory_reminders_refresh
from coupons.services.issuance import issuance_record, requisition_cancel, requisition_prepare
from coupons.services.marketing_day import coupons_void, distribution_record, reconciliation_complete, return_record
from coupons.services.program import approval_record, location_create, series_create
from coupons.services.receipts import (
    deviation_report_close,
    deviation_report_send,
    invoice_serials_reversed,
    receipt_record,
)
from coupons.services.redemption import redemption_record
from coupons.services.redemption_posting import pending_redemptions_post, redemptions_post

__all__ = [
    "CoSigner",
    "CountDiffers",
    "approval_record",
    "coupons_void",
    "deviation_report_close",
    "deviation_report_send",
    "distribution_record",
    "exception_report_resolve",
    "exception_report_send",
    "finance_day_process",
    "form_correction_request",
    "inventory_record",
    "inventory_reminders_refresh",
    "invoice_serials_reversed",
    "issuance_record",
    "location_create",
    "movement_reverse",
    "pending_redemptions_post",
    "receipt_record",
    "reconciliation_complete",
    "redemption_record",
    "redemptions_post",
    "requisition_cancel",
    "requisition_prepare",
    "return_record",
    "series_create",
    "stock_expire",
]
