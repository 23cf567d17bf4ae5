"""No input, however hostile, produces a 500 (issue 9, item 7): every form of every app is posted with
generated values — huge, negative, unicode digits, markup, spreadsheet formulas, far dates — as a person
allowed to use it, and every answer is a page (a refusal in words or a redirect), never a server error."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse
from django.views.generic.edit import FormMixin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compliance.roles import CAPABILITIES, Capability, Role
from coupons import services
from coupons.models import CouponDistribution
from tests.coupons.conftest import (  # noqa: F401 (fixtures used here)
    PASSWORD,
    TODAY,
    _frozen_day,
    issue,
    program,
    receive,
    requisition,
    series_expires_on,
)
from tests.equipment.conftest import make_table
from tests.factories import make_person

pytestmark = pytest.mark.django_db

HOSTILE = st.one_of(
    st.sampled_from([
        "", "0", "-1", "-99999999999999999999", "99999999999999999999999999", "2147483648", "9223372036854775808",
        "1e308", "NaN", "١٢٣", "１２３", "<b><i>unclosed", "</para><font name=x>", "a < b & c > d",
        "=HYPERLINK(\"http://x\",\"y\")", "+1+1", "@SUM(A1)", "\t=1", "9999-12-31", "0001-01-01", "1900-01-01",
        "2026-02-30", "3026-11-03", "1-99999999999999999999", "MP-0000001–MP-9999999999999999999", PASSWORD,
        "on", "1", "2500",
    ]),
    st.text(max_size=30),
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
)

# Forms and who may use them (a role holding the page's capability, or the one the regulation names).
TARGETS = [
    "coupons:approval-create", "coupons:location-create", "coupons:series-create", "coupons:receipt-create",
    "coupons:requisition-create", "coupons:issuance-create", "coupons:distribute", "coupons:void",
    "coupons:reconciliation", "coupons:return-create", "coupons:process", "coupons:inventory-create",
    "coupons:document-undo", "equipment:dice-change", "equipment:deck-change", "equipment:inspection-create",
    "equipment:malfunction-create", "equipment:dice-method",
]
GETS = ["coupons:ledger", "audit-list", "reports:runs"]
ROLE_FOR = {"coupons:reconciliation": Role.MARKETING_SUPERVISOR}


def _role(view_class: Any, name: str) -> Role:
    if name in ROLE_FOR:
        return ROLE_FOR[name]
    capability = getattr(view_class, "capability", Capability.VIEW_RECORDS)
    roles = sorted(CAPABILITIES[capability] - {Role.BOARD_INSPECTOR, Role.ADMINISTRATOR}, key=lambda r: r.value)
    return roles[0] if roles else Role.COMPLIANCE_OFFICER


@pytest.fixture
def world(program, receive, issue, requisition, marketing_staff, facility, dealer) -> dict[str, Any]:  # noqa: F811
    receive(1, 500)
    issue(1, 50)
    distribution = services.distribution_record(facility=program.facility, series=program.series,
                                                spans=[(1, 2)], user=marketing_staff)
    return {
        "requisition": requisition(20),
        "table": make_table(facility, "sic-bo", "SB-H"),
        "distribution": distribution,
    }


def _url(name: str, world: dict[str, Any]) -> str:
    if name == "coupons:issuance-create":
        return reverse(name, args=[world["requisition"].pk])
    if name == "coupons:reconciliation":
        return reverse(name, args=[TODAY.isoformat()])
    if name == "coupons:document-undo":
        return reverse(name, args=[ContentType.objects.get_for_model(CouponDistribution).pk,
                                   world["distribution"].pk])
    if name.startswith("equipment:") and name not in GETS:
        return reverse(name, args=[world["table"].pk])
    return reverse(name)


SANE_TEXT = {"received": "", "serials": "101-105", "void_serials": "", "void_reason": "Torn", "code": "mpz",
             "serial_prefix": "", "identifiers": "LOT-Z 001-006", "colours": "", "back_colours": "red"}


def _sane(name: str, field: Any) -> Any:
    """A value the field accepts, so the form reaches its service and one hostile field is tested there."""
    from django import forms

    queryset: Any = getattr(field, "queryset", None)
    if isinstance(field, forms.ModelMultipleChoiceField):
        first = queryset.first()
        return [first.pk] if first is not None else []
    if isinstance(field, forms.ModelChoiceField):
        first = queryset.first()
        return first.pk if first is not None else ""
    if isinstance(field, forms.BooleanField):
        return "on"
    if isinstance(field, forms.DateField):
        return TODAY.isoformat()
    if isinstance(field, forms.IntegerField):
        return "1"
    if isinstance(field, forms.ChoiceField):
        options: Any = field.choices
        choices = [value for value, _ in options if value not in ("", None)]
        return choices[0] if choices else ""
    widget = getattr(field, "widget", None)
    if isinstance(widget, forms.PasswordInput):
        return PASSWORD
    return SANE_TEXT.get(name, "Ten")


def _form(client: Any, url: str) -> dict[str, Any]:
    response = client.get(url)
    assert response.status_code == 200, url
    form = response.context.get("form") if response.context else None
    return {name: _sane(name, field) for name, field in form.fields.items()} if form is not None else {}


@pytest.mark.parametrize("name", TARGETS + GETS)
def test_no_generated_input_breaks_a_form(name, world, facility, client_for):
    from django.urls import resolve

    url = _url(name, world)
    view_class = resolve(url).func.view_class
    person = make_person(_role(view_class, name), facility)
    client = client_for(person)
    baseline = _form(client, url)
    if issubclass(view_class, FormMixin):
        assert baseline, f"{name} shows no form"
    fields = sorted(baseline) or ["q"]

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(field=st.sampled_from(fields), value=HOSTILE, others=st.lists(HOSTILE, min_size=0, max_size=2))
    def post(field: str, value: str, others: list[str]) -> None:
        data = {**baseline, field: value}
        for other, hostile in zip(fields[::-1], others, strict=False):  # sometimes a second hostile field
            data[other] = hostile
        response = client.get(url, data) if name in GETS else client.post(url, data)
        assert response.status_code < 500, (name, data)

    post()


def test_far_and_malformed_days_in_addresses_are_not_found_rather_than_broken(client_for, marketing_supervisor,
                                                                               finance_staff):
    marketing = client_for(marketing_supervisor)
    for day in ("0001-01-01", "9999-12-31", "2026-13-01", "not-a-day"):
        assert marketing.get(f"/coupons/reconciliation/{day}/").status_code == 404, day
        assert marketing.get(f"/coupons/reconciliation/{day}/form.pdf").status_code == 404, day
    for day in ("0001-01-01", "9999-12-31", "x"):
        assert client_for(finance_staff).get(reverse("coupons:process"), {"day": day}).status_code in (200, 404)
