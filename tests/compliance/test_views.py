"""The web shell: sign-in, role-aware dashboard, signing through the page, facility scoping."""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType
from django.test import Client

from compliance.models import Signature
from tests.factories import PASSWORD
from tests.testapp.models import TwoPersonForm

pytestmark = pytest.mark.django_db


def test_pages_need_a_sign_in(facility):
    response = Client().get("/audit/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert Client().get("/healthz").status_code == 200


def test_sign_in_with_username_and_password(facility, finance_supervisor):
    client = Client()
    from tests.conftest import totp_token

    response = client.post("/accounts/login/", {"username": finance_supervisor.username, "password": PASSWORD,
                                                "otp_token": totp_token(finance_supervisor)})
    assert response.status_code == 302
    assert "Finance supervisor" in client.get("/").content.decode()


def test_an_inactive_person_cannot_sign_in(facility, finance_supervisor):
    finance_supervisor.profile.active = False
    finance_supervisor.profile.save()
    response = Client().post("/accounts/login/", {"username": finance_supervisor.username, "password": PASSWORD})
    assert response.status_code == 200 and "didn't match" in response.content.decode()


def test_dashboard_navigation_follows_the_role(facility, dealer, compliance_officer, client_for):
    assert "Audit trail" not in client_for(dealer).get("/").content.decode()
    assert "Audit trail" in client_for(compliance_officer).get("/").content.decode()


def test_signing_through_the_page_asks_for_the_password_again(facility, marketing_supervisor, client_for):
    form = TwoPersonForm.objects.create(facility=facility, note="promo", quantity=10)
    url = f"/sign/{ContentType.objects.get_for_model(form).pk}/{form.pk}/prepared/"
    client = client_for(marketing_supervisor)
    page = client.get(url).content.decode()
    assert "Marketing supervisor completing the form" in page and "58 Pa. Code § 525.21(g)" in page

    wrong = client.post(url, {"password": "guess"})
    assert wrong.status_code == 422 and "password is not correct" in wrong.content.decode()
    assert not Signature.objects.exists()

    right = client.post(url, {"password": PASSWORD})
    assert right.status_code == 302
    signature = Signature.objects.get()
    detail = client.get(f"/signatures/{signature.pk}/").content.decode()
    assert marketing_supervisor.profile.full_name in detail
    assert marketing_supervisor.profile.credential_number in detail
    assert "Requisitioned" in detail and "matches its fingerprint" in detail


def test_signing_page_explains_the_two_person_rule(facility, marketing_supervisor, client_for):
    form = TwoPersonForm.objects.create(facility=facility, note="promo", quantity=10)
    ct = ContentType.objects.get_for_model(form).pk
    client = client_for(marketing_supervisor)
    client.post(f"/sign/{ct}/{form.pk}/prepared/", {"password": PASSWORD})
    response = client.post(f"/sign/{ct}/{form.pk}/authorized/", {"password": PASSWORD})
    assert "different person" in response.content.decode()
    assert Signature.objects.count() == 1


def test_dashboard_lists_records_awaiting_my_signature(facility, marketing_supervisor, client_for):
    TwoPersonForm.objects.create(facility=facility, note="needs me", quantity=1)
    page = client_for(marketing_supervisor).get("/").content.decode()
    assert "needs me" in page


def test_a_person_sees_only_the_facilities_they_work_at(facility, other_facility, finance_supervisor, client_for):
    foreign = TwoPersonForm.objects.create(facility=other_facility, note="elsewhere")
    client = client_for(finance_supervisor)
    ct = ContentType.objects.get_for_model(foreign).pk
    assert client.get(f"/sign/{ct}/{foreign.pk}/authorized/").status_code == 404
    assert "elsewhere" not in client.get("/").content.decode()


def test_switching_facility(facility, other_facility, finance_supervisor, client_for):
    finance_supervisor.profile.facilities.add(other_facility)
    client = client_for(finance_supervisor)
    client.post("/facility/select/", {"facility": other_facility.pk})
    assert "<span>Erie Shores Casino</span>" in client.get("/").content.decode()


def test_the_menu_shows_each_role_its_own_work_and_the_inspector_every_record(
    facility, marketing_supervisor, floorperson, inspector, client_for
):
    def menu(user):
        page = client_for(user).get("/").content.decode()
        return page.split('aria-label="Main"')[1].split("</nav>")[0]

    assert "Marketing today" in menu(marketing_supervisor) and "Dice log" not in menu(marketing_supervisor)
    assert "Coupon ledger" not in menu(marketing_supervisor)  # finance keeps the ledger (§ 525.21(f))
    assert "Dice log" in menu(floorperson) and "Coupon ledger" not in menu(floorperson)
    assert "Dice log" in menu(inspector) and "Coupon ledger" in menu(inspector)
