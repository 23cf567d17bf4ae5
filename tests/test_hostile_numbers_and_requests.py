"""The hostile inputs the review found still breaking (issue 22, item 6), each through the form or API a person
uses: non-finite numbers, digits of other scripts, NUL characters, and request bodies over the limit — each a
refusal in words, nothing saved, never a 500."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from compliance.numbers import AmountField, WholeNumberField, ascii_number_refusal, read_amount
from coupons.models import CouponReceipt, CouponRequisition, CouponSeries
from tests.coupons.conftest import (  # noqa: F401 (fixtures used here)
    PASSWORD,
    _frozen_day,
    program,
    series_expires_on,
)

pytestmark = pytest.mark.django_db

OTHER_DIGITS = ["١٢٣", "１２３", "۱۲۳", "१२३", "12٣", "²", "½"]
NON_FINITE = ["Infinity", "inf", "-Infinity", "NaN", "sNaN", "1e999999999"]


@pytest.mark.parametrize("text", OTHER_DIGITS)
def test_other_scripts_digits_are_refused_in_words(text):
    assert "digits 0–9" in ascii_number_refusal(text)
    with pytest.raises(ValidationError, match="digits 0–9"):
        WholeNumberField().clean(text)
    with pytest.raises(ValidationError, match="digits 0–9"):
        AmountField().clean(text)
    with pytest.raises(ValidationError, match="digits 0–9"):
        read_amount(text)


@pytest.mark.parametrize("text", NON_FINITE)
def test_non_finite_amounts_are_refused_in_words(text):
    with pytest.raises(ValidationError):
        read_amount(text)
    with pytest.raises(ValidationError):
        AmountField().clean(text)


def test_plain_numbers_still_read():
    assert WholeNumberField().clean(" 1250 ") == 1250
    assert str(read_amount("$1,250.50")) == "1250.50"


@pytest.mark.parametrize("denomination", ["Infinity", "inf", "NaN", "١٠", "２５"])
def test_a_series_denomination_that_is_not_a_number_is_refused(program, finance_supervisor, client_for, denomination):  # noqa: F811
    client = client_for(finance_supervisor)
    before = CouponSeries.objects.count()
    page = client.get("/coupons/series/new/")
    form = page.context["form"]
    data = dict.fromkeys(form.fields, "")
    data.update(program=program.program.pk, name="Hostile", code="hx", serial_prefix="HX", serial_digits="7",
                denomination=denomination, expires_on="2026-12-31")
    response = client.post("/coupons/series/new/", data)
    assert response.status_code == 422
    text = response.content.decode()
    assert "digits 0–9" in text or "Enter an amount in dollars" in text
    assert CouponSeries.objects.count() == before


@pytest.mark.parametrize(("field", "value"), [("invoice_first_serial", "١"), ("invoice_quantity", "１００"),
                                              ("invoice_last_serial", "١٠٠")])
def test_receipt_serials_and_quantities_in_other_digits_are_refused(program, finance_supervisor,  # noqa: F811
                                                                   client_for, field, value):
    client = client_for(finance_supervisor)
    form = client.get("/coupons/receipts/new/").context["form"]
    data = dict.fromkeys(form.fields, "")
    data.update(series=program.series.pk, invoice_quantity="100", invoice_first_serial="1",
                invoice_last_serial="100", received="1-100", vendor="Printer")
    data[field] = value
    response = client.post("/coupons/receipts/new/", data)
    assert response.status_code == 422 and "digits 0–9" in response.content.decode()
    assert not CouponReceipt.objects.exists()


def test_a_requisition_quantity_in_other_digits_is_refused(program, marketing_supervisor, client_for):  # noqa: F811
    client = client_for(marketing_supervisor)
    form = client.get("/coupons/requisitions/new/").context["form"]
    data = dict.fromkeys(form.fields, "")
    data.update(quantity="٥٠", password=PASSWORD)
    response = client.post("/coupons/requisitions/new/", data)
    assert response.status_code == 422 and "digits 0–9" in response.content.decode()
    assert not CouponRequisition.objects.exists()


# --- NUL characters -----------------------------------------------------------------------------------------


def test_a_nul_in_a_form_field_is_refused_before_the_view(program, finance_supervisor, client_for):  # noqa: F811
    client = client_for(finance_supervisor)
    response = client.post("/coupons/series/new/", {"name": "Bad\x00name", "code": "x"})
    assert response.status_code == 400
    assert "NUL character" in response.content.decode() and "Nothing was saved" in response.content.decode()
    assert client.get("/coupons/ledger/", {"q": "a\x00b"}).status_code == 400


def test_a_nul_in_the_api_is_refused_in_its_error_shape(dealer, client_for):
    response = client_for(dealer).post("/api/v1/coupons/redemptions/", data=json.dumps(
        {"serial": "MP-0000001\u0000", "position": "pass_line", "chips": "25"}), content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "nul_character"


def test_a_multipart_body_without_its_boundary_is_refused_in_words(dealer, client_for):
    """Found by the API's fuzzing (tests/coupons/test_api_fuzz.py): Django's bare HTML 400 came back, not the API's
    error shape."""
    client = client_for(dealer)
    response = client.post("/api/v1/coupons/redemptions/", data=b"serial=MP-1", content_type="multipart/form-data")
    assert response.status_code == 400 and response.json()["error"]["code"] == "malformed_body"
    page = client.post("/coupons/series/new/", data=b"name=x", content_type="multipart/form-data")
    assert page.status_code == 400 and "cannot be read as the form" in page.content.decode()


# --- request size -------------------------------------------------------------------------------------------


class _Untouchable:
    """A request body that fails the test if anyone reads it."""

    def read(self, *args: Any) -> bytes:
        raise AssertionError("the body was read")

    readline = read


def test_a_body_over_the_limit_is_refused_before_it_is_read(settings, marketing_supervisor, client_for):
    from django.core.handlers.wsgi import WSGIRequest

    from compliance.request_limits import RequestLimitsMiddleware

    settings.MAX_REQUEST_BYTES = 2 * 1024 * 1024
    client = client_for(marketing_supervisor)
    response = client.post("/coupons/mailings/new/", data=b"x" * 100, content_type="application/octet-stream",
                           CONTENT_LENGTH=str(50 * 1024 * 1024))
    assert response.status_code == 413
    assert "50 MB" in response.content.decode() and "2 MB" in response.content.decode()
    # Nothing reads the body to refuse it.
    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/coupons/mailings/new/", "CONTENT_LENGTH": str(50 * 1024 * 1024),
               "CONTENT_TYPE": "multipart/form-data; boundary=x", "wsgi.input": _Untouchable(),
               "SERVER_NAME": "testserver", "SERVER_PORT": "80", "wsgi.url_scheme": "http"}
    refusal = RequestLimitsMiddleware(lambda request: pytest.fail("the view ran"))(WSGIRequest(environ))
    assert refusal.status_code == 413


def test_the_api_says_too_large_in_its_error_shape(settings):
    settings.MAX_REQUEST_BYTES = 1024 * 1024
    response = Client().post("/api/v1/coupons/redemptions/", data=b"{}", content_type="application/json",
                             CONTENT_LENGTH=str(5 * 1024 * 1024))
    assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"


def test_a_content_length_that_is_not_a_number_is_refused():
    response = Client().post("/accounts/login/", data=b"", content_type="application/x-www-form-urlencoded",
                             CONTENT_LENGTH="12abc")
    assert response.status_code == 400


def test_odd_content_lengths_and_cases_are_refused_not_broken():
    assert Client().post("/accounts/login/", data=b"", content_type="application/x-www-form-urlencoded",
                         CONTENT_LENGTH="9" * 5000).status_code == 413
    response = Client().post("/accounts/login/", data=b"username=a%00b&password=x",
                             content_type="Application/X-WWW-Form-Urlencoded")
    assert response.status_code == 400


def test_underscored_numbers_are_refused():
    with pytest.raises(ValidationError, match="digits 0–9"):
        WholeNumberField().clean("1_000")
