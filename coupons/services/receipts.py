"""Receipt of coupons into the ledger and the deviation report, § 525.21(e)–(f)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from compliance.actors import acts_as_system, acts_as_user
from compliance.bounds import MAX_SERIAL, require_count, require_day_between, years
from compliance.models import Facility, regulated_bulk_create
from compliance.roles import Capability, require_capability
from compliance.services import CoSigner, record_cosign, record_sign
from coupons import ranges as spans_
from coupons.days import today
from coupons.ledger import already_received, document_type, ledger_line, lock_open_rows, move_rows
from coupons.models import (
    CouponRange,
    CouponReceipt,
    CouponSeries,
    CouponState,
    DeviationReport,
    LedgerLine,
    StorageLocation,
)
from coupons.notifications import deviation_notification, deviation_recipients
from coupons.ranges import Span
from coupons.services._common import (
    create,
    report_email,
    require_day_open,
    require_facility,
    require_gates,
    require_location,
)
from coupons.variances import receipt_deviation

__all__ = [
    "deviation_report_close",
    "deviation_report_send",
    "invoice_serials_reversed",
    "receipt_examined",
    "receipt_record",
    "receipt_signed",
]

S = CouponState
K = LedgerLine.Kind


def invoice_serials_reversed(first: int, last: int) -> str:
    return (
        f"The invoice's first serial ({first}) is after its last serial ({last}); enter them as printed on the "
        f"invoice, first then last (§ 525.21(f)(3))."
    )


def _require_receivable(*, series: CouponSeries, received_on: date, source: str, location: StorageLocation | None,
                        invoice_first_serial: int, invoice_last_serial: int, received: Sequence[Span]) -> None:
    now = today(series.facility)
    if received_on > now:
        raise ValidationError("The date received is in the future.")
    # Coupons are recorded as they arrive (§ 525.21(f)(1)); a receipt a year old is a typing error.
    require_day_between(received_on, now - years(1), now, "the date received")
    for serial, what in ((invoice_first_serial, "first"), (invoice_last_serial, "last")):
        if not 0 <= serial <= MAX_SERIAL:
            raise ValidationError(f"The invoice's {what} serial ({serial:,}) is not a printed serial number (0 to "
                                  f"{MAX_SERIAL:,}); enter it as printed on the invoice.")
    if source == CouponReceipt.Source.INTERNAL:
        # § 525.21(p): coupons may be printed in house only under approved production controls.
        require_gates(series, received_on, internal_print=True)
    require_location(location, StorageLocation.Department.FINANCE, "§ 525.21(i)")
    if invoice_first_serial > invoice_last_serial:
        raise ValidationError(invoice_serials_reversed(invoice_first_serial, invoice_last_serial))
    if any(first > last for first, last in received):
        raise ValidationError("A range of serials received starts after it ends; enter the first serial first.")


def _into_stock(receipt: CouponReceipt, series: CouponSeries, received: Sequence[Span],
                location: StorageLocation | None) -> None:
    """One receive line and one in-stock range per span; a receipt of the same serials committed in
    between is caught by the database and refused in words."""
    doc_type = document_type(receipt)
    lines = [
        ledger_line(receipt, series, K.RECEIVE, first, last, last - first + 1, to_state=S.RECEIVED,
                    location=location, doc_type=doc_type)
        for first, last in received
    ]
    try:
        with transaction.atomic():
            lines = regulated_bulk_create(LedgerLine, lines)
            regulated_bulk_create(CouponRange, [
                CouponRange(facility_id=receipt.facility_id, series=series, first_serial=first, last_serial=last,
                            state=S.RECEIVED, location=location, opened_by=line, since=line)
                for line, (first, last) in zip(lines, received, strict=True)
            ])
    except IntegrityError:
        # Another receipt of the same serials committed between the check and the insert.
        raise ValidationError(already_received(series, received) or ["Those serials were just received."]) from None


@transaction.atomic
@acts_as_user
def receipt_record(
    *,
    facility: Facility,
    series: CouponSeries,
    received_on: date,
    supplier: str,
    invoice_number: str,
    invoice_quantity: int,
    invoice_first_serial: int,
    invoice_last_serial: int,
    received: Sequence[Span],
    location: StorageLocation | None,
    user: Any,
    password: str | None,
    source: str = CouponReceipt.Source.PROVIDER,
    examiners: Sequence[tuple[str, CoSigner]] = (),
) -> CouponReceipt:
    """Record a shipment or print run in the ledger, § 525.21(f), signed by the recording finance supervisor.

    ``examiners``: ``("examined_finance" | "examined_marketing", CoSigner)`` for the people who opened
    and examined the coupons and sign now; the others sign later on the signing page. The coupons are
    "received, awaiting examination" — not issuable, not voidable, not finance stock — until the receipt
    carries every signature (:func:`receipt_examined`); a deviation report goes out then.
    """
    require_capability(user, Capability.RECORD_COUPON_RECEIPT)
    require_facility(series, facility)
    _require_receivable(series=series, received_on=received_on, source=source, location=location,
                        invoice_first_serial=invoice_first_serial, invoice_last_serial=invoice_last_serial,
                        received=received)
    require_count(invoice_quantity, "the quantity on the invoice", minimum=1)
    received = spans_.merge(received)
    if not received:
        raise ValidationError("Enter the serials received.")
    require_day_open(facility, received_on, marketing=False)
    # Receipts of one series take turns: two simultaneous inserts checking the same exclusion
    # constraint can deadlock on PostgreSQL, and waiting here lets the second see the first's serials.
    CouponSeries.objects.select_for_update().filter(pk=series.pk).first()
    clashes = already_received(series, received)
    if clashes:
        raise ValidationError(clashes)
    deviation = receipt_deviation(invoice_quantity, invoice_first_serial, invoice_last_serial, received, series)
    receipt = create(
        CouponReceipt, user, facility=facility, series=series, gaming_date=received_on, source=source,
        supplier=supplier, invoice_number=invoice_number, invoice_quantity=invoice_quantity,
        invoice_first_serial=invoice_first_serial, invoice_last_serial=invoice_last_serial,
        quantity=spans_.count(received), first_serial=received[0][0], last_serial=received[-1][1],
        location=location, custodian=user, deviation=deviation,
    )
    _into_stock(receipt, series, received, location)
    record_sign(record=receipt, slot="recorded", user=user, password=password)
    for slot, co_signer in examiners:
        record_cosign(record=receipt, slot=slot, co_signer=co_signer)
    if deviation:
        DeviationReport.objects.create(
            facility=receipt.facility, receipt=receipt, description=receipt.deviation,
            reported_to=", ".join(r for r in deviation_recipients(receipt.facility) if r),
        )
    return receipt


def receipt_signed(sender: Any, record: CouponReceipt, signature: Any, **kwargs: Any) -> None:
    """Connected to ``compliance.services.record_signed`` for receipts: the signature that completes a
    receipt makes its coupons finance stock."""
    if record.is_complete:
        receipt_examined(receipt=record)


@acts_as_system
def receipt_examined(*, receipt: CouponReceipt) -> int:
    """Coupons of a receipt that every signature of § 525.21(e)–(f) now vouches for (one finance and one
    marketing examiner, the recording finance supervisor) leave "received, awaiting examination" for
    finance stock, by a ledger line dated the gaming day the examination completed; its deviation
    report, if any, goes out now. Returns the coupons moved (0 when already done)."""
    rows = lock_open_rows(receipt.facility, [S.RECEIVED], series=receipt.series,
                          since__document_type=document_type(receipt), since__document_id=receipt.pk)
    if not rows:
        return 0
    lines = move_rows(document=receipt, series=receipt.series, rows=rows, spans=None, kind=K.EXAMINE,
                      to_state=S.IN_STOCK, location=receipt.location, on=today(receipt.facility))
    report = DeviationReport.objects.filter(receipt=receipt, emailed_at__isnull=True).first()
    if report is not None:
        from coupons.tasks import send_deviation_report  # the one call upward: enqueue once committed

        transaction.on_commit(lambda: send_deviation_report.delay(report.pk))
    return sum(line.quantity for line in lines)


@acts_as_system
def deviation_report_send(*, report: DeviationReport) -> bool:
    """Email the deviation report to finance supervisors and the Bureau of Casino Compliance (§ 525.21(e)).

    Recorded as e-mailed only once the mail went; with no one to send it to it stays unsent."""
    return report_email(report, deviation_notification(report))


@transaction.atomic
@acts_as_user
def deviation_report_close(*, report: DeviationReport, resolution: str, user: Any) -> DeviationReport:
    require_capability(user, Capability.CLOSE_COUPON_DEVIATION)
    if not resolution.strip():
        raise ValidationError("Say how the deviation was resolved.")
    report.status = DeviationReport.Status.CLOSED
    report.resolution = resolution.strip()
    report.save()
    return report
