"""Each person is shown only what they can do: no link to a page that refuses them, a Sign action only
where their signature would be accepted, and for the Board inspector the same pages read-only."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.template import engines
from django.test import RequestFactory
from django.urls import get_resolver

from compliance.middleware import INSPECTOR_ALLOWED_WRITES
from compliance.roles import Role
from compliance.selectors import may_sign
from compliance.services import signature_sign
from tests.compliance.test_inspector_read_only import _all_routes
from tests.factories import GamingTableFactory, make_person
from tests.testapp.models import ExaminationForm, TwoPersonForm

pytestmark = pytest.mark.django_db


class _Page(HTMLParser):
    """The links of a page, and its forms: method, action, whether disabled, and their submit buttons."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.forms: list[dict[str, Any]] = []
        self._form: dict[str, Any] | None = None
        self._fieldsets: list[bool] = []  # each open fieldset: whether it is disabled

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "a" and (a.get("href") or "").startswith("/"):
            self.links.append(a["href"] or "")
        elif tag == "form":
            self._form = {"method": (a.get("method") or "get").lower(), "action": a.get("action") or "",
                          "submits": 0, "fields": 0, "enabled_fields": 0}
            self.forms.append(self._form)
        elif tag == "fieldset":
            self._fieldsets.append("disabled" in a)
        elif self._form is not None and tag in ("button", "input", "select", "textarea"):
            kind = (a.get("type") or ("submit" if tag == "button" else "text")).lower()
            enabled = "disabled" not in a and not any(self._fieldsets)
            if kind in ("submit", "image") and enabled:
                self._form["submits"] += 1
            elif kind not in ("hidden", "button", "reset", "submit", "image"):
                self._form["fields"] += 1
                self._form["enabled_fields"] += enabled

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "fieldset" and self._fieldsets:
            self._fieldsets.pop()


def _parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def _parameterless_pages() -> list[str]:
    pages = []
    for route, name in _all_routes(get_resolver().url_patterns):
        if "<" in route or "(?P" in route or route.startswith("admin/") or name.endswith(("logout", "login")):
            continue
        pages.append("/" + route)
    return pages


@pytest.fixture
def floor(facility: Any) -> list[Any]:
    """Tables of a few games, so the board, the tables page and the table pages have something to link."""
    return [GamingTableFactory(facility=facility, number=f"T-{n}") for n in range(2)]


@pytest.mark.parametrize("role", list(Role))
def test_no_link_on_any_page_leads_to_a_page_that_refuses_the_reader(role, facility, floor, client_for):
    person = make_person(role, facility)
    client = client_for(person)
    answers: dict[str, int] = {}
    broken = []
    for page_url in _parameterless_pages():
        page = client.get(page_url)
        if page.status_code != 200 or not page["Content-Type"].startswith("text/html"):
            continue
        for link in set(_parse(page.content.decode()).links):
            if link not in answers:
                answers[link] = client.get(link).status_code
            if answers[link] == 403:
                broken.append(f"{page_url} → {link}")
    assert not broken, f"{role.label} is shown links to pages that refuse them: {sorted(broken)}"


def test_the_inspector_sees_no_enabled_submit_button_and_the_forms_read_only(facility, floor, inspector, client_for):
    client = client_for(inspector)
    pages = _parameterless_pages() + [f"/equipment/tables/{t.pk}/{p}" for t in floor for p in ("", "dice/")]
    seen_read_only_form = False
    for url in pages:
        response = client.get(url)
        if response.status_code != 200 or not response["Content-Type"].startswith("text/html"):
            continue
        html = response.content.decode()
        for form in _parse(html).forms:
            # Their own session, password and backup codes are the inspector's to change, never a record.
            if form["method"] != "post" or any(w in form["action"] for w in ("logout", "facility/select",
                                                                              "accounts/password",
                                                                              "accounts/backup-codes")):
                continue
            assert form["submits"] == 0, f"{url} offers the inspector a submit button ({form})"
            assert form["enabled_fields"] == 0, f"{url} offers the inspector a field to fill in ({form})"
            if form["fields"]:
                seen_read_only_form = True
                assert "Read-only" in html
    assert seen_read_only_form, "the walk must see at least one form shown read-only"
    assert INSPECTOR_ALLOWED_WRITES  # the session's own writes (switching facility, signing out) stay


