"""The Board inspector sees everything and can change nothing: checked on every URL of the project.

The walk enumerates every URL pattern (admin included), fills its parameters with plausible values
and sends every write method as the inspector. Views added later are covered automatically.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.urls import URLPattern, URLResolver, get_resolver

from compliance.middleware import INSPECTOR_ALLOWED_WRITES
from compliance.models import AuditEvent, Signature
from compliance.services import signature_sign
from tests.testapp.models import TwoPersonForm

pytestmark = pytest.mark.django_db

WRITE_METHODS = ("post", "put", "patch", "delete")
_PARAM = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>\w+)>")


def _all_routes(patterns: list[Any], prefix: str = "", name_prefix: str = "") -> list[tuple[str, str]]:
    routes: list[tuple[str, str]] = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            namespace = f"{name_prefix}{pattern.namespace}:" if pattern.namespace else name_prefix
            routes.extend(_all_routes(pattern.url_patterns, prefix + str(pattern.pattern), namespace))
        elif isinstance(pattern, URLPattern):
            routes.append((prefix + str(pattern.pattern), f"{name_prefix}{pattern.name or ''}"))
    return routes


def _concrete(route: str, values: dict[str, str]) -> str:
    """Turn a route or regex into a URL, filling parameters with real or plausible values."""
    if route.startswith("^") or "(?P<" in route:
        route = route.replace("^", "").replace("$", "").replace("\\Z", "").replace("\\", "")
        route = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: values.get(m.group(1), "1"), route)
        route = re.sub(r"\((?!\?P)[^)]*\)\??", "", route)
        route = route.replace("?", "")
    route = _PARAM.sub(
        lambda m: values.get(m.group("name"), "1" if m.group("converter") in ("int", None) else "x"), route
    )
    return "/" + route.lstrip("/")


PROBES = frozenset({"healthz", "readyz"})  # compliance/health.py


def test_every_url_pattern_refuses_every_write_by_the_inspector(facility, inspector, client_for, marketing_supervisor):
    record = TwoPersonForm.objects.create(facility=facility, note="n", quantity=1)
    values = {
        "content_type_id": str(ContentType.objects.get_for_model(TwoPersonForm).pk),
        "object_id": str(record.pk),
        "slot": "prepared",
        "pk": str(record.pk),
    }
    client = client_for(inspector)
    routes = _all_routes(get_resolver().url_patterns)
    assert len(routes) > 20, "the walk must see the whole project, admin included"
    before = (Signature.objects.count(), AuditEvent.objects.count(), TwoPersonForm.objects.count())
    checked = 0
    for route, name in routes:
        bare_name = name.rsplit(":", 1)[-1]
        if bare_name in INSPECTOR_ALLOWED_WRITES:
            continue
        url = _concrete(route, values)
        for method in WRITE_METHODS:
            response = getattr(client, method)(url, data={"password": "x", "note": "changed"})
            if response.status_code == 404 and not url.startswith("/admin/"):
                pytest.fail(f"{method.upper()} {url} ({name}) did not resolve: the walk must reach every view")
            if bare_name in PROBES:  # the load balancer's probes refuse every write, to everyone, before any view
                assert response.status_code == 405, f"{method.upper()} {url} ({name}) gave {response.status_code}"
            elif response.status_code != 404:
                assert response.status_code == 403, f"{method.upper()} {url} ({name}) gave {response.status_code}"
                checked += 1
    assert checked >= len(routes)
    assert (Signature.objects.count(), AuditEvent.objects.count(), TwoPersonForm.objects.count()) == before


def test_the_only_writes_an_inspector_may_make_touch_their_own_session(facility, other_facility, inspector, client_for):
    inspector.profile.facilities.add(other_facility)
    client = client_for(inspector)
    before = AuditEvent.objects.count()
    response = client.post("/facility/select/", {"facility": other_facility.pk, "next": "/"})
    assert response.status_code == 302
    assert client.session["facility_id"] == other_facility.pk
    assert AuditEvent.objects.count() == before
    assert client.post("/accounts/logout/").status_code == 302


def test_inspector_gets_every_parameterless_page(facility, inspector, client_for):
    client = client_for(inspector)
    for route, name in _all_routes(get_resolver().url_patterns):
        if "<" in route or "(?P" in route or route.startswith("admin/") or name.endswith(("logout", "login")):
            continue
        url = _concrete(route, {})
        response = client.get(url)
        if response.status_code == 302 and response.url.startswith("/reports/"):
            response = client.get(response.url)  # an app's report page that moved onto the report framework
        # 405: an action endpoint that only accepts POST (it has no page to see).
        assert response.status_code in (200, 405), f"GET {url} ({name}) gave {response.status_code} to the inspector"


def test_inspector_sees_a_signature_and_the_history_but_gets_no_sign_button(
    facility, inspector, marketing_supervisor, password, client_for
):
    record = TwoPersonForm.objects.create(facility=facility, note="n", quantity=1)
    signature = signature_sign(record=record, slot="prepared", user=marketing_supervisor, password=password)
    client = client_for(inspector)
    page = client.get(f"/signatures/{signature.pk}/")
    assert page.status_code == 200
    assert marketing_supervisor.profile.credential_number in page.content.decode()
    audit = client.get("/audit/", {"model": "testapp.TwoPersonForm", "object_id": record.pk})
    assert audit.status_code == 200 and "Signed" in audit.content.decode()
    dashboard = client.get("/").content.decode()
    assert "read-only" in dashboard and "Awaiting your signature" not in dashboard


def test_inspector_cannot_see_a_facility_they_are_not_assigned_to(facility, other_facility, inspector, client_for):
    foreign = TwoPersonForm.objects.create(facility=other_facility, note="elsewhere", quantity=1)
    content_type = ContentType.objects.get_for_model(TwoPersonForm)
    client = client_for(inspector)
    assert client.get(f"/sign/{content_type.pk}/{foreign.pk}/prepared/").status_code == 404
    assert client.post("/facility/select/", {"facility": other_facility.pk}).status_code == 302
    assert client.session.get("facility_id") != other_facility.pk
