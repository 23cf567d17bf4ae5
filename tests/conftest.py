"""Persona fixtures: one person per role, all at the same facility, each with PASSWORD."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from compliance.actors import acting_as
from compliance.reference import ensure_reference_data
from compliance.roles import Role
from tests.factories import PASSWORD, FacilityFactory, make_person


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
