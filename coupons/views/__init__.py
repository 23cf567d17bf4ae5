"""Screens of the Match Play Coupon ledger, § 525.21. Views read selectors and write through services;
they hold no queries of their own. One module per part of the work: ``program``, ``finance`` (receipt,
requisition, issuance), ``marketing`` (the day and its form), ``processing`` (finance's day, inventory,
reports) and ``ledger``."""

from coupons.views._base import CouponFormView, CouponPage, DocumentDetailView
from coupons.views.corrections import UndoView
from coupons.views.drop import DropCountCreateView, DropCountDetailView, DropCountListView, DropCountPdfView
from coupons.views.finance import (
    IssuanceCreateView,
    IssuanceDetailView,
    ReceiptCreateView,
    ReceiptDetailView,
    RequisitionCreateView,
    RequisitionDetailView,
    RequisitionListView,
)
from coupons.views.ledger import DocumentRedirectView, LedgerCsvView, LedgerMixin, LedgerPdfView, LedgerView
from coupons.views.marketing import (
    DistributeView,
    ReconciliationDetailView,
    ReconciliationPdfView,
    ReconciliationView,
    ReturnCreateView,
    ReturnDetailView,
    TodayView,
    VoidView,
)
from coupons.views.processing import (
    InventoryCreateView,
    InventoryDetailView,
    ProcessingDetailView,
    ProcessView,
    ReportsView,
    ResolveView,
)
from coupons.views.program import (
    ApprovalCreateView,
    ExpireView,
    HomeView,
    LocationCreateView,
    ProgramView,
    SeriesCreateView,
    SeriesDetailView,
)
from coupons.views.redemption import (
    RedemptionDayView,
    RedemptionDetailView,
    ScannerListView,
    TableChooserView,
    TableScreenView,
)

__all__ = [
    "ApprovalCreateView",
    "CouponFormView",
    "CouponPage",
    "DistributeView",
    "DocumentDetailView",
    "DocumentRedirectView",
    "DropCountCreateView",
    "DropCountDetailView",
    "DropCountListView",
    "DropCountPdfView",
    "ExpireView",
    "HomeView",
    "InventoryCreateView",
    "InventoryDetailView",
    "IssuanceCreateView",
    "IssuanceDetailView",
    "LedgerCsvView",
    "LedgerMixin",
    "LedgerPdfView",
    "LedgerView",
    "LocationCreateView",
    "ProcessView",
    "ProcessingDetailView",
    "ProgramView",
    "ReceiptCreateView",
    "ReceiptDetailView",
    "ReconciliationDetailView",
    "ReconciliationPdfView",
    "ReconciliationView",
    "RedemptionDayView",
    "RedemptionDetailView",
    "ReportsView",
    "RequisitionCreateView",
    "RequisitionDetailView",
    "RequisitionListView",
    "ResolveView",
    "ReturnCreateView",
    "ReturnDetailView",
    "ScannerListView",
    "SeriesCreateView",
    "SeriesDetailView",
    "TableChooserView",
    "TableScreenView",
    "TodayView",
    "UndoView",
    "VoidView",
]
