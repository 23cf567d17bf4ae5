"""Writes of the Match Play Coupon ledger, § 525.21. Each validates in words, then writes, atomically.

Services that create a document take the acting person's ``password`` and give their signature in
the same transaction (a wrong password saves nothing). Other people's signatures are given on the
generic signing page, or inline where both people stand at the same window (``co_signer``).

Coupons move by serial range: :func:`_move` locks the open ranges a request touches, checks that
every serial asked for is in a state the step accepts, writes one ledger line per piece moved,
closes the touched ranges and opens their replacements. Its work depends on the number of ranges
touched, never on the number of coupons.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from compliance.actors import acting_as
from compliance.models import Facility, Game, RegulatedRecord, regulated_bulk_create
from compliance.roles import Capability, Role, has_capability, require_capability
from compliance.services import signature_sign
from coupons import ranges as spans_
from coupons.models import (
    CouponDistribution,
    CouponExpiry,
    CouponInventory,
    CouponIssuance,
    CouponProgram,
    CouponRange,
    CouponReceipt,
    CouponRedemption,
    CouponRequisition,
    CouponReturn,
    CouponSeries,
    CouponState,
    CouponVoid,
    DeviationReport,
    ExceptionReport,
    FinanceDayProcessing,
    InventoryCount,
    InventoryReminder,
    LedgerLine,
    ProgramApproval,
    ReconciliationFigure,
    ReconciliationForm,
    StorageLocation,
    format_cents,
)
from coupons.ranges import Span

__all__ = [
    "approval_record",
    "deviation_report_close",
    "deviation_report_send",
    "distribution_record",
    "exception_report_resolve",
    "exception_report_send",
    "facility_approvals",
    "finance_day_process",
    "inventory_record",
    "inventory_reminders_refresh",
    "issuance_record",
    "location_create",
    "program_gate_refusals",
    "receipt_record",
    "reconciliation_complete",
    "redemption_record",
    "requisition_prepare",
    "return_record",
    "series_create",
    "stock_expire",
    "void_record",
]

S = CouponState
K = LedgerLine.Kind


@dataclass(frozen=True)
class CoSigner:
    """A second person signing at the same window: who, and the password they typed."""

    user: Any
    password: str


def _day(value: date) -> str:
    return f"{value:%-d %b %Y}"


def _today() -> date:
    return timezone.localdate()


def _sign(record: RegulatedRecord, slot: str, user: Any, password: str | None) -> None:
    if password is None:
        return
    with acting_as(user):
        signature_sign(record=record, slot=slot, user=user, password=password)


def _person_name(user: Any) -> str:
    profile = getattr(user, "profile", None)
    return getattr(profile, "full_name", "") or user.get_full_name() or user.get_username()


def _cosign(record: RegulatedRecord, slot: str, co_signer: CoSigner | None) -> None:
    """The second person's signature at the same window; the foundation's refusals then name them."""
    if co_signer is None or co_signer.user is None:
        return
    name = _person_name(co_signer.user)
    requirement = record.requirement(slot)
    label = requirement.label.lower() if requirement is not None else slot
    try:
        with acting_as(co_signer.user):
            signature_sign(
                record=record, slot=slot, user=co_signer.user, password=co_signer.password, co_signer=True
            )
    except PermissionDenied as error:  # shown on the form, not as a 403 page
        raise ValidationError(f"{name} cannot sign as the {label}: {error}") from None


def _as_user(function: Any) -> Any:
    """Attribute every row the service writes (history, audit events, bulk inserts) to its ``user``."""
    import functools

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with acting_as(kwargs["user"]):
            return function(*args, **kwargs)

    return wrapper


def _create(model: type[Any], user: Any, **fields: Any) -> Any:
    with acting_as(user):
        return model.objects.create(created_by=user, **fields)


# --------------------------------------------------------------------------------------------
# Program gates, § 525.21(b) and (p)
# --------------------------------------------------------------------------------------------
def facility_approvals(facility_id: int, on_date: date) -> list[ProgramApproval]:
    """Every signed, current approval of the facility dated on or before ``on_date`` (one query): a
    screen listing many series reads them once and passes them to :func:`program_gate_refusals`."""
    return list(
        ProgramApproval.objects.filter(
            facility_id=facility_id, approved_on__lte=on_date, signatures__slot="recorded",
            corrected_by__isnull=True,
        ).order_by("approved_on")
    )


def _approvals(series: CouponSeries, on_date: date,
               approvals: Sequence[ProgramApproval] | None = None) -> dict[str, ProgramApproval]:
    found = facility_approvals(series.facility_id, on_date) if approvals is None else approvals
    return {
        a.kind: a for a in found
        if a.program_id == series.program_id and a.approved_on <= on_date
        and (a.kind != ProgramApproval.Kind.DESIGN or a.series_id == series.pk)
    }


def program_gate_refusals(series: CouponSeries, on_date: date, *, internal_print: bool = False,
                          approvals: Sequence[ProgramApproval] | None = None) -> list[str]:
    """Why coupons of ``series`` may not be issued or used on ``on_date`` (empty: they may).

    ``approvals``: the facility's approvals from :func:`facility_approvals`, when already read.
    """
    approvals_by_kind = _approvals(series, on_date, approvals)
    refusals = []
    if ProgramApproval.Kind.DESIGN not in approvals_by_kind:
        refusals.append(
            f"The design specifications of {series.name} have no recorded approval by the Bureau of Gaming "
            f"Operations (§ 525.21(b)(1))."
        )
    if ProgramApproval.Kind.INTERNAL_CONTROLS not in approvals_by_kind:
        refusals.append(
            f"The internal controls for the {series.program.name} program have no recorded approval (§ 525.21(b)(2))."
        )
    if internal_print and ProgramApproval.Kind.INTERNAL_PRINTING not in approvals_by_kind:
        refusals.append(
            "Coupons printed in house need approved internal controls for their production (§ 525.21(p))."
        )
    return refusals


def _require_gates(series: CouponSeries, on_date: date, *, internal_print: bool = False) -> None:
    refusals = program_gate_refusals(series, on_date, internal_print=internal_print)
    if refusals:
        raise ValidationError(refusals)


@transaction.atomic
@_as_user
def approval_record(
    *,
    facility: Facility,
    program: CouponProgram,
    kind: str,
    approved_on: date,
    reference: str,
    user: Any,
    password: str | None,
    series: CouponSeries | None = None,
    notes: str = "",
) -> ProgramApproval:
    require_capability(user, Capability.APPROVE_COUPON_PROGRAM)
    if not reference.strip():
        raise ValidationError("Enter the approval's reference (letter or approval number).")
    if kind == ProgramApproval.Kind.DESIGN and series is None:
        raise ValidationError("A design approval is for one coupon series: choose the series.")
    if kind != ProgramApproval.Kind.DESIGN:
        series = None
    if approved_on > _today():
        raise ValidationError("The approval date is in the future.")
    approval = _create(
        ProgramApproval, user, facility=facility, program=program, kind=kind, approved_on=approved_on,
        reference=reference.strip(), series=series, notes=notes,
    )
    _sign(approval, "recorded", user, password)
    return approval


@transaction.atomic
@_as_user
def series_create(
    *,
    facility: Facility,
    program: CouponProgram,
    code: str,
    name: str,
    denomination_cents: int,
    expires_on: date,
    games: Sequence[Game],
    wager_restrictions: str,
    user: Any,
    serial_prefix: str = "",
    serial_digits: int = 7,
    printed_name: str = "",
    shows_logo: bool = True,
    design_specification: str = "",
    value_visible_on_surveillance: bool = True,
    has_chip_area: bool = True,
) -> CouponSeries:
    """A coupon series with what § 525.21(c) requires each coupon to show."""
    require_capability(user, Capability.RECORD_COUPON_RECEIPT)
    if denomination_cents <= 0:
        raise ValidationError("A coupon needs a stated value above $0 (§ 525.21(a)).")
    if not games:
        raise ValidationError("Name the games the coupon may be used on (§ 525.21(c)(4)).")
    not_banking = [g.name for g in games if not g.banking]
    if not_banking:
        raise ValidationError(
            f"Match Play Coupons are used only at games where patrons wager against the house (§ 525.22(a)): "
            f"{', '.join(not_banking)} is not one."
        )
    if not (value_visible_on_surveillance and has_chip_area):
        raise ValidationError(
            "A coupon's value must be readable through surveillance and the chips must have an area that does not "
            "hide it (§ 525.21(c)(2), (6)); change the design before recording the series."
        )
    if not wager_restrictions.strip():
        raise ValidationError("State the wagers the coupon may be used on and other restrictions (§ 525.21(c)(4)).")
    if CouponSeries.objects.filter(facility=facility, code=code).exists():
        raise ValidationError(f"There is already a series called {code}.")
    with acting_as(user):
        series = CouponSeries.objects.create(
            facility=facility, program=program, code=code, name=name, denomination_cents=denomination_cents,
            expires_on=expires_on, wager_restrictions=wager_restrictions.strip(), serial_prefix=serial_prefix.strip(),
            serial_digits=serial_digits, printed_name=printed_name or facility.name, shows_logo=shows_logo,
            design_specification=design_specification, value_visible_on_surveillance=value_visible_on_surveillance,
            has_chip_area=has_chip_area,
        )
        series.games.set(games)
    return series


@transaction.atomic
@_as_user
def location_create(
    *,
    facility: Facility,
    name: str,
    department: str,
    user: Any,
    bcc_approved_on: date | None,
    bcc_approval_reference: str,
    internal_controls_reference: str = "",
) -> StorageLocation:
    """A storage area the Bureau of Casino Compliance approved (§ 525.21(i), (k))."""
    require_capability(user, Capability.APPROVE_COUPON_PROGRAM)
    if StorageLocation.objects.filter(facility=facility, name=name).exists():
        raise ValidationError(f"There is already a location called {name}.")
    with acting_as(user):
        return StorageLocation.objects.create(
            facility=facility, name=name, department=department, bcc_approved_on=bcc_approved_on,
            bcc_approval_reference=bcc_approval_reference, internal_controls_reference=internal_controls_reference,
        )


def _require_location(location: StorageLocation | None, department: str, clause: str) -> StorageLocation:
    if location is None:
        raise ValidationError(f"Choose the approved locked {department} storage area ({clause}).")
    if location.department != department or not location.is_approved:
        raise ValidationError(
            f"{location.name} is not a {department} area approved by the Bureau of Casino Compliance and locked "
            f"({clause}); choose an approved area."
        )
    return location


# --------------------------------------------------------------------------------------------
# The range engine
# --------------------------------------------------------------------------------------------
def _document_type(document: Any) -> ContentType:
    return ContentType.objects.get_for_model(type(document))


def _line(document: Any, series: CouponSeries, kind: str, first: int | None, last: int | None, quantity: int,
          *, from_state: str = "", to_state: str = "", reason: str = "", location: StorageLocation | None = None,
          doc_type: ContentType | None = None) -> LedgerLine:
    return LedgerLine(
        facility_id=series.facility_id, gaming_date=document.gaming_date, kind=kind, series=series,
        denomination_cents=series.denomination_cents, from_state=from_state, to_state=to_state,
        first_serial=first, last_serial=last, quantity=quantity, reason=reason,
        document_type=doc_type or _document_type(document), document_id=document.pk, location=location,
    )


def _state_words(state: str) -> str:
    return str(CouponState(state).label).lower()


def _move(
    *,
    document: Any,
    series: CouponSeries,
    spans: Sequence[Span],
    kind: str,
    from_states: Iterable[str],
    to_state: str,
    step: str,
    location: StorageLocation | None = None,
    reason: str = "",
) -> list[LedgerLine]:
    """Move exactly ``spans`` of ``series`` from one of ``from_states`` to ``to_state``."""
    accepted = set(from_states)
    spans = spans_.merge(spans)
    overlap = Q()
    for first, last in spans:
        overlap |= Q(first_serial__lte=last, last_serial__gte=first)
    rows = list(
        CouponRange.objects.select_for_update(of=("self",))
        .filter(overlap, series=series, closed_by__isnull=True)
        .select_related("since", "opened_by")
        .order_by("first_serial")
    )
    # Every serial asked for must be in an open range in an accepted state.
    missing = spans_.subtract(spans, [(r.first_serial, r.last_serial) for r in rows])
    if missing and _already_received(series, missing):
        # Received, yet no open range: another transaction moved them while this one waited for the lock.
        raise ValidationError(
            f"Serials {spans_.describe(series, missing)} of {series.name} were just moved by someone else. "
            f"Reload the page and try again."
        )
    if missing:
        raise ValidationError(
            f"Serials {spans_.describe(series, missing)} of {series.name} were never received into the ledger."
        )
    refusals = []
    for row in rows:
        if row.state not in accepted:
            inside = [(max(f, row.first_serial), min(lt, row.last_serial)) for f, lt in spans
                      if f <= row.last_serial and lt >= row.first_serial]
            refusals.append(
                f"Serials {spans_.describe(series, inside)} of {series.name} are {_state_words(row.state)} "
                f"(since {_day(row.since.gaming_date)}); {step}."
            )
    if refusals:
        raise ValidationError(refusals)
    return _move_rows(document=document, series=series, rows=rows, spans=spans, kind=kind, to_state=to_state,
                      location=location, reason=reason)


def _move_rows(
    *,
    document: Any,
    series: CouponSeries,
    rows: Sequence[CouponRange],
    spans: Sequence[Span] | None,
    kind: str,
    to_state: str,
    location: StorageLocation | None = None,
    reason: str = "",
) -> list[LedgerLine]:
    """Close ``rows`` and reopen them with the parts inside ``spans`` (all, if None) in ``to_state``."""
    # Each serial's history runs forward in gaming days, so "what was held at the end of a day" can be
    # read from the ranges (the finance reconciliation does): no movement is dated before the last one.
    late = [r for r in rows if r.opened_by.gaming_date > document.gaming_date]
    if late:
        raise ValidationError(
            f"Serials {spans_.describe(series, [(r.first_serial, r.last_serial) for r in late])} of {series.name} "
            f"were last moved on {_day(max(r.opened_by.gaming_date for r in late))}; a movement cannot be recorded "
            f"on an earlier gaming day ({_day(document.gaming_date)})."
        )
    doc_type = _document_type(document)
    pieces: list[tuple[CouponRange, int, int]] = []
    for row in rows:
        inside = [(row.first_serial, row.last_serial)] if spans is None else [
            (max(f, row.first_serial), min(lt, row.last_serial)) for f, lt in spans
            if f <= row.last_serial and lt >= row.first_serial
        ]
        pieces.extend((row, first, last) for first, last in inside)
    lines = [
        # A location is kept only while the coupons stay in the same custody (e.g. voiding stock in
        # the vault); coupons handed over leave the location behind unless the step names a new one.
        _line(document, series, kind, first, last, last - first + 1, from_state=row.state, to_state=to_state,
              reason=reason, location=location if location is not None else (
                  row.location if to_state == row.state else None), doc_type=doc_type)
        for row, first, last in pieces
    ]
    lines = regulated_bulk_create(LedgerLine, lines)
    line_of_piece = {(row.pk, first): line for (row, first, _), line in zip(pieces, lines, strict=True)}
    new_rows: list[CouponRange] = []
    try:
        with transaction.atomic():
            for row in rows:
                moved = [(f, lt) for (r, f, lt) in pieces if r.pk == row.pk]
                row.closed_by = line_of_piece[(row.pk, moved[0][0])]
                row.save(update_fields=["closed_by"])
                for first, last in moved:
                    line = line_of_piece[(row.pk, first)]
                    new_rows.append(CouponRange(
                        facility_id=row.facility_id, series=series, first_serial=first, last_serial=last,
                        state=to_state, location=line.location, opened_by=line, since=line,
                    ))
                for first, last in spans_.subtract([(row.first_serial, row.last_serial)], moved):
                    new_rows.append(CouponRange(
                        facility_id=row.facility_id, series=series, first_serial=first, last_serial=last,
                        state=row.state, location=row.location, opened_by=row.closed_by, since=row.since,
                    ))
            regulated_bulk_create(CouponRange, new_rows)
    except IntegrityError:
        raise ValidationError(
            "Those coupons changed state while you were working (someone else recorded a movement). "
            "Reload the page and try again."
        ) from None
    return lines


def _open_rows(facility: Facility, states: Iterable[str], **filters: Any) -> list[CouponRange]:
    return list(
        CouponRange.objects.select_for_update(of=("self",))
        .filter(facility=facility, state__in=list(states), closed_by__isnull=True, **filters)
        .select_related("series", "since", "opened_by")
        .order_by("series_id", "first_serial")
    )


def _by_series(rows: Iterable[CouponRange]) -> dict[CouponSeries, list[CouponRange]]:
    grouped: dict[CouponSeries, list[CouponRange]] = {}
    for row in rows:
        grouped.setdefault(row.series, []).append(row)
    return grouped


def _require_facility(series: CouponSeries, facility: Facility) -> None:
    if series.facility_id != facility.pk:
        raise ValidationError(f"{series.name} belongs to another facility.")


def _lock_facility(facility: Facility) -> None:
    """Take the facility's row lock: closing a marketing day, processing it and every movement that checks
    the day is open take turns, so nothing commits into a day while its form is being signed.

    ``FOR NO KEY UPDATE``: it conflicts with itself but not with the key-share locks every insert of
    a row referencing the facility takes, so the rest of the system is not held up (nor deadlocked by
    a transaction that inserted such a row before asking for this lock)."""
    Facility.objects.select_for_update(no_key=True).filter(pk=facility.pk).values_list("pk", flat=True).first()


def _not_in_future(gaming_date: date, what: str) -> None:
    if gaming_date > _today():
        raise ValidationError(
            f"{what} on {_day(gaming_date)}, a gaming day that has not started: record it on the gaming day it "
            f"happens ({_day(_today())})."
        )


def _marketing_day_open(facility: Facility, gaming_date: date) -> None:
    _lock_facility(facility)
    form = ReconciliationForm.objects.filter(facility=facility, gaming_date=gaming_date).first()
    if form is not None:
        raise ValidationError(
            f"The reconciliation form for {_day(gaming_date)} was completed (form #{form.pk}): that marketing day "
            f"is closed. Record this on the next gaming day."
        )


# --------------------------------------------------------------------------------------------
# Receipt, § 525.21(e)–(f)
# --------------------------------------------------------------------------------------------
def _already_received(series: CouponSeries, spans: Sequence[Span]) -> list[str]:
    overlap = Q()
    for first, last in spans:
        overlap |= Q(first_serial__lte=last, last_serial__gte=first)
    clashes = LedgerLine.objects.filter(overlap, series=series, kind=K.RECEIVE).order_by("first_serial")
    words = []
    for line in clashes:
        assert line.first_serial is not None and line.last_serial is not None
        inside = [(max(f, line.first_serial), min(lt, line.last_serial)) for f, lt in spans
                  if f <= line.last_serial and lt >= line.first_serial]
        words.append(
            f"Serials {spans_.describe(series, inside)} of {series.name} were already received on "
            f"{_day(line.gaming_date)} (receipt #{line.document_id})."
        )
    return words


def invoice_serials_reversed(first: int, last: int) -> str:
    return (
        f"The invoice's first serial ({first}) is after its last serial ({last}); enter them as printed on the "
        f"invoice, first then last (§ 525.21(f)(3))."
    )


def _deviation(invoice_quantity: int, invoice_first: int, invoice_last: int, received: Sequence[Span],
               series: CouponSeries) -> str:
    problems = []
    quantity = spans_.count(received)
    if quantity != invoice_quantity:
        problems.append(f"the invoice lists {invoice_quantity:,} coupons but {quantity:,} were received")
    if invoice_last - invoice_first + 1 != invoice_quantity:
        problems.append(
            f"the invoice serials {series.span(invoice_first, invoice_last)} do not add up to its quantity "
            f"of {invoice_quantity:,}"
        )
    short = spans_.subtract([(invoice_first, invoice_last)], received)
    if short:
        problems.append(f"serials {spans_.describe(series, short)} on the invoice were not received")
    extra = spans_.subtract(received, [(invoice_first, invoice_last)])
    if extra:
        problems.append(f"serials {spans_.describe(series, extra)} were received but are not on the invoice")
    return "; ".join(problems).capitalize() + ("." if problems else "")


@transaction.atomic
@_as_user
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
    and examined the coupons and sign now; the others sign later on the signing page.
    """
    require_capability(user, Capability.RECORD_COUPON_RECEIPT)
    _require_facility(series, facility)
    if received_on > _today():
        raise ValidationError("The date received is in the future.")
    if source == CouponReceipt.Source.INTERNAL:
        # § 525.21(p): coupons may be printed in house only under approved production controls.
        _require_gates(series, received_on, internal_print=True)
    _require_location(location, StorageLocation.Department.FINANCE, "§ 525.21(i)")
    if invoice_first_serial > invoice_last_serial:
        raise ValidationError(invoice_serials_reversed(invoice_first_serial, invoice_last_serial))
    if any(first > last for first, last in received):
        raise ValidationError("A range of serials received starts after it ends; enter the first serial first.")
    received = spans_.merge(received)
    if not received:
        raise ValidationError("Enter the serials received.")
    # Receipts of one series take turns: two simultaneous inserts checking the same exclusion
    # constraint can deadlock on PostgreSQL, and waiting here lets the second see the first's serials.
    CouponSeries.objects.select_for_update().filter(pk=series.pk).first()
    clashes = _already_received(series, received)
    if clashes:
        raise ValidationError(clashes)
    deviation = _deviation(invoice_quantity, invoice_first_serial, invoice_last_serial, received, series)
    receipt = _create(
        CouponReceipt, user, facility=facility, series=series, gaming_date=received_on, source=source,
        supplier=supplier, invoice_number=invoice_number, invoice_quantity=invoice_quantity,
        invoice_first_serial=invoice_first_serial, invoice_last_serial=invoice_last_serial,
        quantity=spans_.count(received), first_serial=received[0][0], last_serial=received[-1][1],
        location=location, custodian=user, deviation=deviation,
    )
    doc_type = _document_type(receipt)
    lines = [
        _line(receipt, series, K.RECEIVE, first, last, last - first + 1, to_state=S.IN_STOCK, location=location,
              doc_type=doc_type)
        for first, last in received
    ]
    try:
        with transaction.atomic(), acting_as(user):
            lines = regulated_bulk_create(LedgerLine, lines)
            regulated_bulk_create(CouponRange, [
                CouponRange(facility=facility, series=series, first_serial=first, last_serial=last,
                            state=S.IN_STOCK, location=location, opened_by=line, since=line)
                for line, (first, last) in zip(lines, received, strict=True)
            ])
    except IntegrityError:
        # Another receipt of the same serials committed between the check and the insert.
        raise ValidationError(_already_received(series, received) or ["Those serials were just received."]) from None
    _sign(receipt, "recorded", user, password)
    for slot, co_signer in examiners:
        _cosign(receipt, slot, co_signer)
    if deviation:
        _deviation_report_open(receipt, user)
    return receipt


