"""The range engine and the guarantees the database holds for it (coupons/ledger.py): every serial in one state, received once, lines never changed."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from coupons.models import (
    CouponRange,
    CouponState,
    LedgerLine,
)
from tests.coupons.conftest import TODAY

pytestmark = pytest.mark.django_db
S = CouponState


def test_the_database_refuses_overlapping_open_ranges(program, receive):
    receive(1, 100)
    row = CouponRange.objects.get(series=program.series, closed_by__isnull=True)
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
    line = LedgerLine.objects.get(kind="receive")
    line.quantity = 1
    with pytest.raises(Exception, match="append-only"):
        line.save()


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
