"""Accounts (issue 9, items 4 and 5): administrators cannot act as others or give themselves more power,
every account change and refused sign-in is on the audit trail, lock-outs, the second factor, idle
sessions and a person's own password."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.test import Client
from django.utils import timezone
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from compliance import accounts
from compliance.models import AuditEvent, Signature
from compliance.roles import Role
from compliance.services import profile_create, signature_sign
from tests.conftest import totp_device, totp_token
from tests.factories import PASSWORD
from tests.testapp.models import TwoPersonForm

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a new password only I know 42"
LOCKED = "Too many attempts; try again in 15 minutes."


@pytest.fixture
def form(facility: Any, marketing_supervisor: Any, as_user: Any) -> TwoPersonForm:
    with as_user(marketing_supervisor):
        return TwoPersonForm.objects.create(facility=facility, note="Saturday promotion", quantity=500)


def _events(user: Any, event: str) -> Any:
    return accounts._events_about(user, event)


def _sign_in(client: Client, username: str, password: str, code: str = "") -> Any:
    return client.post("/accounts/login/", {"username": username, "password": password, "otp_token": code})


# --- Item 4: administrators cannot act as others -------------------------------------------------


def test_an_administrator_cannot_sign_as_another_person_after_setting_their_password(
    form, administrator, marketing_supervisor, as_user
):
    # The admin's own page sets nothing any more (tests/compliance/test_admin_takeover.py); a password set for
    # someone by another path (a shell acting as the administrator) is temporary.
    with as_user(administrator):
        marketing_supervisor.set_password(NEW_PASSWORD)
        marketing_supervisor.save()
    assert marketing_supervisor.check_password(NEW_PASSWORD)

    with pytest.raises(ValidationError, match="set by an administrator and is temporary"):
        signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=NEW_PASSWORD)
    assert not Signature.objects.exists()
    event = _events(marketing_supervisor, accounts.EVENT_PASSWORD_TEMPORARY).get()
    assert event.actor == administrator and "password" not in str(event.changes).lower().replace("password set", "")
    assert NEW_PASSWORD not in str(event.changes)


def test_a_temporary_password_leads_to_the_change_password_page_and_then_signs(form, marketing_supervisor, as_user,
                                                                                administrator):
    with as_user(administrator):
        marketing_supervisor.set_password(NEW_PASSWORD)
        marketing_supervisor.save()
    client = Client()
    response = _sign_in(client, marketing_supervisor.username, NEW_PASSWORD, totp_token(marketing_supervisor))
    assert response.status_code == 302
    assert client.get("/").url == "/accounts/password/"

    mine = "my very own passphrase 2024"
    response = client.post("/accounts/password/", {"old_password": NEW_PASSWORD, "new_password1": mine,
                                                   "new_password2": mine})
    assert response.status_code == 302
    assert client.get("/").status_code == 200
    marketing_supervisor.refresh_from_db()
    assert signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=mine)
    assert _events(marketing_supervisor, accounts.EVENT_PASSWORD_OWN).filter(actor=marketing_supervisor).exists()


def test_a_password_given_at_profile_create_is_temporary(facility, administrator, as_user):
    with as_user(administrator):
        user = profile_create(username="newdealer", full_name="New Dealer", credential_number="PGCB-777001",
                              department_code="table_games", roles=[Role.DEALER], facilities=[facility],
                              password=NEW_PASSWORD)
    assert accounts.password_is_temporary(user)


def test_an_administrator_cannot_grant_itself_a_role_superuser_or_a_facility(
    facility, other_facility, administrator, client_for, as_user
):
    admin = client_for(administrator)
    profile = administrator.profile
    dealer_role = Group.objects.get(name=Role.COMPLIANCE_OFFICER)
    data = {
        "username": administrator.username, "email": administrator.email, "is_active": "on", "is_staff": "on",
        "is_superuser": "on", "groups": [g.pk for g in administrator.groups.all()] + [dealer_role.pk],
        "date_joined_0": "2024-01-01", "date_joined_1": "00:00:00",
        "profile-TOTAL_FORMS": "1", "profile-INITIAL_FORMS": "1", "profile-MIN_NUM_FORMS": "0",
        "profile-MAX_NUM_FORMS": "1", "profile-0-id": profile.pk, "profile-0-user": administrator.pk,
        "profile-0-full_name": profile.full_name, "profile-0-credential_number": profile.credential_number,
        "profile-0-department": profile.department_id, "profile-0-active": "on",
        "profile-0-facilities": [facility.pk, other_facility.pk],
    }
    # Their own account is theirs to read, not to change (issue 22: an administrator never manages themselves).
    assert admin.get(f"/admin/auth/user/{administrator.pk}/change/").status_code == 200
    response = admin.post(f"/admin/auth/user/{administrator.pk}/change/", data)
    assert response.status_code == 403
    del data["is_superuser"]
    data["groups"] = [g.pk for g in administrator.groups.all()]
    assert admin.post(f"/admin/auth/user/{administrator.pk}/change/", data).status_code == 403
    assert admin.post(f"/admin/compliance/profile/{profile.pk}/change/", {}).status_code in (302, 403)
    administrator.refresh_from_db()
    assert not administrator.is_superuser
    assert set(administrator.groups.values_list("name", flat=True)) == {Role.ADMINISTRATOR}
    assert list(profile.facilities.all()) == [facility]

    # Behind the forms (a shell, another screen), the guards refuse too; each refusal is kept (as a request keeps
    # it) although its transaction rolls back.
    with accounts.deferred_account_events(), as_user(administrator):
        with pytest.raises(ValidationError, match="cannot grant yourself a role"), transaction.atomic():
            administrator.groups.add(dealer_role)
        with pytest.raises(ValidationError, match="own superuser status"), transaction.atomic():
            administrator.is_superuser = True
            administrator.save()
        with pytest.raises(ValidationError, match="cannot change the facilities"), transaction.atomic():
            profile.facilities.add(other_facility)
    refused = AuditEvent.objects.filter(actor=administrator, changes__event=accounts.EVENT_REFUSED_OWN)
    assert refused.count() >= 2


def test_no_one_holds_the_administrator_role_with_a_role_that_signs(facility, administrator, dealer, as_user,
                                                                    compliance_officer):
    with pytest.raises(ValidationError, match="cannot hold the administrator role together with the compliance"):
        profile_create(username="both", full_name="Both Roles", credential_number="PGCB-777002",
                       department_code="compliance", roles=[Role.ADMINISTRATOR, Role.COMPLIANCE_OFFICER],
                       facilities=[facility])
    with as_user(administrator), pytest.raises(ValidationError, match="cannot hold the administrator role"), \
            transaction.atomic():
        compliance_officer.groups.add(Group.objects.get(name=Role.ADMINISTRATOR))
    assert set(compliance_officer.groups.values_list("name", flat=True)) == {Role.COMPLIANCE_OFFICER}


def test_every_account_change_reaches_the_audit_trail_inspectors_read(
    facility, administrator, dealer, inspector, client_for, as_user
):
    with as_user(administrator):
        dealer.groups.add(Group.objects.get(name=Role.FLOORPERSON))
        dealer.is_active = False
        dealer.save()
        dealer.set_password(NEW_PASSWORD)
        dealer.save()
    events = AuditEvent.objects.filter(actor=administrator, object_id=str(dealer.profile.pk))
    texts = [str(e.changes) for e in events]
    assert any("Floorperson" in t for t in texts)
    assert any("is_active" in t for t in texts)
    assert any(accounts.EVENT_PASSWORD_TEMPORARY in t for t in texts)
    assert all(NEW_PASSWORD not in t for t in texts)
    page = client_for(inspector).get("/audit/").content.decode()
    assert "Floorperson" in page and "Password set by another person" in page


# --- Item 5: lock-outs ----------------------------------------------------------------------------


def test_sign_in_locks_after_five_failures_even_for_the_right_password(dealer):
    client = Client()
    for _ in range(5):
        _sign_in(client, dealer.username, "wrong password")
    response = _sign_in(client, dealer.username, PASSWORD)
    assert response.status_code == 429
    assert LOCKED in response.content.decode()
    assert "_auth_user_id" not in client.session
    assert _events(dealer, accounts.EVENT_SIGNIN_FAILED).count() >= 5
    assert _events(dealer, accounts.EVENT_LOCKED_OUT).exists()


def test_a_sign_in_lock_out_reads_the_same_for_a_name_no_one_holds(db):
    client = Client(REMOTE_ADDR="10.0.0.9")
    for _ in range(5):
        _sign_in(client, "nobody-here", "wrong password")
    response = _sign_in(client, "nobody-here", "wrong password")
    assert response.status_code == 429 and LOCKED in response.content.decode()
    assert AuditEvent.objects.filter(changes__event=accounts.EVENT_LOCKED_OUT, changes__username="nobody-here").exists()


def test_signing_locks_after_five_wrong_passwords_even_for_the_right_one(form, marketing_supervisor):
    for _ in range(5):
        with pytest.raises(ValidationError, match="password is not correct"):
            signature_sign(record=form, slot="prepared", user=marketing_supervisor, password="wrong")
    with pytest.raises(ValidationError, match="Too many attempts; try again in 15 minutes"):
        signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=PASSWORD)
    assert not Signature.objects.exists()
    assert _events(marketing_supervisor, accounts.EVENT_SIGN_FAILED).count() == 5
    assert _events(marketing_supervisor, accounts.EVENT_SIGNING_LOCKED).count() == 1
    with time_machine.travel(timezone.now() + timedelta(minutes=16)):
        assert signature_sign(record=form, slot="prepared", user=marketing_supervisor, password=PASSWORD)


def test_signing_on_the_signing_page_locks_and_the_failures_survive_the_rollback(form, marketing_supervisor,
                                                                                 client_for):
    from django.contrib.contenttypes.models import ContentType

    client = client_for(marketing_supervisor)
    url = f"/sign/{ContentType.objects.get_for_model(form).pk}/{form.pk}/prepared/"
    for _ in range(5):
        assert "password is not correct" in client.post(url, {"password": "wrong"}).content.decode()
    response = client.post(url, {"password": PASSWORD})
    assert "Too many attempts; try again in 15 minutes" in response.content.decode()
    assert not Signature.objects.exists()
    assert _events(marketing_supervisor, accounts.EVENT_SIGN_FAILED).count() == 5
    assert _events(marketing_supervisor, accounts.EVENT_SIGNING_LOCKED).exists()


# --- Item 5: the second factor, idle sessions, own password ----------------------------------------


def test_a_privileged_person_without_a_second_factor_reaches_nothing_but_enrolment(facility, finance_supervisor):
    client = Client()
    assert _sign_in(client, finance_supervisor.username, PASSWORD).status_code == 302
    for url in ("/", "/audit/", "/coupons/", "/signatures/", "/admin/"):
        response = client.get(url)
        assert response.status_code == 302 and response.url == "/accounts/second-factor/", url
    page = client.get("/accounts/second-factor/").content.decode()
    device = TOTPDevice.objects.get(user=finance_supervisor, confirmed=False)
    assert "<svg" in page and accounts.totp_secret(device) in page
    # The code is drawn on the server: no script but the application's own menu script is on the page.
    assert re.findall(r"<script[^>]*>", page) == ['<script src="/static/compliance/nav.js" defer>']

    code = f"{totp(device.bin_key):06d}"
    enrolled = client.post("/accounts/second-factor/", {"otp_token": code})
    assert enrolled.status_code == 200 and "They are shown this once" in enrolled.content.decode()  # backup codes
    assert client.get("/").status_code == 200
    device.refresh_from_db()
    assert device.confirmed


def test_with_a_device_sign_in_asks_for_the_code(finance_supervisor, dealer):
    totp_device(finance_supervisor)
    client = Client()
    response = _sign_in(client, finance_supervisor.username, PASSWORD)
    assert response.status_code == 200 and "Your role signs in with a code as well" in response.content.decode()
    assert _sign_in(client, finance_supervisor.username, PASSWORD, totp_token(finance_supervisor)).status_code == 302
    assert client.get("/").status_code == 200
    # A dealer signs in with a password alone.
    other = Client()
    assert _sign_in(other, dealer.username, PASSWORD).status_code == 302
    assert other.get("/").status_code == 200


def test_an_idle_session_expires(dealer, client_for, settings):
    settings.SESSION_IDLE_MINUTES = 30
    client = client_for(dealer)
    assert client.get("/").status_code == 200
    with time_machine.travel(timezone.now() + timedelta(minutes=29)):
        assert client.get("/").status_code == 200
    with time_machine.travel(timezone.now() + timedelta(minutes=61)):
        response = client.get("/")
    assert response.status_code == 302 and response.url.startswith("/accounts/login/")


def test_a_person_changes_their_own_password(dealer, client_for):
    client = client_for(dealer)
    assert client.get("/accounts/password/").status_code == 200
    response = client.post("/accounts/password/", {"old_password": PASSWORD, "new_password1": NEW_PASSWORD,
                                                   "new_password2": NEW_PASSWORD})
    assert response.status_code == 302
    dealer.refresh_from_db()
    assert dealer.check_password(NEW_PASSWORD)
    assert not accounts.password_is_temporary(dealer)
    assert client.get("/").status_code == 200  # still signed in
    assert _events(dealer, accounts.EVENT_PASSWORD_OWN).filter(actor=dealer).exists()


def test_a_signers_lock_and_temporary_password_are_read_in_one_query_and_agree_with_the_trail(
    marketing_supervisor, administrator, django_assert_num_queries
):
    """Every signature asks both questions (compliance.services._check_password): one read of the trail, on the
    person's profile and on the account itself, and the same answers as the events say."""

    def state() -> accounts.SigningState:
        with django_assert_num_queries(1):
            return accounts.signing_state(marketing_supervisor)

    assert state() == accounts.SigningState(locked=False, temporary=False)
    accounts.account_event(marketing_supervisor, event=accounts.EVENT_PASSWORD_TEMPORARY, actor=administrator)
    assert state() == accounts.SigningState(locked=False, temporary=True)
    with time_machine.travel(timezone.now() + timedelta(minutes=1)):
        accounts.account_event(marketing_supervisor, event=accounts.EVENT_PASSWORD_OWN, actor=marketing_supervisor)
        assert state().temporary is False
    accounts.account_event(marketing_supervisor, event=accounts.EVENT_SIGNING_LOCKED, actor=marketing_supervisor)
    assert state().locked is True and accounts.signing_locked(marketing_supervisor)
    with time_machine.travel(timezone.now() + timedelta(minutes=16)):
        assert state().locked is False  # the lock lasts 15 minutes
    # Another person's events say nothing of this one.
    accounts.account_event(administrator, event=accounts.EVENT_SIGNING_LOCKED, actor=administrator)
    assert accounts.signing_state(administrator).locked and state().temporary is False


def test_an_account_without_a_profile_is_read_from_the_events_on_the_account(db, administrator):
    from django.contrib.auth import get_user_model

    bare = get_user_model().objects.create_user("no-profile-yet", password="a password of the account 1")
    assert accounts.signing_state(bare) == accounts.SigningState()
    accounts.account_event(bare, event=accounts.EVENT_PASSWORD_TEMPORARY, actor=administrator)
    assert accounts.password_is_temporary(bare)
    bare.set_unusable_password()
    assert not accounts.password_is_temporary(bare)  # nothing to sign with, nothing temporary
    assert accounts.signing_state(None) == accounts.SigningState()
