"""What the coupon roles' days in the browser found (tests/coupons/test_browser_day.py), each fixed and held here:
the issuance form suggests the serials to issue, § 525.21(h), as many as the requisition still needs, across the
ranges finance's stock is kept in (a shipment, coupons restocked by the daily processing), and no more; the coupon
stock page's counts by state fit a laptop's width."""

from __future__ import annotations

import pytest
from django.urls import reverse

from coupons import services
from coupons.models import CouponIssuance, CouponReturn
from tests.coupons.conftest import PASSWORD, TODAY

pytestmark = pytest.mark.django_db


def _suggested(client, requisition) -> tuple[object, str]:
    form = client.get(reverse("coupons:issuance-create", args=[requisition.pk])).context["form"]
    return form["series"].value(), form["serials"].value()


def test_the_suggestion_spans_the_stock_ranges_until_the_requisition_is_filled_525_21_h(
    program, receive, requisition, client_for, finance_supervisor, marketing_supervisor
):
    receive(1, 10)
    receive(21, 100)  # a second shipment, not touching the first: two ranges in the vault
    req = requisition(30)
    finance = client_for(finance_supervisor)
    assert _suggested(finance, req) == (program.series.pk, "1-10, 21-40")  # was "1-10": 10 of the 30

    response = finance.post(
        reverse("coupons:issuance-create", args=[req.pk]),
        {
            "series": program.series.pk,
            "serials": "1-10, 21-40",
            "password": PASSWORD,
            "receiver": marketing_supervisor.pk,
            "receiver_password": PASSWORD,
        },
    )
    assert response.status_code == 302
    assert CouponIssuance.objects.get().quantity == 30


def test_the_suggestion_is_what_is_still_outstanding_525_21_h(
    program, receive, requisition, client_for, finance_supervisor, marketing_supervisor
):
    receive(1, 100)
    req = requisition(30)
    services.issuance_record(
        requisition=req,
        series=program.series,
        issued=[(1, 12)],
        user=finance_supervisor,
        password=PASSWORD,
        receiver=services.CoSigner(marketing_supervisor, PASSWORD),
    )
    assert _suggested(client_for(finance_supervisor), req) == (program.series.pk, "13-30")  # 18 more, not 30


def test_the_stock_page_counts_each_state_on_a_row_and_each_denomination_in_a_column_525_21_d(
    program, receive, issue, client_for, finance_supervisor
):
    """Nine states side by side overflowed a 1280-pixel screen (the last column cut off): a state a row now."""
    receive(1, 100)
    issue(1, 20)
    html = client_for(finance_supervisor).get(reverse("coupons:home")).content.decode()
    table = html[html.index('aria-label="Coupons by state"') : html.index("</table>")]
    assert '<th scope="col" class="num">$25</th>' in table
    assert '<th scope="row">In finance stock</th><td class="num">80</td>' in table
    assert '<th scope="row">Issued to marketing</th><td class="num">20</td>' in table
    assert table.count('<th scope="row">') == 9


def test_an_inventory_that_agrees_says_so_and_its_page_has_no_empty_card_525_21_n(
    program, receive, client_for, finance_staff
):
    receive(1, 100)
    finance = client_for(finance_staff)
    response = finance.post(
        reverse("coupons:inventory-create"), {f"series_{program.series.pk}": "1-100", "password": PASSWORD}, follow=True
    )
    html = response.content.decode()
    assert "recorded: the count agrees with the ledger." in html  # was no word at all
    assert '<dl class="facts"></dl>' not in html  # was an empty box above the count
    assert "Counted against the ledger" in html


def test_the_completed_form_shows_the_return_made_with_it_and_who_received_it_525_21_k(
    program, returned_day, client_for, marketing_supervisor, finance_supervisor
):
    """The finance supervisor signs the return on the day's form; the signed form said only "Return undistributed
    coupons to finance", with no sign of the return or of that signature."""
    returned = CouponReturn.objects.get()
    html = (
        client_for(marketing_supervisor)
        .get(reverse("coupons:reconciliation", args=[TODAY.isoformat()]))
        .content.decode()
    )
    assert "Returned to finance with a copy of this form" in html and returned.get_absolute_url() in html
    assert "20 coupons" in html
    assert "Finance supervisor receiving the coupons: Received:" in html
