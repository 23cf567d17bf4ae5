"""Key flows in a real browser: sign in, sign a record with the password, the inspector's view."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.contenttypes.models import ContentType

from compliance.models import Signature
from tests.browser.conftest import shoot
from tests.factories import PASSWORD, GamingTableFactory
from tests.testapp.models import TwoPersonForm

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def test_a_supervisor_signs_a_record_from_the_dashboard(login, live_server, facility, marketing_supervisor):
    form = TwoPersonForm.objects.create(facility=facility, note="Saturday promotion", quantity=500)
    page = login(marketing_supervisor)
    assert page.get_by_role("heading", name="Awaiting your signature").is_visible()
    page.get_by_role("link", name="Test form").first.click()

    page.get_by_label("Your password").fill("wrong password")
    page.get_by_role("button", name="Sign as").click()
    page.get_by_text("That password is not correct").wait_for()  # the refused form has come back
    assert not Signature.objects.exists()

    page.get_by_label("Your password").fill(PASSWORD)
    page.get_by_role("button", name="Sign as").click()
    page.wait_for_url("**/signatures/*/")
    assert page.get_by_text(marketing_supervisor.profile.credential_number).first.is_visible()
    assert page.get_by_text("matches its fingerprint").is_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, SHOTS / "signature.png")
    assert Signature.objects.get().object_id == form.pk


def test_the_inspector_browses_read_only_and_a_write_is_refused(login, live_server, facility, inspector):
    form = TwoPersonForm.objects.create(facility=facility, note="inspect me", quantity=1)
    page = login(inspector)
    assert page.get_by_text("Board inspector — read-only access").is_visible()
    # The inspector's menu groups the records' screens under "Records" (compliance.navigation.menu_for).
    page.locator("nav.mainnav details.navgroup > summary", has_text="Records").click()
    page.get_by_role("link", name="Audit trail", exact=True).click()
    page.get_by_role("heading", name="Audit trail").wait_for()
    shoot(page, SHOTS / "audit-inspector.png")

    sign_url = f"{live_server.url}/sign/{ContentType.objects.get_for_model(form).pk}/{form.pk}/prepared/"
    page.goto(sign_url)
    assert page.get_by_text("A Board inspector has read-only access and signs nothing").is_visible()
    assert page.get_by_label("Your password").count() == 0
    # Posting anyway, with the session's CSRF token, is refused before any view runs.
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    refused = page.request.post(sign_url, form={"password": PASSWORD},
                                headers={"X-CSRFToken": token, "Referer": sign_url})
    assert refused.status == 403
    assert not Signature.objects.exists()


def test_the_inspector_sees_a_form_read_only(login, live_server, facility, inspector):
    table = GamingTableFactory(facility=facility, number="SB-1")  # Sic Bo: an opening inspection
    page = login(inspector)
    page.goto(f"{live_server.url}/equipment/tables/{table.pk}/inspection/")
    assert page.get_by_text("Read-only: a Board inspector sees this form").is_visible()
    assert page.locator("main form[method=post] button, main form[method=post] input[type=submit]").count() == 0
    fields = page.locator("main form[method=post] input:not([type=hidden]), main form[method=post] select")
    assert fields.count() > 0
    assert all(fields.nth(i).is_disabled() for i in range(fields.count()))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, SHOTS / "inspector-read-only-form.png")


def test_the_dashboard_is_usable_by_keyboard(login, facility, finance_supervisor):
    page = login(finance_supervisor)
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.textContent")
    assert "Skip to main content" in focused
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    SHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, SHOTS / "dashboard.png")
