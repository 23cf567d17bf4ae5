"""Thin Celery tasks of the coupon ledger: re-fetch by id, return quietly if gone, call a service."""

from __future__ import annotations

from celery import shared_task


@shared_task
def send_deviation_report(report_id: int) -> None:
    from coupons.models import DeviationReport
    from coupons.services import deviation_report_send

    report = DeviationReport.objects.filter(pk=report_id).select_related("receipt__series", "facility").first()
    if report is None or report.emailed_at is not None:
        return
    deviation_report_send(report=report)


@shared_task
def send_exception_report(report_id: int) -> None:
    from coupons.models import ExceptionReport
    from coupons.services import exception_report_send

    report = ExceptionReport.objects.filter(pk=report_id).select_related("facility").first()
    if report is None or report.emailed_at is not None:
        return
    exception_report_send(report=report)


@shared_task
def monthly_inventory_reminder() -> int:
    """Beat: create or refresh this month's inventory reminder for every facility (§ 525.21(n))."""
    from coupons.services import inventory_reminders_refresh

    return inventory_reminders_refresh()
