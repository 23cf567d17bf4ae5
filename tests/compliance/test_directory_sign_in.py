"""Directory sign-in (issue 26, item 6) against a real slapd (tests/compliance/ldap_server.py): people of the directory
sign in through the sign-in page, their account, profile, roles and facilities follow their directory entry at every
sign-in, signing binds to the directory, and local accounts are never the directory's."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.test import Client

from compliance import accounts
from compliance.actors import SYSTEM_USERNAME
from compliance.directory_settings import BACKEND, directory_settings
from compliance.models import AuditEvent, Signature
from compliance.roles import Role, roles_of
from compliance.services import signature_sign
from tests.compliance import ldap_server as slapd
from tests.factories import PASSWORD
from tests.testapp.models import ExaminationForm

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.xdist_group("directory"),
    pytest.mark.usefixtures("directory_installed"),
]


@pytest.fixture(scope="session")
def directory_installed() -> None:
    """Skipped on a developer's machine without the parts; in CI (make test installs them) their absence fails."""
    why = slapd.available()
    if importlib.util.find_spec("django_auth_ldap") is None:
        why = "django-auth-ldap is not installed (pip install -e '.[ldap]'; make ldap-deps)"
    if why:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(why)

FAY_PASSWORD = slapd.PEOPLE["fay"][2]
ENVIRONMENT = {
    "LDAP_BIND_DN": slapd.SERVICE_DN,
    "LDAP_BIND_PASSWORD": slapd.SERVICE_PASSWORD,
    "LDAP_USER_SEARCH_BASE": slapd.PEOPLE_BASE,
    "LDAP_USER_FILTER": slapd.USER_FILTER,
    "LDAP_GROUP_SEARCH_BASE": slapd.GROUPS_BASE,
    "LDAP_GROUP_TYPE": "nestedGroupOfNames",
    "LDAP_ROLE_GROUPS": (f"finance_staff={slapd.group_dn('finance-staff')};"
                         f"marketing_staff={slapd.group_dn('marketing-staff')}\n"
                         f"dealer={slapd.group_dn('dealers')}"),
    "LDAP_FACILITY_GROUPS": f"keystone={slapd.group_dn('keystone')}",
}


@pytest.fixture(scope="session")
def directory() -> Iterator[slapd.Directory]:
    with slapd.running_directory() as running:
        yield running


def _configure(monkeypatch: Any, settings: Any, uri: str, **extra: str) -> None:
    """The settings the server would have with these LDAP_* variables, read by the settings' own reader."""
    for name, value in {"LDAP_SERVER_URI": uri, **ENVIRONMENT, **extra}.items():
        monkeypatch.setenv(name, value)
    for name, value in directory_settings().items():
        setattr(settings, name, value)
    settings.AUTHENTICATION_BACKENDS = [*settings.AUTHENTICATION_BACKENDS, BACKEND]


@pytest.fixture
def signed_in_through(directory: slapd.Directory, monkeypatch: Any, settings: Any, facility: Any) -> slapd.Directory:
    _configure(monkeypatch, settings, directory.uri)
    return directory


@pytest.fixture
def undo(directory: slapd.Directory) -> Iterator[Callable[[Callable[[], None]], None]]:
    """``undo(f)``: ``f`` puts the shared directory back as it was after the test."""
    steps: list[Callable[[], None]] = []
    yield steps.append
    for step in reversed(steps):
        step()


def _sign_in(client: Client, username: str, password: str) -> Any:
    return client.post("/accounts/login/", {"username": username, "password": password, "otp_token": ""})


def _person(username: str) -> Any:
    return get_user_model()._default_manager.get(username=username)