def _finance_supervisor_emails(facility: Facility) -> list[str]:
    users = get_user_model().objects.filter(
        groups__name=Role.FINANCE_SUPERVISOR, profile__facilities=facility, profile__active=True
    ).exclude(email="")
    return sorted({u.email for u in users})


def _deviation_report_open(receipt: CouponReceipt, user: Any) -> DeviationReport:
    recipients = [*_finance_supervisor_emails(receipt.facility), settings.BCC_BUREAU_EMAIL]
    with acting_as(user):
        report = DeviationReport.objects.create(
            facility=receipt.facility, receipt=receipt, description=receipt.deviation,
            reported_to=", ".join(r for r in recipients if r),
        )
    from coupons.tasks import send_deviation_report

    transaction.on_commit(lambda: send_deviation_report.delay(report.pk))
    return report


def deviation_report_send(*, report: DeviationReport) -> None:
    """Email the deviation report to finance supervisors and the Bureau of Casino Compliance (§ 525.21(e))."""
    from django.core.mail import send_mail

    receipt = report.receipt
    recipients = [r.strip() for r in report.reported_to.split(",") if r.strip()]
    if not recipients:
        return
    send_mail(
        subject=f"[{report.facility.name}] Match Play Coupon deviation report #{report.pk} (58 Pa. Code § 525.21(e))",
        message=(
            f"Facility: {report.facility.name} ({report.facility.certificate_holder})\n"
            f"Receipt #{receipt.pk} of {_day(receipt.gaming_date)} from {receipt.supplier}, "
            f"invoice {receipt.invoice_number}\n"
            f"Series: {receipt.series.name} ({receipt.series.denomination})\n"
            f"Invoice: {receipt.invoice_quantity:,} coupons, "
            f"{receipt.series.span(receipt.invoice_first_serial, receipt.invoice_last_serial)}\n"
            f"Received: {receipt.quantity:,} coupons\n\nDeviation: {report.description}\n"
        ),
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=recipients,
    )
    report.emailed_at = timezone.now()
    report.save(update_fields=["emailed_at"])


