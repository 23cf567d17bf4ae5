"""The game math page in a real browser: a compliance officer picks Asia Poker's paytable and sees the exact
figures and the three paytables side by side; Sic Bo's odds typed below the minimum are refused in words.
Screenshots are looked at (var/screenshots/)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_a_compliance_officer_compares_the_options(login, live_server, facility, compliance_officer):
    from tests.coupons.test_browser import SHOTS

    page = login(compliance_officer)
    page.goto(f"{live_server.url}/games/asia-poker/")
    page.locator("#id_paytable").select_option("B")
    page.get_by_role("button", name="Compute").click()
    page.get_by_text("6.5429%").first.wait_for()
    assert page.get_by_text("What the option costs the house").first.is_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, SHOTS / "games-asia-poker.png")
    page.goto(f"{live_server.url}/games/sic-bo/")
    page.locator("#id_any-three-of-a-kind").fill("20 to 1")
    page.get_by_role("button", name="Compute").click()
    page.get_by_text("24 to 1").first.wait_for()
    assert page.get_by_role("alert").inner_text().startswith("Any Three of a Kind pays at least 24 to 1")
    shoot(page, SHOTS / "games-sic-bo-refused.png")
