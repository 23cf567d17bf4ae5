"""The coupon API fuzzed against its own OpenAPI schema (issue 27, item 5).

schemathesis takes the schema drf-spectacular generates (the one ``/api/schema/`` serves: the last test holds it
to that) and sends each operation generated requests, valid and invalid, through the WSGI application in this
test's transaction, as three callers: nobody, a table's scanner with its token, and a dealer signed in through the
web session. Every answer must be one the schema documents: no 5xx, a documented status code, the documented
content type and headers, a body that matches its schema, invalid input refused with a 4xx, and an operation that
declares security refusing a call without it; and (the two checks below) a valid request never refused as
malformed, every answer JSON. Examples, coverage and fuzzing phases, derandomized: CI runs the same requests.

The schema is generated at import, not read from ``/api/schema/`` in a fixture: schemathesis's fixture-loaded
schema (``schemathesis.pytest.from_fixture``) fails under pytest 9.2 (it sets ``Node._nodeid``, gone from pytest).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH
from django.utils.crypto import get_random_string
from hypothesis import HealthCheck, settings

from coupons.services.scanners import scanner_register

pytestmark = pytest.mark.django_db


def _generated_schema() -> dict[str, Any]:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


schema = schemathesis.openapi.from_dict(_generated_schema())
schema.app = get_wsgi_application()
# replaced by positive_data_accepted below, which reads this API's statuses
schema.config.checks.update(excluded_check_names=["positive_data_acceptance"])

# The coupons handed out to patrons for the run: the serial the schema's example scans is among them, so the
# explicit examples reach a redemption that succeeds (201), and a second scan of it the 409.
HANDED_OUT = (12340, 12349)
CALLERS = ("nobody", "scanner", "dealer")


@pytest.fixture(params=CALLERS)
def caller(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@dataclass(frozen=True)
class Credentials:
    """What each request of a caller carries. The schema's security schemes make schemathesis send a generated
    ``Authorization`` header and ``sessionid`` cookie too (fuzzing the authentication); a caller's own replace them."""

    headers: dict[str, str] = field(default_factory=dict)
    cookies: dict[str, str] = field(default_factory=dict)


@pytest.fixture
def credentials(caller: str, program: Any, handed_out: Any, craps_table: Any, shift_manager: Any, dealer: Any,
                client_for: Any) -> Credentials:
    handed_out(*HANDED_OUT)
    if caller == "scanner":
        _, token = scanner_register(facility=program.facility, table=craps_table, name="CR-1 scanner",
                                    user=shift_manager)
        return Credentials(headers={"Authorization": f"Token {token}"})
    if caller == "dealer":
        session = client_for(dealer).cookies["sessionid"].value
        csrf = get_random_string(CSRF_SECRET_LENGTH, CSRF_ALLOWED_CHARS)  # a session's writes: CSRF cookie + header
        # An empty Authorization is no token: DRF goes on to the session.
        return Credentials(headers={"Authorization": "", "X-CSRFToken": csrf},
                           cookies={"sessionid": session, "csrftoken": csrf})
    return Credentials()


@pytest.fixture(autouse=True)
def _keep_the_test_connection() -> Any:
    """Requests go through Django's WSGI handler, whose start and end close a connection inside a transaction: the
    test's. Django's own test client keeps it open the same way."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture(autouse=True)
def _no_request_limits(settings: Any) -> None:
    # The request limits count in windows aligned on the wall clock: which request a 429 falls on would change
    # from run to run. They are tested in test_api_throttling.py; here they are off so a run is reproducible.
    settings.API_THROTTLE_TOKEN = settings.API_THROTTLE_USER = "off"


# Parameters whose valid values no schema can state: a cursor is opaque and signed; a table must exist at the
# facility, and a person (unlike a scanner, whose token names its table) must name one.
_STATED_ONLY_IN_WORDS = {"cursor", "table"}


def positive_data_accepted(ctx: Any, response: Any, case: Any) -> bool | None:
    """schemathesis's positive_data_acceptance as this API answers: a request the schema allows is never refused as
    malformed (400) but for the parameters above, or a NUL character, which no string of any request may hold
    (``nul_character``, compliance/request_limits.py; a pattern on every string of the schema would say no more).
    422 is not a malformed request but one refused under the rules (a coupon never given out, a position the
    table's game does not have), like 409 and 404."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return None
    status = response.status_code
    if status < 300 or status in {401, 403, 404, 409, 422}:
        return None
    if status == 400:
        error = response.json()["error"]
        fields = set(error["fields"])
        if error["code"] == "nul_character" or (fields and fields <= _STATED_ONLY_IN_WORDS):
            return None
    raise AssertionError(f"A request the schema allows was refused: {status} {response.text[:300]}")


def answers_in_json(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every answer in JSON, errors in the one shape, whatever was sent: content_type_conformance lets pass what
    answers a request schemathesis sent with a malformed Content-Type (where Django's bare HTML 400 page came
    back)."""
    content_type = response.headers.get("content-type", [""])[0]
    if not content_type.startswith("application/json"):
        raise AssertionError(f"{response.status_code} answered in {content_type or 'no content type'}, not JSON")
    if response.status_code >= 400 and set(response.json()) != {"error"}:
        raise AssertionError(f"{response.status_code} not in the error shape: {response.text[:300]}")
    return None


@schema.parametrize()
@settings(max_examples=40, derandomize=True, deadline=None,
          # The caller's credentials and the coupons handed out are made once per test and shared by its examples,
          # in the test's one transaction: meant so (a scan's 201 then a 409), not a fixture left dirty by mistake.
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_every_answer_is_documented(case: Any, credentials: Credentials) -> None:
    case.call_and_validate(headers=credentials.headers, cookies=credentials.cookies,
                           additional_checks=[positive_data_accepted, answers_in_json])


def test_the_schema_fuzzed_is_the_one_served(client_for: Any, compliance_officer: Any) -> None:
    served = client_for(compliance_officer).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert served.status_code == 200
    assert json.loads(served.content) == schema.raw_schema


def test_the_day_pattern_holds_the_api_s_first_and_last_day() -> None:
    """The schema's pattern for gaming_date says in a regular expression what compliance/bounds.py says in dates."""
    from compliance.bounds import EARLIEST_DAY, LATEST_DAY
    from coupons.api.views import _DAY_PATTERN

    def matches(day: date) -> bool:
        return re.fullmatch(_DAY_PATTERN, day.isoformat()) is not None

    assert matches(EARLIEST_DAY) and matches(LATEST_DAY)
    assert not matches(EARLIEST_DAY - timedelta(days=1)) and not matches(LATEST_DAY + timedelta(days=1))