@transaction.atomic
@_as_user
def deviation_report_close(*, report: DeviationReport, resolution: str, user: Any) -> DeviationReport:
    require_capability(user, Capability.CLOSE_COUPON_DEVIATION)
    if not resolution.strip():
        raise ValidationError("Say how the deviation was resolved.")
    report.status = DeviationReport.Status.CLOSED
    report.resolution = resolution.strip()
    with acting_as(user):
        report.save()
    return report


# --------------------------------------------------------------------------------------------
# Requisition and issuance, § 525.21(g)–(h)
# --------------------------------------------------------------------------------------------
@transaction.atomic
@_as_user
def requisition_prepare(
    *,
    facility: Facility,
    program: CouponProgram,
    denomination_cents: int,
    quantity: int,
    needed_for: date,
    user: Any,
    password: str | None,
    prepared_on: date | None = None,
    promotion: str = "",
) -> CouponRequisition:
    require_capability(user, Capability.REQUISITION_COUPONS)
    prepared_on = prepared_on or _today()
    if quantity <= 0:
        raise ValidationError("Enter how many coupons are needed.")
    if needed_for < prepared_on:
        raise ValidationError("The date the coupons are needed is before the date the requisition is prepared.")
    requisition = _create(
        CouponRequisition, user, facility=facility, program=program, prepared_on=prepared_on, needed_for=needed_for,
        promotion=promotion, denomination_cents=denomination_cents, quantity=quantity,
    )
    _sign(requisition, "requisitioned", user, password)
    return requisition


