"""The Match Play Coupon ledger's rules, § 525.21: the whole gaming day, and every refusal."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import Group
from django.core import mail
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from compliance.roles import Role
from compliance.services import signature_sign
from coupons import selectors, services
from coupons.models import (
    CouponRange,
    CouponState,
    DeviationReport,
    ExceptionReport,
    InventoryReminder,
    LedgerLine,
    ReconciliationForm,
)
from tests.coupons.conftest import PASSWORD, TODAY, approve, make_series
from tests.factories import make_person

pytestmark = pytest.mark.django_db
S = CouponState


def states(series: Any) -> list[tuple[int, int, str]]:
    return list(
        CouponRange.objects.filter(series=series, closed_by__isnull=True)
        .order_by("first_serial")
        .values_list("first_serial", "last_serial", "state")
    )


def test_the_whole_gaming_day(
    program,
    receive,
    requisition,
    finance_supervisor,
    finance_staff,
    marketing_staff,
    marketing_supervisor,
    dealer,
    django_capture_on_commit_callbacks,
):
    series = program.series
    receipt = receive(100001, 200000)
    assert receipt.is_complete and receipt.quantity == 100_000 and not receipt.deviation

    req = requisition(500)
    issuance = services.issuance_record(
        requisition=req,
        series=series,
        issued=[(100001, 100498)],
        user=finance_supervisor,
        password=PASSWORD,
        voids=[([(100499, 100500)], "Misprinted: value smudged")],
        receiver=services.CoSigner(marketing_supervisor, PASSWORD),
    )
    assert issuance.is_complete and issuance.quantity == 498 and issuance.voided_quantity == 2

    services.distribution_record(
        facility=program.facility, series=series, spans=[(100001, 100100)], user=marketing_staff
    )
    services.distribution_record(
        facility=program.facility, series=series, spans=[(100101, 100101)], user=marketing_staff
    )  # one scan
    services.void_record(
        facility=program.facility,
        series=series,
        spans=[(100102, 100102)],
        reason="Torn",
        user=marketing_supervisor,
        password=PASSWORD,
    )

    preview = selectors.reconciliation_preview(program.facility, TODAY)
    (figure,) = preview.figures
    assert (figure.to_distribute, figure.distributed, figure.voided, figure.remaining) == (498, 101, 1, 396)

    form = services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 396},
        user=marketing_supervisor,
        password=PASSWORD,
        receiver=services.CoSigner(finance_supervisor, PASSWORD),
    )
    assert form.is_complete
    (ret,) = form.returns.all()
    assert ret.quantity == 396 and ret.is_complete

    services.redemption_record(facility=program.facility, series=series, spans=[(100001, 100050)], user=dealer)

    with django_capture_on_commit_callbacks(execute=True):
        processing = services.finance_day_process(
            facility=program.facility,
            gaming_date=TODAY,
            counted_returned=396,
            counted_voided=3,
            counted_redeemed=50,
            user=finance_staff,
            password=PASSWORD,
            restock_location=program.vault,
        )
    assert processing.variance == 0 and not ExceptionReport.objects.exists()
    assert (
        processing.given_to_marketing
        == processing.returned + processing.voided + processing.distributed + processing.carried_forward
    )
    assert states(series) == [
        (100001, 100050, S.CANCELLED),
        (100051, 100100, S.DISTRIBUTED),
        (100101, 100101, S.DISTRIBUTED),
        (100102, 100102, S.CANCELLED),
        (100103, 100498, S.IN_STOCK),
        (100499, 100500, S.CANCELLED),
        (100501, 200000, S.IN_STOCK),
    ]
    # A serial's full path, oldest first.
    path = [line.kind for line in selectors.serial_path(series, 100001)]
    assert path == ["receive", "issue", "distribute", "redeem", "cancel"]
    totals = selectors.state_totals(program.facility)
    assert totals[2500][S.IN_STOCK] == 99_896 and totals[2500][S.CANCELLED] == 53


def test_receiving_serials_already_received_is_refused_in_words(program, receive):
    first = receive(100001, 100600)
    with pytest.raises(ValidationError) as refused:
        receive(100501, 100700)
    assert (
        f"Serials MP-0100501–MP-0100600 of {program.series.name} were already received on 3 Nov 2026 "
        f"(receipt #{first.pk})" in str(refused.value)
    )
    assert LedgerLine.objects.filter(kind="receive").count() == 1


def test_the_database_refuses_overlapping_open_ranges(program, receive):
    receive(1, 100)
    row = CouponRange.objects.get(series=program.series)
    twin = CouponRange(
        facility=program.facility,
        series=program.series,
        first_serial=50,
        last_serial=60,
        state=S.ISSUED,
        opened_by=row.opened_by,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        twin.save()


def test_the_database_refuses_a_second_receipt_line_for_the_same_serials(program, receive):
    receipt = receive(1, 100)
    line = LedgerLine.objects.get(kind="receive")
    again = LedgerLine(
        facility=program.facility,
        gaming_date=TODAY,
        kind="receive",
        series=program.series,
        denomination_cents=2500,
        to_state=S.IN_STOCK,
        first_serial=100,
        last_serial=200,
        quantity=101,
        document_type=line.document_type,
        document_id=receipt.pk,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        again.save()


def test_ledger_lines_are_append_only(program, receive):
    receive(1, 10)
    line = LedgerLine.objects.get()
    line.quantity = 1
    with pytest.raises(Exception, match="append-only"):
        line.save()


def test_issuing_before_the_program_is_approved_is_refused(
    program, finance_supervisor, receive, requisition, compliance_officer
):
    fresh = make_series(program.facility, program.program, finance_supervisor, code="mp25b", prefix="MB")
    receive(1, 100, series=fresh)
    req = requisition(10)
    with pytest.raises(ValidationError, match="Bureau of Gaming Operations"):
        services.issuance_record(
            requisition=req, series=fresh, issued=[(1, 10)], user=finance_supervisor, password=PASSWORD
        )
    approve(program.facility, program.program, compliance_officer, fresh, kinds=("design",))
    services.issuance_record(
        requisition=req, series=fresh, issued=[(1, 10)], user=finance_supervisor, password=PASSWORD
    )


def test_internal_controls_must_be_approved_before_any_coupon_is_issued(
    facility, finance_supervisor, compliance_officer, program, receive, requisition
):
    direct_bet = program.program.__class__.objects.get(code="direct-bet")
    series = make_series(facility, direct_bet, finance_supervisor, code="db25", prefix="DB")
    approve(facility, direct_bet, compliance_officer, series, kinds=("design",))
    refusals = selectors.program_gate_refusals(series, TODAY)
    assert refusals == [
        "The internal controls for the Direct Bet Coupon program have no recorded approval (§ 525.21(b)(2))."
    ]


def test_coupons_printed_in_house_need_their_own_approval(program, finance_supervisor, compliance_officer):
    kwargs = {
        "facility": program.facility,
        "series": program.series,
        "received_on": TODAY,
        "supplier": "Print shop",
        "invoice_number": "RUN-7",
        "invoice_quantity": 100,
        "invoice_first_serial": 1,
        "invoice_last_serial": 100,
        "received": [(1, 100)],
        "location": program.vault,
        "user": finance_supervisor,
        "password": PASSWORD,
        "source": "internal",
    }
    with pytest.raises(ValidationError, match=r"525\.21\(p\)"):
        services.receipt_record(**kwargs)
    approve(program.facility, program.program, compliance_officer, kinds=("internal_printing",))
    assert services.receipt_record(**kwargs).quantity == 100


def test_a_deviation_from_the_invoice_is_reported_and_emailed(
    program, receive, finance_supervisor, settings, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        receipt = receive(1, 999, invoice_quantity=1000)
    report = DeviationReport.objects.get(receipt=receipt)
    assert "the invoice lists 1,000 coupons but 999 were received" in report.description.lower()
    (message,) = mail.outbox
    assert settings.BCC_BUREAU_EMAIL in message.to and finance_supervisor.email in message.to
    assert "525.21(e)" in message.subject
    report.refresh_from_db()
    assert report.emailed_at is not None


def test_a_receipt_needs_one_finance_and_one_marketing_examiner(program, receive, finance_staff, finance_supervisor):
    receipt = receive(1, 100, examined=False)
    signature_sign(record=receipt, slot="examined_finance", user=finance_supervisor, password=PASSWORD)
    with pytest.raises(PermissionDenied, match="marketing department"):
        signature_sign(record=receipt, slot="examined_marketing", user=finance_staff, password=PASSWORD)


def test_issuing_unexamined_coupons_is_refused(program, receive, requisition, finance_supervisor):
    receive(1, 100, examined=False)
    with pytest.raises(ValidationError, match="not complete"):
        services.issuance_record(
            requisition=requisition(10),
            series=program.series,
            issued=[(1, 10)],
            user=finance_supervisor,
            password=PASSWORD,
        )


def test_issuing_against_an_unauthorized_requisition_is_refused(program, receive, requisition, finance_supervisor):
    receive(1, 100)
    with pytest.raises(ValidationError, match="not authorized"):
        services.issuance_record(
            requisition=requisition(10, authorize=False),
            series=program.series,
            issued=[(1, 10)],
            user=finance_supervisor,
            password=PASSWORD,
        )


def test_issuing_more_than_requisitioned_is_refused(program, receive, requisition, finance_supervisor):
    receive(1, 100)
    with pytest.raises(ValidationError, match="leaves 10 coupons"):
        services.issuance_record(
            requisition=requisition(10),
            series=program.series,
            issued=[(1, 11)],
            user=finance_supervisor,
            password=PASSWORD,
        )


def test_the_same_person_cannot_requisition_and_authorize(program, facility):
    both = make_person(Role.MARKETING_SUPERVISOR, facility)
    both.groups.add(Group.objects.get(name="finance_supervisor"))
    req = services.requisition_prepare(
        facility=facility,
        program=program.program,
        denomination_cents=2500,
        quantity=5,
        needed_for=TODAY,
        user=both,
        password=PASSWORD,
    )
    with pytest.raises(ValidationError, match="different person"):
        signature_sign(record=req, slot="authorized", user=both, password=PASSWORD)


def test_a_wrong_password_saves_nothing(program, receive, requisition, finance_supervisor):
    receive(1, 100)
    req = requisition(10)
    with pytest.raises(ValidationError, match="password"):
        services.issuance_record(
            requisition=req, series=program.series, issued=[(1, 10)], user=finance_supervisor, password="wrong"
        )
    assert states(program.series) == [(1, 100, S.IN_STOCK)]


def test_distributing_coupons_not_held_by_marketing_is_refused_in_words(program, receive, issue, marketing_staff):
    receive(1, 100)
    issue(1, 10)
    with pytest.raises(ValidationError) as refused:
        services.distribution_record(
            facility=program.facility, series=program.series, spans=[(5, 20)], user=marketing_staff
        )
    assert "MP-0000011–MP-0000020" in str(refused.value) and "in finance stock" in str(refused.value)
    with pytest.raises(ValidationError, match="never received"):
        services.distribution_record(
            facility=program.facility, series=program.series, spans=[(500, 501)], user=marketing_staff
        )


def test_an_unexplained_variance_cannot_be_signed(program, receive, issue, marketing_supervisor):
    receive(1, 100)
    issue(1, 50)
    with pytest.raises(ValidationError, match="Explain the variation"):
        services.reconciliation_complete(
            facility=program.facility,
            gaming_date=TODAY,
            counted_remaining={2500: 49},
            user=marketing_supervisor,
            password=PASSWORD,
        )
    assert not ReconciliationForm.objects.exists()
    form = services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 49},
        user=marketing_supervisor,
        password=PASSWORD,
        variation_explanation="One coupon fell behind the desk; found and voided tomorrow.",
    )
    assert form.figures.get().variance == -1


def test_the_day_cannot_close_while_marketing_holds_expired_coupons(
    program, finance_supervisor, receive, requisition, marketing_supervisor, compliance_officer
):
    short = make_series(
        program.facility, program.program, finance_supervisor, code="mp25x", prefix="MX", expires_on=TODAY
    )
    approve(program.facility, program.program, compliance_officer, short, kinds=("design",))
    receive(1, 100, series=short)
    services.issuance_record(
        requisition=requisition(20),
        series=short,
        issued=[(1, 20)],
        user=finance_supervisor,
        password=PASSWORD,
        receiver=services.CoSigner(marketing_supervisor, PASSWORD),
    )
    services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 20},
        user=marketing_supervisor,
        password=PASSWORD,
        disposition="keep",
        kept_in=program.marketing_safe,
    )
    tomorrow = TODAY + timedelta(days=1)
    with time_machine.travel("2026-11-04 14:00:00+00:00", tick=True):
        assert [r.quantity for r in selectors.expired_held(program.facility, tomorrow)] == [20]
        with pytest.raises(ValidationError, match=r"MX-0000001–MX-0000020 .*expired 3 Nov 2026"):
            services.reconciliation_complete(
                facility=program.facility,
                gaming_date=tomorrow,
                counted_remaining={},
                user=marketing_supervisor,
                password=PASSWORD,
            )
        services.return_record(
            facility=program.facility,
            user=marketing_supervisor,
            password=PASSWORD,
            gaming_date=tomorrow,
            expired_only=True,
        )
        form = services.reconciliation_complete(
            facility=program.facility,
            gaming_date=tomorrow,
            counted_remaining={},
            user=marketing_supervisor,
            password=PASSWORD,
        )
    (figure,) = form.figures.all()
    assert (figure.carried_in, figure.returned, figure.remaining_expected) == (20, 20, 0)


def test_kept_coupons_need_an_approved_locked_marketing_area_and_carry_to_the_next_form(
    program, receive, issue, marketing_supervisor, marketing_staff
):
    receive(1, 100)
    issue(1, 30)
    with pytest.raises(ValidationError, match="not a marketing area approved"):
        services.reconciliation_complete(
            facility=program.facility,
            gaming_date=TODAY,
            counted_remaining={2500: 30},
            user=marketing_supervisor,
            password=PASSWORD,
            disposition="keep",
            kept_in=program.vault,
        )
    services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 30},
        user=marketing_supervisor,
        password=PASSWORD,
        disposition="keep",
        kept_in=program.marketing_safe,
    )
    with pytest.raises(ValidationError, match="day is closed"):
        services.distribution_record(
            facility=program.facility, series=program.series, spans=[(1, 1)], user=marketing_staff, gaming_date=TODAY
        )
    tomorrow = TODAY + timedelta(days=1)
    (figure,) = selectors.reconciliation_preview(program.facility, tomorrow).figures
    assert figure.carried_in == 30 and figure.received == 0


def test_a_variance_in_finance_processing_opens_an_exception_report_due_in_two_days(
    program,
    receive,
    issue,
    marketing_supervisor,
    finance_supervisor,
    finance_staff,
    django_capture_on_commit_callbacks,
    compliance_officer,
):
    receive(1, 100)
    issue(1, 20)
    services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 20},
        user=marketing_supervisor,
        password=PASSWORD,
        receiver=services.CoSigner(finance_supervisor, PASSWORD),
    )
    with django_capture_on_commit_callbacks(execute=True):
        processing = services.finance_day_process(
            facility=program.facility,
            gaming_date=TODAY,
            counted_returned=19,
            counted_voided=0,
            counted_redeemed=0,
            user=finance_staff,
            password=PASSWORD,
            restock_location=program.vault,
        )
    report = ExceptionReport.objects.get(processing=processing)
    assert report.due_on == TODAY + timedelta(days=2) and report.variance == 1
    assert "19 returned coupons counted, the ledger has 20" in report.description
    assert compliance_officer.email in mail.outbox[0].to
    with pytest.raises(ValidationError, match="already processed"):
        services.finance_day_process(
            facility=program.facility,
            gaming_date=TODAY,
            counted_returned=20,
            counted_voided=0,
            counted_redeemed=0,
            user=finance_staff,
            password=PASSWORD,
        )
    # Finance, whose count is in question, cannot close the exception itself (segregation of duties).
    with pytest.raises(PermissionDenied):
        services.exception_report_resolve(report=report, resolution="Fine.", user=finance_supervisor)
    services.exception_report_resolve(report=report, resolution="Recounted: 20.", user=compliance_officer)
    assert ExceptionReport.objects.get().status == "resolved"


def test_finance_cannot_process_a_day_before_the_return_is_signed_as_received(
    program, receive, issue, marketing_supervisor, finance_staff
):
    receive(1, 100)
    issue(1, 20)
    services.reconciliation_complete(
        facility=program.facility,
        gaming_date=TODAY,
        counted_remaining={2500: 20},
        user=marketing_supervisor,
        password=PASSWORD,
    )
    with pytest.raises(ValidationError, match="finance supervisor receiving"):
        services.finance_day_process(
            facility=program.facility,
            gaming_date=TODAY,
            counted_returned=20,
            counted_voided=0,
            counted_redeemed=0,
            user=finance_staff,
            password=PASSWORD,
            restock_location=program.vault,
        )


def test_the_monthly_inventory_flags_discrepancies_and_satisfies_the_reminder(program, receive, issue, finance_staff):
    receive(1, 100)
    issue(1, 10)
    services.inventory_reminders_refresh(today=TODAY)
    services.inventory_reminders_refresh(today=TODAY)  # idempotent
    assert InventoryReminder.objects.count() == 1
    inventory = services.inventory_record(
        facility=program.facility, counted={program.series: [(1, 49), (51, 100)]}, user=finance_staff, password=PASSWORD
    )
    (count,) = inventory.counts.all()
    assert (count.expected_quantity, count.counted_quantity, inventory.discrepancy) == (100, 99, -1)
    line = LedgerLine.objects.get(kind="inventory")
    assert "not found: MP-0000050" in line.reason
    assert InventoryReminder.objects.get().done_by == inventory


def test_inventory_overdue_rule(program, finance_staff):
    assert selectors.inventory_status(program.facility, date(2026, 11, 3)).overdue is False
    services.inventory_reminders_refresh(today=date(2026, 11, 3))
    # November passed without an inventory: overdue after the grace day of 1 December.
    assert selectors.inventory_status(program.facility, date(2026, 12, 2)).overdue is True
    assert selectors.inventory_status(program.facility, date(2026, 12, 1)).overdue is False


def test_expired_stock_leaves_circulation(program, receive, finance_staff):
    receive(1, 100)
    with pytest.raises(ValidationError, match="not expired yet"):
        services.stock_expire(series=program.series, user=finance_staff)
    services.stock_expire(series=program.series, user=finance_staff, on_date=date(2027, 1, 1))
    assert states(program.series) == [(1, 100, S.EXPIRED)]


def test_a_movement_document_is_corrected_by_a_new_movement_not_a_copy(program, receive, finance_supervisor):
    from compliance.models import RegulatedWriteError
    from compliance.services import record_correct

    receipt = receive(1, 10)
    with pytest.raises(RegulatedWriteError, match="by a new movement"):
        record_correct(original=receipt, reason="typo", user=finance_supervisor, changes={"supplier": "Other"})


def test_every_row_a_service_writes_is_attributed_to_its_user(program, receive, issue, finance_supervisor):
    from compliance.models import AuditEvent

    receive(1, 10)
    issue(1, 5)
    ranges = AuditEvent.objects.filter(model_label__in=["coupons.CouponRange", "coupons.LedgerLine"])
    assert ranges.exists() and not ranges.filter(actor__isnull=True).exists()
    assert CouponRange.history.filter(history_user__isnull=True).count() == 0


def test_the_remaining_coupons_must_be_counted(program, receive, issue, marketing_supervisor):
    receive(1, 100)
    issue(1, 10)
    with pytest.raises(ValidationError, match=r"Count the coupons remaining \(\$25\)"):
        services.reconciliation_complete(
            facility=program.facility,
            gaming_date=TODAY,
            counted_remaining={},
            user=marketing_supervisor,
            password=PASSWORD,
        )


def test_the_database_lets_a_range_row_only_be_closed_once(program, receive, issue):
    receive(1, 100)
    issue(1, 10)
    closed = CouponRange.objects.filter(series=program.series, closed_by__isnull=False).first()
    open_row = CouponRange.objects.filter(series=program.series, closed_by__isnull=True).first()
    assert closed is not None and open_row is not None
    from django.db import connection as db

    with pytest.raises(IntegrityError), transaction.atomic(), db.cursor() as cursor:
        cursor.execute("UPDATE coupons_couponrange SET state = 'cancelled' WHERE id = %s", [open_row.pk])
    with pytest.raises(IntegrityError), transaction.atomic(), db.cursor() as cursor:
        cursor.execute("UPDATE coupons_couponrange SET closed_by_id = NULL WHERE id = %s", [closed.pk])


def test_a_marketing_supervisor_cannot_void_coupons_in_finance_stock(
    program, receive, issue, marketing_supervisor, finance_supervisor
):
    receive(1, 100)
    issue(1, 10)
    before = states(program.series)
    with pytest.raises(ValidationError) as refused:
        services.void_record(facility=program.facility, series=program.series, spans=[(5, 60)], reason="Torn",
                             user=marketing_supervisor, password=PASSWORD)
    assert "MP-0000011–MP-0000060" in str(refused.value) and "finance department supervisor" in str(refused.value)
    with pytest.raises(ValidationError, match="held by marketing"):
        services.void_record(facility=program.facility, series=program.series, spans=[(5, 5)], reason="Torn",
                             user=finance_supervisor, password=PASSWORD)
    assert states(program.series) == before
    assert not LedgerLine.objects.filter(kind="void").exists()
    # Each in its own custody, both are accepted.
    services.void_record(facility=program.facility, series=program.series, spans=[(5, 5)], reason="Torn",
                         user=marketing_supervisor, password=PASSWORD)
    services.void_record(facility=program.facility, series=program.series, spans=[(60, 60)], reason="Misprint",
                         user=finance_supervisor, password=PASSWORD)
    assert LedgerLine.objects.filter(kind="void").count() == 2


def test_a_corrected_requisition_is_not_issued_twice(
    program, receive, requisition, finance_supervisor, marketing_supervisor
):
    from compliance.services import record_correct

    receive(1, 1000)
    original = requisition(100)
    services.issuance_record(requisition=original, series=program.series, issued=[(1, 100)],
                             user=finance_supervisor, password=PASSWORD)
    correction = record_correct(original=original, reason="Needs 120", user=marketing_supervisor,
                                changes={"quantity": 120})
    signature_sign(record=correction, slot="requisitioned", user=marketing_supervisor, password=PASSWORD)
    signature_sign(record=correction, slot="authorized", user=finance_supervisor, password=PASSWORD)
    with pytest.raises(ValidationError, match="leaves 20 coupons to issue; you entered 120"):
        services.issuance_record(requisition=correction, series=program.series, issued=[(101, 220)],
                                 user=finance_supervisor, password=PASSWORD)
    original.refresh_from_db()
    with pytest.raises(ValidationError, match=f"was corrected by requisition #{correction.pk}"):
        services.issuance_record(requisition=original, series=program.series, issued=[(101, 101)],
                                 user=finance_supervisor, password=PASSWORD)
    services.issuance_record(requisition=correction, series=program.series, issued=[(101, 120)],
                             user=finance_supervisor, password=PASSWORD)
    assert sum(LedgerLine.objects.filter(kind="issue").values_list("quantity", flat=True)) == 120


def test_marketing_cannot_distribute_before_signing_the_hand_over(
    program, receive, requisition, finance_supervisor, marketing_supervisor, marketing_staff
):
    receive(1, 100)
    issuance = services.issuance_record(requisition=requisition(10), series=program.series, issued=[(1, 10)],
                                        user=finance_supervisor, password=PASSWORD)
    with pytest.raises(ValidationError, match=f"Issuance #{issuance.pk} .* not been signed as received"):
        services.distribution_record(facility=program.facility, series=program.series, spans=[(1, 5)],
                                     user=marketing_staff)
    signature_sign(record=issuance, slot="received", user=marketing_supervisor, password=PASSWORD)
    services.distribution_record(facility=program.facility, series=program.series, spans=[(1, 5)],
                                 user=marketing_staff)
    assert (1, 5, S.DISTRIBUTED) in states(program.series)


def test_the_monthly_inventory_expects_the_voided_and_expired_coupons_finance_holds(
    program, receive, issue, finance_supervisor, finance_staff
):
    receive(1, 100)
    issue(1, 10)
    services.void_record(facility=program.facility, series=program.series, spans=[(91, 95)], reason="Misprint",
                         user=finance_supervisor, password=PASSWORD)
    short = make_series(program.facility, program.program, finance_supervisor, code="mp10", prefix="MS",
                        denomination_cents=1000, expires_on=date(2026, 11, 1))
    receive(1, 20, series=short)
    services.stock_expire(series=short, user=finance_staff)
    expected = selectors.expected_inventory(program.facility)
    # § 525.21(n): every coupon not distributed to patrons, the voided and expired ones included.
    assert expected[program.series] == [(1, 100)]
    assert expected[short] == [(1, 20)]


def test_a_co_signers_wrong_password_names_the_co_signer(
    program, receive, requisition, finance_supervisor, marketing_supervisor
):
    from coupons.models import CouponIssuance

    receive(1, 100)
    name = marketing_supervisor.profile.full_name
    with pytest.raises(ValidationError) as refused:
        services.issuance_record(
            requisition=requisition(10), series=program.series, issued=[(1, 10)], user=finance_supervisor,
            password=PASSWORD, receiver=services.CoSigner(marketing_supervisor, "not-their-password"),
        )
    assert f"{name}'s password is not correct" in str(refused.value)
    assert "your own password" not in str(refused.value).lower()
    assert not CouponIssuance.objects.exists()
    with pytest.raises(ValidationError, match=f"{finance_supervisor.profile.full_name} cannot sign as the marketing"):
        services.issuance_record(
            requisition=requisition(10), series=program.series, issued=[(1, 10)], user=finance_supervisor,
            password=PASSWORD, receiver=services.CoSigner(finance_supervisor, PASSWORD),
        )
