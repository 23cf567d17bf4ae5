"""No input, however hostile, produces a 500 (issue 9, item 7): every form of every app is posted with
generated values — huge, negative, unicode digits, markup, spreadsheet formulas, far dates — as a person
allowed to use it, and every answer is a page (a refusal in words or a redirect), never a server error."""

from __future__ import annotations

from datetime import time
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
from tests.coupons.test_mailing import campaign, lists  # noqa: F401 (fixtures used here)
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
    "coupons:requisition-cancel", "coupons:stock-void",
    "coupons:reconciliation", "coupons:reconciliation-today", "coupons:return-create", "coupons:process",
    "coupons:inventory-create", "coupons:document-undo", "coupons:drop-count-create", "coupons:mailing-provider-create",
    "coupons:mailing-create", "equipment:dice-change", "equipment:back-in-service", "staffing:camera-out",
    "exclusion:match-decide", "reports:run-filing", "sign", "equipment:deck-change", "equipment:inspection-create",
    "equipment:malfunction-create", "equipment:dice-method", "exclusion:import", "staffing:shift-create",
    "staffing:override", "providers:create", "providers:assign", "submissions:draft", "submissions:guide-generate",
    "submissions:sign-approval-create",
    "reports:produce", "newgames:create", "newgames:create-stated", "password_change",
    "equipment:approvals", "equipment:approval-withdraw",
    "providers:filing-create",
    "coupons:scanners", "coupons:table-screen", "staffing:rosters", "staffing:roster", "staffing:roster-pit",
    "staffing:surveillance",
]
GETS = ["coupons:ledger", "audit-list", "reports:runs", "exclusion:lists"]
ROLE_FOR = {"coupons:reconciliation": Role.MARKETING_SUPERVISOR, "coupons:reconciliation-today": Role.MARKETING_SUPERVISOR,
            "staffing:override": Role.SHIFT_MANAGER, "password_change": Role.DEALER,
            "sign": Role.MARKETING_SUPERVISOR, "staffing:camera-out": Role.SURVEILLANCE,
            "exclusion:match-decide": Role.COMPLIANCE_OFFICER, "reports:run-filing": Role.COMPLIANCE_OFFICER,
            "equipment:approvals": Role.COMPLIANCE_OFFICER, "equipment:approval-withdraw": Role.COMPLIANCE_OFFICER,
            "coupons:scanners": Role.SHIFT_MANAGER, "coupons:requisition-cancel": Role.FINANCE_SUPERVISOR,
            "staffing:rosters": Role.SHIFT_MANAGER,
            "staffing:roster": Role.SHIFT_MANAGER, "staffing:roster-pit": Role.SHIFT_MANAGER,
            "staffing:surveillance": Role.SURVEILLANCE}
ADDRESS = {"reports:produce": {"kind": "quarterly-coupons"}, "newgames:create": {"engine": "sic-bo"}}