def _correction_chain(requisition: CouponRequisition) -> list[int]:
    """The ids of a requisition and of every requisition it corrects, directly or through others."""
    chain, current = [requisition.pk], requisition
    while current.corrects_id is not None:
        chain.append(current.corrects_id)
        current = CouponRequisition.objects.only("pk", "corrects_id").get(pk=current.corrects_id)
    return chain


def _newest_correction(requisition: CouponRequisition) -> CouponRequisition:
    current = requisition
    while current.is_superseded:
        current = CouponRequisition.objects.get(corrects=current)
    return current


def _issued_so_far(requisition: CouponRequisition) -> int:
    """Coupons issued against the requisition and against the versions it corrects: a correction
    restates the need (e.g. 120 instead of 100), it does not add to what was already handed over."""
    return sum(CouponIssuance.objects.filter(requisition_id__in=_correction_chain(requisition))
               .values_list("quantity", flat=True))


def _require_examined_receipts(series: CouponSeries, spans: Sequence[Span]) -> None:
    overlap = Q()
    for first, last in spans:
        overlap |= Q(first_serial__lte=last, last_serial__gte=first)
    ids = set(LedgerLine.objects.filter(overlap, series=series, kind=K.RECEIVE).values_list("document_id", flat=True))
    receipts = CouponReceipt.objects.filter(pk__in=ids).prefetch_related("signatures")
    for receipt in receipts:
        if receipt.missing_signatures:
            who = ", ".join(r.label.lower() for r in receipt.missing_signatures)
            raise ValidationError(
                f"Receipt #{receipt.pk} of these coupons is not complete: it still needs the signature of the {who} "
                f"(§ 525.21(e)–(f))."
            )


@transaction.atomic
@_as_user
def issuance_record(
    *,
    requisition: CouponRequisition,
    series: CouponSeries,
    issued: Sequence[Span],
    user: Any,
    password: str | None,
    gaming_date: date | None = None,
    voids: Sequence[tuple[Sequence[Span], str]] = (),
    receiver: CoSigner | None = None,
) -> CouponIssuance:
    """Record the coupons issued to marketing before handing them over, § 525.21(h).

    The issuance is dated the gaming day of the hand-over (default: today), never the requisition's
    "needed for" date: from the hand-over marketing holds the coupons, so they are on that day's form
    (received) and, if kept, carried into the next. The requisition keeps its date, § 525.21(g)(2).
    """
    require_capability(user, Capability.ISSUE_COUPONS)
    facility = requisition.facility
    gaming_date = gaming_date or _today()
    _not_in_future(gaming_date, "Coupons are issued to marketing when they are handed over, not")
    requisition = CouponRequisition.objects.select_for_update().get(pk=requisition.pk)
    if requisition.is_superseded:
        newest = _newest_correction(requisition)
        raise ValidationError(
            f"Requisition #{requisition.pk} was corrected by requisition #{newest.pk}; issue against the "
            f"correction (§ 525.21(g))."
        )
    if requisition.missing_signatures:
        raise ValidationError(
            f"Requisition #{requisition.pk} is not authorized yet: it needs the signature of the "
            f"{', '.join(r.label.lower() for r in requisition.missing_signatures)} (§ 525.21(g))."
        )
    if series.facility_id != facility.pk:
        raise ValidationError("That series belongs to another facility.")
    if series.denomination_cents != requisition.denomination_cents or series.program_id != requisition.program_id:
        raise ValidationError(
            f"Requisition #{requisition.pk} asks for {format_cents(requisition.denomination_cents)} "
            f"{requisition.program.name}s; {series.name} is {series.denomination}."
        )
    _require_gates(series, gaming_date)
    if series.is_expired_on(max(gaming_date, requisition.needed_for)):
        raise ValidationError(
            f"{series.name} expires on {_day(series.expires_on)}, before the coupons are needed "
            f"({_day(requisition.needed_for)}); it cannot be issued."
            if not series.is_expired_on(gaming_date)
            else f"{series.name} expired on {_day(series.expires_on)}; it cannot be issued."
        )
    _marketing_day_open(facility, gaming_date)
    issued = spans_.merge(issued)
    if not issued and not voids:
        raise ValidationError("Enter the serials issued (or voided).")
    quantity = spans_.count(issued)
    outstanding = requisition.quantity - _issued_so_far(requisition)
    if quantity > outstanding:
        raise ValidationError(
            f"Requisition #{requisition.pk} leaves {outstanding:,} coupons to issue; you entered {quantity:,}."
        )
    void_spans = [(spans_.merge(s), reason.strip()) for s, reason in voids]
    for _, reason in void_spans:
        if not reason:
            raise ValidationError("Explain why the coupons were voided (§ 525.21(h)(4)).")
    every = [*issued, *(sp for s, _ in void_spans for sp in s)]
    if spans_.count(spans_.merge(every)) != spans_.count(every):
        raise ValidationError("A serial is both issued and voided; list it once.")
    _require_examined_receipts(series, every)
    issuance = _create(
        CouponIssuance, user, facility=facility, requisition=requisition, series=series, gaming_date=gaming_date,
        quantity=quantity, voided_quantity=sum(spans_.count(s) for s, _ in void_spans),
    )
    if issued:
        _move(document=issuance, series=series, spans=issued, kind=K.ISSUE, from_states=[S.IN_STOCK],
              to_state=S.ISSUED, step="only coupons in finance stock can be issued")
    for void, reason in void_spans:
        _move(document=issuance, series=series, spans=void, kind=K.VOID, from_states=[S.IN_STOCK],
              to_state=S.VOIDED, reason=reason, step="only coupons in finance stock can be voided at issuance")
    _sign(issuance, "issued", user, password)
    _cosign(issuance, "received", receiver)
    return issuance


# --------------------------------------------------------------------------------------------
# Marketing's day: distribution, voids, the reconciliation form, returns, § 525.21(j)–(l)
# --------------------------------------------------------------------------------------------
def _overlapping(spans: Sequence[Span]) -> Q:
    overlap = Q()
    for first, last in spans:
        overlap |= Q(first_serial__lte=last, last_serial__gte=first)
    return overlap