def test_a_directory_person_signs_in_and_gets_an_account_profile_roles_and_facilities(signed_in_through, facility):
    client = Client()
    response = _sign_in(client, "fay", FAY_PASSWORD)

    assert response.status_code == 302 and response.url == "/"
    user = _person("fay")
    assert client.session["_auth_user_id"] == str(user.pk)
    assert client.session["_auth_user_backend"] == BACKEND
    profile = user.profile
    assert (profile.full_name, profile.credential_number, profile.department.code) == (
        "Fay Finance", "PGCB-700001", "finance")
    assert list(profile.facilities.all()) == [facility]
    assert roles_of(user) == {Role.FINANCE_STAFF}
    assert user.email == "fay@casino.example"
    # No password is kept here: not the directory's, not any.
    assert accounts.is_directory_account(user) and not user.has_usable_password()
    assert not user.check_password(FAY_PASSWORD)
    granted = AuditEvent.objects.filter(changes__event="Roles changed", object_id=str(profile.pk)).get()
    assert granted.actor.username == SYSTEM_USERNAME
    assert granted.changes["roles"] == {"added": ["Finance staff"]}
    assert client.get("/").status_code == 200  # the session holds on the next page


def test_a_role_follows_the_directory_group_at_the_next_sign_in(signed_in_through, undo):
    assert _sign_in(Client(), "mark", slapd.PEOPLE["mark"][2]).status_code == 302
    mark = _person("mark")
    assert roles_of(mark) == {Role.MARKETING_STAFF}

    # IT moves Mark from marketing to finance.
    signed_in_through.remove_member("marketing-staff", "mark")
    undo(lambda: signed_in_through.add_member("marketing-staff", "mark"))
    signed_in_through.add_member("finance-staff", "mark")
    undo(lambda: signed_in_through.remove_member("finance-staff", "mark"))
    assert _sign_in(Client(), "mark", slapd.PEOPLE["mark"][2]).status_code == 302

    mark = _person("mark")
    assert roles_of(mark) == {Role.FINANCE_STAFF}
    assert mark.profile.department.code == "finance"
    changes = [e.changes["roles"] for e in accounts.events_about(mark).filter(changes__event="Roles changed")
               .order_by("pk")]
    assert changes == [{"added": ["Marketing staff"]}, {"removed": ["Marketing staff"]}, {"added": ["Finance staff"]}]
    synced = accounts.events_about(mark).filter(changes__event="Account brought up to date from the directory at sign-in")
    assert synced.count() == 2


def test_a_person_taken_out_of_every_mapped_group_is_refused_and_loses_their_roles(signed_in_through, undo):
    assert _sign_in(Client(), "mark", slapd.PEOPLE["mark"][2]).status_code == 302
    signed_in_through.remove_member("marketing-staff", "mark")
    undo(lambda: signed_in_through.add_member("marketing-staff", "mark"))

    response = _sign_in(Client(), "mark", slapd.PEOPLE["mark"][2])

    assert response.status_code == 200
    assert "in none of the groups that give a role in this system" in response.content.decode()
    assert roles_of(_person("mark")) == frozenset()


def test_a_person_in_no_mapped_group_is_refused_in_words(signed_in_through):
    client = Client()
    response = _sign_in(client, "gus", slapd.PEOPLE["gus"][2])

    page = response.content.decode()
    assert response.status_code == 200 and "_auth_user_id" not in client.session
    assert "in none of the groups that give a role in this system" in page
    assert "Ask the IT department" in page
    assert not get_user_model()._default_manager.filter(username="gus").exists()


def test_a_person_without_a_credential_number_is_refused_in_words(signed_in_through):
    response = _sign_in(Client(), "nina", slapd.PEOPLE["nina"][2])

    assert response.status_code == 200
    assert "no Board-issued credential number (employeeNumber)" in response.content.decode()
    assert not get_user_model()._default_manager.filter(username="nina").exists()


def test_a_nested_group_gives_its_role(signed_in_through, facility):
    # Dora is in "table-games", which is a member of "dealers": the dealer role, with nestedGroupOfNames.
    assert _sign_in(Client(), "dora", slapd.PEOPLE["dora"][2]).status_code == 302
    dora = _person("dora")
    assert roles_of(dora) == {Role.DEALER} and dora.profile.department.code == "table_games"


