"""The scanners' front door (coupons/api/front.py): a scanner's well-formed scan answered before the session and
person middleware and DRF, with the reply the DRF view gives; every other request the whole way, as before."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any
from unittest import mock

import pytest
import time_machine
from django.core.cache import cache
from django.db import connection, transaction
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from compliance.log_context import ContextFilter
from coupons.api.views import RedemptionsView
from coupons.models import Redemption
from coupons.services.scanners import scanner_register, scanner_revoke
from tests.coupons.test_redemption_api import URL, assert_error, scan

pytestmark = pytest.mark.django_db

# Every header is compared but the request's own id (each request gets one).
UNCOMPARED = {"X-Request-ID"}


@pytest.fixture
def scanner(program, craps_table, shift_manager) -> tuple[Any, str]:
    return scanner_register(facility=program.facility, table=craps_table, name="CR-1 scanner", user=shift_manager)


def send(token: str, body: Any, client: Client | None = None, **headers: Any) -> Any:
    headers.setdefault("content_type", "application/json")
    if token:
        headers["HTTP_AUTHORIZATION"] = f"Token {token}"
    return (client or Client()).post(URL, data=body if isinstance(body, str) else json.dumps(body), **headers)


@contextmanager
def view_watched() -> Iterator[mock.MagicMock]:
    """The DRF view's ``dispatch``, called through (a spy): whether a request went the whole way (DRF answers
    401, 406 and 429 there, before the view's ``post``)."""
    with mock.patch.object(RedemptionsView, "dispatch", autospec=True, side_effect=RedemptionsView.dispatch) as spy:
        yield spy


def reply_of(response: Any) -> tuple[int, Any, dict[str, str]]:
    """Status, body and own headers, the new redemption's id and moment taken out (each way makes its own)."""
    body = response.json()
    made = body.get("redemption") or {}
    for name in ("id", "redeemed_at"):
        made.pop(name, None)
    headers = {name: re.sub(r"/\d+/$", "/N/", value) for name, value in response.headers.items()
               if name not in UNCOMPARED}
    if made:  # the length differs by the id's digits
        headers.pop("Content-Length", None)
    return response.status_code, body, headers


def both_ways(settings: Any, request: Any) -> tuple[tuple[int, Any, dict[str, str]], ...]:
    """The same request through the front door and the whole way, each on the same database (rolled back)."""
    replies = []
    for door in (True, False):
        settings.SCANNER_FRONT_DOOR = door
        with transaction.atomic():
            with view_watched() as spy:
                replies.append(reply_of(request()))
            assert spy.called is not door, f"front door {'open' if door else 'closed'}: the view was " \
                                            f"{'called' if spy.called else 'not called'}"
            transaction.set_rollback(True)
    return tuple(replies)


def test_a_scanners_scan_is_answered_at_the_front_door(program, handed_out, scanner):
    handed_out(1, 10)
    device, token = scanner
    with view_watched() as spy:
        response = send(token, scan(), HTTP_IDEMPOTENCY_KEY="front-1")
    assert response.status_code == 201, response.content
    assert not spy.called
    redemption = Redemption.objects.get()
    assert redemption.device == device and redemption.history.first().history_user == device.account
    assert response["Location"] == f"http://testserver/api/v1/coupons/redemptions/{redemption.pk}/"
    assert response["Allow"] == "GET, POST, HEAD, OPTIONS" and response["X-Frame-Options"] == "DENY"
    assert response["Content-Length"] == str(len(response.content))
    assert response.has_header("Content-Security-Policy") and response.has_header("X-Request-ID")


def test_each_kind_of_scan_gets_the_same_reply_either_way(settings, program, handed_out, scanner, roulette_table):
    handed_out(1, 10)
    token = scanner[1]
    send(token, scan("MP-0000002"), HTTP_IDEMPOTENCY_KEY="given-2")  # redeemed before: a retry, a reuse
    send(token, scan("MP-0000003"))
    kinds = {
        "accepted": lambda: send(token, scan(wager="R1-S2"), HTTP_IDEMPOTENCY_KEY="k-5"),
        "accepted, no key": lambda: send(token, scan("MP-0000006", chips="7.50")),
        "accepted, naming its table": lambda: send(token, scan("MP-0000007", table="CR-1")),
        "accepted, charset": lambda: send(token, scan("MP-0000008"), content_type="application/json; charset=utf-8",
                                          HTTP_ACCEPT="application/json"),
        "a retry of a success": lambda: send(token, scan("MP-0000002"), HTTP_IDEMPOTENCY_KEY="given-2"),
        "a key used for another coupon": lambda: send(token, scan("MP-0000009"), HTTP_IDEMPOTENCY_KEY="given-2"),
        "already redeemed": lambda: send(token, scan("MP-0000003")),
        "a bad key": lambda: send(token, scan(), HTTP_IDEMPOTENCY_KEY="two words"),
        "another table": lambda: send(token, scan(table="RL-1", position="red")),
        "never handed out": lambda: send(token, scan("MP-0000400")),
        "another series": lambda: send(token, scan("ZZ-0000001")),
        "not on craps": lambda: send(token, scan(position="red")),
    }
    for kind, request in kinds.items():
        front, whole = both_ways(settings, request)
        assert front == whole, kind
    assert Redemption.objects.count() == 2  # every comparison rolled back


