"""The drop-box count, § 525.21(q)(6): what the table did not cancel is cancelled by batch scan, with the
same checks; every exception is listed, and coupons redeemed at the table but absent are found."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from compliance.services import signature_sign
from coupons.models import CouponState, DropCountItem, Redemption
from coupons.services.drop_count import drop_count_record
from coupons.services.redemption import Scan, redemption_record
from tests.coupons.conftest import PASSWORD, TODAY, states
from tests.coupons.test_browser import SHOTS
from tests.vendors import postgresql_only

pytestmark = pytest.mark.django_db
Found = DropCountItem.Outcome


def count(program: Any, table: Any, user: Any, scanned: list[str]) -> Any:
    return drop_count_record(facility=program.facility, table=table, gaming_date=TODAY, scanned=scanned, user=user)


def test_the_count_cancels_what_the_table_did_not_and_lists_every_exception(
    program, handed_out, receive, craps_table, roulette_table, dealer, finance_staff, django_assert_max_num_queries
):
    handed_out(1, 10)
    receive(50, 60)  # finance stock: never given to a patron
    for serial in (1, 2):
        redemption_record(facility=program.facility, user=dealer,
                          scan=Scan(serial=f"MP-{serial:07d}", table=craps_table, position="pass_line",
                                    chips_cents=2500))
    redemption_record(facility=program.facility, user=dealer,
                      scan=Scan(serial="MP-0000009", table=roulette_table, position="red", chips_cents=2500))
    scanned = ["MP-0000001", "MP-0000003", "MP-0000004", "MP-0000003", "MP-0000050", "MP-0000099", "garbage!",
               "MP-0000009"]
    record = count(program, craps_table, finance_staff, scanned)
    items = {(i.scanned or i.redemption.coupon): i for i in record.items.all()}
    assert items["MP-0000001"].outcome == Found.CANCELLED_AT_TABLE
    assert items["MP-0000003"].outcome == items["MP-0000004"].outcome == Found.CANCELLED_NOW
    assert items["MP-0000050"].code == "not_distributed"
    assert items["MP-0000099"].code == "unknown_coupon"
    assert items["garbage!"].code == "malformed_serial"
    assert items["MP-0000009"].code == "already_redeemed"  # redeemed at the roulette table: wrong box
    assert items["MP-0000002"].outcome == Found.MISSING  # redeemed at this table, not in its box
    assert sum(1 for i in record.items.all() if "scanned twice" in i.message) == 1
    # Cancelled now: redemptions of channel "count", and the ledger moved them.
    assert set(Redemption.objects.filter(channel="count").values_list("serial", flat=True)) == {3, 4}
    assert all(state == CouponState.REDEEMED for first, last, state in states(program.series) if first <= 4 <= last
               or first <= 3 <= last)
    signature_sign(record=record, slot="counted", user=finance_staff, password=PASSWORD)
    assert record.is_complete


@postgresql_only("SQLite splits a bulk insert into batches of its 999 bound values, a statement per batch")
def test_a_count_of_many_coupons_costs_the_same_queries_as_a_few(
    program, handed_out, craps_table, finance_staff, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    handed_out(1, 400)
    with CaptureQueriesContext(connection) as few:
        count(program, craps_table, finance_staff, [f"MP-{n:07d}" for n in range(1, 6)])
    with django_assert_max_num_queries(len(few.captured_queries) + 2):
        count(program, craps_table, finance_staff, [f"MP-{n:07d}" for n in range(6, 300)])


def test_only_finance_counts_and_a_count_is_bounded(program, craps_table, dealer, finance_staff):
    with pytest.raises(PermissionDenied):
        count(program, craps_table, dealer, [])
    with pytest.raises(ValidationError, match="more than one drop box"):
        count(program, craps_table, finance_staff, ["MP-1"] * 5001)


def test_the_count_pages_and_report(program, handed_out, craps_table, finance_staff, inspector, client_for):
    handed_out(1, 10)
    record = count(program, craps_table, finance_staff, ["MP-0000001", "MP-0000099"])
    staff = client_for(finance_staff)
    page = staff.get(record.get_absolute_url())
    assert page.status_code == 200 and b"unknown_coupon" in page.content
    pdf = staff.get(f"/coupons/drop-counts/{record.pk}/report.pdf")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "drop-count.pdf").write_bytes(pdf.content)  # looked at as a person would (pdftoppm)
    reader = client_for(inspector)
    assert reader.get("/coupons/drop-counts/").status_code == 200
    assert reader.get(record.get_absolute_url()).status_code == 200
    assert reader.post("/coupons/drop-counts/new/", {"table": craps_table.pk}).status_code == 403
    form = staff.post("/coupons/drop-counts/new/", {"table": craps_table.pk, "gaming_date": TODAY.isoformat(),
                                                    "scanned": "MP-0000002\nMP-0000003"})
    assert form.status_code == 302
