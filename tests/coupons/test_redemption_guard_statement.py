"""The redemption's guard checks every row of a statement (coupons migration 0031: ``AFTER INSERT … FOR EACH
STATEMENT`` over the statement's new rows), however the rows are sent: several in one INSERT, by COPY, by
``INSERT … ON CONFLICT``, by MERGE, beside a temporary table named like the statement's new rows. One bad row refuses
the whole statement, and nothing of it is kept. Sent as the application's database role (the suite's login)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction

from coupons import services
from coupons.models import Redemption
from coupons.services.redemption import Scan, redemption_record
from tests.compliance.attack import as_owner
from tests.coupons.conftest import PASSWORD, TODAY

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif(connection.vendor != "postgresql", reason="the application's role is PostgreSQL's")]

COLUMNS = ("facility_id", "series_id", "serial", "denomination_cents", "gaming_date", "redeemed_at", "table_id",
           "game_id", "position", "chips_cents", "wager", "channel", "redeemed_by_id", "seal")
ROW = f"({', '.join(['%s'] * len(COLUMNS))})"


def _rows(program: Any, table: Any, dealer: Any, *serials: int) -> list[list[Any]]:
    """Serial 2 redeemed through the service; the row values an attacker would send for each of ``serials``."""
    done = redemption_record(facility=program.facility, user=dealer, scan=Scan(
        serial=program.series.serial(2), table=table, position="pass_line", chips_cents=2500)).redemption
    rows = []
    for serial in serials:
        values = [getattr(done, column) for column in COLUMNS]
        values[COLUMNS.index("serial")] = serial
        values[COLUMNS.index("wager")] = f"w{serial}"  # one redemption a wager (coupon_one_per_wager)
        rows.append(values)
    return rows


def _insert(rows: list[list[Any]], tail: str = "") -> None:
    sql = (f"INSERT INTO public.coupons_redemption ({', '.join(COLUMNS)}) "  # noqa: S608 - our column names
           f"VALUES {', '.join([ROW] * len(rows))} {tail}")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (False,), "the suite must be logged in as the application role"
        cursor.execute(sql, [value for row in rows for value in row])


@pytest.fixture
def floor(program: Any, handed_out: Any, receive: Any, craps_table: Any, dealer: Any) -> Any:
    handed_out(1, 10)  # 1–10 with patrons
    receive(11, 100)  # 11–100 in finance's stock
    return program, craps_table, dealer


def test_one_coupon_in_stock_among_several_refuses_the_whole_statement(floor):
    rows = _rows(*floor, 3, 4, 50, 5)
    with pytest.raises(DatabaseError, match="coupon_not_distributed: serial 50 "):
        _insert(rows)
    assert list(Redemption.objects.values_list("serial", flat=True)) == [2]
    _insert([rows[0], rows[1], rows[3]])  # the patrons' coupons alone: recorded
    assert sorted(Redemption.objects.values_list("serial", flat=True)) == [2, 3, 4, 5]


def test_rows_sent_by_copy_are_checked(floor):
    rows = _rows(*floor, 3, 60)
    # psycopg's own error: the COPY is the driver's, below Django's cursor
    copy_in = f"COPY public.coupons_redemption ({', '.join(COLUMNS)}) FROM STDIN"
    with pytest.raises(psycopg.DatabaseError, match="coupon_not_distributed: serial 60 "), transaction.atomic(), \
            connection.cursor() as cursor, cursor.cursor.copy(copy_in) as copy:
        for row in rows:
            copy.write_row(row)
    assert Redemption.objects.count() == 1


def test_insert_on_conflict_and_merge_are_checked(floor):
    [in_stock] = _rows(*floor, 70)
    with pytest.raises(DatabaseError, match="coupon_not_distributed"):
        _insert([in_stock], "ON CONFLICT DO NOTHING")
    merge = (f"MERGE INTO public.coupons_redemption r USING (VALUES {ROW}) AS v ({', '.join(COLUMNS)}) "  # noqa: S608
             f"ON r.series_id = v.series_id AND r.serial = v.serial "
             f"WHEN NOT MATCHED THEN INSERT ({', '.join(COLUMNS)}) VALUES ({', '.join('v.' + c for c in COLUMNS)})")
    with pytest.raises(DatabaseError, match="coupon_not_distributed"), transaction.atomic(), \
            connection.cursor() as cursor:
        cursor.execute(merge, in_stock)
    assert Redemption.objects.count() == 1


def test_a_temporary_table_named_like_the_new_rows_changes_nothing(floor):
    """The statement's rows are read by the trigger's own name for them, which no table of the session shadows."""
    [in_stock] = _rows(*floor, 80)
    with pytest.raises(DatabaseError, match="coupon_not_distributed"), transaction.atomic():
        as_owner('CREATE TEMPORARY TABLE "new_redemptions" (LIKE public."coupons_redemption")', triggers_off=False)
        as_owner('GRANT ALL ON pg_temp."new_redemptions" TO PUBLIC', triggers_off=False)
        _insert([in_stock])
    assert Redemption.objects.count() == 1


def test_a_statement_with_a_row_on_a_processed_day_is_refused(floor, marketing_supervisor, finance_supervisor,
                                                              finance_staff):
    program = floor[0]
    [later] = _rows(*floor, 4)
    services.reconciliation_complete(facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 0},
                                     user=marketing_supervisor, password=PASSWORD,
                                     receiver=services.CoSigner(finance_supervisor, PASSWORD))
    services.finance_day_process(facility=program.facility, gaming_date=TODAY, counted={2500: {"redeemed": 1}},
                                 user=finance_staff, password=PASSWORD)
    with pytest.raises(DatabaseError, match="coupon_day_closed"):
        _insert([later])
    assert Redemption.objects.count() == 1


def test_the_guard_is_one_statement_trigger_enabled_always_as_origin():
    """The shape the checks above rely on: fired after the statement, with its new rows, for every INSERT."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT t.tgenabled, t.tgtype, t.tgnewtable, p.proname FROM pg_trigger t "
                       "JOIN pg_proc p ON p.oid = t.tgfoid WHERE t.tgrelid = 'public.coupons_redemption'::regclass "
                       "AND t.tgname = 'coupons_redeem_only_distributed'")
        enabled, kind, new_table, function = cursor.fetchone()
    assert (enabled, new_table, function) == ("O", "new_redemptions", "coupons_redeem_only_distributed_rows")
    assert kind & 1 == 0 and kind & 2 == 0 and kind & 4 == 4  # FOR EACH STATEMENT, AFTER, INSERT