# Forms attacked by a test of their own (their addresses need records this module does not make), each with
# generated or listed hostile values; test_every_form_of_every_app_is_attacked holds the two lists to the URLs.
ELSEWHERE = {
    "login": "tests/compliance/test_sign_in_behind_a_proxy.py, tests/compliance/test_accounts.py",
    "account-second-factor": "tests/compliance/test_accounts.py", "account-backup-codes":
        "tests/compliance/test_admin_takeover.py", "password-set": "tests/compliance/test_admin_takeover.py",
    "providers:offering-create": "tests/providers/test_views.py::test_hostile_input_gives_words_not_a_500",
    "providers:certification-create": "tests/providers/test_views.py::test_hostile_input_gives_words_not_a_500",
    "providers:permission-create": "tests/providers/test_views.py::test_hostile_input_gives_words_not_a_500",
    "providers:offering-lab": "tests/providers/test_views.py::test_hostile_input_gives_words_not_a_500",
    "providers:offering-approve": "tests/providers/test_views.py::test_hostile_input_gives_words_not_a_500",
    "providers:renewal-file": "tests/providers/test_views.py::test_hostile_input_gives_words_not_a_500",
    "providers:renewal-decide": "tests/providers/test_views.py::test_hostile_input_gives_words_not_a_500",
    "providers:permission-rescind": "tests/providers/test_views.py::test_hostile_input_gives_words_not_a_500",
    "providers:remove": "tests/providers/test_views.py::test_hostile_input_gives_words_not_a_500",
    "submissions:game": "tests/submissions/test_views.py::test_hostile_input_never_gives_a_500",
    "submissions:submit": "tests/submissions/test_views.py::test_hostile_input_never_gives_a_500",
    "submissions:decision": "tests/submissions/test_views.py::test_hostile_input_never_gives_a_500",
    "submissions:table-setting": "tests/submissions/test_views.py::test_hostile_input_never_gives_a_500",
    "submissions:limit-request": "tests/submissions/test_views.py::test_hostile_input_never_gives_a_500",
    "submissions:limit-post": "tests/submissions/test_views.py::test_hostile_input_never_gives_a_500",
    "submissions:limit-announce": "tests/submissions/test_views.py::test_hostile_input_never_gives_a_500",
    "submissions:limit-cancel": "tests/submissions/test_views.py::test_hostile_input_never_gives_a_500",
    "submissions:guide-submit": "tests/submissions/test_views.py::test_hostile_input_never_gives_a_500",
    "submissions:guide-approval": "tests/submissions/test_views.py::test_hostile_input_never_gives_a_500",
    "submissions:requirements": "tests/submissions/test_views.py::test_hostile_input_never_gives_a_500",
    "newgames:pictures": "tests/newgames/test_views.py::test_hostile_uploads_give_a_page_not_a_500",
    "newgames:sign": "tests/newgames/test_views.py::test_hostile_input_to_the_signing_form_gives_a_page_not_a_500",
}


def _role(view_class: Any, name: str) -> Role:
    if name in ROLE_FOR:
        return ROLE_FOR[name]
    capability = getattr(view_class, "capability", Capability.VIEW_RECORDS)
    roles = sorted(CAPABILITIES[capability] - {Role.BOARD_INSPECTOR, Role.ADMINISTRATOR}, key=lambda r: r.value)
    return roles[0] if roles else Role.COMPLIANCE_OFFICER


@pytest.fixture
def world(program, receive, issue, requisition, marketing_staff, facility, dealer, floorperson, surveillance,  # noqa: F811
          compliance_officer, campaign) -> dict[str, Any]:  # noqa: F811
    from datetime import timedelta

    from django.utils import timezone

    from compliance.exclusion.models import ScreeningMatch
    from compliance.reports import services as reports
    from compliance.staffing import services as staffing
    from equipment import services as equipment
    from tests.testapp.models import TwoPersonForm

    receive(501, 1000)
    issue(501, 550)
    distribution = services.distribution_record(facility=program.facility, series=program.series,
                                                spans=[(501, 502)], user=marketing_staff)
    table = make_table(facility, "sic-bo", "SB-H")
    malfunction = equipment.malfunction_record(
        table=table, user=floorperson, password=PASSWORD, device="sic_bo_display", description="Dark",
        round_outcome="settled_ceased", at=timezone.now() - timedelta(minutes=5))
    run = reports.run_request(facility=facility, kind="redemptions", start=TODAY, end=TODAY, user=compliance_officer)
    manager = make_person(Role.SHIFT_MANAGER, facility)
    shift = staffing.shift_create(facility=facility, name="Hostile", starts_at=time(6), hours=8, user=manager)
    roster = staffing.roster_create(facility=facility, gaming_date=TODAY, shift=shift, user=manager)
    reports.run_execute(run.pk)
    return {
        "requisition": requisition(20),
        "table": table,
        "distribution": distribution,
        "malfunction": malfunction,
        "camera": staffing.camera_register(facility=facility, code="C-H", user=surveillance),
        "match": ScreeningMatch.objects.filter(outcome="review").first(),
        "run": run,
        "record": TwoPersonForm.objects.create(facility=facility, note="Hostile", quantity=1),
        "roster": roster,
    }


