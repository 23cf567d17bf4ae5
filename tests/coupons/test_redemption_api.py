"""The redemption API: tokens bound to a table, the one error shape, Idempotency-Key, the OpenAPI schema."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from coupons.models import Redemption
from coupons.services.scanners import scanner_register, scanner_revoke
from tests.vendors import postgresql_only

pytestmark = pytest.mark.django_db

URL = "/api/v1/coupons/redemptions/"


@pytest.fixture
def scanner(program, craps_table, shift_manager) -> Any:
    device, token = scanner_register(facility=program.facility, table=craps_table, name="CR-1 scanner",
                                     user=shift_manager)
    return device, token


def post(client: Client, body: Any, token: str = "", **headers: Any) -> Any:
    if token:
        headers["HTTP_AUTHORIZATION"] = f"Token {token}"
    data = body if isinstance(body, str) else json.dumps(body)
    return client.post(URL, data=data, content_type="application/json", **headers)


def scan(serial: str = "MP-0000005", **extra: Any) -> dict[str, Any]:
    return {"serial": serial, "position": "pass_line", "chips": "40.00", **extra}


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "clause", "fields"}
    assert body["error"]["code"] == code and body["error"]["message"]
    return body["error"]


def test_a_scanner_redeems_with_its_token(program, handed_out, scanner):
    handed_out(1, 10)
    device, token = scanner
    response = post(Client(), scan(), token)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["redemption"]["coupon"] == "MP-0000005" and body["redemption"]["electronically_cancelled"]
    assert any("remaining $15" in line for line in body["instructions"])
    redemption = Redemption.objects.get()
    assert redemption.device == device and redemption.redeemed_by == device.account
    assert redemption.history.first().history_user == device.account


def test_a_second_scan_gets_409_already_redeemed(program, handed_out, scanner):
    handed_out(1, 10)
    post(Client(), scan(), scanner[1])
    error = assert_error(post(Client(), scan(), scanner[1]), 409, "already_redeemed")
    assert "table CR-1" in error["message"] and error["clause"] == "525.22"


def test_a_retry_with_the_same_idempotency_key_returns_the_first_answer(program, handed_out, scanner):
    handed_out(1, 10)
    first = post(Client(), scan(), scanner[1], HTTP_IDEMPOTENCY_KEY="scan-0001")
    again = post(Client(), scan(), scanner[1], HTTP_IDEMPOTENCY_KEY="scan-0001")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert Redemption.objects.count() == 1
    assert_error(post(Client(), scan("MP-0000006"), scanner[1], HTTP_IDEMPOTENCY_KEY="scan-0001"), 422,
                 "idempotency_key_reused")
    assert Redemption.objects.count() == 1  # the valid coupon 6 under a used key: nothing written
    assert_error(post(Client(), scan("MP-0009999"), scanner[1], HTTP_IDEMPOTENCY_KEY="scan-0001"), 422,
                 "idempotency_key_reused")  # a request refused on its own merits, under a used key
    assert_error(post(Client(), scan("MP-0000006"), scanner[1], HTTP_IDEMPOTENCY_KEY="bad key!"), 400,
                 "invalid_request")


def test_a_revoked_or_unknown_token_is_refused(program, handed_out, scanner, shift_manager):
    handed_out(1, 10)
    device, token = scanner
    assert_error(post(Client(), scan(), "not-a-token"), 401, "not_authenticated")
    scanner_revoke(device=device, reason="lost on the floor", user=shift_manager)
    error = assert_error(post(Client(), scan(), token), 401, "token_revoked")
    assert "revoked" in error["message"]
    assert not Redemption.objects.exists()


def test_a_token_works_only_at_its_own_table(program, handed_out, scanner, roulette_table):
    handed_out(1, 10)
    assert_error(post(Client(), scan(table="RL-1", position="red"), scanner[1]), 403, "wrong_table")
    assert not Redemption.objects.exists()


def test_no_credentials_is_401_in_the_error_shape(program):
    response = post(Client(), scan())
    assert_error(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"].startswith("Token")


@pytest.mark.parametrize("body", ["{", "[]", json.dumps({"serial": "MP-1"}), json.dumps(scan(chips="-5")),
                                  json.dumps(scan(chips="1e400")), json.dumps(scan(position="<b>")),
                                  json.dumps(scan(serial="x" * 500)), json.dumps(scan(chips="99999999999"))])
def test_malformed_requests_are_400_in_the_error_shape(program, scanner, body):
    error = assert_error(post(Client(), body, scanner[1]), 400, "invalid_request")
    assert error["fields"]


def test_a_dealer_redeems_with_the_session_naming_the_table(program, handed_out, craps_table, dealer, client_for):
    handed_out(1, 10)
    client = client_for(dealer)
    assert post(client, scan(table="CR-1")).status_code == 201
    assert_error(post(client, scan("MP-0000006", table="NOPE")), 400, "invalid_request")
    assert_error(post(client, scan("MP-0000006")), 400, "invalid_request")  # no table named


def test_the_inspector_reads_and_cannot_redeem(program, handed_out, scanner, inspector, client_for):
    handed_out(1, 10)
    post(Client(), scan(), scanner[1])
    client = client_for(inspector)
    assert_error(post(client, scan("MP-0000006", table="CR-1")), 403, "permission_denied")
    listed = client.get(URL, {"table": "CR-1"})
    assert listed.status_code == 200 and [r["coupon"] for r in listed.json()["results"]] == ["MP-0000005"]
    assert client.get(f"/coupons/redemptions/{Redemption.objects.get().pk}/").status_code == 200


def test_the_list_refuses_a_bad_date_in_words(program, scanner):
    assert_error(Client().get(URL, {"gaming_date": "9999-99-99"}, HTTP_AUTHORIZATION=f"Token {scanner[1]}"),
                 400, "invalid_request")


def test_the_openapi_schema_describes_the_endpoint_and_every_code(client_for, compliance_officer):
    from drf_spectacular.validation import validate_schema

    client = client_for(compliance_officer)
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    validate_schema(schema)
    operation = schema["paths"][URL]["post"]
    assert {"201", "400", "401", "403", "404", "409", "422"} <= set(operation["responses"])
    from coupons.redemption_rules import REFUSALS

    assert all(f"`{code}`" in operation["description"] for code in REFUSALS)
    assert "scannerToken" in schema["components"]["securitySchemes"]
    docs = client.get("/api/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()
    assert b"cdn" not in docs.content.lower() and b"//unpkg" not in docs.content


def test_a_body_that_is_not_json_is_415_and_an_accept_that_is_not_json_is_406(dealer, client_for):
    """The API's conventions (issue 26, item 8): each refusal with its own status, in the one error shape."""
    client = client_for(dealer)
    wrong_type = client.post("/api/v1/coupons/redemptions/", data="serial=MP-1", content_type="text/plain")
    assert wrong_type.status_code == 415
    assert wrong_type.json()["error"]["code"] == "unsupported_media_type"
    wrong_accept = client.get("/api/v1/coupons/redemptions/", HTTP_ACCEPT="text/html")
    assert wrong_accept.status_code == 406
    assert wrong_accept.json()["error"]["code"] == "not_acceptable"
    assert client.get("/api/v1/coupons/redemptions/", HTTP_ACCEPT="application/json").status_code != 406