def _require_received_by_marketing(series: CouponSeries, spans: Sequence[Span]) -> None:
    """Marketing gives out only coupons whose hand-over it signed ("received" on the issuance)."""
    if not spans:
        return
    ids = set(
        CouponRange.objects.filter(_overlapping(spans), series=series, closed_by__isnull=True, state=S.ISSUED,
                                   since__kind=K.ISSUE).values_list("since__document_id", flat=True)
    )
    for issuance in CouponIssuance.objects.filter(pk__in=ids).prefetch_related("signatures").order_by("pk"):
        if any(r.slot == "received" for r in issuance.missing_signatures):
            raise ValidationError(
                f"Issuance #{issuance.pk} of these coupons has not been signed as received by a marketing "
                f"supervisor: the coupons can be given to patrons once the hand-over is signed (§ 525.21(h))."
            )


@transaction.atomic
@_as_user
def distribution_record(
    *, facility: Facility, series: CouponSeries, spans: Sequence[Span], user: Any, gaming_date: date | None = None
) -> CouponDistribution:
    """Coupons handed to patrons, by range or one scan (a range of one)."""
    require_capability(user, Capability.DISTRIBUTE_COUPONS)
    _require_facility(series, facility)
    gaming_date = gaming_date or _today()
    _not_in_future(gaming_date, "Coupons are recorded as distributed when they are handed to patrons, not")
    _require_gates(series, gaming_date)
    if series.is_expired_on(gaming_date):
        raise ValidationError(
            f"{series.name} expired on {_day(series.expires_on)}: it cannot be given to patrons and must be "
            f"returned to finance today (§ 525.21(k))."
        )
    _marketing_day_open(facility, gaming_date)
    spans = spans_.merge(spans)
    _require_received_by_marketing(series, spans)
    distribution = _create(CouponDistribution, user, facility=facility, series=series, gaming_date=gaming_date,
                           quantity=spans_.count(spans))
    _move(document=distribution, series=series, spans=spans, kind=K.DISTRIBUTE, from_states=[S.ISSUED],
          to_state=S.DISTRIBUTED, step="only coupons issued to marketing can be distributed")
    return distribution


@transaction.atomic
@_as_user
def void_record(
    *,
    facility: Facility,
    series: CouponSeries,
    spans: Sequence[Span],
    reason: str,
    user: Any,
    password: str | None,
    gaming_date: date | None = None,
) -> CouponVoid:
    """Void coupons held by marketing (or in finance stock), with the reason, § 525.21(j)(6).

    Who may void depends on who holds the coupons, checked before anything is written: coupons in
    finance stock are controlled by a finance supervisor (§ 525.21(i)); coupons marketing holds, by a
    marketing supervisor, while the marketing day is open (§ 525.21(j)(6)).
    """
    can_finance = has_capability(user, Capability.ISSUE_COUPONS)
    can_marketing = has_capability(user, Capability.RECONCILE_MARKETING_DAY)
    if not (can_finance or can_marketing):
        require_capability(user, Capability.ISSUE_COUPONS)
    if not reason.strip():
        raise ValidationError("Explain why the coupons are voided (§ 525.21(j)(6)).")
    _require_facility(series, facility)
    gaming_date = gaming_date or _today()
    _not_in_future(gaming_date, "Coupons are voided on the gaming day they are voided, not")
    spans = spans_.merge(spans)
    _lock_facility(facility)
    rows = list(CouponRange.objects.select_for_update(of=("self",)).filter(
        _overlapping(spans), series=series, closed_by__isnull=True, state__in=[S.IN_STOCK, S.ISSUED]))

    def inside(state: str) -> list[Span]:
        return spans_.merge([(max(f, r.first_serial), min(lt, r.last_serial)) for r in rows if r.state == state
                             for f, lt in spans if f <= r.last_serial and lt >= r.first_serial])

    in_stock, held = inside(S.IN_STOCK), inside(S.ISSUED)
    if in_stock and not can_finance:
        raise ValidationError(
            f"Serials {spans_.describe(series, in_stock)} of {series.name} are in finance stock: coupons not issued "
            f"are controlled by a finance department supervisor (§ 525.21(i)), who voids them."
        )
    if held and not can_marketing:
        raise ValidationError(
            f"Serials {spans_.describe(series, held)} of {series.name} are held by marketing: a marketing "
            f"supervisor voids them on the reconciliation form's day (§ 525.21(j)(6))."
        )
    if held:
        _marketing_day_open(facility, gaming_date)
    void = _create(CouponVoid, user, facility=facility, series=series, gaming_date=gaming_date,
                   quantity=spans_.count(spans_.merge(spans)), reason=reason.strip())
    rows_states = [S.ISSUED, S.IN_STOCK]
    _move(document=void, series=series, spans=spans, kind=K.VOID, from_states=rows_states, to_state=S.VOIDED,
          reason=reason.strip(), step="only coupons in finance stock or held by marketing can be voided")
    _sign(void, "voided", user, password)
    return void


@dataclass
class DayFigure:
    denomination_cents: int
    carried_in: int = 0
    received: int = 0
    distributed: int = 0
    voided: int = 0
    returned: int = 0

    @property
    def to_distribute(self) -> int:
        return self.carried_in + self.received

    @property
    def remaining(self) -> int:
        return self.to_distribute - self.distributed - self.voided - self.returned

    @property
    def denomination(self) -> str:
        return format_cents(self.denomination_cents)


def day_figures(facility: Facility, gaming_date: date) -> list[DayFigure]:
    """Marketing's figures for a gaming day by denomination, from the ledger (one aggregate query)."""
    from django.db.models import Case, F, IntegerField, Sum, When

    def total(condition: Q) -> Any:
        return Sum(Case(When(condition, then=F("quantity")), default=0, output_field=IntegerField()))

    on_day = Q(gaming_date=gaming_date)
    before = Q(gaming_date__lt=gaming_date)
    rows = (
        LedgerLine.objects.filter(facility=facility, gaming_date__lte=gaming_date)
        .values("denomination_cents")
        .annotate(
            in_before=total(before & Q(to_state=S.ISSUED) & ~Q(from_state=S.ISSUED)),
            out_before=total(before & Q(from_state=S.ISSUED) & ~Q(to_state=S.ISSUED)),
            received=total(on_day & Q(kind=K.ISSUE)),
            distributed=total(on_day & Q(kind=K.DISTRIBUTE)),
            voided=total(on_day & Q(kind=K.VOID, from_state=S.ISSUED)),
            returned=total(on_day & Q(kind=K.RETURN)),
        )
        .order_by("denomination_cents")
    )
    figures = []
    for row in rows:
        figure = DayFigure(
            denomination_cents=row["denomination_cents"],
            carried_in=(row["in_before"] or 0) - (row["out_before"] or 0),
            received=row["received"] or 0,
            distributed=row["distributed"] or 0,
            voided=row["voided"] or 0,
            returned=row["returned"] or 0,
        )
        if figure.to_distribute or figure.distributed or figure.voided or figure.returned:
            figures.append(figure)
    return figures


def held_at_end_of(facility: Facility, gaming_date: date, *, still_held: bool = False) -> dict[int, int]:
    """Coupons marketing held at the end of ``gaming_date``, by denomination, read from the ranges (not
    from the day's ledger lines): the ranges in the issued state opened on or before that day and not
    closed until a later one. ``still_held``: only those marketing still holds now, untouched since."""
    from django.db.models import F, Sum

    rows = CouponRange.objects.filter(facility=facility, state=S.ISSUED, opened_by__gaming_date__lte=gaming_date)
    rows = rows.filter(closed_by__isnull=True) if still_held else rows.filter(
        Q(closed_by__isnull=True) | Q(closed_by__gaming_date__gt=gaming_date))
    totals = (rows.values("series__denomination_cents")
              .annotate(n=Sum(F("last_serial") - F("first_serial") + 1)).order_by())
    return {row["series__denomination_cents"]: int(row["n"]) for row in totals if row["n"]}


def expired_held_by_marketing(facility: Facility, on_date: date) -> list[CouponRange]:
    """Coupons marketing still holds whose series has expired: they must go back today, § 525.21(k)."""
    from coupons.selectors import expired_held

    return expired_held(facility, on_date)


