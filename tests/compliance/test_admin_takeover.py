"""An administrator cannot take over another person's account (issue 22, items 1–4; 21 CFR 11.100, 11.300).

Each path the review found, tried through the admin as an administrator would: a password set by hand, an
account created with a password, a TOTP key read or a device edited, a second factor removed alone, a person of
another facility changed. Each is refused (in words where a person reads it) and each change that is allowed
leaves an audit event.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from compliance import accounts, second_factor
from compliance.models import AuditEvent, Department, SecondFactorReset
from compliance.password_links import EVENT_LINK_ISSUED, EVENT_LINK_USED
from compliance.roles import Role
from tests.conftest import totp_device, totp_token
from tests.factories import PASSWORD, make_person

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a password only I know 1979"
LINK = re.compile(r"https?://[^/\s]+(/accounts/set-password/[^\s]+/)")


@pytest.fixture
def second_administrator(facility: Any) -> Any:
    return make_person(Role.ADMINISTRATOR, facility, full_name="Second Admin")


def _link_in_mail() -> str:
    (message,) = [m for m in mail.outbox if "Choose your password" in m.subject]
    found = LINK.search(str(message.body))
    assert found, message.body
    return found.group(1)


def _everything_shown(*responses: Any) -> str:
    return "".join(r.content.decode() + str(r.headers) for r in responses)


def _add_person(admin: Client, facility: Any, **overrides: Any) -> Any:
    data = {
        "username": "newfloor", "email": "new.floor@casino.example",
        "profile-TOTAL_FORMS": "1", "profile-INITIAL_FORMS": "0", "profile-MIN_NUM_FORMS": "1",
        "profile-MAX_NUM_FORMS": "1", "profile-0-full_name": "Nora Floor", "profile-0-credential_number": "PGCB-55501",
        "profile-0-department": str(Department.objects.get(code=Department.TABLE_GAMES).pk),
        "profile-0-facilities": [str(facility.pk)], "profile-0-active": "on",
        "_save": "Save",
        **overrides,
    }
    return admin.post("/admin/auth/user/add/", data)


# --- item 1: no administrator knows another person's usable password ---------------------------------------


def test_an_account_created_in_the_admin_has_no_password_until_the_person_chooses_one(
        facility, administrator, client_for, django_capture_on_commit_callbacks):
    admin = client_for(administrator)
    form = admin.get("/admin/auth/user/add/").content.decode()
    assert 'name="password1"' not in form and 'name="usable_password"' not in form
    with django_capture_on_commit_callbacks(execute=True):
        created = _add_person(admin, facility)
    assert created.status_code == 302, created.content.decode()[:3000]
    person = get_user_model().objects.get(username="newfloor")
    assert not person.has_usable_password()
    shown = _everything_shown(created, admin.get(created.url, follow=True))
    path = _link_in_mail()
    assert path not in shown and path.split("/")[-2] not in shown
    assert mail.outbox[-1].to == ["new.floor@casino.example"]
    issued = accounts._events_about(person, EVENT_LINK_ISSUED).get()
    assert issued.actor == administrator and path.split("/")[-2] not in str(issued.changes)

    # The person chooses their password through the link; the link then works no more.
    browser = Client()
    form_page = browser.get(path, follow=True)
    assert "Choose your password" in form_page.content.decode()
    done = browser.post(form_page.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD,
                                                          "new_password2": NEW_PASSWORD})
    assert done.status_code == 302
    person.refresh_from_db()
    assert person.check_password(NEW_PASSWORD) and not accounts.password_is_temporary(person)
    assert accounts._events_about(person, EVENT_LINK_USED).get().actor == person
    assert accounts._events_about(person, accounts.EVENT_PASSWORD_OWN).get().actor == person
    again = Client().get(path, follow=True).content.decode()
    assert "This link no longer works" in again


def test_an_account_without_an_e_mail_cannot_be_created(facility, administrator, client_for):
    page = _add_person(client_for(administrator), facility, email="").content.decode()
    assert "This field is required" in page
    assert not get_user_model().objects.filter(username="newfloor").exists()


def test_the_admins_set_a_password_page_sets_nothing(administrator, dealer, client_for):
    admin = client_for(administrator)
    response = admin.post(f"/admin/auth/user/{dealer.pk}/password/",
                          {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "usable_password": "true"})
    assert response.status_code == 302 and response.url.endswith(f"/admin/auth/user/{dealer.pk}/change/")
    dealer.refresh_from_db()
    assert dealer.check_password(PASSWORD) and not dealer.check_password(NEW_PASSWORD)
    page = admin.get(response.url).content.decode()
    assert "Administrators do not set passwords" in page


def test_a_reset_clears_the_password_sends_a_link_and_keeps_the_second_factor(
        administrator, finance_supervisor, client_for, django_capture_on_commit_callbacks):
    device = totp_device(finance_supervisor)
    admin = client_for(administrator)
    url = f"/admin/auth/user/{finance_supervisor.pk}/set-password-link/"
    assert "Clear the password and send the link" in admin.get(url).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(url)
    finance_supervisor.refresh_from_db()
    assert not finance_supervisor.has_usable_password()
    path = _link_in_mail()
    assert path not in _everything_shown(response, admin.get(response.url))
    # The administrator who knew the old password can no longer sign in with it.
    assert Client().post("/accounts/login/", {"username": finance_supervisor.username, "password": PASSWORD,
                                              "otp_token": totp_token(finance_supervisor)}).status_code == 200
    assert TOTPDevice.objects.filter(pk=device.pk, confirmed=True).exists()


def test_an_administrator_cannot_send_themselves_a_link(administrator, client_for):
    response = client_for(administrator).post(f"/admin/auth/user/{administrator.pk}/set-password-link/")
    assert response.status_code == 403
    assert administrator.has_usable_password()


# --- item 2: second factors -------------------------------------------------------------------------------


def test_administrators_neither_see_nor_edit_totp_keys(administrator, finance_supervisor, client_for):
    device = totp_device(finance_supervisor)
    admin = client_for(administrator)
    page = admin.get(f"/admin/otp_totp/totpdevice/{device.pk}/change/").content.decode()
    assert device.key not in page and accounts.totp_secret(device) not in page
    assert "qrcode" not in page.lower()
    assert admin.get(f"/admin/otp_totp/totpdevice/{device.pk}/config/").status_code in (403, 404, 302)
    assert admin.post(f"/admin/otp_totp/totpdevice/{device.pk}/change/", {"name": "mine", "key": "00" * 20,
                                                                          "user": administrator.pk}).status_code == 403
    assert admin.post(f"/admin/otp_totp/totpdevice/{device.pk}/delete/", {"post": "yes"}).status_code == 403
    assert admin.get("/admin/otp_totp/totpdevice/add/").status_code == 403
    assert admin.get("/admin/otp_static/staticdevice/").status_code == 404
    device.refresh_from_db()
    assert device.user == finance_supervisor and device.name == "Test authenticator"


def test_a_second_factor_reset_waits_for_a_second_administrator(
        administrator, second_administrator, finance_supervisor, django_capture_on_commit_callbacks):
    totp_device(finance_supervisor)
    second_factor.backup_codes_make(finance_supervisor)
    with django_capture_on_commit_callbacks(execute=True):
        reset = second_factor.reset_request(finance_supervisor, actor=administrator, reason="Phone lost on 24 Nov")
    assert TOTPDevice.objects.filter(user=finance_supervisor).exists()
    assert "asked to remove your authenticator" in mail.outbox[-1].body
    with pytest.raises(Exception, match="a second administrator approves"):
        second_factor.reset_decide(reset, actor=administrator, approve=True)
    with pytest.raises(Exception, match="already waiting"):
        second_factor.reset_request(finance_supervisor, actor=second_administrator, reason="again")
    with django_capture_on_commit_callbacks(execute=True):
        second_factor.reset_decide(reset, actor=second_administrator, approve=True)
    assert not TOTPDevice.objects.filter(user=finance_supervisor).exists()
    assert not StaticDevice.objects.filter(user=finance_supervisor).exists()
    assert mail.outbox[-1].to == [finance_supervisor.email] and "approved by Second Admin" in mail.outbox[-1].body
    event = accounts._events_about(finance_supervisor, "Second factor reset: authenticator and backup codes removed")
    assert event.get().actor == second_administrator
    with pytest.raises(Exception, match="already decided"):
        second_factor.reset_decide(reset, actor=second_administrator, approve=False)


def test_the_database_refuses_a_reset_decided_by_its_requester_or_changed_once_decided(
        administrator, second_administrator, finance_supervisor):
    from django.db import DatabaseError, connection, transaction

    totp_device(finance_supervisor)
    reset = second_factor.reset_request(finance_supervisor, actor=administrator, reason="lost")
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE compliance_secondfactorreset SET outcome = 'approved', decided_by_id = %s, "
                       "decided_at = CURRENT_TIMESTAMP WHERE id = %s", [administrator.pk, reset.pk])
    second_factor.reset_decide(reset, actor=second_administrator, approve=False)
    if connection.vendor == "postgresql":  # the decision is final: a trigger of migration 0015
        for sql in ("UPDATE compliance_secondfactorreset SET outcome = 'pending', decided_by_id = NULL, "
                    "decided_at = NULL WHERE id = %s", "DELETE FROM compliance_secondfactorreset WHERE id = %s"):
            with pytest.raises(DatabaseError, match="second-factor reset"), transaction.atomic(), \
                    connection.cursor() as cursor:
                cursor.execute(sql, [reset.pk])
    reset.refresh_from_db()
    assert reset.outcome == "refused"


def test_a_reset_through_the_admin(administrator, second_administrator, finance_supervisor, client_for):
    totp_device(finance_supervisor)
    first = client_for(administrator)
    response = first.post("/admin/compliance/secondfactorreset/add/",
                          {"person": finance_supervisor.pk, "reason": "Phone replaced"}, follow=True)
    assert response.status_code == 200
    reset = SecondFactorReset.objects.get()
    assert reset.requested_by == administrator and reset.outcome == "pending"
    page = first.post("/admin/compliance/secondfactorreset/", {"action": "approve", "_selected_action": [reset.pk]},
                      follow=True).content.decode()
    assert "a second administrator approves or refuses it" in page
    client_for(second_administrator).post("/admin/compliance/secondfactorreset/",
                                          {"action": "approve", "_selected_action": [reset.pk]})
    reset.refresh_from_db()
    assert reset.outcome == "approved" and reset.decided_by == second_administrator
    assert not TOTPDevice.objects.filter(user=finance_supervisor).exists()


def test_backup_codes_shown_once_each_working_once(finance_supervisor):
    totp_device(finance_supervisor)
    codes = second_factor.backup_codes_make(finance_supervisor)
    assert len(codes) == second_factor.BACKUP_CODES == len(set(codes))
    login = {"username": finance_supervisor.username, "password": PASSWORD, "otp_token": codes[0].upper()}
    client = Client()
    assert client.post("/accounts/login/", login).status_code == 302
    assert client.get("/").status_code == 200  # the session is verified
    assert second_factor.backup_codes_left(finance_supervisor) == 9
    assert Client().post("/accounts/login/", login).status_code == 200
    assert accounts._events_about(finance_supervisor, "Signed in with a backup code").count() == 1


def test_enrolment_shows_the_backup_codes_once(finance_supervisor):
    from django_otp.oath import totp

    client = Client()
    client.post("/accounts/login/", {"username": finance_supervisor.username, "password": PASSWORD})
    client.get("/accounts/second-factor/")
    device = TOTPDevice.objects.get(user=finance_supervisor)
    page = client.post("/accounts/second-factor/", {"otp_token": f"{totp(device.bin_key):06d}"}).content.decode()
    assert "They are shown this once" in page
    codes = re.findall(r"<li><code>([a-z2-7]+)</code></li>", page)
    assert len(codes) == 10
    later = client.get("/accounts/backup-codes/").content.decode()
    assert "10</strong> backup codes left" in later and codes[0] not in later


# --- items 3 and 4: roles are code, scope, audit -----------------------------------------------------------


def test_no_permission_is_given_to_a_person_directly(administrator, dealer, client_for):
    page = client_for(administrator).get(f"/admin/auth/user/{dealer.pk}/change/").content.decode()
    assert "user_permissions" not in page


def test_an_administrator_manages_only_people_of_their_facilities(
        facility, other_facility, administrator, client_for, as_user):
    both = make_person(Role.DEALER, facility, full_name="Dee Both")
    with as_user(None):
        both.profile.facilities.add(other_facility)
    elsewhere = make_person(Role.DEALER, other_facility, full_name="Erin Elsewhere")
    admin = client_for(administrator)
    listing = admin.get("/admin/auth/user/").content.decode()
    assert "Erin Elsewhere" not in listing and elsewhere.username not in listing
    # The person who also works elsewhere is not theirs to change (not even found).
    assert "Dee Both" not in listing
    response = admin.post(f"/admin/auth/user/{both.pk}/change/", {"username": "renamed", "is_active": ""})
    assert response.status_code in (302, 403, 404)
    both.refresh_from_db()
    assert both.username != "renamed" and both.is_active
    assert admin.get(f"/admin/auth/user/{elsewhere.pk}/change/").status_code in (302, 404)
    assert admin.post(f"/admin/auth/user/{elsewhere.pk}/set-password-link/").status_code == 404
    # Their own account: view only.
    assert admin.post(f"/admin/auth/user/{administrator.pk}/change/", {"username": "me"}).status_code == 403


def test_no_one_assigns_a_person_to_a_facility_they_do_not_administer(
        facility, other_facility, administrator, dealer, as_user):
    from django.core.exceptions import ValidationError
    from django.db import transaction

    with as_user(administrator), pytest.raises(ValidationError, match="You do not administer Erie Shores Casino"), \
            transaction.atomic():
        dealer.profile.facilities.add(other_facility)
    assert list(dealer.profile.facilities.all()) == [facility]


def test_profiles_of_other_facilities_are_not_listed(facility, other_facility, administrator, client_for):
    make_person(Role.DEALER, other_facility, full_name="Erin Elsewhere")
    page = client_for(administrator).get("/admin/compliance/profile/").content.decode()
    assert "Erin Elsewhere" not in page


def test_every_admin_change_to_a_person_is_on_their_trail(administrator, dealer, client_for):
    before = AuditEvent.objects.count()
    admin = client_for(administrator)
    data = {"username": dealer.username, "email": "dealer.new@casino.example", "first_name": "", "last_name": "",
            "is_active": "on", "groups": [], "last_login_0": "", "last_login_1": "",
            "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00",
            "profile-TOTAL_FORMS": "1", "profile-INITIAL_FORMS": "1", "profile-MIN_NUM_FORMS": "1",
            "profile-MAX_NUM_FORMS": "1", "profile-0-id": str(dealer.profile.pk), "profile-0-user": str(dealer.pk),
            "profile-0-full_name": dealer.profile.full_name, "profile-0-credential_number": "PGCB-999999",
            "profile-0-department": str(dealer.profile.department_id),
            "profile-0-facilities": [str(f.pk) for f in dealer.profile.facilities.all()], "profile-0-active": "on"}
    from django.contrib.auth.models import Group

    data["groups"] = [str(Group.objects.get(name=Role.DEALER).pk)]
    response = admin.post(f"/admin/auth/user/{dealer.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    texts = [str(e.changes) for e in AuditEvent.objects.filter(actor=administrator)[: AuditEvent.objects.count()]]
    assert AuditEvent.objects.count() > before
    assert any("dealer.new@casino.example" in t for t in texts)
    assert any("PGCB-999999" in t for t in texts)


def test_a_shared_register_changed_at_another_facility_names_no_one_here(
        facility, other_facility, compliance_officer, inspector, client_for):
    from compliance.providers.services import provider_register

    elsewhere = make_person(Role.COMPLIANCE_OFFICER, other_facility, full_name="Olive Otherplace")
    provider_register(facility=other_facility, name="Statewide Shufflers", board_file_number="GSP-77", user=elsewhere)
    provider_register(facility=facility, name="Keystone Cards", board_file_number="GSP-78", user=compliance_officer)
    page = client_for(inspector).get("/audit/").content.decode()
    assert "Statewide Shufflers" in page and "Keystone Cards" in page  # the register is every facility's
    assert "Olive Otherplace" not in page and elsewhere.profile.credential_number not in page
    assert "A person of another facility" in page
    assert compliance_officer.profile.full_name in page  # someone who works here is named
    response = client_for(inspector).get("/audit/export.csv")
    csv_text = b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()
    assert "Olive Otherplace" not in csv_text


def test_roles_cannot_be_renamed_created_or_given_permissions_in_the_admin(administrator, client_for):
    from django.contrib.auth.models import Group, Permission

    admin = client_for(administrator)
    own_role = Group.objects.get(name=Role.ADMINISTRATOR)
    before = set(own_role.permissions.values_list("pk", flat=True))
    totp = Permission.objects.get(codename="view_totpdevice")
    page = admin.get(f"/admin/auth/group/{own_role.pk}/change/")
    assert page.status_code == 200 and 'name="name"' not in page.content.decode()  # shown read-only
    assert admin.post(f"/admin/auth/group/{own_role.pk}/change/",
                      {"name": Role.COMPLIANCE_OFFICER, "permissions": [totp.pk]}).status_code == 403
    assert admin.post("/admin/auth/group/add/", {"name": "auditors", "permissions": [totp.pk]}).status_code == 403
    assert admin.post(f"/admin/auth/group/{own_role.pk}/delete/", {"post": "yes"}).status_code == 403
    own_role.refresh_from_db()
    assert own_role.name == Role.ADMINISTRATOR and set(own_role.permissions.values_list("pk", flat=True)) == before
    assert not Group.objects.filter(name="auditors").exists()


def test_an_address_changed_by_an_administrator_gets_no_link_for_a_day_and_the_old_one_is_told(
        administrator, dealer, as_user, django_capture_on_commit_callbacks):
    from datetime import timedelta

    import time_machine
    from django.core.exceptions import ValidationError
    from django.utils import timezone

    from compliance.password_links import set_password_link_issue

    old = dealer.email
    with django_capture_on_commit_callbacks(execute=True), as_user(administrator):
        dealer.email = "admins.own.box@casino.example"
        dealer.save()
    told = [m for m in mail.outbox if m.to == [old]]
    assert told and "a***@casino.example" in told[0].body and "tell your compliance officer" in told[0].body
    with pytest.raises(ValidationError, match="changed by someone else"):
        set_password_link_issue(dealer, actor=administrator, base_url="https://x", why="reset by an administrator")
    dealer.refresh_from_db()
    assert dealer.check_password(PASSWORD)  # nothing was cleared
    with time_machine.travel(timezone.now() + timedelta(hours=25)), django_capture_on_commit_callbacks(execute=True):
        set_password_link_issue(dealer, actor=administrator, base_url="https://x", why="reset by an administrator")
    assert mail.outbox[-1].to == ["admins.own.box@casino.example"]


# --- after review: the paths an attacker found next ----------------------------------------------------------


def test_history_pages_stay_inside_the_scope_and_restore_nothing(facility, other_facility, administrator, dealer,
                                                                 client_for):
    elsewhere = make_person(Role.DEALER, other_facility, full_name="Erin Elsewhere")
    admin = client_for(administrator)
    assert admin.get(f"/admin/compliance/profile/{elsewhere.profile.pk}/history/").status_code == 404
    version = elsewhere.profile.history.first()
    assert admin.post(f"/admin/compliance/profile/{elsewhere.profile.pk}/history/{version.history_id}/",
                      {"full_name": "Renamed", "active": ""}).status_code == 404
    mine = dealer.profile.history.first()
    assert admin.get(f"/admin/compliance/profile/{dealer.profile.pk}/history/").status_code == 200
    assert admin.post(f"/admin/compliance/profile/{dealer.profile.pk}/history/{mine.history_id}/",
                      {"full_name": "Renamed"}).status_code == 403
    elsewhere.profile.refresh_from_db()
    dealer.profile.refresh_from_db()
    assert elsewhere.profile.full_name == "Erin Elsewhere" and dealer.profile.full_name != "Renamed"


def test_a_bounded_administrator_cannot_make_a_superuser(administrator, dealer, client_for, as_user):
    from django.core.exceptions import ValidationError
    from django.db import transaction

    page = client_for(administrator).get(f"/admin/auth/user/{dealer.pk}/change/").content.decode()
    assert 'name="is_superuser"' not in page
    with as_user(administrator), pytest.raises(ValidationError, match="console account"), transaction.atomic():
        dealer.is_superuser = True
        dealer.save()
    dealer.refresh_from_db()
    assert not dealer.is_superuser


def test_a_totp_key_cannot_be_read_through_list_filters(administrator, finance_supervisor, client_for):
    device = totp_device(finance_supervisor)
    # The administrator role cannot open the list at all; the console's superuser can, and still reads no key.
    assert client_for(administrator).get("/admin/otp_totp/totpdevice/").status_code == 403
    console = get_user_model().objects.create_superuser("console", "console@casino.example", PASSWORD)
    admin = client_for(console)
    assert admin.get("/admin/otp_totp/totpdevice/").status_code == 200
    for lookup in ("key__startswith", "key", "key__regex", "bin_key"):
        response = admin.get("/admin/otp_totp/totpdevice/", {lookup: device.key[:2]})
        assert response.status_code == 400, (lookup, response.status_code)  # a disallowed lookup, refused


def test_a_profile_is_never_moved_onto_another_account_and_every_account_has_one(
        facility, administrator, dealer, floorperson, client_for):
    admin = client_for(administrator)
    profile = dealer.profile
    admin.post(f"/admin/compliance/profile/{profile.pk}/change/", {
        "user": floorperson.pk, "full_name": profile.full_name, "credential_number": profile.credential_number,
        "department": profile.department_id, "facilities": [facility.pk], "active": "on"})
    profile.refresh_from_db()
    assert profile.user_id == dealer.pk
    response = _add_person(admin, facility, **{"profile-TOTAL_FORMS": "0"})
    assert response.status_code == 200
    assert not get_user_model().objects.filter(username="newfloor").exists()


@pytest.mark.parametrize("address", ["own", "other"])
def test_a_link_never_goes_to_the_administrators_or_anyone_elses_address(
        facility, administrator, dealer, client_for, address):
    email = administrator.email if address == "own" else dealer.email
    page = _add_person(client_for(administrator), facility, email=email.upper()).content.decode()
    assert "belongs to another account" in page
    assert not get_user_model().objects.filter(username="newfloor").exists()


def test_a_link_asked_for_one_address_is_not_sent_to_a_new_one(administrator, dealer):
    from compliance.password_links import set_password_link_mail

    dealer.set_unusable_password()
    dealer.save()
    address = dealer.email
    assert set_password_link_mail(dealer.pk, "https://x", address) is not None
    type(dealer).objects.filter(pk=dealer.pk).update(email="moved@casino.example")
    assert set_password_link_mail(dealer.pk, "https://x", address) is None


def test_new_backup_codes_ask_for_the_password(finance_supervisor, client_for):
    totp_device(finance_supervisor)
    client = client_for(finance_supervisor)
    refused = client.post("/accounts/backup-codes/", {"password": "guess"}).content.decode()
    assert "That is not your password" in refused and "shown this once" not in refused
    assert accounts._events_about(finance_supervisor, accounts.EVENT_SIGN_FAILED).count() == 1
    made = client.post("/accounts/backup-codes/", {"password": PASSWORD}).content.decode()
    assert "shown this once" in made