def test_a_wrong_directory_password_is_refused_and_counts_towards_the_lock_out(signed_in_through):
    client = Client()
    response = _sign_in(client, "fay", "not fay's password")
    assert response.status_code == 200 and "didn't match" in response.content.decode()
    for _ in range(4):
        _sign_in(client, "fay", "not fay's password")

    response = _sign_in(client, "fay", FAY_PASSWORD)

    assert response.status_code == 429 and "Too many attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_signing_binds_to_the_directory(signed_in_through, facility, as_user, undo):
    assert _sign_in(Client(), "fay", FAY_PASSWORD).status_code == 302
    fay = _person("fay")
    with as_user(fay):
        exam = ExaminationForm.objects.create(facility=facility, note="box of 5,000")

    with pytest.raises(ValidationError, match="password is not correct"):
        signature_sign(record=exam, slot="finance", user=fay, password="not fay's password")
    assert accounts.events_about(fay).filter(changes__event=accounts.EVENT_SIGN_FAILED).count() == 1
    # The directory's password, changed there, is the one that signs.
    signed_in_through.set_attribute("fay", "userPassword", "fay's new directory password")
    undo(lambda: signed_in_through.set_attribute("fay", "userPassword", FAY_PASSWORD))
    with pytest.raises(ValidationError, match="password is not correct"):
        signature_sign(record=exam, slot="finance", user=fay, password=FAY_PASSWORD)

    signature = signature_sign(record=exam, slot="finance", user=fay, password="fay's new directory password")

    assert (signature.printed_name, signature.credential_number) == ("Fay Finance", "PGCB-700001")


def test_a_person_disabled_in_the_directory_can_neither_sign_in_nor_sign(signed_in_through, facility, as_user, undo):
    assert _sign_in(Client(), "fay", FAY_PASSWORD).status_code == 302
    fay = _person("fay")
    with as_user(fay):
        exam = ExaminationForm.objects.create(facility=facility, note="box of 5,000")
    signed_in_through.set_attribute("fay", "employeeType", "disabled")
    undo(lambda: signed_in_through.set_attribute("fay", "employeeType", None))

    with pytest.raises(ValidationError, match="password is not correct"):
        signature_sign(record=exam, slot="finance", user=fay, password=FAY_PASSWORD)
    response = _sign_in(Client(), "fay", FAY_PASSWORD)
    assert response.status_code == 200 and "didn't match" in response.content.decode()
    assert not Signature.objects.exists()


def test_local_accounts_sign_in_with_their_own_password_and_the_directory_never_takes_one_over(
    signed_in_through, facility
):
    from tests.factories import make_person

    local = make_person(Role.FINANCE_STAFF, facility)
    local.username = "admin"  # the directory has an "admin" too, with finance groups
    local.save(update_fields=["username"])
    client = Client()
    assert _sign_in(client, "admin", PASSWORD).status_code == 302
    assert client.session["_auth_user_backend"] == "compliance.auth.ActiveProfileBackend"

    response = _sign_in(Client(), "admin", slapd.PEOPLE["admin"][2])

    assert response.status_code == 200 and "didn't match" in response.content.decode()
    local.refresh_from_db()
    assert local.check_password(PASSWORD) and not accounts.is_directory_account(local)
    assert local.profile.full_name != "Directory Admin"


def test_a_directory_person_changes_their_password_in_the_directory_not_here(signed_in_through):
    client = Client()
    assert _sign_in(client, "fay", FAY_PASSWORD).status_code == 302

    response = client.post("/accounts/password/", {"old_password": FAY_PASSWORD, "new_password1": "x" * 20,
                                                   "new_password2": "x" * 20})

    assert response.status_code == 200 and "change it where you change your directory" in response.content.decode()
    assert accounts.is_directory_account(_person("fay"))


def test_a_directory_that_does_not_answer_is_said_as_such(monkeypatch, settings, facility, db):
    _configure(monkeypatch, settings, f"ldap://127.0.0.1:{slapd._free_port()}", LDAP_TIMEOUT_SECONDS="1")

    response = _sign_in(Client(), "fay", FAY_PASSWORD)

    assert response.status_code == 200 and "directory did not answer" in response.content.decode()