@transaction.atomic
@_as_user
def return_record(
    *,
    facility: Facility,
    user: Any,
    password: str | None,
    gaming_date: date | None = None,
    returned_on: date | None = None,
    expired_only: bool = False,
    spans: dict[CouponSeries, Sequence[Span]] | None = None,
    reconciliation: ReconciliationForm | None = None,
    receiver: CoSigner | None = None,
) -> CouponReturn:
    """Coupons marketing holds go back to finance, § 525.21(k)–(l): all, only the expired, or given ranges.

    ``user`` is the marketing supervisor returning them (signs "returned"); the receiving finance
    supervisor signs "received" inline (``receiver``) or on the signing page.
    """
    require_capability(user, Capability.RETURN_COUPONS)
    gaming_date = gaming_date or _today()
    returned_on = returned_on or _today()
    _not_in_future(gaming_date, "Coupons are returned on the gaming day they go back to finance, not")
    _not_in_future(returned_on, "Coupons are returned on the day they go back to finance, not")
    if reconciliation is None:
        # The form's own return is part of closing the day; any other return needs the day open.
        _marketing_day_open(facility, gaming_date)
    document = _create(CouponReturn, user, facility=facility, gaming_date=gaming_date, returned_on=returned_on,
                       quantity=0, expired_only=expired_only, reconciliation=reconciliation)
    moved = 0
    if spans is None:
        # What marketing held at the end of the gaming day (nothing handed over on a later day).
        filters: dict[str, Any] = {"opened_by__gaming_date__lte": gaming_date}
        if expired_only:
            filters["series__expires_on__lt"] = gaming_date
        for series, rows in _by_series(_open_rows(facility, [S.ISSUED], **filters)).items():
            lines = _move_rows(document=document, series=series, rows=rows, spans=None, kind=K.RETURN,
                               to_state=S.RETURNED)
            moved += sum(line.quantity for line in lines)
    else:
        for series, wanted in spans.items():
            _require_facility(series, facility)
            lines = _move(document=document, series=series, spans=wanted, kind=K.RETURN, from_states=[S.ISSUED],
                          to_state=S.RETURNED, step="only coupons held by marketing can be returned")
            moved += sum(line.quantity for line in lines)
    if moved == 0:
        raise ValidationError("Marketing holds no coupons to return." if not expired_only
                              else "Marketing holds no expired coupons.")
    document.quantity = moved
    with acting_as(user):
        document.save(update_fields=["quantity"])
    _sign(document, "returned", user, password)
    _cosign(document, "received", receiver)
    return document


@transaction.atomic
@_as_user
def reconciliation_complete(
    *,
    facility: Facility,
    gaming_date: date,
    counted_remaining: dict[int, int],
    user: Any,
    password: str,
    variation_explanation: str = "",
    disposition: str = ReconciliationForm.Disposition.RETURN,
    kept_in: StorageLocation | None = None,
    receiver: CoSigner | None = None,
) -> ReconciliationForm:
    """Complete and sign the day's reconciliation form, closing the marketing day, § 525.21(j)–(k).

    ``counted_remaining``: coupons physically left, by denomination in cents. A difference from the
    ledger is a variation that must be explained. Undistributed coupons then go back to finance
    (a return is recorded and signed "returned") or stay in an approved locked marketing area and
    are carried onto the next day's form.
    """
    require_capability(user, Capability.RECONCILE_MARKETING_DAY)
    _marketing_day_open(facility, gaming_date)
    expired = expired_held_by_marketing(facility, gaming_date)
    if expired:
        raise ValidationError(
            "Expired coupons must be returned to finance every day before the day is closed (§ 525.21(k)): "
            + "; ".join(f"{r.series.span(r.first_serial, r.last_serial)} ({r.series.name}, expired "
                        f"{_day(r.series.expires_on)})" for r in expired)
        )
    unreceived = [
        i for i in CouponIssuance.objects.filter(facility=facility, gaming_date=gaming_date).prefetch_related(
            "signatures") if i.requirement("received") and any(r.slot == "received" for r in i.missing_signatures)
    ]
    if unreceived:
        raise ValidationError(
            f"Issuance #{unreceived[0].pk} has not been signed as received by a marketing supervisor; sign it first "
            f"so the form shows what marketing received."
        )
    figures = day_figures(facility, gaming_date)
    uncounted = [f.denomination for f in figures if f.remaining and f.denomination_cents not in counted_remaining]
    if uncounted:
        raise ValidationError(
            f"Count the coupons remaining ({', '.join(uncounted)}) and enter what you counted; the form records the "
            f"physical count against the ledger (§ 525.21(j)(5))."
        )
    variations = []
    for figure in figures:
        counted = counted_remaining.get(figure.denomination_cents, 0)
        if counted < 0:
            raise ValidationError("A count cannot be negative.")
        if counted != figure.remaining:
            variations.append(
                f"{figure.denomination}: the ledger expects {figure.remaining:,} remaining, {counted:,} were counted"
            )
    unknown = set(counted_remaining) - {f.denomination_cents for f in figures}
    if any(counted_remaining[d] for d in unknown):
        variations.append("coupons were counted in a denomination marketing did not hold today")
    if variations and not variation_explanation.strip():
        raise ValidationError(
            "The count differs from the ledger (" + "; ".join(variations) + "). Explain the variation before "
            "signing (§ 525.21(j)(7))."
        )
    remaining = sum(f.remaining for f in figures)
    if disposition == ReconciliationForm.Disposition.RETURN and remaining:
        held = held_at_end_of(facility, gaming_date, still_held=True)
        moved_since = [f.denomination for f in figures if held.get(f.denomination_cents, 0) != f.remaining]
        if moved_since:
            raise ValidationError(
                f"Some {', '.join(moved_since)} coupons left at the end of {_day(gaming_date)} were moved on a later "
                f"gaming day, so they cannot all go back with this form; keep them for the next day instead."
            )
    if disposition == ReconciliationForm.Disposition.KEEP and remaining:
        kept_in = _require_location(kept_in, StorageLocation.Department.MARKETING, "§ 525.21(k)")
    else:
        kept_in = None
    position = LedgerLine.objects.filter(facility=facility).order_by("-pk").values_list("pk", flat=True).first() or 0
    try:
        with transaction.atomic():
            form = _create(
                ReconciliationForm, user, facility=facility, gaming_date=gaming_date,
                variation_explanation=variation_explanation.strip(), disposition=disposition, kept_in=kept_in,
                ledger_position=position,
            )
    except IntegrityError:
        raise ValidationError(
            f"Another supervisor completed the reconciliation form for {_day(gaming_date)} just now; that marketing "
            f"day is closed. Reload the page to see their form."
        ) from None
    with acting_as(user):
        regulated_bulk_create(ReconciliationFigure, [
            ReconciliationFigure(
                form=form, denomination_cents=f.denomination_cents, carried_in=f.carried_in, received=f.received,
                distributed=f.distributed, voided=f.voided, returned=f.returned, remaining_expected=f.remaining,
                remaining_counted=counted_remaining.get(f.denomination_cents, 0),
            )
            for f in figures
        ])
    _sign(form, "completed", user, password)
    if disposition == ReconciliationForm.Disposition.RETURN and remaining:
        return_record(facility=facility, user=user, password=password, gaming_date=gaming_date,
                      reconciliation=form, receiver=receiver)
    return form