def test_a_closed_table_is_refused_the_same_either_way(settings, program, handed_out, scanner, craps_table):
    handed_out(1, 10)
    craps_table.is_open = False
    craps_table.save()
    front, whole = both_ways(settings, lambda: send(scanner[1], scan()))
    assert front == whole and front[0] == 409 and front[1]["error"]["code"] == "table_closed"


@pytest.mark.parametrize("kind", ["cookie", "text/plain", "form", "accept xml", "accept indent", "accept empty",
                                  "format", "not a token", "no token", "basic", "bad json", "nan", "a list",
                                  "no serial", "chips -5", "nested deep", "bad host", "no slash", "HEAD", "GET"])
def test_every_other_request_goes_the_whole_way_and_gets_the_views_answer(program, handed_out, scanner, kind):
    handed_out(1, 10)
    token = scanner[1]
    body = json.dumps(scan())
    requests = {
        "cookie": lambda: send(token, body, HTTP_COOKIE="sessionid=nothing"),
        "text/plain": lambda: send(token, body, content_type="text/plain"),
        "form": lambda: send(token, scan(), content_type="application/x-www-form-urlencoded"),
        "accept xml": lambda: send(token, body, HTTP_ACCEPT="application/xml"),
        "accept indent": lambda: send(token, body, HTTP_ACCEPT="application/json; indent=4"),
        "accept empty": lambda: send(token, body, HTTP_ACCEPT=" "),  # DRF: no renderer asked for, 406
        "format": lambda: Client().post(f"{URL}?format=xml", data=body, content_type="application/json",
                                        HTTP_AUTHORIZATION=f"Token {token}"),  # DRF: no such format, 404
        "not a token": lambda: send("not-a-token", body),
        "no token": lambda: send("", body),
        "basic": lambda: send("", body, HTTP_AUTHORIZATION="Basic YTpi"),
        "bad json": lambda: send(token, "{"),
        "nan": lambda: send(token, '{"serial": "MP-0000005", "position": "pass_line", "chips": NaN}'),
        "a list": lambda: send(token, "[]"),
        "no serial": lambda: send(token, {"position": "pass_line", "chips": "40.00"}),
        "chips -5": lambda: send(token, scan(chips="-5")),
        "nested deep": lambda: send(token, "[" * 5000 + "]" * 5000),  # past Python's decoder: 400, not a 500
        "no slash": lambda: Client().post(URL.rstrip("/"), data=body, content_type="application/json",
                                          HTTP_AUTHORIZATION=f"Token {token}"),
        "HEAD": lambda: Client().head(URL, HTTP_AUTHORIZATION=f"Token {token}"),
        "bad host": lambda: send(token, body, HTTP_HOST="evil.example"),
        "GET": lambda: Client().get(URL, HTTP_AUTHORIZATION=f"Token {token}"),
    }
    with view_watched() as spy:
        response = requests[kind]()
    # A cookie without a session, and JSON asked for indented, are scans still: redeemed, the whole way.
    redeemed = kind in ("cookie", "accept indent")
    assert (response.status_code == 201) is redeemed, response.content
    if kind == "bad host":  # refused by CommonMiddleware before any view, and before anything is written
        assert response.status_code == 400 and not spy.called
    elif kind == "no slash":  # another address: the API's 404 in the one error shape
        assert_error(response, 404, "not_found")
        assert not spy.called
    else:
        assert spy.called
    expected = {"GET": 200, "HEAD": 200, "accept empty": 406, "format": 404, "nested deep": 400}
    if kind in expected:
        assert response.status_code == expected[kind], response.content
    assert Redemption.objects.count() == (1 if redeemed else 0)


def test_a_revoked_scanner_goes_the_whole_way_and_is_refused(program, handed_out, scanner, shift_manager):
    handed_out(1, 10)
    device, token = scanner
    scanner_revoke(device=device, reason="lost on the floor", user=shift_manager)
    with view_watched() as spy:
        response = send(token, scan())
    assert spy.called
    assert_error(response, 401, "token_revoked")
    assert response["WWW-Authenticate"].startswith("Token")
    assert not Redemption.objects.exists()


