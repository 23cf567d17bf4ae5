"""Sign-in as a casino runs it, behind the TLS proxy (issue 22, item 5): the client's address read only through
trusted proxies, lock-outs by username (never by address alone), the password page locked like signing, the
refused sign-ins of names no one holds recorded without bound, and the words for a used or missing code."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, RequestFactory

from compliance import accounts
from compliance.client_address import client_address
from compliance.models import AuditEvent
from tests.conftest import totp_device, totp_token
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

PROXY = "10.0.0.2"
LOCKED = "Too many attempts; try again in 15 minutes."


@pytest.fixture
def behind_the_proxy(settings: Any) -> None:
    settings.TRUSTED_PROXIES = [PROXY, "10.0.1.0/24"]


def _via_proxy(client_ip: str, forwarded: str = "") -> Client:
    """A browser at ``client_ip`` reaching the app through the proxy (which appends what it saw)."""
    header = f"{forwarded}, {client_ip}" if forwarded else client_ip
    return Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=header)


def _sign_in(client: Client, username: str, password: str, code: str = "") -> Any:
    return client.post("/accounts/login/", {"username": username, "password": password, "otp_token": code})


def _request(remote: str, forwarded: str | None = None) -> Any:
    request = RequestFactory().get("/", REMOTE_ADDR=remote)
    if forwarded is not None:
        request.META["HTTP_X_FORWARDED_FOR"] = forwarded
    return request


# --- the client's address ---------------------------------------------------------------------------


def test_the_address_is_read_through_trusted_proxies_only(behind_the_proxy):
    assert client_address(_request(PROXY, "203.0.113.7")) == "203.0.113.7"
    # A chain of our own proxies is walked from the right; what the client wrote to the left is not believed.
    assert client_address(_request(PROXY, "1.1.1.1, 203.0.113.7, 10.0.1.5")) == "203.0.113.7"
    # Anyone else's forwarded header is ignored: their own address stands.
    assert client_address(_request("198.51.100.20", "10.0.0.2, 1.2.3.4")) == "198.51.100.20"
    # Garbage in the header: the last address a trusted proxy vouched for.
    assert client_address(_request(PROXY, "not-an-address")) == PROXY
    assert client_address(_request(PROXY, "[2001:db8::5]:4431")) == "2001:db8::5"
    assert client_address(_request(PROXY)) == PROXY


def test_with_no_trusted_proxy_the_forwarded_header_means_nothing(settings):
    settings.TRUSTED_PROXIES = []
    assert client_address(_request(PROXY, "203.0.113.7")) == PROXY


def test_an_invalid_trusted_proxy_is_refused_at_start_up(monkeypatch):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='compliance.settings';"
         "django.setup()"], env={**__import__("os").environ, "TRUSTED_PROXIES": "10.0.0.0/33"},
        capture_output=True, text=True, check=False)
    assert result.returncode != 0 and "TRUSTED_PROXIES: '10.0.0.0/33' is not an address or a network" in result.stderr


# --- lock-outs behind the proxy ----------------------------------------------------------------------


def test_one_persons_failures_behind_the_proxy_lock_no_one_else(behind_the_proxy, dealer, floorperson):
    guesser = _via_proxy("203.0.113.7")
    for _ in range(6):
        _sign_in(guesser, dealer.username, "wrong password")
    assert _sign_in(guesser, dealer.username, PASSWORD).status_code == 429
    # Another person behind the same proxy, and even at the same address, signs in.
    assert _sign_in(_via_proxy("203.0.113.8"), floorperson.username, PASSWORD).status_code == 302
    assert _sign_in(_via_proxy("203.0.113.7"), floorperson.username, PASSWORD).status_code == 302
    # The trail names the client's address, not the proxy's.
    event = accounts._events_about(dealer, accounts.EVENT_SIGNIN_FAILED).first()
    assert event.changes["address"] == "203.0.113.7"
    assert accounts._events_about(dealer, accounts.EVENT_LOCKED_OUT).get().changes["address"] == "203.0.113.7"


def test_forged_forwarded_headers_from_an_untrusted_address_change_nothing(behind_the_proxy, dealer):
    # An attacker reaching the app directly writes a new X-Forwarded-For each time; it is not believed, and the
    # lock is on the username anyway.
    for n in range(5):
        _sign_in(Client(REMOTE_ADDR="198.51.100.20", HTTP_X_FORWARDED_FOR=f"10.9.9.{n}"), dealer.username, "wrong")
    assert _sign_in(Client(REMOTE_ADDR="198.51.100.20", HTTP_X_FORWARDED_FOR="10.9.9.99"), dealer.username,
                    PASSWORD).status_code == 429
    addresses = {e.changes["address"] for e in accounts._events_about(dealer, accounts.EVENT_SIGNIN_FAILED)}
    assert addresses == {"198.51.100.20"}


def test_a_lock_is_not_extended_by_tries_during_it(behind_the_proxy, dealer):
    import time_machine
    from django.utils import timezone

    start = timezone.now()
    client = _via_proxy("203.0.113.7")
    for _ in range(5):
        _sign_in(client, dealer.username, "wrong password")
    with time_machine.travel(start + __import__("datetime").timedelta(minutes=10)):
        assert _sign_in(client, dealer.username, "wrong again").status_code == 429
    with time_machine.travel(start + __import__("datetime").timedelta(minutes=16)):
        assert _sign_in(client, dealer.username, PASSWORD).status_code == 302
    # The tries during the lock are not each written: the lock is the record.
    assert accounts._events_about(dealer, accounts.EVENT_SIGNIN_FAILED).count() == 5


def test_names_no_one_holds_do_not_grow_the_trail_without_bound(behind_the_proxy):
    before = AuditEvent.objects.count()
    for n in range(40):
        _sign_in(_via_proxy("203.0.113.7"), f"nobody-{n}", "guess")
    for n in range(10):
        _sign_in(_via_proxy(f"203.0.113.{100 + n}"), f"someone-{n}", "guess")
    written = AuditEvent.objects.filter(changes__event=accounts.EVENT_UNKNOWN_NAMES)
    assert written.count() == 11  # one per address in the quarter hour
    assert AuditEvent.objects.count() - before == 11
    first = written.filter(changes__address="203.0.113.7").get()
    assert first.changes["first name tried"] == "nobody-0"


def test_the_unknown_name_record_has_an_hourly_ceiling(behind_the_proxy, monkeypatch):
    monkeypatch.setattr(accounts, "UNKNOWN_NAME_EVENTS_PER_HOUR", 3)
    for n in range(8):
        _sign_in(_via_proxy(f"203.0.113.{n + 1}"), f"nobody-{n}", "guess")
    assert AuditEvent.objects.filter(changes__event=accounts.EVENT_UNKNOWN_NAMES).count() == 3


# --- the password page -------------------------------------------------------------------------------


def test_the_password_page_locks_and_audits_like_signing(dealer, client_for):
    client = client_for(dealer)
    for _ in range(5):
        page = client.post("/accounts/password/", {"old_password": "guess", "new_password1": "x" * 14,
                                                   "new_password2": "x" * 14}).content.decode()
        assert "That is not your current password" in page
    page = client.post("/accounts/password/", {"old_password": PASSWORD, "new_password1": "a brand new one 42",
                                               "new_password2": "a brand new one 42"}).content.decode()
    assert "your password is locked (signing and changing it) for 15 minutes" in page
    dealer.refresh_from_db()
    assert dealer.check_password(PASSWORD)
    failures = accounts._events_about(dealer, accounts.EVENT_SIGN_FAILED)
    assert failures.count() == 5 and "change-password page" in failures.first().reason
    assert accounts.signing_locked(dealer)


# --- the second factor's words -----------------------------------------------------------------------


def test_a_missing_or_used_code_is_said_in_words(finance_supervisor):
    totp_device(finance_supervisor)
    page = _sign_in(Client(), finance_supervisor.username, PASSWORD).content.decode()
    assert "Your role signs in with a code as well" in page
    code = totp_token(finance_supervisor)
    assert _sign_in(Client(), finance_supervisor.username, PASSWORD, code).status_code == 302
    page = _sign_in(Client(), finance_supervisor.username, PASSWORD, code).content.decode()
    assert "That code was already used to sign in" in page
    page = _sign_in(Client(), finance_supervisor.username, PASSWORD, "000000" if code != "000000" else "111111")
    assert "didn't match" in page.content.decode()
    # A wrong password with a code says nothing about the code.
    page = _sign_in(Client(), finance_supervisor.username, "wrong", code).content.decode()
    assert "already used" not in page and "didn't match" in page