# --------------------------------------------------------------------------------------------
# Finance daily processing, § 525.21(m); expiry; redemption (seam)
# --------------------------------------------------------------------------------------------
@transaction.atomic
@_as_user
def finance_day_process(
    *,
    facility: Facility,
    gaming_date: date,
    counted_returned: int,
    counted_voided: int,
    counted_redeemed: int,
    user: Any,
    password: str,
    restock_location: StorageLocation | None = None,
    notes: str = "",
) -> FinanceDayProcessing:
    """Count, examine, review signatures, cancel and reconcile a gaming day, § 525.21(m).

    Reconciles, each side read independently (§ 525.21(m)(3)):

    * the ledger's movements of the day (issued, returned, voided, distributed lines) against what
      marketing held by the ranges: carried in (held at the end of the day before) + issued =
      returned + voided + distributed + kept (held at the end of the day);
    * the form's frozen figures against those movements and holdings (anything recorded into the day
      after the form was signed shows here), and marketing's own counted variation;
    * finance's physical counts of returned, voided and redeemed coupons against the ledger.

    Any difference is a variance: an exception report to internal audit, due two days after the day.
    """
    require_capability(user, Capability.PROCESS_FINANCE_DAY)
    _lock_facility(facility)
    if FinanceDayProcessing.objects.filter(facility=facility, gaming_date=gaming_date).exists():
        raise ValidationError(f"{_day(gaming_date)} was already processed by finance.")
    figures = day_figures(facility, gaming_date)
    form = ReconciliationForm.objects.filter(facility=facility, gaming_date=gaming_date).prefetch_related(
        "figures", "signatures").first()
    if figures and (form is None or not form.is_complete):
        raise ValidationError(
            f"Marketing's reconciliation form for {_day(gaming_date)} is not completed and signed; finance processes "
            f"the day from it (§ 525.21(m))."
        )
    pending_signatures = [
        doc for model in (CouponReturn, CouponIssuance)
        for doc in model.objects.filter(facility=facility, gaming_date=gaming_date).prefetch_related("signatures")
        if doc.missing_signatures
    ]
    if pending_signatures:
        doc = pending_signatures[0]
        raise ValidationError(
            f"{doc} still needs the signature of the {doc.missing_signatures[0].label.lower()}; review the "
            f"signatures before processing the day (§ 525.21(m)(2))."
        )
    # The coupons waiting for this day's processing: those that reached their state on or before it.
    pending = _open_rows(facility, [S.RETURNED, S.VOIDED, S.REDEEMED], since__gaming_date__lte=gaming_date)
    voided_pending = sum(r.quantity for r in pending if r.state == S.VOIDED)
    redeemed_pending = sum(r.quantity for r in pending if r.state == S.REDEEMED)
    returned_pending = sum(r.quantity for r in pending if r.state == S.RETURNED)
    carried_in = held_at_end_of(facility, gaming_date - timedelta(days=1))
    kept = held_at_end_of(facility, gaming_date)
    moved = {f.denomination_cents: f for f in figures}
    frozen = {f.denomination_cents: f for f in form.figures.all()} if form is not None else {}
    problems: list[str] = []
    variance = 0
    for cents in sorted(set(moved) | set(carried_in) | set(kept) | set(frozen)):
        line = moved.get(cents) or DayFigure(cents)
        denomination = format_cents(cents)
        given = carried_in.get(cents, 0) + line.received
        accounted = line.returned + line.voided + line.distributed + kept.get(cents, 0)
        if given != accounted:
            variance += abs(given - accounted)
            problems.append(
                f"{denomination}: given to marketing {given:,} (carried in {carried_in.get(cents, 0):,} + issued "
                f"{line.received:,}) ≠ returned {line.returned:,} + voided {line.voided:,} + distributed "
                f"{line.distributed:,} + kept {kept.get(cents, 0):,} (off by {given - accounted:,})"
            )
        figure = frozen.get(cents)
        if form is None:
            continue
        returned_with_form = figure.remaining_expected if (
            figure is not None and form.disposition == ReconciliationForm.Disposition.RETURN) else 0
        kept_by_form = figure.remaining_expected if (
            figure is not None and form.disposition == ReconciliationForm.Disposition.KEEP) else 0
        for label, on_form, found in (
            ("carried in", figure.carried_in if figure else 0, carried_in.get(cents, 0)),
            ("received", figure.received if figure else 0, line.received),
            ("distributed", figure.distributed if figure else 0, line.distributed),
            ("voided", figure.voided if figure else 0, line.voided),
            ("returned", (figure.returned if figure else 0) + returned_with_form, line.returned),
            ("kept for the next day", kept_by_form, kept.get(cents, 0)),
        ):
            if on_form != found:
                variance += abs(on_form - found)
                problems.append(f"{denomination} {label}: the signed form has {on_form:,}, the ledger {found:,}")
    # What the stored record shows: the ledger's movements and the ranges' holdings.
    given_total = sum(carried_in.values()) + sum(f.received for f in figures)
    returned_today = sum(f.returned for f in figures)
    distributed = sum(f.distributed for f in figures)
    voided = sum(f.voided for f in figures)
    carried_forward = sum(kept.values())
    for label, counted, expected in (
        ("returned", counted_returned, returned_pending),
        ("voided", counted_voided, voided_pending),
        ("redeemed", counted_redeemed, redeemed_pending),
    ):
        if counted != expected:
            variance += abs(counted - expected)
            problems.append(f"{counted:,} {label} coupons counted, the ledger has {expected:,}")
    form_variance = sum(abs(f.variance) for f in form.figures.all()) if form is not None else 0
    if form_variance:
        variance += form_variance
        problems.append(f"marketing's form reports a variation of {form_variance:,} coupons: "
                        f"{form.variation_explanation if form else ''}")
    to_restock = [r for r in pending if r.state == S.RETURNED and not r.series.is_expired_on(gaming_date)]
    if to_restock:
        restock_location = _require_location(restock_location, StorageLocation.Department.FINANCE, "§ 525.21(i)")
    distributed_to_date, redeemed_to_date = _to_date(facility)
    try:
        with transaction.atomic():
            processing = _create(
                FinanceDayProcessing, user, facility=facility, gaming_date=gaming_date,
                given_to_marketing=given_total, returned=returned_today, voided=voided, distributed=distributed,
                carried_forward=carried_forward, redeemed=redeemed_pending, distributed_to_date=distributed_to_date,
                redeemed_to_date=redeemed_to_date, counted_returned=counted_returned, counted_voided=counted_voided,
                counted_redeemed=counted_redeemed, variance=variance,
                restock_location=restock_location if to_restock else None, notes=notes,
            )
    except IntegrityError:
        raise ValidationError(
            f"Someone else processed {_day(gaming_date)} just now; reload the page to see their record."
        ) from None
    # (m)(2): voided and redeemed coupons are cancelled; returned coupons go back to stock for
    # reissuance, (m)(3) — unless their series has expired, then they leave circulation.
    for series, rows in _by_series(pending).items():
        cancel = [r for r in rows if r.state in (S.VOIDED, S.REDEEMED)]
        returned = [r for r in rows if r.state == S.RETURNED]
        if cancel:
            _move_rows(document=processing, series=series, rows=cancel, spans=None, kind=K.CANCEL,
                       to_state=S.CANCELLED)
        if returned and series.is_expired_on(gaming_date):
            _move_rows(document=processing, series=series, rows=returned, spans=None, kind=K.EXPIRE,
                       to_state=S.EXPIRED)
        elif returned:
            _move_rows(document=processing, series=series, rows=returned, spans=None, kind=K.RESTOCK,
                       to_state=S.IN_STOCK, location=restock_location)
    _sign(processing, "reviewed", user, password)
    if variance:
        _exception_report_open(processing, "; ".join(problems).capitalize() + ".", user)
    return processing


def _to_date(facility: Facility) -> tuple[int, int]:
    from django.db.models import Sum

    totals = dict(
        LedgerLine.objects.filter(facility=facility, kind__in=[K.DISTRIBUTE, K.REDEEM])
        .values_list("kind")
        .annotate(total=Sum("quantity"))
        .order_by()
    )
    return int(totals.get(K.DISTRIBUTE, 0) or 0), int(totals.get(K.REDEEM, 0) or 0)


def _internal_audit_emails(facility: Facility) -> list[str]:
    configured = settings.INTERNAL_AUDIT_EMAIL
    if configured:
        return [configured]
    users = get_user_model().objects.filter(
        groups__name=Role.COMPLIANCE_OFFICER, profile__facilities=facility, profile__active=True
    ).exclude(email="")
    return sorted({u.email for u in users} | ({facility.notification_email} if facility.notification_email else set()))


def _exception_report_open(processing: FinanceDayProcessing, description: str, user: Any) -> ExceptionReport:
    with acting_as(user):
        report = ExceptionReport.objects.create(
            facility=processing.facility, processing=processing, gaming_date=processing.gaming_date,
            description=description, variance=processing.variance,
            due_on=processing.gaming_date + timedelta(days=ExceptionReport.DUE_DAYS),
        )
    from coupons.tasks import send_exception_report

    transaction.on_commit(lambda: send_exception_report.delay(report.pk))
    return report