def test_an_inspector_session_beside_a_scanner_token_writes_nothing(program, handed_out, scanner, inspector,
                                                                     client_for):
    """The cookie sends the request the whole way, where the inspector's read-only rule refuses it, as before."""
    handed_out(1, 10)
    response = send(scanner[1], scan(), client=client_for(inspector))
    assert_error(response, 403, "permission_denied")
    assert not Redemption.objects.exists()


def test_the_door_closed_sends_every_scan_the_whole_way(settings, program, handed_out, scanner):
    handed_out(1, 10)
    settings.SCANNER_FRONT_DOOR = False
    with view_watched() as spy:
        assert send(scanner[1], scan()).status_code == 201
    assert spy.called


@override_settings(API_THROTTLE_TOKEN="2/min")
def test_the_tokens_limit_counts_each_request_once_whichever_way_it_went(program, handed_out, scanner):
    handed_out(1, 10)
    device, token = scanner
    with time_machine.travel("2026-11-03 14:00:20+00:00", tick=False):
        with view_watched() as spy:
            assert send(token, "{").status_code == 400  # counted at the door (1 of 2), answered the whole way
        assert spy.called
        with view_watched() as spy:
            assert send(token, scan()).status_code == 201  # the front door (2 of 2)
        assert not spy.called
        with view_watched() as spy:
            refused = send(token, scan("MP-0000006"))  # over (3): the whole way, where DRF answers 429
        assert spy.called
        assert_error(refused, 429, "throttled")
        assert refused["Retry-After"] == "40"
        window = int(datetime.fromisoformat("2026-11-03 14:00:20+00:00").timestamp()) // 60
        assert cache.get(f"api-throttle:token:{device.pk}:60:{window}") == 3  # three requests, three counts
    assert Redemption.objects.count() == 1


def test_a_token_is_read_once_a_request_whichever_way_it_went(program, handed_out, scanner, shift_manager):
    """A revoked (or unknown) token is read at the door, which leaves the request to the view: not read again."""
    handed_out(1, 10)
    device, token = scanner
    scanner_revoke(device=device, reason="lost on the floor", user=shift_manager)
    with CaptureQueriesContext(connection) as captured:
        assert_error(send(token, scan()), 401, "token_revoked")
    assert len([q for q in captured.captured_queries if "token_sha256" in q["sql"]]) == 1
    with CaptureQueriesContext(connection) as captured:
        assert_error(send("no-such-token", scan()), 401, "not_authenticated")
    assert len([q for q in captured.captured_queries if "token_sha256" in q["sql"]]) == 1


def test_a_scans_access_line_names_the_scanners_account_and_facility(settings, program, handed_out, scanner):
    handed_out(1, 10)
    device, token = scanner
    settings.ACCESS_LOG = True
    lines: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.addFilter(ContextFilter())  # the person and facility as bound when the line is written
    handler.emit = lines.append
    access = logging.getLogger("compliance.access")
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    try:
        assert send(token, scan()).status_code == 201
        assert send(token, scan()).status_code == 409
    finally:
        access.removeHandler(handler)
    assert [(line.getMessage(), line.user, line.facility) for line in lines] == [
        (f"POST {URL} 201", device.account.username, program.facility.code),
        (f"POST {URL} 409", device.account.username, program.facility.code),
    ]


def test_an_empty_cookie_header_carries_no_session_and_takes_the_door(program, handed_out, scanner):
    handed_out(1, 10)
    with view_watched() as spy:
        assert send(scanner[1], scan(), HTTP_COOKIE="").status_code == 201
    assert not spy.called


@pytest.mark.parametrize("setting", ["DISALLOWED_USER_AGENTS", "ATOMIC_REQUESTS"])
def test_a_setting_that_changes_the_way_sends_every_scan_the_whole_way(settings, monkeypatch, program, handed_out,
                                                                       scanner, setting):
    """A user agent refused (CommonMiddleware), or each view in a transaction (Django's handler): neither can be
    honoured at the door, so none is answered there."""
    handed_out(1, 10)
    if setting == "ATOMIC_REQUESTS":
        monkeypatch.setitem(connection.settings_dict, "ATOMIC_REQUESTS", True)
    else:
        settings.DISALLOWED_USER_AGENTS = [re.compile(r"^nothing-matches$")]
    with view_watched() as spy:
        assert send(scanner[1], scan()).status_code == 201
    assert spy.called
