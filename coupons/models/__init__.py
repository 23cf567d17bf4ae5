"""The Match Play Coupon ledger, § 525.21.

Shape (see docs/coupons.md):

* Registers: :class:`CouponProgram` (program types are data: Match Play, Direct Bet),
  :class:`CouponSeries` (what § 525.21(c) requires a coupon to carry) and :class:`StorageLocation`
  (approved locked areas, § 525.21(i) and (k)).
* Regulated documents, each a ``RegulatedRecord`` with its signatures: approvals (b)/(p), receipts
  (e)–(f), requisitions (g), issuances (h), distributions, voids, returns (k)–(l), the marketing
  reconciliation form (j), finance daily processing (m), expiries, drop-box counts (q)(6) and monthly
  inventories (n).
* Redemption at the table (§ 525.22): :class:`Redemption` (one per coupon, never twice),
  :class:`ScannerDevice` (a table's scanner and its token), :class:`RedemptionAnswer` (Idempotency-Key).
* :class:`LedgerLine`: the append-only Match Play Coupon ledger. Every movement of coupons writes one
  line per serial range moved (``from_state`` → ``to_state``); inventories write count lines. Lines
  are never changed (model and, on PostgreSQL, a trigger refuse it).
* :class:`CouponRange`: the current state of every serial, as non-overlapping *open* ranges. A move
  closes the ranges it touches (``closed_by``) and opens new ones; nothing is deleted, so the closed
  rows plus the ledger lines are each serial's full path. "Every serial is in exactly one state" is
  held by the database: an exclusion constraint (PostgreSQL) or a trigger (SQLite) refuses two open
  ranges of one series that share a serial.

Work never depends on the number of serials: a range of 100,000 coupons is one row.
"""

from coupons.models._common import HOLDER_OF_STATE, CouponState, format_cents
from coupons.models.corrections import CouponReversal, FormCorrection
from coupons.models.day import (
    CouponExpiry,
    CouponReturn,
    FinanceDayFigure,
    FinanceDayProcessing,
    ReconciliationFigure,
    ReconciliationForm,
)
from coupons.models.documents import (
    CouponDistribution,
    CouponDocument,
    CouponIssuance,
    CouponReceipt,
    CouponRequisition,
    CouponVoid,
    RequisitionCancellation,
)
from coupons.models.drop import DropCount, DropCountItem
from coupons.models.inventory import CouponInventory, InventoryCount, InventoryReminder
from coupons.models.ledger import CouponRange, LedgerLine
from coupons.models.mailing import (
    MailedCoupon,
    MailingCampaign,
    MailingListFile,
    MailingListImport,
    MailingProvider,
    MailingRecipient,
    MailingScreening,
)
from coupons.models.program import CouponProgram, CouponSeries, ProgramApproval, StorageLocation
from coupons.models.redemption import Position, Redemption, RedemptionAnswer, RedemptionPosting, ScannerDevice
from coupons.models.reports import DeviationReport, ExceptionReport

__all__ = [
    "HOLDER_OF_STATE",
    "CouponDistribution",
    "CouponDocument",
    "CouponExpiry",
    "CouponInventory",
    "CouponIssuance",
    "CouponProgram",
    "CouponRange",
    "CouponReceipt",
    "CouponRequisition",
    "CouponReturn",
    "CouponReversal",
    "CouponSeries",
    "CouponState",
    "CouponVoid",
    "DeviationReport",
    "DropCount",
    "DropCountItem",
    "ExceptionReport",
    "FinanceDayFigure",
    "FinanceDayProcessing",
    "FormCorrection",
    "InventoryCount",
    "InventoryReminder",
    "LedgerLine",
    "MailedCoupon",
    "MailingCampaign",
    "MailingListFile",
    "MailingListImport",
    "MailingProvider",
    "MailingRecipient",
    "MailingScreening",
    "Position",
    "ProgramApproval",
    "ReconciliationFigure",
    "ReconciliationForm",
    "Redemption",
    "RedemptionAnswer",
    "RedemptionPosting",
    "RequisitionCancellation",
    "ScannerDevice",
    "StorageLocation",
    "format_cents",
]
