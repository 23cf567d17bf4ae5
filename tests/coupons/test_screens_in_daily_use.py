"""Everyday friction seen on the coupon screens (issue 8, item 8): typed as on paper, returned as chosen,
warned in time, shown with names, counts and dollars."""

from __future__ import annotations

import pytest
from django.urls import reverse

from coupons import services
from coupons.models import CouponIssuance, CouponReturn, LedgerLine
from tests.coupons.conftest import PASSWORD, TODAY, states

pytestmark = pytest.mark.django_db


def test_an_issuance_is_typed_with_its_voided_coupons_as_on_paper(program, receive, requisition, client_for,
                                                                 finance_supervisor):
    receive(1, 600)
    req = requisition(499)
    response = client_for(finance_supervisor).post(
        reverse("coupons:issuance-create", args=[req.pk]),
        {"series": program.series.pk, "serials": "1-500 with 13 voided", "void_reason": "Torn", "password": PASSWORD},
    )
    assert response.status_code == 302, response.content.decode()
    issuance = CouponIssuance.objects.get()
    assert (issuance.quantity, issuance.voided_quantity) == (499, 1)
    assert (13, 13, "voided") in states(program.series)
    assert LedgerLine.objects.get(kind="void").reason == "Torn"


def test_issuing_against_a_requisition_whose_date_has_passed_asks_for_confirmation(
    program, receive, requisition, client_for, finance_supervisor
):
    import time_machine

    receive(1, 100)
    req = requisition(10)
    url = reverse("coupons:issuance-create", args=[req.pk])
    data = {"series": program.series.pk, "serials": "1-10", "password": PASSWORD}
    with time_machine.travel("2026-11-05 14:00:00+00:00", tick=True):
        client = client_for(finance_supervisor)
        refused = client.post(url, data)
        assert refused.status_code == 422 and "which has passed" in refused.content.decode()
        assert not CouponIssuance.objects.exists()
        assert client.post(url, {**data, "needed_date_passed": "on"}).status_code == 302
    assert CouponIssuance.objects.get().quantity == 10


def test_a_return_of_chosen_serials_or_of_one_denomination(program, receive, issue, client_for, marketing_supervisor,
                                                           finance_supervisor):
    receive(1, 100)
    issue(1, 20)
    client = client_for(marketing_supervisor)
    base = {"gaming_date": TODAY.isoformat(), "password": PASSWORD}
    refused = client.post(reverse("coupons:return-create"), {**base, "what": "serials"})
    assert refused.status_code == 422 and "list the serials to return" in refused.content.decode()
    response = client.post(reverse("coupons:return-create"),
                           {**base, "what": "serials", "series": program.series.pk, "serials": "1-5"})
    assert response.status_code == 302 and CouponReturn.objects.get().quantity == 5
    response = client.post(reverse("coupons:return-create"), {**base, "what": "denomination", "denomination": 2500})
    assert response.status_code == 302
    assert sorted(r.quantity for r in CouponReturn.objects.all()) == [5, 15]


def test_the_ledger_names_its_documents_and_signers_and_the_csv_too(program, receive, issue, client_for,
                                                                    finance_supervisor):
    receive(1, 100)
    issue(1, 10)
    client = client_for(finance_supervisor)
    page = client.get(reverse("coupons:ledger")).content.decode()
    name = finance_supervisor.profile
    assert "Receipt #" in page and "Issuance #" in page
    assert f"{name.full_name} ({name.credential_number})" in page
    csv_text = b"".join(client.get(reverse("coupons:ledger-csv")).streaming_content).decode()
    header, first, *_ = csv_text.splitlines()
    assert "document,signed_by" in header and "Receipt #" in first and name.credential_number in first


def test_finance_processing_shows_each_denomination_with_counts_dollars_and_who_voided(
    program, receive, requisition, client_for, finance_supervisor, finance_staff, marketing_supervisor
):
    receive(1, 100)
    services.issuance_record(requisition=requisition(10), series=program.series, issued=[(1, 10)],
                             voids=[([(11, 11)], "Misprint")], user=finance_supervisor, password=PASSWORD,
                             receiver=services.CoSigner(marketing_supervisor, PASSWORD))
    services.coupons_void(facility=program.facility, series=program.series, spans=[(2, 3)], reason="Torn",
                         user=marketing_supervisor, password=PASSWORD)
    page = client_for(finance_staff).get(reverse("coupons:process") + f"?day={TODAY.isoformat()}").content.decode()
    assert "given to marketing 10 ($250)" in page and "voided by marketing 2 ($50)" in page
    assert "1 by finance at issuance or in stock" in page and "2 by marketing from what it held" in page
