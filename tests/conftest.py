"""Persona fixtures: one person per role, all at the same facility, each with PASSWORD."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.test import Client

from compliance.actors import acting_as
from compliance.reference import ensure_reference_data
from compliance.roles import Role
from tests.factories import PASSWORD, FacilityFactory, make_person

_APPLICATION_LOGIN: dict[str, Any] = {}


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None, django_db_blocker: Any) -> None:
    """Create and migrate the test database as its owner (``DATABASE_OWNER_URL``), as the deploy step does: a
    clone of the migrated template of this version of the code (``tests/db_template.py``)."""
    from compliance.testing import application_login, log_in, owner_login
    from tests.db_template import use_migrated_template

    _APPLICATION_LOGIN.update(application_login())
    if owner := owner_login():
        log_in(owner)
        use_migrated_template(django_db_blocker)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Any:
    """Then, as the owner, ``db_roles`` grants the application role only what it needs, and every test
    connects as that role; the owner is back only to drop the database at the end (and to flush it
    after a transactional test, ``tests/testapp/management/commands/flush.py``)."""
    from django.db import connection

    from compliance.management.commands.db_roles import grant_application_role
    from compliance.testing import install_tamper_function, log_in, owner_login

    owner = owner_login()
    if owner is None or connection.vendor != "postgresql":
        yield
        return
    with django_db_blocker.unblock():
        role = str(_APPLICATION_LOGIN["USER"])
        _grant_with_retry(grant_application_role, connection, role, str(_APPLICATION_LOGIN["PASSWORD"]))
        with connection.cursor() as cursor:
            install_tamper_function(cursor, role)
        log_in(_APPLICATION_LOGIN)
    yield
    with django_db_blocker.unblock():
        log_in(owner)


def _grant_with_retry(grant: Any, *args: Any) -> None:
    """Roles are shared by the whole server: two xdist workers creating the same role at once collide."""
    from django.db import DatabaseError

    for attempt in range(5):
        try:
            grant(*args)
            return
        except DatabaseError:
            if attempt == 4:
                raise
            time.sleep(0.2 * (attempt + 1))


@pytest.fixture(autouse=True)
def _reference_data(request: pytest.FixtureRequest) -> None:
    """Roles, departments and games come from data migrations; a transactional test's flush removes
    them for the tests that follow it on the same worker, so put them back when they are missing."""
    if request.node.get_closest_marker("django_db") is None and not (
        {"db", "transactional_db", "live_server"} & set(request.fixturenames)
    ):
        return
    transactional = bool({"transactional_db", "live_server"} & set(request.fixturenames)) or bool(
        (marker := request.node.get_closest_marker("django_db")) and marker.kwargs.get("transaction")
    )
    if not transactional:
        request.getfixturevalue("db")
    else:
        _fresh_content_types()
    ensure_reference_data()


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    """Each test starts with an empty cache (the local-memory cache of its process: the suite runs without
    Redis's cache), so a rate kept there by one test does not decide another's."""
    from django.core.cache import cache

    cache.clear()


def _fresh_content_types() -> None:
    """A flush (transactional tests) empties or renumbers the content types while Django's cache keeps
    the old ids; the next signature would point at a missing one. Recreate them and drop the cache."""
    from django.apps import apps
    from django.contrib.contenttypes.management import create_contenttypes
    from django.contrib.contenttypes.models import ContentType

    ContentType.objects.clear_cache()
    for app_config in apps.get_app_configs():
        create_contenttypes(app_config, verbosity=0)


@pytest.fixture
def password() -> str:
    return PASSWORD


@pytest.fixture
def facility(db: Any) -> Any:
    return FacilityFactory(code="keystone", name="Keystone Downs Casino")


@pytest.fixture
def other_facility(db: Any) -> Any:
    return FacilityFactory(code="erie", name="Erie Shores Casino")


def _persona(role: Role) -> Any:
    @pytest.fixture
    def fixture(facility: Any) -> Any:
        return make_person(role, facility)

    return fixture


finance_staff = _persona(Role.FINANCE_STAFF)
finance_supervisor = _persona(Role.FINANCE_SUPERVISOR)
second_finance_supervisor = _persona(Role.FINANCE_SUPERVISOR)
marketing_staff = _persona(Role.MARKETING_STAFF)
marketing_supervisor = _persona(Role.MARKETING_SUPERVISOR)
second_marketing_supervisor = _persona(Role.MARKETING_SUPERVISOR)
dealer = _persona(Role.DEALER)
floorperson = _persona(Role.FLOORPERSON)
shift_manager = _persona(Role.SHIFT_MANAGER)
surveillance = _persona(Role.SURVEILLANCE)
compliance_officer = _persona(Role.COMPLIANCE_OFFICER)
inspector = _persona(Role.BOARD_INSPECTOR)
administrator = _persona(Role.ADMINISTRATOR)


def totp_device(user: Any) -> Any:
    """The person's confirmed authenticator device (made once)."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    return device or TOTPDevice.objects.create(user=user, name="Test authenticator", confirmed=True)


def totp_token(user: Any) -> str:
    """The code the person's authenticator app shows now."""
    from django_otp.oath import totp

    device = totp_device(user)
    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):0{device.digits}d}"


@pytest.fixture
def client_for(db: Any) -> Any:
    """``client_for(user)`` → a test client signed in as ``user``, this session verified with their TOTP
    device as the sign-in form does for the roles that need a second factor."""
    from django_otp import DEVICE_ID_SESSION_KEY

    from compliance.accounts import needs_second_factor

    def make(user: Any) -> Client:
        client = Client()
        client.force_login(user)
        if needs_second_factor(user):
            session = client.session
            session[DEVICE_ID_SESSION_KEY] = totp_device(user).persistent_id
            session.save()
        return client

    return make


@pytest.fixture
def as_user() -> Any:
    """``with as_user(user):`` attributes changes made in the block to ``user`` (like a request would)."""
    return acting_as
