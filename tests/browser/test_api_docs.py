"""The API's browsable docs in a real browser: Swagger UI from vendored files renders the redemption
endpoint under the Content-Security-Policy (no CDN, no inline script), with nothing blocked."""

from __future__ import annotations

import pytest

from tests.browser.conftest import shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_swagger_ui_renders_the_redemption_api(login, live_server, facility, compliance_officer):
    page = login(compliance_officer)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(live_server.url) else None)
    page.goto(f"{live_server.url}/api/docs/")
    page.get_by_text("/api/v1/coupons/redemptions/").first.wait_for()
    assert page.get_by_text("Table games compliance API").first.is_visible()
    assert not [p for p in problems if "Content Security Policy" in p or "Refused" in p], problems
    assert outside == [], outside
    from tests.coupons.test_browser import SHOTS

    SHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, SHOTS / "api-docs.png", full_page=False)


