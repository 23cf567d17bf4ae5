"""The regulated mail of the coupon ledger, sent the one shared way (``compliance.notifications``):

* the deviation report of a shipment, to the finance supervisors and the Bureau of Casino
  Compliance, § 525.21(e);
* the exception report of finance's daily processing, to internal audit, § 525.21(m).

Each builder answers the :class:`~compliance.notifications.Notification` for a report; the services
send it from a retried task and record the sending only once it went.
"""

from __future__ import annotations

from django.conf import settings

from compliance.models import Facility
from compliance.notifications import Notification
from compliance.roles import Role
from compliance.selectors import people_emails
from coupons.days import day_words
from coupons.models import DeviationReport, ExceptionReport

__all__ = ["deviation_notification", "deviation_recipients", "exception_notification", "internal_audit_emails"]


def deviation_recipients(facility: Facility) -> list[str]:
    """The facility's finance supervisors and the Bureau of Casino Compliance (§ 525.21(e))."""
    return [*people_emails(facility, [Role.FINANCE_SUPERVISOR]), settings.BCC_BUREAU_EMAIL]


def deviation_notification(report: DeviationReport) -> Notification:
    receipt = report.receipt
    return Notification.to(
        report.reported_to.split(","),
        subject=f"[{report.facility.name}] Match Play Coupon deviation report #{report.pk} (58 Pa. Code § 525.21(e))",
        body=(
            f"Facility: {report.facility.name} ({report.facility.certificate_holder})\n"
            f"Receipt #{receipt.pk} of {day_words(receipt.gaming_date)} from {receipt.supplier}, "
            f"invoice {receipt.invoice_number}\n"
            f"Series: {receipt.series.name} ({receipt.series.denomination})\n"
            f"Invoice: {receipt.invoice_quantity:,} coupons, "
            f"{receipt.series.span(receipt.invoice_first_serial, receipt.invoice_last_serial)}\n"
            f"Received: {receipt.quantity:,} coupons\n\nDeviation: {report.description}\n"
        ),
    )


def internal_audit_emails(facility: Facility) -> list[str]:
    """Internal audit: the configured address, else the facility's compliance officers and its
    notification address."""
    configured = settings.INTERNAL_AUDIT_EMAIL
    if configured:
        return [configured]
    officers = set(people_emails(facility, [Role.COMPLIANCE_OFFICER]))
    extra = facility.notification_email
    return sorted(officers | ({extra} if extra else set()))


def exception_notification(report: ExceptionReport) -> Notification:
    return Notification.to(
        internal_audit_emails(report.facility),
        subject=f"[{report.facility.name}] Match Play Coupon exception report for {day_words(report.gaming_date)}",
        body=(
            f"{report.source_words[:1].upper()}{report.source_words[1:]} of {day_words(report.gaming_date)} "
            f"(58 Pa. Code) found a variance of {report.variance:,} coupons.\n\n{report.description}\n\nDue for internal audit by "
            f"{day_words(report.due_on)}.\n"
        ),
    )
