"""The redemption's guard (coupons migrations 0024, 0028) names its tables with their schema, so a temporary table
made in the session to shadow one switches nothing off: the day finance processed still closes the day to
redemptions, and the insert still takes the facility's share lock on the real row."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import DatabaseError, OperationalError, connection, connections, transaction

from compliance.locks import lock_facility
from coupons import services
from coupons.models import Redemption
from coupons.services.redemption import Scan, redemption_record
from tests.compliance.attack import shadow
from tests.coupons.conftest import PASSWORD, TODAY

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="the application's role is PostgreSQL's")

COLUMNS = ("facility_id", "series_id", "serial", "denomination_cents", "gaming_date", "redeemed_at", "table_id",
           "game_id", "position", "chips_cents", "wager", "channel", "redeemed_by_id", "seal")
INSERT = (f"INSERT INTO public.coupons_redemption ({', '.join(COLUMNS)}) "  # noqa: S608 - our column names
          f"VALUES ({', '.join(['%s'] * len(COLUMNS))})")


def _another_serial(program: Any, table: Any, dealer: Any, first: int, second: int) -> list[Any]:
    """Redeem ``first`` through the service; the row's values for ``second``, as an attacker would insert them."""
    done = redemption_record(facility=program.facility, user=dealer, scan=Scan(
        serial=program.series.serial(first), table=table, position="pass_line", chips_cents=2500)).redemption
    values = [getattr(done, column) for column in COLUMNS]
    values[COLUMNS.index("serial")] = second
    return values


@pytest.mark.django_db
def test_a_shadowed_processing_table_still_closes_the_day(program, handed_out, craps_table, dealer,
                                                          marketing_supervisor, finance_supervisor, finance_staff):
    handed_out(1, 10)
    values = _another_serial(program, craps_table, dealer, 2, 5)
    services.reconciliation_complete(facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 0},
                                     user=marketing_supervisor, password=PASSWORD,
                                     receiver=services.CoSigner(finance_supervisor, PASSWORD))
    services.finance_day_process(facility=program.facility, gaming_date=TODAY, counted={2500: {"redeemed": 1}},
                                 user=finance_staff, password=PASSWORD)
    with pytest.raises(DatabaseError, match="coupon_day_closed"), transaction.atomic():
        shadow("coupons_financedayprocessing")  # empty: a guard reading it by bare name would see no day processed
        with connection.cursor() as cursor:
            cursor.execute(INSERT, values)
    assert Redemption.objects.count() == 1


@pytest.mark.django_db(transaction=True)  # the other connection sees committed rows
def test_a_shadowed_facility_table_still_takes_the_share_lock(program, handed_out, craps_table, dealer):
    handed_out(1, 10)
    values = _another_serial(program, craps_table, dealer, 2, 5)
    outcome: list[str] = []

    def attack() -> None:
        try:
            with transaction.atomic():
                shadow("compliance_facility")  # empty: a lock taken by bare name would lock nothing
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '300ms'")
                    cursor.execute(INSERT, values)
            outcome.append("inserted")
        except OperationalError as error:
            outcome.append("blocked" if "lock timeout" in str(error) else f"unexpected {error!r}")
        finally:
            connections.close_all()

    with transaction.atomic():
        lock_facility(program.facility)  # finance processing or a reconciliation signing, holding the day
        thread = threading.Thread(target=attack)
        thread.start()
        thread.join(timeout=30)
    assert outcome == ["blocked"]
    assert Redemption.objects.count() == 1


@pytest.mark.django_db
def test_a_shadowed_redemption_table_still_checks_the_rows_inserted(program, handed_out, receive, craps_table, dealer):
    """``coupons_redemptions_check`` (migration 0034, the generator's check of a batch written as a replica) reads
    the rows of the ids it is given from ``public.coupons_redemption``: an empty temporary table of that name would,
    read by bare name, hold none of them and refuse nothing."""
    from tests.compliance.attack import as_owner

    handed_out(1, 10)
    receive(11, 20)  # in finance's stock
    values = _another_serial(program, craps_table, dealer, 2, 15)
    as_owner(INSERT, values)  # behind the guard's back: the triggers off
    stocked = Redemption.objects.get(serial=15).pk
    with pytest.raises(DatabaseError, match="coupon_not_distributed: serial 15 "), transaction.atomic():
        shadow("coupons_redemption")
        with connection.cursor() as cursor:
            cursor.execute("SELECT public.coupons_redemptions_check(%s::bigint[])", [[stocked]])