RECORD_IN_ADDRESS = {"staffing:camera-out": "camera", "staffing:camera-back": "camera", "staffing:roster": "roster",
                     "staffing:roster-pit": "roster", "coupons:table-screen": "table"}


def _url(name: str, world: dict[str, Any]) -> str:
    if name in ("coupons:issuance-create", "coupons:requisition-cancel"):
        return reverse(name, args=[world["requisition"].pk])
    if name == "coupons:reconciliation":
        return reverse(name, args=[TODAY.isoformat()])
    if name == "coupons:document-undo":
        return reverse(name, args=[ContentType.objects.get_for_model(CouponDistribution).pk,
                                   world["distribution"].pk])
    if name == "equipment:back-in-service":
        return reverse(name, args=[world["table"].pk, world["malfunction"].pk])
    if name in ("equipment:approvals", "equipment:approval-withdraw"):
        return reverse(name)
    if (name.startswith("equipment:") and name not in GETS) or name == "staffing:override":
        return reverse(name, args=[world["table"].pk])
    if name in RECORD_IN_ADDRESS:
        return reverse(name, args=[world[RECORD_IN_ADDRESS[name]].pk])
    if name == "exclusion:match-decide":
        return reverse(name, args=[world["match"].pk])
    if name == "reports:run-filing":
        return reverse(name, args=[world["run"].pk])
    if name == "sign":
        return reverse(name, args=[ContentType.objects.get_for_model(world["record"]).pk, world["record"].pk,
                                   "prepared"])
    if name in ADDRESS:
        return reverse(name, kwargs=ADDRESS[name])
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
    if form is None:
        return {}
    # Posted under the form's prefix (marketing's two forms on one page have one each).
    return {form.add_prefix(name): _sane(name, field) for name, field in form.fields.items()}


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


# Buttons (a ServiceFormView with button = True: a POST from another page, a few fields or none) and the records
# their addresses name; each is posted hostile values in every field, as a role holding the button's capability.
BUTTONS = {
    "coupons:mailing-release": Role.MARKETING_SUPERVISOR, "coupons:mailing-screen": Role.MARKETING_SUPERVISOR,
    "coupons:report-resolve": Role.FINANCE_SUPERVISOR, "coupons:series-expire": Role.FINANCE_SUPERVISOR,
    "equipment:table-open": Role.SHIFT_MANAGER, "equipment:table-close": Role.SHIFT_MANAGER,
    "reports:run-retry": Role.COMPLIANCE_OFFICER, "staffing:assignment-end": Role.SHIFT_MANAGER,
    "staffing:camera-back": Role.SURVEILLANCE,
}


def _button_url(name: str, world: dict[str, Any], program: Any, campaign: Any) -> str:  # noqa: F811
    from compliance.staffing import services as staffing

    if name.startswith("coupons:mailing-"):
        return reverse(name, args=[campaign.pk])
    if name == "coupons:report-resolve":
        from coupons.models import CouponReceipt, DeviationReport

        report = DeviationReport.objects.create(facility=program.facility, receipt=CouponReceipt.objects.first(),
                                                description="Short by 5", reported_to="Finance")
        return reverse(name, args=["deviation", report.pk])
    if name == "coupons:series-expire":
        return reverse(name, args=[program.series.pk])
    if name == "reports:run-retry":
        return reverse(name, args=[world["run"].pk])
    if name == "staffing:assignment-end":
        roster = world["roster"]
        manager = make_person(Role.SHIFT_MANAGER, roster.facility)
        dealer = make_person(Role.DEALER, roster.facility)
        placed = staffing.assignment_add(roster=roster, table=world["table"], person=dealer, position="dealer",
                                         user=manager)
        return reverse(name, args=[roster.pk, placed.pk])
    return _url(name, world)


