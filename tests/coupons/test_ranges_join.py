"""Issue 27: coupons come back in any order, and each scan's posting splits the distributed range it falls in. When
finance cancels the day's redeemed coupons (§ 525.21(m)(2)), the adjacent ones become one cancelled range and one
ledger line, not one a coupon, and the touched rows are closed in one update, not one a row."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from compliance.actors import acting_as
from compliance.models import AuditEvent
from coupons import services
from coupons.ledger import move_rows
from coupons.models import CouponRange, CouponState, LedgerLine, RedemptionPosting
from tests.coupons.conftest import PASSWORD, TODAY, states
from tests.coupons.test_redemption import redeem
from tests.vendors import postgresql_only

pytestmark = pytest.mark.django_db

S = CouponState


def _scattered_day(program: Any, handed_out: Any, table: Any, dealer: Any, serials: list[int]) -> None:
    """Serials 1–40 given to patrons; ``serials`` scanned in that order, each posted on its own (beat's minute)."""
    handed_out(1, 40)
    for serial in serials:
        redeem(program, table, dealer, f"MP-{serial:07d}")
        services.redemptions_post(facility=program.facility)


def _process(program: Any, marketing_supervisor: Any, finance_supervisor: Any, finance_staff: Any,
             redeemed: int) -> Any:
    services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 0}, user=marketing_supervisor,
        password=PASSWORD, receiver=services.CoSigner(finance_supervisor, PASSWORD))
    return services.finance_day_process(
        facility=program.facility, gaming_date=TODAY, user=finance_staff, password=PASSWORD,
        counted={2500: {"returned": 0, "voided": 0, "redeemed": redeemed}})


def test_the_days_redeemed_coupons_are_cancelled_as_runs(program, handed_out, craps_table, dealer,
                                                         marketing_supervisor, finance_supervisor, finance_staff):
    scanned = [7, 3, 5, 4, 6, 20, 21, 19, 30, 1]
    _scattered_day(program, handed_out, craps_table, dealer, scanned)
    assert LedgerLine.objects.filter(kind=LedgerLine.Kind.REDEEM).count() == len(scanned)  # each posting its own
    processing = _process(program, marketing_supervisor, finance_supervisor, finance_staff, len(scanned))

    cancelled = [(first, last) for first, last, state in states(program.series) if state == S.CANCELLED]
    assert cancelled == [(1, 1), (3, 7), (19, 21), (30, 30)]  # four runs, from ten rows
    lines = LedgerLine.objects.filter(kind=LedgerLine.Kind.CANCEL).order_by("first_serial")
    assert [(x.first_serial, x.last_serial, x.quantity, x.from_state, x.to_state) for x in lines] == [
        (1, 1, 1, S.REDEEMED, S.CANCELLED), (3, 7, 5, S.REDEEMED, S.CANCELLED),
        (19, 21, 3, S.REDEEMED, S.CANCELLED), (30, 30, 1, S.REDEEMED, S.CANCELLED)]
    assert all(x.document_id == processing.pk for x in lines)
    # Every redeemed row was closed by the line of the run that took it, with its history and its audit event.
    closed = CouponRange.objects.filter(series=program.series, state=S.REDEEMED)
    assert closed.count() == len(scanned) and not closed.filter(closed_by__isnull=True).exists()
    for row in closed:
        line = row.closed_by
        assert line.kind == LedgerLine.Kind.CANCEL and line.first_serial <= row.first_serial <= line.last_serial
        assert row.history.first().closed_by_id == line.pk and row.history.first().history_user == finance_staff
        event = AuditEvent.objects.filter(model_label="coupons.CouponRange", object_id=str(row.pk),
                                          action=AuditEvent.Action.CHANGED).get()
        assert event.actor == finance_staff and event.changes["closed_by"][0] is None
        assert event.changes["closed_by"][1] == str(line)
    # What the ledger says is unchanged: every serial in one state, 40 given out, 10 cancelled.
    assert sum(last - first + 1 for first, last, state in states(program.series) if state == S.DISTRIBUTED) == 30


@postgresql_only("SQLite splits a bulk insert into batches of its 999 bound values, a statement per batch")
def test_cancelling_a_day_takes_the_same_queries_for_ten_and_a_hundred_scattered_coupons(
        program, handed_out, craps_table, dealer, finance_staff):
    def queries_to_cancel(serials: list[int], first: int) -> int:
        handed_out(first, first + 199)
        for serial in serials:
            redeem(program, craps_table, dealer, f"MP-{first + serial:07d}")
            services.redemptions_post(facility=program.facility)
        rows = list(CouponRange.objects.filter(series=program.series, state=S.REDEEMED, closed_by__isnull=True)
                    .select_related("series", "since", "opened_by").order_by("first_serial"))
        document = RedemptionPosting.objects.latest("pk")  # a document of the day, as finance's processing is
        with CaptureQueriesContext(connection) as captured, acting_as(finance_staff):
            move_rows(document=document, series=program.series, rows=rows, spans=None, kind=LedgerLine.Kind.CANCEL,
                      to_state=S.CANCELLED)
        assert len(rows) == len(serials)
        return len(captured)

    rng = random.Random(27)
    few = queries_to_cancel(rng.sample(range(200), 10), 1)
    many = queries_to_cancel(rng.sample(range(200), 100), 1001)
    assert many == few


@postgresql_only("SQLite splits a bulk insert into batches of its 999 bound values, a statement per batch")
def test_issuing_part_of_each_of_many_receipts_takes_the_same_queries_for_two_and_eight(
        program, receive, requisition, finance_supervisor, marketing_supervisor):
    """Each range left behind keeps the line that opened it, which its audit event names in words: the line's
    serials are read from the series the move already holds, not one query a remainder (make bench, 1 Dec 2026)."""
    def queries_to_issue(receipts: int, start: int) -> int:
        for k in range(receipts):
            receive(start + 10 * k, start + 10 * k + 9)  # each its own receipt: each stock range its own line
        firsts = [(start + 10 * k, start + 10 * k) for k in range(receipts)]
        req = requisition(receipts, needed_for=TODAY)
        with CaptureQueriesContext(connection) as captured:
            services.issuance_record(requisition=req, series=program.series, issued=firsts, user=finance_supervisor,
                                     password=PASSWORD, gaming_date=TODAY,
                                     receiver=services.CoSigner(marketing_supervisor, PASSWORD))
        left = [(f, last) for f, last, state in states(program.series)
                if state == S.IN_STOCK and start <= f < start + 10 * receipts]
        assert left == [(start + 10 * k + 1, start + 10 * k + 9) for k in range(receipts)]
        return len(captured)

    queries_to_issue(1, 5001)  # the first issuance's one-off reads (content types, the program's approvals)
    assert queries_to_issue(8, 1001) == queries_to_issue(2, 1)
