"""PostgreSQL: a range row is closed only together with the rows that replace it (coupons 0010).

The check is deferred to commit; ``SET CONSTRAINTS … IMMEDIATE`` runs it inside the test's transaction.
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from coupons.models import CouponRange

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL constraint trigger"),
]


def _check_now() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS coupons_closed_range_is_replaced IMMEDIATE")


def test_closing_a_range_row_without_rows_replacing_it_fails_at_commit(program, receive, issue):
    receive(1, 100)
    issue(1, 10)
    open_row = CouponRange.objects.get(series=program.series, closed_by__isnull=True, first_serial=11)
    line = CouponRange.objects.filter(series=program.series, closed_by__isnull=False).first().closed_by
    with pytest.raises(IntegrityError, match="closed without rows replacing it"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("UPDATE coupons_couponrange SET closed_by_id = %s WHERE id = %s", [line.pk, open_row.pk])
        _check_now()


def test_closing_a_range_row_with_only_part_of_it_replaced_fails_at_commit(program, receive):
    receive(1, 100)
    row = CouponRange.objects.get(series=program.series, closed_by__isnull=True)
    with pytest.raises(IntegrityError, match="closed without rows replacing it"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("UPDATE coupons_couponrange SET closed_by_id = opened_by_id WHERE id = %s", [row.pk])
            cursor.execute(
                "INSERT INTO coupons_couponrange (facility_id, series_id, first_serial, last_serial, state, "
                "location_id, opened_by_id, since_id) SELECT facility_id, series_id, 1, 99, state, location_id, "
                "opened_by_id, since_id FROM coupons_couponrange WHERE id = %s",
                [row.pk],
            )
        _check_now()


def test_movements_close_and_replace_rows_in_one_transaction(program, receive, issue, finance_supervisor):
    receive(1, 100)
    issue(1, 10)
    issue(11, 20)
    _check_now()  # every row closed so far is covered by open rows
    assert CouponRange.objects.filter(series=program.series, closed_by__isnull=False).count() == 3