def test_a_201_says_where_the_redemption_is_and_it_reads_there(program, handed_out, scanner, roulette_table,
                                                               shift_manager, dealer, client_for):
    handed_out(1, 10)
    created = post(Client(), scan(), scanner[1])
    assert created.status_code == 201
    location = created["Location"]
    assert location.endswith(f"{URL}{created.json()['redemption']['id']}/")
    read = Client().get(location, HTTP_AUTHORIZATION=f"Token {scanner[1]}")
    assert read.status_code == 200 and read.json() == created.json()["redemption"]
    assert client_for(dealer).get(location).json()["coupon"] == "MP-0000005"  # a person at the facility
    # Another table's scanner does not find it (not found rather than refused: it learns nothing of other tables).
    _, other = scanner_register(facility=program.facility, table=roulette_table, name="RL-1", user=shift_manager)
    assert_error(Client().get(location, HTTP_AUTHORIZATION=f"Token {other}"), 404, "not_found")
    assert_error(Client().get(f"{URL}999999/", HTTP_AUTHORIZATION=f"Token {scanner[1]}"), 404, "not_found")
    assert Client().post(location, data="{}", content_type="application/json",
                         HTTP_AUTHORIZATION=f"Token {scanner[1]}").status_code == 405


def test_the_list_pages_with_an_opaque_cursor_newest_first(program, handed_out, scanner):
    handed_out(1, 10)
    token = scanner[1]
    for serial in ("MP-0000001", "MP-0000002", "MP-0000003"):
        assert post(Client(), scan(serial), token).status_code == 201
    auth = {"HTTP_AUTHORIZATION": f"Token {token}"}
    first = Client().get(URL, {"limit": "2"}, **auth)
    assert first.status_code == 200
    assert [r["coupon"] for r in first.json()["results"]] == ["MP-0000003", "MP-0000002"]
    assert first["Link"] == f'<{first.json()["next"]}>; rel="next"'
    second = Client().get(first.json()["next"], **auth)
    assert [r["coupon"] for r in second.json()["results"]] == ["MP-0000001"]
    assert second.json()["next"] is None and "Link" not in second