def test_the_guards_checks_are_callable_on_rows_already_inserted(floor):
    """``coupons_redemptions_check`` (migration 0034: the trigger function's text over the rows of the ids it is
    given) makes the trigger's checks: what the
    year's generator asks of a batch it wrote as a replica applies rows (compliance/scale_replica.py). Rows put in
    behind the guard's back (the owner, triggers off) are refused by it in the trigger's words; good ones pass."""
    from tests.compliance.attack import as_app

    rows = _rows(*floor, 50, 3)  # 50 is in finance's stock; 3 is with a patron
    good = Redemption.objects.get()  # serial 2, redeemed through the service
    as_owner(f"INSERT INTO public.coupons_redemption ({', '.join(COLUMNS)}) "  # noqa: S608 - our column names
             f"VALUES {', '.join([ROW] * len(rows))}", [value for row in rows for value in row])
    stocked, handed = (Redemption.objects.get(serial=serial).pk for serial in (50, 3))
    assert as_app("SELECT public.coupons_redemptions_check(%s::bigint[])", [[good.pk, handed]]) == [("",)]
    for ids in ([stocked], [good.pk, stocked, handed]):
        with pytest.raises(DatabaseError, match="coupon_not_distributed: serial 50 "), transaction.atomic():
            as_app("SELECT public.coupons_redemptions_check(%s::bigint[])", [ids])
