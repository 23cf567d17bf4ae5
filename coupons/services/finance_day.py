"""Finance's daily processing, § 525.21(m): count, examine, review signatures, cancel and reconcile a
gaming day; the exception report to internal audit; expired stock taken out of circulation."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from compliance import accounts
from compliance.actors import acts_as_system, acts_as_user
from compliance.bounds import require_count, require_day_between, years
from compliance.models import Facility, regulated_bulk_create
from compliance.roles import Capability, require_capability
from compliance.services import record_sign
from coupons.days import day_words, not_in_future, today
from coupons.ledger import by_series, lock_facility, lock_open_rows, move_rows
from coupons.models import (
    CouponExpiry,
    CouponIssuance,
    CouponRange,
    CouponReturn,
    CouponSeries,
    CouponState,
    ExceptionReport,
    FinanceDayFigure,
    FinanceDayProcessing,
    LedgerLine,
    ReconciliationForm,
    StorageLocation,
    format_cents,
)
from coupons.notifications import exception_notification
from coupons.selectors import (
    DayFigure,
    ToDate,
    closed_days,
    day_figures,
    first_day_owing_a_form,
    first_unprocessed_day,
    held_at_end_of,
    to_date_by_denomination,
)
from coupons.services._common import create, report_email, require_day_open, require_location
from coupons.services.redemption_posting import pending_redemptions_post
from coupons.variances import (
    COUNTED_STATES,
    Counts,
    SignedForm,
    Variance,
    count_differences,
    finance_variances,
    same_counts,
)

__all__ = ["CountDiffers", "exception_report_resolve", "exception_report_send", "finance_day_process", "stock_expire"]

S = CouponState
K = LedgerLine.Kind


def _require_next_in_order(facility: Facility, gaming_date: date) -> None:
    """Finance processes each day once, in day order, after every earlier form it needs (§ 525.21(m))."""
    if FinanceDayProcessing.objects.filter(facility=facility, gaming_date=gaming_date).exists():
        raise ValidationError(f"{day_words(gaming_date)} was already processed by finance.")
    last = closed_days(facility).last_processed
    if last is not None and gaming_date < last:
        raise ValidationError(
            f"Finance already processed {day_words(last)}; days are processed in day order and {day_words(gaming_date)} "
            f"is closed. Any difference found now is reported as an exception against {day_words(last)}."
        )
    owed = first_day_owing_a_form(facility, gaming_date)
    if owed is not None:
        raise ValidationError(
            f"Marketing's reconciliation form for {day_words(owed)} is not completed; finance processes the days in "
            f"order, from the forms (§ 525.21(m)). Ask marketing to complete it first."
        )
    unprocessed = first_unprocessed_day(facility, gaming_date)
    if unprocessed is not None:
        raise ValidationError(
            f"{day_words(unprocessed)} is not processed yet; finance processes the days in order (§ 525.21(m)). "
            f"Process {day_words(unprocessed)} first."
        )


def _signed_form(facility: Facility, gaming_date: date, *, needed: bool) -> ReconciliationForm | None:
    """Marketing's completed and signed form of the day, which finance processes the day from."""
    form = ReconciliationForm.objects.filter(facility=facility, gaming_date=gaming_date).prefetch_related(
        "figures", "signatures").first()
    if needed and (form is None or not form.is_complete):
        raise ValidationError(
            f"Marketing's reconciliation form for {day_words(gaming_date)} is not completed and signed; finance "
            f"processes the day from it (§ 525.21(m))."
        )
    return form


def _require_signatures_reviewed(facility: Facility, gaming_date: date) -> None:
    """Every return and issuance of the day carries all its signatures, § 525.21(m)(2)."""
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


def _require_taken_in_signed(pending: list[CouponRange]) -> None:
    """Every document that brought in the coupons this processing takes (returns, voids, redemptions, of
    any earlier day too) carries all its signatures: a return is finance's only once the receiving
    finance supervisor signed it (§ 525.21(l)(5)), and signatures are reviewed before cancelling (m)(2).
    One query per kind of document."""
    by_type: dict[int, set[int]] = {}
    for row in pending:
        by_type.setdefault(row.since.document_type_id, set()).add(row.since.document_id)
    for type_id, ids in sorted(by_type.items()):
        model = ContentType.objects.get_for_id(type_id).model_class()
        if model is None or not hasattr(model, "missing_signatures"):
            continue
        for document in model._default_manager.filter(pk__in=ids).prefetch_related("signatures").order_by("pk"):
            if document.missing_signatures:
                raise ValidationError(
                    f"{document} brought in coupons this processing takes in, and it still needs the signature of "
                    f"the {document.missing_signatures[0].label.lower()}; have it signed first (§ 525.21(l)(5), "
                    f"(m)(2))."
                )


