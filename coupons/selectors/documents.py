"""Reads of the ledger's documents and reports as the screens and the dashboard panel show them, each
scoped to one facility. ``None`` means "not in this facility": the view answers 404."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db.models import QuerySet

from compliance.models import Facility
from coupons.models import (
    CouponInventory,
    CouponRequisition,
    CouponSeries,
    CouponState,
    DeviationReport,
    ExceptionReport,
    FinanceDayProcessing,
    LedgerLine,
    ReconciliationForm,
)
from coupons.selectors.closing import days_owing_a_form

__all__ = [
    "days_without_documents",
    "deviation_report_in",
    "deviation_report_of",
    "deviation_reports_of",
    "document_in",
    "exception_report_in",
    "exception_report_of",
    "exception_reports_of",
    "inventory_in",
    "last_kept_form",
    "ledger_document",
    "marketing_voids_on",
    "open_deviation_count",
    "open_exception_reports",
    "requisitions_of",
    "series_in",
    "unsent_deviation_report",
    "unsent_exception_report",
]

K = LedgerLine.Kind


def document_in(model: type[Any], facility: Facility, pk: Any) -> Any | None:
    """A record of ``model`` in the facility, with its signatures."""
    return model._default_manager.filter(pk=pk, facility=facility).prefetch_related("signatures").first()


def series_in(facility: Facility, pk: Any) -> CouponSeries | None:
    return (CouponSeries.objects.select_related("program").prefetch_related("games")
            .filter(pk=pk, facility=facility).first())


def inventory_in(facility: Facility, pk: Any) -> CouponInventory | None:
    return (CouponInventory.objects.prefetch_related("signatures", "counts__series")
            .filter(pk=pk, facility=facility).first())


def ledger_document(facility: Facility, content_type_id: Any, object_id: Any) -> Any | None:
    """The document a ledger line points to, whatever its type, if it is a coupon document of the facility."""
    content_type = ContentType.objects.filter(pk=content_type_id, app_label="coupons").first()
    model = content_type.model_class() if content_type is not None else None
    if model is None:
        return None
    return model._default_manager.filter(pk=object_id, facility=facility).first()


def deviation_report_of(receipt: Any) -> DeviationReport | None:
    return DeviationReport.objects.filter(receipt=receipt).first()


def exception_report_of(processing: FinanceDayProcessing) -> ExceptionReport | None:
    return ExceptionReport.objects.filter(processing=processing).first()


def requisitions_of(facility: Facility, *, limit: int = 100) -> QuerySet[CouponRequisition]:
    return (CouponRequisition.objects.filter(facility=facility).select_related("program", "cancellation")
            .prefetch_related("signatures", "issuances")[:limit])


def last_kept_form(facility: Facility, before: date) -> ReconciliationForm | None:
    """The latest form before ``before`` that kept marketing's coupons in a locked area overnight."""
    return (ReconciliationForm.objects.filter(facility=facility, gaming_date__lt=before,
                                              disposition=ReconciliationForm.Disposition.KEEP)
            .select_related("kept_in").order_by("-gaming_date").first())


def marketing_voids_on(facility: Facility, gaming_date: date) -> QuerySet[LedgerLine]:
    """Coupons marketing voided on a gaming day: they travel back with that day's return, § 525.21(l)(4)."""
    return LedgerLine.objects.filter(facility=facility, gaming_date=gaming_date, kind=K.VOID,
                                     from_state=CouponState.ISSUED).select_related("series")


def exception_reports_of(facility: Facility, *, limit: int = 100) -> QuerySet[ExceptionReport]:
    return (ExceptionReport.objects.filter(facility=facility)
            .select_related("resolved_by__profile", "processing")[:limit])


def deviation_reports_of(facility: Facility, *, limit: int = 100) -> QuerySet[DeviationReport]:
    return DeviationReport.objects.filter(facility=facility).select_related("receipt__series")[:limit]


def exception_report_in(facility: Facility, pk: Any) -> ExceptionReport | None:
    return ExceptionReport.objects.filter(pk=pk, facility=facility).first()


def deviation_report_in(facility: Facility, pk: Any) -> DeviationReport | None:
    return DeviationReport.objects.filter(pk=pk, facility=facility).first()


def open_exception_reports(facility: Facility, *, limit: int = 5) -> QuerySet[ExceptionReport]:
    return ExceptionReport.objects.filter(facility=facility, status=ExceptionReport.Status.OPEN)[:limit]


def open_deviation_count(facility: Facility) -> int:
    return DeviationReport.objects.filter(facility=facility, status=DeviationReport.Status.OPEN).count()


def days_without_documents(facility: Facility, today: date, *, limit: int = 31) -> tuple[list[date], list[date]]:
    """The gaming days before ``today`` that still owe a document, oldest first: those on which marketing
    held coupons with no reconciliation form (§ 525.21(j)), and those with a form finance has not processed
    (§ 525.21(m)). Listed until done, however old."""
    processed = FinanceDayProcessing.objects.filter(facility=facility).values("gaming_date")
    unprocessed = list(
        ReconciliationForm.objects.filter(facility=facility, gaming_date__lt=today)
        .exclude(gaming_date__in=processed).order_by("gaming_date").values_list("gaming_date", flat=True)[:limit]
    )
    return days_owing_a_form(facility, today, limit=limit), unprocessed


def unsent_deviation_report(pk: int) -> DeviationReport | None:
    """The deviation report to e-mail, if it still exists and has not gone yet."""
    return (DeviationReport.objects.filter(pk=pk, emailed_at__isnull=True)
            .select_related("receipt__series", "facility").first())


def unsent_exception_report(pk: int) -> ExceptionReport | None:
    """The exception report to e-mail, if it still exists and has not gone yet."""
    return ExceptionReport.objects.filter(pk=pk, emailed_at__isnull=True).select_related("facility").first()
