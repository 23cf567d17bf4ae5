"""Requisitions, § 525.21(g)–(h): marketing asks only for what finance can issue now, every requisition page says
the program, and a requisition nothing was issued against can be cancelled (a signed record of its own, linked to it),
so no orphan waits for an authorization or an issuance that can never come."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from compliance.models import Signature
from compliance.selectors import records_awaiting_signature
from compliance.services import signature_sign
from coupons import services
from coupons.models import CouponProgram, CouponRequisition, RequisitionCancellation
from tests.coupons.conftest import PASSWORD, TODAY, approve, make_series

pytestmark = pytest.mark.django_db


def _form_data(program: Any, **more: Any) -> dict[str, Any]:
    return {"program": program.pk, "needed_for": TODAY.isoformat(), "denomination": 2500, "quantity": 100,
            "password": PASSWORD, **more}


def _program_choices(page: Any) -> list[tuple[str, str]]:
    return [(str(value), label) for value, label in page.context["form"].fields["program"].choices]


def test_the_form_offers_only_programs_with_a_series_finance_can_issue_now_525_21_g(
    program, receive, client_for, marketing_supervisor
):
    """§ 525.21(g)–(h): Direct Bet has no series, so it is not offered; Match Play, the only one left, is chosen."""
    receive(1, 100)
    page = client_for(marketing_supervisor).get(reverse("coupons:requisition-create"))
    assert _program_choices(page) == [(str(program.program.pk), "Match Play Coupon")]
    assert "Direct Bet" not in page.content.decode()
    assert 'selected>Match Play Coupon' in page.content.decode()


def test_with_several_programs_the_supervisor_chooses_one_nothing_is_preselected_525_21_g(
    program, receive, client_for, marketing_supervisor, finance_supervisor, compliance_officer
):
    direct_bet = CouponProgram.objects.get(code="direct-bet")
    bets = make_series(program.facility, direct_bet, finance_supervisor, code="db10", denomination_cents=1000,
                       prefix="DB")
    approve(program.facility, direct_bet, compliance_officer, bets)
    receive(1, 100)
    receive(1, 50, series=bets)
    page = client_for(marketing_supervisor).get(reverse("coupons:requisition-create"))
    assert [label for _, label in _program_choices(page)] == ["Choose the program", "Direct Bet Coupon",
                                                              "Match Play Coupon"]
    assert page.context["form"]["program"].value() is None
    assert "selected>Match Play" not in page.content.decode() and "selected>Direct Bet" not in page.content.decode()


def test_a_requisition_for_a_program_without_an_issuable_series_is_refused_525_21_g(
    program, receive, client_for, marketing_supervisor
):
    """Direct Bet has no series: refused in words (422), nothing signed, nothing saved."""
    receive(1, 100)
    direct_bet = CouponProgram.objects.get(code="direct-bet")
    with pytest.raises(ValidationError, match="No Direct Bet Coupon series can be issued now"):
        services.requisition_prepare(facility=program.facility, program=direct_bet, denomination_cents=2500,
                                     quantity=10, needed_for=TODAY, user=marketing_supervisor, password=PASSWORD)
    response = client_for(marketing_supervisor).post(reverse("coupons:requisition-create"),
                                                     _form_data(direct_bet))
    assert response.status_code == 422 and not CouponRequisition.objects.exists()


def test_a_requisition_is_refused_when_the_program_has_nothing_in_stock_or_not_that_denomination_525_21_g(
    program, receive, marketing_supervisor
):
    def prepare(cents: int) -> Any:
        return services.requisition_prepare(facility=program.facility, program=program.program,
                                            denomination_cents=cents, quantity=10, needed_for=TODAY,
                                            user=marketing_supervisor, password=PASSWORD)

    with pytest.raises(ValidationError, match="Ask finance to receive and record Match Play Coupon coupons first"):
        prepare(2500)  # approved and unexpired, but nothing in finance stock (§ 525.21(i))
    receive(1, 100)
    with pytest.raises(ValidationError, match=r"No \$50 Match Play Coupon coupons can be issued now; finance can "
                                              r"issue \$25"):
        prepare(5000)
    assert prepare(2500).quantity == 10


def test_every_requisition_page_shows_the_program(
    program, receive, requisition, client_for, finance_supervisor, marketing_supervisor
):
    receive(1, 100)
    r = requisition(10)
    finance = client_for(finance_supervisor)
    for url in (reverse("coupons:requisition-list"), r.get_absolute_url(),
                reverse("coupons:issuance-create", args=[r.pk])):
        assert "Match Play Coupon" in finance.get(url).content.decode(), url


def test_the_supervisor_who_made_it_cancels_a_requisition_not_issued_with_a_reason(
    program, receive, requisition, client_for, marketing_supervisor, finance_supervisor
):
    """The requisition is not changed: a signed cancellation is linked to it; it then waits for no one, and nothing
    can be authorized or issued against it."""
    receive(1, 100)
    r = requisition(10, authorize=False)
    marketing = client_for(marketing_supervisor)
    assert "Cancel this requisition" in marketing.get(r.get_absolute_url()).content.decode()
    cancel = reverse("coupons:requisition-cancel", args=[r.pk])
    refused = marketing.post(cancel, {"reason": "", "password": PASSWORD})
    assert refused.status_code == 422 and not RequisitionCancellation.objects.exists()
    assert marketing.post(cancel, {"reason": "Promotion called off", "password": PASSWORD}).status_code == 302

    cancellation = RequisitionCancellation.objects.get()
    assert cancellation.requisition == r and cancellation.is_complete and cancellation.reason == "Promotion called off"
    r.refresh_from_db()
    assert not r.altered_since_signed  # the requisition stays as it was signed
    page = marketing.get(r.get_absolute_url()).content.decode()
    assert "Promotion called off" in page and "Cancel this requisition" not in page
    assert "Cancelled" in marketing.get(reverse("coupons:requisition-list")).content.decode()
    assert all(record != r for record, _ in records_awaiting_signature(finance_supervisor, program.facility))
    with pytest.raises(ValidationError, match="was cancelled"):
        signature_sign(record=r, slot="authorized", user=finance_supervisor, password=PASSWORD)
    assert not Signature.objects.filter(object_id=r.pk, slot="authorized").exists()
    with pytest.raises(ValidationError, match="already cancelled"):
        services.requisition_cancel(requisition=r, reason="again", user=marketing_supervisor, password=PASSWORD)


def test_a_finance_supervisor_cancels_an_authorized_requisition_and_nothing_is_issued_against_it(
    program, receive, requisition, client_for, finance_supervisor, marketing_supervisor
):
    receive(1, 100)
    r = requisition(10)
    finance = client_for(finance_supervisor)
    assert finance.post(reverse("coupons:requisition-cancel", args=[r.pk]),
                        {"reason": "Needed for a day already past", "password": PASSWORD}).status_code == 302
    issue = finance.post(reverse("coupons:issuance-create", args=[r.pk]),
                         {"series": program.series.pk, "serials": "1-10", "password": PASSWORD})
    assert issue.status_code == 422 and "was cancelled" in issue.content.decode()
    assert "Issue coupons against this requisition" not in finance.get(r.get_absolute_url()).content.decode()


def test_another_marketing_supervisor_cannot_cancel_and_an_issued_requisition_cannot_be_cancelled(
    program, receive, requisition, issue, second_marketing_supervisor, marketing_supervisor, client_for
):
    receive(1, 100)
    r = requisition(10)
    colleague = second_marketing_supervisor
    with pytest.raises(PermissionDenied, match="who completed requisition"):
        services.requisition_cancel(requisition=r, reason="Not needed", user=colleague, password=PASSWORD)
    assert "Cancel this requisition" not in client_for(colleague).get(r.get_absolute_url()).content.decode()
    issued = issue(1, 10).requisition
    with pytest.raises(ValidationError, match="already issued"):
        services.requisition_cancel(requisition=issued, reason="Not needed", user=marketing_supervisor,
                                    password=PASSWORD)
    assert not RequisitionCancellation.objects.exists()


def test_the_inspector_cannot_cancel_a_requisition(program, receive, requisition, inspector, client_for):
    receive(1, 100)
    r = requisition(10)
    response = client_for(inspector).post(reverse("coupons:requisition-cancel", args=[r.pk]),
                                          {"reason": "x", "password": PASSWORD})
    assert response.status_code == 403 and not RequisitionCancellation.objects.exists()