def _dispose(processing: FinanceDayProcessing, pending: list[CouponRange], gaming_date: date,
             restock_location: StorageLocation | None) -> None:
    """(m)(2): voided and redeemed coupons are cancelled; returned coupons go back to stock for
    reissuance, (m)(3) — unless their series has expired, then they leave circulation."""
    for series, rows in by_series(pending).items():
        cancel = [r for r in rows if r.state in (S.VOIDED, S.REDEEMED)]
        returned = [r for r in rows if r.state == S.RETURNED]
        if cancel:
            move_rows(document=processing, series=series, rows=cancel, spans=None, kind=K.CANCEL,
                      to_state=S.CANCELLED)
        if returned and series.is_expired_on(gaming_date):
            move_rows(document=processing, series=series, rows=returned, spans=None, kind=K.EXPIRE,
                      to_state=S.EXPIRED)
        elif returned:
            move_rows(document=processing, series=series, rows=returned, spans=None, kind=K.RESTOCK,
                      to_state=S.IN_STOCK, location=restock_location)


class CountDiffers(ValidationError):
    """Finance's count differs from the ledger and is not yet confirmed: the form asks for a second count and
    carries this one (``counts``) to compare it with."""

    def __init__(self, message: str, counts: Counts) -> None:
        super().__init__(message)
        self.counts = {cents: dict(by_state) for cents, by_state in counts.items()}


def _require_counts(counted: Counts) -> None:
    for cents, by_state in counted.items():
        for label, count in by_state.items():
            if label not in COUNTED_STATES:
                raise ValidationError(f"Finance counts the returned, voided and redeemed coupons, not {label!r}.")
            require_count(count, f"the count of {label} {format_cents(cents)} coupons")


def _require_count_confirmed(differences: list[Variance], counted: Counts, first_count: Counts | None,
                             explanation: str) -> None:
    """§ 525.21(m)(1), (3): a count that differs from the ledger is counted again before it is signed; the same
    count twice, explained, is signed and becomes the exception report. A different second count is a new first
    count (asked again), as marketing's form refuses a variation until it is explained (§ 525.21(j)(7))."""
    if not differences:
        return
    words = "; ".join(v.words for v in differences)
    if first_count is None or not same_counts(first_count, counted):
        raise CountDiffers(
            f"Your count differs from the ledger ({words}). Count these coupons again and enter what you find. If "
            f"the second count is the same, explain the difference and sign: it goes to internal audit as an "
            f"exception report (§ 525.21(m)(1), (3)).", counted)
    if not explanation.strip():
        raise CountDiffers(
            f"You counted the same twice and it still differs from the ledger ({words}). Explain the difference, "
            f"then sign: it goes to internal audit as an exception report (§ 525.21(m)(3)).", counted)


def _waiting_by_denomination(pending: list[CouponRange]) -> dict[int, dict[str, int]]:
    waiting: dict[int, dict[str, int]] = {}
    for row in pending:
        by_state = waiting.setdefault(row.series.denomination_cents, dict.fromkeys(COUNTED_STATES, 0))
        by_state[str(row.state)] += row.quantity
    return waiting