@pytest.mark.parametrize(("variable", "value", "words"), [
    ("LDAP_ROLE_GROUPS", "finance=cn=finance,ou=groups,dc=casino,dc=example",
     "'finance=cn=finance,ou=groups,dc=casino,dc=example' — 'finance' is not a role; use one of administrator"),
    ("LDAP_ROLE_GROUPS", "dealer=cn=dealers,ou=groups,dc=casino,dc=example;finance_staff",
     "LDAP_ROLE_GROUPS: 'finance_staff' is not role=group DN"),
    ("LDAP_ROLE_GROUPS", "dealer=dealers", "'dealers' is not a distinguished name"),
    ("LDAP_FACILITY_GROUPS", "Keystone Downs=cn=keystone,ou=groups,dc=casino,dc=example",
     "'Keystone Downs' is not a facility code"),
    ("LDAP_USER_FILTER", "(sAMAccountName=%(username)s)", "must hold %(user)s"),
    ("LDAP_GROUP_TYPE", "AD", "LDAP_GROUP_TYPE='AD': use one of groupOfNames"),
    ("LDAP_SERVER_URI", "dc1.casino.example", "'dc1.casino.example' is not an ldap:// or ldaps:// address"),
    ("LDAP_USER_SEARCH_BASE", "", "LDAP_USER_SEARCH_BASE must be set"),
])
def test_a_bad_directory_setting_stops_the_start_naming_the_entry(monkeypatch, variable, value, words):
    from compliance.env import ImproperlyConfiguredEnv

    for name, setting in {"LDAP_SERVER_URI": "ldaps://dc1.casino.example", **ENVIRONMENT}.items():
        monkeypatch.setenv(name, setting)
    monkeypatch.setenv(variable, value)

    with pytest.raises(ImproperlyConfiguredEnv) as refused:
        directory_settings()
    assert words in str(refused.value)


def test_without_ldap_server_uri_directory_sign_in_is_off(monkeypatch):
    monkeypatch.delenv("LDAP_SERVER_URI", raising=False)
    monkeypatch.setenv("LDAP_ROLE_GROUPS", "nonsense")
    assert directory_settings() == {}


def test_the_active_directory_example_of_the_deploy_environment_is_accepted(monkeypatch):
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "deploy" / "compliance.env.example"
    lines = [line[1:] for line in example.read_text().splitlines() if line.startswith("#LDAP_")]
    for name, _, value in (line.partition("=") for line in lines):
        if not name.endswith("_FILE"):  # the secret and the CA are files of the production host
            monkeypatch.setenv(name, value)

    configured = directory_settings()

    assert configured["AUTH_LDAP_USER_SEARCH"].filterstr.startswith("(&(objectClass=user)(sAMAccountName=%(user)s)")
    assert type(configured["AUTH_LDAP_GROUP_TYPE"]).__name__ == "NestedActiveDirectoryGroupType"
    assert configured["DIRECTORY_SIGN_IN"]["role_groups"] == {
        "cn=tg finance,ou=groups,dc=casino,dc=example": {"finance_staff"},
        "cn=tg dealers,ou=groups,dc=casino,dc=example": {"dealer"},
    }


def test_a_directory_persons_session_ends_when_their_profile_is_deactivated_here(signed_in_through, administrator,
                                                                                   as_user):
    client = Client()
    assert _sign_in(client, "fay", FAY_PASSWORD).status_code == 302
    profile = _person("fay").profile
    with as_user(administrator):
        profile.active = False
        profile.save(update_fields=["active"])

    assert client.get("/").status_code == 302
    response = _sign_in(Client(), "fay", FAY_PASSWORD)
    assert response.status_code == 200 and "Your account here is deactivated" in response.content.decode()


def test_no_set_password_link_goes_to_a_directory_person(signed_in_through, administrator):
    from compliance.password_links import set_password_link_issue

    assert _sign_in(Client(), "fay", FAY_PASSWORD).status_code == 302
    with pytest.raises(ValidationError, match="signs in with the casino directory's password"):
        set_password_link_issue(_person("fay"), actor=administrator, base_url="https://compliance.example",
                                why="reset")
    assert accounts.is_directory_account(_person("fay"))