def exception_report_send(*, report: ExceptionReport) -> None:
    from django.core.mail import send_mail

    recipients = _internal_audit_emails(report.facility)
    if not recipients:
        return
    send_mail(
        subject=f"[{report.facility.name}] Match Play Coupon exception report for {_day(report.gaming_date)}",
        message=(
            f"Finance's daily processing of {_day(report.gaming_date)} (58 Pa. Code § 525.21(m)) found a variance "
            f"of {report.variance:,} coupons.\n\n{report.description}\n\nDue for internal audit by "
            f"{_day(report.due_on)}.\n"
        ),
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=recipients,
    )
    report.emailed_at = timezone.now()
    report.save(update_fields=["emailed_at"])


@transaction.atomic
@_as_user
def exception_report_resolve(*, report: ExceptionReport, resolution: str, user: Any) -> ExceptionReport:
    require_capability(user, Capability.RESOLVE_COUPON_EXCEPTION)
    if not resolution.strip():
        raise ValidationError("Describe how the variance was resolved.")
    if report.status == ExceptionReport.Status.RESOLVED:
        raise ValidationError("This exception report is already resolved.")
    report.status = ExceptionReport.Status.RESOLVED
    report.resolution = resolution.strip()
    report.resolved_at = timezone.now()
    report.resolved_by = user
    with acting_as(user):
        report.save()
    return report


@transaction.atomic
@_as_user
def stock_expire(*, series: CouponSeries, user: Any, on_date: date | None = None) -> CouponExpiry:
    """Take expired coupons in finance custody (stock, returned) out of circulation."""
    require_capability(user, Capability.PROCESS_FINANCE_DAY)
    on_date = on_date or _today()
    if not series.is_expired_on(on_date):
        raise ValidationError(f"{series.name} expires on {_day(series.expires_on)}; it has not expired yet.")
    rows = _open_rows(series.facility, [S.IN_STOCK, S.RETURNED], series=series)
    if not rows:
        raise ValidationError(f"Finance holds no unexpired-state coupons of {series.name}.")
    expiry = _create(CouponExpiry, user, facility=series.facility, series=series, gaming_date=on_date,
                     quantity=sum(r.quantity for r in rows))
    _move_rows(document=expiry, series=series, rows=rows, spans=None, kind=K.EXPIRE, to_state=S.EXPIRED)
    return expiry


@transaction.atomic
@_as_user
def redemption_record(
    *, facility: Facility, series: CouponSeries, spans: Sequence[Span], user: Any, gaming_date: date | None = None,
    table: Any = None,
) -> CouponRedemption:
    """Coupons redeemed at a banking table (seam for the redemption issue, which adds its checks and screens)."""
    require_capability(user, Capability.REDEEM_COUPONS)
    _require_facility(series, facility)
    gaming_date = gaming_date or _today()
    _require_gates(series, gaming_date)
    if series.is_expired_on(gaming_date):
        raise ValidationError(f"{series.name} expired on {_day(series.expires_on)} (§ 525.21(q)(5)).")
    redemption = _create(CouponRedemption, user, facility=facility, series=series, gaming_date=gaming_date,
                         quantity=spans_.count(spans_.merge(spans)), table=table)
    _move(document=redemption, series=series, spans=spans, kind=K.REDEEM, from_states=[S.DISTRIBUTED],
          to_state=S.REDEEMED, step="only coupons distributed to patrons can be redeemed")
    return redemption


# --------------------------------------------------------------------------------------------
# Monthly inventory, § 525.21(n)
# --------------------------------------------------------------------------------------------
# What the inventory counts, § 525.21(n) "all Match Play Coupons that are not distributed to patrons":
# finance stock, coupons held by marketing, returned coupons awaiting processing, and the voided and
# expired coupons finance still holds. Distributed, redeemed and cancelled coupons went to patrons or
# were destroyed out of circulation by the daily processing.
INVENTORY_STATES = (S.IN_STOCK, S.ISSUED, S.RETURNED, S.VOIDED, S.EXPIRED)


def expected_inventory(facility: Facility) -> dict[CouponSeries, list[Span]]:
    rows = CouponRange.objects.filter(
        facility=facility, state__in=INVENTORY_STATES, closed_by__isnull=True
    ).select_related("series").order_by("series__code", "first_serial")
    expected: dict[CouponSeries, list[Span]] = {}
    for row in rows:
        expected.setdefault(row.series, []).append((row.first_serial, row.last_serial))
    return {series: spans_.merge(s) for series, s in expected.items()}


@transaction.atomic
@_as_user
def inventory_record(
    *,
    facility: Facility,
    counted: dict[CouponSeries, Sequence[Span]],
    user: Any,
    password: str | None,
    counted_on: date | None = None,
) -> CouponInventory:
    """Record the monthly inventory in the ledger against what the ledger expects; flag discrepancies."""
    require_capability(user, Capability.TAKE_COUPON_INVENTORY)
    counted_on = counted_on or _today()
    if any(series.facility_id != facility.pk for series in counted):
        raise ValidationError("A counted series belongs to another facility.")
    expected = expected_inventory(facility)
    every_series = sorted(set(expected) | set(counted), key=lambda s: s.code)
    inventory = _create(CouponInventory, user, facility=facility, gaming_date=counted_on)
    counts, lines, total = [], [], 0
    doc_type = _document_type(inventory)
    for series in every_series:
        want = expected.get(series, [])
        have = spans_.merge(counted.get(series, []))
        missing, extra = spans_.subtract(want, have), spans_.subtract(have, want)
        words = [f"expected {spans_.count(want):,}, counted {spans_.count(have):,}"]
        if missing:
            words.append(f"not found: {spans_.describe(series, missing)}")
        if extra:
            words.append(f"not expected: {spans_.describe(series, extra)}")
        total += spans_.count(have) - spans_.count(want)
        counts.append(InventoryCount(
            inventory=inventory, series=series, expected_quantity=spans_.count(want),
            expected_ranges=spans_.describe(series, want), counted_quantity=spans_.count(have),
            counted_ranges=spans_.describe(series, have),
        ))
        lines.append(_line(inventory, series, K.INVENTORY, have[0][0] if have else None,
                           have[-1][1] if have else None, spans_.count(have), reason="; ".join(words),
                           doc_type=doc_type))
    with acting_as(user):
        regulated_bulk_create(InventoryCount, counts)
        regulated_bulk_create(LedgerLine, lines)
        # Counted minus expected; when the totals agree but the serials do not, the number of series
        # whose serials differ, so a swapped serial is still flagged.
        inventory.discrepancy = total or sum(1 for c in counts if c.expected_ranges != c.counted_ranges)
        inventory.save(update_fields=["discrepancy"])
    _sign(inventory, "counted", user, password)
    month = counted_on.replace(day=1)
    reminder = InventoryReminder.objects.filter(facility=facility, month=month).first()
    if reminder is not None and reminder.done_by_id is None:
        reminder.done_by = inventory
        with acting_as(user):
            reminder.save(update_fields=["done_by"])
    return inventory


def inventory_due_on(month: date) -> date:
    """Rule: at least one inventory in every calendar month; due by the month's last day."""
    return month.replace(day=calendar.monthrange(month.year, month.month)[1])


INVENTORY_GRACE_DAYS = 1


def inventory_reminders_refresh(*, today: date | None = None) -> int:
    """Create or refresh this month's reminder for every facility (idempotent: one per facility and month)."""
    from compliance.actors import system_user

    today = today or _today()
    month = today.replace(day=1)
    start = month
    changed = 0
    with acting_as(system_user()):
        for facility in Facility.objects.all():
            done = CouponInventory.objects.filter(
                facility=facility, gaming_date__gte=start, gaming_date__lte=inventory_due_on(month),
                signatures__slot="counted",
            ).order_by("gaming_date").first()
            reminder, created = InventoryReminder.objects.get_or_create(
                facility=facility, month=month, defaults={"due_on": inventory_due_on(month), "done_by": done}
            )
            if not created and reminder.done_by_id is None and done is not None:
                reminder.done_by = done
                reminder.checked_at = timezone.now()
                reminder.save()
            changed += int(created)
    return changed

