"""The API's request limits: per scanner token and per signed-in person, 429 in the one shape with Retry-After."""

from __future__ import annotations

import math
from typing import Any

import pytest
import time_machine
from django.test import Client, override_settings

from compliance.env import ImproperlyConfiguredEnv, env_rate, parse_rate
from coupons.services.scanners import scanner_register
from tests.coupons.test_redemption_api import URL, assert_error

pytestmark = pytest.mark.django_db

# 10:00:20 on the clock: a minute's window has 40 seconds left.
AT = "2026-03-02 10:00:20+00:00"


@pytest.fixture
def tokens(program, craps_table, roulette_table, shift_manager) -> tuple[str, str]:
    _, first = scanner_register(facility=program.facility, table=craps_table, name="CR-1 scanner", user=shift_manager)
    _, second = scanner_register(facility=program.facility, table=roulette_table, name="RL-1 scanner",
                                 user=shift_manager)
    return first, second


def read(token: str = "", client: Client | None = None) -> Any:
    headers: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return (client or Client()).get(URL, **headers)


@override_settings(API_THROTTLE_TOKEN="3/min")
def test_a_token_over_its_rate_gets_429_with_retry_after_and_another_token_does_not(tokens):
    first, second = tokens
    with time_machine.travel(AT, tick=False):
        assert [read(first).status_code for _ in range(3)] == [200, 200, 200]
        refused = read(first)
        error = assert_error(refused, 429, "throttled")
        assert refused["Retry-After"] == "40"
        assert "The scanner CR-1 scanner" in error["message"] and "at most 3 a minute" in error["message"]
        assert "Send again in 40 seconds" in error["message"]
        assert read(second).status_code == 200  # the other table's scanner is counted on its own
    with time_machine.travel("2026-03-02 10:01:00+00:00", tick=False):
        assert read(first).status_code == 200  # the next window


@override_settings(API_THROTTLE_TOKEN="2/min")
def test_a_refused_scan_still_says_when_to_retry(tokens):
    first, _ = tokens
    body = {"serial": "MP-0000005", "position": "pass_line", "chips": "40.00"}
    with time_machine.travel("2026-03-02 10:00:59.5+00:00", tick=False):
        for _ in range(2):
            Client().post(URL, body, content_type="application/json", HTTP_AUTHORIZATION=f"Token {first}")
        refused = Client().post(URL, body, content_type="application/json", HTTP_AUTHORIZATION=f"Token {first}")
        assert_error(refused, 429, "throttled")
        assert refused["Retry-After"] == "1"  # half a second left, rounded up: never too early


@override_settings(API_THROTTLE_USER="2/min", API_THROTTLE_TOKEN="1/min")
def test_a_person_is_counted_by_their_account_and_a_scanner_by_its_token(tokens, client_for, shift_manager,
                                                                         floorperson):
    manager, other = client_for(shift_manager), client_for(floorperson)
    with time_machine.travel(AT, tick=False):
        assert [read(client=manager).status_code for _ in range(2)] == [200, 200]
        refused = read(client=manager)
        error = assert_error(refused, 429, "throttled")
        assert refused["Retry-After"] == "40" and error["message"].startswith("Your account sent more requests")
        assert_error(read(client=client_for(shift_manager)), 429, "throttled")  # a new session is the same person
        assert read(client=other).status_code != 429
        assert read(tokens[0]).status_code == 200  # the token has its own limit (1/min), not the person's


@override_settings(API_THROTTLE_TOKEN="off")
def test_off_turns_the_limit_off(tokens):
    with time_machine.travel(AT, tick=False):
        assert {read(tokens[0]).status_code for _ in range(30)} == {200}


def test_the_default_rates_are_far_above_a_table(settings, tokens):
    count, period = parse_rate(settings.API_THROTTLE_TOKEN)
    assert count / period >= 10 - 1e-9 and math.isclose(period, 60)
    assert parse_rate(settings.API_THROTTLE_USER) == (1200, 60)
    with time_machine.travel(AT, tick=False):
        assert {read(tokens[0]).status_code for _ in range(40)} == {200}  # a busy table's minute and then some


@pytest.mark.parametrize("text", ["600", "600/fortnight", "-1/min", "0/min", "６００/min", "ten/s", "600/min/x"])
def test_a_rate_that_is_not_one_stops_the_start(monkeypatch, text):
    monkeypatch.setenv("API_THROTTLE_TOKEN", text)
    with pytest.raises(ImproperlyConfiguredEnv, match=r"API_THROTTLE_TOKEN: .* is not a rate"):
        env_rate("API_THROTTLE_TOKEN", "600/min")


def test_rates_are_read_in_their_units(monkeypatch):
    assert [parse_rate(r) for r in ("5/s", "600/min", "3/hour", "1/day", "OFF")] == [(5, 1), (600, 60), (3, 3600),
                                                                                      (1, 86400), None]
    monkeypatch.setenv("API_THROTTLE_USER", " 50/minute ")
    assert env_rate("API_THROTTLE_USER", "1200/min") == "50/minute"


def test_the_schema_documents_429(client_for, compliance_officer):
    schema = client_for(compliance_officer).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    for path, method in ((URL, "post"), (URL, "get"), (f"{URL}{{id}}/", "get")):
        answer = schema["paths"][path][method]["responses"]["429"]
        assert "Retry-After" in answer["headers"] and "throttled" in answer["description"]
