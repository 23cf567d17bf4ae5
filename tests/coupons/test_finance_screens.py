"""Finance's screens, § 525.21(h)–(i), (m): the daily processing by denomination (to date, counts, a count taken
again before it is signed) and the void screen for coupons in finance's stock."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from coupons import selectors, services
from coupons.models import CouponDistribution, CouponVoid, ExceptionReport, FinanceDayProcessing
from coupons.selectors import ToDate
from tests.coupons.conftest import PASSWORD, TODAY, approve, make_series

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_denominations(program, receive, requisition, issue, finance_supervisor, marketing_supervisor,
                      marketing_staff, compliance_officer) -> Any:
    """$25: 20 issued, 10 distributed, and 2 more distributed then taken back (reversed); $50: 5 issued, 3
    distributed. Returns the $50 series."""
    fifty = make_series(program.facility, program.program, finance_supervisor, code="mp50", denomination_cents=5000,
                        prefix="MF")
    approve(program.facility, program.program, compliance_officer, fifty, kinds=("design",))
    receive(1, 100)
    receive(1, 100, series=fifty)
    issue(1, 20)
    services.issuance_record(requisition=requisition(5, denomination_cents=5000), series=fifty, issued=[(1, 5)],
                             user=finance_supervisor, password=PASSWORD,
                             receiver=services.CoSigner(marketing_supervisor, PASSWORD))
    for series, span in ((program.series, (1, 10)), (fifty, (1, 3))):
        services.distribution_record(facility=program.facility, series=series, spans=[span], user=marketing_staff)
    mistake = services.distribution_record(facility=program.facility, series=program.series, spans=[(11, 12)],
                                           user=marketing_staff)
    services.movement_reverse(facility=program.facility, document=mistake, reason="Keyed the wrong serials",
                              user=marketing_supervisor, password=PASSWORD)
    return fifty


def _close_marketing_day(program: Any, marketing_supervisor: Any, finance_supervisor: Any) -> None:
    services.reconciliation_complete(
        facility=program.facility, gaming_date=TODAY, counted_remaining={2500: 10, 5000: 2},
        user=marketing_supervisor, password=PASSWORD, receiver=services.CoSigner(finance_supervisor, PASSWORD))


def test_distributed_to_date_leaves_out_a_distribution_taken_back_525_21_m_3(program, two_denominations):
    """§ 525.21(m)(3): reconciled by coupons given to marketing, distributed and redeemed; the two coupons recorded
    as distributed by mistake and reversed were never given to a patron."""
    assert CouponDistribution.objects.filter(series=program.series).count() == 2
    assert selectors.to_date_by_denomination(program.facility) == {
        2500: ToDate(given=20, distributed=10, redeemed=0), 5000: ToDate(given=5, distributed=3, redeemed=0)}
    assert selectors.to_date_totals(program.facility) == (13, 0)


def test_processing_shows_each_denomination_and_counts_it_525_21_m(
    program, two_denominations, client_for, finance_staff, marketing_supervisor, finance_supervisor
):
    _close_marketing_day(program, marketing_supervisor, finance_supervisor)
    finance = client_for(finance_staff)
    page = finance.get(reverse("coupons:process") + f"?day={TODAY.isoformat()}")
    html = page.content.decode()
    assert "$25 to date, (m)(3)" in html and "given to marketing 20, distributed 10, redeemed 0" in html
    assert "$50 to date, (m)(3)" in html and "given to marketing 5, distributed 3, redeemed 0" in html
    assert "$25 awaiting processing (count these)" in html and "10 returned, 0 voided, 0 redeemed" in html
    counts = [name for name in page.context["form"].fields if name.split("_")[0] in ("returned", "voided", "redeemed")]
    assert counts == ["returned_2500", "voided_2500", "redeemed_2500", "returned_5000", "voided_5000",
                      "redeemed_5000"]

    response = finance.post(reverse("coupons:process"), {
        "gaming_date": TODAY.isoformat(), "returned_2500": 10, "voided_2500": 0, "redeemed_2500": 0,
        "returned_5000": 2, "voided_5000": 0, "redeemed_5000": 0, "restock_location": program.vault.pk,
        "password": PASSWORD})
    assert response.status_code == 302
    processing = FinanceDayProcessing.objects.get()
    assert (processing.variance, processing.distributed_to_date) == (0, 13)
    assert [(f.denomination_cents, f.distributed_to_date, f.given_to_date, f.counted_returned)
            for f in processing.figures.all()] == [(2500, 10, 20, 10), (5000, 3, 5, 2)]
    detail = finance.get(processing.get_absolute_url()).content.decode()
    assert "$50 to date, (m)(3)" in detail and "given to marketing 5, distributed 3, redeemed 0" in detail


def test_a_differing_count_is_asked_again_then_explained_and_reported_525_21_m(
    program, two_denominations, client_for, finance_staff, marketing_supervisor, finance_supervisor
):
    """The first submission of a count that differs answers 422 with the difference by denomination and nothing
    signed; the same count again, explained, is signed and becomes the exception report to internal audit."""
    _close_marketing_day(program, marketing_supervisor, finance_supervisor)
    finance = client_for(finance_staff)
    count = {"gaming_date": TODAY.isoformat(), "returned_2500": 10, "voided_2500": 0, "redeemed_2500": 0,
             "returned_5000": 1, "voided_5000": 0, "redeemed_5000": 0, "restock_location": program.vault.pk,
             "password": PASSWORD}
    first = finance.post(reverse("coupons:process"), count)
    html = first.content.decode()
    assert first.status_code == 422 and "Count these coupons again" in html
    assert "Your count differs from the ledger ($50: 1 returned coupon counted, the ledger has 2)." in html
    assert not FinanceDayProcessing.objects.exists() and not ExceptionReport.objects.exists()
    carried = first.context["form"]["first_count"].value()
    assert 'name="first_count"' in html and carried

    unexplained = finance.post(reverse("coupons:process"), {**count, "first_count": carried})
    assert unexplained.status_code == 422 and "Explain the difference" in unexplained.content.decode()
    recounted = finance.post(reverse("coupons:process"), {**count, "returned_5000": 2, "first_count": carried})
    assert recounted.status_code == 302  # the second count agrees with the ledger: signed at once, nothing to report
    assert not ExceptionReport.objects.exists()


def test_the_same_differing_count_twice_with_an_explanation_becomes_the_exception_report(
    program, two_denominations, client_for, finance_staff, marketing_supervisor, finance_supervisor
):
    _close_marketing_day(program, marketing_supervisor, finance_supervisor)
    finance = client_for(finance_staff)
    count = {"gaming_date": TODAY.isoformat(), "returned_2500": 10, "voided_2500": 0, "redeemed_2500": 0,
             "returned_5000": 1, "voided_5000": 0, "redeemed_5000": 0, "restock_location": program.vault.pk,
             "password": PASSWORD}
    carried = finance.post(reverse("coupons:process"), count).context["form"]["first_count"].value()
    done = finance.post(reverse("coupons:process"),
                        {**count, "first_count": carried, "count_explanation": "One $50 coupon torn and kept"})
    assert done.status_code == 302
    report = ExceptionReport.objects.get()
    assert "$50: 1 returned coupon counted, the ledger has 2" in report.description
    assert "One $50 coupon torn and kept" in report.description
    assert FinanceDayProcessing.objects.get().count_explanation == "One $50 coupon torn and kept"


def test_a_forged_or_unreadable_first_count_is_no_first_count(
    program, two_denominations, client_for, finance_staff, marketing_supervisor, finance_supervisor
):
    _close_marketing_day(program, marketing_supervisor, finance_supervisor)
    count = {"gaming_date": TODAY.isoformat(), "returned_2500": 10, "returned_5000": 1, "voided_2500": 0,
             "redeemed_2500": 0, "voided_5000": 0, "redeemed_5000": 0, "restock_location": program.vault.pk,
             "password": PASSWORD, "count_explanation": "short"}
    for forged in ("{", "[]", '{"5000": {"returned": -1}}', '{"x": 1}', '{"5000": {"lost": 1}}'):
        response = client_for(finance_staff).post(reverse("coupons:process"), {**count, "first_count": forged})
        assert response.status_code == 422 and "Count these coupons again" in response.content.decode(), forged
    assert not FinanceDayProcessing.objects.exists()


def test_a_finance_supervisor_voids_coupons_in_stock_on_a_screen_of_their_own_525_21_i(
    program, receive, issue, client_for, finance_supervisor
):
    """§ 525.21(i): coupons not issued are controlled by a finance supervisor, who voids them (with the reason,
    (h)(4)); the same refusals as the service: coupons marketing holds are marketing's to void."""
    receive(1, 100)
    issue(1, 10)
    finance = client_for(finance_supervisor)
    for page in ("coupons:requisition-list", "coupons:home"):  # finance's pages link to it
        assert reverse("coupons:stock-void") in finance.get(reverse(page)).content.decode(), page
    page = finance.get(reverse("coupons:stock-void"))
    assert page.status_code == 200 and "MP-0000011–MP-0000100" in page.content.decode()
    done = finance.post(reverse("coupons:stock-void"), {"void-series": program.series.pk, "void-serials": "50-51",
                                                         "void-reason": "Misprinted", "void-password": PASSWORD})
    assert done.status_code == 302
    void = CouponVoid.objects.get()
    assert (void.quantity, void.reason, void.is_complete) == (2, "Misprinted", True)
    held = finance.post(reverse("coupons:stock-void"), {"void-series": program.series.pk, "void-serials": "5",
                                                         "void-reason": "Torn", "void-password": PASSWORD})
    assert held.status_code == 422 and "held by marketing" in held.content.decode()
    no_reason = finance.post(reverse("coupons:stock-void"), {"void-series": program.series.pk, "void-serials": "60",
                                                              "void-reason": " ", "void-password": PASSWORD})
    assert no_reason.status_code == 422 and CouponVoid.objects.count() == 1


def test_only_finance_supervisors_use_the_stock_void_screen(
    program, receive, client_for, marketing_supervisor, finance_staff, inspector
):
    receive(1, 100)
    data = {"void-series": program.series.pk, "void-serials": "50", "void-reason": "x", "void-password": PASSWORD}
    for person in (marketing_supervisor, finance_staff):
        assert client_for(person).get(reverse("coupons:stock-void")).status_code == 403
    assert client_for(inspector).post(reverse("coupons:stock-void"), data).status_code == 403
    assert not CouponVoid.objects.exists()
