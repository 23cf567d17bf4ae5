"""PostgreSQL: a coupon's current state changes only with the ledger line that explains it (coupons 0017).

An attacker holding the application's database login tries to change the current state (the range rows) by
hand: open serials that were never received, move received coupons to "distributed" reusing an old line, or
explain a move with a line of their own for other serials. The check is deferred to commit, and "the line
was written by this transaction" needs a committed past: these tests commit (``transaction=True``).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from coupons.models import CouponRange, LedgerLine

pytestmark = [
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL constraint trigger"),
]

INSERT_RANGE = (
    "INSERT INTO coupons_couponrange (facility_id, series_id, first_serial, last_serial, state, location_id, "
    "opened_by_id, since_id) VALUES (%s, %s, %s, %s, %s, NULL, %s, %s)"
)


def _open_row(series: Any) -> CouponRange:
    return CouponRange.objects.get(series=series, closed_by__isnull=True)


def _committed(statements: list[tuple[str, list[Any]]]) -> None:
    """Run the statements as the application's login in one transaction, and commit it."""
    with transaction.atomic(), connection.cursor() as cursor:
        for sql, params in statements:
            cursor.execute(sql, params)


def test_serials_never_received_cannot_be_opened_with_an_old_line(program, receive):
    receive(1, 100)
    row = _open_row(program.series)
    with pytest.raises(IntegrityError, match="opened without the ledger line that explains it"):
        _committed([(INSERT_RANGE, [row.facility_id, row.series_id, 500, 600, "distributed", row.opened_by_id,
                                    row.opened_by_id])])
    assert not CouponRange.objects.filter(series=program.series, first_serial=500).exists()


def test_received_coupons_cannot_be_moved_to_another_state_without_a_new_line(program, receive):
    receive(1, 100)
    row = _open_row(program.series)
    with pytest.raises(IntegrityError, match="without the ledger line that explains it"):
        _committed([
            ("UPDATE coupons_couponrange SET closed_by_id = opened_by_id WHERE id = %s", [row.pk]),
            (INSERT_RANGE, [row.facility_id, row.series_id, 1, 100, "distributed", row.opened_by_id,
                            row.opened_by_id]),
        ])
    assert _open_row(program.series).state == row.state


def test_a_line_of_ones_own_for_other_serials_explains_nothing(program, receive):
    receive(1, 100)
    row = _open_row(program.series)
    line = row.opened_by
    forged = (
        "INSERT INTO coupons_ledgerline (facility_id, occurred_at, gaming_date, kind, series_id, denomination_cents, "
        "from_state, to_state, first_serial, last_serial, quantity, reason, document_type_id, document_id, seal) "
        "VALUES (%s, now(), %s, 'distribute', %s, %s, %s, 'distributed', 1, 1, 1, '', %s, %s, 'x') RETURNING id"
    )
    with pytest.raises(IntegrityError, match="without the ledger line that explains it"), \
            transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(forged, [row.facility_id, line.gaming_date, row.series_id, line.denomination_cents, row.state,
                                line.document_type_id, line.document_id])
        (new_line,) = cursor.fetchone()
        cursor.execute("UPDATE coupons_couponrange SET closed_by_id = %s WHERE id = %s", [new_line, row.pk])
        cursor.execute(INSERT_RANGE, [row.facility_id, row.series_id, 1, 100, "distributed", new_line, new_line])
    assert not LedgerLine.objects.filter(seal="x").exists()


def test_the_ledgers_own_movements_commit(program, receive, issue):
    receive(1, 100)
    issue(1, 10)  # closes the received row, opens the issued piece and the remainder, in one committed transaction
    states = sorted(CouponRange.objects.filter(series=program.series, closed_by__isnull=True)
                    .values_list("first_serial", "last_serial", "state"))
    assert [(first, last) for first, last, _ in states] == [(1, 10), (11, 100)]


@pytest.mark.parametrize("table", ["coupons_ledgerline", "coupons_couponrange"])
def test_shadowed_tables_switch_nothing_off(program, receive, table):
    """A temporary table named like a table the check reads, made in the session (the application's role may not;
    the owner may): the check names its tables with their schema, so it still refuses."""
    from tests.compliance.attack import shadow

    receive(1, 100)
    row = _open_row(program.series)
    with pytest.raises(IntegrityError, match="without the ledger line that explains it"), transaction.atomic():
        shadow(table)
        with connection.cursor() as cursor:  # the attack names the real tables; the check must read them too
            cursor.execute("UPDATE public.coupons_couponrange SET closed_by_id = opened_by_id WHERE id = %s",
                           [row.pk])
            cursor.execute(INSERT_RANGE.replace("INTO coupons_couponrange", "INTO public.coupons_couponrange"),
                           [row.facility_id, row.series_id, 1, 100, "distributed", row.opened_by_id, row.opened_by_id])