def _sign_buttons(record: Any, user: Any) -> set[str]:
    request = RequestFactory().get("/")
    request.user = user
    template = engines["django"].from_string('{% include "includes/signatures.html" %}')
    html = template.render({"record": record, "request": request, "user": user}, request)
    return {link.rstrip("/").rsplit("/", 1)[-1] for link in _parse(html).links if link.startswith("/sign/")}


def test_a_sign_button_is_shown_only_to_a_person_who_may_sign_that_slot(
    facility, marketing_supervisor, second_marketing_supervisor, finance_supervisor, finance_staff, inspector,
    password,
):
    record = TwoPersonForm.objects.create(facility=facility, note="n", quantity=1)
    assert _sign_buttons(record, marketing_supervisor) == {"prepared", "authorized"}
    assert _sign_buttons(record, finance_supervisor) == {"authorized"}
    assert _sign_buttons(record, finance_staff) == set()
    assert _sign_buttons(record, inspector) == set()
    signature_sign(record=record, slot="prepared", user=marketing_supervisor, password=password)
    # The form needs a different person to authorize it (segregation of duties).
    assert _sign_buttons(record, marketing_supervisor) == set()
    assert _sign_buttons(record, second_marketing_supervisor) == {"authorized"}


def test_a_sign_button_asks_for_the_department_the_slot_names(facility, marketing_staff, dealer):
    record = ExaminationForm.objects.create(facility=facility, note="shipment")
    assert _sign_buttons(record, marketing_staff) == {"marketing"}
    assert _sign_buttons(record, dealer) == set()


def test_may_sign_agrees_with_signing_for_every_role_and_slot(facility, other_facility, password):
    people = [make_person(role, facility) for role in Role]
    people.append(make_person(Role.MARKETING_SUPERVISOR, other_facility))  # another facility's supervisor
    inactive = make_person(Role.FINANCE_SUPERVISOR, facility)
    inactive.profile.active = False
    inactive.profile.save()
    people.append(inactive)
    for model in (TwoPersonForm, ExaminationForm):
        record = model.objects.create(facility=facility, note="n")
        for requirement in model.signature_requirements:
            for person in people:
                shown = may_sign(person, record, requirement)
                try:
                    with transaction.atomic():
                        signature_sign(record=record, slot=requirement.slot, user=person, password=password)
                        transaction.set_rollback(True)
                    accepted = True
                except (PermissionDenied, ValidationError):
                    accepted = False
                assert shown == accepted, f"{person.profile} on {model.__name__}.{requirement.slot}: {shown=}"
        # With one slot signed, the others follow the two-person rule.
        first = model.signature_requirements[0]
        signer = next(p for p in people if may_sign(p, record, first))
        signature_sign(record=record, slot=first.slot, user=signer, password=password)
        record.refresh_from_db()
        for requirement in model.signature_requirements:
            assert not may_sign(signer, record, requirement)


def test_the_signing_page_offers_no_form_to_who_cannot_sign(facility, finance_staff, client_for):
    record = TwoPersonForm.objects.create(facility=facility, note="n", quantity=1)
    from django.contrib.contenttypes.models import ContentType

    content_type = ContentType.objects.get_for_model(TwoPersonForm)
    html = client_for(finance_staff).get(f"/sign/{content_type.pk}/{record.pk}/prepared/").content.decode()
    assert "Not yours to sign" in html and 'type="password"' not in html


def test_awaiting_your_signature_leaves_out_records_that_need_someone_else(
    facility, marketing_supervisor, marketing_staff, password, client_for
):
    record = TwoPersonForm.objects.create(facility=facility, note="waiting", quantity=1)
    signature_sign(record=record, slot="prepared", user=marketing_supervisor, password=password)
    awaiting = client_for(marketing_supervisor).get("/").context["awaiting"]
    assert record not in [r for r, _ in awaiting]
    examination = ExaminationForm.objects.create(facility=facility, note="shipment")
    awaiting = client_for(marketing_staff).get("/").context["awaiting"]
    assert [(r, req.slot) for r, req in awaiting if r == examination] == [(examination, "marketing")]