def _figures(processing: FinanceDayProcessing, *, figures: list[DayFigure], carried_in: dict[int, int],
             kept: dict[int, int], waiting: Counts, counted: Counts, to_date: dict[int, ToDate]) -> None:
    """One frozen line per denomination: the day, what awaited processing and finance's count, to date."""
    moved = {f.denomination_cents: f for f in figures}
    every = sorted(set(moved) | set(carried_in) | set(kept) | set(waiting) | set(counted) | set(to_date))
    rows = []
    for cents in every:
        day = moved.get(cents) or DayFigure(cents)
        awaiting, count, so_far = waiting.get(cents, {}), counted.get(cents, {}), to_date.get(cents, ToDate())
        rows.append(FinanceDayFigure(
            processing=processing, denomination_cents=cents,
            given_to_marketing=carried_in.get(cents, 0) + day.received, returned=day.returned, voided=day.voided,
            distributed=day.distributed, kept=kept.get(cents, 0),
            awaiting_returned=awaiting.get("returned", 0), awaiting_voided=awaiting.get("voided", 0),
            awaiting_redeemed=awaiting.get("redeemed", 0), counted_returned=count.get("returned", 0),
            counted_voided=count.get("voided", 0), counted_redeemed=count.get("redeemed", 0),
            given_to_date=so_far.given, distributed_to_date=so_far.distributed, redeemed_to_date=so_far.redeemed,
        ))
    regulated_bulk_create(FinanceDayFigure, rows)


@transaction.atomic
@acts_as_user
def finance_day_process(
    *,
    facility: Facility,
    gaming_date: date,
    counted: Counts,
    user: Any,
    password: str,
    restock_location: StorageLocation | None = None,
    notes: str = "",
    count_explanation: str = "",
    first_count: Counts | None = None,
) -> FinanceDayProcessing:
    """Count, examine, review signatures, cancel and reconcile a gaming day, § 525.21(m).

    ``counted``: finance's physical count of the returned, voided and redeemed coupons awaiting processing, by
    denomination (``{2500: {"returned": 20, "voided": 1, "redeemed": 3}}``; a state or denomination not given
    counts 0). A count that differs from the ledger is refused until it is counted again (``first_count``: the
    count refused before) with the same result and explained (``count_explanation``).

    Reconciles, each side read independently (§ 525.21(m)(3)), in :func:`coupons.variances.finance_variances`:

    * the ledger's movements of the day (issued, returned, voided, distributed lines) against what
      marketing held by the ranges: carried in (held at the end of the day before) + issued =
      returned + voided + distributed + kept (held at the end of the day);
    * the form's frozen figures against those movements and holdings (anything recorded into the day
      after the form was signed shows here), and marketing's own counted variation;
    * finance's physical counts of returned, voided and redeemed coupons against the ledger.

    Any difference is a variance: an exception report to internal audit, due two days after the day.
    """
    require_capability(user, Capability.PROCESS_FINANCE_DAY)
    not_in_future(facility, gaming_date, "Finance processes a gaming day once it has happened, not")
    require_day_between(gaming_date, today(facility) - years(1), today(facility), "the gaming day processed")
    _require_counts(counted)
    # The facility's exclusive lock holds up every scan on the floor until this commits: finance's password is
    # checked before it is taken, not while the tables wait (issue 27: the busy floor's lock waits).
    with accounts.password_checked_first(user, password):
        return _process_locked(facility=facility, gaming_date=gaming_date, counted=counted, user=user,
                               password=password, restock_location=restock_location, notes=notes,
                               count_explanation=count_explanation, first_count=first_count)