@pytest.mark.parametrize("query", [{"cursor": "not-ours"}, {"cursor": "MjAyNi0xMS0yOHwx"}, {"cursor": "x" * 200},
                                   {"limit": "0"}, {"limit": "501"}, {"limit": "٥"}])
def test_a_cursor_or_limit_the_api_did_not_give_is_400_in_words(program, scanner, query):
    error = assert_error(Client().get(URL, query, HTTP_AUTHORIZATION=f"Token {scanner[1]}"), 400, "invalid_request")
    assert set(error["fields"]) == set(query)


@postgresql_only("the statements of the one-statement write (SQLite saves each row)")
@pytest.mark.django_db(transaction=True)  # as the API is served: no transaction around the request
def test_a_scan_at_a_busy_table_takes_four_statements(program, handed_out, scanner):
    """Issue 27: the scanner, then the coupon's range with the program's approvals (one statement), the ids, and the
    one statement writing the redemption, its history row, its audit event and the stored answer — its own
    transaction, with no BEGIN or COMMIT around the two (9 statements before, with four separate inserts and the
    approvals read on their own; 6 until 30 Nov 2026, with BEGIN and COMMIT). The table's readiness comes from the
    cache, as at a table scanning all day. Through gunicorn no ``SELECT 1`` precedes them: the first read is the kept
    connection's health check (tests/compliance/test_raw_reads_health.py). Inside a caller's transaction the write
    is a savepoint instead (tests/coupons/test_redemption_write.py)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    handed_out(1, 10)
    client = Client()
    assert post(client, scan("MP-0000001"), scanner[1], HTTP_IDEMPOTENCY_KEY="scan-1").status_code == 201
    with CaptureQueriesContext(connection) as captured:
        response = post(client, scan("MP-0000002"), scanner[1], HTTP_IDEMPOTENCY_KEY="scan-2")
    assert response.status_code == 201, response.content
    statements = [q["sql"].split()[0] + (" nextval" if "nextval" in q["sql"] else "") for q in captured.captured_queries]
    assert statements == ["SELECT", "SELECT", "SELECT nextval", "WITH"], statements
    assert "UNION ALL" in captured.captured_queries[1]["sql"]