@pytest.mark.parametrize("name", sorted(BUTTONS))
def test_no_generated_input_breaks_a_button(name, world, program, campaign, facility, client_for):  # noqa: F811
    from django.urls import resolve

    url = _button_url(name, world, program, campaign)
    view_class = resolve(url).func.view_class
    assert view_class.button, f"{name} is not a button"
    client = client_for(make_person(BUTTONS[name], facility))
    assert client.get(url).status_code == 405  # no page of its own
    fields = sorted(view_class.form_class.base_fields) or ["note"]

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.fixed_dictionaries(dict.fromkeys(fields, HOSTILE)))
    def post(data: dict[str, str]) -> None:
        response = client.post(url, data)
        assert response.status_code < 500, (name, data)
        if response.status_code == 302:
            assert response["Location"], name

    post()


def test_far_and_malformed_days_in_addresses_are_not_found_rather_than_broken(client_for, marketing_supervisor,
                                                                               finance_staff):
    marketing = client_for(marketing_supervisor)
    for day in ("0001-01-01", "9999-12-31", "2026-13-01", "not-a-day"):
        assert marketing.get(f"/coupons/reconciliation/{day}/").status_code == 404, day
        assert marketing.get(f"/coupons/reconciliation/{day}/form.pdf").status_code == 404, day
    for day in ("0001-01-01", "9999-12-31", "x"):
        assert client_for(finance_staff).get(reverse("coupons:process"), {"day": day}).status_code in (200, 404)


def test_every_form_of_every_app_is_attacked():
    """Each view of the project that shows a form is attacked here (TARGETS) or by a test of its own
    (ELSEWHERE): a form added later fails this until it is."""
    from django.urls import URLPattern, URLResolver, get_resolver
    from django.views.generic.edit import FormMixin

    def walk(patterns: list[Any], namespace: str = "") -> list[tuple[str, Any]]:
        found: list[tuple[str, Any]] = []
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                found += walk(pattern.url_patterns, inner)
            elif isinstance(pattern, URLPattern):
                found.append((f"{namespace}{pattern.name or ''}", getattr(pattern.callback, "view_class", None)))
        return found

    forms = {name for name, view in walk(get_resolver().url_patterns)
             if view is not None and issubclass(view, FormMixin) and not view.__module__.startswith("django.")}
    forms |= {"login", "password_change"}  # Django's own views, under our forms
    missing = sorted(forms - set(TARGETS) - set(ELSEWHERE) - set(BUTTONS))
    assert not missing, f"forms no test attacks: {missing}"
    assert not set(ELSEWHERE) - forms, "ELSEWHERE names forms that are gone"



def test_no_generated_input_breaks_the_api(world, dealer, client_for):
    """The redemption API, as a scanner posts to it: every field hostile in turn, as JSON strings and numbers
    and as a form; every answer is the API's error shape or a redemption, never a 500."""
    import json

    client = client_for(dealer)
    url = reverse("coupons-api:redemptions")
    baseline = {"serial": "MP-0000502", "table": world["table"].number, "position": "pass_line", "chips": "25.00",
                "wager": "round 1"}

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(field=st.sampled_from(sorted(baseline)), value=st.one_of(HOSTILE, st.integers(), st.floats(),
                                                                    st.none(), st.booleans()),
           as_form=st.booleans())
    def post(field: str, value: Any, as_form: bool) -> None:
        data = {**baseline, field: value}
        if as_form:
            response = client.post(url, {k: "" if v is None else str(v) for k, v in data.items()})
        else:
            response = client.post(url, json.dumps(data, allow_nan=True), content_type="application/json")
        assert response.status_code < 500, (field, value, response.status_code)
        if response.status_code >= 400:
            assert "error" in response.json() or "detail" in response.json(), response.content[:300]

    post()