def _process_locked(*, facility: Facility, gaming_date: date, counted: Counts, user: Any, password: str,
                    restock_location: StorageLocation | None, notes: str, count_explanation: str,
                    first_count: Counts | None) -> FinanceDayProcessing:
    lock_facility(facility)
    _require_next_in_order(facility, gaming_date)
    figures = day_figures(facility, gaming_date)
    form = _signed_form(facility, gaming_date, needed=bool(figures))
    _require_signatures_reviewed(facility, gaming_date)
    # Every redemption recorded is posted into the ledger's ranges first, under the exclusive lock (no scan is
    # committing), so the coupons redeemed are all among those the processing counts and cancels, (m)(2).
    pending_redemptions_post(facility)
    # The coupons waiting for this day's processing: those that reached their state on or before it.
    pending = lock_open_rows(facility, [S.RETURNED, S.VOIDED, S.REDEEMED], since__gaming_date__lte=gaming_date)
    _require_taken_in_signed(pending)
    waiting = _waiting_by_denomination(pending)
    _require_count_confirmed(count_differences(counted, waiting), counted, first_count, count_explanation)
    carried_in = held_at_end_of(facility, gaming_date - timedelta(days=1))
    kept = held_at_end_of(facility, gaming_date)
    variances = finance_variances(
        moved={f.denomination_cents: f for f in figures}, carried_in=carried_in, kept=kept,
        form=None if form is None else SignedForm(
            disposition=form.disposition, figures={f.denomination_cents: f for f in form.figures.all()},
            variation_explanation=form.variation_explanation),
        counted=counted, pending=waiting,
    )
    variance = sum(v.coupons for v in variances)
    to_restock = [r for r in pending if r.state == S.RETURNED and not r.series.is_expired_on(gaming_date)]
    if to_restock:
        restock_location = require_location(restock_location, StorageLocation.Department.FINANCE, "§ 525.21(i)")
    to_date = to_date_by_denomination(facility, through=gaming_date, all_posted=True)  # posted above, locked

    def total(label: str) -> int:
        return sum(by_state.get(label, 0) for by_state in counted.values())

    try:
        with transaction.atomic():
            processing = create(
                FinanceDayProcessing, user, facility=facility, gaming_date=gaming_date,
                given_to_marketing=sum(carried_in.values()) + sum(f.received for f in figures),
                returned=sum(f.returned for f in figures), voided=sum(f.voided for f in figures),
                distributed=sum(f.distributed for f in figures), carried_forward=sum(kept.values()),
                redeemed=sum(w["redeemed"] for w in waiting.values()),
                distributed_to_date=sum(t.distributed for t in to_date.values()),
                redeemed_to_date=sum(t.redeemed for t in to_date.values()), counted_returned=total("returned"),
                counted_voided=total("voided"), counted_redeemed=total("redeemed"), variance=variance,
                restock_location=restock_location if to_restock else None, notes=notes,
                count_explanation=count_explanation.strip() if count_differences(counted, waiting) else "",
            )
    except IntegrityError:
        raise ValidationError(
            f"Someone else processed {day_words(gaming_date)} just now; reload the page to see their record."
        ) from None
    _figures(processing, figures=figures, carried_in=carried_in, kept=kept, waiting=waiting, counted=counted,
             to_date=to_date)
    _dispose(processing, pending, gaming_date, restock_location)
    record_sign(record=processing, slot="reviewed", user=user, password=password)
    if variance:
        description = "; ".join(v.words for v in variances).capitalize() + "."
        if processing.count_explanation:
            description += f" Finance counted twice and explains: {processing.count_explanation}"
        _exception_report_open(processing, description)
    return processing


def _exception_report_open(processing: FinanceDayProcessing, description: str) -> ExceptionReport:
    report = ExceptionReport.objects.create(
        facility=processing.facility, processing=processing, gaming_date=processing.gaming_date,
        description=description, variance=processing.variance,
        due_on=processing.gaming_date + timedelta(days=ExceptionReport.DUE_DAYS),
    )
    from coupons.tasks import send_exception_report  # the one call upward: enqueue once committed

    transaction.on_commit(lambda: send_exception_report.delay(report.pk))
    return report


@acts_as_system
def exception_report_send(*, report: ExceptionReport) -> bool:
    """Email the exception report to internal audit (§ 525.21(m)); recorded as e-mailed only once it went."""
    return report_email(report, exception_notification(report))


@transaction.atomic
@acts_as_user
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
    report.save()
    return report


@transaction.atomic
@acts_as_user
def stock_expire(*, series: CouponSeries, user: Any, on_date: date | None = None) -> CouponExpiry:
    """Take expired coupons in finance custody (stock, returned) out of circulation."""
    require_capability(user, Capability.PROCESS_FINANCE_DAY)
    on_date = on_date or today(series.facility)
    if not series.is_expired_on(on_date):
        raise ValidationError(f"{series.name} expires on {day_words(series.expires_on)}; it has not expired yet.")
    require_day_open(series.facility, on_date, marketing=False)
    rows = lock_open_rows(series.facility, [S.IN_STOCK, S.RETURNED], series=series)
    if not rows:
        raise ValidationError(f"Finance holds no unexpired-state coupons of {series.name}.")
    expiry = create(CouponExpiry, user, facility=series.facility, series=series, gaming_date=on_date,
                    quantity=sum(r.quantity for r in rows))
    move_rows(document=expiry, series=series, rows=rows, spans=None, kind=K.EXPIRE, to_state=S.EXPIRED)
    return expiry
